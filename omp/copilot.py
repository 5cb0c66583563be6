"""Finding the Copilot CLI: `OMP_COPILOT_BIN`, else `copilot` on PATH.

One place for the wrapper, the reviewer backend, `omp install` and `omp doctor`, so they can
never disagree about which Copilot they run.
"""

from __future__ import annotations

import os
import shutil

from omp.errors import OmpError

HINT_INSTALL = "install Copilot CLI (npm install -g @github/copilot) or point OMP_COPILOT_BIN at it"


def find_copilot() -> str | None:
    configured = os.environ.get("OMP_COPILOT_BIN")
    if configured:
        return configured
    return shutil.which("copilot")


def copilot_command() -> str:
    found = find_copilot()
    if not found:
        raise OmpError("Copilot CLI not found on PATH", HINT_INSTALL)
    return found
