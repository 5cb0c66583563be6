"""A token budget too small for omp's prompt frame and one message is a failure that says so
(issue 32): no model call, the session is not marked reviewed, the log line names the fix.
Before, such a review 'ran' with no model call and marked the session done."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from review_support import FakeReviewer, conversation, json_reply, log_lines, review, standard_answer, state, write_session


@pytest.fixture
def fake(tmp_path: Path) -> FakeReviewer:
    return FakeReviewer(tmp_path / "fake")


def test_a_budget_too_small_for_any_message_fails_clearly_and_marks_nothing(project: Path, fake: FakeReviewer) -> None:
    fake.default(json_reply(standard_answer()))
    session = write_session(project, conversation())

    result = review(project, fake.env(memory_review_max_input_tokens="1000"), "--session", session)

    assert result.returncode == 1, result.stdout
    assert "internal error" not in result.stderr
    assert "review budget of 1000 tokens cannot hold omp's prompt frame" in result.stderr
    assert "omp config set memory-review-max-input-tokens" in result.stderr
    assert fake.calls() == []  # no model call
    claim = state(project) / "memory-review" / "claims" / f"{session}.json"
    assert not claim.exists() or json.loads(claim.read_text())["state"] != "done"
    last = log_lines(project)[-1]
    assert last["outcome"] == "failed" and "review budget of 1000 tokens" in last["reason"]
    assert "memory-review-max-input-tokens" in last["hint"]

    # With the budget the hint names, the same session is reviewed: nothing was lost.
    hint = result.stderr.split("omp config set memory-review-max-input-tokens ", 1)[1].split()[0]
    again = review(project, fake.env(memory_review_max_input_tokens=hint), "--session", session)
    assert again.returncode == 0, again.stderr
    assert again.json()["ran"] and len(fake.calls()) == 1
