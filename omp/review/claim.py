"""Exactly-once reviews: the claim file (docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps).

`R/.omp/memory-review/claims/<id>.json` holds `{pid, pid_started_at, host, started_at, state,
cursor, timeout, ...}`. `state` is `running` while a review works and `done` afterwards; `cursor` is the
byte offset in `events.jsonl` where a running review started, or where a done review stopped.

How the races are closed:

- **Creating** a claim is lock-free: `fsio.create_exclusive` (a complete temp file hard-linked
  into place, O_EXCL semantics). Of N processes racing for an absent claim exactly one link
  succeeds; the others see the file and go on to judge it.
- **Every other change** (take over a stale or done claim, mark done, release, clean up) happens
  under one short kernel lock, `claims/.claims.lock`, re-reading the claim after taking it.
  A kernel lock dies with its holder, so a SIGKILL can never leave it held.
- A takeover replaces the file in place (`os.replace`) while holding that lock, and only after
  re-reading the very record it judged (same `token`). While the file exists no lock-free
  creator can win, and every other writer needs the lock, so exactly one taker wins; the
  losers re-read a live claim and step back.
- The owner changes its claim only if the `token` on disk is still its own: a review that was
  declared stale (hung past the timeout) and taken over can no longer mark done or release the
  new owner's claim, and the pipeline checks ownership again right before it writes memory.
- Stale means: the pid is gone, is a zombie, or now belongs to a process with a different start
  time (pid reuse; without a recorded start time, a live pid whose command line is no omp
  process); or, whatever the pid says (or on another host, where it cannot be checked), the
  claim is older than `memory-review-timeout` plus `STALE_MARGIN_SECONDS`, its age counted from
  a time it cannot fake into the future (`claim_age`): a claim stamped tomorrow by a live pid
  that is not a review of this session blocks no longer than that.
- The timeout that counts is the **owner's** (`timeout`, recorded in the claim; bounded by the
  largest value the setting takes), not the judge's: reviews of one session may run with
  different reviewers and settings (a hook-started `openai` review waits up to 900 s for a local
  model; a `--reviewer copilot` run or a sweep with another setting judges with 120 s). Judged
  by its own shorter timeout, a second review took over a first one still waiting on its model
  at 120 + 300 s; the first, whose HTTP call no takeover can end, then answered and wrote
  nothing: "another review took this session over; nothing written".
- A review that took over a `done` claim (new turns in a resumed session) remembers that
  claim's cursor; if it fails, releasing puts the `done` record back instead of deleting it,
  so the next run still starts from there and old turns are not paid for twice.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform  # node(): the host name socket.gethostname() gives, without importing socket (~4 ms)
import time
import uuid
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Iterator, Literal

from omp.errors import OmpError
from omp.fsio import (
    atomic_write_json,
    create_exclusive,
    dump_json,
    file_lock,
    read_text,
)
from omp.paths import ProjectPaths, check_session_id
from omp.process import OMP_ENTRY, command_line, end_run_leftovers, is_alive, start_time

# Beyond the reviewer timeout, a live review may still wait for the project lock (up to two
# minutes) and stream a large session; five minutes covers both with room to spare.
STALE_MARGIN_SECONDS = 300.0
# The largest memory-review-timeout omp accepts (omp.config.MAX_SECONDS): a claim's own timeout
# is believed up to this, so a forged or corrupt claim still grows stale within a day.
MAX_CLAIM_TIMEOUT = 86400.0
REVIEW_CLAIM_ENV = "OMP_REVIEW_CLAIM"  # the claim token, in every reviewer process's environment

State = Literal["running", "done"]


@dataclass(frozen=True)
class ClaimRecord:
    token: str
    pid: int
    pid_started_at: float | None
    host: str
    started_at: float  # epoch seconds
    state: State
    cursor: int
    prior_cursor: int | None = None  # the done cursor this review replaced
    done_at: float | None = None
    # The reviewer process this review started (the leader of its own process group) and its
    # start time, so a taker can end what is left of a killed run without ever hitting a reused pid.
    reviewer_pid: int | None = None
    reviewer_started_at: float | None = None
    timeout: float | None = None  # the owner's memory-review-timeout (None: an older omp's claim)

    @classmethod
    def from_json(cls, value: Any) -> "ClaimRecord":
        if not isinstance(value, dict):
            raise ValueError("not an object")
        state = value.get("state")
        if state not in ("running", "done"):
            raise ValueError(f"unknown state {state!r}")
        cursor = value.get("cursor", 0)
        if not isinstance(cursor, int) or cursor < 0:
            raise ValueError("bad cursor")
        prior = value.get("prior_cursor")
        return cls(
            token=str(value.get("token", "")),
            pid=int(value.get("pid", 0)),
            pid_started_at=_float_or_none(value.get("pid_started_at")),
            host=str(value.get("host", "")),
            started_at=float(value.get("started_at", 0.0)),
            state=state,
            cursor=cursor,
            prior_cursor=prior if isinstance(prior, int) and prior >= 0 else None,
            done_at=_float_or_none(value.get("done_at")),
            reviewer_pid=_int_or_none(value.get("reviewer_pid")),
            reviewer_started_at=_float_or_none(value.get("reviewer_started_at")),
            timeout=_positive_or_none(value.get("timeout")),
        )


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None


def _float_or_none(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _positive_or_none(value: Any) -> float | None:
    number = _float_or_none(value)
    return number if number is not None and number > 0 and number == number else None  # not NaN


def stale_after(record: ClaimRecord, timeout: float) -> float:
    """Seconds after which a running claim is stale whatever its pid says: the owner's own
    timeout when it recorded one (bounded), else the judge's, plus the margin."""
    own = min(record.timeout, MAX_CLAIM_TIMEOUT) if record.timeout is not None else timeout
    return max(own, timeout) + STALE_MARGIN_SECONDS


