"""Starting, running and ending processes: the one place omp does it (SPEC §5.1, §5.2, §9.2, §9.4).

Six things, one set of rules, portable through psutil where POSIX and Windows differ:

- **the safe start of omp's own Python** (`omp_argv`, `review_environment`, `neutral_cwd`,
  `start_omp`): every Python process omp starts of itself gets the same three guards —
  - a neutral working folder (the filesystem root), never the project: nothing the repository
    holds is found by a relative path;
  - the project off `sys.path`: the child runs `python -c` with a first statement that drops the
    working-folder entry `python -c`/`-m` would put first, so a `click.py`, `psutil.py` or
    `filelock.py` at the project's top level is never imported (`-I` would do it too, but it
    also drops the user's site-packages, where `pip install --user omp` puts omp);
  - the environment the review needs and no more: the user's (as Copilot handed it to the hook)
    plus `G/reviewer.env` (or `$OMP_REVIEWER_ENV_FILE`: `KEY=VALUE` lines giving back what
    Copilot strips from hook environments, `COPILOT_PROVIDER_*`, `COPILOT_OFFLINE`, …), without
    `OMP_REVIEWER` (the review is not a reviewer session) and without the variables that make an
    interpreter run extra code (`PYTHONSTARTUP`, `PYTHONINSPECT`, `PYTHONBREAKPOINT`), with
    `PWD` naming the real working folder;
- **a detached start** (`spawn_detached`): stdin /dev/null, stdout and stderr a log, no other
  descriptor, its own session (POSIX) or a detached, windowless process group (Windows), so a
  hook's pipes, the terminal's Ctrl-C and Copilot's exit do not reach it;
- **a captured run** (`run_captured`): stdin text fed by a thread, stdout and stderr collected as
  they arrive (stdout up to a size bound), a timeout, an early stop once the output is complete,
  and on timeout, overflow, a failed reader or Ctrl-C the child's whole tree ended;
- **telling a process by its start time** (`start_time`, `is_alive`): a pid alone may have been
  reused; the claim protocol records both (psutil's `create_time`);
- **ending a tree** (inside `run_captured`, and `end_run_leftovers` for a run whose starter was
  killed): psutil finds the descendants, they are terminated, then killed after a grace period;
  psutil checks a process's start time before it signals it, and a leftover of a killed run is
  only hit after its start time and a token in its environment proved it is the one meant, so a
  reused pid is never hit;
- **a foreground run** (`run_foreground`): the user's Copilot session on our terminal, with
  SIGTERM/SIGHUP (and a SIGINT the terminal did not already deliver) passed on.

POSIX-only calls (`os.killpg`, `SIGKILL`, sessions, `tcgetpgrp`) appear here and nowhere else in
omp (tests/test_process_module.py checks it), each behind a check for the platform.

Light at import (os, sys, time): the sessionEnd hook imports this module to detach its review,
and importing subprocess alone would eat a third of its budget (SPEC §12). subprocess, signal,
threading and psutil load inside the functions that use them. Paths are plain strings for the
same reason.
"""

from __future__ import annotations

import os
import sys
import time

from omp.core.layout import global_home

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from typing import Any, Callable, Iterator, Mapping

    import psutil

IS_WINDOWS = os.name == "nt"
REVIEWER_ENV_FILE_VAR = "OMP_REVIEWER_ENV_FILE"
START_TIME_TOLERANCE = 1.0  # psutil start times are derived from clock ticks; allow jitter
TERMINATE_GRACE_SECONDS = 3.0
_STDERR_KEEP = 64 * 1024

# Windows creation flags (subprocess exposes them only on Windows).
_DETACHED_PROCESS = 0x00000008
_CREATE_NEW_PROCESS_GROUP = 0x00000200
_CREATE_NO_WINDOW = 0x08000000


# ---------------------------------------------------------------------------------------------
# the safe start of omp's own Python


