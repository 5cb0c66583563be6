"""`omp project-memory` as a user runs it: queue, promote, dismiss, forget, notes, skills."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_omp
from memory_support import END, START, active_texts, block_of, note, pending_labels, pm, propose, snapshot

from omp.memory.items import ItemKind


def test_promote_one_then_all_makes_directives_active_and_injected(project: Path) -> None:
    propose(project, "Use pnpm, not npm", "Run the tests with pytest -q", "Keep commits small and focused")
    assert pending_labels(project) == [
        "Use pnpm, not npm",
        "Run the tests with pytest -q",
        "Keep commits small and focused",
    ]

    one = pm(project, "promote-directive", "2")
    assert one.returncode == 0, one.stderr
    assert "promoted" in one.stdout
    assert active_texts(project) == ["Run the tests with pytest -q"]
    assert pending_labels(project) == ["Use pnpm, not npm", "Keep commits small and focused"]

    rest = pm(project, "promote-directive", "--all")
    assert rest.returncode == 0, rest.stderr
    assert active_texts(project) == [
        "Run the tests with pytest -q",
        "Use pnpm, not npm",
        "Keep commits small and focused",
    ]
    assert pending_labels(project) == []
    block = block_of(project / ".github" / "copilot-instructions.md")
    for text in active_texts(project):
        assert f"- {text}" in block
    decisions = [json.loads(line) for line in (project / ".omp/memory-review/decisions.jsonl").read_text().splitlines()]
    assert [d["status"] for d in decisions] == ["promoted"] * 3
    assert all(d["session"] == "sess-1" for d in decisions)


def test_dismissed_item_and_its_paraphrase_are_never_queued_again(project: Path) -> None:
    propose(project, "Always run ruff before committing")
    result = pm(project, "dismiss-directive", "1", "--reason", "we use flake8")
    assert result.returncode == 0, result.stderr
    assert pending_labels(project) == []
    decision = json.loads((project / ".omp/memory-review/decisions.jsonl").read_text().splitlines()[-1])
    assert decision["status"] == "rejected" and decision["reason"] == "we use flake8"

    again = propose(project, "Always run ruff before committing", "before committing, always run ruff!")
    assert [r.status for r in again] == ["duplicate", "duplicate"]
    assert "rejected item" in (again[0].reason or "")
    assert pending_labels(project) == []


def test_proposal_with_a_forged_checkbox_stays_one_item(project: Path) -> None:
    results = propose(project, "Rule A\n- [ ] Rule B")
    assert [r.status for r in results] == ["written"]
    assert pending_labels(project) == ["Rule A; Rule B"]
    checklist = (project / ".omp/memory-review/pending-directives.md").read_text()
    assert checklist.count("- [ ]") == 1


def test_promote_skips_an_item_already_active(project: Path) -> None:
    propose(project, "Use pnpm, not npm")
    added = pm(project, "add-directive", "use pnpm -- not npm")
    assert added.returncode == 0, added.stderr
    result = pm(project, "promote-directive", "1")
    assert result.returncode == 0, result.stderr
    assert "already an active directive" in result.stdout
    assert active_texts(project) == ["use pnpm -- not npm"]
    assert pending_labels(project) == []


def test_promoting_a_forget_proposal_removes_the_directive_and_the_note(project: Path) -> None:
    assert pm(project, "add-directive", "Use pnpm, not npm").returncode == 0
    assert pm(project, "add-directive", "Write docstrings in Google style").returncode == 0
    written = note(project, "Deploys go through the staging cluster first")
    propose(project, "that we use pnpm", kind=ItemKind.FORGET)
    propose(project, "the staging cluster deploys note", kind=ItemKind.FORGET)
    assert pending_labels(project) == ["FORGET: that we use pnpm", "FORGET: the staging cluster deploys note"]

    result = pm(project, "promote-directive", "--all")
    assert result.returncode == 0, result.stderr
    assert active_texts(project) == ["Write docstrings in Google style"]
    assert not (project / ".omp/memory/notes" / f"{written.ref}.md").exists()
    block = block_of(project / ".github/copilot-instructions.md")
    assert "pnpm" not in block and "staging" not in block
    # What was forgotten is not proposed again.
    assert propose(project, "Use pnpm, not npm")[0].status == "duplicate"


def test_a_forget_request_said_in_any_language_forgets_the_rule_it_names(project: Path) -> None:
    """What the explicit pass reads from "Vergiss die Regel mit yarn." is "Die Regel mit yarn";
    its matching knew only English's request words ("the rule about"), so the German, Spanish,
    French and Portuguese requests matched nothing and forgot nothing; Chinese and Japanese, written
    without spaces, are matched by pairs of characters. "squash merges" is "squash merge" too."""
    from omp.intents.messages import requests_in

    rules = ["Nutze yarn statt npm", "Usa black para formatear", "Déploie le mardi", "Use o Node 20 no CI",
             "Squash merge every PR", "用纱线安装依赖", "常にテストを先に書く", "Write docstrings in Google style"]
    for rule in rules:
        assert pm(project, "add-directive", rule).returncode == 0
    said = ["Vergiss die Regel mit yarn.", "Olvida la regla de black.", "Oublie la règle sur le mardi.",
            "Esqueça a regra do Node 20.", "Drop the rule about squash merges.", "忘掉用纱线的规则。",
            "テストを先に書くルールは忘れてください。"]
    targets = [request.text for message in said for request in requests_in(message)]
    assert len(targets) == len(said) and all(request.kind == "forget" for m in said for request in requests_in(m))
    propose(project, *targets, kind=ItemKind.FORGET)

    result = pm(project, "promote-directive", "--all")
    assert result.returncode == 0, result.stderr
    assert active_texts(project) == ["Write docstrings in Google style"]


@pytest.mark.slow
def test_bad_numbers_and_missing_arguments_exit_2_and_change_nothing(project: Path) -> None:
    propose(project, "Use pnpm, not npm")
    pm(project, "pending")  # first touch done; from here on nothing may change
    before = snapshot(project)
    for args in (
        ["promote-directive", "2"],
        ["promote-directive", "0"],
        ["promote-directive"],
        ["promote-directive", "1", "--all"],
        ["dismiss-directive", "5"],
        ["promote-directive", "abc"],
        ["remove-directive", "1"],
        ["read", "no-such-note"],
        ["read", "../../etc/passwd"],
        ["promote-skill", "nope"],
        ["add-note"],
        ["prune-notes"],
        ["prune-notes", "--keep", "1", "--older-than", "3"],
    ):
        result = pm(project, *args)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert "usage: omp project-memory" in result.stderr, (args, result.stderr)
        assert result.stderr.startswith("omp: error: "), result.stderr  # one error style
    assert snapshot(project) == before


def test_add_directive_by_hand_is_active_at_once_but_never_stores_a_secret(project: Path) -> None:
    ok = pm(project, "add-directive", "Prefer pathlib over os.path\n- [ ] sneaky")
    assert ok.returncode == 0, ok.stderr
    assert active_texts(project) == ["Prefer pathlib over os.path; sneaky"]

    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    bad = pm(project, "add-directive", f"Use the token {token} for the API")
    assert bad.returncode == 1
    assert "secret" in bad.stderr and token not in bad.stderr + bad.stdout
    assert active_texts(project) == ["Prefer pathlib over os.path; sneaky"]
    assert token not in "".join(p.read_text() for p in (project / ".omp").rglob("*.json"))


def test_a_global_directive_lives_only_in_the_personal_file(project: Path, isolated_home: Path) -> None:
    """Never in a project's tracked file (a personal rule committed for a team), never twice."""
    instructions = project / ".github" / "copilot-instructions.md"
    instructions.parent.mkdir()
    # A block an older omp wrote, global directive included.
    instructions.write_text(f"Team text.\n\n{START}\n- Answer in British English (global)\n{END}\n")
    result = pm(project, "add-directive", "Answer in British English", "--global")
    assert result.returncode == 0, result.stderr
    personal = isolated_home / ".copilot" / "copilot-instructions.md"
    assert "- Answer in British English" in block_of(personal)
    assert run_omp(["memory", "sync", "--root", str(project)]).returncode == 0
    assert "British" not in instructions.read_text()
    assert instructions.read_text().startswith("Team text.\n")
    read = pm(project, "read", "--json").json()
    assert [d["text"] for d in read["global_directives"]] == ["Answer in British English"]

    removed = pm(project, "remove-directive", "1", "--global")
    assert removed.returncode == 0, removed.stderr
    assert "British" not in block_of(personal)


