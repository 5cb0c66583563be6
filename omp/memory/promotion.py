"""Approved pending items made active (docs/reference/commands.md): a directive joins the active store, a FORGET
proposal removes the directives and notes it matches, a proposed NOTE is written as a note (through
the note store, neutralised and checked as any note). Every decision is recorded.

Called when a human promotes (`omp.memory.manage.promote`) or ticks a box in the checklist
(`omp.memory.reconcile`), always inside an open batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from omp.memory import dedupe
from omp.memory import directives as dirs
from omp.memory.batch import MemoryBatch, Scope
from omp.memory.directives import Directive, PendingItem
from omp.memory.items import NoteProposal
from omp.memory.journal import utc_now
from omp.memory.note_catalog import NoteSummary


@dataclass(frozen=True)
class PromoteOutcome:
    item: PendingItem
    outcome: Literal["promoted", "already-active", "forgotten", "nothing-matched", "noted", "refused"]
    removed: list[str] = field(default_factory=list)  # what a FORGET proposal removed, as labels
    forgotten_texts: list[str] = field(default_factory=list)  # the removed texts (now tombstones)

    def to_json(self) -> dict[str, Any]:
        return {"item": self.item.label, "outcome": self.outcome, "removed": self.removed}


def promote_items(batch: MemoryBatch, items: list[PendingItem], scope: Scope, reason: str) -> list[PromoteOutcome]:
    """Apply approved items to the active store(s) and record the decisions (no queue write).

    Project scope: refused (trust.DirectivesNotTrusted, nothing changed) while project-memory.json
    is not trusted. Promoting rewrites that file and records it as trusted, so it would launder
    the entries nobody approved; and "already active" or a FORGET match would answer from them."""
    if scope == "project":
        batch.check_directives_writable()
    outcomes: list[PromoteOutcome] = []
    removed_notes: list[NoteSummary] = []
    outcomes.extend(_write_notes(batch, [item for item in items if item.kind == "note"]))
    items = [item for item in items if item.kind != "note"]

    def apply(active: list[Directive]) -> list[Directive]:
        for item in items:
            if item.kind == "add":
                if any(dedupe.is_duplicate(d.text, item.text) for d in active):
                    outcomes.append(PromoteOutcome(item, "already-active"))
                    continue
                source = f"review:{item.session}" if item.session else "review"
                active.append(Directive(item.text, utc_now(), source))
                outcomes.append(PromoteOutcome(item, "promoted"))
            else:
                outcomes.append(_forget(batch, item, active, scope, removed_notes))
        return active

    if scope == "global":
        batch.update_global(apply)
    else:
        before = list(batch.directives)
        batch.directives = apply(list(batch.directives))
        if batch.directives != before:
            batch.save_directives()
    for note in removed_notes:
        batch.writer.delete(note.path)
    batch.notes = [n for n in batch.notes if n not in removed_notes]
    for outcome in outcomes:
        why = {"already-active": "already active", "nothing-matched": "nothing matched it"}.get(outcome.outcome)
        if outcome.outcome == "refused":
            batch.decide(outcome.item, "rejected", f"{reason}; refused by the note store: {outcome.removed[0]}")
            continue
        batch.decide(outcome.item, "promoted", f"{reason}; {why}" if why else reason,
                     "project" if outcome.item.kind == "note" else scope)
        for text in outcome.forgotten_texts:
            forgotten = PendingItem("add", text, session=outcome.item.session)
            batch.decide(forgotten, "rejected", "forgotten by an approved FORGET proposal", scope)
    return outcomes


def _write_notes(batch: MemoryBatch, items: list[PendingItem]) -> list[PromoteOutcome]:
    """Proposed notes a human approved, written as notes (always the project's)."""
    outcomes: list[PromoteOutcome] = []
    for item in items:
        result = batch.add_notes([NoteProposal(item.text, item.body or "", item.session, item.evidence)])[0]
        if result.status == "written":
            outcomes.append(PromoteOutcome(item, "noted", [f"note {result.ref}: {result.text}"]))
        elif result.status == "duplicate":
            outcomes.append(PromoteOutcome(item, "already-active", [result.reason or "duplicate"]))
        else:
            outcomes.append(PromoteOutcome(item, "refused", [result.reason or "refused"]))
    return outcomes


def _forget(batch: MemoryBatch, item: PendingItem, active: list[Directive], scope: Scope, removed_notes: list[NoteSummary]) -> PromoteOutcome:
    texts = [d.text for d in active]
    notes = [n for n in batch.notes if n not in removed_notes] if scope == "project" else []
    matches = dirs.find_matching(texts + [n.title for n in notes], item.text)
    removed = [texts[i] for i in matches if i < len(texts)]
    gone_notes = [notes[i - len(texts)] for i in matches if i >= len(texts)]
    for text in removed:
        active[:] = [d for d in active if d.text != text]
    removed_notes.extend(gone_notes)
    labels = removed + [f"note {n.id}: {n.title}" for n in gone_notes]
    texts = removed + [n.title for n in gone_notes]
    return PromoteOutcome(item, "forgotten" if labels else "nothing-matched", labels, texts)
