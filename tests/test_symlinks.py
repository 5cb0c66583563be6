"""No write follows a symbolic link out of the project (docs/behaviour.md#project-memory-and-the-managed-block, docs/writes-and-undo.md#leftovers-of-killed-runs; issue 10).

Each case is an attack a cloned repository can carry: a link committed where omp writes. The
real `omp` runs in a real git project; each test checks what a user would care about: nothing
written outside, the link still the same link, no outside byte copied into the repository, and
a message that says why and what to do. A link that stays inside the project (the `AGENTS.md`
setup) is written in place and stays a link.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memory_support import pm, snapshot
from review_support import FakeReviewer, conversation, json_reply, notes, omp, review, standard_answer, write_session

SECRET = "aws_secret_access_key = AKIAEXAMPLEEXAMPLE1234/outside-bytes\n"


@pytest.fixture
def fake(tmp_path: Path) -> FakeReviewer:
    return FakeReviewer(tmp_path / "fake")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the project, standing for the user's home: it must stay byte for byte."""
    folder = tmp_path / "outside"
    (folder / "dir").mkdir(parents=True)
    (folder / "credentials").write_text(SECRET)
    return folder


def _refused(result_stderr: str, link: str) -> None:
    assert "symbolic link" in result_stderr and "outside" in result_stderr, result_stderr
    assert link in result_stderr and "hint:" in result_stderr


def _add_note(project: Path) -> None:
    # A note for the block to show. It lands inside the real `.omp`; the block refresh that
    # follows may be refused (the caller checks that through `omp memory sync`).
    pm(project, "add-note", "Builds run with make ci")
    assert "Builds run with make ci" in (project / ".omp/memory/notes/builds-run-with-make-ci.md").read_text()


def test_an_instruction_file_linking_outside_is_never_written_nor_copied_in(project: Path, outside: Path) -> None:
    link = project / ".github" / "copilot-instructions.md"
    link.parent.mkdir()
    link.symlink_to(outside / "credentials")
    before = snapshot(outside)
    _add_note(project)
    result = omp(project, {}, "memory", "sync")
    assert result.returncode == 1
    _refused(result.stderr, "copilot-instructions.md")
    assert snapshot(outside) == before
    assert link.is_symlink() and os.readlink(link) == str(outside / "credentials")
    tracked = [p for p in project.rglob("*") if p.is_file() and not p.is_symlink() and ".git" not in p.parts]
    assert not any("AKIAEXAMPLE" in p.read_text(errors="replace") for p in tracked)


def test_an_instruction_file_linking_inside_is_updated_in_place(project: Path) -> None:
    (project / "AGENTS.md").write_text("# Team rules\n\nKeep it simple.\n")
    link = project / ".github" / "copilot-instructions.md"
    link.parent.mkdir()
    link.symlink_to(Path("..") / "AGENTS.md")
    _add_note(project)
    result = omp(project, {}, "memory", "sync")
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and os.readlink(link) == str(Path("..") / "AGENTS.md")
    text = (project / "AGENTS.md").read_text()
    assert text.startswith("# Team rules\n\nKeep it simple.\n") and "Builds run with make ci" in text


def test_a_github_folder_linking_outside_gets_nothing(project: Path, outside: Path) -> None:
    (project / ".github").symlink_to(outside / "dir", target_is_directory=True)
    _add_note(project)
    result = omp(project, {}, "memory", "sync")
    assert result.returncode == 1
    _refused(result.stderr, ".github")
    assert list((outside / "dir").iterdir()) == []


def test_a_skill_folder_linking_outside_is_refused_and_the_draft_kept(project: Path, outside: Path) -> None:
    draft = project / ".omp/self-evolve/drafts/release-steps/SKILL.md"
    draft.parent.mkdir(parents=True)
    draft.write_text('---\nname: release-steps\ndescription: "How to cut a release"\nstatus: draft\n---\nRun make release.\n')
    (project / ".github/skills").mkdir(parents=True)
    (project / ".github/skills/release-steps").symlink_to(outside / "dir", target_is_directory=True)
    result = pm(project, "promote-skill", "release-steps")
    assert result.returncode == 1
    _refused(result.stderr, "release-steps")
    assert list((outside / "dir").iterdir()) == []
    assert draft.is_file()  # nothing moved