def reviewer_env_file() -> str:
    """`$OMP_REVIEWER_ENV_FILE`, else `G/reviewer.env`."""
    explicit = os.environ.get(REVIEWER_ENV_FILE_VAR)
    return os.path.expanduser(explicit) if explicit else os.path.join(global_home(), "reviewer.env")


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
# omp's own starts are reviews (omp.detach): its entry runs them without click, and hands any
# other command line to the `omp` command.
_OMP_MAIN = "from omp.review.__main__ import run; run()"


def neutral_cwd() -> str:
    """Where omp's own processes run: the filesystem root (it always exists, no project is
    there, and other users cannot put files in it)."""
    return os.path.abspath(os.sep)


def review_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of omp's own detached Python: ours, plus the user's reviewer.env file."""
    env = dict(os.environ if base is None else base)
    env.update(read_env_file(reviewer_env_file()))
    # The review is not itself a reviewer session (its reviewer process sets OMP_REVIEWER).
    for name in _DROPPED_VARS:
        env.pop(name, None)
    env["PWD"] = neutral_cwd()
    return env


def omp_argv(*args: str) -> list[str]:
    """`omp ARGS` with the very interpreter running now (the one that registered the hooks),
    its working folder off `sys.path` (see the module docstring). A review's command line runs
    without loading click (`omp.review.__main__`); any other is the `omp` command's."""
    return [sys.executable, "-c", _SAFE_START + _OMP_MAIN, *args]


def start_omp(args: list[str], log_path: str, *, delay: float = 0.0) -> Detached:
    """Detach `omp ARGS`: the one place omp starts its own Python (neutral folder, project off
    sys.path, scrubbed environment). ARGS must name the project with an absolute `--root`."""
    cwd = neutral_cwd()
    label = f"omp {' '.join(args)} (python {sys.executable}, in {cwd}, project off sys.path)"
    return spawn_detached(omp_argv(*args), log_path, cwd=cwd, env=review_environment(), delay=delay, label=label)


# ---------------------------------------------------------------------------------------------
# a detached start


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


def _own_group_flags(*, detached: bool) -> dict[str, Any]:
    """Popen arguments that put the child in a process group of its own: a new session (POSIX),
    a new windowless process group, without a console when `detached` (Windows)."""
    if IS_WINDOWS:
        flags = _CREATE_NEW_PROCESS_GROUP | _CREATE_NO_WINDOW  # output goes to a log or a pipe
        if detached:
            flags |= _DETACHED_PROCESS
        return {"creationflags": flags}
    return {"start_new_session": True}


def _popen_detached(argv: list[str], log_path: str, cwd: str | os.PathLike[str] | None, env: dict[str, str]) -> int:
    import subprocess  # not at the top: the hook path imports this module (see its docstring)

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
            **_own_group_flags(detached=True),
        )
    return proc.pid


# ---------------------------------------------------------------------------------------------
# a captured run


class Finished:  # a plain class: dataclasses is not loaded on the hook path, which imports this module
    """How a captured run ended.

    `timed_out`: the deadline passed before the child exited or its output was complete.
    `stopped`: omp ended the child after its output was complete (it lingered, or the deadline
    passed after the answer arrived); what it wrote is all there. `overflowed`: it wrote more than
    the caller would read; omp stopped reading and ended it.
    """

    __slots__ = ("stdout", "stderr", "returncode", "timed_out", "stopped", "duration_ms", "overflowed")

    def __init__(self, stdout: str, stderr: str, returncode: int | None, timed_out: bool, stopped: bool,
                 duration_ms: int, overflowed: bool = False) -> None:
        self.stdout = stdout
        self.stderr = stderr
        self.returncode = returncode
        self.timed_out = timed_out
        self.stopped = stopped
        self.duration_ms = duration_ms
        self.overflowed = overflowed  # stdout passed max_stdout: reading stopped, the child was ended

    def __repr__(self) -> str:
        return (f"Finished(returncode={self.returncode}, timed_out={self.timed_out}, stopped={self.stopped}, "
                f"stdout={len(self.stdout)} chars)")