Refusal = Literal["done", "running", "contended"]


@dataclass(frozen=True)
class Verdict:
    """What an existing claim means for a new review."""

    take: bool  # may this review claim the session?
    start_cursor: int  # where the review starts reading
    reason: str | None  # why not (take=False), or why it is taken over
    prior_cursor: int | None = None
    continues: bool = False  # a finished review's session grew: this one goes on from its cursor
    refused: Refusal | None = None  # take=False: what holds the session ("done", "running", "contended")


@dataclass(frozen=True)
class Claim:
    """A claim this process holds."""

    paths: ProjectPaths
    session_id: str
    token: str
    start_cursor: int
    prior_cursor: int | None
    took_over: str | None  # why an existing claim was replaced, if one was (not when it `continues`)


def claim_path(paths: ProjectPaths, session_id: str) -> Path:
    return paths.claims / f"{check_session_id(session_id)}.json"


def _lock_path(paths: ProjectPaths) -> Path:
    return paths.claims / ".claims.lock"


@contextlib.contextmanager
def claims_lock(paths: ProjectPaths) -> Iterator[None]:
    with file_lock(_lock_path(paths), "review claims", timeout=60):
        yield


def own_start_time() -> float | None:
    return start_time(os.getpid())


def claim_age(record: ClaimRecord, now: float, file_time: float | None = None) -> float:
    """Seconds since the claim was made, from times it cannot fake into the future (docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps).

    `started_at` is whatever the file says: a claim stamped tomorrow would never grow old. The
    age is counted from the earliest of `started_at`, the file's modification time and its
    status-change time (`file_time`, which the kernel sets when the file is written and nobody
    can set ahead), each taken no later than now. An honest claim's `started_at` is the earliest
    of these, so its age is unchanged."""
    earliest = min(record.started_at, now if file_time is None else file_time, now)
    return now - earliest


def file_time(path: Path) -> float | None:
    """The earliest of a file's modification and status-change times (None when it is gone)."""
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return min(info.st_mtime, info.st_ctime)


def _is_omp_program(argv: list[str]) -> bool:
    """Is this command line an omp process (the `omp` command, `python -m omp…`, or a detached
    review's `python -c "…from omp.cli import run; run()"`, or an earlier omp's
    `python -c "…omp.review.__main__…"`)?"""
    for i, arg in enumerate(argv):
        name = os.path.basename(arg).lower()
        if name in ("omp", "omp.exe") or OMP_ENTRY in arg or "omp.review.__main__" in arg:
            return True
        if i and argv[i - 1] == "-m" and (arg == "omp" or arg.startswith("omp.")):
            return True
    return False


