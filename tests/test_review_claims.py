"""Claims: exactly one review per session, stale claims taken over by exactly one process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from omp import process
from omp.paths import ProjectPaths
from omp.review import claim as claims
from omp.review import queue

SESSION = "3c847d83-4dbb-44b7-b275-17c051efd491"


def _paths(project: Path) -> ProjectPaths:
    return ProjectPaths(project)


def _write_claim(paths: ProjectPaths, **fields: object) -> None:
    record = {"token": "t-old", "pid": os.getpid(), "pid_started_at": claims.own_start_time(),
              "host": __import__("socket").gethostname(), "started_at": time.time(), "state": "running",
              "cursor": 0, **fields}
    path = claims.claim_path(paths, SESSION)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record))


def _dead_pid() -> tuple[int, float | None]:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    started = process.start_time(proc.pid)
    proc.wait()
    return proc.pid, started


def test_a_claim_records_who_holds_it_and_blocks_a_second_review(project: Path) -> None:
    paths = _paths(project)
    held = claims.acquire(paths, SESSION, end_offset=100, force=False, timeout=120)
    assert isinstance(held, claims.Claim) and held.start_cursor == 0
    data = json.loads(claims.claim_path(paths, SESSION).read_text())
    assert {"pid", "pid_started_at", "host", "started_at", "state", "cursor"} <= set(data)
    assert data["pid"] == os.getpid() and data["state"] == "running"
    again = claims.acquire(paths, SESSION, end_offset=100, force=False, timeout=120)
    assert isinstance(again, claims.Verdict) and not again.take
    assert again.reason == f"being reviewed by pid {os.getpid()}" and again.refused == "running"


def test_done_claims_keep_the_cursor_and_reopen_only_for_new_turns(project: Path) -> None:
    paths = _paths(project)
    held = claims.acquire(paths, SESSION, end_offset=100, force=False, timeout=120)
    assert isinstance(held, claims.Claim) and claims.mark_done(held, 100)
    assert claims.done_cursor(paths, SESSION) == 100
    same = claims.acquire(paths, SESSION, end_offset=100, force=False, timeout=120)
    assert isinstance(same, claims.Verdict) and same.reason == "already reviewed" and same.refused == "done"
    resumed = claims.acquire(paths, SESSION, end_offset=250, force=False, timeout=120)
    assert isinstance(resumed, claims.Claim) and resumed.start_cursor == 100
    assert resumed.took_over is None  # going on from the cursor is no takeover (Verdict.continues)
    # A failed review of the new turns puts the earlier done record back, cursor and all.
    assert claims.release(resumed)
    assert claims.done_cursor(paths, SESSION) == 100
    forced = claims.acquire(paths, SESSION, end_offset=100, force=True, timeout=120)
    assert isinstance(forced, claims.Claim) and forced.start_cursor == 0
    assert forced.took_over == "forced re-review"


def test_claims_of_dead_reused_or_zombie_processes_are_stale(project: Path) -> None:
    paths = _paths(project)
    pid, started = _dead_pid()
    _write_claim(paths, pid=pid, pid_started_at=started, cursor=40)
    taken = claims.acquire(paths, SESSION, end_offset=100, force=False, timeout=120)
    assert isinstance(taken, claims.Claim) and taken.start_cursor == 40
    assert "is gone" in (taken.took_over or "")

    claims.claim_path(paths, SESSION).unlink()
    _write_claim(paths, pid=os.getpid(), pid_started_at=12345.0)  # our pid, someone else's start time
    assert isinstance(claims.acquire(paths, SESSION, end_offset=1, force=False, timeout=120), claims.Claim)

    claims.claim_path(paths, SESSION).unlink()
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    zombie_started = process.start_time(zombie.pid)
    deadline = time.time() + 10
    while time.time() < deadline and not process.is_alive(zombie.pid, zombie_started) is False:
        time.sleep(0.05)
    _write_claim(paths, pid=zombie.pid, pid_started_at=zombie_started)
    assert isinstance(claims.acquire(paths, SESSION, end_offset=1, force=False, timeout=120), claims.Claim)
    zombie.wait()


def test_an_old_claim_is_stale_even_if_its_process_lives(project: Path) -> None:
    paths = _paths(project)
    _write_claim(paths, started_at=time.time() - 120 - claims.STALE_MARGIN_SECONDS - 5)
    taken = claims.acquire(paths, SESSION, end_offset=1, force=False, timeout=120)
    assert isinstance(taken, claims.Claim) and "old" in (taken.took_over or "")


def test_a_review_that_lost_its_claim_cannot_touch_the_new_one(project: Path) -> None:
    paths = _paths(project)
    first = claims.acquire(paths, SESSION, end_offset=1, force=False, timeout=120)
    assert isinstance(first, claims.Claim)
    # Declared stale (say it hung) and taken over: rewrite it as a claim of a dead process.
    record = json.loads(claims.claim_path(paths, SESSION).read_text())
    record["pid"], record["pid_started_at"] = _dead_pid()
    claims.claim_path(paths, SESSION).write_text(json.dumps(record))
    second = claims.acquire(paths, SESSION, end_offset=1, force=False, timeout=120)
    assert isinstance(second, claims.Claim)
    assert not claims.still_held(first)
    assert not claims.mark_done(first, 1) and not claims.release(first)
    assert claims.still_held(second)


_RACE = """
import sys, time, json
from pathlib import Path
from omp.paths import ProjectPaths
from omp.review import claim
paths = ProjectPaths(Path(sys.argv[1]))
while not Path(sys.argv[2]).exists():
    time.sleep(0.001)
