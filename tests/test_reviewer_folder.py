"""omp knows its reviewer's sessions by a mark only its own reviewer start makes, never by a
folder's name (issue 32): a project called `omp-review-…` is reviewed like any other, and its
sessions are never hidden or removed from Copilot's history. Killed runs' leftovers — reviewer
folders in the temporary directory, temp files of interrupted writes in omp's folders — are
removed by the next review or sweep, and nothing else is."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from omp import fsio, reviewer_folder
from omp.copilot_history import reviewer_sessions
from omp.paths import ProjectPaths
from omp.review.housekeeping import clean_leftovers
from omp.sessions.discovery import find_session, list_project_sessions
from review_support import FakeReviewer, conversation, copilot_home, json_reply, review, standard_answer, write_session


@pytest.fixture
def temp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own temporary directory (omp makes its reviewer folders there)."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setenv("TMPDIR", str(root))
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root.resolve()


def _git_project(folder: Path) -> Path:
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


@pytest.mark.parametrize("where", ["home", "temp"])
def test_a_project_named_like_a_reviewer_folder_is_reviewed(tmp_path: Path, temp_root: Path, where: str) -> None:
    base = tmp_path if where == "home" else temp_root  # temp: exactly where omp makes its own
    project = _git_project(base / "omp-review-abcd1234")
    session = write_session(project, conversation())

    paths = ProjectPaths(project)
    found = find_session("latest", paths)
    assert found.id == session and not found.is_reviewer
    assert [s.id for s in list_project_sessions(paths)] == [session]
    assert reviewer_sessions(copilot_home()) == []  # `clean-history` would never remove it

    fake = FakeReviewer(tmp_path / "fake")
    fake.queue(json_reply(standard_answer()))
    result = review(project, fake.env(), "--session", session)
    assert result.returncode == 0, result.stderr
    assert result.json()["ran"], result.stdout
    assert len(fake.calls()) == 1


def test_the_reviewers_own_folder_is_known_by_its_mark(temp_root: Path, tmp_path: Path) -> None:
    with reviewer_folder.reviewer_folder() as folder:
        assert Path(folder).parent == temp_root and Path(folder).name.startswith("omp-review-")
        assert list(Path(folder).iterdir()) == []  # the reviewer's folder is empty
        assert reviewer_folder.is_reviewer_folder(folder)
        # A copy of the mark beside another folder does not make that folder omp's.
        forged = tmp_path / "omp-review-forged"
        forged.mkdir()
        shutil.copy(folder + reviewer_folder.OWNER_SUFFIX, str(forged) + reviewer_folder.OWNER_SUFFIX)
        assert not reviewer_folder.is_reviewer_folder(str(forged))
        # Nor does the mark's name alone, in the temporary directory itself.
        plain = temp_root / "omp-review-zzzz9999"
        plain.mkdir()
        assert not reviewer_folder.is_reviewer_folder(str(plain))
    assert not os.path.lexists(folder) and not os.path.lexists(folder + reviewer_folder.OWNER_SUFFIX)
    assert reviewer_folder.is_reviewer_folder(folder)  # gone, where omp made it: a session of it stays known


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _left_by_a_killed_run(temp_root: Path, name: str) -> Path:
    """A reviewer folder with its owner mark, as a run killed mid-call leaves it."""
    folder = temp_root / name
    folder.mkdir()
    (folder / "stray.txt").write_text("the reviewer wrote this")
    info = folder.stat()
    (temp_root / (name + reviewer_folder.OWNER_SUFFIX)).write_text(json.dumps(
        {"pid": _dead_pid(), "pid_started_at": time.time() - 100, "folder": f"{info.st_dev}:{info.st_ino}"}))
    return folder


def test_leftover_reviewer_folders_are_removed_and_nothing_else(temp_root: Path, tmp_path: Path) -> None:
    killed = _left_by_a_killed_run(temp_root, "omp-review-dead0001")
    with reviewer_folder.reviewer_folder() as running:  # this process's own call, still going
        user_folder = temp_root / "omp-review-mine"  # someone's folder with a name like omp's
        user_folder.mkdir()
        (user_folder / "keep.txt").write_text("mine")
        target = tmp_path / "elsewhere"
        target.mkdir()
        (target / "keep.txt").write_text("not omp's")
        (temp_root / "omp-review-link0001").symlink_to(target, target_is_directory=True)
        old_empty = temp_root / "omp-review-old00001"  # an older omp's (no mark), empty, a day old
        old_empty.mkdir()
        os.utime(old_empty, (time.time() - 2 * 86400,) * 2)
        young_empty = temp_root / "omp-review-new00001"
        young_empty.mkdir()

        assert reviewer_folder.remove_leftovers() == 2

        assert not killed.exists() and not Path(str(killed) + reviewer_folder.OWNER_SUFFIX).exists()
        assert not old_empty.exists()
        assert os.path.isdir(running) and (user_folder / "keep.txt").exists() and young_empty.exists()
        assert (temp_root / "omp-review-link0001").is_symlink() and (target / "keep.txt").read_text() == "not omp's"


def test_the_next_review_removes_what_killed_runs_left(project: Path, temp_root: Path, tmp_path: Path) -> None:
    omp_dir = project / ".omp"
    notes = omp_dir / "memory" / "notes"
    notes.mkdir(parents=True)
    stale = notes / ".x.md.0123456789ab.tmp"
    stale.write_text("half a note")
    fresh = notes / ".y.md.ba9876543210.tmp"  # a write in progress right now: kept
    fresh.write_text("being written")
    not_ours = notes / ".keep.tmp"  # not a name omp's writes make
    not_ours.write_text("someone's")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / ".z.md.0123456789ab.tmp").write_text("outside the project")
    (omp_dir / "linked").symlink_to(outside, target_is_directory=True)
    global_tmp = tmp_path / "home" / ".omp" / "state" / ".trust.json.00112233aabb.tmp"
    global_tmp.parent.mkdir(parents=True)
    global_tmp.write_text("{")
    long_ago = time.time() - 3600
    for path in (stale, not_ours, outside / ".z.md.0123456789ab.tmp", global_tmp):
        os.utime(path, (long_ago, long_ago))
    killed = _left_by_a_killed_run(temp_root, "omp-review-dead0002")

    fake = FakeReviewer(tmp_path / "fake")
    fake.queue(json_reply(standard_answer()))
    session = write_session(project, conversation())
    result = review(project, fake.env(), "--session", session)
    assert result.returncode == 0, result.stderr

    assert not stale.exists() and not global_tmp.exists() and not killed.exists()
    assert fresh.exists() and not_ours.exists() and (outside / ".z.md.0123456789ab.tmp").exists()


def test_housekeeping_reports_what_it_removed(project: Path, temp_root: Path) -> None:
    paths = ProjectPaths(project)
    paths.state.mkdir()
    leftover = paths.state / ".config.json.0123456789ab.tmp"
    leftover.write_text("{")
    os.utime(leftover, (time.time() - 3600,) * 2)
    _left_by_a_killed_run(temp_root, "omp-review-dead0003")
    assert clean_leftovers(paths) == {"temp_files": 1, "reviewer_folders": 1}
    assert fsio.is_temp_name(leftover.name) and not fsio.is_temp_name(".keep.tmp")
