"""Exactly once, under concurrency and under SIGKILL (docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps, docs/performance.md#where-speed-matters, docs/test-suite.md)."""

from __future__ import annotations

import json
import random
import subprocess
import time
from pathlib import Path
from typing import Callable

import pytest

from review_support import (
    FakeReviewer, conversation, json_reply, log_lines, notes, omp, pending_lines, review, spawn_review,
    standard_answer, state, write_session,
)

NAMES = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
         "quebec romeo sierra tango").split()


@pytest.fixture
def fake(tmp_path: Path) -> FakeReviewer:
    return FakeReviewer(tmp_path / "fake")


def _wait_for(condition: Callable[[], bool], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def _stores_parse(project: Path) -> None:
    for path in state(project).rglob("*.json"):
        json.loads(path.read_text())
    for path in notes(project):
        assert path.read_text().startswith("---\n")


@pytest.mark.slow
def test_twenty_simultaneous_reviews_of_one_session_call_the_reviewer_once(project: Path, fake: FakeReviewer) -> None:
    session = write_session(project, conversation())
    fake.default(json_reply(standard_answer(), sleep=0.3))
    procs = [spawn_review(project, fake.env(), "--session", session) for _ in range(20)]
    outs = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert [p.returncode for p in procs] == [0] * 20
    assert sum(o["ran"] for o in outs) == 1
    assert {o["reason"].split(" by pid")[0] for o in outs if not o["ran"]} <= {"already reviewed", "being reviewed"}
    assert len(fake.calls()) == 1
    assert len(notes(project)) == 1 and len(pending_lines(project)) == 1
    assert len([line for line in log_lines(project) if line.get("session") == session]) == 20


@pytest.mark.slow
def test_twenty_reviews_of_twenty_sessions_keep_twenty_notes_and_directives(project: Path, fake: FakeReviewer) -> None:
    sessions = [write_session(project, conversation(f"zz{name}")) for name in NAMES]
    fake.default({**json_reply(standard_answer("@@")), "fill": r"zz[a-z]+"})
    procs = [spawn_review(project, fake.env(), "--session", s) for s in sessions]
    outs = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert all(o["ran"] for o in outs), [o["reason"] for o in outs if not o["ran"]]
    assert len(fake.calls()) == 20
    assert len(notes(project)) == 20
    assert sorted(pending_lines(project)) == sorted(f"- [ ] Use zz{n}, not npm, for dependencies" for n in NAMES)
    _stores_parse(project)
    block = (project / ".github" / "copilot-instructions.md").read_text()
    assert block.count("<!-- omp:memory:start -->") == 1


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.kill()  # SIGKILL: no cleanup of any kind runs
    proc.wait()


def _end_state_is_exactly_once(project: Path, session: str, fake: FakeReviewer) -> None:
    assert len(notes(project)) == 1 and pending_lines(project) == ["- [ ] Use pnpm, not npm, for dependencies"]
    _stores_parse(project)
    again = review(project, fake.env(), "--session", session).json()
    assert again["ran"] is False and again["reason"] == "already reviewed"


@pytest.mark.slow
def test_killed_after_claiming_then_the_next_run_reviews_it(project: Path, fake: FakeReviewer) -> None:
    session = write_session(project, conversation())
    claim = state(project) / "memory-review" / "claims" / f"{session}.json"
    fake.default(json_reply(standard_answer(), sleep=1))
    proc = spawn_review(project, fake.env(), "--session", session)
    _wait_for(claim.exists, "the claim")
    _kill(proc)
    assert notes(project) == []
    out = review(project, fake.env(), "--session", session).json()
    assert out["ran"] and "stale claim taken over" in out["reason"]
    _end_state_is_exactly_once(project, session, fake)


@pytest.mark.slow  # a run killed, then reviewed again (docs/test-suite.md, Marks)
def test_killed_during_the_reviewer_call_then_a_sweep_reviews_it(project: Path, fake: FakeReviewer) -> None:
    session = write_session(project, conversation())
    fake.queue(json_reply(standard_answer(), sleep=30))
    proc = spawn_review(project, fake.env(), "--session", session)
    _wait_for(lambda: bool(fake.calls()) and (fake.calls()[0].folder / "reply.json").exists(), "the reviewer call")
    _kill(proc)
    pid = int((fake.calls()[0].folder / "pid.txt").read_text())
    _wait_for(lambda: not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2],
              "the orphaned reviewer to die with omp")
    fake.default(json_reply(standard_answer()))
    swept = omp(project, fake.env(), "memory-review", "--sweep", "--json").json()
    assert swept["reviewed"] == 1
    _end_state_is_exactly_once(project, session, fake)


