"""Running `omp` for the tests: in-process through its `main(argv)` (click's runner captures the
streams), or as a real program where the process is what a test is about; the isolated home and
git project every test stands in."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import pytest
from click.testing import CliRunner
from filelock import FileLock

from omp import cli, tokens

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
    *,
    subprocess: bool = False,
) -> Result:
    """`omp ARGS` with the test's environment (isolated home) plus `env`, in `cwd`.

    In-process by default: `omp.cli.main(ARGS)` under click's runner, with the environment,
    the working folder and `sys.argv` set for the call and put back after it (so is everything
    omp caches per process). `subprocess=True` runs `python -m omp ARGS` instead, for tests
    whose point is the process: the wrapper's signals and terminal, detaching, start-up.
    `timeout` bounds only a real process."""
    if subprocess:
        return run_omp_process(args, cwd, env, input, timeout)
    return _run_in_process(list(args), cwd, env, input)


def run_omp_process(
    args: Sequence[str],
    cwd: Path | str | None = None,
    env: dict[str, str] | None = None,
    input: str | None = None,
    timeout: float = 60,
) -> Result:
    """`python -m omp ARGS` in a fresh interpreter, as a user's shell starts it."""
    proc = subprocess.run(
        [sys.executable, "-m", "omp", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


def _run_in_process(args: list[str], cwd: Path | str | None, env: dict[str, str] | None,
                    input: str | None) -> Result:
    saved_env, saved_cwd, saved_argv, saved_tempdir = dict(os.environ), os.getcwd(), sys.argv, tempfile.tempdir
    # What a process keeps from the environment it first saw, each call starts without, as a
    # fresh `omp` would: the tokenizer (chosen by OMP_TOKENIZER) and the temporary folder (TMPDIR).
    tokens.reset_counter_cache()
    tempfile.tempdir = None
    try:
        os.environ.update(env or {})
        if cwd is not None:
            os.chdir(cwd)
        sys.argv = ["omp", *args]  # what a crash log names as the command
        with CliRunner().isolation(input=input) as (out, err, _):
            try:
                code = cli.main(args)
            except SystemExit as exc:  # what a command raises past main() ends the program
                code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
            sys.stdout.flush()
            sys.stderr.flush()
            return Result(code, _text(out.getvalue()), _text(err.getvalue()))
    finally:
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        # Whatever the command set (`omp demo` and `omp eval` set their own homes), gone.
        os.environ.clear()
        os.environ.update(saved_env)
        tokens.reset_counter_cache()
        tempfile.tempdir = saved_tempdir


def _text(data: bytes) -> str:
    """Output as `subprocess.run(text=True)` gives it: decoded, universal newlines."""
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


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
