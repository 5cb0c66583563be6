"""A standing request whose object is a pronoun ("never skip them", "always run it before
pushing"): the rule means nothing without what the pronoun points at. It is resolved to the
sentence before it in the same message, when that one says what it is (a statement, not a
question); otherwise it is not proposed, and a model reviewer is shown it with the user's
previous message as its context (an uncertain candidate)."""

from __future__ import annotations


import pytest

from explicit_support import Msg, rule_texts
from omp.intents.messages import requests_in
from omp.review.explicit import scan


@pytest.mark.parametrize("message", [
    "never skip them",
    "always run it before pushing",
    "from now on always update those too",
    "pls dont ever disable it",
    "ok never touch these again",
])
def test_a_pronoun_alone_is_not_proposed(message: str) -> None:
    assert rule_texts(message) == []


@pytest.mark.parametrize(("message", "antecedent", "pointer"), [
    ("the integration tests are slow but they catch real bugs. never skip them", "integration tests", "never skip them"),
    ("we have a lint step in ci. dont ever disable it", "lint step", "disable it"),
])
def test_a_pronoun_is_resolved_to_the_sentence_before_it(message: str, antecedent: str, pointer: str) -> None:
    requests = list(requests_in(message))
    assert len(requests) == 1, requests
    text = requests[0].text.lower()
    assert antecedent in text and pointer in text
    assert not requests[0].certain  # the resolution is a reading: a model may decline it


def test_a_pronoun_whose_clause_names_it_stays_whole() -> None:
    assert rule_texts("the changelog lives in docs/CHANGES.md, always update it when you bump the version") == [
        "The changelog lives in docs/CHANGES.md, always update it when you bump the version"]


def test_a_pronoun_after_a_question_is_not_resolved_to_it() -> None:
    assert rule_texts("do the e2e tests run on every pr? never skip them") == []


def test_a_pronoun_pointing_at_the_previous_message_goes_to_the_model() -> None:
    found = scan([Msg("user", "the e2e suite takes ten minutes", 0), Msg("user", "never skip them", 1)])
    assert found.proposals == []
    assert [(c.sentence, c.text) for c in found.uncertain] == [("never skip them", "")]
    assert "e2e suite" in found.uncertain[0].context


@pytest.mark.parametrize(("message", "expected"), [
    ("always keep it short", "Always keep it short"),  # "it": the answer, a style rule of its own
    ("always use this pattern for errors", "Always use this pattern for errors"),  # a determiner
    ("never commit .env files, they hold secrets", "Never commit .env files"),
])
def test_a_rule_with_its_own_object_stays(message: str, expected: str) -> None:
    texts = rule_texts(message)
    assert len(texts) == 1 and texts[0].startswith(expected), texts


def test_the_teams_practice_with_a_pronoun_is_not_proposed_alone() -> None:
    assert rule_texts("we never use it") == []
