"""Where things live (docs/files.md#where-things-live): project root discovery and safe session ids."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from helpers import run_omp
from omp.errors import UsageError
from omp.paths import ProjectPaths, check_session_id, copilot_home, find_project_root, global_home


def test_root_is_nearest_ancestor_with_git(project: Path) -> None:
    deep = project / "src" / "pkg"
    deep.mkdir(parents=True)
    assert find_project_root(deep) == project.resolve()


def test_folder_without_git_is_its_own_root(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert find_project_root(plain) == plain.resolve()


def test_home_is_never_silently_a_project(isolated_home: Path) -> None:
    result = run_omp(["config", "set", "memory-mode", "on"], cwd=isolated_home)
    assert result.returncode == 2
    assert "home folder" in result.stderr
    assert "--root" in result.stderr
    assert not (isolated_home / ".omp" / "config.json").exists()


def test_dotfiles_git_in_home_does_not_make_home_the_project(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    subprocess.run(["git", "init", "-q", str(isolated_home)], check=True)
    scratch = isolated_home / "scratch"
    scratch.mkdir()
    monkeypatch.chdir(scratch)
    with pytest.raises(UsageError, match="home folder"):
        find_project_root()
    # ... but naming a folder explicitly is honoured, without widening it to the home.
    assert find_project_root(scratch.as_posix()) == scratch.resolve()


def test_explicit_root_may_be_home(isolated_home: Path) -> None:
    result = run_omp(["config", "set", "memory-mode", "on", "--root", str(isolated_home)], cwd=isolated_home)
    assert result.returncode == 0, result.stderr
    assert (isolated_home / ".omp" / "config.json").exists()


def test_homes_follow_environment(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert global_home() == isolated_home / ".omp"
    assert copilot_home() == isolated_home / ".copilot"
    monkeypatch.setenv("OMP_HOME", str(tmp_path / "g"))
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "c"))
    assert global_home() == tmp_path / "g"
    assert copilot_home() == tmp_path / "c"


def test_project_paths_all_live_under_the_state_folder(project: Path) -> None:
    paths = ProjectPaths(project)
    for name in ("config", "claims", "queue", "journal", "pending_md", "decisions", "notes", "drafts", "review_log"):
        assert paths.state in getattr(paths, name).parents


@pytest.mark.parametrize("good", ["3c847d83-4dbb-44b7-b275-17c051efd491", "abc1234", "a.b_c-d"])
def test_valid_session_ids(good: str) -> None:
    assert check_session_id(good) == good


@pytest.mark.parametrize("bad", ["", "..", "../etc", "a/b", "a\\b", ".hidden", "-rf", "a..b", "x" * 129, "id\n", "é"])
def test_unsafe_session_ids_are_refused(bad: str) -> None:
    with pytest.raises(UsageError, match="invalid session id"):
        check_session_id(bad)
