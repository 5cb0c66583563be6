"""`omp memory-review`'s run: one review or a sweep, its report written, its exit code returned.

Run by the click command (`omp.cli.memory_review`), which is also what every session end
detaches (omp.detach); the lines go through the writer it is given (`click.echo`).
"""

from __future__ import annotations

from typing import Callable

from omp import trust
from omp.paths import ProjectPaths
from omp.program import json_text, write_line
from omp.review import report
from omp.review.outcome import ReviewOutcome, ReviewRequest, SkipReason
from omp.review.pipeline import review_session

# (text, to stderr?): one line of the report.
Writer = Callable[[str, bool], None]


def run_review(paths: ProjectPaths, request: ReviewRequest, write: Writer = write_line, *, as_json: bool = False,
               sweep_all: bool = False, limit: int | None = None, include_older: bool = False) -> int:
    """Review `request`'s session (or, with `sweep_all`, sweep the project), write the report,
    and return the exit code: 0 reviewed or skipped by policy, 1 the review failed."""
    ignored = trust.ignored_notice(paths)

    def note_ignored(outcomes: list[ReviewOutcome]) -> None:
        # stderr (--json output stays one object), unless a skip reason already said it.
        if ignored and not any(o.skip is SkipReason.MEMORY_MODE_OFF for o in outcomes):
            write(f"omp: note: {ignored}", True)

    if sweep_all:
        from omp.review.sweep import sweep  # only --sweep needs it: one session's review does not load it

        def show(outcome: ReviewOutcome) -> None:  # one line per session, as it goes
            write(report.progress_line(outcome), False)

        result = sweep(paths, request, limit, include_older=include_older, progress=None if as_json else show)
        if as_json:
            write(json_text(result.to_json()), False)
        else:
            for line in report.sweep_lines(result):
                write(line, False)
        for outcome in result.outcomes:
            for line in report.failure_lines(outcome):
                write(line, True)
        note_ignored(result.outcomes)
        return result.exit_code
    outcome = review_session(paths, request)
    if as_json:
        write(json_text(outcome.to_json()), False)
    else:
        for line in report.outcome_lines(outcome):
            write(line, False)
    for line in report.failure_lines(outcome):
        write(line, True)
    note_ignored([outcome])
    return outcome.exit_code

