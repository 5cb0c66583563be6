"""Every number the CLI takes is bounded (docs/reference/config.md: days ≤ 36500; counts and item numbers no
person would exceed): beyond the bound, exit 2 with a message naming what is accepted, and
nothing changed. Before, `--older-than 10000000000` and `--days 100000000000` ended in
`internal error: OverflowError`."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_omp

HUGE = "100000000000"
CASES = [
    ["project-memory", "prune-notes", "--older-than", "10000000000"],
    ["project-memory", "prune-notes", "--older-than", "36501"],
    ["project-memory", "prune-notes", "--keep", "99999999999999999999999999"],
    ["project-memory", "prune-notes", "--keep", "-1"],
    ["cost", "--days", HUGE],
    ["cost", "--days", "1e400"],
    ["cost", "--days", "nan"],
    ["cost", "--days", "inf"],
    ["cost", "--days", "0"],
    ["project-memory", "remove-directive", HUGE * 3],
    ["project-memory", "promote-directive", HUGE * 3],
    ["project-memory", "dismiss-directive", "0"],
    ["memory-review", "--sweep", "--limit", HUGE * 3],
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(a[-2:]) for a in CASES])
def test_out_of_range_numbers_are_usage_errors_that_change_nothing(project: Path, args: list[str]) -> None:
    added = run_omp(["project-memory", "add-note", "Keep me", "--body", "a note"], cwd=project)
    assert added.returncode == 0, added.stderr
    before = sorted(p.name for p in (project / ".omp").rglob("*"))

    result = run_omp(args, cwd=project)

    assert result.returncode == 2, result.stderr
    assert "internal error" not in result.stderr
    assert "Overflow" not in result.stderr
    assert "out of range" in result.stderr or "is not a number" in result.stderr
    assert sorted(p.name for p in (project / ".omp").rglob("*")) == before


def test_the_message_names_what_is_accepted(project: Path) -> None:
    result = run_omp(["project-memory", "prune-notes", "--older-than", "10000000000"], cwd=project)
    assert result.returncode == 2
    assert "from 0 to 36500 (days)" in result.stderr


@pytest.mark.parametrize("args", [
    ["project-memory", "prune-notes", "--older-than", "36500"],
    ["project-memory", "prune-notes", "--keep", "0"],
    ["cost", "--days", "36500"],
    ["cost", "--days", "0.5"],
])
def test_the_bounds_themselves_are_accepted(project: Path, args: list[str]) -> None:
    result = run_omp(args, cwd=project)
    assert result.returncode == 0, result.stderr
