"""`omp memory-review undo SESSION`: take a session's reviews back, item by item (docs/behaviour.md#the-review-run).

The item-by-item work is `omp.memory.undo`; this runs it under the project lock, re-renders the
managed block and logs the outcome.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from omp.ledger import log_review
from omp.memory.undo import undo_review
from omp.paths import ProjectPaths, check_session_id
from omp.project import project_lock
from omp.review.pipeline import refresh_block


@dataclass(frozen=True)
class UndoOutcome:
    session: str
    removed: list[str]
    restored: list[str]
    kept: list[dict[str, str]]  # {"item", "why"}: items of the review left alone
    gone: list[str]
    old_journal: bool = False
    block_error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def undo_session(paths: ProjectPaths, session_id: str, force: bool = False) -> UndoOutcome:
    """Take back, item by item, what the reviews of `session_id` added (`omp.memory.undo`),
    then re-render the managed block. `force` also removes notes and drafts edited since."""
    check_session_id(session_id)
    with project_lock(paths):
        report = undo_review(paths, session_id, force=force)
        block_error = refresh_block(paths, lock_held=True)
    outcome = UndoOutcome(report.session, list(report.removed), list(report.restored),
                          [{"item": k.item, "why": k.why} for k in report.kept], list(report.gone),
                          report.old_journal, block_error)
    log_review(paths, {"session": report.session, "outcome": "undone", "removed": len(report.removed),
                       "restored": len(report.restored), "kept": len(report.kept)})
    return outcome

