"""Helpers for the Copilot-integration tests: running hooks, waiting on detached work, the real CLI."""

from __future__ import annotations

import json
import os
import platform
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Mapping

from helpers import Result

REPO = Path(__file__).resolve().parent.parent
PLUGIN = REPO / "omp" / "plugin"  # the plugin files, once: the marketplace's source and what omp install writes out
E2E_CACHE = Path(os.environ.get("OMP_E2E_CACHE", "/var/tmp/omp-e2e"))
DEFAULT_COPILOT = E2E_CACHE / "copilot-1.0.102" / "node_modules" / ".bin" / "copilot"
XDG_CACHE = E2E_CACHE / "xdg-cache"


def run_hook(
    event: str,
    payload: bytes | str | Mapping[str, Any] | None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 30,
) -> Result:
    """`python -m omp.hooks EVENT` with PAYLOAD on stdin, as Copilot runs it."""
    full = dict(os.environ)
    full.update(env or {})
    if payload is None:
        data = b""
    elif isinstance(payload, bytes):
        data = payload
    elif isinstance(payload, str):
        data = payload.encode("utf-8")
    else:
        data = json.dumps(payload).encode("utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "omp.hooks", event],
        input=data,
        capture_output=True,
        env=full,
        cwd=cwd,
        timeout=timeout,
    )
    return Result(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))


def wait_for(predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.02) -> Any:
    """Poll until `predicate()` is truthy (and return it); fail with `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(interval)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie still answers kill(0); /proc tells them apart on Linux.
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "\nState:\tZ" not in status


def kill_quietly(pid: int) -> None:
    """End a process this test started (by its id), and its session if it leads one."""
    for send in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            send()
        except (ProcessLookupError, PermissionError):
            pass


def run_logs(project: Path, prefix: str = "") -> list[Path]:
    folder = project / ".omp" / "state" / "runs"
    return sorted(folder.glob(f"{prefix}*.log")) if folder.is_dir() else []


def run_pids(project: Path) -> list[int]:
    """Processes the hooks or the wrapper detached in this project (from their run logs)."""
    pids = []
    for log in run_logs(project):
        for line in log.read_text(errors="replace").splitlines()[:3]:
            if line.startswith("# pid "):
                pids.append(int(line.split()[2]))
    return pids


def finish_detached(project: Path, timeout: float = 60) -> None:
    """Wait for this project's detached runs to end; kill any still running after `timeout`."""
    deadline = time.monotonic() + timeout
    for pid in run_pids(project):
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        if pid_alive(pid):
            kill_quietly(pid)


def _find_copilot_loader() -> Path | None:
    explicit = os.environ.get("OMP_E2E_COPILOT_BIN")
    # Resolved, the default too: `.bin/copilot` is a link to `@github/copilot/npm-loader.js`, and
    # `_native_binary` knows the loader by that name (unresolved, every CLI call paid a node start).
    path = (Path(explicit).expanduser() if explicit else DEFAULT_COPILOT).resolve()
    return path if path.exists() and os.access(path, os.X_OK) else None


def _platform_package() -> str:
    """npm's name for this platform's package, as the loader picks it: `copilot-linux-x64`, …"""
    system = {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(sys.platform, sys.platform)
    if system == "linux" and platform.libc_ver()[0] != "glibc":
        system = "linuxmusl"
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine, machine)
    return f"copilot-{system}-{arch}"


def _native_binary(loader: Path | None) -> Path | None:
    """The platform binary the npm loader would run, else the loader itself.

    `node_modules/.bin/copilot` is `@github/copilot/npm-loader.js`, a node script that only
    `spawnSync`s `@github/copilot-<platform>-<arch>/copilot` with the same arguments, environment
    and stdio, and exits with its status (it adds nothing else: read it). Calling the binary
    directly saves a node start-up (about 0.2 s of CPU) on each of the suite's many CLI calls.
    `test_the_npm_loader_runs_the_native_binary` shows the two answer alike.
    """
    if loader is None or loader.name != "npm-loader.js" or loader.parent.name != "copilot":
        return loader
    native = loader.parent.parent / _platform_package() / ("copilot.exe" if os.name == "nt" else "copilot")
    return native if native.is_file() and os.access(native, os.X_OK) else loader


# Read once, at import: every test's isolated_home fixture clears OMP_* variables, so a later
# look-up would lose the override the skip reason tells people to set.
_COPILOT_LOADER = _find_copilot_loader()
_COPILOT_BINARY = _native_binary(_COPILOT_LOADER)


