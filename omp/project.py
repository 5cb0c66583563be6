"""The project's state folder and its lock: the entry point every project store writes through."""

from __future__ import annotations

import contextlib
from typing import Iterator

from omp.fsio import file_lock
from omp.paths import GlobalPaths, ProjectPaths, require_dir


def ensure_state_dir(paths: ProjectPaths) -> None:
    """Create `R/.omp`; the first time, also add omp's block to `.gitignore` (SPEC §7.4)."""
    if paths.state.is_dir():
        return
    require_dir(paths.state)
    from omp.memory.gitignore import ensure_gitignore_block

    ensure_gitignore_block(paths.root)


@contextlib.contextmanager
def project_lock(paths: ProjectPaths) -> Iterator[None]:
    """Serialise every read-modify-write of this project's stores. Re-read after entering."""
    ensure_state_dir(paths)
    with file_lock(paths.lock, "project"):
        yield


@contextlib.contextmanager
def global_lock(paths: GlobalPaths) -> Iterator[None]:
    require_dir(paths.home)
    with file_lock(paths.lock, "global"):
        yield
