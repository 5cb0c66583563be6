"""The guard that fails tests touching the real home directory really catches them."""

from __future__ import annotations

import os
from pathlib import Path

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