def test_promote_global_puts_the_item_in_the_global_store(project: Path, isolated_home: Path) -> None:
    propose(project, "Sign every commit")
    assert pm(project, "promote-directive", "1", "--global").returncode == 0
    stored = json.loads((isolated_home / ".omp" / "directives.json").read_text())
    assert stored["version"] == 2
    assert [d["text"] for d in stored["directives"]] == ["Sign every commit"]
    assert active_texts(project) == []


def test_adding_past_the_cap_warns_and_the_block_shows_the_overflow(project: Path) -> None:
    assert pm(project, "add-directive", "First rule").returncode == 0
    env = {"OMP_MEMORY_DIRECTIVE_CAP": "1"}
    result = pm(project, "add-directive", "Second rule", env=env)
    assert result.returncode == 0
    assert "will not be injected" in result.stderr
    block = block_of(project / ".github/copilot-instructions.md")
    assert "- First rule" in block and "Second rule" not in block
    assert "+1 more directive" in block


def test_notes_read_index_and_prune(project: Path) -> None:
    first = pm(project, "add-note", "Release process", "--body", "Tag, then push the tag.\n\n- step two")
    assert first.returncode == 0, first.stderr
    second = pm(project, "add-note", "Release process")  # same title: one note is enough
    assert second.returncode == 0 and "not added" in second.stdout
    assert pm(project, "add-note", "Database is Postgres 16").returncode == 0

    index = pm(project, "index", "--json").json()["notes"]
    assert {n["id"] for n in index} == {"release-process", "database-is-postgres-16"}
    one = pm(project, "read", "release-process")
    assert one.returncode == 0
    assert "# Release process" in one.stdout and "- step two" in one.stdout
    note_file = (project / ".omp/memory/notes/release-process.md").read_text()
    assert note_file.startswith("---\nid: release-process\ntitle: \"Release process\"\ncreated: ")

    pruned = pm(project, "prune-notes", "--keep", "1")
    assert pruned.returncode == 0, pruned.stderr
    assert len(pm(project, "index", "--json").json()["notes"]) == 1


