"""The reviewer's own error reaches the user (docs/reviewers.md, docs/doctor.md): the log line, the queue entry and
`omp doctor` hold its words — Copilot's `session.error`, a command's stderr, a server's error body
— redacted, on one line, with the fix its cause calls for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from omp.review.queue import MAX_TEXT_CHARS
from omp.review.reviewers import DETAIL_CHARS
from openai_stub import StubServer, error
from review_support import FakeReviewer, conversation, log_lines, omp, reply, review, state, write_session

PORT_URL = "http://127.0.0.1:43219/v1"
# A GitHub token shape omp's redaction knows, and a provider key known only by where it was put.
GITHUB_TOKEN = "ghp_" + "R4nd0mT0k3nV4lu3F0rT3st1ngXyZ0123456789"[:36]
PROVIDER_KEY = "plain-words-provider-key-7731"


@pytest.fixture
def fake(tmp_path: Path) -> FakeReviewer:
    return FakeReviewer(tmp_path / "fake")


def _events(*events: dict[str, Any], exit_code: int = 1) -> str:
    """`copilot --output-format json` output, as Copilot CLI 1.0.102 prints a failed run."""
    lines = [
        {"type": "session.info", "data": {"infoType": "configuration", "message": "Disabled tools: bash"}},
        {"type": "user.message", "data": {"content": "the prompt"}},
        {"type": "assistant.turn_start", "data": {"turnId": "0"}},
        *events,
        {"type": "assistant.turn_end", "data": {"turnId": "0"}},
        {"type": "result", "sessionId": "b6e542a0-87d1-46f2-9a0a-8bc27f0fe1d2", "exitCode": exit_code,
         "usage": {"premiumRequests": 0, "totalApiDurationMs": 0}},
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


def _session_error(message: str, status: int | None, error_type: str = "query") -> dict[str, Any]:
    data: dict[str, Any] = {"errorType": error_type, "message": message}
    if status is not None:
        data["statusCode"] = status
    return {"type": "session.error", "data": data}


def _queue_entry(project: Path, session: str) -> dict[str, Any]:
    path = state(project) / "memory-review" / "queue" / f"{session}.json"
    return json.loads(path.read_text())


def _reviewer_env(home: Path, text: str) -> None:
    path = home / ".omp" / "reviewer.env"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o600)


def _failed_review(project: Path, env: dict[str, str]) -> tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Review a fresh session with a failing reviewer: (its id, the --json outcome, the log line,
    the queue entry). Checks what every failure must hold: one line, bounded, in all three."""
    session = write_session(project, conversation())
    result = review(project, env, "--session", session)
    assert result.returncode == 1, result.stderr
    out = result.json()
    [line] = [x for x in log_lines(project) if x["session"] == session]
    entry = _queue_entry(project, session)
    for text in (entry["last_error"], entry["hint"], line["reason"], line["hint"]):
        assert "\n" not in text and len(text) <= MAX_TEXT_CHARS
    assert entry["hint"] == line["hint"] == out["hint"]
    return session, out, line, entry


def _doctor_text(project: Path, env: dict[str, str]) -> str:
    """`omp doctor --json`'s queue checks (it reads the queue; no reviewer is called)."""
    result = omp(project, {**env, "OMP_COPILOT_BIN": "/nonexistent/copilot"}, "doctor", "--json")
    checks = result.json()["checks"]
    return json.dumps([c for c in checks if c["name"] in ("queue", "failed-reviews")])


# ---------------------------------------------------------------------------------------------
# copilot: the session.error event


def test_copilot_model_not_found_on_a_provider_names_the_model_setting(
    project: Path, fake: FakeReviewer, isolated_home: Path
) -> None:
    """What the real CLI prints when a BYOK provider lacks the model (COPILOT.md §8): the words
    reach the log, the queue and doctor; the fix is memory-review-model, not 'switch to offline'."""
    _reviewer_env(isolated_home, f"COPILOT_OFFLINE=true\nCOPILOT_PROVIDER_BASE_URL={PORT_URL}\n")
    message = (f"Model 'gpt-5-mini' not found on provider at {PORT_URL} (HTTP 404).\n"
               "  Check that the model is available on your provider.")
    failure = {"type": "model.call_failure", "data": {"statusCode": 404, "errorMessage": '{"message":"nope"}'}}
    fake.queue(reply(_events(failure, _session_error(message, 404)), exit=1))
    session, out, line, entry = _failed_review(project, fake.env("copilot"))
    said = f"Model 'gpt-5-mini' not found on provider at {PORT_URL} (HTTP 404). Check that the model"
    assert entry["kind"] == "model" and said in entry["last_error"]
    assert said in line["reason"] and said in out["reason"]
    for hint in (entry["hint"], line["hint"]):
        assert "omp config set memory-review-model" in hint and PORT_URL in hint
        assert "offline" not in hint
    assert said in _doctor_text(project, fake.env("copilot"))


