"""Directives: the active stores, the pending queue and the decisions log (docs/files.md#what-omp-writes).

- Active: `R/.omp/project-memory.json` (and `G/directives.json`, same shape)
  `{"version": 2, "directives": [{"text", "added_at", "source"}]}`. A legacy plain list of
  strings is read too; the next write stores version 2.
- Pending: `R/.omp/memory-review/pending-directives.md`, a checklist a human may edit by hand.
  It is the source of truth for *which* items are open: one `- [ ] text` line per proposal,
  `- [ ] FORGET: text` for a removal proposal. Parsing is tolerant (`*`/`+` bullets, `[x]`, up
  to 12 spaces of indentation; other lines are ignored): the grammar is omp.core.pending's. `pending.json` keeps each open item's metadata
  (proposed_at, session, evidence) and is brought back in step with the checklist whenever the
  queue is opened (see `omp.memory.store`).
- Decisions: `R/.omp/memory-review/decisions.jsonl`, one line per promote / dismiss / expire.
  Dismissed (`rejected`) and `expired` lines are tombstones: near-equal proposals are refused.

The sessionStart hook counts pending items with omp.core.pending, not with this module.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterator, Literal, Mapping, NamedTuple


from omp.core import pending
from omp.fsio import CorruptFileError, decode_text, dump_json, iter_jsonl, parse_json, read_json, read_text
from omp.memory import dedupe

STORE_VERSION = 2
PENDING_VERSION = 1
Kind = Literal["add", "forget", "note"]
Status = Literal["promoted", "rejected", "expired"]
TOMBSTONE_STATUSES = ("rejected", "expired")


PENDING_HEADER = """\
# Pending directives

Proposed by omp's memory review. Nothing here reaches Copilot until a human approves it.

- Approve: `omp project-memory promote-directive N` (or `--all`), or tick the box (`[x]`).
- Dismiss: `omp project-memory dismiss-directive N` (or `--all`), or delete the line.
- A `FORGET:` item proposes removing a directive or note; approving it removes them.
- A `NOTE:` item is a fact found outside your own words (a web page, a command's network
  output, the assistant): approving it writes the note (`omp project-memory pending` shows
  where it came from).

Dismissed items are remembered and not proposed again.
"""


# ---------------------------------------------------------------------------------------------
# Active directives


class Directive(NamedTuple):
    text: str
    added_at: str | None = None
    source: str | None = None  # "manual", "review:<session>", "legacy"
    extra: Mapping[str, Any] = MappingProxyType({})  # unknown keys, kept as they were (read only)

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "added_at": self.added_at, "source": self.source, **self.extra}


def read_directives(path: Path) -> list[Directive]:
    """The active directives in `path` ([] when it does not exist)."""
    data = read_json(path, default=None)
    return [] if data is None else _directives_in(path, data)


def parse_directives(path: Path, raw: bytes | None) -> list[Directive]:
    """The active directives in `raw`, bytes read from `path` ([] for None: no file). Whoever
    decides on trust parses the very bytes it hashed, so nothing can be swapped in between."""
    return [] if raw is None else _directives_in(path, parse_json(path, decode_text(path, raw)))


def _directives_in(path: Path, data: Any) -> list[Directive]:
    if isinstance(data, list):
        items: Any = data  # legacy: a plain list of strings
    elif isinstance(data, dict) and isinstance(data.get("directives"), list):
        items = data["directives"]
    else:
        raise CorruptFileError(path, 'expected {"version": 2, "directives": [...]} or a list of strings')
    directives = []
    for number, item in enumerate(items, start=1):
        if isinstance(item, str):
            directives.append(Directive(item, None, "legacy"))
        elif isinstance(item, dict) and isinstance(item.get("text"), str):
            extra = {k: v for k, v in item.items() if k not in ("text", "added_at", "source")}
            directives.append(Directive(item["text"], item.get("added_at"), item.get("source"), extra))
        else:
            raise CorruptFileError(path, f"directive {number} has no 'text' string")
    return [d for d in directives if d.text.strip()]


def render_directives(directives: list[Directive]) -> str:
    return dump_json({"version": STORE_VERSION, "directives": [d.to_json() for d in directives]})


# ---------------------------------------------------------------------------------------------
# Pending queue


class PendingItem(NamedTuple):
    kind: Kind
    text: str  # a directive, what to forget, or a proposed note's title
    proposed_at: str | None = None
    session: str | None = None
    evidence: str | None = None
    body: str | None = None  # a proposed note's body
    source: str | None = None  # where a proposed note came from: "from a web page (web_fetch https://…)"

    @property
    def label(self) -> str:
        """The item as its checklist line shows it."""
        prefix = {"forget": "FORGET: ", "note": "NOTE: "}.get(self.kind, "")
        return prefix + self.text

    @property
    def key(self) -> tuple[str, str]:
        return (self.kind, self.text)

    def to_json(self) -> dict[str, Any]:
        data = {
            "kind": self.kind,
            "text": self.text,
            "proposed_at": self.proposed_at,
            "session": self.session,
            "evidence": self.evidence,
        }
        if self.kind == "note":
            data.update(body=self.body or "", source=self.source)
        return data


class ChecklistLine(NamedTuple):
    kind: Kind
    text: str
    ticked: bool


def parse_checklist(text: str) -> list[ChecklistLine]:
    """Every checkbox line, in order (duplicates dropped: a pasted line is still one item), by
    omp.core.pending's grammar (the sessionStart nudge counts with the same one)."""
    return [ChecklistLine(_KINDS.get(kind, "add"), item_text, ticked)
            for kind, item_text, ticked in pending.parse_checklist(text)]


