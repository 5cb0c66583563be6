"""Text for the terminal: what a review, a sweep or an undo did (the CLI prints these lines)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from omp.memory import kinds
from omp.memory.items import ItemKind, ItemResult
from omp.review.outcome import ReviewOutcome, ReviewSummary, SkipReason

if TYPE_CHECKING:  # annotations only: one session's review must not import the sweep or undo
    from omp.review.sweep import SweepResult
    from omp.review.undo import UndoOutcome


def _written(summary: ReviewSummary, kind: ItemKind) -> list[ItemResult]:
    return [item for item in summary.items if item.kind is kind and item.written]


def outcome_lines(outcome: ReviewOutcome) -> list[str]:
    """Lines for stdout; a failure's reason and hint go to stderr (`failure_lines`)."""
    if outcome.failed:
        return []
    if not outcome.ran or outcome.summary is None:
        return [f"skipped: {outcome.reason}" + (f" (session {outcome.session})" if outcome.session else "")]
    summary, tokens = outcome.summary, outcome.tokens
    lines = [f"reviewed session {outcome.session}: {summary.messages} message(s)"
             + (f", {tokens['in']} tokens in / {tokens['out']} out ({tokens['tokenizer']})" if tokens.get("in") else "")]
    if outcome.reason:
        lines.append(f"  ({outcome.reason})")
    for spec in kinds.in_summary_order():
        lines.extend(f"  {spec.written_line.format(text=item.text, ref=item.ref)}" for item in _written(summary, spec.kind))
    proposed_notes = [item for item in summary.items if item.status == "proposed"]
    for item in proposed_notes:
        lines.append(f"  note proposed (pending): NOTE: {item.text}" + (f" ({item.reason})" if item.reason else ""))
    if any(summary.written(kind) for kind in ItemKind if kind.is_rule) or proposed_notes:
        lines.append("  approve or dismiss proposals: omp project-memory pending")
    if summary.duplicates:
        lines.append(f"  {summary.duplicates} duplicate(s) of what memory already holds were skipped")
    if not summary.wrote_anything:
        lines.append("  nothing new to remember")
    if outcome.rejected:
        lines.append(f"  rejected {len(outcome.rejected)}:")
        lines.extend(f"    - {r.reason}" for r in outcome.rejected)
    if summary.pruned_notes:
        lines.append(f"  pruned {summary.pruned_notes} old note(s) (memory-note-auto-keep)")
    if summary.block_error:
        lines.append(f"  warning: managed block not refreshed: {summary.block_error}")
    return lines


def failure_lines(outcome: ReviewOutcome) -> list[str]:
    if not outcome.failed:
        return []
    lines = [f"omp: review failed: {outcome.reason}" + (f" (session {outcome.session})" if outcome.session else "")]
    if outcome.hint:
        lines.append(f"  hint: {outcome.hint}")
    return lines


def progress_line(outcome: ReviewOutcome) -> str:
    """One line per session as a sweep goes (the details follow in the summary)."""
    summary = outcome.summary
    if outcome.failed or summary is None:
        return f"  {outcome.session}: failed — {outcome.reason}"
    wrote = [f"{summary.written(spec.kind)} {spec.progress_label}" for spec in kinds.in_summary_order()
             if summary.written(spec.kind)]
    return f"  {outcome.session}: reviewed — " + (", ".join(wrote) if wrote else "nothing new to remember")


def _clock(epoch: float) -> str:
    """A retry time as the user reads a clock: `10:42`, with the date when it is not today."""
    when, now = time.localtime(epoch), time.localtime()
    same_day = (when.tm_year, when.tm_yday) == (now.tm_year, now.tm_yday)
    return time.strftime("%H:%M" if same_day else "%Y-%m-%d %H:%M", when)


def sweep_skip_lines(result: SweepResult) -> list[str]:
    """What the sweep left out on purpose, each with the option that includes it."""
    lines = []
    if result.backing_off:
        assert result.next_retry_at is not None
        lines.append(f"  {result.backing_off} queued, retry at {_clock(result.next_retry_at)} — "
                     "use --force to retry now")
    if result.gave_up:
        first = result.gave_up[0]
        lines.append(f"  {len(result.gave_up)} review(s) failed for good (session {first}{', …' if len(result.gave_up) > 1 else ''}) — "
                     f"fix the cause (omp doctor), then: omp memory-review --session {first} --force")
    if result.older:
        since = _clock(result.memory_on_since) if result.memory_on_since else "?"
        lines.append(f"  {result.older} older session(s) ended before memory mode was turned on ({since}) — "
                     "use --all to review them too (each is a model call)")
    over = result.skipped.get(SkipReason.OVER_LIMIT)
    if over:
        lines.append(f"  {over} more over --limit — run the sweep again, or raise --limit")
    return lines


def sweep_lines(result: SweepResult) -> list[str]:
    reviewed = sum(1 for o in result.outcomes if o.ran)
    failed = sum(1 for o in result.outcomes if o.failed)
    skipped = ", ".join(f"{n} {why}" for why, n in sorted(result.skipped.items()) if why is not SkipReason.OVER_LIMIT)
    lines = [f"sweep: {reviewed} reviewed, {failed} failed" + (f"; skipped: {skipped}" if skipped else "")]
    lines.extend(sweep_skip_lines(result))
    for outcome in result.outcomes:
        if outcome.ran:
            lines.extend(outcome_lines(outcome))
    if result.cleaned:
        lines.append("cleaned up: " + ", ".join(f"{n} old {what}" for what, n in sorted(result.cleaned.items())))
    return lines


def undo_lines(outcome: UndoOutcome) -> list[str]:
    lines = [f"undid the review of {outcome.session}: {len(outcome.removed)} item(s) removed, "
             f"{len(outcome.restored)} restored, {len(outcome.kept)} left alone"]
    lines.extend(f"  removed {item}" for item in outcome.removed)
    lines.extend(f"  restored {item}" for item in outcome.restored)
    lines.extend(f"  left alone {k['item']}: {k['why']}" for k in outcome.kept)
    lines.extend(f"  already gone {item}" for item in outcome.gone)
    if outcome.old_journal:
        lines.append("  (an older journal: its queue items were found by the session recorded with them)")
    if outcome.block_error:
        lines.append(f"  warning: managed block not refreshed: {outcome.block_error}")
    return lines