def test_copilot_provider_refusing_the_key_names_reviewer_env_not_copilot_login(
    project: Path, fake: FakeReviewer, isolated_home: Path
) -> None:
    _reviewer_env(isolated_home, f"COPILOT_OFFLINE=true\nCOPILOT_PROVIDER_BASE_URL={PORT_URL}\n"
                                 f"COPILOT_PROVIDER_API_KEY={PROVIDER_KEY}\n")
    message = (f"Authentication failed with provider at {PORT_URL} (HTTP 401).\n  Check your COPILOT_PROVIDER_API_KEY, "
               f"COPILOT_PROVIDER_API_KEY_COMMAND, or COPILOT_PROVIDER_BEARER_TOKEN. (sent {PROVIDER_KEY})")
    fake.queue(reply(_events(_session_error(message, 401, "authentication")), exit=1))
    _, out, line, entry = _failed_review(project, fake.env("copilot"))
    assert entry["kind"] == "auth" and "Authentication failed with provider" in entry["last_error"]
    assert "reviewer.env" in entry["hint"] and "COPILOT_PROVIDER_API_KEY" in entry["hint"]
    assert "copilot login" not in entry["hint"]
    # The key the reviewer was given never reaches a log, the queue or the terminal.
    everything = json.dumps([out, line, entry])
    assert PROVIDER_KEY not in everything and "[REDACTED]" in entry["last_error"]


def test_copilot_without_a_login_still_names_copilot_login(project: Path, fake: FakeReviewer) -> None:
    stderr = ("Error: No authentication information found.\n\nCopilot can be authenticated with GitHub using an "
              "OAuth Token.\n\nTo authenticate, you can use any of the following methods:\n"
              "  • Start 'copilot' and run the '/login' command\n")
    fake.queue(reply(stderr=stderr, exit=1))
    _, _, _, entry = _failed_review(project, fake.env("copilot"))
    assert entry["kind"] == "auth"
    assert "Error: No authentication information found." in entry["last_error"]
    assert "run: copilot login" in entry["hint"]


def test_copilot_asking_for_a_provider_setting_names_it_and_reviewer_env(project: Path, fake: FakeReviewer) -> None:
    """COPILOT_OFFLINE reached the reviewer and COPILOT_PROVIDER_BASE_URL did not (the real CLI's
    words): the fix puts that variable in reviewer.env."""
    stderr = "Offline mode requires a local model provider. Set COPILOT_PROVIDER_BASE_URL to configure one."
    fake.queue(reply(stderr=stderr, exit=1))
    _, _, line, entry = _failed_review(project, {**fake.env("copilot"), "COPILOT_OFFLINE": "true"})
    assert entry["kind"] == "not-configured" and stderr in entry["last_error"]
    assert "COPILOT_PROVIDER_BASE_URL" in entry["hint"] and "reviewer.env" in entry["hint"]
    assert line["hint"] == entry["hint"]


def test_copilot_error_holding_a_token_and_a_thousand_lines_is_redacted_and_cut(
    project: Path, fake: FakeReviewer
) -> None:
    message = f"Request failed for token {GITHUB_TOKEN}: " + "\n".join(f"frame {n} of a long trace" for n in range(1000))
    fake.queue(reply(_events(_session_error(message, 400)), exit=1))
    _, out, line, entry = _failed_review(project, fake.env("copilot"))
    everything = json.dumps([out, line, entry])
    assert GITHUB_TOKEN not in everything and "Request failed for token" in entry["last_error"]
    said = entry["last_error"].split(": ", 1)[1]
    assert len(said) <= DETAIL_CHARS + 40 and said.endswith("…")
    assert "memory-reviewer offline" in entry["hint"]  # an unknown cause: check it, or go offline


