"""Migrating a `.oh-my-copilot/` folder from the TypeScript oh-my-copilot (docs/writes-and-undo.md#leftovers-of-killed-runs)."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

import pytest

from memory_support import active_texts, pending_labels, pm, write_json

from omp.memory.legacy import marker_path
from omp.paths import ProjectPaths


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def make_legacy(project: Path, outside: Path) -> Path:
    legacy = project / ".oh-my-copilot"
    write_json(legacy / "project-memory.json", ["Use tabs for indentation"])
    review = legacy / "memory-review"
    review.mkdir(parents=True)
    (review / "pending-directives.md").write_text(
        "# Pending directives\n\n"
        "- [ ] Prefer pnpm over npm\n"
        "- [ ] FORGET: Use yarn\n"
        "- [ ] Prefer pnpm over npm\n"  # pasted twice: still one item
        "- [x] An item approved in the old tool\n"
        "  * [ ] Squash merge pull requests\n"
    )
    write_json(
        review / "pending.json",
        {"items": [{"kind": "add", "text": "Prefer pnpm over npm", "proposed_at": _now(), "session": "old-1", "evidence": "pnpm!"}]},
    )
    notes = legacy / "memory" / "notes"
    notes.mkdir(parents=True)
    (notes / "ci.md").write_text('---\nid: ci\ntitle: "CI uses GitHub Actions"\ncreated: 2024-05-01T00:00:00Z\n---\n# CI uses GitHub Actions\n')
    drafts = legacy / "self-evolve" / "drafts" / "release"
    drafts.mkdir(parents=True)
    (drafts / "SKILL.md").write_text('---\nname: release\ndescription: "Release steps"\nstatus: draft\n---\nSteps.\n')
    # Symbolic links to things outside the project must never be followed.
    outside.mkdir()
    (outside / "secret.md").write_text("---\ntitle: \"Outside secret\"\n---\n# Outside secret\n")
    (outside / "skill").mkdir()
    (outside / "skill" / "SKILL.md").write_text("---\nname: outside\ndescription: \"x\"\n---\nx\n")
    (notes / "linked.md").symlink_to(outside / "secret.md")
    (legacy / "self-evolve" / "drafts" / "linked").symlink_to(outside / "skill")
    return legacy


@pytest.mark.slow
def test_legacy_queue_migrates_without_loss_or_doubles(project: Path, tmp_path: Path) -> None:
    make_legacy(project, tmp_path / "outside")
    first = pm(project, "pending", "--json")
    assert first.returncode == 0, first.stderr
    assert "migrated .oh-my-copilot/" in first.stderr
    expected = ["Prefer pnpm over npm", "FORGET: Use yarn", "Squash merge pull requests"]
    assert [i["label"] for i in first.json()["pending"]] == expected
    pnpm = first.json()["pending"][0]
    assert pnpm["session"] == "old-1" and pnpm["evidence"] == "pnpm!"
    assert active_texts(project) == ["Use tabs for indentation"]
    notes = pm(project, "index", "--json").json()["notes"]
    assert [n["title"] for n in notes] == ["CI uses GitHub Actions"]
    assert (project / ".omp/self-evolve/drafts/release/SKILL.md").is_file()
    assert not (project / ".omp/self-evolve/drafts/linked").exists()

    # Run it again, as if the first run had been interrupted before recording that it finished.
    marker_path(ProjectPaths(project)).unlink()
    assert pm(project, "read").returncode == 0
    assert pending_labels(project) == expected
    assert active_texts(project) == ["Use tabs for indentation"]
    assert len(pm(project, "index", "--json").json()["notes"]) == 1
    assert (project / ".oh-my-copilot/memory-review/pending-directives.md").is_file()  # left as it was


def test_dismissed_legacy_items_stay_dismissed(project: Path, tmp_path: Path) -> None:
    legacy = make_legacy(project, tmp_path / "outside")
    (legacy / "memory-review" / "decisions.jsonl").write_text(
        json.dumps({"ts": "2024-01-01T00:00:00Z", "text": "Squash merge pull requests", "status": "rejected"}) + "\n"
    )
    assert pending_labels(project) == ["Prefer pnpm over npm", "FORGET: Use yarn"]


def test_a_linked_legacy_folder_is_not_followed(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    make_legacy(elsewhere, tmp_path / "outside")
    (project / ".oh-my-copilot").symlink_to(elsewhere / ".oh-my-copilot")
    assert pending_labels(project) == []
    assert active_texts(project) == []
