"""A bug is told apart from a user's mistake: exit 3, and a crash log a report can be made from."""

from __future__ import annotations

import os
from pathlib import Path

from omp.errors import EXIT_BUG, UsageError
from omp.program import guarded


def test_a_bug_exits_3_with_a_crash_log_naming_omp_python_and_the_platform(isolated_home: Path) -> None:
    said: list[str] = []

    def buggy() -> int:
        token = "ghp_" + "Z7x" * 12  # what the traceback quotes is redacted
        raise KeyError(f"no such thing near {token}")

    assert guarded(buggy, said.append) == EXIT_BUG == 3
    assert said and said[0].startswith("omp: internal error: KeyError") and "details in " in said[0]
    log = Path(said[0].rsplit("details in ", 1)[1])
    assert log.parent == Path(os.environ["OMP_HOME"]) / "logs"
    text = log.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0].startswith("omp ") and lines[1].startswith("python: 3.") and lines[2].startswith("platform: ")
    assert "Traceback" in text and "ghp_Z7x" not in text


def test_a_users_mistake_is_not_a_bug(isolated_home: Path) -> None:
    said: list[str] = []

    def mistaken() -> int:
        raise UsageError("no such note", "omp project-memory index")

    assert guarded(mistaken, said.append) == 2
    assert not (Path(os.environ["OMP_HOME"]) / "logs").exists()
