"""The guard that fails tests touching the real home directory really catches them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from homeguard import HomeGuard


def _guard_for(fake_home: Path) -> HomeGuard:
    guard = HomeGuard(fake_home, allowed=[])
    guard.active = True
    return guard


def test_write_under_home_is_a_violation(tmp_path: Path) -> None:
    guard = _guard_for(tmp_path)
    guard.audit("open", (str(tmp_path / "notes.txt"), "w", os.O_WRONLY | os.O_CREAT))
    guard.audit("os.mkdir", (str(tmp_path / "newdir"), 0o777, -1))
    assert len(guard.violations) == 2


def test_reading_real_omp_or_copilot_state_is_a_violation(tmp_path: Path) -> None:
    guard = _guard_for(tmp_path)
    guard.audit("open", (str(tmp_path / ".copilot" / "session-state" / "x" / "events.jsonl"), "r", os.O_RDONLY))
    guard.audit("os.scandir", (str(tmp_path / ".omp"),))
    assert len(guard.violations) == 2


def test_plain_reads_and_allowed_folders_pass(tmp_path: Path) -> None:
    allowed = tmp_path / "repo"
    guard = HomeGuard(tmp_path, allowed=[allowed])
    guard.active = True
    guard.audit("open", (str(tmp_path / ".bashrc"), "r", os.O_RDONLY))
    guard.audit("open", (str(allowed / ".pytest_cache" / "x"), "w", os.O_WRONLY))
    guard.audit("open", ("/elsewhere/file", "w", os.O_WRONLY))
    assert guard.violations == []


def test_the_installed_guard_records_a_real_write(tmp_path: Path) -> None:
    # The conftest guard watches the real home; this one, installed for real, watches tmp_path.
    guard = _guard_for(tmp_path / "fakehome")
    guard.install()
    (tmp_path / "fakehome").mkdir()
    (tmp_path / "fakehome" / "x.txt").write_text("touch")
    guard.active = False
    assert any("x.txt" in v for v in guard.violations)


@pytest.fixture
def guard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> HomeGuard:
    """A user who cloned the repository under their home, as most do, running the tests from it."""
    home = tmp_path / "home"
    repo = home / "src" / "omp"
    (repo / "tests").mkdir(parents=True)
    monkeypatch.chdir(repo)
    made = HomeGuard(home, allowed=[repo])
    made.active = True
    return made


def test_a_relative_symlink_target_is_not_read_against_the_working_folder(guard: HomeGuard, tmp_path: Path) -> None:
    link = tmp_path / "project" / ".github" / "copilot-instructions.md"
    # The target counts from the link's folder; against the working folder it would be in ~/src.
    guard.audit("os.symlink", ("../../docs/instructions.md", str(link), None))
    guard.audit("os.link", (str(tmp_path / "a"), str(tmp_path / "b"), None, None, True))
    assert guard.violations == []


def test_a_link_made_under_the_home_is_still_caught(guard: HomeGuard) -> None:
    home = guard.real_home
    guard.audit("os.symlink", ("/etc/hostname", str(home / "notes.md"), None))
    guard.audit("shutil.copyfile", (str(home / ".omp" / "config.json"), os.devnull))
    guard.audit("os.replace", (str(home / "src" / "omp" / "x"), str(home / "y"), None, None))
    assert [v.split(":")[0] for v in guard.violations] == ["os.symlink", "shutil.copyfile", "os.replace"]
