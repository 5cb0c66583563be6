"""`omp eval --sample N --category C --yes` and the consent before a reviewer that costs money (docs/explicit-requests-and-eval.md#omp-eval--how-good-is-a-reviewer).

A reviewer that costs money (`copilot`; `openai` at a host that is not this machine) is called
only once the user agrees: on a terminal eval says how many calls it will make and asks; without
one it refuses (exit 2) and names `--yes` and `--sample N`. Nothing is started before that: no
throwaway folder, no reviewer process, no request to a server.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from helpers import run_omp
from openai_stub import StubServer, completion
from review_support import FakeReviewer, json_reply

EMPTY_ANSWER = {"schema": "omp.review.v1", "directives": [], "notes": [], "skill_drafts": [], "forget": []}
LONG = [{"role": "user", "content": "Please rename the helper."}, {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "Thanks, and remember that we deploy with make release."},
        {"role": "assistant", "content": "Noted."}]
SHORT = LONG[:2]  # under memory-review-min-messages (4): the explicit pass only, no reviewer call


def _corpus(folder: Path, cases: list[dict]) -> Path:
    path = folder / "corpus.jsonl"
    path.write_text("".join(json.dumps(case) + "\n" for case in cases), encoding="utf-8")
    return path


def _three_cases(folder: Path) -> Path:
    """Two cases that reach the reviewer and one too short to."""
    return _corpus(folder, [
        {"id": "long-1", "category": "request", "language": "en", "messages": LONG,
         "expect": [{"kind": "directive", "contains": "make release"}]},
        {"id": "short", "category": "question", "language": "en", "messages": SHORT},
        {"id": "long-2", "category": "statement", "language": "en", "messages": [
            {"role": "user", "content": "I was reading the pnpm docs yesterday."}, {"role": "assistant", "content": "Nice."},
            {"role": "user", "content": "The CI runs on Ubuntu."}, {"role": "assistant", "content": "Good to know."}]},
    ])


def _tmpdir(tmp_path: Path) -> Path:
    folder = tmp_path / "tmpdir"
    folder.mkdir(exist_ok=True)
    return folder


def _copilot_env(tmp_path: Path, fake: FakeReviewer) -> dict[str, str]:
    return {**fake.env("copilot"), "TMPDIR": str(_tmpdir(tmp_path))}


# ---------------------------------------------------------------------------------------------
# choosing the cases


def test_sample_is_stratified_by_category_spread_and_the_same_every_time() -> None:
    from omp.evaluate import load_corpus, sample_cases

    cases, _ = load_corpus()
    categories = Counter(case.category for case in cases)
    nine = sample_cases(cases, len(categories))
    assert Counter(case.category for case in nine) == Counter(dict.fromkeys(categories, 1))  # one of each
    forty = sample_cases(cases, 40)
    assert [c.id for c in forty] == [c.id for c in sample_cases(list(cases), 40)]  # no randomness
    shares = Counter(case.category for case in forty)
    assert set(shares) == set(categories)
    for name, size in categories.items():  # in proportion to the category's size, within one case
        assert abs(shares[name] - 40 * size / len(cases)) <= 1.5, (name, shares[name], size)
    assert len({case.language for case in forty}) >= 7  # spread through each category, not its head
    order = {case.id: i for i, case in enumerate(cases)}
    assert [order[c.id] for c in forty] == sorted(order[c.id] for c in forty)  # corpus order kept
    assert sample_cases(cases, 3) == [c for c in cases if c.id in {x.id for x in sample_cases(cases, 3)}]
    largest = [name for name, _ in categories.most_common(3)]
    assert sorted(c.category for c in sample_cases(cases, 3)) == sorted(largest)  # n < categories: one each
    assert sample_cases(cases, 10_000) == cases


def test_category_and_sample_choose_the_cases_that_run(tmp_path: Path) -> None:
    result = run_omp(["eval", "--reviewer", "offline", "--category", "secret", "--sample", "3", "--json"],
                     cwd=tmp_path, env={"OMP_TOKENIZER": "estimate", "TMPDIR": str(_tmpdir(tmp_path))}, input="")
    assert result.returncode == 0, result.stderr
    report = result.json()
    assert [c["category"] for c in report["cases"]] == ["secret"] * 3
    assert [c["category"] for c in report["categories"]] == ["secret"]


def test_an_unknown_category_is_a_usage_error_that_lists_the_corpus_categories(tmp_path: Path) -> None:
    fake = FakeReviewer(tmp_path / "fake")
    result = run_omp(["eval", "--reviewer", "copilot", "--category", "requests", "--yes"], cwd=tmp_path,
                     env=_copilot_env(tmp_path, fake), input="")
    assert result.returncode == 2
    assert "unknown category 'requests'" in result.stderr
    assert "request, condition, forget, pasted, question, one-off, statement, secret, injection" in result.stderr
    assert fake.calls() == [] and list(_tmpdir(tmp_path).iterdir()) == []
    # A corpus of the user's own has its own categories: those are the valid ones.
    corpus = _three_cases(tmp_path)
    mine = run_omp(["eval", "--reviewer", "offline", "--corpus", str(corpus), "--category", "secret"],
                   cwd=tmp_path, input="")
    assert mine.returncode == 2 and "choose one of: request, question, statement" in mine.stderr


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_a_sample_that_is_not_a_positive_count_is_refused(tmp_path: Path, value: str) -> None:
    result = run_omp(["eval", "--reviewer", "offline", "--sample", value], cwd=tmp_path, input="")
    assert result.returncode == 2 and "Invalid value for '--sample'" in result.stderr


# ---------------------------------------------------------------------------------------------
# consent


def test_a_paid_reviewer_without_a_terminal_is_refused_before_anything_starts(tmp_path: Path) -> None:
    fake = FakeReviewer(tmp_path / "fake")
    fake.default(json_reply(EMPTY_ANSWER))
    corpus = _three_cases(tmp_path)
    result = run_omp(["eval", "--reviewer", "copilot", "--corpus", str(corpus)], cwd=tmp_path,
                     env=_copilot_env(tmp_path, fake), input="")
    assert result.returncode == 2, result.stderr
    assert "2 reviewer call(s) to copilot, model gpt-5-mini (3 case(s))" in result.stderr  # the short case calls none
    assert "--yes" in result.stderr and "--sample N" in result.stderr
    assert fake.calls() == []  # no reviewer started
    assert list(_tmpdir(tmp_path).iterdir()) == []  # no throwaway folder made either
    assert result.stdout == ""


def test_yes_runs_a_paid_reviewer_and_makes_exactly_the_calls_it_announced(tmp_path: Path) -> None:
    from omp.evaluate import load_corpus, reviewer_calls

    fake = FakeReviewer(tmp_path / "fake")
    fake.default(json_reply(EMPTY_ANSWER))
    corpus = _three_cases(tmp_path)
    result = run_omp(["eval", "--reviewer", "copilot", "--corpus", str(corpus), "--yes", "--json"], cwd=tmp_path,
                     env=_copilot_env(tmp_path, fake), input="")
    assert result.returncode == 0, result.stderr
    assert result.json()["total"]["errors"] == 0
    assert len(fake.calls()) == reviewer_calls(load_corpus(corpus)[0], "copilot") == 2


def test_only_a_reviewer_that_costs_money_asks(tmp_path: Path) -> None:
    """openai at another host asks; openai on this machine, a command and offline do not."""
    corpus = _three_cases(tmp_path)
    remote = run_omp(["eval", "--reviewer", "openai", "--corpus", str(corpus)], cwd=tmp_path, input="",
                     env={"OMP_MEMORY_REVIEWER_URL": "https://models.example.invalid/v1", "TMPDIR": str(_tmpdir(tmp_path))})
    assert remote.returncode == 2 and "--yes" in remote.stderr
    assert "2 reviewer call(s) to openai, model gpt-5-mini at https://models.example.invalid/v1" in remote.stderr
    with StubServer() as server:
        server.then(completion(json.dumps(EMPTY_ANSWER)))
        local = run_omp(["eval", "--reviewer", "openai", "--corpus", str(corpus), "--json"], cwd=tmp_path, input="",
                        env={"OMP_MEMORY_REVIEWER_URL": server.url, "OMP_MEMORY_REVIEW_MODEL": "qwen2.5-coder",
                             "OMP_TOKENIZER": "estimate", "TMPDIR": str(_tmpdir(tmp_path))})
        assert local.returncode == 0, local.stderr
        assert len(server.seen) == 2
    fake = FakeReviewer(tmp_path / "fake")
    fake.default(json_reply(EMPTY_ANSWER))
    for backend in ("command", "offline"):
        result = run_omp(["eval", "--reviewer", backend, "--corpus", str(corpus)], cwd=tmp_path, input="",
                         env={**fake.env("command"), "TMPDIR": str(_tmpdir(tmp_path))})
        assert result.returncode == 0, result.stderr
    assert len(fake.calls()) == 2


def _on_a_terminal(args: list[str], env: dict[str, str], cwd: Path, answer: str) -> tuple[int, str]:
    """Run `omp ARGS` with stdin, stdout and stderr on a pseudo-terminal; type `answer` once the
    question shows. (exit status, everything the terminal showed)"""
    main, side = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "omp", *args], stdin=side, stdout=side, stderr=side,
                            cwd=cwd, env={**os.environ, **env, "COLUMNS": "100"}, close_fds=True)
    os.close(side)
    shown = b""
    answered = False
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(main, 65536)
                except OSError:  # the other side closed: the program ended
                    break
                if not chunk:
                    break
                shown += chunk
            if not answered and b"Go on?" in shown:
                os.write(main, answer.encode() + b"\n")
                answered = True
            if proc.poll() is not None and not ready:
                break
        code = proc.wait(timeout=30)
    finally:
        os.close(main)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return code, shown.decode("utf-8", errors="replace")


def test_on_a_terminal_eval_says_how_many_calls_and_asks_first(tmp_path: Path) -> None:
    fake = FakeReviewer(tmp_path / "fake")
    fake.default(json_reply(EMPTY_ANSWER))
    corpus = _three_cases(tmp_path)
    args = ["eval", "--reviewer", "copilot", "--model", "gpt-5-mini", "--corpus", str(corpus)]
    code, shown = _on_a_terminal(args, _copilot_env(tmp_path, fake), tmp_path, "n")
    assert "omp eval will make 2 reviewer call(s) to copilot, model gpt-5-mini (3 case(s))" in shown, shown
    assert code == 1 and "nothing was run" in shown
    assert fake.calls() == [] and list(_tmpdir(tmp_path).iterdir()) == []

    code, shown = _on_a_terminal([*args, "--json"], _copilot_env(tmp_path, fake), tmp_path, "y")
    assert code == 0, shown
    assert len(fake.calls()) == 2
    # The progress bar is drawn on the terminal as the cases run, case by case.
    assert "omp eval" in shown and "1/3" in shown and "2/3" in shown and "3/3" in shown, shown
