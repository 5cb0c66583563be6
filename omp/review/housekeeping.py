"""Housekeeping of the review's own state (docs/writes-and-undo.md#leftovers-of-killed-runs): claims, journals and queue entries older
than 90 days, and what killed runs leave behind — the temp files of interrupted atomic writes in
omp's own folders, and reviewer folders in the temporary directory. A sweep runs all of it
before it looks for sessions to review; every review removes the leftovers."""

from __future__ import annotations

from omp import reviewer_folder
from omp.fsio import remove_leftover_temps
from omp.memory.journal import cleanup_journals
from omp.paths import ProjectPaths, global_home
from omp.review import claim as claims
from omp.review import queue

HOUSEKEEPING_DAYS = 90
DAY = 86400.0


def clean_old(paths: ProjectPaths, timeout: float, days: float = HOUSEKEEPING_DAYS) -> dict[str, int]:
    """Remove claims, journals and queue entries older than `days` (docs/writes-and-undo.md#leftovers-of-killed-runs), and leftovers."""
    seconds = days * DAY
    cleaned = {
        "claims": claims.clean_old(paths, seconds, timeout),
        "queue": queue.clean_old(paths, seconds),
        "journals": cleanup_journals(paths, int(days)),
        **clean_leftovers(paths),
    }
    return {k: v for k, v in cleaned.items() if v}


def clean_leftovers(paths: ProjectPaths) -> dict[str, int]:
    """Remove what killed runs left: `.<name>.<hex>.tmp` files older than a few minutes in omp's
    own folders (`R/.omp` and `G`, all the way down, but the notes folder, which the memory
    batch sweeps; beside `.github/copilot-instructions.md`),
    and reviewer folders in the temporary directory whose run is gone. Never follows a symbolic
    link; never removes a file of another name."""
    # The notes folder (20,000 notes in a year) is not listed here: the note index says when a
    # temp file is there, and the memory batch removes it (NoteIndex.sweep_leftovers).
    temps = remove_leftover_temps(paths.state, skip=(paths.notes,)) + remove_leftover_temps(global_home())
    temps += remove_leftover_temps(paths.instructions.parent, recursive=False)
    return {"temp_files": temps, "reviewer_folders": reviewer_folder.remove_leftovers()}
