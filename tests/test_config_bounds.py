"""Bounded config values (docs/reference/config.md) and `--global` writes that touch no project.

Before the bounds, `omp config set memory-pending-retention-days 99999999999` (or a timeout of
1e300 seconds) was accepted, and every later command that did date or time arithmetic with it
died with an OverflowError traceback.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import run_omp
from omp.config import KEYS

BOUNDS = {
    "memory-review-min-messages": (0, 1000),
    "memory-review-timeout": (1, 86400),
    "memory-review-max-input-tokens": (1000, 2_000_000),
    "memory-note-cap": (1, 1000),
    "memory-note-char-cap": (1, 100_000),
    "memory-directive-cap": (1, 1000),
    "memory-directive-char-cap": (1, 100_000),
    "memory-note-auto-keep": (0, 1000),
    "memory-pending-retention-days": (0, 36500),
}


def test_every_number_key_has_a_bound() -> None:
    numeric = {name for name, key in KEYS.items() if isinstance(key.default, int)}
    assert numeric == set(BOUNDS)


@pytest.mark.parametrize("key", sorted(BOUNDS))
def test_largest_value_is_accepted_and_one_more_is_refused(project: Path, key: str) -> None:
    low, high = BOUNDS[key]
    ok = run_omp(["config", "set", key, str(high)], cwd=project)
    assert ok.returncode == 0, ok.stderr
    config_file = project / ".omp" / "config.json"
    before = config_file.read_bytes()
    for bad in (str(high + 1), str(low - 1)):
        refused = run_omp(["config", "set", key, bad], cwd=project)
        assert refused.returncode == 2, (bad, refused.stderr)
        assert key in refused.stderr and str(high) in refused.stderr  # names the range it accepts
        assert config_file.read_bytes() == before


@pytest.mark.parametrize("value", ["1e300", "1e400", "-1e400", "inf", "nan", "9" * 5000, "99999999999999999999"])
@pytest.mark.parametrize("key", ["memory-review-timeout", "memory-pending-retention-days", "memory-note-cap"])
def test_absurd_numbers_exit_2_and_write_nothing(project: Path, key: str, value: str) -> None:
    refused = run_omp(["config", "set", key, value], cwd=project)
    assert refused.returncode == 2
    assert "Traceback" not in refused.stderr and key in refused.stderr
    assert len(refused.stderr) < 600  # a 5000-digit number is not echoed back in full
    assert not (project / ".omp").exists()


@pytest.mark.parametrize("stored", ["1e400", "1e300", "123456789012345678901234567890", "9" * 5000, "-5", "true"])
@pytest.mark.parametrize("key", ["memory-review-timeout", "memory-pending-retention-days"])
def test_bad_value_stored_by_hand_names_the_file_never_a_traceback(project: Path, isolated_home: Path,
                                                                  key: str, stored: str) -> None:
    path = isolated_home / ".omp" / "config.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"memory-mode": "on", "%s": %s}\n' % (key, stored))
    before = path.read_bytes()
    for args in (["config", "get"], ["memory-review", "--session", "latest"], ["project-memory", "pending"]):
        result = run_omp(args, cwd=project, timeout=30)
        assert result.returncode == 1, (args, result.stdout, result.stderr)
        assert str(path) in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr and "internal error" not in result.stderr, (args, result.stderr)
    assert path.read_bytes() == before


def test_environment_value_out_of_bounds_is_a_usage_error(project: Path) -> None:
    result = run_omp(["config", "get"], cwd=project, env={"OMP_MEMORY_REVIEW_TIMEOUT": "1e300"})
    assert result.returncode == 2
    assert "OMP_MEMORY_REVIEW_TIMEOUT" in result.stderr


# ---------------------------------------------------------------------------------------------
# --global touches no project


@pytest.mark.parametrize("key,value", [("memory-mode", "on"), ("memory-note-cap", "5"), ("memory-inject", "hook")])
def test_global_set_works_from_home(isolated_home: Path, key: str, value: str) -> None:
    result = run_omp(["config", "set", key, value, "--global"], cwd=isolated_home)
    assert result.returncode == 0, result.stderr
    assert json.loads((isolated_home / ".omp" / "config.json").read_text())[key] == json.loads(
        value if value.isdigit() else json.dumps(value))
    assert sorted(os.listdir(isolated_home)) == [".omp"]  # only G itself
    unset = run_omp(["config", "unset", key, "--global"], cwd=isolated_home)
    assert unset.returncode == 0, unset.stderr


@pytest.mark.parametrize("key,value", [("memory-mode", "on"), ("memory-directive-cap", "3")])
def test_global_set_creates_nothing_where_it_runs(tmp_path: Path, project: Path, key: str, value: str) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    sub = project / "src"
    sub.mkdir()
    for folder in (plain, sub):
        result = run_omp(["config", "set", key, value, "--global"], cwd=folder)
        assert result.returncode == 0, result.stderr
    assert os.listdir(plain) == []
    assert sorted(os.listdir(project)) == [".git", "src"]  # no .omp, no .gitignore, no .github
    assert os.listdir(sub) == []


def test_global_set_ignores_a_broken_project(project: Path, isolated_home: Path) -> None:
    # A project whose own config is unreadable does not stop a global write.
    (project / ".omp").mkdir()
    (project / ".omp" / "config.json").write_text("{broken")
    result = run_omp(["config", "set", "memory-note-cap", "4", "--global"], cwd=project)
    assert result.returncode == 0, result.stderr
    assert (project / ".omp" / "config.json").read_text() == "{broken"


@pytest.mark.slow
def test_every_key_at_its_largest_value_keeps_every_command_working(project: Path) -> None:
    # The old limits let `project-memory pending` die with "OverflowError: Python int too large
    # to convert to C int" once retention-days was 99999999999. At the bounds, nothing does.
    from review_support import user, write_session

    for key, (_, high) in BOUNDS.items():
        if key != "memory-review-min-messages":
            assert run_omp(["config", "set", key, str(high)], cwd=project).returncode == 0
    assert run_omp(["config", "set", "memory-mode", "on"], cwd=project).returncode == 0
    assert run_omp(["config", "set", "memory-reviewer", "offline"], cwd=project).returncode == 0
    write_session(project, [user("remember: we use pnpm in this repo, always"), user("thanks, that is all for now")])
    for args in (["memory-review", "--session", "latest"], ["project-memory", "pending"], ["memory-review", "--sweep"],
                 ["config", "get"], ["cost"]):
        result = run_omp(args, cwd=project, env={"OMP_TOKENIZER": "estimate"}, timeout=60)
        assert result.returncode == 0, (args, result.stderr)
        assert "internal error" not in result.stderr and "Traceback" not in result.stderr
