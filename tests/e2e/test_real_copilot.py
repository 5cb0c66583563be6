"""End to end with the real Copilot CLI (npm @github/copilot), offline (docs/test-suite.md, COPILOT.md §5).

The CLI runs with `COPILOT_OFFLINE=true COPILOT_PROVIDER_BASE_URL=<loopback>/v1` against the
scripted chat-completions server in model_server.py, which records every request: what the
server saw is exactly what a model would have seen.

What is shown here:
- `omp install` registers the plugin with the real CLI; `copilot -p` fires its sessionEnd hook,
  which detaches `omp memory-review`; the review's `copilot` reviewer (the same CLI, pointed at
  the same server through `G/reviewer.env`, since Copilot strips COPILOT_PROVIDER_* from hook
  environments) answers a canned omp.review.v1 object; a note and a pending directive are
  written; the reviewer's own session leaves no trace, so `copilot --continue` resumes the
  user's; once promoted, the next `copilot -p` sends the directive to the model;
- the hook returns while a slow (30 s) reviewer still runs: `copilot -p` exits at once;
- a reviewer's own session (OMP_REVIEWER=1) starts no review and gets no injected context;
- the repository itself installs both ways (direct path, and marketplace + omp@omp), and its
  hooks fire.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from copilot_support import REPO, copilot_binary, copilot_env, copilot_loader, finish_detached, run_logs, wait_for
from helpers import run_omp

from model_server import ModelServer, request_text

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(copilot_binary() is None, reason="the real Copilot CLI is not installed "
                       "(run .ci/install-copilot, or set OMP_E2E_COPILOT_BIN)"),
]

SCHEMA = "omp.review.v1"
# Not a request the explicit pass would take (its "…, never by hand" would be one): the directive is
# the model's, which is what these tests follow through the real CLI.
PROMPT = ("We deploy this service with the blue-green script in tools/deploy.sh. "
          "Please look at the deploy folder.")
DIRECTIVE = "Deploy with tools/deploy.sh (blue-green), never by hand"
NOTE_TITLE = "Deployment is blue-green via tools/deploy.sh"
REVIEW_ANSWER = json.dumps({
    "schema": SCHEMA,
    "directives": [{"text": DIRECTIVE, "evidence": "We deploy this service with the blue-green script in tools/deploy.sh"}],
    "notes": [{"title": NOTE_TITLE, "body": "Run tools/deploy.sh; it switches traffic between two stacks.",
               "evidence": "the blue-green script in tools/deploy.sh"}],
    "skill_drafts": [],
    "forget": [],
})
NUDGE = "[MEMORY REVIEW]"
# For a session whose hook-started review a test does not check (Rig.run_copilot): above the
# messages one `copilot -p` has, so its review skips the model call (the explicit pass still
# runs). Copilot passes OMP_* to its hooks, and the hook's detached review inherits them.
UNCHECKED_REVIEW = {"OMP_MEMORY_REVIEW_MIN_MESSAGES": "1000"}


def is_review_request(body: dict[str, Any]) -> bool:
    return SCHEMA in request_text(body)


def user_text(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "user")


def system_text(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "system")


class Rig:
    """A project, an isolated home, the model server and the real CLI, wired together."""

    def __init__(self, project: Path, home: Path, server: ModelServer) -> None:
        self.project = project
        self.home = home
        self.server = server
        self.copilot = str(copilot_binary())
        self.env = {
            **copilot_env(home, server.base_url),
            "OMP_COPILOT_BIN": self.copilot,
            "OMP_TOKENIZER": "estimate",
        }
        # What Copilot strips from hook environments, given to hook-started reviews explicitly.
        reviewer_env = home / ".omp" / "reviewer.env"
        reviewer_env.parent.mkdir(parents=True, exist_ok=True)
        reviewer_env.write_text(f"COPILOT_OFFLINE=true\nCOPILOT_PROVIDER_BASE_URL={server.base_url}\n")
        reviewer_env.chmod(0o600)

    def omp(self, *args: str, env: dict[str, str] | None = None) -> Any:
        result = run_omp(list(args), cwd=self.project, env={**self.env, **(env or {})}, timeout=180)
        assert result.returncode == 0, f"omp {' '.join(args)}: {result.stderr}"
        return result

    def run_copilot(self, prompt: str, *extra: str, env: dict[str, str] | None = None,
                    cwd: Path | None = None, model_review: bool = True,
                    ) -> tuple[subprocess.CompletedProcess[str], float, str]:
        """`copilot -p PROMPT`; (process, seconds it took, session id).

        Its sessionEnd hook detaches a review, as every session's does. `model_review=False`
        for a session whose review the test does not check: that review still starts and runs
        the explicit pass, but skips the model call (`UNCHECKED_REVIEW`), which would run the
        real CLI again (~2 s of CPU) for nothing, beside the rest of the test."""
        import uuid

        session_id = str(uuid.uuid4())
        full = dict(os.environ, **self.env, **(env or {}), **({} if model_review else UNCHECKED_REVIEW))
        started = time.monotonic()
        proc = subprocess.run(
            [self.copilot, "-p", prompt, "--model", "gpt-5-mini", "--no-auto-update", "-s",
             "--session-id", session_id, *extra],
            cwd=cwd or self.project, env=full, capture_output=True, text=True, timeout=180,
            stdin=subprocess.DEVNULL,
        )
        took = time.monotonic() - started
        assert proc.returncode == 0, f"copilot failed ({proc.returncode}): {proc.stderr}"
        return proc, took, session_id

    def cli(self, *args: str) -> str:
        """A `copilot` management command (`plugin install …`) with the rig's environment; its stdout."""
        proc = subprocess.run([self.copilot, *args], env=dict(os.environ, **self.env), capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    def requests_with(self, text: str) -> list[dict[str, Any]]:
        return [r.body for r in self.server.chat_requests() if text in request_text(r.body)]

    def pending(self) -> list[str]:
        path = self.project / ".omp" / "memory-review" / "pending-directives.md"
        return [line for line in path.read_text().splitlines() if line.startswith("- [ ]")] if path.exists() else []

    def note_titles(self) -> list[str]:
        folder = self.project / ".omp" / "memory" / "notes"
        return [p.read_text() for p in folder.glob("*.md")] if folder.is_dir() else []

    def review_log(self) -> list[dict[str, Any]]:
        path = self.project / ".omp" / "state" / "memory-review.log"
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


@pytest.fixture
def server(tmp_path: Path):
    srv = ModelServer(default_reply="OK.", record_file=tmp_path / "model-requests.jsonl")
    with srv:
        yield srv


@pytest.fixture
def rig(project: Path, isolated_home: Path, server: ModelServer, ends_detached_runs: None):
    rig = Rig(project, isolated_home, server)
    rig.omp("config", "set", "memory-mode", "on")
    # A one-prompt `copilot -p` session has 2 messages; the default skips sessions under 4.
    rig.omp("config", "set", "memory-review-min-messages", "1")
    rig.omp("config", "set", "memory-review-timeout", "60")
    yield rig
    # A review the hooks detached that the test did not wait for (each session's sessionEnd
    # starts one) is ended with its tree, reviewer included, by `ends_detached_runs` right after
    # this, before the model server stops: the test has asserted all it asserts, and running it
    # to its end cost a real-CLI review (~3 s of CPU) that nothing checked. Nothing lingers.
    server.release()


# ---------------------------------------------------------------------------------------------


def test_the_npm_loader_runs_the_native_binary(isolated_home: Path) -> None:
    """The suite calls the platform binary npm's loader runs (copilot_support._native_binary),
    one node start-up fewer per call: both answer alike, output and exit status."""
    loader = copilot_loader()
    if loader is not None and loader.resolve().name == "npm-loader.js":  # npm's install: the suite skips it
        assert copilot_binary() != loader, "the tests would start node before every CLI call"
    env = dict(os.environ, **copilot_env(isolated_home))
    answers = []
    for program in (loader, copilot_binary()):
        version = subprocess.run([str(program), "--version"], env=env, capture_output=True, text=True, timeout=120,
                                 stdin=subprocess.DEVNULL)
        wrong = subprocess.run([str(program), "--no-such-flag"], env=env, capture_output=True, text=True,
                               timeout=120, stdin=subprocess.DEVNULL)
        answers.append((version.returncode, version.stdout, wrong.returncode, wrong.stderr))
    assert answers[0] == answers[1], answers
    assert answers[0][0] == 0 and answers[0][1].startswith("GitHub Copilot CLI ") and answers[0][2] == 1, answers[0]


def test_session_end_review_writes_memory_the_next_session_receives(rig: Rig) -> None:
    rig.server.when(is_review_request, REVIEW_ANSWER)
    install = rig.omp("install")
    assert "registered: plugin omp" in install.stdout

    _, took, session_id = rig.run_copilot(PROMPT)
    # The sessionEnd hook detached the review; Copilot did not wait for it.
    (log,) = wait_for(lambda: run_logs(rig.project, f"review-{session_id}-"), 30, "the hook's review run log")
    wait_for(lambda: any(DIRECTIVE in line for line in rig.pending()), 120,
             f"the pending directive (review log: {log})")
    wait_for(lambda: any(NOTE_TITLE in text for text in rig.note_titles()), 30, "the note")

    # The reviewer was the real CLI, sent the redacted packet with the user's words, no tools.
    (review_request,) = [r.body for r in rig.server.chat_requests() if is_review_request(r.body)]
    assert "blue-green script in tools/deploy.sh" in request_text(review_request)
    assert not review_request.get("tools")
    outcome = wait_for(lambda: [x for x in rig.review_log() if x.get("session") == session_id], 30, "the review log")
    assert outcome[-1]["outcome"] == "ran" and outcome[-1]["backend"] == "copilot", outcome
    # The cost ledger holds the call, with the premium requests the real CLI reported.
    (record,) = [json.loads(line) for line in (rig.project / ".omp/state/cost.jsonl").read_text().splitlines()]
    assert record["outcome"] == "ok" and record["backend"] == "copilot", record
    assert record["premium_requests"] == 0, record  # offline (BYOK) runs are not premium
    assert rig.omp("cost", "--json").json()["total"]["calls"] == 1

    # The review, run to its end, left no trace of the reviewer's own session, and
    # `copilot --continue` resumes the user's (formerly test_continue_resumes_the_users_session_not_the_review).
    _continue_resumes_the_users_session_not_the_review(rig, session_id)

    # Nothing pending reaches Copilot before a human approves it...
    before = len(rig.server.chat_requests())
    _, _, second = rig.run_copilot("What should I know before deploying?", model_review=False)
    nudged = [r.body for r in rig.server.chat_requests()[before:] if not is_review_request(r.body)]
    assert nudged and DIRECTIVE not in system_text(nudged[0])
    assert NUDGE in user_text(nudged[0])  # ...but the session start says it awaits review.

    rig.omp("project-memory", "promote-directive", "1")
    instructions = (rig.project / ".github" / "copilot-instructions.md").read_text()
    assert DIRECTIVE in instructions

    before = len(rig.server.chat_requests())
    rig.run_copilot("Ship the new build, please.", model_review=False)
    shipped = [r.body for r in rig.server.chat_requests()[before:] if not is_review_request(r.body)]
    assert shipped, "the second session sent nothing to the model"
    assert DIRECTIVE in system_text(shipped[0])  # from the managed block Copilot reads
    assert NUDGE not in user_text(shipped[0])

    # memory-inject=hook: no instruction file; the sessionStart hook carries the same memory.
    rig.omp("config", "set", "memory-inject", "hook")
    instructions_file = rig.project / ".github" / "copilot-instructions.md"
    assert not instructions_file.exists() or DIRECTIVE not in instructions_file.read_text()
    before = len(rig.server.chat_requests())
    rig.run_copilot("And the staging stack?", model_review=False)
    hooked = [r.body for r in rig.server.chat_requests()[before:] if not is_review_request(r.body)]
    assert DIRECTIVE in user_text(hooked[0]) and DIRECTIVE not in system_text(hooked[0])
    assert NOTE_TITLE in user_text(hooked[0])


def test_a_two_message_session_that_asks_to_remember_is_kept_with_default_settings(rig: Rig) -> None:
    """`copilot -p "… Remember that …"` is 2 messages, under the default minimum of 4: the model
    call is skipped (no bill), but the user's own words still become a pending item."""
    rig.omp("config", "unset", "memory-review-min-messages")
    rig.omp("install", "--hooks-only")
    _, _, session_id = rig.run_copilot("Fix the typo in the README. Remember that we deploy with make release.")
    wait_for(lambda: any("make release" in line for line in rig.pending()), 60, "the explicit request's pending item")
    outcome = wait_for(lambda: [x for x in rig.review_log() if x.get("session") == session_id], 30, "the review log")
    assert outcome[-1]["outcome"] == "ran", outcome
    assert not [r for r in rig.server.chat_requests() if is_review_request(r.body)]  # no model call was paid


def test_copilot_exits_at_once_while_a_slow_reviewer_runs(rig: Rig) -> None:
    rig.server.when(is_review_request, REVIEW_ANSWER, delay=30)
    rig.omp("install", "--hooks-only")
    _, took, session_id = rig.run_copilot(PROMPT)
    # The review's reviewer is now waiting 30 s for the model; the session has ended anyway.
    wait_for(lambda: rig.requests_with(SCHEMA), 60, "the reviewer's request to reach the model")
    assert took < 15, f"copilot -p took {took:.1f}s: the sessionEnd hook waited for the review"
    assert rig.pending() == []  # the review is still running, nothing written yet
    claim = rig.project / ".omp" / "memory-review" / "claims" / f"{session_id}.json"
    record = json.loads(wait_for(lambda: claim.exists() and claim.read_text(), 30, "the review's claim"))
    assert record["state"] != "done"
    # The model answers at last (cut short here): the review, long detached, still lands.
    rig.server.release()
    wait_for(lambda: any(DIRECTIVE in line for line in rig.pending()), 60, "the slow review's directive")


def test_reviewer_session_is_left_alone(rig: Rig) -> None:
    rig.omp("install", "--hooks-only")
    rig.omp("config", "set", "memory-inject", "hook")
    rig.omp("project-memory", "add-directive", "Keep the changelog up to date")
    rig.omp("project-memory", "add-note", "Release checklist lives in RELEASING.md")

    before = len(rig.server.chat_requests())
    _, _, reviewer_session = rig.run_copilot("hello", env={"OMP_REVIEWER": "1"})
    (body,) = [r.body for r in rig.server.chat_requests()[before:]]
    assert "Keep the changelog up to date" not in request_text(body)
    assert run_logs(rig.project, f"review-{reviewer_session}-") == []

    # (The same setup without OMP_REVIEWER injects this context and starts a review: see
    # test_session_end_review_writes_memory_the_next_session_receives.)


def _export_repository(target: Path) -> Path:
    """The repository's plugin files as a clone has them (a clone also has omp/, tests/, …): the
    plugin folder inside the package, and the root's links to it (docs/install.md, files once)."""
    for relative in (".github/plugin/marketplace.json", "omp/plugin/plugin.json", "omp/plugin/hooks/hooks.json",
                     "omp/plugin/hooks/run", "omp/plugin/hooks/run.ps1"):
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / relative, target / relative)
    for link in ("plugin.json", "hooks"):
        assert (REPO / link).is_symlink(), f"the repository root's {link} is a link into omp/plugin/"
        (target / link).symlink_to(os.readlink(REPO / link))
    return target


