"""Finding Copilot sessions: folders, `session.start`, `workspace.yaml`, this project's (docs/trust.md#session-discovery-never-blocks).

A session is a folder `C/session-state/<id>/` with an `events.jsonl` (read by
`omp.sessions.events`). `--session` takes a full id, a unique prefix or `latest` (the newest
session of this project: its `session.start` `context.cwd` or `gitRoot` lies inside `R`).

Reviewer sessions: omp's own reviewer runs Copilot in a fresh empty folder that omp makes in the
temporary directory and marks as its own (`omp.reviewer_folder`), so its session's
`session.start` `context.cwd` is that folder. Such sessions are flagged `is_reviewer` and never
chosen as `latest`. The mark is structural, never the name: a user's project folder called
`omp-review-…` is an ordinary project.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from omp.errors import OmpError
from omp.paths import ProjectPaths, check_session_id
from omp.paths import copilot_home as default_copilot_home
from omp.reviewer_folder import is_reviewer_folder
from omp.sessions.events import is_regular_file, line_type, open_regular
from omp.sessions.lines import json_loads

LOCKS_DIR_NAME = ".session-operation-locks"
MIN_PREFIX = 7
HEAD_SCAN_LINES = 20  # session.start is the first line; a few more in case something precedes it
HEAD_SCAN_BYTES = 256 * 1024


@dataclass
class SessionInfo:
    id: str
    dir: Path
    events: Path
    cwd: str | None
    git_root: str | None
    mtime: float
    is_reviewer: bool


def _session_state(copilot_home: Path | None) -> Path:
    return (copilot_home if copilot_home is not None else default_copilot_home()) / "session-state"


def read_session_start(events: Path) -> dict[str, Any] | None:
    """The `session.start` event's data, from the first lines only (never the whole file)."""
    try:
        handle = open_regular(events)
    except OSError:
        return None
    read = 0
    with handle:
        for _ in range(HEAD_SCAN_LINES):
            line = handle.readline(HEAD_SCAN_BYTES)
            read += len(line)
            if not line or read > HEAD_SCAN_BYTES:
                return None
            if line_type(line) != b"session.start":
                continue
            try:
                event = json_loads(line)
            except ValueError:
                return None
            data = event.get("data") if isinstance(event, dict) else None
            return data if isinstance(data, dict) else None
    return None


def _workspace_fields(folder: Path) -> dict[str, str]:
    """`cwd` and `git_root` from `workspace.yaml` (flat `key: value` lines), if present."""
    fields: dict[str, str] = {}
    try:
        with open_regular(folder / "workspace.yaml") as raw:
            handle = (line.decode("utf-8", errors="replace") for line in raw)
            for _, line in zip(range(50), handle):
                key, sep, value = line.partition(":")
                if sep and key.strip() in ("cwd", "git_root"):
                    value = value.strip().strip("'\"")
                    if value:
                        fields[key.strip()] = value
    except OSError:
        pass
    return fields


def session_info(folder: Path, events: Path | None = None, mtime: float | None = None) -> SessionInfo:
    events = events or folder / "events.jsonl"
    if mtime is None:
        try:
            mtime = events.stat().st_mtime
        except OSError:
            mtime = 0.0
    start = read_session_start(events) or {}
    context = start.get("context")
    context = context if isinstance(context, dict) else {}
    cwd = context.get("cwd") if isinstance(context.get("cwd"), str) else None
    git_root = context.get("gitRoot") if isinstance(context.get("gitRoot"), str) else None
    if cwd is None and git_root is None:
        fields = _workspace_fields(folder)
        cwd, git_root = fields.get("cwd"), fields.get("git_root")
    return SessionInfo(
        id=folder.name,
        dir=folder,
        events=events,
        cwd=cwd,
        git_root=git_root,
        mtime=mtime,
        is_reviewer=is_reviewer_cwd(cwd),
    )


def is_reviewer_cwd(cwd: str | None) -> bool:
    """Is `cwd` a folder omp made for its reviewer (by its mark, not its name)?"""
    return is_reviewer_folder(cwd)


