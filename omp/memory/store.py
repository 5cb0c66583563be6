"""The project memory stores as one unit of work: `MemoryBatch` (docs/behaviour.md#what-gets-written, docs/behaviour.md#project-memory-and-the-managed-block).

Everything that changes project memory goes through a batch, which exists only while the
project lock is held:

    from omp.memory.items import NoteProposal, DirectiveProposal, DraftProposal, ItemKind
    from omp.memory.store import memory_batch

    with memory_batch(paths, journal_session=session_id) as batch:   # takes the project lock
        results = batch.add_notes([NoteProposal(title, body, session, evidence)])
        results += batch.propose_directives([DirectiveProposal(text, session, evidence)])
        results += batch.propose_directives([DirectiveProposal(target, session, evidence, ItemKind.FORGET)])
        results += batch.add_drafts([DraftProposal(slug, description, body, session, evidence)])
        pruned = batch.auto_prune()
    sync_block(paths)                                                  # omp.memory.block

A caller that already holds the project lock passes `lock_held=True` (the lock is not
re-entrant). Opening a batch (after the lock is taken, so every read is fresh):

1. migrates a legacy `.oh-my-copilot/` folder, once (`omp.memory.legacy`);
2. reads every store (a file that does not parse raises CorruptFileError; nothing is written);
3. brings the pending queue in step with its checklist, which a human may have edited: a ticked
   box is a human approval (promoted), a deleted line a dismissal (tombstoned), a line added by
   hand gets metadata;
4. expires pending items older than `memory-pending-retention-days` (decisions.jsonl, tombstone).

Those housekeeping writes are never journaled: they are not the review's to undo. With
`journal_session`, every write the batch's proposal methods make is journaled first
(`omp.memory.journal`), so `omp memory-review undo SESSION` can revert exactly that.

The batch and its proposal methods are `omp.memory.batch`; opening's own work (steps 3 and 4)
`omp.memory.reconcile`; approving pending items `omp.memory.promotion`; the proposal and result
types `omp.memory.items`.
"""

from __future__ import annotations

import contextlib
from typing import Iterator

from omp.fsio import CorruptFileError
from omp.memory import directives as dirs, drafts as drafts_mod
from omp.memory.batch import MemoryBatch
from omp.memory.items import DirectiveProposal, DraftProposal, ItemResult, KnownItems, NoteProposal
from omp.memory.journal import Journal, Writer, cleanup_journals
from omp.memory.note_catalog import open_index, settle
from omp.memory.legacy import migrate_legacy
from omp.memory.reconcile import expire, reconcile
from omp.paths import GlobalPaths, ProjectPaths
from omp.project import project_lock


# ---------------------------------------------------------------------------------------------
# Entry points


@contextlib.contextmanager
def memory_batch(
    paths: ProjectPaths,
    journal_session: str | None = None,
    lock_held: bool = False,
    global_paths: GlobalPaths | None = None,
) -> Iterator[MemoryBatch]:
    """Open the stores under the project lock (see the module doc). Writes happen as methods run."""
    lock = contextlib.nullcontext() if lock_held else project_lock(paths)
    with lock:
        migrated = migrate_legacy(paths)
        batch = MemoryBatch(paths, global_paths)
        try:
            if migrated:
                batch.housekeeping.migrated = migrated
            reconcile(batch)
            expire(batch)
            if journal_session is not None:
                cleanup_journals(paths)
                batch.writer = Writer(Journal(paths, journal_session))
            yield batch
        finally:
            batch.close()
            settle(paths.root)  # the batch's note writes, in the index before the lock goes


def check_stores(paths: ProjectPaths, session: str | None = None) -> None:
    """Read every store the apply step reads, under the lock, writing nothing.

    A review runs this before it claims the session or calls the reviewer (docs/behaviour.md#the-review-run "Order of
    work"): a store that does not parse raises CorruptFileError naming the file, so a broken
    project never costs a model call and leaves no claim or queue entry behind.
    """
    with project_lock(paths):
        # decisions.jsonl is append-only and read line by line (a torn line is skipped, never
        # fatal), so only something that is not a file at all (a folder, a FIFO that would block
        # the read) can make the apply step fail.
        if paths.decisions.exists() and not paths.decisions.is_file():
            raise CorruptFileError(paths.decisions, "it is not a regular file")
        MemoryBatch(paths).close()
        if session is not None:
            Journal(paths, session)


def add_notes(paths: ProjectPaths, proposals: list[NoteProposal], journal_session: str | None = None) -> list[ItemResult]:
    with memory_batch(paths, journal_session) as batch:
        return batch.add_notes(proposals)


def propose_directives(
    paths: ProjectPaths, proposals: list[DirectiveProposal], journal_session: str | None = None
) -> list[ItemResult]:
    with memory_batch(paths, journal_session) as batch:
        return batch.propose_directives(proposals)


def add_drafts(paths: ProjectPaths, proposals: list[DraftProposal], journal_session: str | None = None) -> list[ItemResult]:
    with memory_batch(paths, journal_session) as batch:
        return batch.add_drafts(proposals)


def known_items(paths: ProjectPaths) -> KnownItems:
    """A read-only snapshot (no lock, no housekeeping): what to list in the review prompt."""
    global_paths = GlobalPaths.current()
    lines = dirs.read_checklist(paths.pending_md) or []
    return KnownItems(
        directives=tuple(d.text for d in dirs.read_directives(paths.directives)),
        global_directives=tuple(d.text for d in dirs.read_directives(global_paths.directives)),
        pending=tuple(dirs.PendingItem(l.kind, l.text).label for l in lines if not l.ticked),
        notes=_recent_notes(paths),
        drafts=tuple(d.slug for d in drafts_mod.list_drafts(paths.drafts)),
        tombstones=tuple(
            ("FORGET: " if t.kind == "forget" else "") + t.text for t in dirs.tombstones(paths.decisions)
        ),
    )


# The prompt lists what fits of the known items, newest first, in a fifth of its budget
# (omp.review.prompt.KNOWN_SHARE): a few hundred titles at most. The dedupe after the model's
# answer compares with every note anyway (omp.memory.note_catalog).
KNOWN_NOTES_LISTED = 500


def _recent_notes(paths: ProjectPaths) -> tuple[tuple[str, str], ...]:
    with open_index(paths.root) as index:
        return tuple(index.newest_titles(KNOWN_NOTES_LISTED))
