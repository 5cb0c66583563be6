"""A hostile or broken reviewer answer fails the review cleanly, and is never billed on every run
(docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps): bounded size, nesting and time; logged, recorded, queued; at most 5 attempts."""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from copilot_support import run_hook
from review_support import (
    FakeReviewer, conversation, json_reply, ledger, log_lines, omp, reply, review, standard_answer, state,
    write_session,
)

from omp import process
from omp.process import captured
from omp.review.answer import MAX_DEPTH, answer_complete, find_answer
from omp.review.queue import MAX_ATTEMPTS

NESTED_ARRAYS = "[" * 100_000 + "]" * 100_000
ENVELOPE = '{"schema": "omp.review.v1", "directives": [], "notes": '
# 1 MB of brackets, quotes, escapes and words, repeated: 50 MB of garbage. (Random bytes mapped
# onto those characters: made in C, not a million Python calls at every worker's collection.)
_GARBAGE_CHARS = b'{}[]"\\:, ab\n'
GARBAGE_MB = random.Random(32).randbytes(1024 * 1024).translate(
    bytes(_GARBAGE_CHARS[i % len(_GARBAGE_CHARS)] for i in range(256))).decode()


@pytest.fixture
def fake(tmp_path: Path) -> FakeReviewer:
    return FakeReviewer(tmp_path / "fake")


def _queue_entry(project: Path, session: str) -> dict[str, Any] | None:
    path = state(project) / "memory-review" / "queue" / f"{session}.json"
    return json.loads(path.read_text()) if path.exists() else None


# ---------------------------------------------------------------------------------------------
# the parse: bounded depth, size and time