def _die_with_parent_hook() -> Callable[[], None] | None:
    """Linux only: a pre-exec hook so that, if omp itself is killed mid-call, the child goes too
    instead of running on as an orphan whose output nobody reads.

    Everything is resolved here, in the parent: the hook that runs in the child between fork and
    exec must not import anything (another thread could hold the import lock at fork time).
    """
    if not sys.platform.startswith("linux"):
        return None
    import signal  # light at import: see the module docstring

    try:
        import ctypes  # Linux's prctl, for this one call

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    sigkill = int(signal.SIGKILL)

    def hook() -> None:  # pragma: no cover - runs in the child
        prctl(1, sigkill)  # PR_SET_PDEATHSIG

    return hook


class OutputReadError(Exception):
    """Reading a child's output failed (a reader thread raised, or the `complete` check did).
    The child is ended first; `__cause__` holds the original exception."""


class _Pump:
    """Threads that feed stdin and collect stdout/stderr while the child runs, so a large input
    cannot deadlock against a child that writes before it reads.

    A thread never dies silently: whatever it raises is kept in `error` and `changed` is set, so
    the caller's loop sees it at once and re-raises it (a reader that died used to leave the
    caller waiting for the whole timeout). stdout is kept up to `max_stdout` bytes; past that
    the reader stops and sets `overflowed`, and the caller ends the child.
    """

    def __init__(self, proc: subprocess.Popen[bytes], stdin: bytes | None, max_stdout: int | None) -> None:
        import threading  # light at import: see the module docstring

        self.proc = proc
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.max_stdout = max_stdout
        self.overflowed = False
        self.error: BaseException | None = None
        self.changed = threading.Event()
        self.lock = threading.Lock()  # stdout is copied by the caller while the reader appends
        self.threads = [threading.Thread(target=self._guarded, args=(self._read_stdout,), daemon=True),
                        threading.Thread(target=self._guarded, args=(self._read_stderr,), daemon=True)]
        if stdin is not None:
            data: bytes = stdin
            self.threads.insert(0, threading.Thread(target=self._guarded, args=(lambda: self._feed(data),),
                                                    daemon=True))
        for thread in self.threads:
            thread.start()

    def _guarded(self, work: Callable[[], None]) -> None:
        try:
            work()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, never lost
            if self.error is None:
                self.error = exc
        finally:
            self.changed.set()

    def _feed(self, data: bytes) -> None:
        stream = self.proc.stdin
        assert stream is not None
        try:
            stream.write(data)
        except (BrokenPipeError, OSError):
            pass  # the child exited or closed stdin early; its exit status tells the rest
        finally:
            try:
                stream.close()
            except OSError:
                pass

    @staticmethod
    def _chunks(stream: object) -> Iterator[bytes]:
        """What a pipe delivers, as it arrives, until it closes."""
        fd = stream.fileno()  # type: ignore[attr-defined]
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            yield chunk

    def _read_stdout(self) -> None:
        for chunk in self._chunks(self.proc.stdout):
            with self.lock:
                self.stdout += chunk
                if self.max_stdout is not None and len(self.stdout) > self.max_stdout:
                    del self.stdout[self.max_stdout:]
                    self.overflowed = True
            self.changed.set()
            if self.overflowed:
                return  # read no more: the caller ends the child

    def _read_stderr(self) -> None:
        for chunk in self._chunks(self.proc.stderr):
            self.stderr += chunk
            if len(self.stderr) > 2 * _STDERR_KEEP:
                del self.stderr[:-_STDERR_KEEP]

    def stdout_text(self) -> str:
        with self.lock:
            data = bytes(self.stdout)
        return data.decode("utf-8", errors="replace")

    def check(self) -> None:
        """Raise what a thread raised (the child is ended by the caller)."""
        if self.error is not None:
            raise OutputReadError(f"reading the output failed: {type(self.error).__name__}: {self.error}") from self.error

    def join(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        for thread in self.threads:
            thread.join(max(0.0, deadline - time.monotonic()))


class _Watch:
    """When to ask `complete(stdout)` again: after new output, and never more than a quarter of
    the time (a check of a large, hostile output can take a while; it must not starve reading)."""

    def __init__(self, complete: Callable[[str], bool] | None) -> None:
        self.complete = complete
        self.complete_at: float | None = None
        self._seen = 0
        self._next = 0.0

    def poll(self, pump: _Pump) -> None:
        if self.complete is None or self.complete_at is not None:
            return
        size = len(pump.stdout)
        now = time.monotonic()
        if size == self._seen or now < self._next:
            return
        self._seen = size
        try:
            done = self.complete(pump.stdout_text())
        except Exception as exc:
            raise OutputReadError(f"checking the output failed: {type(exc).__name__}: {exc}") from exc
        finished = time.monotonic()
        self._next = finished + 3 * (finished - now)
        if done:
            self.complete_at = finished


def run_captured(
    argv: list[str],
    *,
    stdin: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float,
    own_group: bool = False,
    die_with_parent: bool = False,
    complete: Callable[[str], bool] | None = None,
    linger: float = 0.0,
    grace: float = TERMINATE_GRACE_SECONDS,
    on_start: Callable[[int], object] | None = None,
    max_stdout: int | None = None,
) -> Finished:
    """Run `argv` with `stdin` (None: /dev/null), its output captured; on timeout or Ctrl-C its
    whole tree is ended (terminate, then kill after `grace`).

    `complete(stdout)`: once it is true the child gets `linger` seconds to exit by itself before
    it is stopped (a model CLI often prints its answer and then lingers). `own_group`: the child
    leads a process group of its own, which also lets whatever it leaves behind be ended after it
    exits. `die_with_parent` (Linux): the child is killed if omp dies first. `on_start(pid)` runs
    once the process exists. `max_stdout`: past that many bytes of stdout, reading stops and the
    child's tree is ended (`Finished.overflowed`; stdout holds the first `max_stdout` bytes).
    Raises OSError (FileNotFoundError, PermissionError, …) when `argv` cannot be started, and
    OutputReadError (the child ended first) when reading its output or `complete` failed: the
    caller words both for the user.
    """
    import subprocess  # not at the top: the hook path imports this module (see its docstring)

    started = time.monotonic()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=os.fspath(cwd) if cwd is not None else None,
        env=None if env is None else dict(env),
        close_fds=True,
        preexec_fn=_die_with_parent_hook() if die_with_parent else None,
        **(_own_group_flags(detached=False) if own_group else {}),
    )
    try:
        if on_start is not None:
            on_start(proc.pid)
        pump = _Pump(proc, None if stdin is None else stdin.encode("utf-8"), max_stdout)
        watch = _Watch(complete)
        timed_out = stopped = False
        deadline = started + timeout
        while proc.poll() is None:
            pump.check()
            if pump.overflowed:
                break
            watch.poll(pump)
            now = time.monotonic()
            if watch.complete_at is not None and now >= watch.complete_at + linger:
                stopped = True
                break
            if now >= deadline:
                timed_out = watch.complete_at is None
                stopped = not timed_out
                break
            pump.changed.wait(0.05)
            pump.changed.clear()
    except BaseException:  # Ctrl-C, a failing on_start or reader: nothing of the child runs on
        _end_child(proc, grace, own_group)
        raise
    if proc.poll() is None:
        _end_child(proc, grace, own_group)
    elif own_group:
        # The leader is gone; children it left in its group would hold stdout open.
        _kill_group(proc.pid)
    pump.join(timeout=5.0)
    pump.check()
    return Finished(
        stdout=pump.stdout_text(),
        stderr=bytes(pump.stderr).decode("utf-8", errors="replace"),
        returncode=proc.returncode,
        timed_out=timed_out,
        stopped=stopped,
        duration_ms=int((time.monotonic() - started) * 1000),
        overflowed=pump.overflowed,
    )


