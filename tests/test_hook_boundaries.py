"""Where hooks and session discovery must stop (docs/trust.md#session-discovery-never-blocks, docs/trust.md#hooks-create-nothing-outside-a-git-project).

- With memory-mode on globally, the hooks create nothing in a folder that is not inside a git
  repository (`/` and `$HOME` included), nor for a session whose `events.jsonl` is missing or
  is not a regular file.
- An `events.jsonl` that is a FIFO is skipped by `latest`, by prefix lookup and by `--sweep`;
  nothing blocks on it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from copilot_support import finish_detached, run_hook, run_logs
from helpers import run_omp
from review_support import FakeReviewer, conversation, json_reply, standard_answer, write_session

SID = "9a1b2c3d-0000-4e5f-8a9b-0c1d2e3f4a5b"


def recorded(session_id: str, cwd: Path) -> Path:
    events = Path(os.environ["COPILOT_HOME"]) / "session-state" / session_id / "events.jsonl"
    events.parent.mkdir(parents=True, exist_ok=True)
    events.write_text(json.dumps({"type": "session.start", "data": {"context": {"cwd": str(cwd)}}}) + "\n")
    return events


def snapshot(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


@pytest.fixture
def mode_on_globally(project: Path) -> None:
    assert run_omp(["config", "set", "memory-mode", "on", "--global"], cwd=project).returncode == 0
    assert run_omp(["config", "set", "memory-inject", "hook", "--global"], cwd=project).returncode == 0


@pytest.mark.parametrize("where", ["plain folder", "home", "root"])
def test_hooks_create_nothing_outside_a_git_project(tmp_path: Path, isolated_home: Path, mode_on_globally: None,
                                                    where: str) -> None:
    folder = {"plain folder": tmp_path / "downloads", "home": isolated_home, "root": Path("/")}[where]
    folder.mkdir(exist_ok=True)
    recorded(SID, folder)
    before = snapshot(folder)
    for event in ("session-start", "session-end"):
        result = run_hook(event, {"sessionId": SID, "cwd": str(folder)}, cwd=folder)
        assert result.returncode == 0 and result.stdout == "{}\n", result.stderr
    assert snapshot(folder) == before
    assert not (folder / ".omp" / "state").exists()
    assert run_logs(folder) == []


def test_hooks_create_nothing_in_a_subfolder_of_a_plain_folder(tmp_path: Path, mode_on_globally: None) -> None:
    deep = tmp_path / "plain" / "a" / "b"
    deep.mkdir(parents=True)
    recorded(SID, deep)
    run_hook("session-end", {"sessionId": SID, "cwd": str(deep)})
    run_hook("session-start", {"sessionId": SID, "cwd": str(deep)})
    assert [p for p in (tmp_path / "plain").rglob("*") if p.name == ".omp"] == []


@pytest.mark.parametrize("events", ["missing", "fifo", "folder"])
def test_session_end_creates_nothing_without_a_regular_events_file(project: Path, mode_on_globally: None,
                                                                   events: str) -> None:
    path = Path(os.environ["COPILOT_HOME"]) / "session-state" / SID / "events.jsonl"
    path.parent.mkdir(parents=True)
    if events == "fifo":
        os.mkfifo(path)
    elif events == "folder":
        path.mkdir()
    result = run_hook("session-end", {"sessionId": SID, "cwd": str(project)}, timeout=20)
    assert result.returncode == 0 and result.stdout == "{}\n"
    assert not (project / ".omp").exists()
    assert not (project / ".gitignore").exists()


def test_session_start_in_hook_mode_creates_no_state_folder(project: Path, mode_on_globally: None) -> None:
    result = run_hook("session-start", {"sessionId": SID, "cwd": str(project)})
    assert result.returncode == 0
    assert not (project / ".omp").exists()


def test_session_end_still_reviews_a_recorded_session_in_a_git_project(project: Path, mode_on_globally: None) -> None:
    recorded(SID, project)
    result = run_hook("session-end", {"sessionId": SID, "cwd": str(project)})
    assert result.returncode == 0
    assert len(run_logs(project, f"review-{SID}-")) == 1
    finish_detached(project)


def test_session_end_waits_for_an_events_file_copilot_is_still_writing(project: Path, mode_on_globally: None) -> None:
    """Copilot can run sessionEnd a moment before events.jsonl exists (seen with the real CLI
    under load): with the session's folder there, the hook waits for the log instead of
    dropping the review."""
    import threading

    folder = Path(os.environ["COPILOT_HOME"]) / "session-state" / SID
    folder.mkdir(parents=True)
    late = threading.Timer(0.4, recorded, args=(SID, project))
    late.start()
    try:
        result = run_hook("session-end", {"sessionId": SID, "cwd": str(project)})
    finally:
        late.join()
    assert result.returncode == 0 and result.stdout == "{}\n"
    assert len(run_logs(project, f"review-{SID}-")) == 1
    finish_detached(project)


# ---------------------------------------------------------------------------------------------
# FIFOs in the session store


@pytest.fixture
def fake(tmp_path: Path) -> FakeReviewer:
    reviewer = FakeReviewer(tmp_path / "fake")
    reviewer.default(json_reply(standard_answer()))
    return reviewer


def fifo_session(project: Path, session_id: str) -> Path:
    """A session folder whose events.jsonl is a FIFO, written after a real session (newer)."""
    events = Path(os.environ["COPILOT_HOME"]) / "session-state" / session_id / "events.jsonl"
    events.parent.mkdir(parents=True)
    os.mkfifo(events)
    (events.parent / "workspace.yaml").write_text(f"cwd: {project}\n")
    return events


def test_latest_skips_a_fifo_and_never_blocks(project: Path, fake: FakeReviewer) -> None:
    real = write_session(project, conversation())
    fifo_session(project, "fffffff0-fifo-session")
    result = run_omp(["memory-review", "--json", "--session", "latest"], cwd=project, env=fake.env(), timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.json()["session"] == real and result.json()["ran"] is True


def test_prefix_lookup_of_a_fifo_session_is_refused_without_blocking(project: Path, fake: FakeReviewer) -> None:
    fifo_session(project, "fffffff0-fifo-session")
    for spec in ("fffffff0", "fffffff0-fifo-session"):
        result = run_omp(["memory-review", "--session", spec], cwd=project, env=fake.env(), timeout=30)
        assert result.returncode == 1
        assert "not a regular file" in result.stderr
    assert fake.calls() == []


def test_sweep_skips_a_fifo_and_reviews_the_rest(project: Path, fake: FakeReviewer) -> None:
    real = write_session(project, conversation())
    fifo_session(project, "fffffff0-fifo-session")
    result = run_omp(["memory-review", "--sweep", "--all", "--json"], cwd=project, env=fake.env(), timeout=30)
    assert result.returncode == 0, result.stderr
    assert [o["session"] for o in result.json()["outcomes"] if o["ran"]] == [real]


def test_a_fifo_workspace_file_never_blocks(project: Path, fake: FakeReviewer) -> None:
    session = write_session(project, conversation())
    workspace = Path(os.environ["COPILOT_HOME"]) / "session-state" / session / "workspace.yaml"
    os.mkfifo(workspace)
    result = run_omp(["memory-review", "--json", "--session", "latest"], cwd=project, env=fake.env(), timeout=30)
    assert result.returncode == 0 and result.json()["session"] == session
