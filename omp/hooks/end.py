"""sessionEnd: detach the review of the session that ended (docs/trust.md#hooks-create-nothing-outside-a-git-project)."""

from __future__ import annotations

import os
import stat
import time

from omp.core import layout
from omp.core.settings import is_reviewer_session
from omp.hooks.outcome import HookResult
from omp.hooks.project import memory_project, session_id_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: importing typing costs start-up time
    from typing import Any, Mapping

# Copilot 1.0.102 sometimes runs sessionEnd a moment before the session's events.jsonl exists
# (seen under load in the real-CLI e2e tests). When the session's folder is there, the log is
# on its way: wait this long for it, polling. A run that failed before its first turn fires no
# hook at all (COPILOT.md §3), so the wait is paid only in that race.
EVENTS_WAIT_SECONDS = 2.0
_EVENTS_POLL_SECONDS = 0.02


def session_events(session_id: str, wait: float = EVENTS_WAIT_SECONDS) -> str | None:
    """`C/session-state/<id>/events.jsonl` when it is a regular file (never opened here)."""
    folder = os.path.join(layout.copilot_home(), "session-state", session_id)
    path = os.path.join(folder, "events.jsonl")
    deadline: float | None = None
    while True:
        try:
            return path if stat.S_ISREG(os.stat(path).st_mode) else None  # a FIFO or device: never
        except FileNotFoundError:
            if not os.path.isdir(folder):
                return None  # no such session at all
        except (OSError, ValueError):
            return None
        now = time.monotonic()
        deadline = now + wait if deadline is None else deadline
        if now >= deadline:
            return None
        time.sleep(_EVENTS_POLL_SECONDS)


def session_end(payload: Mapping[str, Any], env: Mapping[str, str]) -> HookResult:
    """Detach `omp memory-review --session ID --root R` when memory-mode is on."""
    if is_reviewer_session(env):
        return HookResult({}, "reviewer session")
    session_id = session_id_of(payload)
    if not session_id or not layout.is_valid_session_id(session_id):
        return HookResult({}, "no valid session id")
    found = memory_project(payload, env)
    if isinstance(found, HookResult):
        return HookResult({}, found.action)  # sessionEnd output is not shown to anyone
    root, _ = found
    if session_events(session_id) is None:
        # Nothing to review (the run failed before its first turn, or the "log" is a FIFO or
        # a device): start nothing, create nothing (docs/trust.md#hooks-create-nothing-outside-a-git-project).
        return HookResult({}, "no events.jsonl")
    from omp.detach import start_review  # only when a review starts: it is not free to import

    start_review(root, session_id)
    return HookResult({}, "review started")
