"""Reviewer sessions are removed from Copilot's history: the folder and the store's rows, only
that session's, and a locked or broken store is never damaged (docs/reviewers.md, COPILOT.md §7)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from omp.copilot_history import STORE_NAME, forget_session, new_session_id

# The tables Copilot CLI 1.0.102 creates (abridged to the session-keyed columns), FTS included.
SCHEMA = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, cwd TEXT, summary TEXT);
CREATE TABLE turns (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, turn_index INTEGER,
                    user_message TEXT, assistant_response TEXT);
CREATE TABLE checkpoints (id INTEGER PRIMARY KEY, session_id TEXT, title TEXT);
CREATE TABLE session_files (id INTEGER PRIMARY KEY, session_id TEXT, file_path TEXT);
CREATE TABLE dynamic_context_items (repository TEXT, branch TEXT, src TEXT, name TEXT);
CREATE VIRTUAL TABLE search_index USING fts5(content, session_id UNINDEXED, source_type UNINDEXED,
                                             source_id UNINDEXED);
"""


def _store(copilot: Path, sessions: list[str]) -> Path:
    copilot.mkdir(parents=True, exist_ok=True)
    path = copilot / STORE_NAME
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    db.execute("INSERT INTO dynamic_context_items VALUES ('r', 'main', 'x', 'y')")
    for sid in sessions:
        db.execute("INSERT INTO sessions VALUES (?, '/p', 's')", (sid,))
        db.execute("INSERT INTO turns (session_id, turn_index, user_message) VALUES (?, 0, 'You review one')", (sid,))
        db.execute("INSERT INTO checkpoints (session_id, title) VALUES (?, 't')", (sid,))
        db.execute("INSERT INTO session_files (session_id, file_path) VALUES (?, 'a.py')", (sid,))
        db.execute("INSERT INTO search_index VALUES ('You review one finished session', ?, 'turn', ?)", (sid, sid))
        (copilot / "session-state" / sid).mkdir(parents=True)
        (copilot / "session-state" / sid / "events.jsonl").write_text("{}\n")
    db.commit()
    db.close()
    return path


def _ids(path: Path, table: str, column: str = "session_id") -> list[str]:
    db = sqlite3.connect(path)
    try:
        return sorted(row[0] for row in db.execute(f"SELECT {column} FROM {table}"))
    finally:
        db.close()


def test_only_the_reviewer_session_goes(tmp_path: Path) -> None:
    copilot = tmp_path / ".copilot"
    user, reviewer = new_session_id(), new_session_id()
    store = _store(copilot, [user, reviewer])
    result = forget_session(copilot, reviewer, tmp_path / ".omp")
    assert result.folder_removed and result.rows_removed == 5 and result.store_error is None
    assert not (copilot / "session-state" / reviewer).exists()
    assert (copilot / "session-state" / user / "events.jsonl").exists()
    assert _ids(store, "sessions", "id") == [user]
    for table in ("turns", "checkpoints", "session_files", "search_index"):
        assert _ids(store, table) == [user], table
    db = sqlite3.connect(store)
    assert db.execute("SELECT count(*) FROM search_index WHERE search_index MATCH 'review'").fetchone() == (1,)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert db.execute("SELECT count(*) FROM dynamic_context_items").fetchone() == (1,)
    db.close()


def test_no_store_is_never_created_and_odd_ids_are_refused(tmp_path: Path) -> None:
    copilot = tmp_path / ".copilot"
    (copilot / "session-state" / "keep-me").mkdir(parents=True)
    sid = new_session_id()
    (copilot / "session-state" / sid).mkdir()
    assert forget_session(copilot, sid).folder_removed
    assert not (copilot / STORE_NAME).exists()
    refused = forget_session(copilot, "../keep-me")
    assert not refused.folder_removed and refused.store_error
    assert (copilot / "session-state" / "keep-me").is_dir()


