"""The reviewer's working folder, and how omp knows it again (docs/reviewers.md).

A reviewer runs in a fresh empty folder `omp-review-XXXXXXXX` that omp makes in the temporary
directory. Its Copilot session records that folder as its `cwd`, and omp must tell such a
session from the user's own — never by the folder's name alone (a user's project may be called
`omp-review-anything`). So omp leaves a mark only its own start can make: beside the folder, an
owner file `omp-review-XXXXXXXX.omp-owner` (created exclusively, never through a link) that
records the folder's device and inode, the pid that made it and that pid's start time. A
folder is omp's reviewer folder when its owner file names *that very* folder (a copied or
cloned folder has another inode) and is owned by this user. Once the call is over omp removes
both; a session whose folder is gone counts as the reviewer's only when that folder sat directly
in a temporary directory, where omp makes it, under a name `mkdtemp` gives.

A run killed mid-call leaves the folder and its owner file behind; `remove_leftovers` (run by
housekeeping) removes those whose maker is gone, and omp's empty folders without an owner file
(an older omp's) once they are a day old. Nothing else in the temporary directory is touched,
and no symbolic link is followed.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import tempfile
import time
from typing import Any, Iterator

PREFIX = "omp-review-"
OWNER_SUFFIX = ".omp-owner"
_MKDTEMP_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")  # tempfile's random part
UNMARKED_MAX_AGE = 86400.0  # an older omp's empty folder, left by a killed run


def temp_root() -> str:
    import tempfile  # (not on every path that imports discovery)

    return os.path.realpath(tempfile.gettempdir())


def _temp_roots() -> set[str]:
    """This process's temporary directory, and the system's own ones: the run that made a
    folder (a hook's detached review, an older omp) may have had another TMPDIR."""
    return {temp_root(), *(os.path.realpath(p) for p in ("/tmp", "/var/tmp", "/usr/tmp") if os.name != "nt")}


def _mkdtemp_name(name: str) -> bool:
    """A name `tempfile.mkdtemp(prefix=PREFIX)` could have made."""
    tail = name[len(PREFIX):]
    return name.startswith(PREFIX) and 0 < len(tail) <= 16 and set(tail) <= _MKDTEMP_LETTERS


def _owner_path(folder: str) -> str:
    return folder + OWNER_SUFFIX


def _folder_id(info: os.stat_result) -> str:
    return f"{info.st_dev}:{info.st_ino}"


@contextlib.contextmanager
def reviewer_folder() -> Iterator[str]:
    """A fresh empty folder in the temporary directory, marked as omp's (see the module
    docstring), removed with its mark when the block ends."""
    from omp.process import start_time  # psutil: only a reviewer start needs it, not session discovery

    folder = os.path.realpath(tempfile.mkdtemp(prefix=PREFIX))
    owner = _owner_path(folder)
    try:
        record = {"pid": os.getpid(), "pid_started_at": start_time(os.getpid()),
                  "folder": _folder_id(os.lstat(folder))}
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        with contextlib.suppress(FileExistsError):  # someone else's file there: the folder stays unmarked
            fd = os.open(owner, flags, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(json.dumps(record))
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        _remove_owner(owner, folder)


def _remove_owner(owner: str, folder: str) -> None:
    """Remove `owner` only if it is ours (a regular file of this user naming `folder`)."""
    if _read_owner(owner) is not None:
        with contextlib.suppress(OSError):
            os.unlink(owner)


def _read_owner(owner: str) -> dict[str, Any] | None:
    """The owner record, if `owner` is a regular file of this user (not a link) holding one."""
    try:
        fd = os.open(owner, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > 4096:
            return None
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            return None
        data = json.loads(os.read(fd, 4096).decode("utf-8"))
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    return data if isinstance(data, dict) and isinstance(data.get("folder"), str) else None


def _marked(folder: str, info: os.stat_result) -> dict[str, Any] | None:
    record = _read_owner(_owner_path(folder))
    if record is None or record.get("folder") != _folder_id(info):
        return None
    return record


def is_reviewer_folder(cwd: str | None) -> bool:
    """Is `cwd` (a session's working folder) one omp made for its reviewer?"""
    if not cwd or not os.path.basename(os.path.normpath(cwd)).startswith(PREFIX):
        return False  # omp records its folder's real path: any other name is not one (and costs nothing)
    real = os.path.realpath(cwd)
    name = os.path.basename(real)
    if not name.startswith(PREFIX):
        return False
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        # omp removes its reviewer's folder after the call; a user's project folder exists.
        return os.path.dirname(real) in _temp_roots() and _mkdtemp_name(name)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and _marked(real, info) is not None


def remove_leftovers(now: float | None = None) -> int:
    """Remove reviewer folders (and their owner files) that killed runs left in the temporary
    directory. Returns how many folders were removed."""
    from omp.process import is_alive  # psutil: only housekeeping needs it, not session discovery

    now = time.time() if now is None else now
    root = temp_root()
    removed = 0
    try:
        entries = [e for e in os.scandir(root) if e.name.startswith(PREFIX)]
    except OSError:
        return 0
    for entry in entries:
        if entry.name.endswith(OWNER_SUFFIX):
            _remove_orphan_owner(os.path.join(root, entry.name), is_alive)
            continue
        folder = os.path.join(root, entry.name)
        try:
            info = os.lstat(folder)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or (hasattr(os, "geteuid") and info.st_uid != os.geteuid()):
            continue  # a link, a file of that name, another user's: not ours
        record = _marked(folder, info)
        if record is not None:
            pid, started = record.get("pid"), record.get("pid_started_at")
            if isinstance(pid, int) and is_alive(pid, started if isinstance(started, (int, float)) else None):
                continue  # its review still runs
            shutil.rmtree(folder, ignore_errors=True)  # never follows a link inside
            _remove_owner(_owner_path(folder), folder)
            removed += not os.path.lexists(folder)
        elif _mkdtemp_name(entry.name) and now - info.st_mtime > UNMARKED_MAX_AGE:
            with contextlib.suppress(OSError):  # only an empty one: rmdir removes nothing else
                os.rmdir(folder)
                removed += 1
    return removed


def _remove_orphan_owner(owner: str, is_alive: Any) -> None:
    """An owner file whose folder is gone (a run killed between the two removals)."""
    folder = owner[: -len(OWNER_SUFFIX)]
    record = _read_owner(owner)
    if record is None or os.path.lexists(folder):
        return
    pid, started = record.get("pid"), record.get("pid_started_at")
    if isinstance(pid, int) and is_alive(pid, started if isinstance(started, (int, float)) else None):
        return
    with contextlib.suppress(OSError):
        os.unlink(owner)
