"""`omp memory-review --sweep`: every due queued session, then every unreviewed one (docs/behaviour.md#the-review-run).

A queued session that failed for good (omp.review.queue.MAX_ATTEMPTS) is left out, even with
`--force`: only `omp memory-review --session ID --force` calls the reviewer for it again."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from omp import config
from omp.core.memory_on import note_memory_on
from omp.errors import OmpError
from omp.fsio import CorruptFileError, OutsideProjectError
from omp.ledger import log_review
from omp.paths import ProjectPaths
from omp.project import check_layout, ensure_state_dir
from omp.review import claim as claims
from omp.review import queue
from omp.review.housekeeping import DAY, HOUSEKEEPING_DAYS, clean_old
from omp.review.outcome import ReviewOutcome, ReviewRequest, SkipReason
from omp.review.pipeline import (
    ReviewContext,
    file_size,
    review_context,
    review_logging_errors,
    skipped_mode_off,
)
from omp.sessions.discovery import find_session, list_project_sessions


@dataclass
class SweepResult:
    outcomes: list[ReviewOutcome] = field(default_factory=list)
    skipped: dict[SkipReason, int] = field(default_factory=dict)  # quiet skips by reason
    cleaned: dict[str, int] = field(default_factory=dict)
    backing_off: int = 0  # queued sessions not yet due (retried with --force)
    next_retry_at: float | None = None  # the earliest of their retry times
    older: int = 0  # sessions that ended before memory mode was turned on (reviewed with --all)
    gave_up: list[str] = field(default_factory=list)  # failed for good: only --session ID --force retries
    memory_on_since: float | None = None

    @property
    def exit_code(self) -> int:
        return 1 if any(o.failed for o in self.outcomes) else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "sweep": True,
            "reviewed": sum(1 for o in self.outcomes if o.ran),
            "failed": sum(1 for o in self.outcomes if o.failed),
            "skipped": self.skipped_json(),
            "cleaned": self.cleaned,
            "backing_off": self.backing_off,
            "next_retry_at": self.next_retry_at,
            "older": self.older,
            "memory_on_since": self.memory_on_since,
            "outcomes": [o.to_json() for o in self.outcomes],
        }

    def skipped_json(self) -> dict[str, int]:
        return {reason.value: count for reason, count in self.skipped.items()}

    def count_skip(self, reason: SkipReason) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def sweep(paths: ProjectPaths, request: ReviewRequest, limit: int | None = None, *,
          include_older: bool = False, progress: Callable[[ReviewOutcome], None] | None = None) -> SweepResult:
    """Review every due queued session, then every unreviewed session of this project that
    ended after memory mode was turned on (all of them with `include_older`) (docs/behaviour.md#the-review-run).

    `--force` here only ignores the retry queue's backoff: a sweep never re-reviews sessions
    that are done (that would pay for every old session again). Sessions untouched for
    `HOUSEKEEPING_DAYS` are left alone, and so is housekeeping's cut-off for claims, journals
    and queue entries, so a cleaned-up claim never makes an old session look unreviewed.
    `progress` hears of each review as soon as it is over (a sweep of real reviews takes minutes).
    """
    result = SweepResult()
    if config.get_value("memory-mode", paths) == "off":
        result.outcomes.append(skipped_mode_off(paths, None))
        return result
    base = review_context(paths, request)
    ctx = ReviewContext(paths, base.settings, base.backend, base.model, force=False, ignore_backoff=request.force)
    if paths.state.is_dir():
        check_layout(paths)  # a `.omp` linked out of the project: no clean-up, no review, one message
        result.cleaned = clean_old(paths, ctx.timeout)
    ensure_state_dir(paths)
    result.memory_on_since = None if include_older else note_memory_on(str(paths.root))
    attempted = 0
    for session_id, events in _sweep_candidates(paths, request.force, result):
        if limit is not None and attempted >= limit:
            result.count_skip(SkipReason.OVER_LIMIT)
            continue
        try:
            outcome = review_logging_errors(ctx, session_id, events, log_skips=False)
        except (CorruptFileError, OutsideProjectError) as exc:
            # A store that does not parse (or leads out of the project) fails every review alike:
            # stop and say which file.
            result.outcomes.append(ReviewOutcome(False, exc.message, session_id, failed=True, hint=exc.hint))
            break
        except OmpError as exc:
            outcome = ReviewOutcome(False, exc.message, session_id, failed=True, hint=exc.hint)
        if outcome.ran or outcome.failed:
            attempted += 1
            result.outcomes.append(outcome)
            if progress is not None:
                progress(outcome)
        elif outcome.skip is not None:
            result.count_skip(outcome.skip)
    if paths.state.is_dir():
        log_review(paths, {"event": "sweep", "outcome": "sweep", "reviewed": sum(o.ran for o in result.outcomes),
                           "failed": sum(o.failed for o in result.outcomes), "skipped": result.skipped_json(),
                           "cleaned": result.cleaned})
    return result


def _sweep_candidates(paths: ProjectPaths, force: bool, result: SweepResult) -> Iterable[tuple[str, Path]]:
    """Due queued sessions first (oldest try first), then the project's sessions, newest first."""
    seen: set[str] = set()
    for entry in queue.entries(paths):
        if entry.failed:
            # Failed queue.MAX_ATTEMPTS times: never again from a sweep, not even --force (each
            # try is a billed call); `omp memory-review --session ID --force` is the way back.
            seen.add(entry.session)
            result.gave_up.append(entry.session)
            result.count_skip(SkipReason.REVIEW_FAILED)
            continue
        if not (force or entry.due()):
            seen.add(entry.session)  # waiting for its retry time: not an "unreviewed" session either
            result.backing_off += 1
            result.count_skip(SkipReason.QUEUED_FOR_RETRY)
            if result.next_retry_at is None or entry.next_try_at < result.next_retry_at:
                result.next_retry_at = entry.next_try_at
            continue
        try:
            info = find_session(entry.session, paths)
        except OmpError:
            queue.remove(paths, entry.session)  # the session is gone: nothing left to retry
            result.count_skip(SkipReason.QUEUED_SESSION_GONE)
            continue
        done = claims.done_cursor(paths, info.id)
        if done is not None and done >= file_size(info.events):
            queue.remove(paths, entry.session)  # reviewed meanwhile (by a forced run, say)
            result.count_skip(SkipReason.ALREADY_REVIEWED)
            continue
        seen.add(info.id)
        yield info.id, info.events
    horizon = time.time() - HOUSEKEEPING_DAYS * DAY
    for info in list_project_sessions(paths):
        if info.id in seen or getattr(info, "is_reviewer", False) or info.mtime < horizon:
            continue
        seen.add(info.id)
        if (result.memory_on_since is not None and info.mtime < result.memory_on_since
                and not claims.claim_path(paths, info.id).exists()):
            # Ended before memory mode and never attempted (a review killed midway left a
            # claim, and is retried): each would be a model call nobody asked for. Only --all.
            result.older += 1
            continue
        done = claims.done_cursor(paths, info.id)
        if done is not None and done >= file_size(info.events):
            result.count_skip(SkipReason.ALREADY_REVIEWED)
            continue
        yield info.id, info.events

