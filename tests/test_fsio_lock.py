"""omp's one lock (`omp.fsio.file_lock`): exclusive across processes, released by the kernel when
its holder is killed, a clear timeout, and never through a symbolic link."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from omp.errors import OmpError
from omp.fsio import file_lock

# Holds the lock at argv[1], says so, and keeps it until killed.
HOLDER = """
import sys, time
from pathlib import Path
from omp.fsio import file_lock
with file_lock(Path(sys.argv[1]), "test"):
    print("held", flush=True)
    time.sleep(60)
"""

# Adds 1 to the number in argv[2], `rounds` times, each read-modify-write under the lock at argv[1].
COUNTER = """
import sys
from pathlib import Path
from omp.fsio import file_lock
lock, counter, rounds = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
for _ in range(rounds):
    with file_lock(lock, "test"):
        value = int(counter.read_text())
        counter.write_text(str(value + 1))
"""


def _holder(lock: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


def test_a_held_lock_times_out_with_the_fix_and_a_killed_holder_frees_it(tmp_path: Path) -> None:
    lock = tmp_path / "state" / ".lock"
    holder = _holder(lock)
    try:
        started = time.monotonic()
        with pytest.raises(OmpError) as refused:
            with file_lock(lock, "project", timeout=0.3):
                pytest.fail("the lock was taken while another process held it")
        assert time.monotonic() - started >= 0.3
        assert "timed out after 0s waiting for the project lock" in refused.value.message
        assert str(lock) in refused.value.message
        assert "another omp process is still writing" in (refused.value.hint or "")
    finally:
        holder.send_signal(signal.SIGKILL if os.name != "nt" else signal.SIGTERM)
        holder.wait()
    # The kernel released the dead holder's lock: no stale lock file to clean up.
    with file_lock(lock, "project", timeout=2):
        pass
    assert lock.is_file()


def test_processes_taking_turns_lose_no_update(tmp_path: Path) -> None:
    lock, counter = tmp_path / ".lock", tmp_path / "counter"
    counter.write_text("0")
    workers = [subprocess.Popen([sys.executable, "-c", COUNTER, str(lock), str(counter), "40"]) for _ in range(6)]
    assert [w.wait(timeout=120) for w in workers] == [0] * 6
    assert counter.read_text() == "240"


def test_a_lock_released_in_this_process_can_be_taken_again(tmp_path: Path) -> None:
    lock = tmp_path / ".lock"
    for _ in range(3):
        with file_lock(lock, "test", timeout=0.2):
            pass
    with pytest.raises(RuntimeError):  # an error inside still releases it
        with file_lock(lock, "test", timeout=0.2):
            raise RuntimeError("boom")
    with file_lock(lock, "test", timeout=0.2):
        pass


@pytest.mark.posix
def test_a_lock_path_that_is_a_symbolic_link_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "bashrc"
    target.write_text("keep me\n")
    dangling = outside / "not-there"
    state = tmp_path / "project" / ".omp"
    state.mkdir(parents=True)
    for link_to in (target, dangling):
        lock = state / ".lock"
        lock.unlink(missing_ok=True)
        lock.symlink_to(link_to)
        with pytest.raises(OSError):
            with file_lock(lock, "project", timeout=0.2):
                pytest.fail("the lock was taken through a symbolic link")
    assert target.read_text() == "keep me\n"
    assert not dangling.exists()  # nothing was created where the link points
