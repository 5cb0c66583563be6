"""A captured run (`run_captured`): stdin text fed by a thread, stdout and stderr collected as
they arrive (stdout up to a size bound), a timeout, an early stop once the output is complete,
and on timeout, overflow, a failed reader or Ctrl-C the child's whole tree ended (omp.process.tree).
"""

from __future__ import annotations

import os
import sys
import time

from omp.process.tree import TERMINATE_GRACE_SECONDS, end_child, kill_group, own_group_flags

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from typing import Callable, Iterator, Mapping

_STDERR_KEEP = 64 * 1024


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
    import signal  # light at import: see omp/process/__init__.py

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
        import threading  # light at import: see omp/process/__init__.py

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
    import subprocess  # not at the top: the hook path imports this module (see omp/process/__init__.py)

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
        **(own_group_flags(detached=False) if own_group else {}),
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
        end_child(proc, grace, own_group)
        raise
    if proc.poll() is None:
        end_child(proc, grace, own_group)
    elif own_group:
        # The leader is gone; children it left in its group would hold stdout open.
        kill_group(proc.pid)
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
