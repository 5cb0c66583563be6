"""The undo journal: a review's writes are recorded first and can be taken back, item by item."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memory_support import note, propose, snapshot

from omp.errors import OmpError
from omp.memory.journal import Journal
from omp.memory.undo import undo_review
from omp.memory.items import DirectiveProposal, DraftProposal, NoteProposal
from omp.memory.store import memory_batch
from omp.paths import ProjectPaths
from omp.project import project_lock


def review(paths: ProjectPaths, session: str, n: int) -> None:
    with memory_batch(paths, journal_session=session) as batch:
        results = batch.add_notes([NoteProposal(f"Fact {n}: the cache lives in /var/cache/app{n}", "body", session, "ev")])
        results += batch.propose_directives([DirectiveProposal(f"Rule {n}: lint with tool{n}", session, "ev")])
        results += batch.add_drafts([DraftProposal(f"skill-{n}", f"Procedure {n} for task{n}", "steps", session, "ev")])
        batch.auto_prune()
    assert all(r.written for r in results), results


def state(project: Path) -> dict[str, bytes]:
    # Journals and the lock are bookkeeping; everything else must come back exactly.
    return {k: v for k, v in snapshot(project / ".omp").items() if not k.startswith("memory-review/journal/")}


def undo(paths: ProjectPaths, session: str, force: bool = False):  # type: ignore[no-untyped-def]
    with project_lock(paths):
        return undo_review(paths, session, force=force)


def test_undo_restores_every_file_exactly(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = ProjectPaths(project)
    note(project, "An older note, kept by a human")
    propose(project, "An older pending rule")
    monkeypatch.setenv("OMP_MEMORY_NOTE_AUTO_KEEP", "1")  # the review also prunes the older note
    before = state(project)

    review(paths, "sess-a", 1)
    assert state(project) != before
    assert not (project / ".omp/memory/notes/an-older-note-kept-by-a-human.md").exists()

    report = undo(paths, "sess-a")
    assert state(project) == before
    assert sorted(report.removed) == [
        "draft skill-1", "note fact-1-the-cache-lives-in-var-cache-app1", "pending: Rule 1: lint with tool1",
    ]
    assert report.restored == ("note an-older-note-kept-by-a-human",)
    with pytest.raises(OmpError, match="already undone"):
        undo(paths, "sess-a")


def test_undo_keeps_what_happened_after_the_review_without_any_force(project: Path) -> None:
    paths = ProjectPaths(project)
    before = state(project)
    review(paths, "sess-b", 2)
    propose(project, "A later proposal from another review")  # changes the pending queue again

    report = undo(paths, "sess-b")
    assert "pending: Rule 2: lint with tool2" in report.removed
    lines = (project / ".omp/memory-review/pending-directives.md").read_text()
    assert "A later proposal from another review" in lines and "Rule 2" not in lines
    assert state(project) != before  # the later item is still there


def test_a_note_edited_by_hand_since_is_left_alone_unless_forced(project: Path) -> None:
    paths = ProjectPaths(project)
    review(paths, "sess-e", 7)
    edited = project / ".omp/memory/notes/fact-7-the-cache-lives-in-var-cache-app7.md"
    edited.write_text(edited.read_text() + "\nA human added this line.\n")
    report = undo(paths, "sess-e")
    assert [k.item for k in report.kept] == ["note fact-7-the-cache-lives-in-var-cache-app7"]
    assert "edited by hand" in report.kept[0].why and edited.exists()
    assert "draft skill-7" in report.removed

    review(paths, "sess-f", 8)
    edited = project / ".omp/memory/notes/fact-8-the-cache-lives-in-var-cache-app8.md"
    edited.write_text("changed")
    assert "note fact-8-the-cache-lives-in-var-cache-app8" in undo(paths, "sess-f", force=True).removed
    assert not edited.exists()


def test_a_crash_between_journal_and_write_undoes_cleanly(project: Path) -> None:
    paths = ProjectPaths(project)
    note(project, "Existing fact")
    target = project / ".omp/memory/notes/existing-fact.md"
    original = target.read_bytes()
    with project_lock(paths):
        Journal(paths, "sess-c").record(target, b"what the review was about to write")
        # ... and the process died here, before the write.
    report = undo(paths, "sess-c")
    assert report.removed == () and report.restored == ()
    assert target.read_bytes() == original


def test_two_reviews_of_one_session_are_undone_together(project: Path) -> None:
    paths = ProjectPaths(project)
    before = state(project)
    review(paths, "sess-d", 3)
    review(paths, "sess-d", 4)  # a resumed session, reviewed again from its cursor
    journal = json.loads((project / ".omp/memory-review/journal/sess-d.json").read_text())
    assert len(journal["batches"]) == 2
    report = undo(paths, "sess-d")
    assert len(report.removed) == 6  # two notes, two queue items, two drafts
    after = state(project)
    # The queue files the first review created stay, empty: item-level undo never deletes a store.
    assert json.loads(after.pop("memory-review/pending.json"))["items"] == []
    assert b"- [ ]" not in after.pop("memory-review/pending-directives.md")
    assert after == before


def test_journals_older_than_90_days_are_cleaned_up(project: Path) -> None:
    import os
    import time

    paths = ProjectPaths(project)
    review(paths, "sess-old", 5)
    old = project / ".omp/memory-review/journal/sess-old.json"
    stamp = time.time() - 91 * 86400
    os.utime(old, (stamp, stamp))
    review(paths, "sess-new", 6)
    assert not old.exists()
    assert (project / ".omp/memory-review/journal/sess-new.json").exists()
