"""What waits for the user: the pending checklist's grammar, skill drafts, the retry queue.

The sessionStart nudge counts these, and the library (omp.memory.directives, omp.review.queue)
reads the same files by the same rules.

The pending checklist (`R/.omp/memory-review/pending-directives.md`) is written by omp and may
be edited by hand, so it is read tolerantly: up to 12 spaces of indentation, a `-`/`*`/`+`
bullet, `[ ]`/`[]`/`[x]`/`[X]`, the text stripped; `FORGET: text` (any case) proposes a removal,
`NOTE: title` a note (a fact found outside the user's words, docs/behaviour.md#what-gets-written).
A line repeated is one item. Read without `re`, whose import alone would cost the hook more
than its budget allows in a fresh install (omp.core.jsonlite says why).
"""

from __future__ import annotations

import os
import time

from omp.core import jsonlite, layout

ADD = "add"
FORGET = "forget"
NOTE = "note"
_PREFIXES = ((FORGET, "forget"), (NOTE, "note"))


def _kind_of(body: str) -> tuple[str, str]:
    """(kind, text) of a checklist item's text: `FORGET: x` and `NOTE: x` (any case) say their kind."""
    for kind, word in _PREFIXES:
        if body[: len(word)].lower() == word and body[len(word):].lstrip().startswith(":"):
            return kind, body[len(word):].lstrip()[1:].strip()
    return ADD, body


def checklist_item(raw: str) -> tuple[bool, str] | None:
    """(ticked, text) of a `- [ ] text` line, else None: up to 12 spaces (any Unicode
    whitespace), a `-`/`*`/`+` bullet, `[ ]`/`[]`/`[x]`/`[X]`, the rest stripped."""
    stripped = raw.lstrip()
    if len(raw) - len(stripped) > 12 or stripped[:1] not in ("-", "*", "+"):
        return None
    rest = stripped[1:].lstrip()
    if rest[:2] == "[]":
        return False, rest[2:].strip()
    if rest[:1] == "[" and rest[1:2] in (" ", "x", "X") and rest[2:3] == "]":
        return rest[1] != " ", rest[3:].strip()
    return None


def parse_checklist(text: str) -> list[tuple[str, str, bool]]:
    """(kind, text, ticked) of every checkbox line, in order, duplicates dropped."""
    items: list[tuple[str, str, bool]] = []
    seen: set[tuple[str, str, bool]] = set()
    for raw in text.splitlines():
        found = checklist_item(raw)
        if found is None or not found[1]:
            continue
        ticked, body = found
        kind, item_text = _kind_of(body)
        item = (kind, item_text, ticked)
        if not item[1] or item in seen:
            continue
        seen.add(item)
        items.append(item)
    return items


def count_open(text: str) -> int:
    """Open (unticked) items of a checklist."""
    return sum(1 for _, _, ticked in parse_checklist(text) if not ticked)


def pending_count(root: str) -> int:
    """Open items of the project's pending checklist; 0 when there is none. Raises OSError or
    UnicodeDecodeError when it cannot be read."""
    try:
        with open(os.path.join(root, layout.PENDING_MD), "rb") as handle:
            text = handle.read().decode("utf-8")
    except FileNotFoundError:
        return 0
    return count_open(text) if "[" in text else 0


def draft_count(root: str) -> int:
    """Skill drafts waiting for promotion (`R/.omp/self-evolve/drafts/<slug>/SKILL.md`)."""
    folder = os.path.join(root, layout.DRAFTS_DIR)
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    return sum(1 for n in names if not n.startswith(".") and os.path.isfile(os.path.join(folder, n, "SKILL.md")))


# ---------------------------------------------------------------------------------------------
# the retry queue: `R/.omp/memory-review/queue/<session>.json` (omp.review.queue writes it)


def queue_session(name: str) -> str | None:
    """The session a queue file is for (`<session>.json`), or None for any other name."""
    if not name.endswith(".json") or name.startswith("."):
        return None
    session = name[: -len(".json")]
    return session if layout.is_valid_session_id(session) else None


# An entry with `"failed": true` has used up its attempts (omp.review.queue.MAX_ATTEMPTS): no
# sweep and no session start retries it; only `omp memory-review --session ID --force` does.
FAILED_KEY = "failed"


def is_due(next_try_at: object, now: float) -> bool:
    """A queued session is due when its next try is not in the future (or not a number)."""
    if not isinstance(next_try_at, (int, float)) or isinstance(next_try_at, bool):
        return True
    return next_try_at <= now


def is_failed(entry: object) -> bool:
    """Has this queue entry (its JSON object) given up for good?"""
    return isinstance(entry, dict) and entry.get(FAILED_KEY) is True


class QueueSummary:
    """The retry queue at a glance: how many sessions (`count`, failed ones included), whether
    one is due, the newest error; and the sessions that failed for good, with the newest
    error among them (what the nudge names)."""

    __slots__ = ("count", "due", "last_error", "failed", "failed_error")

    def __init__(self, count: int, due: bool, last_error: str, failed: list[str] | None = None,
                 failed_error: str = "") -> None:
        self.count = count
        self.due = due
        self.last_error = last_error
        self.failed = failed or []  # session ids, oldest failure first
        self.failed_error = failed_error

    @property
    def retrying(self) -> int:
        """Sessions still retried automatically."""
        return self.count - len(self.failed)


def queue_summary(root: str, now: float | None = None) -> QueueSummary:
    """One pass over the queue folder (small files, a handful at most). An entry that cannot be
    read counts as due: the sweep deals with it. One that failed for good is never due."""
    folder = os.path.join(root, layout.QUEUE_DIR)
    try:
        names = [n for n in os.listdir(folder) if queue_session(n)]
    except OSError:
        return QueueSummary(0, False, "")
    now = time.time() if now is None else now
    due, newest, last_error = False, -1.0, ""
    failed: list[tuple[float, str, str]] = []  # (when, session, error)
    for name in names:
        try:
            with open(os.path.join(folder, name), "rb") as handle:
                entry = jsonlite.loads(handle.read().decode("utf-8"))
            updated = entry.get("updated_at", 0)
            updated = float(updated) if isinstance(updated, (int, float)) else 0.0
            error = entry.get("last_error")
            error = error if isinstance(error, str) else ""
            if is_failed(entry):
                failed.append((updated, name[: -len(".json")], error))
            else:
                due = due or is_due(entry.get("next_try_at", 0), now)
            if updated > newest and error:
                newest, last_error = updated, error
        except (OSError, ValueError, AttributeError, RecursionError):
            due = True
    failed.sort()
    return QueueSummary(len(names), due, last_error, [session for _, session, _ in failed],
                        failed[-1][2] if failed else "")
