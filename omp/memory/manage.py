"""What a human does with project memory: the library behind `omp project-memory` (docs/reference/commands.md).

Each function opens the stores once (under the project lock, through `memory_batch`), checks
its arguments *before* changing anything (a bad index or unknown id is a UsageError: exit 2,
nothing changed), applies the change and returns a result for the CLI to render. The CLI then
refreshes the managed block (`omp.memory.block.sync_block`).

Numbers are 1-based: pending items as `omp project-memory pending` lists them, directives as
`omp project-memory read` lists them (project and global numbered separately).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from omp.errors import UsageError
from omp.fsio import atomic_write
from omp.memory import block, dedupe, legacy
from omp.memory import directives as dirs
from omp.memory import drafts as drafts_mod
from omp.memory import notes as notes_mod
from omp.memory.batch import Housekeeping, MemoryBatch
from omp.memory.directives import Directive, PendingItem
from omp.memory.drafts import Draft
from omp.memory.items import ItemKind, ItemResult, NoteProposal, RejectionCode
from omp.memory.journal import utc_now
from omp.memory.neutralise import neutralise_directive, secret_reason
from omp.memory.note_catalog import NoteSummary
from omp.memory.notes import Note
from omp.memory.promotion import PromoteOutcome, promote_items
from omp.memory.store import memory_batch
from omp.paths import GlobalPaths, ProjectPaths
from omp.project import global_lock

Scope = Literal["project", "global"]


@dataclass
class Change:
    """The outcome of one command: per-item results, warnings, and what housekeeping happened."""

    results: list[ItemResult] = field(default_factory=list)
    outcomes: list[PromoteOutcome] = field(default_factory=list)
    dismissed: list[PendingItem] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    housekeeping: Housekeeping = field(default_factory=Housekeeping)


@dataclass(frozen=True)
class Overview:
    directives: list[Directive]
    global_directives: list[Directive]
    pending: int
    notes: list[Note]


# ---------------------------------------------------------------------------------------------
# Reading


def ensure_migrated(paths: ProjectPaths) -> Housekeeping | None:
    """Read-only commands still take in a legacy folder first, so they show its items."""
    if not legacy.needs_migration(paths):
        return None
    with memory_batch(paths) as batch:
        return batch.housekeeping


def overview(paths: ProjectPaths) -> Overview:
    ensure_migrated(paths)
    return Overview(
        directives=dirs.read_directives(paths.directives),
        global_directives=dirs.read_directives(GlobalPaths.current().directives),
        pending=dirs.count_open(paths.pending_md),
        notes=notes_mod.list_notes(paths.notes),
    )


def read_note(paths: ProjectPaths, note_id: str) -> Note:
    ensure_migrated(paths)
    return notes_mod.read_note(notes_mod.note_path(paths.notes, note_id))


def note_index(paths: ProjectPaths) -> list[Note]:
    ensure_migrated(paths)
    return notes_mod.list_notes(paths.notes)


def list_pending(paths: ProjectPaths) -> tuple[list[PendingItem], Housekeeping]:
    """The open items; opening the queue also applies expiry and hand edits."""
    with memory_batch(paths) as batch:
        return list(batch.pending), batch.housekeeping


def list_drafts(paths: ProjectPaths) -> list[Draft]:
    ensure_migrated(paths)
    return drafts_mod.list_drafts(paths.drafts)


# ---------------------------------------------------------------------------------------------
# Adding by hand


def add_note(paths: ProjectPaths, title: str, body: str = "") -> Change:
    if not title.strip():
        raise UsageError("the note needs a title", 'pass it: omp project-memory add-note "TITLE" [--body TEXT]')
    with memory_batch(paths) as batch:
        change = Change(results=batch.add_notes([NoteProposal(title, body)], by_hand=True))
        change.housekeeping = batch.housekeeping
    change.warnings = block.cap_warnings(paths) if change.results[0].written else []
    return change


def add_directive(paths: ProjectPaths | None, text: str, scope: Scope = "project") -> Change:
    """A human's directive goes straight to the active store (neutralised, secret-checked)."""
    line = neutralise_directive(text)
    if not line:
        raise UsageError("the directive is empty", 'pass it: omp project-memory add-directive "TEXT"')
    reason = secret_reason(text)
    if reason:
        return Change(results=[ItemResult(ItemKind.DIRECTIVE, line, "rejected", f"{reason}; not stored",
                                           code=RejectionCode.SECRET)])
    if scope == "project" and paths is None:
        raise UsageError("no project to add a directive to", "run inside a project, pass --root DIR, or use --global")
    change = Change()

    def add(active: list[Directive]) -> list[Directive]:
        same = next((d for d in active if dedupe.fold(d.text) == dedupe.fold(line)), None)
        if same is not None:
            change.results.append(ItemResult(ItemKind.DIRECTIVE, line, "duplicate", f"already active: {same.text}"))
            return active
        change.results.append(ItemResult(ItemKind.DIRECTIVE, line, "written"))
        return [*active, Directive(line, utc_now(), "manual")]

    if paths is None:  # --global outside any project
        global_paths = GlobalPaths.current()
        with global_lock(global_paths):
            current = dirs.read_directives(global_paths.directives)
            updated = add(list(current))
            if updated != current:
                atomic_write(global_paths.directives, dirs.render_directives(updated))
        return change
    with memory_batch(paths) as batch:
        change.housekeeping = batch.housekeeping
        if scope == "global":
            batch.update_global(add)
        else:
            batch.check_directives_writable()  # refuse before answering from an untrusted file
            updated = add(list(batch.directives))
            if updated != batch.directives:
                batch.directives = updated
                batch.save_directives()
    if change.results[0].written:
        change.warnings = block.cap_warnings(paths)
    return change


