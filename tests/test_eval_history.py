"""Reviews that `omp eval`, `omp demo --reviewer copilot` and `omp doctor --deep` start leave the
user's Copilot history exactly as they found it (docs/reviewers.md, docs/behaviour.md#omp-demo-and-omp-eval, docs/explicit-requests-and-eval.md#omp-eval--how-good-is-a-reviewer; COPILOT.md §7–§8).

The stand-in Copilot here does what the real CLI does with a review (tests/e2e has the real
one): it records its session in the Copilot home it runs with — a folder
`C/session-state/<--session-id>/` and rows in `C/session-store.db` — then answers. Eval and demo
keep their sessions in a throwaway Copilot home, but the reviewer needs the user's login, so
it runs with the user's home; before, a shell wrapper switched the home behind omp's back and
omp forgot each reviewer session in the throwaway home, where it never was.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import uuid
from pathlib import Path

import pytest

from helpers import run_omp
from review_support import FAKE, NO_SITE, FakeReviewer, json_reply

EMPTY_ANSWER = {"schema": "omp.review.v1", "directives": [], "notes": [], "skill_drafts": [], "forget": []}

# Records a session as Copilot does, then hands over to the fake reviewer (argv, stdin, answer).
RECORDING_COPILOT = r'''
import json, os, sqlite3, sys
args = sys.argv[1:]
if "--model" in args:  # a model call is a session; `--version` or `plugin list` is none
    sid = args[args.index("--session-id") + 1] if "--session-id" in args else "no-session-id-given"
    home = os.environ.get("COPILOT_HOME") or os.path.join(os.environ["HOME"], ".copilot")
    folder = os.path.join(home, "session-state", sid)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "events.jsonl"), "w") as handle:
        handle.write(json.dumps({"type": "session.start", "data": {"sessionId": sid, "context": {"cwd": os.getcwd()}},
                                 "id": "e1", "timestamp": "2026-12-05T10:00:00.000Z", "parentId": None}) + "\n")
    db = sqlite3.connect(os.path.join(home, "session-store.db"))
    db.execute("CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, cwd TEXT)")
    db.execute("CREATE TABLE IF NOT EXISTS turns (session_id TEXT, user_message TEXT)")
    db.execute("INSERT INTO sessions VALUES (?, ?)", (sid, os.getcwd()))
    db.execute("INSERT INTO turns VALUES (?, ?)", (sid, "You review one finished GitHub Copilot CLI session"))
    db.commit()
    db.close()
    hold = os.environ.get("RECORDING_COPILOT_HOLDS_STORE")
    if hold:  # the user's own Copilot holds the store a while (its own group: omp does not end it)
        import subprocess, time
        flag = os.path.join(folder, "held")
        subprocess.Popen([sys.executable, "-S", "-c",
                          "import sqlite3, sys, time; db = sqlite3.connect(sys.argv[1], isolation_level=None); "
                          "db.execute('BEGIN EXCLUSIVE'); open(sys.argv[2], 'w').close(); time.sleep(float(sys.argv[3]))",
                          os.path.join(home, "session-store.db"), flag, hold],
                         start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
        while not os.path.exists(flag):
            time.sleep(0.01)
sys.argv[1:] = args
exec(compile(open(FAKE).read(), FAKE, "exec"), {"__name__": "__main__"})
'''


class UserHistory:
    """The user's Copilot home with one session of their own in it."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.session = str(uuid.uuid4())
        folder = home / "session-state" / self.session
        folder.mkdir(parents=True)
        (folder / "events.jsonl").write_text(json.dumps({"type": "session.start", "data": {
            "sessionId": self.session, "context": {"cwd": "/work/my-project"}}}) + "\n")
        db = sqlite3.connect(home / "session-store.db")
        db.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, cwd TEXT)")
        db.execute("CREATE TABLE turns (session_id TEXT, user_message TEXT)")
        db.execute("INSERT INTO sessions VALUES (?, ?)", (self.session, "/work/my-project"))
        db.execute("INSERT INTO turns VALUES (?, ?)", (self.session, "fix the flaky test"))
        db.commit()
        db.close()

    def folders(self) -> set[str]:
        return {p.name for p in (self.home / "session-state").iterdir()}

    def stored(self) -> set[str]:
        db = sqlite3.connect(self.home / "session-store.db")
        try:
            return {row[0] for row in db.execute("SELECT id FROM sessions")} | {
                row[0] for row in db.execute("SELECT session_id FROM turns")}
        finally:
            db.close()

    def assert_only_the_users(self) -> None:
        assert self.folders() == {self.session}
        assert self.stored() == {self.session}


