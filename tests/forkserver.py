"""`python -m omp ARGS` for the tests, forked from a warm omp instead of started cold.

The suite runs the real `omp` program some two thousand times (helpers.run_omp). Each fresh
interpreter spent most of its CPU starting Python and importing click, msgspec and omp before
doing the test's work, and that start-up was most of the suite's time. So each xdist worker keeps
one server process that has imported omp once and forks a child per call. The child is still a
real, separate process with the call's own argv, environment, working folder and pipes for
stdin, stdout and stderr; it runs `omp/__main__.py` as `python -m omp` does (runpy, `sys.path[0]`
the working folder) and exits with the status the program gives. What it does not do is start
an interpreter, import its modules and compile its regular expressions: those come warm from
the server (so a child reads and writes no regex cache in its home). And every child of a
server shares its string-hash seed; `random` is reseeded at each fork, as Python does.

So a call is served by a fresh interpreter instead (as before this module), when:
- `OMP_TEST_REAL_START=1` is set (every call of the run), or the platform has no fork (Windows);
- the call's environment differs from the server's in anything Python reads while it starts
  (`PYTHON*`, the locale variables): those would have shaped the interpreter the server already is;
- the server cannot be reached (it is started again on the next call).

Tests that are about start-up itself (what a fresh process imports, a hostile module in the
working folder, the hook scripts, detaching) start their own processes and never come here.

Each call: a connection to the server's Unix socket carries the request and the three pipe ends
(SCM_RIGHTS). The server forks a supervisor, which forks the program, reports its pid, waits for
it and reports its exit status. The supervisor and the program never return to the server loop.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

REAL_START_VAR = "OMP_TEST_REAL_START"
# The environment a fresh interpreter reads while it starts: a call that sets these differently
# from the server gets a fresh interpreter.
_START_VARS_PREFIXES = ("PYTHON",)
_START_VARS = ("LANG", "LC_ALL", "LC_CTYPE")
# Stripped from the server's own environment: the reaper finds a test's processes by these
# (tests/reaper.py), and the server outlives every test of its worker.
_TEST_MARKERS = ("PYTEST_OMP_TEST", "PYTEST_OMP_RUN", "PYTEST_CURRENT_TEST", "PYTEST_XDIST_WORKER")
_READY = b"ready"


class Unavailable(Exception):
    """The call cannot be served by a fork: run it as a fresh interpreter."""


def _start_vars(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(_START_VARS_PREFIXES) or k in _START_VARS}


def _send(sock: socket.socket, payload: bytes, fds: Sequence[int] = ()) -> None:
    data = struct.pack("!I", len(payload)) + payload
    if fds:
        socket.send_fds(sock, [data], list(fds))
    else:
        sock.sendall(data)


def _recv_exact(sock: socket.socket, size: int) -> bytes:
    chunks = []
    while size:
        chunk = sock.recv(size)
        if not chunk:
            raise EOFError("the fork server closed the connection")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _recv(sock: socket.socket, with_fds: int = 0) -> tuple[bytes, list[int]]:
    fds: list[int] = []
    if with_fds:
        head, fds, _, _ = socket.recv_fds(sock, 4, with_fds)
        if len(head) < 4:
            head += _recv_exact(sock, 4 - len(head))
    else:
        head = _recv_exact(sock, 4)
    (size,) = struct.unpack("!I", head)
    return _recv_exact(sock, size), fds


# ---------------------------------------------------------------------------------------------
# The client side (an xdist worker)


class Client:
    """One worker's server, started on first use."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.address = ""
        self.start_vars: dict[str, str] = {}

    def _ensure(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        folder = os.environ.get("PYTEST_OMP_RUN_DIR") or os.environ.get("TMPDIR") or "/tmp"
        self.address = os.path.join(folder, f"forkserver-{os.getpid()}-{time.monotonic_ns()}.sock")
        env = {k: v for k, v in os.environ.items() if k not in _TEST_MARKERS}
        self.start_vars = _start_vars(env)
        self.proc = subprocess.Popen([sys.executable, __file__, self.address], env=env, cwd=str(Path(__file__).parent),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != _READY:
            self.proc.kill()
            self.proc.wait()
            self.proc = None
            raise Unavailable("the fork server did not start")

    def run(self, args: Sequence[str], cwd: str | None, env: Mapping[str, str], stdin: bytes | None,
            timeout: float) -> tuple[int, bytes, bytes]:
        """(returncode, stdout, stderr) of `python -m omp ARGS`; subprocess.TimeoutExpired after
        `timeout` seconds (the program is killed, as subprocess.run kills it)."""
        if not hasattr(os, "fork") or os.environ.get(REAL_START_VAR):
            raise Unavailable("fresh interpreters asked for")
        self._ensure()
        if _start_vars(env) != self.start_vars:
            raise Unavailable("the call sets what Python reads at start-up")
        request = json.dumps({"argv": list(args), "cwd": os.path.abspath(cwd or os.getcwd()), "env": dict(env),
                              "stdin": stdin is not None}).encode()
        pipes = [os.pipe(), os.pipe(), os.pipe()]  # stdin, stdout, stderr as (read, write)
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        ours = [pipes[0][1], pipes[1][0], pipes[2][0]]
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            try:
                conn.connect(self.address)
                _send(conn, request, theirs)
            except OSError as exc:
                raise Unavailable(f"the fork server is gone: {exc}") from exc
            finally:
                for fd in theirs:
                    os.close(fd)
            pid = int(_recv(conn)[0])
            return self._collect(conn, pid, ours, stdin, timeout)
        finally:
            conn.close()
            for fd in ours:
                try:
                    os.close(fd)
                except OSError:
                    pass

    @staticmethod
    def _collect(conn: socket.socket, pid: int, fds: list[int], stdin: bytes | None,
                 timeout: float) -> tuple[int, bytes, bytes]:
        """Feed stdin, read stdout and stderr to their ends, then read the exit status."""
        import selectors

        deadline = time.monotonic() + timeout
        stdin_fd, out_fd, err_fd = fds
        pending = memoryview(stdin or b"")
        selector = selectors.DefaultSelector()
        if pending:
            os.set_blocking(stdin_fd, False)
            selector.register(stdin_fd, selectors.EVENT_WRITE)
        else:
            os.close(stdin_fd)
            fds[0] = -1
        output = {out_fd: bytearray(), err_fd: bytearray()}
        for fd in (out_fd, err_fd):
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                _kill(pid)
                raise subprocess.TimeoutExpired(["python", "-m", "omp"], timeout)
            for key, _ in selector.select(left):
                fd = key.fd
                if fd == stdin_fd:
                    try:
                        written = os.write(fd, pending[:65536])
                    except BrokenPipeError:
                        written = len(pending)
                    pending = pending[written:]
                    if not pending:
                        selector.unregister(fd)
                        os.close(fd)
                        fds[0] = -1
                    continue
                chunk = os.read(fd, 65536)
                if chunk:
                    output[fd] += chunk
                else:
                    selector.unregister(fd)
        conn.settimeout(max(deadline - time.monotonic(), 0.1))
        try:
            status = int(_recv(conn)[0])
        except (socket.timeout, EOFError):
            _kill(pid)
            raise subprocess.TimeoutExpired(["python", "-m", "omp"], timeout) from None
        return status, bytes(output[out_fd]), bytes(output[err_fd])

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.address:
            try:
                os.unlink(self.address)
            except OSError:
                pass


def _kill(pid: int) -> None:
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


# ---------------------------------------------------------------------------------------------
# The server side


def _warm() -> None:
    """Import what `python -m omp` imports for the commands the tests run, and compile omp's
    regular expressions, before any fork."""
    import gc
    import importlib
    import pkgutil

    import omp

    for module in pkgutil.walk_packages(omp.__path__, "omp."):
        if module.name.endswith("__main__"):
            continue
        importlib.import_module(module.name)
    # Compiled once in the server, so the forked children share them (each would compile the
    # patterns its texts reach, omp.lazyre).
    from omp import lazyre

    for found in gc.get_objects():
        if isinstance(found, lazyre.LazyPattern):
            found.compiled  # noqa: B018 - compiles it


def serve(address: str) -> None:
    _warm()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(64)
    sys.stdout.buffer.write(_READY + b"\n")
    sys.stdout.flush()
    os.close(1)
    os.open(os.devnull, os.O_WRONLY)  # fd 1 again, so nothing can write into the worker's pipe
    while True:
        conn, _ = listener.accept()
        try:
            payload, fds = _recv(conn, with_fds=3)
        except (OSError, EOFError):
            conn.close()
            continue
        if os.fork() == 0:  # the supervisor of this call
            listener.close()
            _supervise(conn, json.loads(payload), fds)
        conn.close()
        for fd in fds:
            os.close(fd)
        while True:  # reap supervisors that have finished
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break


def _supervise(conn: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
    code = 1
    try:
        pid = os.fork()
        if pid == 0:
            conn.close()
            _run_omp(request, fds)  # never returns
        for fd in fds:
            os.close(fd)
        _send(conn, str(pid).encode())
        _, status = os.waitpid(pid, 0)
        _send(conn, str(os.waitstatus_to_exitcode(status)).encode())
        code = 0
    finally:
        os._exit(code)


def _run_omp(request: dict[str, Any], fds: list[int]) -> None:
    """In the forked child: become `python -m omp ARGV` in the call's folder and environment."""
    code = 1
    try:
        import signal

        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        if not request["stdin"]:
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)
            os.close(devnull)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        signal.signal(signal.SIGINT, signal.default_int_handler)
        code = _main(request["argv"], request["cwd"])
    finally:
        os._exit(code)


def _main(argv: list[str], cwd: str) -> int:
    """What the interpreter does for `python -m omp ARGV`, from the point where it runs the
    module: fresh standard streams on fds 0–2, sys.path[0] the working folder, SystemExit and
    uncaught exceptions turned into the exit status, then exit handlers and a final flush."""
    import atexit
    import io
    import runpy
    import threading
    import traceback

    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), line_buffering=False)
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)), line_buffering=False)
    sys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)), errors="backslashreplace",
                                  line_buffering=True)
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
    sys.path.insert(0, cwd)  # what `-m` puts first
    sys.argv = ["-m", *argv]
    code = 0
    try:
        runpy.run_module("omp", run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except BaseException:  # noqa: BLE001 - what the interpreter prints for an uncaught exception
        traceback.print_exc()
        code = 1
    try:
        threading._shutdown()  # type: ignore[attr-defined]  # non-daemon threads, as at exit
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, OSError, ValueError):
            code = code or 120
    return code


def _exit_code(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    try:
        sys.stderr.write(f"{value}\n")
    except Exception:  # noqa: BLE001
        pass
    return 1


if __name__ == "__main__":
    sys.path.pop(0)  # this file's folder: omp comes from the install, as for `python -m omp`
    serve(sys.argv[1])
