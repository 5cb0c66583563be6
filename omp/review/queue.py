"""The retry queue for reviews that failed: an unavailable reviewer or a bad answer (docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps, docs/reviewers.md).

`R/.omp/memory-review/queue/<id>.json` = `{session, attempts, next_try_at, last_error, hint,
kind, first_failed_at, updated_at, failed}`. An unavailable reviewer (missing binary, no login,
model not available, network down, timeout without an answer) is not a verdict on the session,
and neither is an answer omp refused (invalid, too large, too deep): it is retried later, with
exponential backoff (`BACKOFF_BASE_SECONDS` × 2^(attempts-1), capped at `BACKOFF_CAP_SECONDS`).
`omp memory-review --sweep` (and the sessionStart hook, through a sweep) drains due entries;
`--force` ignores the backoff; success removes the entry.

Each attempt is a billed reviewer call, so after `MAX_ATTEMPTS` failures the entry is marked
`failed` for good: no sweep (not even `--sweep --force`) and no session start tries it again,
the nudge and `omp doctor` name it, and only `omp memory-review --session ID --force` calls the
reviewer for it again.

`last_error` and `hint` are what the user reads later in the nudge and `omp doctor`: each is
stored redacted (omp.safety), on one line, at most `MAX_TEXT_CHARS` long, whatever the caller
passes (the reviewer's own words reach here: Copilot's `session.error`, a server's body, stderr).

Only the holder of a session's claim writes that session's entry, so plain atomic replaces are
enough: no two processes update one entry at once.

Which files are entries, when one is due, and the one-pass summary the sessionStart nudge shows
(`summary`) are omp.core.pending's rules: the hook reads the queue with them too.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from omp.core.pending import (
    QueueSummary,
    is_due,
    is_failed,
    queue_session,
    queue_summary,
)
from omp.fsio import CorruptFileError, atomic_write_json, read_json_object
from omp.paths import ProjectPaths, check_session_id

BACKOFF_BASE_SECONDS = 60.0
BACKOFF_CAP_SECONDS = 6 * 3600.0
MAX_ATTEMPTS = 5  # failed reviewer calls for one session before it is marked failed for good
MAX_TEXT_CHARS = 500  # of last_error and of hint: a message with the reviewer's own line, and its fix


@dataclass(frozen=True)
class QueueEntry:
    session: str
    attempts: int
    next_try_at: float  # epoch seconds
    last_error: str
    hint: str | None
    kind: str
    first_failed_at: float
    updated_at: float
    failed: bool = False  # gave up after MAX_ATTEMPTS: only `--session ID --force` retries it

    def due(self, now: float | None = None) -> bool:
        return not self.failed and is_due(self.next_try_at, time.time() if now is None else now)

    @property
    def retry_command(self) -> str:
        return f"omp memory-review --session {self.session} --force"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["next_try_at_iso"] = _iso(self.next_try_at)
        return data


def _iso(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def stored_text(text: str) -> str:
    """What an entry keeps of an error or a hint: redacted, one line, at most MAX_TEXT_CHARS."""
    from omp.safety.secrets import redact  # only a failed review writes an entry

    text = " ".join(redact(text)[0].split())
    return text if len(text) <= MAX_TEXT_CHARS else text[: MAX_TEXT_CHARS - 1] + "…"


def backoff_seconds(attempts: int) -> float:
    return min(BACKOFF_BASE_SECONDS * (2 ** max(attempts - 1, 0)), BACKOFF_CAP_SECONDS)


def entry_path(paths: ProjectPaths, session_id: str) -> Path:
    return paths.queue / f"{check_session_id(session_id)}.json"


def _from_json(session_id: str, data: dict[str, Any]) -> QueueEntry:
    def num(name: str, default: float = 0.0) -> float:
        value = data.get(name, default)
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default

    attempts = data.get("attempts", 0)
    return QueueEntry(
        session=session_id,
        attempts=attempts if isinstance(attempts, int) and attempts >= 0 else 0,
        next_try_at=num("next_try_at"),
        last_error=str(data.get("last_error", "")),
        hint=data.get("hint") if isinstance(data.get("hint"), str) else None,
        kind=str(data.get("kind", "unavailable")),
        first_failed_at=num("first_failed_at"),
        updated_at=num("updated_at"),
        failed=is_failed(data),
    )


def get(paths: ProjectPaths, session_id: str) -> QueueEntry | None:
    """The session's entry; an unreadable one counts as due now (it is rewritten on the next try)."""
    path = entry_path(paths, session_id)
    try:
        data = read_json_object(path)
    except CorruptFileError:
        return QueueEntry(session_id, 0, 0.0, "unreadable queue entry", None, "unavailable", 0.0, 0.0)
    if not data and not path.exists():
        return None
    return _from_json(session_id, data)


def record_failure(
    paths: ProjectPaths, session_id: str, error: str, hint: str | None, kind: str, now: float | None = None
) -> QueueEntry:
    """Queue (or re-queue) the session after a failed review, pushing its next try back; at
    MAX_ATTEMPTS the entry is marked failed for good."""
    now = time.time() if now is None else now
    previous = get(paths, session_id)
    attempts = (previous.attempts if previous else 0) + 1
    entry = QueueEntry(
        session=session_id,
        attempts=attempts,
        next_try_at=now + backoff_seconds(attempts),
        last_error=stored_text(error),
        hint=stored_text(hint) if hint else None,
        kind=kind,
        first_failed_at=previous.first_failed_at if previous and previous.first_failed_at else now,
        updated_at=now,
        failed=attempts >= MAX_ATTEMPTS,
    )
    atomic_write_json(entry_path(paths, session_id), entry.to_json())
    return entry


def remove(paths: ProjectPaths, session_id: str) -> bool:
    try:
        entry_path(paths, session_id).unlink()
        return True
    except FileNotFoundError:
        return False


def entries(paths: ProjectPaths) -> list[QueueEntry]:
    """Every queued session, oldest next-try first."""
    found: list[QueueEntry] = []
    try:
        files = list(paths.queue.iterdir())
    except FileNotFoundError:
        return found
    for path in files:
        session = queue_session(path.name)
        if session is None:
            continue
        entry = get(paths, session)
        if entry is not None:
            found.append(entry)
    return sorted(found, key=lambda e: (e.next_try_at, e.session))


def summary(paths: ProjectPaths, now: float | None = None) -> QueueSummary:
    """How many sessions wait, whether one is due, the newest error: what the nudge says."""
    return queue_summary(str(paths.root), now)


def clean_old(paths: ProjectPaths, max_age_seconds: float, now: float | None = None) -> int:
    """Give up on entries that have failed for longer than `max_age_seconds`."""
    now = time.time() if now is None else now
    removed = 0
    for entry in entries(paths):
        started = entry.first_failed_at or entry.updated_at
        if started and now - started > max_age_seconds:
            with contextlib.suppress(FileNotFoundError):
                entry_path(paths, entry.session).unlink()
                removed += 1
    return removed