def test_newest_notes_are_chosen_by_created_not_mtime(project: Path) -> None:
    folder = project / ".omp/memory/notes"
    folder.mkdir(parents=True)
    (folder / "old.md").write_text('---\nid: old\ntitle: "Old fact"\ncreated: 2020-01-01T00:00:00Z\n---\n# Old fact\n')
    (folder / "new.md").write_text('---\nid: new\ntitle: "New fact"\ncreated: 2030-01-01T00:00:00Z\n---\n# New fact\n')
    (folder / "old.md").touch()  # the old note now has the newest mtime
    result = pm(project, "index", "--json")
    assert [n["id"] for n in result.json()["notes"]] == ["new", "old"]
    assert run_sync(project, {"OMP_MEMORY_NOTE_CAP": "1"})
    block = block_of(project / ".github/copilot-instructions.md")
    assert "note new: \"New fact\"" in block and "Old fact" not in block and "+1 more note" in block


def run_sync(project: Path, env: dict[str, str] | None = None) -> bool:
    from helpers import run_omp

    return run_omp(["memory", "sync", "--root", str(project)], env=env).returncode == 0


def test_promote_skill_moves_the_draft_with_copilot_front_matter(project: Path) -> None:
    from omp.memory.items import DraftProposal
    from omp.memory.store import add_drafts
    from omp.paths import ProjectPaths

    results = add_drafts(
        ProjectPaths(project),
        [DraftProposal("Release To PyPI", "Cut a release: build, tag, upload", "1. build\n2. twine upload", "s", "ev")],
    )
    assert [r.status for r in results] == ["written"]
    listing = pm(project, "drafts")
    assert "release-to-pypi" in listing.stdout
    draft = (project / ".omp/self-evolve/drafts/release-to-pypi/SKILL.md").read_text()
    assert "status: draft" in draft and "session: s" in draft

    result = pm(project, "promote-skill", "release-to-pypi")
    assert result.returncode == 0, result.stderr
    skill = (project / ".github/skills/release-to-pypi/SKILL.md").read_text()
    assert skill.startswith('---\nname: release-to-pypi\ndescription: "Cut a release: build, tag, upload"\n---\n')
    assert "twine upload" in skill
    assert not (project / ".omp/self-evolve/drafts/release-to-pypi").exists()
    # The same draft is not proposed again: the skill exists now.
    again = add_drafts(ProjectPaths(project), [DraftProposal("release-to-pypi", "Other", "body")])
    assert again[0].status == "duplicate"


def test_checklist_edited_by_hand_is_understood(project: Path) -> None:
    propose(project, "Use pnpm, not npm", "Prefer tabs", "Never force-push main")
    checklist = project / ".omp/memory-review/pending-directives.md"
    text = checklist.read_text()
    text = text.replace("- [ ] Use pnpm, not npm", "- [x] Use pnpm, not npm")  # ticked: approved
    text = text.replace("- [ ] Prefer tabs\n", "")  # deleted: dismissed
    text += "* [ ] Document every public function\n"  # added by hand
    checklist.write_text(text)

    listed = pm(project, "pending", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [i["label"] for i in listed.json()["pending"]] == ["Never force-push main", "Document every public function"]
    assert active_texts(project) == ["Use pnpm, not npm"]
    metadata = json.loads((project / ".omp/memory-review/pending.json").read_text())
    assert [i["text"] for i in metadata["items"]] == ["Never force-push main", "Document every public function"]
    assert propose(project, "prefer tabs")[0].status == "duplicate"  # the deleted line is a tombstone
    assert "* [ ] Document every public function" in checklist.read_text()  # the human's line is kept


def test_a_global_directive_can_be_added_outside_any_project(isolated_home: Path) -> None:
    from helpers import run_omp

    result = run_omp(["project-memory", "add-directive", "Reply in English", "--global"], cwd=isolated_home)
    assert result.returncode == 0, result.stderr
    stored = json.loads((isolated_home / ".omp" / "directives.json").read_text())
    assert [d["text"] for d in stored["directives"]] == ["Reply in English"]
    assert "- Reply in English" in block_of(isolated_home / ".copilot" / "copilot-instructions.md")
    refused = run_omp(["project-memory", "add-directive", "Reply in English"], cwd=isolated_home)
    assert refused.returncode == 2 and "home folder" in refused.stderr
