"""Running the real `omp` program in a subprocess, as a user would; the isolated home and git
project every test stands in."""

from __future__ import annotations

import atexit
import json
import locale
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import pytest
from filelock import FileLock

import forkserver

_FORKS = forkserver.Client()
atexit.register(_FORKS.close)

# The run's own folder (conftest.py makes it, and removes it after the run); every xdist worker
# inherits it.
RUN_DIR_VAR = "PYTEST_OMP_RUN_DIR"


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


def run_omp(
    args: Sequence[str],
    cwd: Path | str | None = None,
    env: dict[str, str] | None = None,
    input: str | None = None,
    timeout: float = 60,
) -> Result:
    """Run `python -m omp ARGS` with the test's environment (isolated home) plus `env`."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    try:  # forked from a warm omp (tests/forkserver.py), else a fresh interpreter
        code, out, err = _FORKS.run(args, None if cwd is None else str(cwd), full_env,
                                    None if input is None else input.encode(locale.getpreferredencoding(False)), timeout)
        return Result(code, _text(out), _text(err))
    except forkserver.Unavailable:
        pass
    proc = subprocess.run(
        [sys.executable, "-m", "omp", *args],
        cwd=cwd,
        env=full_env,
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


def _text(data: bytes) -> str:
    """Bytes as `subprocess.run(text=True)` gives them: the locale's encoding, universal newlines."""
    return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace("\r", "\n")


def python_output(program: str) -> str:
    """The stdout of `python -c PROGRAM` with this interpreter, in a fresh process (what it
    imports is its own to tell); a non-zero exit fails the test (CalledProcessError)."""
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout


def isolate(monkeypatch: pytest.MonkeyPatch, folder: Path) -> Path:
    """HOME, OMP_HOME and COPILOT_HOME inside `folder`; OMP_* and COPILOT_* settings cleared.
    The home is returned. (isolated_home does this for every test; a module-scoped fixture
    that runs omp once for several tests does it with `pytest.MonkeyPatch.context()`.)"""
    home = folder / "home"
    home.mkdir()
    for name in list(os.environ):
        if name.startswith("OMP_") or name.startswith("COPILOT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OMP_HOME", str(home / ".omp"))
    monkeypatch.setenv("COPILOT_HOME", str(home / ".copilot"))
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(folder / "tiktoken-cache"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "omp tests")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "tests@omp.invalid")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "omp tests")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "tests@omp.invalid")
    return home


def git_project(folder: Path) -> Path:
    """A real git project folder, `folder/proj`."""
    root = folder / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def built_once(name: str, build: Callable[[Path], None]) -> Path:
    """`<run folder>/name`, built by `build(folder)` in the first process of the run that asks
    (under a file lock) and reused by every other: expensive read-only setup, made once per
    run whichever workers its tests land on. (`xdist_group` cannot promise that: with pytest
    9.2 and pytest-xdist 3.8 `--dist loadgroup` no longer keeps a group on one worker.)"""
    base = Path(os.environ[RUN_DIR_VAR])
    target = base / name
    with FileLock(str(base / f".{name}.lock")):
        if not target.exists():
            staging = base / f".{name}.partial"
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir()
            build(staging)
            staging.rename(target)
    return target
