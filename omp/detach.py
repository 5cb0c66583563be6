"""Starting a review that outlives whoever started it (SPEC §9.2, §9.4).

The sessionEnd hook and the headless wrapper both hand the review to a child process and return
at once. Copilot waits for a hook's stdout to close, so the child must hold none of the hook's
pipes: stdin is /dev/null, stdout and stderr go to a per-run log under `R/.omp/state/runs/`,
and it runs in its own session (POSIX) or as a detached, windowless process (Windows), so the
terminal's Ctrl-C and Copilot's exit do not reach it.

The review needs what Copilot strips from hook environments (`COPILOT_PROVIDER_*`,
`COPILOT_OFFLINE`, `GITHUB_TOKEN`, …) when the user relies on them. Those come from an explicit
file the user writes, `G/reviewer.env` (or `$OMP_REVIEWER_ENV_FILE`): `KEY=VALUE` lines added to
the detached review's environment, and from nowhere else.

Every Python process omp starts of itself (the hook's review and sweep, the wrapper's review)
starts here, through `start_omp`, and so gets the same three guards (SPEC §5.2):
- a neutral working folder (the filesystem root), never the project: nothing the repository
  holds is found by a relative path;
- the project off `sys.path`: the child runs `python -c` with a first statement that drops the
  working-folder entry `python -c`/`-m` would put first, so a `click.py`, `psutil.py` or
  `filelock.py` at the project's top level is never imported (`-I` would do it too, but it also
  drops the user's site-packages, where `pip install --user omp` puts omp);
- the environment the review needs and no more: the user's (as Copilot handed it to the hook)
  plus `reviewer.env`, without `OMP_REVIEWER` (the review is not a reviewer session) and
  without the variables that make an interpreter run extra code (`PYTHONSTARTUP`,
  `PYTHONINSPECT`, `PYTHONBREAKPOINT`), with `PWD` naming the real working folder.

Light at import (os, sys, time only; subprocess loads when a process starts): the hook fast
path imports this module. Paths are plain strings for the same reason.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping

KEEP_RUN_LOGS = 20
# Reviews start this long after the hook returns. Python starting up beside the hook (and beside
# Copilot shutting down) slows both on a small machine — measured: +20 ms on a 25 ms budget —
# while a background review loses nothing by starting half a second later.
SWEEP_LIMIT = 5  # sessions one automatic sweep may review
START_DELAY_SECONDS = 0.5
STATE_DIR = ".omp"
RUNS_SUBDIR = os.path.join("state", "runs")
REVIEWER_ENV_FILE_VAR = "OMP_REVIEWER_ENV_FILE"

# Windows creation flags (subprocess exposes them only on Windows).
_DETACHED_PROCESS = 0x00000008
_CREATE_NEW_PROCESS_GROUP = 0x00000200
_CREATE_NO_WINDOW = 0x08000000


class Detached:
    """A started background process and where its output goes."""

    __slots__ = ("pid", "log", "argv")

    def __init__(self, pid: int, log: str, argv: list[str]) -> None:
        self.pid = pid
        self.log = log
        self.argv = argv

    def __repr__(self) -> str:
        return f"Detached(pid={self.pid}, log={self.log!r})"


def runs_dir(root: str | os.PathLike[str]) -> str:
    """`R/.omp/state/runs`: one log per detached run."""
    return os.path.join(os.fspath(root), STATE_DIR, RUNS_SUBDIR)


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
    if os.name != "nt" and hasattr(os, "posix_spawn"):
        run = argv
        if delay > 0 and os.path.exists("/bin/sh"):
            pause = f"sleep {delay:g} 2>/dev/null || sleep 1"  # POSIX sleep need not take fractions
            run = ["/bin/sh", "-c", f'{pause}; exec "$@"', "omp-review", *argv]
        try:
            detached = Detached(_posix_spawn(run, log_path, cwd, full_env).pid, log_path, list(argv))
        except NotImplementedError:  # no POSIX_SPAWN_SETSID here: subprocess can still do it
            pass
    if detached is None:
        detached = _popen(argv, log_path, cwd, full_env)
    with open(log_path, "ab") as log:  # which process to look for while it runs
        log.write(f"# pid {detached.pid}\n".encode())
    return detached


def _posix_spawn(argv: list[str], log_path: str, cwd: str | os.PathLike[str] | None, env: dict[str, str]) -> Detached:
    """posix_spawn instead of subprocess: importing subprocess alone would eat a third of the
    sessionEnd hook's time budget (SPEC §12)."""
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
        pid = spawn(argv[0], argv, env, file_actions=actions, setsid=True)
    finally:
        if here is not None:
            try:
                os.chdir(here)
            except OSError:
                pass
    return Detached(pid, log_path, list(argv))


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


def _popen(argv: list[str], log_path: str, cwd: str | os.PathLike[str] | None, env: dict[str, str]) -> Detached:
    import subprocess

    kwargs: dict[str, Any] = {}
    if os.name == "nt":
        kwargs["creationflags"] = _DETACHED_PROCESS | _CREATE_NEW_PROCESS_GROUP | _CREATE_NO_WINDOW
    else:
        kwargs["start_new_session"] = True
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
            **kwargs,  # type: ignore[arg-type]
        )
    return Detached(proc.pid, log_path, list(argv))


