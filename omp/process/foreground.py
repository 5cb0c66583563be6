"""A foreground run (`run_foreground`): the user's Copilot session on our terminal, with
SIGTERM/SIGHUP (and a SIGINT the terminal did not already deliver) passed on.
"""

from __future__ import annotations

import os

from omp.process.tree import IS_WINDOWS

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess


def _forward_signals(proc: subprocess.Popen[bytes]) -> dict[int, object]:
    """Pass SIGTERM/SIGHUP (and a SIGINT the terminal did not already deliver) to `proc`."""
    import signal  # light at import: see omp/process/__init__.py

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
    import signal  # light at import: see omp/process/__init__.py

    for signum, handler in previous.items():
        try:
            signal.signal(signum, handler)  # type: ignore[arg-type]
        except (OSError, ValueError):
            pass


def run_foreground(argv: list[str], cwd: str | os.PathLike[str] | None = None) -> int:
    """Run `argv` on our stdin/stdout/stderr until it exits; its exit code (128+N when killed by
    signal N). Raises OSError when it cannot be started."""
    import subprocess  # light at import: see omp/process/__init__.py

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