def test_a_locked_store_is_left_intact_and_retried_next_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("omp.copilot_history.LOCK_WAIT_SECONDS", 0.2)
    copilot, omp_home = tmp_path / ".copilot", tmp_path / ".omp"
    first, second = new_session_id(), new_session_id()
    store = _store(copilot, [first, second])
    holder = sqlite3.connect(store, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # the user's own Copilot writing, say
    try:
        locked = forget_session(copilot, first, omp_home)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert locked.store_error and "locked" in locked.store_error
    assert locked.folder_removed  # the folder is gone already: --continue no longer sees it
    assert _ids(store, "sessions", "id") == sorted([first, second])
    assert (omp_home / "state" / "forget-sessions.txt").read_text().split() == [first]

    later = forget_session(copilot, second, omp_home)  # the next reviewer call
    assert later.store_error is None
    assert _ids(store, "sessions", "id") == [] and _ids(store, "turns") == []
    assert not (omp_home / "state" / "forget-sessions.txt").exists()


def test_a_store_that_is_not_a_database_is_not_touched(tmp_path: Path) -> None:
    copilot = tmp_path / ".copilot"
    copilot.mkdir()
    (copilot / STORE_NAME).write_bytes(b"not sqlite at all\n")
    result = forget_session(copilot, new_session_id())
    assert result.store_error
    assert (copilot / STORE_NAME).read_bytes() == b"not sqlite at all\n"


def test_a_copilot_reviewer_call_leaves_no_session_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in copilot writes a session for `--session-id` like the real one; it is gone after."""
    from copilot_support import fake_copilot
    from omp.review.reviewers import ReviewerConfig, call_reviewer

    copilot_home = tmp_path / "home" / ".copilot"
    user = new_session_id()
    store = _store(copilot_home, [user])
    monkeypatch.setenv("OMP_COPILOT_BIN", str(fake_copilot(tmp_path)))
    config = ReviewerConfig("copilot", "gpt-5-mini", None, 30, tmp_path)
    reply = call_reviewer(config, "hello", lambda text: bool(text.strip()))
    assert reply.forgotten is not None and reply.forgotten.folder_removed
    assert sorted(p.name for p in (copilot_home / "session-state").iterdir()) == [user]
    assert _ids(store, "sessions", "id") == [user]


@pytest.mark.slow
def test_sessions_an_earlier_omp_left_are_found_and_cleaned_by_doctors_fix(tmp_path: Path, isolated_home: Path) -> None:
    import json

    from copilot_support import fake_copilot
    from helpers import run_omp

    copilot = isolated_home / ".copilot"
    user, old_review, store_only = new_session_id(), new_session_id(), new_session_id()
    store = _store(copilot, [user, old_review, store_only])
    db = sqlite3.connect(store)
    db.execute("UPDATE sessions SET cwd = '/tmp/omp-review-k2j3h4' WHERE id IN (?, ?)", (old_review, store_only))
    db.commit()
    db.close()
    (copilot / "session-state" / store_only / "events.jsonl").unlink()
    (copilot / "session-state" / store_only).rmdir()
    start = {"type": "session.start", "data": {"sessionId": old_review, "context": {"cwd": "/tmp/omp-review-k2j3h4"}}}
    (copilot / "session-state" / old_review / "events.jsonl").write_text(json.dumps(start) + "\n")
    env = {"OMP_COPILOT_BIN": str(fake_copilot(tmp_path)), "OMP_TOKENIZER": "estimate"}

    def history() -> dict[str, str]:
        report = run_omp(["doctor", "--json"], cwd=tmp_path, env=env).json()
        return next(c for c in report["checks"] if c["name"] == "copilot history")

    found = history()
    assert found["status"] == "warn" and found["detail"].startswith("2 reviewer session(s)")
    result = run_omp(found["fix"].split()[1:], cwd=tmp_path, env=env)  # `omp memory-review clean-history`
    assert result.returncode == 0 and "removed 2 reviewer session(s)" in result.stdout, result.stderr
    assert history()["status"] == "ok"
    assert _ids(store, "sessions", "id") == [user]
    assert sorted(p.name for p in (copilot / "session-state").iterdir()) == [user]
