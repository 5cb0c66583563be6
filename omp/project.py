"""The project's state folder and its lock: the entry point every project store writes through."""

from __future__ import annotations

import contextlib
from typing import Iterator

from pathlib import Path

from omp.fsio import confine, confine_all, file_lock
from omp.memory.gitignore import ensure_gitignore_block
from omp.paths import GlobalPaths, ProjectPaths, require_dir


def state_layout(paths: ProjectPaths) -> list[Path]:
    """Every folder and store under `R/.omp` that omp writes, parents before children."""
    review = paths.review_dir
    return [
        paths.state, paths.state / "memory", paths.notes, paths.state / "self-evolve", paths.drafts,
        paths.directives, review, paths.claims, paths.queue, paths.journal, paths.pending_md,
        paths.pending_json, paths.decisions, paths.logs, paths.config,
    ]


def github_layout(paths: ProjectPaths) -> list[Path]:
    """What a review writes under `.github` (skills are written only by promote-skill, which
    checks its own target)."""
    return [paths.root / ".github", paths.instructions]


def check_layout(paths: ProjectPaths, github: bool = False) -> None:
    """Refuse (OutsideProjectError) when a store or folder omp writes leads out of the project
    through a symbolic link (docs/behaviour.md#project-memory-and-the-managed-block, docs/writes-and-undo.md#leftovers-of-killed-runs). Existing or not: a missing store under a linked
    folder would be created outside. Cheap (a realpath each), so it runs before every locked
    write and before a review spends anything."""
    confine_all(state_layout(paths) + (github_layout(paths) if github else []), paths.root)


def ensure_state_dir(paths: ProjectPaths) -> None:
    """Create `R/.omp`; the first time, also add omp's block to `.gitignore` (docs/writes-and-undo.md#leftovers-of-killed-runs).

    A `.omp` (or a store in it) that links out of the project is refused here, before anything
    is written, so every locked write is covered.
    """
    check_layout(paths)
    if paths.state.is_dir():
        return
    if (paths.root / ".git").exists():
        # The gitignore block is written right after `.omp` is created: refuse a `.gitignore`
        # that links out before creating anything. (Once `.omp` exists it is never written again.)
        confine(paths.gitignore, paths.root)
    require_dir(paths.state)

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
