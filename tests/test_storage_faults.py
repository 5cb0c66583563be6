"""A `.omp` omp cannot write (read-only, no permission) and a full disk are the user's to fix,
not bugs (issue 32): exit 1 with the folder and the fix named, no crash log; and a review finds
them before it calls (and pays) the reviewer."""

from __future__ import annotations

import errno
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from omp import fsio
from omp.cli import main
from review_support import FakeReviewer, conversation, json_reply, standard_answer, state, write_session

AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture
def fake(tmp_path: Path) -> FakeReviewer:
    fake = FakeReviewer(tmp_path / "fake")
    fake.default(json_reply(standard_answer()))
    return fake


def _in_process(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], project: Path,
                env: dict[str, str], *args: str) -> tuple[int, str]:
    monkeypatch.chdir(project)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    code = main(list(args))
    return code, capsys.readouterr().err


def _no_crash(stderr: str, home: Path) -> None:
    assert "internal error" not in stderr
    assert not list((home / ".omp" / "logs").glob("crash-*")) if (home / ".omp" / "logs").is_dir() else True


def _claims(project: Path) -> list[Path]:
    folder = state(project) / "memory-review" / "claims"
    return sorted(p for p in folder.glob("*.json")) if folder.is_dir() else []


def test_a_full_disk_is_found_before_the_reviewer_is_called(project: Path, fake: FakeReviewer, tmp_path: Path) -> None:
    """A real process whose writes stop at 16 KiB (RLIMIT_FSIZE, no root needed): the probe
    write fails where a full disk would, and no reviewer runs."""
    session = write_session(project, conversation())
    (state(project) / "state").mkdir(parents=True)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024, 16 * 1024))

    env = {**os.environ, **fake.env()}
    result = subprocess.run([sys.executable, "-m", "omp", "memory-review", "--json", "--session", session],
                            cwd=project, env=env, capture_output=True, text=True, timeout=60, preexec_fn=limit)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "cannot write" in result.stderr and str(state(project) / "state") in result.stderr
    assert "ulimit -f" in result.stderr  # the fix
    _no_crash(result.stderr, tmp_path / "home")
    assert fake.calls() == []
    assert _claims(project) == []
    assert not [p for p in (state(project) / "state").iterdir() if fsio.is_temp_name(p.name)]  # probe removed


def test_a_full_disk_in_a_write_is_a_clear_error_not_a_crash(project: Path, fake: FakeReviewer, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """ENOSPC injected into the disk flush of every write (in this process): the review stops
    before the reviewer; `add-note` exits 1 naming the folder; neither leaves a crash log."""
    session = write_session(project, conversation())
    (state(project) / "state").mkdir(parents=True)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(fsio.os, "fsync", full)
    code, err = _in_process(monkeypatch, capsys, project, fake.env(), "memory-review", "--session", session)
    assert code == 1, err
    assert "the disk is full" in err and "free some space" in err
    _no_crash(err, tmp_path / "home")
    assert fake.calls() == []

    code, err = _in_process(monkeypatch, capsys, project, {}, "project-memory", "add-note", "A note")
    assert code == 1, err
    assert "the disk is full" in err and str(state(project)) in err
    _no_crash(err, tmp_path / "home")


def _read_only(monkeypatch: pytest.MonkeyPatch, omp_dir: Path) -> None:
    """A read-only `.omp`: chmod where it binds; as root (who writes anyway) every file creation
    under `.omp` fails the way a read-only file system makes it fail."""
    if not AS_ROOT:
        for folder in [omp_dir, *[p for p in omp_dir.rglob("*") if p.is_dir()]]:
            folder.chmod(0o555)
        return
    real_open = os.open
    prefix = str(omp_dir.resolve())

    def refuse(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_CREAT and os.path.realpath(os.fsdecode(path)).startswith(prefix):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fsdecode(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(fsio.os, "open", refuse)


def _writable_again(omp_dir: Path) -> None:
    for folder in [omp_dir, *[p for p in omp_dir.rglob("*") if p.is_dir()]]:
        folder.chmod(0o755)


def test_a_read_only_omp_folder_is_a_clear_error_before_any_model_call(
        project: Path, fake: FakeReviewer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    session = write_session(project, conversation())
    code, err = _in_process(monkeypatch, capsys, project, {}, "project-memory", "add-note", "Before")
    assert code == 0, err
    omp_dir = state(project)
    _read_only(monkeypatch, omp_dir)
    try:
        code, err = _in_process(monkeypatch, capsys, project, fake.env(), "memory-review", "--session", session)
        assert code == 1, err
        assert "cannot write" in err and str(omp_dir) in err
        assert ("read-only" in err) if AS_ROOT else ("permission denied" in err and "chmod u+w" in err)
        _no_crash(err, tmp_path / "home")
        assert fake.calls() == []

        code, err = _in_process(monkeypatch, capsys, project, {}, "project-memory", "add-note", "After")
        assert code == 1, err
        assert "cannot write" in err and str(omp_dir) in err
        _no_crash(err, tmp_path / "home")
    finally:
        if not AS_ROOT:
            _writable_again(omp_dir)
    assert [p.name for p in (omp_dir / "memory" / "notes").glob("*.md")] and len(
        list((omp_dir / "memory" / "notes").glob("*.md"))) == 1  # the first note kept, nothing else written
