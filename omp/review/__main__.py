"""The detached review: what every session end starts (SPEC §9.2), without loading click.

`omp.detach` starts `omp memory-review --session ID --root R` after each session, and
`omp memory-review --sweep --limit N --root R` to drain the retry queue, through
`omp.process.omp_argv`, which runs this module. It runs those two command lines itself
(`omp.review.command.run_review`, the code the click command runs, the same lines written to
the run log, the same exit codes): click and the CLI's modules are ≈ 13 ms of a review's
start-up (bench/README.md), paid after every session for parsing five fixed words. Any other
command line — one a user typed, or one these rules do not read exactly as click would (a value
that starts with a dash, a root that is a file, a limit that is not plain digits) — goes to the
`omp` command unchanged (`omp.cli.run`), so there is one meaning for every command line.

    python -m omp.review memory-review --session ID --root R
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn, Sequence

from omp.program import guarded


class DetachedRun:
    """The review one of omp.detach's command lines asks for."""

    __slots__ = ("root", "session", "sweep_limit")

    def __init__(self, root: str, session: str | None, sweep_limit: int | None) -> None:
        self.root = root
        self.session = session  # None: a sweep
        self.sweep_limit = sweep_limit


def parse(args: Sequence[str]) -> DetachedRun | None:
    """The run `args` asks for, if it is one of the two shapes omp.detach builds, spelled as
    click reads them; None for anything else (the CLI then reads it)."""
    args = list(args)
    if len(args) not in (5, 6) or args[0] != "memory-review" or args[-2] != "--root":
        return None
    root = args[-1]
    if not os.path.isabs(root) or os.path.isfile(root):  # click.Path(file_okay=False) refuses a file
        return None
    middle = args[1:-2]
    if len(middle) == 2 and middle[0] == "--session" and middle[1] and not middle[1].startswith("-"):
        return DetachedRun(root, middle[1], None)
    if len(middle) == 3 and middle[:2] == ["--sweep", "--limit"] and middle[2].isascii() and middle[2].isdigit() \
            and int(middle[2]) >= 1:
        return DetachedRun(root, None, int(middle[2]))
    return None


def main(args: Sequence[str]) -> int:
    run = parse(args)
    if run is None:
        from omp.cli import main as cli_main  # any other command line: the `omp` command reads it

        return cli_main(list(args))

    def review() -> int:
        # Imported here, not at the top: `parse` decides first whether the CLI runs instead.
        from omp.paths import ProjectPaths
        from omp.review.command import run_review
        from omp.review.outcome import ReviewRequest

        paths = ProjectPaths.discover(Path(run.root))
        request = ReviewRequest(run.session or "latest", None, None, False)
        return run_review(paths, request, sweep_all=run.session is None, limit=run.sweep_limit)

    return guarded(review)


def run() -> NoReturn:
    raise SystemExit(main(sys.argv[1:]))


if __name__ == "__main__":
    run()
