"""Saying once that omp is installed but not reviewing this project (docs/behaviour.md#copilot-integration, docs/reviewers.md#headless-runs-and-hooks-only): the claim.

omp.core.notice holds the rules and the words; this module creates the project's record — the
one step that needs the library (omp.fsio, imported here only then, once per project) — and
gives the notice to the one caller that created it. A record that cannot be written means
nothing is said: a notice repeated at every session would be worse than one never given.
"""

from __future__ import annotations

import os
import sys
import time

from omp.core import settings as core_settings
from omp.core.notice import is_left_to_default, notice_line, record_path, was_told
from omp.hooks.outcome import problem

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: importing typing costs start-up time
    from typing import Any, Mapping


def claim(root: str, by: str) -> bool:
    """Create the project's record; True only for the one caller that created it."""
    from pathlib import Path  # once per project: the library writes the record (heavy to import)

    from omp.fsio import create_exclusive, dump_json

    path = record_path(root)
    record = {"root": core_settings.project_key(root), "by": by, "at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    try:
        return create_exclusive(Path(path), dump_json(record))
    except OSError as exc:
        problem(f"not-reviewing notice not given (its record {path} cannot be written): {exc}")
        return False


def not_reviewing(root: str, settings: Mapping[str, Any], by: str, root_option: str = "") -> str | None:
    """The notice, the first time a project whose memory-mode nobody set is seen; else None.

    `root` is a git project and the session is not a reviewer's (the caller checked both)."""
    if not is_left_to_default(settings) or was_told(root):
        return None
    if not claim(root, by):
        return None
    return notice_line(settings, root_option, omp_program())


def omp_program() -> str:
    """How the user's shell runs this omp: `omp` when one is on PATH, else this very
    interpreter with `-m omp` (installed in a venv that is not activated, say)."""
    import shutil  # once per project, to word the notice

    if shutil.which("omp"):
        return "omp"
    if os.name == "nt":
        return f'"{sys.executable}" -m omp'
    import shlex  # POSIX quoting, for the same one call

    return f"{shlex.quote(sys.executable)} -m omp"