# ---------------------------------------------------------------------------------------------
# ending a tree


def _signal_group(pgid: int, kill: bool) -> None:
    """POSIX: SIGTERM (or SIGKILL) a whole process group. No-op where there are none."""
    if IS_WINDOWS or not hasattr(os, "killpg"):
        return
    import signal  # light at import: see the module docstring

    try:
        os.killpg(pgid, signal.SIGKILL if kill else signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_group(pgid: int) -> None:
    _signal_group(pgid, kill=True)


def _descendants(pid: int) -> list[psutil.Process]:
    import psutil  # a measured heavy import (~10 ms): only when a tree is ended

    try:
        return psutil.Process(pid).children(recursive=True)
    except (psutil.Error, OSError):
        return []


def _outside_group(procs: list[psutil.Process], pgid: int) -> list[psutil.Process]:
    """Those of `procs` a signal to group `pgid` does not reach (all of them where there are no
    groups to signal)."""
    if IS_WINDOWS or not hasattr(os, "getpgid"):
        return procs
    outside = []
    for proc in procs:
        try:
            if os.getpgid(proc.pid) != pgid:
                outside.append(proc)
        except OSError:
            continue  # gone already
    return outside


def _signal_all(procs: list[psutil.Process], kill: bool) -> None:
    import psutil  # heavy (17 ms): only where a tree is looked at or ended

    for proc in procs:
        try:
            proc.kill() if kill else proc.terminate()
        except (psutil.Error, OSError):
            pass  # gone meanwhile, or a pid reused since (psutil checks the start time)


def _end_child(proc: subprocess.Popen[bytes], grace: float, own_group: bool) -> None:
    """Terminate our child `proc` and its whole tree, then kill what is left after `grace`.

    The tree is what psutil finds below `proc` while it still runs, and with `own_group` (POSIX)
    its process group too, which also reaches members whose parent already went. Each process
    gets one terminate. `proc` itself is waited for through Popen (psutil would reap it and lose
    its exit code).
    """
    import subprocess  # not at the top: the hook path imports this module (see its docstring)

    tree = _descendants(proc.pid)
    if own_group and not IS_WINDOWS:
        _signal_group(proc.pid, kill=False)  # the leader and every member still in its group
        _signal_all(_outside_group(tree, proc.pid), kill=False)
    else:
        _signal_all(tree, kill=False)
        try:
            proc.terminate()
        except OSError:
            pass
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass
    if own_group:
        _kill_group(proc.pid)
    _signal_all(tree, kill=True)
    if proc.poll() is None:
        try:
            proc.kill()
        except OSError:
            pass
    proc.wait()


def start_time(pid: int) -> float | None:
    """When process `pid` started (epoch seconds), or None if it cannot be told."""
    import psutil  # not at the top: this module starts the detached review from the hooks

    try:
        return psutil.Process(pid).create_time()
    except (psutil.Error, OSError):
        return None


def command_line(pid: int) -> list[str] | None:
    """Process `pid`'s argv, or None when it is gone or cannot be read (psutil)."""
    import psutil  # heavy (17 ms): only where a claim's owner is looked at

    try:
        return list(psutil.Process(pid).cmdline())
    except (psutil.Error, OSError):
        return None


def is_alive(pid: int, started_at: float | None) -> bool:
    """Is the process that started at `started_at` as `pid` still running (not a zombie, not a
    reused pid)? One that exists but cannot be inspected counts as alive: nothing is taken from it."""
    import psutil  # heavy (17 ms): only where a tree is looked at or ended

    if pid <= 0:
        return False
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return False  # killed, only waiting to be reaped by its parent
        created = proc.create_time()
    except psutil.NoSuchProcess:
        return False
    except (psutil.Error, OSError):
        return True  # exists but cannot be inspected: do not steal from it
    if started_at is None:
        return True
    return abs(created - started_at) <= START_TIME_TOLERANCE


def end_run_leftovers(leader_pid: int, leader_started_at: float, *, marker: tuple[str, str]) -> int:
    """Kill what is left of a run whose first process was `leader_pid`, started at
    `leader_started_at`, when nobody is there to end it (its starter was killed). Returns how many died.

    The run led a process group of its own (POSIX: its pid is the group id). A process is killed
    only when it provably belongs to that run: the leader by its start time; a member left behind
    (the leader already gone) by carrying `marker` (NAME, VALUE) in its environment (inherited by
    every child of the run) and by having started after the leader. A pid reused by an unrelated
    process therefore is never hit. POSIX looks only inside the leader's group; Windows, which has
    no such group to ask about, relies on the start time and the marker alone.
    """
    import psutil  # heavy (17 ms): only where a tree is looked at or ended

    if not leader_pid or (not IS_WINDOWS and leader_pid == os.getpgrp()):
        return 0
    name, value = marker
    victims = []
    for proc in psutil.process_iter():
        try:
            if not IS_WINDOWS and os.getpgid(proc.pid) != leader_pid:
                continue
            created = proc.create_time()
            if proc.pid == leader_pid:
                if abs(created - leader_started_at) > START_TIME_TOLERANCE:
                    return 0  # the pid now belongs to a different process: not ours
            elif created + START_TIME_TOLERANCE < leader_started_at or proc.environ().get(name) != value:
                continue
            victims.append(proc)
        except (psutil.Error, OSError):
            continue  # gone meanwhile, or not ours to inspect: never killed blind
    _signal_all(victims, kill=True)
    psutil.wait_procs(victims, timeout=2)
    return len(victims)


# ---------------------------------------------------------------------------------------------
# a foreground run


def _forward_signals(proc: subprocess.Popen[bytes]) -> dict[int, object]:
    """Pass SIGTERM/SIGHUP (and a SIGINT the terminal did not already deliver) to `proc`."""
    import signal  # light at import: see the module docstring

    def terminal_already_sent_it() -> bool:
        # Ctrl-C in a terminal reaches the whole foreground process group, the child included;
        # sending it again would count as a second Ctrl-C (which exits an interactive session).
        # Windows has no process groups to compare: its console delivers Ctrl-C to all attached.
        if not hasattr(os, "tcgetpgrp"):
            return IS_WINDOWS
        try:
            return os.tcgetpgrp(0) == os.getpgrp()
        except OSError:
            return False

    def forward(signum: int, _frame: object) -> None:
        if signum == signal.SIGINT and terminal_already_sent_it():
            return
        try:
            proc.send_signal(signum)
        except (ProcessLookupError, OSError):
            pass

    previous: dict[int, object] = {}
    wanted = [signal.SIGINT, signal.SIGTERM] + ([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])
    for signum in wanted:
        try:
            previous[signum] = signal.signal(signum, forward)
        except (OSError, ValueError):  # not the main thread, or not supported here
            pass
    return previous


def _restore_signals(previous: dict[int, object]) -> None:
    import signal  # light at import: see the module docstring

    for signum, handler in previous.items():
        try:
            signal.signal(signum, handler)  # type: ignore[arg-type]
        except (OSError, ValueError):
            pass


def run_foreground(argv: list[str], cwd: str | os.PathLike[str] | None = None) -> int:
    """Run `argv` on our stdin/stdout/stderr until it exits; its exit code (128+N when killed by
    signal N). Raises OSError when it cannot be started."""
    import subprocess  # light at import: see the module docstring

    proc = subprocess.Popen(argv, cwd=cwd)
    previous = _forward_signals(proc)
    try:
        while True:
            try:
                code = proc.wait()
                break
            except KeyboardInterrupt:  # Windows, or a handler that could not be installed
                continue
    finally:
        _restore_signals(previous)
    return 128 - code if code < 0 else code