@pytest.mark.parametrize("linked", [".omp", ".omp/memory/notes", ".omp/self-evolve/drafts", ".omp/memory-review"])
def test_a_state_folder_linking_outside_is_refused_before_the_reviewer_is_called(
    project: Path, outside: Path, fake: FakeReviewer, linked: str
) -> None:
    if linked != ".omp":
        (project / linked).parent.mkdir(parents=True)
    (project / linked).symlink_to(outside / "dir", target_is_directory=True)
    session = write_session(project, conversation())
    fake.default(json_reply(standard_answer()))
    for _ in range(2):  # and again: a retry must not pay either
        result = review(project, fake.env(), "--session", session)
        assert result.returncode == 1
        _refused(result.stderr, linked.rsplit("/", 1)[-1])
    assert fake.calls() == []
    assert list((outside / "dir").iterdir()) == []
    added = pm(project, "add-note", "A fact worth keeping")
    assert added.returncode == 1 and list((outside / "dir").iterdir()) == []


def test_a_gitignore_linking_outside_is_never_written(project: Path, outside: Path) -> None:
    (project / ".gitignore").symlink_to(outside / "credentials")
    before = snapshot(outside)
    result = pm(project, "add-note", "A fact worth keeping")
    assert result.returncode == 1
    _refused(result.stderr, ".gitignore")
    assert snapshot(outside) == before and (project / ".gitignore").is_symlink()
    assert not (project / ".omp").exists()  # refused before the first write


def test_the_personal_instructions_file_linking_out_of_copilot_home_is_refused(project: Path, outside: Path) -> None:
    home = Path(os.environ["COPILOT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "copilot-instructions.md").symlink_to(outside / "credentials")
    before = snapshot(outside)
    result = pm(project, "add-directive", "Answer in English", "--global")
    assert result.returncode == 1
    _refused(result.stderr, "copilot-instructions.md")
    assert snapshot(outside) == before


def test_a_review_with_a_linked_instruction_file_costs_nothing(project: Path, outside: Path, fake: FakeReviewer) -> None:
    link = project / ".github" / "copilot-instructions.md"
    link.parent.mkdir()
    link.symlink_to(outside / "credentials")
    session = write_session(project, conversation())
    fake.default(json_reply(standard_answer()))
    result = review(project, fake.env(), "--session", session)
    assert result.returncode == 1 and fake.calls() == [] and notes(project) == []
    assert not (project / ".omp/memory-review/claims" / f"{session}.json").exists()
    assert not (project / ".omp/memory-review/queue" / f"{session}.json").exists()
    assert (outside / "credentials").read_text() == SECRET


def test_the_session_end_hook_writes_no_run_log_through_a_linked_omp(project: Path, outside: Path) -> None:
    from copilot_support import run_hook

    (project / ".omp").symlink_to(outside / "dir", target_is_directory=True)
    session = write_session(project, conversation())
    result = run_hook("session-end", {"sessionId": session, "cwd": str(project)}, env={"OMP_MEMORY_MODE": "on"})
    assert result.returncode == 0 and result.stdout == "{}\n"
    assert list((outside / "dir").iterdir()) == []


def test_a_project_config_linking_outside_is_never_written(project: Path, outside: Path) -> None:
    (outside / "settings.json").write_text('{"memory-note-cap": 3}\n')
    (project / ".omp").mkdir()
    (project / ".omp/config.json").symlink_to(outside / "settings.json")
    before = snapshot(outside)
    result = omp(project, {}, "config", "set", "memory-note-cap", "5")
    assert result.returncode == 1
    _refused(result.stderr, "config.json")
    assert snapshot(outside) == before and (project / ".omp/config.json").is_symlink()
