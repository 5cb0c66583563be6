"""Text for the terminal: what a review, a sweep or an undo did (the CLI prints these lines)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omp.review.run import ReviewOutcome, SweepResult, UndoOutcome


def _items(summary: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [i for i in summary.get("items", []) if i.get("kind") == kind and i.get("status") == "written"]


def outcome_lines(outcome: "ReviewOutcome") -> list[str]:
    """Lines for stdout; a failure's reason and hint go to stderr (`failure_lines`)."""
    if outcome.failed:
        return []
    if not outcome.ran:
        return [f"skipped: {outcome.reason}" + (f" (session {outcome.session})" if outcome.session else "")]
    summary, tokens = outcome.summary, outcome.tokens
    lines = [f"reviewed session {outcome.session}: {summary.get('messages', 0)} message(s)"
             + (f", {tokens['in']} tokens in / {tokens['out']} out ({tokens['tokenizer']})" if tokens.get("in") else "")]
    if outcome.reason:
        lines.append(f"  ({outcome.reason})")
    for item in _items(summary, "note"):
        lines.append(f"  note written: {item.get('ref')} — {item.get('text')}")
    for item in _items(summary, "directive"):
        lines.append(f"  directive proposed (pending): {item.get('text')}")
    for item in _items(summary, "forget"):
        lines.append(f"  removal proposed (pending): FORGET: {item.get('text')}")
    for item in _items(summary, "draft"):
        lines.append(f"  skill draft written: {item.get('ref')}")
    if summary.get("directives") or summary.get("forget"):
        lines.append("  approve or dismiss proposals: omp project-memory pending")
    if summary.get("duplicates"):
        lines.append(f"  {summary['duplicates']} duplicate(s) of what memory already holds were skipped")
    if not any(summary.get(k) for k in ("notes", "directives", "forget", "skill_drafts")):
        lines.append("  nothing new to remember")
    if outcome.rejected:
        lines.append(f"  rejected {len(outcome.rejected)}:")
        lines.extend(f"    - {r['reason']}" for r in outcome.rejected)
    if summary.get("pruned_notes"):
        lines.append(f"  pruned {summary['pruned_notes']} old note(s) (memory-note-auto-keep)")
    if summary.get("block_error"):
        lines.append(f"  warning: managed block not refreshed: {summary['block_error']}")
    return lines


def failure_lines(outcome: "ReviewOutcome") -> list[str]:
    if not outcome.failed:
        return []
    lines = [f"omp: review failed: {outcome.reason}" + (f" (session {outcome.session})" if outcome.session else "")]
    if outcome.hint:
        lines.append(f"  hint: {outcome.hint}")
    return lines


def sweep_lines(result: "SweepResult") -> list[str]:
    reviewed = sum(1 for o in result.outcomes if o.ran)
    failed = sum(1 for o in result.outcomes if o.failed)
    skipped = ", ".join(f"{n} {why}" for why, n in sorted(result.skipped.items()))
    lines = [f"sweep: {reviewed} reviewed, {failed} failed" + (f"; skipped: {skipped}" if skipped else "")]
    for outcome in result.outcomes:
        lines.extend(outcome_lines(outcome))
    if result.cleaned:
        lines.append("cleaned up: " + ", ".join(f"{n} old {what}" for what, n in sorted(result.cleaned.items())))
    return lines


def undo_lines(outcome: "UndoOutcome") -> list[str]:
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