def test_a_lone_session_error_line_in_any_key_order_is_read(project: Path, fake: FakeReviewer) -> None:
    """Nothing but the event, its keys in another order, exit 1: still Copilot's words and the fix."""
    line = json.dumps({"data": {"message": "Model \"gpt-9\" is not available.", "errorType": "query"},
                       "type": "session.error"})
    fake.queue(reply(line + "\n", exit=1))
    _, _, _, entry = _failed_review(project, fake.env("copilot"))
    assert entry["kind"] == "model" and 'Model "gpt-9" is not available.' in entry["last_error"]
    assert "omp config set memory-review-model" in entry["hint"]


def test_copilots_authentication_error_type_decides_without_a_status(project: Path, fake: FakeReviewer) -> None:
    event = _session_error("Your session has expired; sign-in is required again.", None, "authentication")
    fake.queue(reply(_events(event), exit=1))
    _, _, _, entry = _failed_review(project, fake.env("copilot"))
    assert entry["kind"] == "auth" and "Your session has expired" in entry["last_error"]
    assert "copilot login" in entry["hint"]


# ---------------------------------------------------------------------------------------------
# command: stderr


@pytest.mark.parametrize(
    ("stderr", "kind", "said", "hint"),
    [
        ("loading model...\nError: model 'llama-9' not found, try pulling it first\n"
         "    at run (/usr/lib/node_modules/llm/cli.js:42:7)\n", "model",
         "Error: model 'llama-9' not found", "omp config set memory-review-model"),
        ("Traceback (most recent call last):\n  File \"r.py\", line 3, in <module>\nRuntimeError: the backend "
         "exploded at step 3\n", "failed", "RuntimeError: the backend exploded at step 3", "memory-reviewer-command"),
        ("401 Unauthorized: invalid api key\n", "auth", "401 Unauthorized", "reviewer.env"),
        ("node:internal/modules/cjs/loader:1228\nError [ERR_MODULE_NOT_FOUND]: Cannot find package 'x' set up\n",
         "failed", "ERR_MODULE_NOT_FOUND", "memory-reviewer-command"),
    ],
)
def test_a_command_reviewers_stderr_is_its_error(project: Path, fake: FakeReviewer, stderr: str, kind: str, said: str,
                                                 hint: str) -> None:
    fake.queue(reply(stderr=stderr, exit=2))
    _, out, line, entry = _failed_review(project, fake.env("command"))
    assert entry["kind"] == kind, entry
    assert said in entry["last_error"] and said in line["reason"] and said in out["reason"]
    assert hint in entry["hint"]


def test_a_command_that_prints_its_error_on_stdout_only_is_heard(project: Path, fake: FakeReviewer) -> None:
    fake.queue(reply("usage: reviewer [--model M]\nerror: unrecognized arguments: --fast\nSee reviewer --help.\n",
                     exit=2))
    _, _, _, entry = _failed_review(project, fake.env("command"))
    assert "error: unrecognized arguments: --fast" in entry["last_error"]
    assert "exited with code 2" in entry["last_error"]


# ---------------------------------------------------------------------------------------------
# openai: the HTTP error body


def test_an_openai_404_body_reaches_the_queue_and_doctor(project: Path, isolated_home: Path) -> None:
    """The server's words, with the key reviewer.env holds echoed back: the key is cut, and it is
    reviewer.env's key that a review run by hand sends, as a hook-started one would."""
    _reviewer_env(isolated_home, f"OMP_REVIEWER_API_KEY={PROVIDER_KEY}\n")
    with StubServer() as stub:
        stub.then(error(404, f"model 'qwen9' not found, try pulling it first (key {PROVIDER_KEY}, {GITHUB_TOKEN})"))
        env = {"OMP_MEMORY_MODE": "on", "OMP_MEMORY_REVIEWER": "openai", "OMP_MEMORY_REVIEWER_URL": stub.url,
               "OMP_MEMORY_REVIEW_MODEL": "qwen9", "OMP_TOKENIZER": "estimate", "OMP_REVIEWER_API_KEY": "shell-key"}
        _, out, line, entry = _failed_review(project, env)
        assert [seen.headers.get("Authorization") for seen in stub.seen] == [f"Bearer {PROVIDER_KEY}"]
    assert entry["kind"] == "model" and "model 'qwen9' not found, try pulling it first" in entry["last_error"]
    assert "omp config set memory-review-model" in entry["hint"]
    assert GITHUB_TOKEN not in json.dumps([out, line, entry]) and PROVIDER_KEY not in json.dumps([out, line, entry])
    assert "model 'qwen9' not found" in _doctor_text(project, env)


