"""What a review returns, as data: the request, why it was skipped, what it wrote (docs/behaviour.md#the-review-run).

Control flow reads the codes (`SkipReason`, `omp.memory.items.RejectionCode`, `ItemKind`);
the sentences beside them are for people. `to_json()` is the `--json` object of docs/behaviour.md#the-review-run, and
the enums' values are the words it has always written (tests/test_outcome_codes.py pins both).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omp.memory import kinds
from omp.memory.items import Code, ItemKind, ItemResult
from omp.review.answer import Rejection


@dataclass(frozen=True)
class ReviewRequest:
    session: str = "latest"
    model: str | None = None
    reviewer: str | None = None
    force: bool = False


class SkipReason(Code):
    """Why a review did not run (exit 0). The value is the key a sweep counts it under."""

    MEMORY_MODE_OFF = "memory-mode off"
    REVIEWER_SESSION = "reviewer session"  # a session of omp's own reviewer
    ALREADY_REVIEWED = "already reviewed"
    BEING_REVIEWED = "being reviewed"  # by a live process
    CLAIM_CONTENDED = "claim is changing too fast; try again"
    QUEUED_FOR_RETRY = "queued for retry"  # not due yet (--force retries now)
    REVIEW_FAILED = "review failed"  # failed queue.MAX_ATTEMPTS times: only --session ID --force retries
    TRIVIAL_SESSION = "trivial session"  # fewer than memory-review-min-messages, no explicit request
    # a sweep's own
    OVER_LIMIT = "over --limit"
    QUEUED_SESSION_GONE = "queued session gone"


@dataclass(frozen=True)
class ReviewSummary:
    """What a review that ran wrote: counts by kind, and one `ItemResult` per proposal."""

    items: tuple[ItemResult, ...]
    explicit: int  # explicit requests found
    proposed_by_model: int
    secrets_rejected: int  # secrets found in proposals, by finding
    pruned_notes: int  # memory-note-auto-keep
    messages: int  # since the cursor
    cursor_from: int
    cursor_to: int
    block_error: str | None = None  # the managed block could not be refreshed
    model_skipped: str | None = None  # why only the explicit pass ran

    def written(self, kind: ItemKind) -> int:
        return sum(1 for item in self.items if item.kind is kind and item.written)

    @property
    def duplicates(self) -> int:
        return sum(1 for item in self.items if item.status == "duplicate")

    @property
    def wrote_anything(self) -> bool:
        return any(item.written for item in self.items)

    def to_json(self, items: bool = True) -> dict[str, Any]:
        """The `summary` object; the review log leaves the items out (`items=False`)."""
        data: dict[str, Any] = {spec.section: self.written(spec.kind) for spec in kinds.in_summary_order()}
        data.update({
            "duplicates": self.duplicates,
            "explicit": self.explicit,
            "proposed_by_model": self.proposed_by_model,
            "secrets_rejected": self.secrets_rejected,
            "pruned_notes": self.pruned_notes,
            "messages": self.messages,
            "cursor": {"from": self.cursor_from, "to": self.cursor_to},
        })
        if items:
            data["items"] = [item.to_json() for item in self.items]
        if self.block_error:
            data["block_error"] = self.block_error
        if self.model_skipped:
            data["model_skipped"] = self.model_skipped
        return data


@dataclass(frozen=True)
class ReviewOutcome:
    """What one review did: ran, skipped (`skip` says why) or failed (`failed`, exit 1)."""

    ran: bool
    reason: str | None  # the sentence for people: why it was skipped or failed, or a note
    session: str | None
    summary: ReviewSummary | None = None
    rejected: tuple[Rejection, ...] = ()
    tokens: dict[str, Any] = field(default_factory=dict)
    failed: bool = False
    hint: str | None = None
    skip: SkipReason | None = None
    cause: str | None = None  # a failure's reason without what the retry queue did about it

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    @property
    def status(self) -> str:
        return "failed" if self.failed else ("ran" if self.ran else "skipped")

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "ran": self.ran,
            "reason": self.reason,
            "session": self.session,
            "summary": self.summary.to_json() if self.summary else {},
            "rejected": [r.to_json() for r in self.rejected],
            "tokens": self.tokens,
        }
        if self.hint:
            data["hint"] = self.hint
        return data
