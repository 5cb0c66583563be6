"""omp.process: the one place omp starts, runs and ends processes (STYLE, last section, item 5).

Written to run on POSIX and Windows alike (the CI's Windows job runs this file); the few checks
only POSIX can make (sessions, process groups, signals) say so with the `posix` marker.
Every child here is a small `python -c` script; each test ends what it started.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import psutil
import pytest

from omp import process

OMP = Path(__file__).resolve().parent.parent / "omp"

# Names that only POSIX has, or that end processes by group: omp.process alone may use them.
POSIX_PROCESS_NAMES = {"killpg", "SIGKILL", "setsid", "setpgid", "setpgrp", "getpgid", "getpgrp", "tcgetpgrp"}
POSIX_PROCESS_KEYWORDS = {"setsid", "start_new_session", "process_group", "preexec_fn"}


def _start_time(pid: int) -> float:
    return psutil.Process(pid).create_time()


def _alive(pid: int) -> bool:
    try:
        proc = psutil.Process(pid)
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _wait_until(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.02)


def _cleanup(*pids: int) -> None:
    for pid in pids:
        try:
            psutil.Process(pid).kill()
        except psutil.Error:
            pass


def _read_pids(path: Path, count: int) -> list[int]:
    _wait_until(lambda: path.exists() and len(path.read_text().split()) >= count, 30, f"{count} pid(s) in {path}")
    return [int(word) for word in path.read_text().split()[:count]]


# A child that starts a grandchild (a sleeper), writes both pids, then sleeps itself.
PARENT_OF_SLEEPER = textwrap.dedent(
    """
    import subprocess, sys, time
    grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    import os
    with open(sys.argv[1], "w") as out:
        out.write(f"{os.getpid()} {grandchild.pid}")
    print("started", flush=True)
    time.sleep(60)
    """
)


# ---------------------------------------------------------------------------------------------
# one home for the POSIX-only calls


def _posix_uses(path: Path) -> list[str]:
    """`LINE: NAME` for each POSIX process-control name the module at `path` uses."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in POSIX_PROCESS_NAMES:
            found.append(f"{node.lineno}: {node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module in ("os", "signal"):
            found += [f"{node.lineno}: from {node.module} import {alias.name}"
                      for alias in node.names if alias.name in POSIX_PROCESS_NAMES]
        elif isinstance(node, ast.keyword) and node.arg in POSIX_PROCESS_KEYWORDS:
            found.append(f"{node.lineno}: {node.arg}=")
    return sorted(found, key=lambda use: int(use.split(":")[0]))


PROCESS = OMP / "process"  # the package that starts, runs and ends processes


def test_no_module_but_omp_process_ends_or_groups_processes_with_posix_calls() -> None:
    modules = sorted(OMP.rglob("*.py"))
    assert PROCESS / "__init__.py" in modules
    offenders = [f"{path.relative_to(OMP.parent)}:{use}" for path in modules if PROCESS not in path.parents
                 for use in _posix_uses(path)]
    assert offenders == [], "POSIX process control outside omp/process/:\n  " + "\n  ".join(offenders)
    # The check would see them: omp.process itself uses every kind it looks for.
    assert [use for path in sorted(PROCESS.glob("*.py")) for use in _posix_uses(path)]


def test_only_omp_process_imports_psutil() -> None:
    importers = []
    for path in sorted(OMP.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) else []
            if any(name and name.split(".")[0] == "psutil" for name in names):
                importers.append(path.relative_to(OMP.parent).as_posix())
    assert importers and {path.rsplit("/", 1)[0] for path in importers} == {"omp/process"}


def test_the_check_finds_each_kind_of_use(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import os, signal, subprocess\n"
                      "os.killpg(1, signal.SIGKILL)\n"
                      "from os import setsid\n"
                      "subprocess.Popen(['x'], start_new_session=True)\n")
    assert _posix_uses(sample) == ["2: killpg", "2: SIGKILL", "3: from os import setsid", "4: start_new_session="]


# ---------------------------------------------------------------------------------------------
# a captured run


def test_captured_run_feeds_stdin_and_collects_both_outputs() -> None:
    script = "import sys; data = sys.stdin.read(); print(data.upper()); print('warned', file=sys.stderr); sys.exit(3)"
    prompt = "héllo " * 100_000  # far more than a pipe holds: the feeding thread must not deadlock
    utf8 = {**os.environ, "PYTHONIOENCODING": "utf-8"}  # the child's side; omp always sends UTF-8
    finished = process.run_captured([sys.executable, "-c", script], stdin=prompt, env=utf8, timeout=60)
    assert finished.returncode == 3
    assert finished.stdout.strip() == prompt.upper().strip()
    assert finished.stderr.strip() == "warned"
    assert not finished.timed_out and not finished.stopped


def test_captured_run_without_stdin_reads_an_empty_stream_and_gets_the_environment() -> None:
    script = "import os, sys; print(repr(sys.stdin.read()), os.environ.get('OMP_TEST_VALUE'))"
    finished = process.run_captured([sys.executable, "-c", script], env={**os.environ, "OMP_TEST_VALUE": "v1"},
                                    timeout=60)
    assert finished.stdout.split() == ["''", "v1"]


def test_captured_run_of_a_missing_program_raises_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        process.run_captured([str(tmp_path / "no-such-program")], timeout=5)


@pytest.mark.parametrize("own_group", [True, False], ids=["own-group", "same-group"])
def test_timeout_ends_the_whole_tree_grandchild_included(tmp_path: Path, own_group: bool) -> None:
    pids_file = tmp_path / "pids"
    started: list[int] = []
    finished = process.run_captured(
        [sys.executable, "-c", PARENT_OF_SLEEPER, str(pids_file)], timeout=1.5, grace=0.5, own_group=own_group,
        on_start=started.append,
    )
    child, grandchild = _read_pids(pids_file, 2)
    try:
        assert started == [child]
        assert finished.timed_out and not finished.stopped
        assert "started" in finished.stdout  # what it wrote before the deadline is kept
        _wait_until(lambda: not _alive(grandchild), 10, "the grandchild to be ended with its parent")
        assert not _alive(child)
    finally:
        _cleanup(child, grandchild)


def test_a_complete_output_stops_a_lingering_child_after_the_linger(tmp_path: Path) -> None:
    script = "import time; print('{\"answer\": 1}', flush=True); time.sleep(60)"
    began = time.monotonic()
    finished = process.run_captured([sys.executable, "-c", script], timeout=60, grace=1, own_group=True,
                                    complete=lambda out: out.strip().endswith("}"), linger=0.3)
    assert time.monotonic() - began < 30
    assert finished.stopped and not finished.timed_out
    assert finished.stdout.strip() == '{"answer": 1}'


def test_an_interrupt_ends_the_tree_and_propagates(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"

    def interrupted(pid: int) -> None:
        _read_pids(pids_file, 2)  # the grandchild exists: the tree has two levels
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        process.run_captured([sys.executable, "-c", PARENT_OF_SLEEPER, str(pids_file)], timeout=60, grace=1,
                             own_group=True, on_start=interrupted)
    child, grandchild = _read_pids(pids_file, 2)
    try:
        _wait_until(lambda: not _alive(child) and not _alive(grandchild), 10, "the interrupted tree to end")
    finally:
        _cleanup(child, grandchild)


@pytest.mark.posix
def test_what_an_exited_leader_left_in_its_group_is_ended(tmp_path: Path) -> None:
    # The leader exits at once; its orphan (re-parented, no longer its descendant) still holds
    # stdout open, and only its group says whose it is.
    script = textwrap.dedent(
        """
        import subprocess, sys
        orphan = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        open(sys.argv[1], "w").write(str(orphan.pid))
        """
    )
    pid_file = tmp_path / "orphan"
    began = time.monotonic()
    finished = process.run_captured([sys.executable, "-c", script, str(pid_file)], timeout=60, own_group=True)
    (orphan,) = _read_pids(pid_file, 1)
    try:
        assert finished.returncode == 0 and time.monotonic() - began < 30
        _wait_until(lambda: not _alive(orphan), 10, "the orphan in the leader's group to be ended")
    finally:
        _cleanup(orphan)


# ---------------------------------------------------------------------------------------------
# ending what a killed run left behind, never a reused pid


LEADER_WITH_TWO_CHILDREN = textwrap.dedent(
    """
    import os, subprocess, sys, time
    sleep = [sys.executable, "-c", "import time; time.sleep(60)"]
    marked = subprocess.Popen(sleep)
    unmarked_env = {k: v for k, v in os.environ.items() if k != sys.argv[2]}
    unmarked = subprocess.Popen(sleep, env=unmarked_env)
    with open(sys.argv[1], "w") as out:
        out.write(f"{os.getpid()} {marked.pid} {unmarked.pid}")
    time.sleep(60)
    """
)


def _start_marked_run(tmp_path: Path, name: str, token: str) -> tuple[int, int, int]:
    pids_file = tmp_path / "pids"
    run = process.spawn_detached([sys.executable, "-c", LEADER_WITH_TWO_CHILDREN, str(pids_file), name],
                                 tmp_path / "run.log", env={**os.environ, name: token})
    leader, marked, unmarked = _read_pids(pids_file, 3)
    assert leader == run.pid
    return leader, marked, unmarked


def test_a_killed_runs_leftovers_end_only_when_they_prove_they_are_its_own(tmp_path: Path) -> None:
    name, token = "OMP_TEST_RUN_MARK", uuid.uuid4().hex
    leader, marked, unmarked = _start_marked_run(tmp_path, name, token)
    try:
        ended = process.end_run_leftovers(leader, _start_time(leader), marker=(name, token))
        assert ended == 2  # the leader (its start time matches) and the child carrying the mark
        _wait_until(lambda: not _alive(leader) and not _alive(marked), 10, "the run's own processes to end")
        assert _alive(unmarked)  # no mark: not provably the run's, so never killed blind
    finally:
        _cleanup(leader, marked, unmarked)


def test_a_reused_pid_is_never_killed(tmp_path: Path) -> None:
    name, token = "OMP_TEST_RUN_MARK", uuid.uuid4().hex
    leader, marked, unmarked = _start_marked_run(tmp_path, name, token)
    try:
        # The record says the run started an hour earlier: these pids are someone else's now.
        assert process.end_run_leftovers(leader, _start_time(leader) - 3600, marker=(name, token)) == 0
        assert _alive(leader) and _alive(marked) and _alive(unmarked)
    finally:
        _cleanup(leader, marked, unmarked)


# ---------------------------------------------------------------------------------------------
# telling a process by its start time


def test_a_start_time_is_psutils_and_a_gone_process_has_none() -> None:
    """The claim records start times that is_alive compares with psutil's: they must be equal."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        for pid in (os.getpid(), child.pid):
            assert process.start_time(pid) == psutil.Process(pid).create_time()
    finally:
        child.kill()
        child.wait()
    assert process.start_time(child.pid) is None


# ---------------------------------------------------------------------------------------------
# a detached start


def test_a_detached_child_outlives_its_parent(tmp_path: Path) -> None:
    parent = textwrap.dedent(
        """
        import sys
        from omp.process import spawn_detached
        child = spawn_detached([sys.executable, "-c", "import time; print('up', flush=True); time.sleep(60)"],
                               sys.argv[1])
        print(child.pid, flush=True)
        """
    )
    log = tmp_path / "runs" / "child.log"
    # capture_output waits for the parent's pipes to close: it would hang if the child held one.
    proc = subprocess.run([sys.executable, "-c", parent, str(log)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    pid = int(proc.stdout.strip())
    try:
        _wait_until(lambda: "up" in log.read_text(), 30, "the child's output in its log")
        assert _alive(pid)  # its parent is gone; it runs on
        lines = log.read_text().splitlines()
        assert lines[0].startswith("# ") and f"# pid {pid}" in lines
        if os.name != "nt":
            assert os.getsid(pid) == pid and os.getpgid(pid) == pid  # leads its own session and group
    finally:
        _cleanup(pid)


# ---------------------------------------------------------------------------------------------
# a foreground run


def test_a_foreground_run_returns_the_exit_code(tmp_path: Path) -> None:
    assert process.run_foreground([sys.executable, "-c", "import sys; sys.exit(7)"], cwd=tmp_path) == 7
    with pytest.raises(FileNotFoundError):
        process.run_foreground([str(tmp_path / "no-such-program")])


@pytest.mark.posix
def test_a_foreground_run_killed_by_a_signal_returns_128_plus_it() -> None:
    script = "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"
    assert process.run_foreground([sys.executable, "-c", script]) == 128 + 15