@pytest.mark.parametrize("how", ["direct", "plugin-folder", "marketplace"])
def test_repository_installs_and_its_hooks_fire(rig: Rig, tmp_path: Path, how: str) -> None:
    clone = _export_repository(tmp_path / "omp-clone")
    copilot = rig.cli
    if how == "direct":
        copilot("plugin", "install", str(clone))  # the clone's root: plugin.json and hooks/ are links
        expected = ("omp", "")
    elif how == "plugin-folder":
        copilot("plugin", "install", str(clone / "omp" / "plugin"))
        expected = ("omp", "")
    else:
        copilot("plugin", "marketplace", "add", str(clone))
        copilot("plugin", "install", "omp@omp")
        expected = ("omp", "omp")
    listed = [(p["name"], p["marketplace"]) for p in json.loads(copilot("plugin", "list", "--json")) if p["enabled"]]
    assert expected in listed

    # A clone has no baked interpreter: the hooks find omp through $OMP_PYTHON or omp on PATH.
    hook_env = ({"OMP_PYTHON": sys.executable} if how != "marketplace"
                else {"PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"})
    if how == "marketplace" and not (Path(sys.executable).parent / "omp").exists():
        hook_env = {"OMP_PYTHON": sys.executable}
    rig.omp("project-memory", "add-directive", "Prefer small pull requests")
    from omp.memory.items import DirectiveProposal
    from omp.memory.store import propose_directives
    from omp.paths import ProjectPaths

    propose_directives(ProjectPaths(rig.project), [DirectiveProposal("Squash before merging", "s1", "e")])
    before = len(rig.server.chat_requests())
    _, _, session_id = rig.run_copilot("hello", env=hook_env, model_review=False)
    body = [r.body for r in rig.server.chat_requests()[before:] if not is_review_request(r.body)][0]
    assert NUDGE in user_text(body)  # sessionStart ran
    wait_for(lambda: run_logs(rig.project, f"review-{session_id}-"), 30, "sessionEnd's review")


