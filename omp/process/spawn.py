"""A detached start (`spawn_detached`): stdin /dev/null, stdout and stderr a log, no other
descriptor, its own session (POSIX) or a detached, windowless process group (Windows), so a
hook's pipes, the terminal's Ctrl-C and Copilot's exit do not reach it.

On the hook path: light at import (os, time); subprocess only in the fallback that needs it.
"""

from __future__ import annotations

import os
import time

from omp.process.tree import IS_WINDOWS, own_group_flags

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Mapping


class Detached:
    """A started background process and where its output goes."""

    __slots__ = ("pid", "log", "argv")

    def __init__(self, pid: int, log: str, argv: list[str]) -> None:
        self.pid = pid
        self.log = log
        self.argv = argv

    def __repr__(self) -> str:
        return f"Detached(pid={self.pid}, log={self.log!r})"


def spawn_detached(
    argv: list[str],
    log_path: str | os.PathLike[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    delay: float = 0.0,
    label: str | None = None,
) -> Detached:
    """Start `argv` fully detached, its output appended to `log_path`. Returns without waiting.

    `label`: what the log's first line says was started (default: the argv itself).

    With `delay`, the child (POSIX) is a shell that sleeps, then execs `argv` in its place (same
    pid): the heavy start-up happens after the caller has gone.

    stdin is /dev/null, stdout and stderr the log, every other inherited descriptor closed, and
    the child leads its own session (POSIX) or is a detached, windowless process (Windows):
    nothing ties it to the caller's pipes, terminal or process group. Nobody waits for it; the
    callers (a hook, the wrapper) exit right away and the child is re-parented.
    """
    log_path = os.fspath(log_path)
    os.makedirs(os.path.dirname(log_path) or ".", exist_ok=True)
    with open(log_path, "ab") as log:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        log.write(f"# {stamp} omp started: {label or ' '.join(argv)}\n".encode("utf-8", "replace"))
    full_env = dict(os.environ if env is None else env)
    detached = None
    if not IS_WINDOWS and hasattr(os, "posix_spawn"):
        run = argv
        if delay > 0 and os.path.exists("/bin/sh"):
            pause = f"sleep {delay:g} 2>/dev/null || sleep 1"  # POSIX sleep need not take fractions
            run = ["/bin/sh", "-c", f'{pause}; exec "$@"', "omp-review", *argv]
        try:
            detached = Detached(_posix_spawn(run, log_path, cwd, full_env), log_path, list(argv))
        except NotImplementedError:  # no POSIX_SPAWN_SETSID here: subprocess can still do it
            pass
    if detached is None:
        detached = Detached(_popen_detached(argv, log_path, cwd, full_env), log_path, list(argv))
    with open(log_path, "ab") as log:  # which process to look for while it runs
        log.write(f"# pid {detached.pid}\n".encode())
    return detached


def _posix_spawn(argv: list[str], log_path: str, cwd: str | os.PathLike[str] | None, env: dict[str, str]) -> int:
    """posix_spawn instead of subprocess: importing subprocess alone would eat a third of the
    sessionEnd hook's time budget (docs/performance.md#where-speed-matters)."""
    actions: list[tuple[object, ...]] = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644),
        (os.POSIX_SPAWN_DUP2, 1, 2),
    ]
    actions.extend((os.POSIX_SPAWN_CLOSE, fd) for fd in _inheritable_fds())
    spawn = os.posix_spawn if os.sep in argv[0] else os.posix_spawnp
    here = _getcwd() if cwd is not None else None
    if cwd is not None:
        os.chdir(cwd)  # posix_spawn has no cwd argument; the callers are single-threaded
    try:
        return spawn(argv[0], argv, env, file_actions=actions, setsid=True)
    finally:
        if here is not None:
            try:
                os.chdir(here)
            except OSError:
                pass


def _getcwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:
        return None


def _inheritable_fds() -> list[int]:
    """Descriptors above 2 a child would inherit (close_fds for posix_spawn)."""
    try:
        names = os.listdir("/dev/fd")
    except OSError:
        return []
    found = []
    for name in names:
        if not name.isdigit() or int(name) <= 2:
            continue
        try:
            if os.get_inheritable(int(name)):
                found.append(int(name))
        except OSError:  # the descriptor listdir itself used, now closed
            continue
    return found


def _popen_detached(argv: list[str], log_path: str, cwd: str | os.PathLike[str] | None, env: dict[str, str]) -> int:
    import subprocess  # not at the top: the hook path imports this module (see omp/process/__init__.py)

    with open(log_path, "ab") as log:
        # The child gets its own copy of the descriptor; ours closes when this block ends.
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            close_fds=True,
            cwd=os.fspath(cwd) if cwd is not None else None,
            env=env,
            **own_group_flags(detached=True),
        )
    return proc.pid