def prune_run_logs(folder: str, keep: int = KEEP_RUN_LOGS) -> None:
    """Keep the newest `keep` run logs; older ones go (best effort, never an error)."""
    try:
        entries = [e for e in os.scandir(folder) if e.name.endswith(".log") and e.is_file()]
    except OSError:
        return
    if len(entries) <= keep:
        return

    def age(entry: os.DirEntry[str]) -> tuple[float, str]:
        try:
            return (entry.stat().st_mtime, entry.name)
        except OSError:
            return (0.0, entry.name)

    entries.sort(key=age, reverse=True)
    for entry in entries[keep:]:
        try:
            os.unlink(entry.path)
        except OSError:
            pass


def _global_home() -> str:
    explicit = os.environ.get("OMP_HOME")
    if explicit:
        return os.path.expanduser(explicit)
    return os.path.join(os.environ.get("HOME") or os.path.expanduser("~"), ".omp")


def reviewer_env_file() -> str:
    """`$OMP_REVIEWER_ENV_FILE`, else `G/reviewer.env`."""
    explicit = os.environ.get(REVIEWER_ENV_FILE_VAR)
    return os.path.expanduser(explicit) if explicit else os.path.join(_global_home(), "reviewer.env")


def read_env_file(path: str | os.PathLike[str]) -> dict[str, str]:
    """`KEY=VALUE` lines (blank lines and `#` comments skipped; `export ` and quotes allowed)."""
    try:
        with open(path, "r", encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return {}
    values: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, _, value = line.partition("=")
        key = key.strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        if key and key.replace("_", "a").isalnum() and key.isascii() and not key[0].isdigit():
            values[key] = value
    return values


# Variables that make a Python interpreter run code of their own choosing, or stop for input:
# nothing a background review needs.
_DROPPED_VARS = ("OMP_REVIEWER", "PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONBREAKPOINT")
# `python -c`'s first statement: sys.path[0] is then '' (the working folder); drop it before
# anything else is imported. The same guard as hooks/run's.
_SAFE_START = "import sys; sys.path and sys.path[0] in ('', '.') and sys.path.pop(0); "
_OMP_MAIN = "from omp.cli import main; sys.exit(main())"


def neutral_cwd() -> str:
    """Where omp's own processes run: the filesystem root (it always exists, no project is
    there, and other users cannot put files in it)."""
    return os.path.abspath(os.sep)


def review_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The detached review's environment: ours, plus the user's reviewer.env file."""
    env = dict(os.environ if base is None else base)
    env.update(read_env_file(reviewer_env_file()))
    # The review is not itself a reviewer session (its reviewer process sets OMP_REVIEWER).
    for name in _DROPPED_VARS:
        env.pop(name, None)
    env["PWD"] = neutral_cwd()
    return env


def omp_argv(*args: str) -> list[str]:
    """`omp ARGS` with the very interpreter running now (the one that registered the hooks),
    its working folder off `sys.path` (see the module docstring)."""
    return [sys.executable, "-c", _SAFE_START + _OMP_MAIN, *args]


def start_omp(args: list[str], log_path: str, *, delay: float = 0.0) -> Detached:
    """Detach `omp ARGS`: the one place omp starts its own Python (neutral folder, project off
    sys.path, scrubbed environment). ARGS must name the project with an absolute `--root`."""
    cwd = neutral_cwd()
    label = f"omp {' '.join(args)} (python {sys.executable}, in {cwd}, project off sys.path)"
    return spawn_detached(omp_argv(*args), log_path, cwd=cwd, env=review_environment(), delay=delay, label=label)


def _stamp() -> str:
    return time.strftime("%Y%m%dT%H%M%S") + f"-{os.getpid()}"


def _prepare(root: str) -> str:
    state = os.path.join(root, STATE_DIR)
    if not os.path.isdir(state):
        # The first write into R/.omp also adds omp's block to .gitignore (SPEC §7.4).
        from omp.paths import ProjectPaths
        from omp.project import ensure_state_dir
        from pathlib import Path

        ensure_state_dir(ProjectPaths(Path(root)))
    # On the hook path, so only `os`: a `.omp` (or its log folder) that links out of the project
    # gets no run log and no review (the review itself would refuse it; SPEC §7.4).
    real_root = os.path.realpath(root).rstrip(os.sep) + os.sep
    folder = runs_dir(root)
    if not os.path.realpath(folder).startswith(real_root):
        raise OSError(f"{state} leads out of the project through a symbolic link; omp writes nothing there")
    return folder


def start_review(root: str | os.PathLike[str], session_id: str) -> Detached:
    """Detach `omp memory-review --session ID --root R`."""
    return _start(root, ["--session", session_id], f"review-{session_id}")


def start_sweep(root: str | os.PathLike[str]) -> Detached:
    """Detach `omp memory-review --sweep --limit N --root R` (drains the retry queue).

    Limited: started by a session start, it must never turn into a review (and a bill) for
    every old session of a project that has just switched memory-mode on.
    """
    return _start(root, ["--sweep", "--limit", str(SWEEP_LIMIT)], "sweep")


def _start(root: str | os.PathLike[str], args: list[str], log_prefix: str) -> Detached:
    # Absolute: the child runs from the neutral folder, where a relative root means nothing.
    root = os.path.abspath(os.fspath(root))
    folder = _prepare(root)
    detached = start_omp(
        ["memory-review", *args, "--root", root],
        os.path.join(folder, f"{log_prefix}-{_stamp()}.log"),
        delay=START_DELAY_SECONDS,
    )
    prune_run_logs(folder)
    return detached
