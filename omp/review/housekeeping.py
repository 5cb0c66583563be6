"""Housekeeping of the review's own state: claims, journals and queue entries older than 90 days
(SPEC §7.4). A sweep runs it before it looks for sessions to review."""

from __future__ import annotations

from omp.memory.journal import cleanup_journals
from omp.paths import ProjectPaths
from omp.review import claim as claims
from omp.review import queue

HOUSEKEEPING_DAYS = 90
DAY = 86400.0


def clean_old(paths: ProjectPaths, timeout: float, days: float = HOUSEKEEPING_DAYS) -> dict[str, int]:
    """Remove claims, journals and queue entries older than `days` (SPEC §7.4)."""
    seconds = days * DAY
    cleaned = {
        "claims": claims.clean_old(paths, seconds, timeout),
        "queue": queue.clean_old(paths, seconds),
        "journals": cleanup_journals(paths, int(days)),
    }
    return {k: v for k, v in cleaned.items() if v}

