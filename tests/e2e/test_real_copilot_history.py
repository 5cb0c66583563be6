"""`omp eval` and `omp demo` with the real Copilot CLI as reviewer leave the user's Copilot history
as they found it (docs/reviewers.md, docs/behaviour.md#omp-demo-and-omp-eval, docs/explicit-requests-and-eval.md#omp-eval--how-good-is-a-reviewer; COPILOT.md §7–§8).

The real CLI runs offline against the loopback model server (model_server.py). The user has one
session of their own; after `omp eval --reviewer copilot --sample 3 --yes` and after `omp demo
--reviewer copilot`, `C/session-state` and Copilot's session index `C/session-store.db` hold that
session only, and `copilot --continue` resumes it (a trial found one review session left per
eval case, and `--continue` resuming "You review one finished…").
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from copilot_support import copilot_binary, copilot_env
from helpers import run_omp

from model_server import ModelServer, request_text

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(copilot_binary() is None, reason="the real Copilot CLI is not installed "
                       "(run .ci/install-copilot, or set OMP_E2E_COPILOT_BIN)"),
]

SCHEMA = "omp.review.v1"
EMPTY_ANSWER = json.dumps({"schema": SCHEMA, "directives": [], "notes": [], "skill_drafts": [], "forget": []})
USER_PROMPT = "Explain the retry loop in worker.py, please."


def _is_review(body: dict[str, Any]) -> bool:
    return SCHEMA in request_text(body)


class History:
    """The user's Copilot home, as Copilot's own files show it."""

    def __init__(self, home: Path) -> None:
        self.home = home

    def folders(self) -> set[str]:
        state = self.home / "session-state"
        return {p.name for p in state.iterdir() if p.is_dir() and not p.name.startswith(".")}

    def indexed(self) -> dict[str, list[str]]:
        """`C/session-store.db`: session id -> its stored user messages."""
        db = sqlite3.connect(f"file:{self.home / 'session-store.db'}?mode=ro", uri=True)
        try:
            found: dict[str, list[str]] = {sid: [] for (sid,) in db.execute("SELECT id FROM sessions")}
            for sid, message in db.execute("SELECT session_id, user_message FROM turns"):
                found.setdefault(sid, []).append(message or "")
            return found
        finally:
            db.close()

    def assert_only(self, session: str, after: str) -> None:
        assert self.folders() == {session}, f"after {after}: {sorted(self.folders())}"
        indexed = self.indexed()
        assert set(indexed) == {session}, f"after {after}: {indexed}"
        assert not any("You review one" in m for messages in indexed.values() for m in messages), after


def test_eval_and_demo_with_the_real_cli_leave_only_the_users_session(
        project: Path, isolated_home: Path, tmp_path: Path) -> None:
    copilot = str(copilot_binary())
    with ModelServer(default_reply="It retries three times.", record_file=tmp_path / "requests.jsonl") as server:
        server.when(_is_review, EMPTY_ANSWER)
        env = {**copilot_env(isolated_home, server.base_url), "OMP_COPILOT_BIN": copilot, "OMP_TOKENIZER": "estimate",
               "OMP_MEMORY_REVIEW_MODEL": "gpt-5-mini"}
        full = dict(os.environ, **env)
        history = History(isolated_home / ".copilot")

        def run_copilot(*args: str) -> None:
            proc = subprocess.run([copilot, *args, "--model", "gpt-5-mini", "--no-auto-update", "-s"], cwd=project,
                                  env=full, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
            assert proc.returncode == 0, proc.stderr

        def continue_resumes_the_users_session(after: str) -> None:
            before = len(server.chat_requests())
            run_copilot("--continue", "-p", f"And after {after}?")
            (resumed,) = [r.body for r in server.chat_requests()[before:]]
            assert USER_PROMPT in request_text(resumed) and SCHEMA not in request_text(resumed), after
            history.assert_only(user_session, f"copilot --continue after {after}")

        user_session = str(uuid.uuid4())
        run_copilot("-p", USER_PROMPT, "--session-id", user_session)
        history.assert_only(user_session, "the user's own session")

        evaluated = run_omp(["eval", "--reviewer", "copilot", "--sample", "3", "--yes", "--json"], cwd=project,
                            env=env, input="", timeout=300)
        assert evaluated.returncode == 0, evaluated.stderr
        report = evaluated.json()
        assert report["total"]["cases"] == 3 and report["total"]["errors"] == 0, report["cases"]
        reviews = [r for r in server.chat_requests() if _is_review(r.body)]
        assert len(reviews) == 3  # every case reached the real CLI, and through it the model
        history.assert_only(user_session, "omp eval")
        continue_resumes_the_users_session("omp eval")

        demo = run_omp(["demo", "--reviewer", "copilot", "--json"], cwd=project, env=env, input="", timeout=300)
        assert demo.returncode == 0, demo.stdout + demo.stderr
        assert len([r for r in server.chat_requests() if _is_review(r.body)]) == 4
        history.assert_only(user_session, "omp demo --reviewer copilot")
        continue_resumes_the_users_session("omp demo")