@pytest.mark.slow  # a run killed, then reviewed again (docs/test-suite.md, Marks)
def test_killed_after_the_answer_arrived_then_the_next_run_reviews_it(project: Path, fake: FakeReviewer) -> None:
    session = write_session(project, conversation())
    # The reviewer answers and lingers; omp waits a moment for it to exit, and is killed then.
    fake.queue(json_reply(standard_answer(), hang=True))
    proc = spawn_review(project, fake.env(), "--session", session)
    _wait_for(lambda: bool(fake.calls()) and (fake.calls()[0].folder / "answered.txt").exists(), "the answer")
    _kill(proc)
    assert notes(project) == []
    fake.default(json_reply(standard_answer()))
    assert review(project, fake.env(), "--session", session).json()["ran"]
    _end_state_is_exactly_once(project, session, fake)


@pytest.mark.slow
def test_random_sigkills_never_corrupt_or_double_anything(project: Path, fake: FakeReviewer) -> None:
    session = write_session(project, conversation())
    fake.default(json_reply(standard_answer()))
    rng = random.Random(5)
    for _ in range(5):
        proc = spawn_review(project, fake.env(), "--session", session)
        time.sleep(rng.uniform(0.1, 0.9))
        _kill(proc)
        _stores_parse(project)
    final = review(project, fake.env(), "--session", session).json()
    assert final["ran"] or final["reason"] == "already reviewed"
    _end_state_is_exactly_once(project, session, fake)


def _running(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.slow
def test_a_takeover_ends_the_killed_runs_reviewer_group_and_reviews_once(project: Path, fake: FakeReviewer) -> None:
    """docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps: omp is SIGKILLed while its slow reviewer (which started a child) thinks; the
    next run takes the claim over and first ends that reviewer's process group."""
    session = write_session(project, conversation())
    claim = state(project) / "memory-review" / "claims" / f"{session}.json"
    fake.queue({**json_reply(standard_answer(), sleep=600), "spawn_child": True})
    proc = spawn_review(project, fake.env(), "--session", session)
    _wait_for(lambda: bool(fake.calls()) and (fake.calls()[0].folder / "child.txt").exists(), "the reviewer's child")
    _wait_for(lambda: "reviewer_pid" in claim.read_text() and json.loads(claim.read_text())["reviewer_pid"],
              "the claim to record the reviewer")
    reviewer_pid = int((fake.calls()[0].folder / "pid.txt").read_text())
    child = int((fake.calls()[0].folder / "child.txt").read_text())
    assert json.loads(claim.read_text())["reviewer_pid"] == reviewer_pid
    try:
        _kill(proc)
        time.sleep(0.3)
        assert _running(child)  # the orphan a takeover must end: it outlived omp and its reviewer

        fake.default(json_reply(standard_answer()))
        out = review(project, fake.env(), "--session", session).json()
        assert out["ran"] and "stale claim taken over" in out["reason"]
        _wait_for(lambda: not _running(child) and not _running(reviewer_pid), "the old reviewer group to end", 5)
        assert len(fake.calls()) == 2  # the killed call and the one that finished
        _end_state_is_exactly_once(project, session, fake)
    finally:
        if _running(child):  # the test failed: leave no sleeper behind
            import os
            import signal

            os.kill(child, signal.SIGKILL)


def test_a_takeover_never_kills_a_process_that_reused_the_reviewers_pid(project: Path, fake: FakeReviewer) -> None:
    import os
    import sys

    session = write_session(project, conversation())
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    try:
        claim = state(project) / "memory-review" / "claims" / f"{session}.json"
        claim.parent.mkdir(parents=True)
        # A stale claim whose reviewer pid now belongs to another process (started later).
        claim.write_text(json.dumps({
            "token": "old", "pid": gone.pid, "pid_started_at": time.time() - 50, "host": os.uname().nodename,
            "started_at": time.time() - 50, "state": "running", "cursor": 0,
            "reviewer_pid": bystander.pid, "reviewer_started_at": time.time() - 3600,
        }))
        fake.default(json_reply(standard_answer()))
        out = review(project, fake.env(), "--session", session).json()
        assert out["ran"] and "stale claim taken over" in out["reason"]
        assert bystander.poll() is None  # still running
    finally:
        bystander.kill()
        bystander.wait()
