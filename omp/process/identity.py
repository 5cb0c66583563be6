"""Telling a process by its start time (`start_time`, `is_alive`) and reading its command line:
a pid alone may have been reused; the claim protocol records both (psutil's `create_time`).
psutil loads inside the functions (the hook path imports this module through the detached start).
"""

from __future__ import annotations

START_TIME_TOLERANCE = 1.0  # psutil start times are derived from clock ticks; allow jitter


def start_time(pid: int) -> float | None:
    """When process `pid` started (epoch seconds), or None if it cannot be told."""
    import psutil  # not at the top: this module starts the detached review from the hooks

    try:
        return psutil.Process(pid).create_time()
    except (psutil.Error, OSError):
        return None


def command_line(pid: int) -> list[str] | None:
    """Process `pid`'s argv, or None when it is gone or cannot be read (psutil)."""
    import psutil  # heavy (17 ms): only where a claim's owner is looked at

    try:
        return list(psutil.Process(pid).cmdline())
    except (psutil.Error, OSError):
        return None


def is_alive(pid: int, started_at: float | None) -> bool:
    """Is the process that started at `started_at` as `pid` still running (not a zombie, not a
    reused pid)? One that exists but cannot be inspected counts as alive: nothing is taken from it."""
    import psutil  # heavy (17 ms): only where a tree is looked at or ended

    if pid <= 0:
        return False
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return False  # killed, only waiting to be reaped by its parent
        created = proc.create_time()
    except psutil.NoSuchProcess:
        return False
    except (psutil.Error, OSError):
        return True  # exists but cannot be inspected: do not steal from it
    if started_at is None:
        return True
    return abs(created - started_at) <= START_TIME_TOLERANCE