# ---------------------------------------------------------------------------------------------
# living with Copilot every day (issue 12)


def _store_sessions(rig: Rig) -> dict[str, list[str]]:
    """Copilot's own index of sessions (`C/session-store.db`): id -> the user messages stored."""
    import sqlite3

    store = rig.home / ".copilot" / "session-store.db"
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        found: dict[str, list[str]] = {sid: [] for (sid,) in db.execute("SELECT id FROM sessions")}
        for sid, message in db.execute("SELECT session_id, user_message FROM turns"):
            found.setdefault(sid, []).append(message or "")
        return found
    finally:
        db.close()


def _session_folders(rig: Rig) -> set[str]:
    state = rig.home / ".copilot" / "session-state"
    return {p.name for p in state.iterdir() if p.is_dir() and not p.name.startswith(".")}


def _continue_resumes_the_users_session_not_the_review(rig: Rig, user_session: str) -> None:
    """After the review of `user_session` (the session's only one, by the real CLI, answered
    with REVIEW_ANSWER) has written its directive: no trace of the reviewer's own session, and
    `copilot --continue` resumes the user's session, not the review's. Part of
    test_session_end_review_writes_memory_the_next_session_receives, which makes that session
    and review and checks what the review wrote: one real session and review for both."""
    finish_detached(rig.project)
    assert len(rig.requests_with(SCHEMA)) == 1  # the review really called the real CLI

    # No trace of the reviewer's own session: not in session-state, not in the store.
    assert _session_folders(rig) == {user_session}
    stored = _store_sessions(rig)
    assert set(stored) == {user_session}, stored
    assert not any("You review one" in m for messages in stored.values() for m in messages)

    # `copilot --continue` picks the user's conversation up again.
    before = len(rig.server.chat_requests())
    full = dict(os.environ, **rig.env)
    full.update(UNCHECKED_REVIEW)  # its own sessionEnd review of the new turn is not checked here
    proc = subprocess.run(
        [rig.copilot, "--continue", "-p", "And what about rollbacks?", "--model", "gpt-5-mini",
         "--no-auto-update", "-s"],
        cwd=rig.project, env=full, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    (resumed,) = [r.body for r in rig.server.chat_requests()[before:] if not is_review_request(r.body)][:1]
    assert "blue-green script in tools/deploy.sh" in user_text(resumed)  # the user's earlier turn
    assert SCHEMA not in request_text(resumed)
    events = (rig.home / ".copilot" / "session-state" / user_session / "events.jsonl").read_text()
    assert "And what about rollbacks?" in events


def _queue_entry(rig: Rig, session_id: str) -> dict[str, Any] | None:
    path = rig.project / ".omp" / "memory-review" / "queue" / f"{session_id}.json"
    return json.loads(path.read_text()) if path.exists() else None


def test_byok_provider_reaches_hook_reviews_only_through_reviewer_env(rig: Rig) -> None:
    """The user's Copilot works through COPILOT_OFFLINE/COPILOT_PROVIDER_BASE_URL set in the shell
    (bring your own model). Copilot strips those from hooks: without reviewer.env every
    hook-started review fails, and doctor --deep says so and how to fix it."""
    rig.server.when(is_review_request, REVIEW_ANSWER)
    rig.omp("install", "--hooks-only")
    reviewer_env = rig.home / ".omp" / "reviewer.env"
    reviewer_env.unlink()

    # 1. The session itself works (the shell has the provider); its hook-started review cannot.
    _, _, first = rig.run_copilot(PROMPT)
    entry = wait_for(lambda: _queue_entry(rig, first), 60, "the failed review's queue entry")
    assert "not authenticated" in entry["last_error"], entry
    assert "reviewer.env" in entry["hint"], entry  # not only "copilot login"
    assert rig.requests_with(SCHEMA) == []

    # 2. doctor --deep tests the hook's case, fails, and names the fix.
    doctor = run_omp(["doctor", "--deep"], cwd=rig.project, env=rig.env, timeout=180)
    assert doctor.returncode == 1, doctor.stdout
    (line,) = [x for x in doctor.stdout.splitlines() if x.lstrip().startswith("fail") and "reviewer" in x]
    fix = doctor.stdout.split(line, 1)[1].splitlines()[1].split("fix:", 1)[1].strip()
    assert "reviewer.env" in fix and "COPILOT_PROVIDER_BASE_URL" in line, doctor.stdout
    # 3. The fix is a command that works: run it in the user's shell, and doctor passes.
    fix_command = fix.split("   (then:")[0]
    subprocess.run(["sh", "-c", fix_command], env=dict(os.environ, **rig.env), check=True)
    assert "COPILOT_PROVIDER_BASE_URL=" in reviewer_env.read_text()
    assert reviewer_env.stat().st_mode & 0o077 == 0
    doctor = run_omp(["doctor", "--deep"], cwd=rig.project, env=rig.env, timeout=180)
    assert doctor.returncode == 0, doctor.stdout
    assert "hook-started review" in doctor.stdout

    # 4. Now a hook-started review reaches the provider, through reviewer.env alone.
    _, _, second = rig.run_copilot(PROMPT)
    wait_for(lambda: any(DIRECTIVE in line for line in rig.pending()), 120, "the review via reviewer.env")
    assert _queue_entry(rig, second) is None


def test_a_chronicle_style_rewrite_is_restored_at_the_next_session(rig: Rig) -> None:
    """`/chronicle improve` edits .github/copilot-instructions.md with the agent's file tools: here
    the edit is simulated (its own rules added, omp's directive "improved" inside the block)."""
    from memory_support import block_of, outside_block

    rig.omp("install", "--hooks-only")
    rig.omp("project-memory", "add-directive", DIRECTIVE)
    instructions = rig.project / ".github" / "copilot-instructions.md"
    edited = instructions.read_text().replace(DIRECTIVE, "Deploy by hand when in a hurry")
    instructions.write_text("# Learned from your sessions\n\n- Run make lint before pushing.\n\n" + edited)
    outside = outside_block(instructions)

    rig.run_copilot("hello", model_review=False)  # its sessionStart hook finds the file out of step with omp's stores
    assert DIRECTIVE in block_of(instructions) and "by hand when in a hurry" not in block_of(instructions)
    assert outside_block(instructions) == outside  # the other tool's text, byte for byte
    log = (rig.home / ".omp" / "logs" / "hooks.log").read_text()
    assert "edited by another tool" in log

    before = len(rig.server.chat_requests())
    rig.run_copilot("Ship it.", model_review=False)
    (body,) = [r.body for r in rig.server.chat_requests()[before:] if not is_review_request(r.body)][:1]
    assert DIRECTIVE in system_text(body) and "by hand when in a hurry" not in system_text(body)
    assert "Run make lint before pushing." in system_text(body)


def test_doctor_fixes_work_and_install_force_replaces_a_hand_made_registration(rig: Rig, tmp_path: Path) -> None:
    """The repository added as a marketplace, then `omp install` too: twice registered. doctor's
    fix line is a command that fixes it; `omp install --force` replaces what it recognises."""
    clone = _export_repository(tmp_path / "omp-clone")
    copilot = rig.cli

    def enabled() -> list[tuple[str, str]]:
        return [(p["name"], p["marketplace"]) for p in json.loads(copilot("plugin", "list", "--json"))
                if p["enabled"] and p["name"] == "omp"]

    copilot("plugin", "marketplace", "add", str(clone))
    copilot("plugin", "install", "omp@omp")
    assert "loaded live" in copilot("plugin", "list") or enabled() == [("omp", "omp")]
    refused = run_omp(["install"], cwd=rig.project, env=rig.env, timeout=180)
    assert refused.returncode != 0 and "already registered" in refused.stderr  # never silently replaced

    rig.omp("install", "--hooks-only", "--force")  # recognised as omp's: replaced, not doubled
    assert enabled() == []
    assert (rig.home / ".copilot" / "hooks" / "omp.json").is_file()

    # Twice registered by hand: doctor says so, and its fix line is the command that fixes it.
    copilot("plugin", "marketplace", "add", str(clone))
    copilot("plugin", "install", "omp@omp")
    doctor = run_omp(["doctor", "--json"], cwd=rig.project, env=rig.env, timeout=180).json()
    (dup,) = [c for c in doctor["checks"] if c["name"] == "registration" and c["status"] == "fail"]
    # It names the Copilot CLI omp found (no `copilot` on PATH here), so it runs as printed.
    assert dup["fix"] == f"{shlex.quote(rig.copilot)} plugin marketplace remove omp"
    subprocess.run(["sh", "-c", dup["fix"]], env=dict(os.environ, **rig.env), check=True)
    again = run_omp(["doctor", "--json"], cwd=rig.project, env=rig.env, timeout=180).json()
    assert [c["status"] for c in again["checks"] if c["name"] == "registration"] == ["ok"], again
