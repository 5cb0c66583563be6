"""Everything that can make the apply step fail is checked before the reviewer is called
(docs/behaviour.md#the-review-run "Order of work"; issue 10): a broken project never costs a model call, and leaves no
claim or queue entry that would make every later run pay and fail again."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from review_support import FakeReviewer, conversation, json_reply, notes, review, standard_answer, state, write_session


@pytest.fixture
def fake(tmp_path: Path) -> FakeReviewer:
    return FakeReviewer(tmp_path / "fake")


def _bad_note(omp_dir: Path) -> Path:
    path = omp_dir / "memory/notes/broken.md"
    path.write_bytes(b"---\ntitle: \xff\xfe broken\n---\n")
    return path


def _bad_draft(omp_dir: Path) -> Path:
    path = omp_dir / "self-evolve/drafts/half-written/SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\nname: half-written\ndescription: never closed\n")
    return path


def _write(rel: str, data: bytes) -> Callable[[Path], Path]:
    def make(omp_dir: Path) -> Path:
        path = omp_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path
    return make


def _folder(rel: str) -> Callable[[Path], Path]:
    def make(omp_dir: Path) -> Path:
        path = omp_dir / rel
        path.mkdir(parents=True)
        return path
    return make


CORRUPT = {
    "note": _bad_note,
    "draft": _bad_draft,
    "pending.json": _write("memory-review/pending.json", b'{"version": 1, "items": [ {"text": '),
    "pending-directives.md": _write("memory-review/pending-directives.md", b"- [ ] caf\xe9 rules\n"),
    "project-memory.json": _write("project-memory.json", b'{"version": 2, "directives": [1, 2]'),
    "decisions.jsonl": _folder("memory-review/decisions.jsonl"),
}


@pytest.mark.parametrize("store", sorted(CORRUPT))
def test_a_store_that_does_not_parse_costs_no_reviewer_call(project: Path, fake: FakeReviewer, store: str) -> None:
    (state(project) / "memory/notes").mkdir(parents=True)
    broken = CORRUPT[store](state(project))
    before = broken.read_bytes() if broken.is_file() else None
    session = write_session(project, conversation())
    fake.default(json_reply(standard_answer()))
    for _ in range(2):  # a retry pays nothing either: there is no claim or queue entry to loop on
        result = review(project, fake.env(), "--session", session)
        assert result.returncode == 1
        assert str(broken) in result.stderr and "hint:" in result.stderr, result.stderr
        assert not (state(project) / "memory-review/claims" / f"{session}.json").exists()
        assert not (state(project) / "memory-review/queue" / f"{session}.json").exists()
    assert fake.calls() == []
    assert (broken.read_bytes() if broken.is_file() else None) == before  # never rewritten


def test_a_corrupt_journal_of_the_session_costs_no_reviewer_call(project: Path, fake: FakeReviewer) -> None:
    session = write_session(project, conversation())
    journal = state(project) / "memory-review/journal" / f"{session}.json"
    journal.parent.mkdir(parents=True)
    journal.write_text("{\"batches\": ")
    fake.default(json_reply(standard_answer()))
    result = review(project, fake.env(), "--session", session)
    assert result.returncode == 1 and str(journal) in result.stderr and fake.calls() == []


def test_torn_lines_in_decisions_are_not_a_broken_store(project: Path, fake: FakeReviewer) -> None:
    decisions = state(project) / "memory-review/decisions.jsonl"
    decisions.parent.mkdir(parents=True)
    decisions.write_bytes(b'{"ts": "2026-01-01T00:00:00Z", "text": "Use yarn", "status": "rejected"}\n{"ts": "2026-0')
    session = write_session(project, conversation())
    fake.default(json_reply(standard_answer()))
    result = review(project, fake.env(), "--session", session)
    assert result.returncode == 0, result.stderr
    assert len(fake.calls()) == 1 and len(notes(project)) == 1
