"""What a hook prints and did, and how it reports a problem (never on stdout)."""

from __future__ import annotations

import os
import sys
import time

from omp.core import layout

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: importing typing costs start-up time
    from typing import Any


class HookResult:
    """What a hook prints, and what it did (for logs and tests)."""

    __slots__ = ("output", "action")

    def __init__(self, output: dict[str, Any], action: str) -> None:
        self.output = output
        self.action = action

    def __repr__(self) -> str:
        return f"HookResult({self.output!r}, {self.action!r})"


def problem(message: str) -> None:
    """One line on stderr and in G/logs/hooks.log; never on stdout, never a traceback."""
    line = f"omp hook: {message}".replace("\n", " ")[:500]
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
    try:
        folder = os.path.join(layout.global_home(), layout.LOGS_DIR)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "hooks.log"), "a", encoding="utf-8") as handle:
            handle.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')} {line}\n")
    except Exception:
        pass