_KINDS: dict[str, Kind] = {pending.FORGET: "forget", pending.NOTE: "note"}


def read_checklist(path: Path) -> list[ChecklistLine] | None:
    """The checklist lines, or None when the file does not exist."""
    text = read_text(path)
    return None if text is None else parse_checklist(text)


def render_checklist(items: list[PendingItem]) -> str:
    lines = [PENDING_HEADER]
    lines.extend(f"- [ ] {item.label}" for item in items)
    return "\n".join(lines) + "\n"


def read_pending_metadata(path: Path) -> list[PendingItem]:
    data = read_json(path, default=None)
    if data is None:
        return []
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise CorruptFileError(path, 'expected {"version": 1, "items": [...]}')
    items = []
    for number, raw in enumerate(data["items"], start=1):
        if not isinstance(raw, dict) or not isinstance(raw.get("text"), str):
            raise CorruptFileError(path, f"item {number} has no 'text' string")
        kind: Kind = _KINDS.get(str(raw.get("kind")), "add")
        items.append(
            PendingItem(kind, raw["text"], _str(raw.get("proposed_at")), _str(raw.get("session")), _str(raw.get("evidence")),
                        _str(raw.get("body")), _str(raw.get("source")))
        )
    return items


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def render_pending_metadata(items: list[PendingItem]) -> str:
    return dump_json({"version": PENDING_VERSION, "items": [item.to_json() for item in items]})


def count_open(path: Path) -> int:
    """Open (unticked) items in the checklist."""
    lines = read_checklist(path)
    return sum(1 for line in lines or [] if not line.ticked)


# ---------------------------------------------------------------------------------------------
# Decisions and tombstones


class Decision(NamedTuple):
    ts: str
    text: str
    status: str
    reason: str | None
    session: str | None
    kind: str = "add"  # "add" | "forget" | "skill"

    def to_json(self) -> dict[str, Any]:
        return {
            "ts": self.ts,
            "text": self.text,
            "status": self.status,
            "reason": self.reason,
            "session": self.session,
            "kind": self.kind,
        }


def iter_decisions(path: Path) -> Iterator[Decision]:
    for record in iter_jsonl(path):
        text = record.get("text")
        if isinstance(text, str):
            yield Decision(
                str(record.get("ts") or ""),
                text,
                str(record.get("status") or ""),
                _str(record.get("reason")),
                _str(record.get("session")),
                str(record.get("kind") or "add"),
            )


def tombstones(path: Path) -> list[Decision]:
    """Dismissed and expired items: never queued again (nor anything near-equal to them)."""
    return [d for d in iter_decisions(path) if d.status in TOMBSTONE_STATUSES]


def older_than(stamp: str | None, days: int, now: _dt.datetime) -> bool:
    if not stamp or days <= 0:
        return False
    try:
        when = _dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return False
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    return now - when > _dt.timedelta(days=days)


def find_matching(items: list[str], target: str) -> list[int]:
    """Indexes of the items a forget request for `target` means.

    Near-duplicates of the target first; failing that, the items holding the largest share (at
    least 60%) of the target's words — "forget the pnpm rule" finds "Use pnpm, not npm".
    """
    exact = [i for i, text in enumerate(items) if dedupe.is_duplicate(text, target)]
    if exact:
        return exact
    scores = [((dedupe.overlap(target, text), dedupe.similarity(target, text)), i) for i, text in enumerate(items)]
    best = max((score for score, _ in scores), default=(0.0, 0.0))
    if best[0] < 0.6:
        return []
    return [i for score, i in scores if score == best]