def stale_reason(record: ClaimRecord, timeout: float, now: float | None = None,
                 written_at: float | None = None) -> str | None:
    """Why a running claim may be taken over, or None when its review is alive.

    `written_at`: the claim file's `file_time`, so a claim stamped in the future still grows
    old (`claim_age`). Whatever the pid says, a claim older than the timeout plus the margin is
    stale: a live pid that is not a review of this session (the user's shell, pid 1) blocks no
    longer than that.
    """
    now = time.time() if now is None else now
    age = claim_age(record, now, written_at)
    limit = stale_after(record, timeout)
    if age > limit:
        stamped = " (stamped in the future)" if record.started_at > now + 1 else ""
        return (f"claim by pid {record.pid} is {age:.0f}s old{stamped} "
                f"(timeout {limit - STALE_MARGIN_SECONDS:g}s + margin)")
    if record.host and record.host != platform.node():
        return None  # another machine's pid says nothing here; only age counts
    if not is_alive(record.pid, record.pid_started_at):
        return f"claiming process {record.pid} is gone"
    if record.pid_started_at is None:
        # Without a start time the pid cannot be told from a reused one: its command line can.
        argv = command_line(record.pid)
        if argv is not None and not _is_omp_program(argv):
            return f"claiming pid {record.pid} is not an omp review (it runs {os.path.basename(argv[0]) if argv else '?'})"
    return None


def judge(record: ClaimRecord | None, *, end_offset: int, force: bool, timeout: float,
          written_at: float | None = None) -> Verdict:
    """Decide, from the claim on disk, whether a new review may run and from which cursor.
    `written_at`: the claim file's `file_time` (see `stale_reason`)."""
    if record is None:
        return Verdict(True, 0, None)
    if record.state == "done":
        if force:
            return Verdict(True, 0, "forced re-review", prior_cursor=record.cursor)
        if record.cursor < end_offset:
            return Verdict(True, record.cursor, "new turns since the last review", prior_cursor=record.cursor,
                           continues=True)
        return Verdict(False, record.cursor, "already reviewed", refused="done")
    reason = stale_reason(record, timeout, written_at=written_at)
    if reason is None:
        where = "" if record.host == platform.node() else f" on {record.host}"
        return Verdict(False, record.cursor, f"being reviewed by pid {record.pid}{where}", refused="running")
    start = 0 if force else record.cursor
    return Verdict(True, start, f"stale claim taken over: {reason}", prior_cursor=record.prior_cursor)


class _Unreadable:
    """A claim file that does not parse (edited by hand, or a foreign file)."""


def read_record(paths: ProjectPaths, session_id: str) -> ClaimRecord | _Unreadable | None:
    try:
        text = read_text(claim_path(paths, session_id))
    except OSError:
        return _Unreadable()
    if text is None:
        return None
    try:
        return ClaimRecord.from_json(json.loads(text))
    except (ValueError, TypeError):
        return _Unreadable()


def peek(paths: ProjectPaths, session_id: str, *, end_offset: int, force: bool, timeout: float) -> Verdict:
    """The verdict without taking anything (used to skip cheaply before reading the session)."""
    record = read_record(paths, session_id)
    if isinstance(record, _Unreadable):
        return Verdict(True, 0, "unreadable claim replaced")
    return judge(record, end_offset=end_offset, force=force, timeout=timeout,
                 written_at=file_time(claim_path(paths, session_id)))


def _new_record(start_cursor: int, prior_cursor: int | None, timeout: float | None = None) -> ClaimRecord:
    return ClaimRecord(
        token=uuid.uuid4().hex,
        pid=os.getpid(),
        pid_started_at=own_start_time(),
        host=platform.node(),
        started_at=time.time(),
        state="running",
        cursor=start_cursor,
        prior_cursor=prior_cursor,
        timeout=timeout,
    )


def _record_json(record: ClaimRecord) -> dict[str, Any]:
    data = asdict(record)
    data["started_at_iso"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(record.started_at))
    return data


def acquire(
    paths: ProjectPaths, session_id: str, *, end_offset: int, force: bool, timeout: float
) -> Claim | Verdict:
    """Claim the session for this process, or return the Verdict that says why not."""
    path = claim_path(paths, session_id)
    for _ in range(5):
        fresh = _new_record(0, None, timeout)
        if create_exclusive(path, dump_json(_record_json(fresh))):
            return Claim(paths, session_id, fresh.token, 0, None, None)
        with claims_lock(paths):
            record = read_record(paths, session_id)
            if record is None:
                continue  # released between our create and the lock: race for it again
            if isinstance(record, _Unreadable):
                verdict = Verdict(True, 0, "unreadable claim replaced")
            else:
                verdict = judge(record, end_offset=end_offset, force=force, timeout=timeout,
                                written_at=file_time(path))
            if not verdict.take:
                return verdict
            if isinstance(record, ClaimRecord) and record.state == "running":
                # Taking over a stale run: first end its reviewer, so no orphaned call runs on.
                end_reviewer_group(record)
            mine = _new_record(verdict.start_cursor, verdict.prior_cursor, timeout)
            atomic_write_json(path, _record_json(mine))
            return Claim(paths, session_id, mine.token, mine.cursor, mine.prior_cursor,
                         None if verdict.continues else verdict.reason)
    return Verdict(False, 0, "claim is changing too fast; try again", refused="contended")


