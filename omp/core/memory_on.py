"""When memory mode was turned on for a project (docs/behaviour.md#the-review-run `--sweep`).

A sweep reviews only sessions that ended after this time, since each older one is a billed model
call the user never asked for. Written by `omp config set memory-mode on` / `omp trust`, else the
first time a hook (or a sweep) sees the mode on; never moved later once written.
`R/.omp/state/memory-on-since` holds the epoch seconds, then the local time for people.
"""

from __future__ import annotations

import os
import time

from omp.core import layout
from omp.core.files import write_best_effort


def memory_on_since(root: str) -> float | None:
    """The recorded time (epoch seconds), or None if none is recorded."""
    try:
        with open(os.path.join(root, layout.MEMORY_ON_FILE), "rb") as handle:
            return float(handle.read().decode("ascii").split()[0])
    except (OSError, ValueError, IndexError, UnicodeDecodeError):
        return None


def is_recorded(root: str) -> bool:
    """One stat, for the hook: is a time recorded (readable or not)?"""
    return os.path.exists(os.path.join(root, layout.MEMORY_ON_FILE))


def note_memory_on(root: str, when: float | None = None) -> float:
    """Record that memory mode is on now, unless a time is recorded already; returns the time."""
    recorded = memory_on_since(root)
    if recorded is not None:
        return recorded
    when = time.time() if when is None else when
    # Never the first thing written into R/.omp, and never through a `.omp` linked out of R.
    if os.path.isdir(os.path.join(root, layout.STATE_DIR)) and layout.state_inside_project(root):
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(when))
        write_best_effort(os.path.join(root, layout.MEMORY_ON_FILE), f"{when!r} {stamp}\n")
    return when
