"""Shared fixtures: an isolated home for every test, a guard against touching the real one, and
a reaper for the processes a test leaves running (the suite runs in parallel: `-n` in
pyproject.toml's addopts)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import reaper  # noqa: E402
from helpers import RUN_DIR_VAR, git_project, isolate  # noqa: E402
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


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every `e2e` test is `slow` too (`-m "not slow"` is the inner loop). The longest tests
    first: the real Copilot CLI's (`e2e`), then those marked `slow`, then the rest, each group in
    its usual order (a stable sort; every xdist worker sorts alike). Started
    last, one of them would run on alone at the end of the run while the other workers idle."""
    for item in items:  # a run of the real Copilot CLI takes seconds: out of the inner loop
        if item.get_closest_marker("e2e") and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)

    def group(item: pytest.Item) -> int:
        return 0 if item.get_closest_marker("e2e") else 1 if item.get_closest_marker("slow") else 2

    items.sort(key=group)


_RUN_STARTED = pytest.StashKey[float]()
_RUN_FOLDER = pytest.StashKey[str]()
RAM_FOLDER = "/dev/shm"


def ram_folder() -> str | None:
    """A RAM-backed folder that takes files and runs programs (Linux's /dev/shm), else None.

    omp fsyncs every atomic write. On this machine's disk the tests spent a large share of their
    wall time waiting for fsync (a profile of one `omp eval` run: 11 of 63 s in fsync), on tmpfs
    it returns at once. No test depends on it: a SIGKILL, unlike a power cut, keeps what the
    killed process wrote, and that is what the crash tests do.
    """
    try:
        fs = os.statvfs(RAM_FOLDER)
    except (OSError, AttributeError):  # no such folder; Windows has no statvfs
        return None
    if fs.f_flag & (os.ST_RDONLY | os.ST_NOEXEC) or not os.access(RAM_FOLDER, os.W_OK | os.X_OK):
        return None
    return RAM_FOLDER


WARMED = ".warmed"


def bytecode_cache(run_folder: str) -> str:
    """The bytecode cache the workers and every subprocess share: `.pytest_cache/omp-pycache` in
    the checkout (ignored by git), kept between runs, else (a read-only checkout) one in the run's
    folder. With a prefix, Python looks for the bytecode of every module under it, the standard
    library's included; an empty prefix in every run made each run compile everything again."""
    cache = REPO / ".pytest_cache" / "omp-pycache"
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:
        return os.path.join(run_folder, "pycache")
    return str(cache)


def warm_bytecode(cache: str) -> None:
    """Fill an empty cache once, before the workers start: they start at the same moment, and
    each compiled omp and rewrote the tests' asserts on its own (about 3.5 s of CPU each on this
    machine; one collection first, then four warm workers, cost half as much). A collection
    only: what fails to collect, the workers report."""
    env = dict(os.environ, PYTHONPYCACHEPREFIX=cache)
    subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider",
                    str(REPO / "tests")], cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=300)
    Path(cache, WARMED).touch()


def pytest_configure(config: pytest.Config) -> None:
    """In the controller (xdist workers inherit its environment and its basetemp): one token for
    the whole run, one bytecode cache, and temporary files in RAM.

    - With PYTHONDONTWRITEBYTECODE set (as it is on some machines), every subprocess compiled
      all of omp again: about 40% of its start-up. A user's install has its bytecode; the
      workers and the tests' subprocesses share one cache (`bytecode_cache`), kept between runs
      and filled before the workers start when it is new (`warm_bytecode`).
    - tmp_path (pytest's temporary root) and TMPDIR (the subprocesses' temporary files: the
      reviewer's working folder, the demo, `omp eval`'s throwaway projects) go to RAM when there
      is a RAM folder (`ram_folder`), unless the run names its own (`--basetemp`,
      PYTEST_DEBUG_TEMPROOT, TMPDIR).

    The run's folder is removed after the run; pytest keeps its usual last three basetemps.
    """
    if reaper.RUN_VAR in os.environ:
        return
    os.environ[reaper.RUN_VAR] = uuid.uuid4().hex
    config.stash[_RUN_STARTED] = time.time()
    ram = ram_folder()
    run_folder = tempfile.mkdtemp(prefix="omp-tests-run-", dir=ram)
    config.stash[_RUN_FOLDER] = run_folder
    os.environ[RUN_DIR_VAR] = run_folder  # helpers.built_once
    if ram and not config.option.basetemp and not os.environ.get("PYTEST_DEBUG_TEMPROOT"):
        os.environ["PYTEST_DEBUG_TEMPROOT"] = ram
    if ram and not os.environ.get("TMPDIR"):
        os.environ["TMPDIR"] = os.path.join(run_folder, "tmp")
        os.mkdir(os.environ["TMPDIR"])
    if not os.environ.get("PYTHONPYCACHEPREFIX"):
        cache = bytecode_cache(run_folder)
        os.environ["PYTHONPYCACHEPREFIX"] = cache
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        if getattr(config.option, "numprocesses", 0) and not os.path.exists(os.path.join(cache, WARMED)):
            warm_bytecode(cache)


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
    run_folder = session.config.stash.get(_RUN_FOLDER, None)
    if run_folder is not None:
        shutil.rmtree(run_folder, ignore_errors=True)
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
    home = isolate(monkeypatch, tmp_path)
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
    return git_project(tmp_path)
