"""`omp memory-review undo SESSION` works item by item (docs/behaviour.md#the-review-run; issue 10).

Real reviews of real sessions with the fake reviewer, real `omp` commands for the human's
decisions; then the undo of an older review, and what a user would check afterwards.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memory_support import active_texts, pm
from review_support import (
    FakeReviewer, answer, conversation, json_reply, notes, omp, pending_lines, review, state, write_session,
)


@pytest.fixture
def fake(tmp_path: Path) -> FakeReviewer:
    return FakeReviewer(tmp_path / "fake")


def _answer(topic: str, extra_rule: bool) -> dict[str, Any]:
    rules = [{"text": f"Use {topic}, not npm, for dependencies", "evidence": f"this project uses {topic} for everything"}]
    if extra_rule:
        rules.append({"text": "Never run npm install in this repo", "evidence": f"do not use npm: this project uses {topic}"})
    return answer(
        directives=rules,
        notes=[{"title": f"Package manager is {topic}", "body": f"Dependencies are installed with {topic}.",
                "evidence": f"we use {topic} in this repo"}],
        skill_drafts=[{"slug": f"{topic}-workspace-release", "description": f"Release the {topic} workspace packages",
                       "body": f"Run {topic} publish from the root.", "evidence": f"we use {topic} in this repo"}],
    )


def _reviewed(project: Path, fake: FakeReviewer, topic: str, extra_rule: bool = False) -> str:
    session = write_session(project, conversation(topic))
    fake.queue(json_reply(_answer(topic, extra_rule)))
    out = review(project, fake.env(), "--session", session).json()
    assert out["ran"], out
    assert out["summary"]["notes"] == 1 and out["summary"]["skill_drafts"] == 1
    assert out["summary"]["directives"] == (2 if extra_rule else 1), out
    return session


def _drafts(project: Path) -> list[str]:
    folder = state(project) / "self-evolve" / "drafts"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def _decisions(project: Path) -> list[dict[str, Any]]:
    path = state(project) / "memory-review" / "decisions.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
def test_undo_of_an_older_review_keeps_later_items_and_human_decisions(project: Path, fake: FakeReviewer,
                                                                       force: bool) -> None:
    """`--force` no longer restores whole files: it cannot drop B's items or revive a dismissal."""
    a = _reviewed(project, fake, "pnpm", extra_rule=True)
    b = _reviewed(project, fake, "yarnberry")
    assert pending_lines(project) == [
        "- [ ] Use pnpm, not npm, for dependencies", "- [ ] Never run npm install in this repo",
        "- [ ] Use yarnberry, not npm, for dependencies",
    ]
    assert pm(project, "dismiss-directive", "2").returncode == 0  # a human refuses one of A's items

    result = omp(project, fake.env(), "memory-review", "undo", a[:8], *(["--force"] if force else []))  # a prefix
    assert result.returncode == 0, result.stderr
    assert "left alone pending: Never run npm install in this repo: dismissed" in result.stdout

    # B's note, pending item and draft all survive; A's other items are gone.
    assert pending_lines(project) == ["- [ ] Use yarnberry, not npm, for dependencies"]
    assert [n.read_text().count("Package manager is yarnberry") > 0 for n in notes(project)] == [True]
    assert _drafts(project) == ["yarnberry-workspace-release"]
    # The dismissal stands: recorded once, and the item is not back in the queue.
    dismissed = [d for d in _decisions(project) if d["text"] == "Never run npm install in this repo"]
    assert [d["status"] for d in dismissed] == ["rejected"]
    # The managed block was re-rendered from what is left.
    block = (project / ".github" / "copilot-instructions.md").read_text()
    assert "Package manager is yarnberry" in block and "Package manager is pnpm" not in block

    again = omp(project, fake.env(), "memory-review", "undo", a)
    assert again.returncode == 1 and "already undone" in again.stderr
    assert omp(project, fake.env(), "memory-review", "undo", b).returncode == 0
    assert notes(project) == [] and pending_lines(project) == [] and _drafts(project) == []


def test_a_promoted_item_and_a_promoted_skill_are_reported_and_left_alone(project: Path, fake: FakeReviewer) -> None:
    a = _reviewed(project, fake, "pnpm")
    assert pm(project, "promote-directive", "1").returncode == 0
    assert pm(project, "promote-skill", "pnpm-workspace-release").returncode == 0
    result = omp(project, fake.env(), "memory-review", "undo", a, "--json")
    assert result.returncode == 0, result.stderr
    out = result.json()
    kept = {k["item"]: k["why"] for k in out["kept"]}
    assert "already promoted" in kept["pending: Use pnpm, not npm, for dependencies"]
    assert "promoted to .github/skills/pnpm-workspace-release" in kept["draft pnpm-workspace-release"]
    assert out["removed"] == ["note package-manager-is-pnpm"]
    assert active_texts(project) == ["Use pnpm, not npm, for dependencies"]
    assert (project / ".github/skills/pnpm-workspace-release/SKILL.md").is_file()


def test_a_journal_of_the_previous_format_is_still_undone_item_by_item(project: Path, fake: FakeReviewer) -> None:
    a = _reviewed(project, fake, "pnpm")
    b = _reviewed(project, fake, "yarnberry")
    for session in (a, b):  # what omp before item-level undo wrote: no list of queue items
        path = state(project) / "memory-review" / "journal" / f"{session}.json"
        data = json.loads(path.read_text())
        data["version"] = 1
        for batch in data["batches"]:
            del batch["pending"]
        path.write_text(json.dumps(data))
    result = omp(project, fake.env(), "memory-review", "undo", a)
    assert result.returncode == 0, result.stderr
    assert "older journal" in result.stdout
    assert pending_lines(project) == ["- [ ] Use yarnberry, not npm, for dependencies"]
    assert _drafts(project) == ["yarnberry-workspace-release"] and len(notes(project)) == 1


def test_undo_needs_a_reviewed_session_or_a_long_enough_prefix(project: Path, fake: FakeReviewer) -> None:
    a = _reviewed(project, fake, "pnpm")
    short = omp(project, fake.env(), "memory-review", "undo", a[:4])
    assert short.returncode == 1 and "nothing to undo" in short.stderr and "7+" in short.stderr
    assert len(notes(project)) == 1