held = claim.acquire(paths, sys.argv[3], end_offset=10, force=False, timeout=120)
print(json.dumps(isinstance(held, claim.Claim)))
if isinstance(held, claim.Claim):
    time.sleep(0.5)  # hold it while the others look, then finish like a review does
    claim.mark_done(held, 10)
"""


def _race(project: Path, tmp_path: Path, n: int) -> list[bool]:
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", _RACE, str(project), str(go), SESSION],
                              stdout=subprocess.PIPE, text=True) for _ in range(n)]
    time.sleep(0.3)
    go.touch()
    return [json.loads(p.communicate(timeout=60)[0]) for p in procs]


@pytest.mark.slow
def test_processes_racing_for_a_stale_claim_one_wins(project: Path, tmp_path: Path) -> None:
    # (Racing for a free claim is shown end to end: 20 reviews of one session, one reviewer call.)
    paths = _paths(project)
    pid, started = _dead_pid()
    _write_claim(paths, pid=pid, pid_started_at=started)
    assert sum(_race(project, tmp_path, 12)) == 1


def test_queue_backs_off_exponentially_with_a_cap(project: Path) -> None:
    paths = _paths(project)
    now = 1_000_000.0
    first = queue.record_failure(paths, SESSION, "not logged in", "run: copilot login", "auth", now=now)
    assert first.attempts == 1 and first.next_try_at == now + 60
    second = queue.record_failure(paths, SESSION, "not logged in", "run: copilot login", "auth", now=now)
    assert second.attempts == 2 and second.next_try_at == now + 120
    assert queue.backoff_seconds(30) == queue.BACKOFF_CAP_SECONDS
    assert not second.due(now) and second.due(now + 120)
    assert [e.session for e in queue.entries(paths)] == [SESSION]
    assert queue.remove(paths, SESSION) and queue.entries(paths) == []


def test_housekeeping_removes_only_old_claims_and_queue_entries(project: Path) -> None:
    paths = _paths(project)
    held = claims.acquire(paths, SESSION, end_offset=1, force=False, timeout=120)
    assert isinstance(held, claims.Claim) and claims.mark_done(held, 1)
    queue.record_failure(paths, "other-session", "x", None, "network", now=time.time() - 100 * 86400)
    assert claims.clean_old(paths, 90 * 86400, 120) == 0
    old = time.time() - 91 * 86400
    os.utime(claims.claim_path(paths, SESSION), (old, old))
    assert claims.clean_old(paths, 90 * 86400, 120) == 1
    assert queue.clean_old(paths, 90 * 86400) == 1


# A claim is not trusted to block for ever (docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps): stamped in the future, or held by a pid
# that is not a review of this session, it is stale after the timeout plus the margin.

LONG_AGO = 120 + claims.STALE_MARGIN_SECONDS + 60


def test_a_claim_stamped_a_day_ahead_by_a_live_pid_grows_old_all_the_same(project: Path) -> None:
    paths = _paths(project)
    tomorrow = time.time() + 86400
    _write_claim(paths, started_at=tomorrow)  # this very (live) process, its true start time
    path = claims.claim_path(paths, SESSION)
    # Fresh: it still blocks, as any live review's claim does.
    assert isinstance(claims.acquire(paths, SESSION, end_offset=1, force=False, timeout=120), claims.Verdict)

    # The file was written long ago (its times say so): the future stamp does not keep it young.
    os.utime(path, (time.time() - LONG_AGO, time.time() - LONG_AGO))
    taken = claims.acquire(paths, SESSION, end_offset=1, force=False, timeout=120)
    assert isinstance(taken, claims.Claim), taken
    assert "stamped in the future" in (taken.took_over or "")


def test_a_future_stamp_and_a_future_file_time_still_age_from_now(project: Path) -> None:
    """Both the record and the file's modification time set a day ahead: the file's
    status-change time (set by the kernel) is the age's floor, so the claim is stale once the
    timeout and margin have passed, never 'in a day and then some'."""
    paths = _paths(project)
    tomorrow = time.time() + 86400
    _write_claim(paths, started_at=tomorrow)
    path = claims.claim_path(paths, SESSION)
    os.utime(path, (tomorrow, tomorrow))
    record = claims.read_record(paths, SESSION)
    assert isinstance(record, claims.ClaimRecord)
    written = claims.file_time(path)
    assert written is not None and written <= time.time() + 1
    later = time.time() + LONG_AGO
    assert claims.stale_reason(record, 120, now=later, written_at=written) is not None
    assert claims.stale_reason(record, 120, now=time.time(), written_at=written) is None


def test_a_live_pid_that_is_no_omp_review_does_not_hold_a_claim(project: Path) -> None:
    """Without a recorded start time a reused pid looks alive; its command line (a `sleep`,
    not omp) tells it is not the review that wrote the claim."""
    paths = _paths(project)
    stranger = subprocess.Popen(["sleep", "30"])
    try:
        _write_claim(paths, pid=stranger.pid, pid_started_at=None)
        taken = claims.acquire(paths, SESSION, end_offset=1, force=False, timeout=120)
        assert isinstance(taken, claims.Claim), taken
        assert "not an omp review" in (taken.took_over or "")
    finally:
        stranger.kill()
        stranger.wait()


def test_a_live_omp_pid_without_a_start_time_still_blocks(project: Path) -> None:
    paths = _paths(project)
    review = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", "omp", "memory-review"])
    try:
        # `python -c … omp memory-review`: argv names the omp command, like a real review's.
        _write_claim(paths, pid=review.pid, pid_started_at=None)
        assert isinstance(claims.acquire(paths, SESSION, end_offset=1, force=False, timeout=120), claims.Verdict)
    finally:
        review.kill()
        review.wait()
