"""Shared fixtures: an isolated home for every test, a guard against touching the real one, and
a reaper for the processes a test leaves running (the suite runs in parallel: `-n` in
pyproject.toml's addopts)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import reaper  # noqa: E402
from homeguard import HomeGuard  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
REAL_HOME = Path(os.environ.get("HOME") or os.path.expanduser("~")).resolve()

_GUARD = HomeGuard(
    REAL_HOME,
    allowed=[
        REPO,
        Path(sys.prefix).resolve(),
        Path(tempfile.gettempdir()).resolve(),
    ],
)
_GUARD.install()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """`@pytest.mark.posix` tests are skipped on Windows (the CI's Windows job runs the rest)."""
    if os.name == "nt" and item.get_closest_marker("posix") is not None:
        pytest.skip("needs POSIX")


_RUN_STARTED = pytest.StashKey[float]()
_PYCACHE = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    """In the controller (xdist workers inherit its environment): one token for the whole run,
    and one bytecode cache for the hundreds of `python -m omp` subprocesses the tests start.

    With PYTHONDONTWRITEBYTECODE set (as it is on some machines), every subprocess compiled
    all of omp again: about 40% of its start-up. A user's install has its bytecode; the tests'
    subprocesses now share one cache in a temporary folder, removed after the run.
    """
    if reaper.RUN_VAR in os.environ:
        return
    os.environ[reaper.RUN_VAR] = uuid.uuid4().hex
    config.stash[_RUN_STARTED] = time.time()
    if not os.environ.get("PYTHONPYCACHEPREFIX"):
        prefix = tempfile.mkdtemp(prefix="omp-tests-pycache-")
        config.stash[_PYCACHE] = prefix
        os.environ["PYTHONPYCACHEPREFIX"] = prefix
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


@pytest.hookimpl(wrapper=True)
def pytest_sessionfinish(session: pytest.Session) -> Iterator[None]:
    """After the whole run (and after xdist's workers have gone): nothing it started still runs."""
    result = yield
    started = session.config.stash.get(_RUN_STARTED, None)
    if started is None:  # an xdist worker: the controller checks once, for everyone
        return result
    leftovers = reaper.find(env_var=reaper.RUN_VAR, token=os.environ[reaper.RUN_VAR], since=started - 1)
    if leftovers:
        stubborn = reaper.end([p.pid for p in leftovers])
        listed = "\n  ".join(str(p) for p in leftovers)
        sys.stderr.write(f"\nomp tests: {len(leftovers)} process(es) started by this run were still running "
                         f"after it ended ({len(stubborn)} had to be ended):\n  {listed}\n")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    pycache = session.config.stash.get(_PYCACHE, None)
    if pycache is not None:
        shutil.rmtree(pycache, ignore_errors=True)
    return result


@pytest.fixture(autouse=True)
def no_leftover_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every process a test starts ends with it: detached reviews included (omp/detach.py).

    After the test (and its other fixtures) a process it started that still runs gets
    `reaper.GRACE_SECONDS` to end, is then ended with its tree, and fails the test.
    """
    token = uuid.uuid4().hex
    monkeypatch.setenv(reaper.TEST_VAR, token)
    started = time.time()
    yield
    leftovers = reaper.find(env_var=reaper.TEST_VAR, token=token, folder=tmp_path, since=started - 1,
                            extra_pids=reaper.run_log_pids(tmp_path))
    if not leftovers:
        return
    stubborn = set(reaper.end([p.pid for p in leftovers]))
    stuck = [p for p in leftovers if p.pid in stubborn]
    if stuck:
        listed = "\n  ".join(str(p) for p in stuck)
        pytest.fail(f"the test left {len(stuck)} process(es) running (now ended):\n  {listed}", pytrace=False)


@pytest.fixture
def ends_detached_runs(tmp_path: Path) -> Iterator[None]:
    """For tests that start omp's detached reviews (a sessionEnd hook, the wrapper) and do not
    wait for their outcome: after the test, the runs its `R/.omp/state/runs/` logs record are
    ended at once, with their process trees. Anything else left running still fails the test."""
    started = time.time()
    yield
    runs = reaper.run_log_pids(tmp_path)
    if runs:
        mine = reaper.find(env_var=reaper.TEST_VAR, token=os.environ.get(reaper.TEST_VAR, "-"), since=started - 1,
                           extra_pids=runs)
        reaper.end([p.pid for p in mine if p.pid in runs], grace=0)


@pytest.fixture(autouse=True)
def isolated_home(no_leftover_processes: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """HOME, OMP_HOME and COPILOT_HOME inside tmp_path; OMP_* settings cleared."""
    home = tmp_path / "home"
    home.mkdir()
    for name in list(os.environ):
        if name.startswith("OMP_") or name.startswith("COPILOT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OMP_HOME", str(home / ".omp"))
    monkeypatch.setenv("COPILOT_HOME", str(home / ".copilot"))
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken-cache"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "omp tests")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "tests@omp.invalid")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "omp tests")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "tests@omp.invalid")
    _GUARD.violations.clear()
    _GUARD.active = True
    yield home
    _GUARD.active = False
    if _GUARD.violations:
        found = "\n  ".join(_GUARD.violations[:10])
        pytest.fail(f"test touched the real home directory {REAL_HOME}:\n  {found}")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A real git project folder."""
    import subprocess

    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root
