"""An unavailable reviewer is not a verdict: the session is queued, logged with the fix, retried."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from review_support import (
    FakeReviewer, conversation, json_reply, ledger, log_lines, notes, omp, reply, review, standard_answer, state,
    write_session,
)


@pytest.fixture
def fake(tmp_path: Path) -> FakeReviewer:
    return FakeReviewer(tmp_path / "fake")


def _queue_entry(project: Path, session: str) -> dict | None:
    path = state(project) / "memory-review" / "queue" / f"{session}.json"
    return json.loads(path.read_text()) if path.exists() else None


def test_a_missing_copilot_is_queued_with_the_fix_and_retried_by_sweep(
    project: Path, fake: FakeReviewer, tmp_path: Path
) -> None:
    session = write_session(project, conversation())
    env = {**fake.env("copilot"), "OMP_COPILOT_BIN": str(tmp_path / "nowhere" / "copilot")}
    result = review(project, env, "--session", session)
    assert result.returncode == 1
    out = result.json()
    assert out["ran"] is False and "reviewer unavailable (missing)" in out["reason"]
    assert "OMP_COPILOT_BIN" in out["hint"]
    assert "hint: install Copilot CLI" in result.stderr
    entry = _queue_entry(project, session)
    assert entry and entry["attempts"] == 1 and entry["kind"] == "missing"
    assert not (state(project) / "memory-review" / "claims" / f"{session}.json").exists()
    line = log_lines(project)[-1]
    assert line["outcome"] == "failed" and "OMP_COPILOT_BIN" in line["hint"]

    # Not due yet: a plain run leaves it alone; a sweep without --force too.
    assert "queued for retry" in review(project, fake.env("copilot"), "--session", session).json()["reason"]
    swept = omp(project, fake.env("copilot"), "memory-review", "--sweep", "--json").json()
    assert swept["reviewed"] == 0 and swept["skipped"] == {"queued for retry": 1}

    fake.queue(json_reply(standard_answer()))
    swept = omp(project, fake.env("copilot"), "memory-review", "--sweep", "--force", "--json")
    assert swept.returncode == 0, swept.stderr
    assert swept.json()["reviewed"] == 1
    assert len(notes(project)) == 1 and _queue_entry(project, session) is None
    assert [r["outcome"] for r in ledger(project)] == ["unavailable", "ok"]


def test_an_auth_error_is_queued_backs_off_and_a_due_entry_is_swept(project: Path, fake: FakeReviewer) -> None:
    session = write_session(project, conversation())
    auth = reply(stderr="Error: No authentication information found.\n", exit=1)
    fake.queue(auth, auth)
    first = review(project, fake.env("copilot"), "--session", session)
    assert first.returncode == 1 and "run: copilot login" in first.json()["hint"]
    second = review(project, fake.env("copilot"), "--session", session, "--force")
    assert second.returncode == 1
    entry = _queue_entry(project, session)
    assert entry["attempts"] == 2 and entry["next_try_at"] - entry["updated_at"] == 120  # 60 s x 2^1
    assert "No authentication information found" in entry["last_error"]

    # Time passes: the entry is due, and a sweep retries it without --force.
    entry["next_try_at"] = entry["updated_at"] - 1
    (state(project) / "memory-review" / "queue" / f"{session}.json").write_text(json.dumps(entry))
    fake.queue(json_reply(standard_answer()))
    swept = omp(project, fake.env("copilot"), "memory-review", "--sweep", "--json").json()
    assert swept["reviewed"] == 1 and _queue_entry(project, session) is None
    outcomes = [r["outcome"] for r in ledger(project)]
    assert outcomes == ["unavailable", "unavailable", "ok"]

    cost = omp(project, {}, "cost", "--json").json()
    assert cost["total"]["calls"] == 3 and cost["total"]["sessions"] == 1
    assert cost["by_outcome"]["unavailable"]["calls"] == 2 and cost["by_outcome"]["ok"]["calls"] == 1


def test_a_reviewer_that_times_out_without_an_answer_is_queued(project: Path, fake: FakeReviewer) -> None:
    session = write_session(project, conversation())
    fake.queue(reply("thinking", sleep=30))
    result = review(project, fake.env(memory_review_timeout=1), "--session", session)
    assert result.returncode == 1 and "reviewer unavailable (timeout)" in result.json()["reason"]
    assert "memory-review-timeout" in result.json()["hint"]
    assert _queue_entry(project, session)["kind"] == "timeout"


def test_sweep_reviews_every_unreviewed_session_up_to_the_limit(project: Path, fake: FakeReviewer) -> None:
    sessions = [write_session(project, conversation(topic)) for topic in ("pnpm", "yarn", "bun")]
    write_session(project, conversation("deno"))
    fake.default(json_reply({"schema": "omp.review.v1"}))
    # (--all: these sessions were written before memory mode was first seen on.)
    first = omp(project, fake.env(), "memory-review", "--sweep", "--all", "--limit", "2", "--json").json()
    assert first["reviewed"] == 2 and first["skipped"]["over --limit"] == 2
    second = omp(project, fake.env(), "memory-review", "--sweep", "--all", "--json").json()
    assert second["reviewed"] == 2 and second["skipped"]["already reviewed"] == 2
    third = omp(project, fake.env(), "memory-review", "--sweep", "--all").stdout
    assert third.startswith("sweep: 0 reviewed, 0 failed; skipped: 4 already reviewed")
    assert len(fake.calls()) == 4 and sessions
    assert log_lines(project)[-1]["event"] == "sweep"


def test_a_failed_forced_re_review_of_a_done_session_is_not_queued(project: Path, fake: FakeReviewer) -> None:
    session = write_session(project, conversation())
    fake.queue(json_reply(standard_answer()), reply(stderr="Error: No authentication information found.\n", exit=1))
    assert review(project, fake.env(), "--session", session).json()["ran"]
    failed = review(project, fake.env(), "--session", session, "--force")
    assert failed.returncode == 1 and "not queued" in failed.json()["reason"]
    assert _queue_entry(project, session) is None
    again = review(project, fake.env(), "--session", session).json()
    assert again["reason"] == "already reviewed"