def copilot_binary() -> Path | None:
    """The real Copilot CLI for end-to-end tests: $OMP_E2E_COPILOT_BIN, else the CI cache; when
    that is npm's loader, the native binary it runs (`_native_binary`)."""
    return _COPILOT_BINARY


def copilot_loader() -> Path | None:
    """The CLI as npm installs it (`node_modules/.bin/copilot`, or $OMP_E2E_COPILOT_BIN as given)."""
    return _COPILOT_LOADER


_UNPACKED = False


def _unpack_once(env: dict[str, str]) -> None:
    """The CLI unpacks itself into the shared XDG_CACHE_HOME on its first run. Tests run in
    parallel (xdist workers, and other checkouts on the same machine): one process unpacks,
    under a file lock, before any test of this process starts the CLI; the others wait."""
    global _UNPACKED
    binary = copilot_binary()
    if _UNPACKED or binary is None:
        return
    from filelock import FileLock

    XDG_CACHE.mkdir(parents=True, exist_ok=True)
    with FileLock(str(E2E_CACHE / ".unpack.lock"), timeout=300):
        subprocess.run([str(binary), "--version"], env=dict(os.environ, **env), capture_output=True,
                       stdin=subprocess.DEVNULL, timeout=240)
    _UNPACKED = True


def copilot_env(home: Path, base_url: str | None = None) -> dict[str, str]:
    """Environment for the real CLI: the test's homes, the shared unpack cache, offline model."""
    env = {
        "HOME": str(home),
        "COPILOT_HOME": str(home / ".copilot"),
        "XDG_CACHE_HOME": str(XDG_CACHE),
        "NO_COLOR": "1",
    }
    _unpack_once(env)
    if base_url:
        env.update({"COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_BASE_URL": base_url})
    return env


# ---------------------------------------------------------------------------------------------
# a stand-in Copilot CLI for the wrapper's tests

FAKE_COPILOT = r'''
import json, os, signal, sys, time, uuid
args = sys.argv[1:]
record = os.environ.get("FAKE_COPILOT_RECORD")
def note(**values):
    if record:
        with open(record, "a") as handle:
            handle.write(json.dumps(values) + "\n")
def on_signal(signum, frame):
    note(signal=signum)
    sys.exit(128 + signum)
signal.signal(signal.SIGTERM, on_signal)
signal.signal(signal.SIGINT, on_signal)
if args[:1] == ["--version"] or args[:3] == ["plugin", "list", "--json"]:
    note(argv=args, cwd=os.getcwd(), stdin="", reviewer=os.environ.get("OMP_REVIEWER"))
    print("GitHub Copilot CLI 0.0.0-fake." if args[0] == "--version" else os.environ.get("FAKE_COPILOT_PLUGINS", "[]"))
    sys.exit(0)
stdin = "" if sys.stdin.isatty() else sys.stdin.read()
note(argv=args, cwd=os.getcwd(), stdin=stdin, reviewer=os.environ.get("OMP_REVIEWER"))
sid = None
for flag in ("--session-id", "--resume"):
    if flag in args and args.index(flag) + 1 < len(args):
        sid = args[args.index(flag) + 1]
if "--continue" in args:
    sid = os.environ.get("FAKE_COPILOT_CONTINUE")
prompt = args[args.index("-p") + 1] if "-p" in args else stdin
if sid and "plugin" not in args:
    folder = os.path.join(os.environ["COPILOT_HOME"], "session-state", sid)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "events.jsonl"), "a") as handle:
        for kind, data in (
            ("session.start", {"sessionId": sid, "context": {"cwd": os.getcwd(), "gitRoot": os.getcwd()}}),
            ("user.message", {"content": prompt}),
            ("assistant.message", {"content": "Done.", "toolRequests": []}),
        ):
            handle.write(json.dumps({"type": kind, "data": data, "id": str(uuid.uuid4()),
                                     "timestamp": "2026-11-29T19:06:07.182Z", "parentId": None}) + "\n")
if os.environ.get("FAKE_COPILOT_SLEEP"):
    note(started=True)
    time.sleep(float(os.environ["FAKE_COPILOT_SLEEP"]))
sys.stdout.write("copilot says: " + (prompt or "") + "\n")
sys.stderr.write("copilot stderr line\n")
sys.exit(int(os.environ.get("FAKE_COPILOT_EXIT", "0")))
'''


def fake_copilot(folder: Path) -> Path:
    """An executable stand-in for `copilot`: records its argv, writes a session, echoes."""
    script = folder / "fake_copilot.py"
    script.write_text(FAKE_COPILOT)
    wrapper = folder / "copilot"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "{script}" "$@"\n')  # standard library only
    wrapper.chmod(0o755)
    return wrapper


def records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
