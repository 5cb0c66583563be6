"""A convention stated as a condition and an imperative, without a standing word ("if you add a
dependency, pin its version", "cuando agregues una dependencia, fija la versión", "如果你要写测试，
用pytest"): how the assistant is to work whenever it does a kind of thing. It is a reading — the
same shape holds one-off steps — so it is an *uncertain* candidate (a model decides when one
runs). What happens ("if it fails, retry it", "if the build fails, …"), the end of this task
("when you're done, …"), a need ("if you need anything, …") and a condition about a thing of
this task ("when you run it, …") are not conventions."""

from __future__ import annotations

import pytest

from omp.intents.messages import requests_in


@pytest.mark.parametrize(("message", "expected"), [
    ("if you add a dependency, pin its version", "pin its version"),
    ("when you write tests, use pytest fixtures instead of setUp", "use pytest fixtures"),
    ("if you touch any db model pls run the migrations too", "run the migrations"),
    ("when you create a new module, add a docstring at the top", "add a docstring"),
    ("cuando agregues una dependencia, fija la versión", "fija la versión"),
    ("quando criar um componente, use typescript", "use typescript"),
    ("si tu ajoutes une dépendance, épingle sa version", "épingle sa version"),
    ("wenn du Tests schreibst, nutze pytest", "nutze pytest"),
    ("如果你要写测试，用pytest", "用pytest"),
])
def test_a_conditional_convention_is_an_uncertain_candidate(message: str, expected: str) -> None:
    requests = list(requests_in(message))
    assert len(requests) == 1, requests
    assert expected.lower() in requests[0].text.lower()
    assert not requests[0].certain


@pytest.mark.parametrize("message", [
    "if it fails, retry it",
    "if the build fails, rerun the job",
    "when you're done, commit the changes",
    "if you need anything, ask me",
    "when you run it, check the logs",
    "if you can, add a test for this bug",
    "if you add a dependency, pin its version this time",
    "if you add a dependency, why did you pin it?",
    "before you start. please write the plan into plan.md",  # the start of this task
    "whats wrong here? if you suggest a fix, keep it short",  # the reply to this question
    "si falla, reinténtalo",
    "cuando termines, haz commit",
    "如果失败了，重新运行一下",
])
def test_a_one_off_condition_is_not_proposed(message: str) -> None:
    assert list(requests_in(message)) == []


@pytest.mark.parametrize("message", [
    "when you open the file, scroll to line 40",  # the file of this task
    "cuando abras el archivo, ve a la línea 40",
    "wenn du die Datei öffnest, geh zu Zeile 40",
    "quando abrir o arquivo, vá para a linha 40",
])
def test_a_condition_on_a_thing_of_this_task_is_not_a_convention(message: str) -> None:
    assert list(requests_in(message)) == []
