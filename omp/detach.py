"""Starting a review that outlives whoever started it (docs/trust.md#hooks-create-nothing-outside-a-git-project, docs/reviewers.md#headless-runs-and-hooks-only).

The sessionEnd hook and the headless wrapper both hand the review to a child process and return
at once: `start_review` and `start_sweep` detach `omp memory-review` through omp.process (its
neutral folder, project off `sys.path`, scrubbed environment plus `G/reviewer.env`, and its
detached start, which holds none of the hook's pipes), with the output in a per-run log under
`R/.omp/state/runs/`. This module decides what runs and where its log goes.

Light at import (os, time and omp.process only): the hook fast path imports this module.
Paths are plain strings for the same reason.
"""

from __future__ import annotations

import os
import time

from omp.process import Detached, start_omp

KEEP_RUN_LOGS = 20
SWEEP_LIMIT = 5  # sessions one automatic sweep may review
# Reviews start this long after the hook returns. Python starting up beside the hook (and beside
# Copilot shutting down) slows both on a small machine — measured: +20 ms on a 25 ms budget —
# while a background review loses nothing by starting half a second later.
START_DELAY_SECONDS = 0.5
STATE_DIR = ".omp"
RUNS_SUBDIR = os.path.join("state", "runs")


def runs_dir(root: str | os.PathLike[str]) -> str:
    """`R/.omp/state/runs`: one log per detached run."""
    return os.path.join(os.fspath(root), STATE_DIR, RUNS_SUBDIR)


def prune_run_logs(folder: str, keep: int = KEEP_RUN_LOGS) -> None:
    """Keep the newest `keep` run logs; older ones go (best effort, never an error)."""
    try:
        entries = [e for e in os.scandir(folder) if e.name.endswith(".log") and e.is_file()]
    except OSError:
        return
    if len(entries) <= keep:
        return

    def age(entry: os.DirEntry[str]) -> tuple[float, str]:
        try:
            return (entry.stat().st_mtime, entry.name)
        except OSError:
            return (0.0, entry.name)

    entries.sort(key=age, reverse=True)
    for entry in entries[keep:]:
        try:
            os.unlink(entry.path)
        except OSError:
            pass


def _stamp() -> str:
    return time.strftime("%Y%m%dT%H%M%S") + f"-{os.getpid()}"


def _prepare(root: str) -> str:
    state = os.path.join(root, STATE_DIR)
    if not os.path.isdir(state):
        # The first write into R/.omp also adds omp's block to .gitignore (docs/writes-and-undo.md#leftovers-of-killed-runs).
        from omp.paths import ProjectPaths
        from omp.project import ensure_state_dir
        from pathlib import Path

        ensure_state_dir(ProjectPaths(Path(root)))
    # On the hook path, so only `os`: a `.omp` (or its log folder) that links out of the project
    # gets no run log and no review (the review itself would refuse it; docs/writes-and-undo.md#leftovers-of-killed-runs).
    real_root = os.path.realpath(root).rstrip(os.sep) + os.sep
    folder = runs_dir(root)
    if not os.path.realpath(folder).startswith(real_root):
        raise OSError(f"{state} leads out of the project through a symbolic link; omp writes nothing there")
    return folder


def review_args(root: str, session_id: str) -> list[str]:
    """`memory-review --session ID --root R`: what `start_review` runs (R absolute)."""
    return ["memory-review", "--session", session_id, "--root", root]


def sweep_args(root: str) -> list[str]:
    """`memory-review --sweep --limit N --root R`: what `start_sweep` runs."""
    return ["memory-review", "--sweep", "--limit", str(SWEEP_LIMIT), "--root", root]


def start_review(root: str | os.PathLike[str], session_id: str) -> Detached:
    """Detach `omp memory-review --session ID --root R`."""
    root = _absolute(root)
    return _start(root, review_args(root, session_id), f"review-{session_id}")


def start_sweep(root: str | os.PathLike[str]) -> Detached:
    """Detach `omp memory-review --sweep --limit N --root R` (drains the retry queue).

    Limited: started by a session start, it must never turn into a review (and a bill) for
    every old session of a project that has just switched memory-mode on.
    """
    root = _absolute(root)
    return _start(root, sweep_args(root), "sweep")


def _absolute(root: str | os.PathLike[str]) -> str:
    # The child runs from the neutral folder, where a relative root means nothing.
    return os.path.abspath(os.fspath(root))


def _start(root: str, args: list[str], log_prefix: str) -> Detached:
    folder = _prepare(root)
    detached = start_omp(args, os.path.join(folder, f"{log_prefix}-{_stamp()}.log"), delay=START_DELAY_SECONDS)
    prune_run_logs(folder)
    return detached
