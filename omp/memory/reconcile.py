"""What opening a batch does on its own, before any caller's change (docs/reference/commands.md, docs/writes-and-undo.md#leftovers-of-killed-runs).

- `reconcile`: the pending queue brought in step with its checklist, which a human may have
  edited: a ticked box is an approval (promoted), a deleted line a dismissal (tombstoned), a line
  added by hand gets metadata;
- `expire`: pending items older than `memory-pending-retention-days` become tombstones.

`omp.memory.store.memory_batch` runs both; what they did is in `batch.housekeeping`. These writes
are never journaled: they are not a review's to undo.
"""

from __future__ import annotations

import datetime as _dt
from typing import Callable

from omp import trust
from omp.memory import dedupe, directives as dirs
from omp.memory.batch import MemoryBatch
from omp.memory.directives import PendingItem
from omp.memory.journal import utc_now
from omp.memory.promotion import promote_items


def reconcile(batch: MemoryBatch) -> None:
    """Bring pending.json in step with the checklist a human may have edited."""
    lines = dirs.parse_checklist(batch.checklist_text) if batch.checklist_text is not None else []
    unmatched = list(batch.pending_metadata)
    now = utc_now()
    opened: list[PendingItem] = []
    ticked: list[PendingItem] = []
    for line in lines:
        meta = _take(unmatched, lambda m: m.key == (line.kind, line.text))
        if meta is None:  # edited by hand: carry the metadata of the item it was
            meta = _take(unmatched, lambda m: m.kind == line.kind and dedupe.is_duplicate(m.text, line.text))
            meta = meta._replace(text=line.text) if meta else None
        if meta is None:
            meta = PendingItem(line.kind, line.text, now, None, None)
            if not line.ticked:
                batch.housekeeping.adopted.append(meta.label)
        (ticked if line.ticked else opened).append(meta)
    batch.pending = _unique(opened)
    for item in unmatched:
        if (item.kind, dedupe.fold(item.text)) in batch.decided or batch.is_active(item):
            continue  # a decision was recorded but the queue write did not happen: not a dismissal
        batch.decide(item, "rejected", "removed from pending-directives.md by hand")
        batch.housekeeping.dismissed_deleted.append(item.label)
    ticked = [t for t in _unique(ticked) if t.key not in {p.key for p in batch.pending}]
    queued = trust.queued_here(batch.paths, batch.global_paths) if ticked else frozenset()
    foreign = [t for t in ticked if trust.item_digest(*t.key) not in queued]
    if foreign:
        # A tick on a line omp never queued on this machine (a committed or pulled checklist, a
        # line typed and ticked at once) is not an approval: it stays pending, unticked, for the
        # user to see in `pending` and promote by number (docs/trust.md#a-repository-never-chooses-what-runs).
        batch.pending.extend(foreign)
        batch.housekeeping.ticked_not_queued.extend(t.label for t in foreign)
        ticked = [t for t in ticked if t not in foreign]
    if ticked and not batch.directives_writable():
        # project-memory.json is not trusted (omp.trust): promoting would launder it. The items
        # stay pending (unticked) and the user is told; no command or review fails for it.
        batch.pending.extend(ticked)
        batch.housekeeping.held_ticked.extend(t.label for t in ticked)
        ticked = []
    if ticked:
        # Here, not at the top: every memory batch reconciles, few have ticked items (docs/performance.md#where-speed-matters).

        promote_items(batch, ticked, "project", "ticked in pending-directives.md")
        batch.housekeeping.promoted_ticked.extend(t.label for t in ticked)
    if ticked or batch.pending_metadata != batch.pending or lines != [
        dirs.ChecklistLine(p.kind, p.text, False) for p in batch.pending
    ]:
        batch.save_pending()


def expire(batch: MemoryBatch) -> None:
    days = int(batch.settings.get("memory-pending-retention-days") or 0)
    if days <= 0:
        return
    now = _dt.datetime.now(_dt.timezone.utc)
    expired = [p for p in batch.pending if dirs.older_than(p.proposed_at, days, now)]
    if not expired:
        return
    for item in expired:
        batch.decide(item, "expired", f"pending for more than {days} days")
        batch.housekeeping.expired.append(item.label)
    batch.pending = [p for p in batch.pending if p not in expired]
    batch.save_pending()


def _take(items: list[PendingItem], match: Callable[[PendingItem], bool]) -> PendingItem | None:
    for i, item in enumerate(items):
        if match(item):
            return items.pop(i)
    return None


def _unique(items: list[PendingItem]) -> list[PendingItem]:
    seen: set[tuple[str, str]] = set()
    out = []
    for item in items:
        if item.key not in seen:
            seen.add(item.key)
            out.append(item)
    return out
