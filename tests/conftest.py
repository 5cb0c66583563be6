"""Shared fixtures: an isolated home for every test, and a guard against touching the real one."""

from __future__ import annotations

import os
import pwd
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from homeguard import HomeGuard  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
REAL_HOME = Path(os.environ.get("HOME") or pwd.getpwuid(os.getuid()).pw_dir).resolve()

_GUARD = HomeGuard(
    REAL_HOME,
    allowed=[
        REPO,
        Path(sys.prefix).resolve(),
        Path(tempfile.gettempdir()).resolve(),
    ],
)
_GUARD.install()


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
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
