"""How `omp` ends (omp.cli.run): without Python's finalisation, but with everything a normal exit
does that anyone could notice — the exit code, every byte of output, the atexit handlers — and
with a normal exit whenever something still needs one (a profiler, a running thread)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def _run(program: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", program, *args], capture_output=True, text=True, timeout=60)


def test_the_exit_code_and_all_of_the_output_come_through() -> None:
    help_text = subprocess.run([sys.executable, "-m", "omp", "--help"], capture_output=True, text=True)
    assert help_text.returncode == 0 and "memory-review" in help_text.stdout and help_text.stdout.endswith("\n")
    usage = subprocess.run([sys.executable, "-m", "omp", "memory-review", "--bogus"], capture_output=True, text=True)
    assert usage.returncode == 2 and "No such option" in usage.stderr


def test_a_large_output_is_flushed_before_the_process_ends(tmp_path: Path) -> None:
    program = ("import sys, click, omp.cli as c\n"
               "def main(argv=None):\n"
               "    click.echo('x' * 999)\n"
               "    sys.stdout.write(('y' * 1023 + '\\n') * 2048)\n"
               "    return 0\n"
               "c.main = main\n"
               "c.run()\n")
    out = _run(program)
    assert out.returncode == 0, out.stderr
    assert len(out.stdout) == 1000 + 1024 * 2048 and out.stdout.endswith("y\n")


def test_atexit_handlers_still_run(tmp_path: Path) -> None:
    mark = tmp_path / "mark"
    program = ("import atexit, sys, omp.cli as c\n"
               f"atexit.register(lambda: (open({str(mark)!r}, 'w').write('ran'), print('bye')))\n"
               "sys.argv = ['omp', '--version']\n"
               "c.run()\n")
    out = _run(program)
    assert out.returncode == 0 and mark.read_text() == "ran"
    assert out.stdout.splitlines()[-1] == "bye"


def test_a_profiler_still_gets_to_write_its_results(tmp_path: Path) -> None:
    stats = tmp_path / "profile.out"
    out = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(stats), "-m", "omp", "--version"],
                         capture_output=True, text=True)
    assert out.returncode == 0 and stats.stat().st_size > 0


def test_a_running_thread_is_waited_for(tmp_path: Path) -> None:
    mark = tmp_path / "mark"
    program = ("import sys, threading, time, omp.cli as c\n"
               "def late():\n"
               "    time.sleep(0.3)\n"
               f"    open({str(mark)!r}, 'w').write('done')\n"
               "threading.Thread(target=late).start()\n"
               "sys.argv = ['omp', '--version']\n"
               "c.run()\n")
    assert _run(program).returncode == 0
    assert mark.read_text() == "done"


@pytest.mark.parametrize("code", [0, 1, 2, 130])
def test_the_code_main_returns_is_the_exit_status(code: int) -> None:
    program = (f"import omp.cli as c\nc.main = lambda argv=None: {code}\nc.run()\n")
    assert _run(program).returncode == code