# ---------------------------------------------------------------------------------------------
# Deciding on pending items


def _chosen(batch: MemoryBatch, numbers: list[int], all_items: bool, verb: str) -> list[PendingItem]:
    """The items the numbers name, checked before anything changes."""
    if all_items and numbers:
        raise UsageError("give item numbers or --all, not both", f"omp project-memory {verb} N | --all")
    if not all_items and not numbers:
        raise UsageError("which item? give its number or --all", "see the numbers with: omp project-memory pending")
    count = len(batch.pending)
    if all_items:
        return list(batch.pending)
    bad = [n for n in numbers if not 1 <= n <= count]
    if bad:
        raise UsageError(
            f"no pending item {bad[0]}: " + (f"there are {count} (1-{count})" if count else "the queue is empty"),
            "see the numbers with: omp project-memory pending",
        )
    seen: list[PendingItem] = []
    for n in numbers:
        item = batch.pending[n - 1]
        if item not in seen:
            seen.append(item)
    return seen


def promote(paths: ProjectPaths, numbers: list[int], all_items: bool = False, scope: Scope = "project") -> Change:
    """Approve pending items: directives become active; FORGET items remove what they match."""
    with memory_batch(paths) as batch:
        chosen = _chosen(batch, numbers, all_items, "promote-directive")
        change = Change(housekeeping=batch.housekeeping)
        if chosen:
            change.outcomes = promote_items(batch, chosen, scope, "promoted by hand")
            batch.pending = [p for p in batch.pending if p not in chosen]
            batch.save_pending()
    if any(o.outcome == "promoted" for o in change.outcomes):
        change.warnings = block.cap_warnings(paths)
    return change


def dismiss(paths: ProjectPaths, numbers: list[int], all_items: bool = False, reason: str | None = None) -> Change:
    """Refuse pending items; they become tombstones (never proposed again)."""
    with memory_batch(paths) as batch:
        chosen = _chosen(batch, numbers, all_items, "dismiss-directive")
        for item in chosen:
            batch.decide(item, "rejected", reason or "dismissed by hand")
        if chosen:
            batch.pending = [p for p in batch.pending if p not in chosen]
            batch.save_pending()
        return Change(dismissed=chosen, housekeeping=batch.housekeeping)


def remove_directive(paths: ProjectPaths, number: int, scope: Scope = "project") -> Change:
    """Remove an active directive; it is remembered as rejected, so it is not proposed again."""
    change = Change()

    def remove(active: list[Directive]) -> list[Directive]:
        if not 1 <= number <= len(active):
            where = "global " if scope == "global" else ""
            raise UsageError(
                f"no {where}directive {number}: there are {len(active)}",
                "see the numbers with: omp project-memory read",
            )
        change.removed.append(active[number - 1].text)
        return active[: number - 1] + active[number:]

    with memory_batch(paths) as batch:
        change.housekeeping = batch.housekeeping
        if scope == "global":
            batch.update_global(remove)
        else:
            batch.check_directives_writable()  # its numbers are those of an untrusted file's entries
            batch.directives = remove(list(batch.directives))
            batch.save_directives()
        for text in change.removed:
            batch.decide(PendingItem("add", text), "rejected", "removed by hand", scope)
    return change


# ---------------------------------------------------------------------------------------------
# Notes and drafts


def prune_notes(paths: ProjectPaths, keep: int | None = None, older_than_days: int | None = None) -> list[NoteSummary]:
    if (keep is None) == (older_than_days is None):
        raise UsageError("give exactly one of --keep N or --older-than DAYS", "omp project-memory prune-notes --keep 20")
    if (keep is not None and keep < 0) or (older_than_days is not None and older_than_days < 0):
        raise UsageError("--keep and --older-than take a number >= 0", "omp project-memory prune-notes --keep 20")
    with memory_batch(paths) as batch:
        return batch.prune_notes(keep, older_than_days)


def promote_skill(paths: ProjectPaths, slug: str) -> Path:
    """Move a draft to `.github/skills/<slug>/SKILL.md` (Copilot loads it from there)."""
    with memory_batch(paths) as batch:
        target = drafts_mod.promote(paths.drafts, paths.skills, slug, paths.root)
        batch.decide(PendingItem("add", slug), "promoted", f"skill promoted to {target}", kind="skill")
    return target