def _inside(path: str | None, root: Path) -> bool:
    if not path:
        return False
    root_text = os.path.normpath(str(root))
    for candidate in {os.path.normpath(path), os.path.realpath(path)}:
        if candidate == root_text or candidate.startswith(root_text.rstrip(os.sep) + os.sep):
            return True
    return False


def belongs_to(info: SessionInfo, project: ProjectPaths) -> bool:
    root = project.root
    roots = {root, Path(os.path.realpath(root))}
    return any(_inside(info.cwd, r) or _inside(info.git_root, r) for r in roots)


def _candidates(copilot_home: Path | None) -> list[tuple[float, Path, Path]]:
    """(mtime, folder, events) of every session folder with an events.jsonl, newest first."""
    state = _session_state(copilot_home)
    found: list[tuple[float, Path, Path]] = []
    try:
        entries = list(os.scandir(state))
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise OmpError(f"cannot list {state}: {exc.strerror}", "check its permissions") from exc
    for entry in entries:
        if entry.name == LOCKS_DIR_NAME or entry.name.startswith("."):
            continue
        try:
            if not entry.is_dir():
                continue
            events = Path(entry.path) / "events.jsonl"
            info = events.stat()
        except OSError:
            continue  # no events.jsonl: the run failed before its first turn
        if not stat.S_ISREG(info.st_mode):
            continue  # a FIFO or a device: opening it could block for ever (docs/trust.md#session-discovery-never-blocks)
        mtime = info.st_mtime
        found.append((mtime, Path(entry.path), events))
    found.sort(key=lambda item: (item[0], item[1].name), reverse=True)
    return found


def _project_sessions(project: ProjectPaths, copilot_home: Path | None) -> Iterator[SessionInfo]:
    for mtime, folder, events in _candidates(copilot_home):
        info = session_info(folder, events, mtime)
        if not info.is_reviewer and belongs_to(info, project):
            yield info


def list_project_sessions(project: ProjectPaths, copilot_home: Path | None = None) -> list[SessionInfo]:
    """This project's sessions, newest first (reviewer sessions and lock folders left out)."""
    return list(_project_sessions(project, copilot_home))


def find_session(spec: str, project: ProjectPaths, copilot_home: Path | None = None) -> SessionInfo:
    """A session by full id, unique prefix (≥ 7 characters) or `latest` (of this project)."""
    if spec == "latest":
        for info in _project_sessions(project, copilot_home):
            return info
        raise OmpError(
            f"no Copilot session of {project.root} found in {_session_state(copilot_home)}",
            "run Copilot in this project first, or pass --session ID",
        )
    check_session_id(spec)  # refuses '..', '/', and the rest before any path is built
    state = _session_state(copilot_home)
    folder = state / spec
    if spec != LOCKS_DIR_NAME and folder.is_dir():
        return _with_events(folder)
    if len(spec) < MIN_PREFIX:
        raise OmpError(
            f"no session {spec!r} in {state}",
            f"pass a full session id, a unique prefix of at least {MIN_PREFIX} characters, or latest",
        )
    matches = sorted(
        name for name in _folder_names(state) if name.startswith(spec) and name != LOCKS_DIR_NAME
    )
    if not matches:
        raise OmpError(f"no session matching {spec!r} in {state}", "check the id, or pass --session latest")
    if len(matches) > 1:
        shown = ", ".join(matches[:10]) + (f" (+{len(matches) - 10} more)" if len(matches) > 10 else "")
        raise OmpError(f"session prefix {spec!r} is ambiguous: {shown}", "pass more characters of the id")
    return _with_events(state / matches[0])


def _folder_names(state: Path) -> list[str]:
    try:
        return [entry.name for entry in os.scandir(state) if entry.is_dir()]
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise OmpError(f"cannot list {state}: {exc.strerror}", "check its permissions") from exc


def _with_events(folder: Path) -> SessionInfo:
    events = folder / "events.jsonl"
    if events.exists() and not is_regular_file(events):
        raise OmpError(
            f"session {folder.name}'s events.jsonl is not a regular file (a FIFO or a device?)",
            "nothing to review in it; pass another --session",
        )
    if not is_regular_file(events):
        raise OmpError(
            f"session {folder.name} has no events.jsonl (the run ended before its first turn)",
            "nothing to review in it; pass another --session",
        )
    return session_info(folder, events)