def _owned(claim: Claim) -> ClaimRecord | None:
    record = read_record(claim.paths, claim.session_id)
    if isinstance(record, ClaimRecord) and record.token == claim.token and record.state == "running":
        return record
    return None


def still_held(claim: Claim) -> bool:
    with claims_lock(claim.paths):
        return _owned(claim) is not None


def mark_done(claim: Claim, cursor: int) -> bool:
    """Record success with the new cursor. False if the claim was taken over meanwhile."""
    with claims_lock(claim.paths):
        record = _owned(claim)
        if record is None:
            return False
        done = replace(record, state="done", cursor=cursor, done_at=time.time())
        atomic_write_json(claim_path(claim.paths, claim.session_id), _record_json(done))
        return True


def release(claim: Claim) -> bool:
    """Give the claim up after a failure that wrote nothing (restoring an earlier done record)."""
    with claims_lock(claim.paths):
        record = _owned(claim)
        if record is None:
            return False
        path = claim_path(claim.paths, claim.session_id)
        if record.prior_cursor is not None:
            restored = replace(record, state="done", cursor=record.prior_cursor, prior_cursor=None, done_at=time.time())
            atomic_write_json(path, _record_json(restored))
        else:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        return True


def record_reviewer(claim: Claim, pid: int) -> bool:
    """Write the reviewer process this review just started into its claim (docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps)."""
    started = start_time(pid)
    try:
        with claims_lock(claim.paths):
            record = _owned(claim)
            if record is None:
                return False
            updated = replace(record, reviewer_pid=pid, reviewer_started_at=started)
            atomic_write_json(claim_path(claim.paths, claim.session_id), _record_json(updated))
            return True
    except (OmpError, OSError):
        return False  # the call goes on; only a later takeover loses the chance to end it


def end_reviewer_group(record: ClaimRecord) -> int:
    """Kill what is left of a stale run's reviewer (docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps). Returns how many died.

    The reviewer ran in a process group of its own; omp.process ends the leader only when its
    start time matches the claim's record, and any other member only when it carries this
    claim's token (`OMP_REVIEW_CLAIM`, set by the reviewer call and inherited by its children),
    so a pid reused by an unrelated process is never hit.
    """
    if not record.reviewer_pid or record.reviewer_started_at is None:
        return 0
    return end_run_leftovers(record.reviewer_pid, record.reviewer_started_at, marker=(REVIEW_CLAIM_ENV, record.token))


def done_cursor(paths: ProjectPaths, session_id: str) -> int | None:
    record = read_record(paths, session_id)
    if isinstance(record, ClaimRecord) and record.state == "done":
        return record.cursor
    return None


def list_claims(paths: ProjectPaths) -> dict[str, ClaimRecord | None]:
    """Every claim file by session id (None for unreadable ones)."""
    found: dict[str, ClaimRecord | None] = {}
    try:
        entries = list(paths.claims.iterdir())
    except FileNotFoundError:
        return found
    for entry in entries:
        if entry.suffix != ".json" or entry.name.startswith("."):
            continue
        record = read_record(paths, entry.stem)
        found[entry.stem] = record if isinstance(record, ClaimRecord) else None
    return found


def clean_old(paths: ProjectPaths, max_age_seconds: float, timeout: float, now: float | None = None) -> int:
    """Delete claims untouched for `max_age_seconds` unless a live review holds them."""
    now = time.time() if now is None else now
    removed = 0
    if not paths.claims.is_dir():
        return 0
    with claims_lock(paths):
        for entry in list(paths.claims.iterdir()):
            if entry.name.startswith(".") and entry.name.endswith(".tmp"):
                # a temp file left by a writer killed mid-create
                if _older(entry, now, 3600):
                    with contextlib.suppress(OSError):
                        entry.unlink()
                continue
            if entry.suffix != ".json" or entry.name.startswith(".") or not _older(entry, now, max_age_seconds):
                continue
            record = read_record(paths, entry.stem)
            if (isinstance(record, ClaimRecord) and record.state == "running"
                    and not stale_reason(record, timeout, now, file_time(entry))):
                continue
            with contextlib.suppress(OSError):
                entry.unlink()
                removed += 1
    return removed


def _older(path: Path, now: float, seconds: float) -> bool:
    try:
        return now - path.stat().st_mtime > seconds
    except OSError:
        return False