def test_the_queue_keeps_one_redacted_bounded_line_whatever_it_is_given(project: Path) -> None:
    """The queue is where doctor and the nudge read the error later: it bounds what it stores
    itself, for every caller (an invalid answer's parse error, a future backend's message)."""
    from omp.paths import ProjectPaths
    from omp.review import queue

    paths = ProjectPaths(project)
    error = "invalid answer:\n" + f"token={GITHUB_TOKEN}\n" + "x" * 5000
    entry = queue.record_failure(paths, "0d6a2a74-3199-45a4-8b92-b69a30abb8a5", error, "fix\nit", "invalid-answer")
    stored = _queue_entry(project, entry.session)
    assert stored["last_error"].startswith("invalid answer: ") and GITHUB_TOKEN not in stored["last_error"]
    assert len(stored["last_error"]) == MAX_TEXT_CHARS and "\n" not in stored["last_error"]
    assert stored["hint"] == "fix it"


# ---------------------------------------------------------------------------------------------
# reading the words (no process)


@pytest.mark.parametrize(
    ("said", "given", "kind", "in_hint"),
    [
        ("error: $OPENAI_API_KEY is not set", {}, "not-configured", "OPENAI_API_KEY"),
        ("error: the environment variable LLM_HOST is missing", {}, "not-configured", "LLM_HOST"),
        # It asks for what it was given: the value is wrong, not missing; no reviewer.env advice.
        ("error: $LLM_HOST is not set correctly", {"LLM_HOST": "x"}, "failed", "memory-reviewer offline"),
        ("Error [ERR_INVALID_ARG_TYPE]: argument must be set", {}, "failed", "memory-reviewer offline"),
        ("Could not connect to local model provider at http://127.0.0.1:9/v1.", {}, "network", "network"),
    ],
)
def test_what_a_reviewer_asks_for_decides_the_fix(said: str, given: dict[str, str], kind: str, in_hint: str) -> None:
    from omp.review.backends.command import fixes
    from omp.review.reviewers import diagnose

    failure = diagnose(said, fixes(), env=given)
    assert failure.kind == kind and in_hint in (failure.hint or "")
    if kind == "not-configured":
        assert "reviewer.env" in (failure.hint or "")


def test_a_status_the_reviewer_reports_outranks_its_words() -> None:
    from omp.review.backends.copilot import fixes
    from omp.review.reviewers import diagnose

    # A provider's 500 whose body happens to say "model": a server fault, retried, not a model fix.
    failure = diagnose("internal error while loading model weights: not found on disk", fixes({}), status=500)
    assert failure.kind == "server"
    # A 400 says nothing of the cause: the words decide.
    assert diagnose("model 'x' does not exist", fixes({}), status=400).kind == "model"


# ---------------------------------------------------------------------------------------------
# the registry describes each backend without calling it (for omp doctor)


def test_every_backend_describes_itself_or_names_the_missing_setting(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from omp.review import backends
    from omp.review.reviewers import ReviewerUnavailable

    fake = FakeReviewer(tmp_path / "fake")
    monkeypatch.setenv("OMP_COPILOT_BIN", str(fake.copilot_bin))
    good = {"memory-reviewer-command": fake.command, "memory-reviewer-url": "http://127.0.0.1:11434/v1"}
    bad = {"memory-reviewer-command": "/nonexistent/reviewer --fast", "memory-reviewer-url": "http://example.com/v1"}
    for name in backends.NAMES:
        entry = backends.lookup(name)
        assert entry.describe(good, "m").startswith(name)
        if not entry.runs_model:
            continue
        if name == "copilot":
            monkeypatch.setenv("OMP_COPILOT_BIN", str(tmp_path / "no-copilot"))
        with pytest.raises(ReviewerUnavailable) as caught:
            entry.describe(bad, "m")
        assert caught.value.kind in ("missing", "not-configured") and caught.value.hint