@pytest.mark.parametrize("text", [
    pytest.param(NESTED_ARRAYS, id="100k-nested-arrays"),
    pytest.param(ENVELOPE + NESTED_ARRAYS + "}", id="100k-nested-arrays-in-envelope"),
    pytest.param(ENVELOPE + '[{"title": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}]}", id="nested-object"),
    pytest.param(GARBAGE_MB * 50, id="50MB-garbage"),
    pytest.param('{"schema": "omp.review.v1", ' * 2_000_000, id="50MB-open-envelopes"),
    pytest.param("{}" * 25_000_000, id="50MB-of-empty-objects"),
])
def test_a_hostile_answer_is_refused_quickly_with_a_reason(text: str) -> None:
    started = time.perf_counter()
    found = find_answer(text)
    complete = answer_complete(text)
    elapsed = time.perf_counter() - started
    assert found.obj is None and found.error and not complete
    assert elapsed < 3.0, f"{elapsed:.1f}s"


def test_nesting_up_to_the_bound_is_read_and_one_level_more_is_refused() -> None:
    good = json.dumps({"schema": "omp.review.v1", "notes": []})
    inside = MAX_DEPTH - 2  # the answer's own object and its list make two more levels
    assert find_answer('{"x": ' * inside + good + "}" * inside).obj is not None
    deeper = find_answer('{"x": ' * (inside + 1) + good + "}" * (inside + 1))
    assert deeper.obj is None and f"more than {MAX_DEPTH} levels" in (deeper.error or "")


def test_an_answer_after_prose_with_a_stray_quote_inside_braces_is_still_found() -> None:
    good = {"schema": "omp.review.v1", "notes": []}
    assert find_answer('I weighed {the "obvious} fix. ' + json.dumps(good)).obj == good
    assert find_answer('{"result": ' + json.dumps(good) + ", trailing").obj == good


# ---------------------------------------------------------------------------------------------
# the reader: bounded, and never dies silently


def _writer(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_the_reader_stops_at_its_bound_and_ends_the_child() -> None:
    started = time.monotonic()
    finished = process.run_captured(
        _writer("import sys\nwhile True: sys.stdout.write('x' * 65536)"), timeout=30, own_group=True,
        max_stdout=1024 * 1024,
    )
    assert finished.overflowed and len(finished.stdout) == 1024 * 1024 and not finished.timed_out
    assert time.monotonic() - started < 10


def test_a_reader_that_fails_reaches_the_caller_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(stream: object) -> Any:
        raise RecursionError("maximum recursion depth exceeded")
        yield b""  # a generator, like the real one

    monkeypatch.setattr(captured._Pump, "_chunks", staticmethod(broken))
    started = time.monotonic()
    with pytest.raises(process.OutputReadError, match="RecursionError"):
        process.run_captured(_writer("import time; time.sleep(60)"), timeout=60, own_group=True)
    assert time.monotonic() - started < 10  # not the whole timeout


def test_a_completeness_check_that_fails_reaches_the_caller_at_once() -> None:
    def check(text: str) -> bool:
        raise RecursionError("deep")

    started = time.monotonic()
    with pytest.raises(process.OutputReadError, match="RecursionError"):
        process.run_captured(_writer("import sys, time; print('{}', flush=True); time.sleep(60)"), timeout=60,
                             own_group=True, complete=check)
    assert time.monotonic() - started < 10


# ---------------------------------------------------------------------------------------------
# the review: failed cleanly, logged, recorded, queued


HOSTILE = {
    "100k-nested-arrays": reply(ENVELOPE + NESTED_ARRAYS + "}"),
    "50MB-garbage": {**reply(GARBAGE_MB), "repeat": 50},
    "nested-object": reply(ENVELOPE + '[{"title": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}]}"),
    "unbalanced-braces": reply('{"schema": "omp.review.v1", "notes": [{"title": "x", "body": "y"}'),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_answer_fails_the_review_cleanly(project: Path, fake: FakeReviewer, name: str) -> None:
    session = write_session(project, conversation())
    fake.queue(HOSTILE[name])
    started = time.monotonic()
    result = review(project, fake.env(memory_review_timeout=40), "--session", session)
    assert time.monotonic() - started < 20, "the review waited for its timeout"
    assert result.returncode == 1, result.stderr
    assert "internal error" not in result.stderr
    out = result.json()
    assert out["ran"] is False and "queued for retry (attempt 1 of 5" in out["reason"]
    line = log_lines(project)[-1]
    assert line["session"] == session and line["outcome"] == "failed"
    assert [r["outcome"] for r in ledger(project)] in (["invalid-answer"], ["unavailable"])
    entry = _queue_entry(project, session)
    assert entry and entry["attempts"] == 1 and not entry.get("failed")
    assert not (state(project) / "memory-review" / "claims" / f"{session}.json").exists()
    assert len(fake.calls()) == 1


def test_six_sweeps_pay_at_most_five_times_then_only_force_calls_again(project: Path, fake: FakeReviewer) -> None:
    session = write_session(project, conversation())
    fake.default(HOSTILE["unbalanced-braces"])
    for _ in range(6):  # --force: no waiting for the backoff; --all: the session predates memory mode
        omp(project, fake.env(), "memory-review", "--sweep", "--all", "--force", "--json")
    assert len(fake.calls()) == MAX_ATTEMPTS == 5
    entry = _queue_entry(project, session)
    assert entry and entry["failed"] is True and entry["attempts"] == 5
    assert len(ledger(project)) == 5

    # Time passing changes nothing: a failed entry is never due.
    entry["next_try_at"] = 0
    (state(project) / "memory-review" / "queue" / f"{session}.json").write_text(json.dumps(entry))
    swept = omp(project, fake.env(), "memory-review", "--sweep", "--all", "--json").json()
    assert swept["reviewed"] == 0 and swept["skipped"].get("review failed") == 1
    text = omp(project, fake.env(), "memory-review", "--sweep", "--all", "--force").stdout
    assert f"omp memory-review --session {session} --force" in text
    plain = review(project, fake.env(), "--session", session)
    assert plain.returncode == 0 and f"omp memory-review --session {session} --force" in plain.json()["reason"]
    assert len(fake.calls()) == 5

    # The session start hears of it, and starts no sweep for it.
    said = run_hook("session-start", {"sessionId": "9f1c2d3e-0000-4000-8000-000000000001", "cwd": str(project),
                                      "source": "new", "timestamp": 1795982096462}, env=fake.env())
    context = said.json()["additionalContext"]
    assert "[MEMORY REVIEW] 1 review failed for good" in context
    assert f"omp memory-review --session {session} --force" in context
    assert "sweep started" not in said.stderr

    # omp doctor names it, with the command that retries it.
    checks = {c["name"]: c for c in omp(project, fake.env(), "doctor", "--json").json()["checks"]}
    assert "all good" not in omp(project, fake.env(), "doctor").stdout
    failed = checks["failed-reviews"]
    assert failed["status"] == "fail" and session in failed["detail"] and "5 attempts" in failed["detail"]
    assert failed["fix"] == f"omp memory-review --session {session} --force"

    # Only --force pays again; a good answer then clears the entry.
    fake.queue(json_reply(standard_answer()))
    forced = review(project, fake.env(), "--session", session, "--force")
    assert forced.returncode == 0 and forced.json()["ran"], forced.stderr
    assert len(fake.calls()) == 6 and _queue_entry(project, session) is None


def test_an_unavailable_reviewer_is_also_given_up_after_five_attempts(project: Path, fake: FakeReviewer) -> None:
    session = write_session(project, conversation())
    fake.default(reply(stderr="Error: No authentication information found.\n", exit=1))
    for _ in range(6):
        omp(project, fake.env(), "memory-review", "--sweep", "--all", "--force", "--json")
    assert len(fake.calls()) == 5
    entry = _queue_entry(project, session)
    assert entry and entry["failed"] is True and entry["kind"] == "auth"
    last = [line for line in log_lines(project) if line.get("session") == session][-1]
    assert "not retried automatically" in last["reason"]