def _recording_copilot(tmp_path: Path) -> tuple[FakeReviewer, dict[str, str]]:
    fake = FakeReviewer(tmp_path / "fake")
    fake.default(json_reply(EMPTY_ANSWER))
    script = tmp_path / "fake" / "recording_copilot.py"
    script.write_text(f"FAKE = {str(FAKE)!r}\n" + RECORDING_COPILOT)
    fake.copilot_bin.write_text(f'#!/bin/sh\nexec "{sys.executable}" {NO_SITE} "{script}" "$@"\n')
    scratch = tmp_path / "tmpdir"
    scratch.mkdir()
    return fake, {**fake.env("copilot"), "TMPDIR": str(scratch), "OMP_MEMORY_REVIEW_MODEL": "gpt-5-mini"}


@pytest.mark.parametrize("user_sets_copilot_home", [True, False])
def test_eval_with_the_copilot_reviewer_leaves_the_users_history_as_it_was(
        tmp_path: Path, user_sets_copilot_home: bool) -> None:
    fake, env = _recording_copilot(tmp_path)
    history = UserHistory(Path(os.environ["COPILOT_HOME"]))
    if not user_sets_copilot_home:  # the user relies on ~/.copilot (the same folder here)
        assert Path(os.environ["COPILOT_HOME"]) == Path(os.environ["HOME"]) / ".copilot"
        env = {**env, "COPILOT_HOME": ""}
    result = run_omp(["eval", "--reviewer", "copilot", "--sample", "6", "--yes", "--json"], cwd=tmp_path,
                     env=env, input="", timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.json()["total"]["errors"] == 0
    calls = fake.calls()
    assert calls, "no case reached the reviewer"
    # The reviewer ran with the user's Copilot home (their login)...
    expected = os.environ["COPILOT_HOME"] if user_sets_copilot_home else None
    assert {call.env.get("COPILOT_HOME") for call in calls} == {expected}
    assert not any("OMP_REVIEWER_COPILOT_HOME" in call.env for call in calls)
    # ...and each of its sessions, recorded there, is gone again: folder and store rows.
    history.assert_only_the_users()


def test_demo_with_the_copilot_reviewer_leaves_the_users_history_as_it_was(tmp_path: Path) -> None:
    fake, env = _recording_copilot(tmp_path)
    history = UserHistory(Path(os.environ["COPILOT_HOME"]))
    result = run_omp(["demo", "--reviewer", "copilot", "--json"], cwd=tmp_path, env=env, input="", timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(fake.calls()) == 1
    history.assert_only_the_users()


def test_doctor_deep_leaves_the_users_history_as_it_was(tmp_path: Path) -> None:
    fake, env = _recording_copilot(tmp_path)
    history = UserHistory(Path(os.environ["COPILOT_HOME"]))
    run_omp(["doctor", "--deep"], cwd=tmp_path, env=env, input="", timeout=120)  # other checks may fail here
    assert [call for call in fake.calls() if "--session-id" in call.argv], "doctor --deep called no reviewer"
    history.assert_only_the_users()


@pytest.mark.slow
def test_a_store_the_users_copilot_holds_during_eval_is_cleaned_once_it_is_free(tmp_path: Path) -> None:
    """The user's own Copilot holds `session-store.db` past omp's wait (5 s) while a case's
    reviewer session is being forgotten: the rows stay for now, and the id, kept on the run's
    retry list, must not vanish with the throwaway home: eval retries it in the user's home at
    its end (and leaves it on the user's own list if the store is still held)."""
    fake, env = _recording_copilot(tmp_path)
    history = UserHistory(Path(os.environ["COPILOT_HOME"]))
    corpus = tmp_path / "one.jsonl"
    corpus.write_text(json.dumps({"id": "one", "category": "request", "language": "en", "messages": [
        {"role": "user", "content": "Rename the helper."}, {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "Remember that we deploy with make release."},
        {"role": "assistant", "content": "Noted."}]}) + "\n", encoding="utf-8")
    result = run_omp(["eval", "--reviewer", "copilot", "--corpus", str(corpus), "--yes", "--json"], cwd=tmp_path,
                     env={**env, "RECORDING_COPILOT_HOLDS_STORE": "6.5"}, input="", timeout=120)
    assert result.returncode == 0, result.stderr
    assert len(fake.calls()) == 1
    history.assert_only_the_users()
