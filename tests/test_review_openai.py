"""The `openai` reviewer against a loopback OpenAI-compatible stub (docs/reference/config.md, docs/reviewers.md).

The real `omp memory-review --reviewer openai` runs against tests/openai_stub.py: what it sends
(the prompt, temperature 0, the shipped JSON Schema as `response_format`), what it makes of the
answer, and how each way a server fails becomes a clear, retryable outcome and a queue entry.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from omp import config
from omp.review.answer import answer_complete
from omp.review.backends import openai as backend
from omp.review.reviewers import ReviewerConfig, ReviewerUnavailable, call_reviewer
from openai_stub import Scripted, StubServer, completion, error
from review_support import conversation, ledger, log_lines, notes, omp, pending_lines, review, standard_answer, state, write_session

MODEL = "qwen2.5-coder:1.5b"
KEY = "sk-omp-test-5f1c0a9e7d3b2a4c6e8f0a1b"


@pytest.fixture
def stub() -> StubServer:
    with StubServer() as server:
        yield server


def _env(stub: StubServer, **extra: str) -> dict[str, str]:
    return {"OMP_MEMORY_MODE": "on", "OMP_MEMORY_REVIEWER": "openai", "OMP_MEMORY_REVIEWER_URL": stub.url,
            "OMP_MEMORY_REVIEW_MODEL": MODEL, "OMP_TOKENIZER": "estimate", **extra}


def _queued(project: Path, session: str) -> dict:
    return json.loads((state(project) / "memory-review" / "queue" / f"{session}.json").read_text())


def _everything_written(project: Path, home: Path) -> str:
    """Every file omp wrote, in the project's state and the global home, as one text."""
    texts = []
    for folder in (state(project), home / ".omp"):
        for path in folder.rglob("*"):
            if path.is_file() and path.name != "reviewer.env":
                texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(texts)


# ---------------------------------------------------------------------------------------------
# a review through the real pipeline


def test_the_schema_goes_as_response_format_and_the_answer_becomes_notes_and_directives(
        project: Path, stub: StubServer) -> None:
    stub.then(completion(json.dumps(standard_answer())))
    session = write_session(project, conversation())
    result = review(project, {k: v for k, v in _env(stub).items() if k != "OMP_MEMORY_REVIEWER"},
                    "--reviewer", "openai", "--session", session)
    assert result.returncode == 0, result.stderr
    out = result.json()
    assert out["ran"] is True and out["summary"]["notes"] == 1 and out["summary"]["directives"] == 1
    assert "Package manager is pnpm" in notes(project)[0].read_text()
    assert pending_lines(project) == ["- [ ] Use pnpm, not npm, for dependencies"]

    [request] = stub.seen
    assert request.path == "/v1/chat/completions"
    body = request.body
    assert body["model"] == MODEL and body["temperature"] == 0 and body.get("stream") is False
    [message] = body["messages"]
    assert message["role"] == "user" and "this project uses pnpm for everything" in message["content"]
    assert "<<<TRANSCRIPT" in message["content"]
    shipped = json.loads((Path(config.__file__).parent / "data" / "omp.review.v1.schema.json").read_text())
    assert body["response_format"]["type"] == "json_schema"
    sent = body["response_format"]["json_schema"]
    assert sent["name"] == "omp_review_v1" and sent["strict"] is True
    assert sent["schema"] == {k: v for k, v in shipped.items() if k not in ("$schema", "title")}
    assert "authorization" not in {name.lower() for name in request.headers}  # no key configured, none sent

    [record] = ledger(project)
    assert record["backend"] == "openai" and record["model"] == MODEL and record["outcome"] == "ok"


def test_a_server_that_refuses_response_format_is_asked_again_without_it(project: Path, stub: StubServer) -> None:
    stub.then(error(400, "'response_format' of type 'json_schema' is not supported"),
              completion("Here you go:\n```json\n" + json.dumps(standard_answer()) + "\n```"))
    session = write_session(project, conversation())
    result = review(project, _env(stub), "--session", session)
    assert result.returncode == 0, result.stderr
    assert result.json()["summary"]["notes"] == 1
    first, second = stub.seen
    assert "response_format" in first.body and "response_format" not in second.body
    assert first.body["messages"] == second.body["messages"]


# ---------------------------------------------------------------------------------------------
# each way a server fails: a clear outcome, the fix, and the queue


@pytest.mark.parametrize(("scripted", "timeout", "kind", "said", "fix"), [
    (error(404, f'model "{MODEL}" not found, try pulling it first'), "30", "model", "not found, try pulling it",
     "omp config set memory-review-model"),
    (error(401, "invalid api key"), "30", "auth", "invalid api key", "OMP_REVIEWER_API_KEY"),
    (error(500, "llama_decode failed: out of memory"), "30", "server", "out of memory", "--sweep"),
    (Scripted(200, completion(json.dumps(standard_answer())).body, delay=5.0), "1", "timeout", "no answer within",
     "memory-review-timeout"),
    (Scripted(200, b"<html><body>502 Bad Gateway</body></html>"), "30", "failed", "not a chat completion",
     "OpenAI-compatible"),
    (Scripted(200, b"x" * (20 * 1024 * 1024)), "30", "failed", "larger than", "--sweep"),
], ids=["404-model", "401", "500", "timeout", "garbage", "20MB"])
def test_each_server_failure_is_a_clear_retryable_outcome_and_a_queue_entry(
        project: Path, stub: StubServer, scripted: Scripted, timeout: str, kind: str, said: str, fix: str) -> None:
    stub.then(scripted)
    session = write_session(project, conversation())
    started = time.monotonic()
    result = review(project, _env(stub, OMP_MEMORY_REVIEW_TIMEOUT=timeout), "--session", session)
    assert time.monotonic() - started < 20
    assert result.returncode == 1, result.stderr
    out = result.json()
    assert out["ran"] is False and f"reviewer unavailable ({kind})" in out["reason"] and said in out["reason"]
    assert fix in out["hint"]
    assert "\n" not in out["reason"] and len(out["reason"]) < 600
    entry = _queued(project, session)
    assert entry["attempts"] == 1 and entry["kind"] == kind and said in entry["last_error"]
    assert notes(project) == [] and pending_lines(project) == []
    assert log_lines(project)[-1]["error"] == kind
    [record] = ledger(project)
    assert record["outcome"] == "unavailable" and record["error"] == kind


def test_a_connection_refused_is_retryable_and_says_to_start_the_server(project: Path, stub: StubServer) -> None:
    session = write_session(project, conversation())
    dead = "http://127.0.0.1:9/v1"  # the discard port: nothing listens there
    result = review(project, {**_env(stub), "OMP_MEMORY_REVIEWER_URL": dead}, "--session", session)
    assert result.returncode == 1
    out = result.json()
    assert "reviewer unavailable (network)" in out["reason"] and "start the model server" in out["hint"]
    assert _queued(project, session)["kind"] == "network"


@pytest.mark.parametrize("status", [302, 307])
def test_a_redirect_is_refused_so_the_key_never_follows_it(project: Path, stub: StubServer, status: int) -> None:
    with StubServer() as elsewhere:
        elsewhere.then(completion(json.dumps(standard_answer())))
        stub.then(Scripted(status, b"", headers={"Location": elsewhere.url + "/chat/completions"}))
        session = write_session(project, conversation())
        result = review(project, _env(stub, OMP_REVIEWER_API_KEY=KEY), "--session", session)
        assert result.returncode == 1 and "redirect" in result.json()["reason"]
        assert "memory-reviewer-url" in result.json()["hint"]
        assert elsewhere.seen == []


# ---------------------------------------------------------------------------------------------
# the key: environment or reviewer.env, never a log line or the ledger


def test_the_key_comes_from_reviewer_env_and_never_reaches_a_log_or_the_ledger(
        project: Path, stub: StubServer, isolated_home: Path) -> None:
    (isolated_home / ".omp").mkdir(exist_ok=True)
    (isolated_home / ".omp" / "reviewer.env").write_text(f"OMP_REVIEWER_API_KEY={KEY}\n")
    # A server that echoes the key in its error, as some do.
    stub.then(error(401, f"Incorrect API key provided: {KEY}."), completion(json.dumps(standard_answer())))
    first = write_session(project, conversation())
    failed = review(project, _env(stub), "--session", first)
    assert failed.returncode == 1
    assert "OMP_REVIEWER_API_KEY" in failed.json()["hint"] and "reviewer.env" in failed.json()["hint"]
    ok = review(project, _env(stub), "--session", first, "--force")
    assert ok.returncode == 0, ok.stderr
    assert [seen.headers.get("Authorization") for seen in stub.seen] == [f"Bearer {KEY}"] * 2
    assert KEY not in failed.stdout + failed.stderr + ok.stdout + ok.stderr
    assert KEY not in _everything_written(project, isolated_home)
    assert ledger(project) and log_lines(project)


def test_reviewer_env_wins_over_the_environment_key(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As for every reviewer setting (a hook-started review's too): one file configures the reviewer."""
    monkeypatch.setenv("OMP_REVIEWER_API_KEY", "from-the-shell")
    assert backend.api_key() == "from-the-shell"
    (isolated_home / ".omp").mkdir(exist_ok=True)
    (isolated_home / ".omp" / "reviewer.env").write_text("OMP_REVIEWER_API_KEY=from-the-file\n")
    assert backend.api_key() == "from-the-file"


def test_a_project_file_never_supplies_the_key_or_the_url(project: Path, stub: StubServer) -> None:
    """A cloned repository's .omp/config.json that nobody trusted names a server and a key:
    neither is used (the whole untrusted layer is ignored), and no config key holds a key."""
    (project / ".omp").mkdir()
    (project / ".omp" / "config.json").write_text(json.dumps({
        "memory-mode": "on", "memory-reviewer": "openai", "memory-reviewer-url": stub.url,
        "OMP_REVIEWER_API_KEY": KEY, "memory-reviewer-api-key": KEY}))
    from omp.paths import ProjectPaths

    settings = config.resolve(ProjectPaths(project))
    assert settings["memory-reviewer-url"].value is None and settings["memory-reviewer-url"].origin == "default"
    assert settings["memory-reviewer"].value == "copilot"
    assert "memory-reviewer-api-key" not in config.KEYS and backend.api_key() is None
    session = write_session(project, conversation())
    result = review(project, {"OMP_TOKENIZER": "estimate"}, "--session", session)
    assert result.returncode == 0 and result.json()["ran"] is False  # memory-mode "on" from it is ignored too
    assert stub.seen == []


# ---------------------------------------------------------------------------------------------
# plain http only to this machine: at `config set`, and again at call time


@pytest.mark.parametrize("url", ["http://192.168.1.20:11434/v1", "http://example.com/v1", "http://127.0.0.1.nip.io/v1",
                                 "http://0x7f000001/v1", "ftp://127.0.0.1/v1", "http://user:pw@127.0.0.1/v1",
                                 "http://127.0.0.1:11434/v1?key=1", "127.0.0.1:11434/v1"])
def test_config_set_refuses_a_url_that_would_cross_the_network_in_clear(project: Path, url: str) -> None:
    result = omp(project, {}, "config", "set", "memory-reviewer-url", url)
    assert result.returncode == 2, result.stdout
    assert "memory-reviewer-url" in result.stderr and "https" in result.stderr
    assert not (project / ".omp" / "config.json").exists()


@pytest.mark.parametrize("url", ["http://127.0.0.1:11434/v1", "http://localhost:1234/v1", "http://[::1]:8000/v1",
                                 "http://127.9.9.9:8080/v1", "https://models.example.com/v1"])
def test_config_set_accepts_loopback_http_and_any_https(project: Path, url: str) -> None:
    result = omp(project, {}, "config", "set", "memory-reviewer-url", url)
    assert result.returncode == 0, result.stderr
    assert json.loads((project / ".omp" / "config.json").read_text())["memory-reviewer-url"] == url


def test_a_hand_edited_non_loopback_http_url_is_refused_before_any_connection(project: Path, isolated_home: Path) -> None:
    (isolated_home / ".omp").mkdir(exist_ok=True)
    (isolated_home / ".omp" / "config.json").write_text(json.dumps({"memory-reviewer-url": "http://10.255.255.1/v1"}))
    result = omp(project, {}, "config", "get", "memory-reviewer-url")
    assert result.returncode == 1 and "memory-reviewer-url" in result.stderr and "https" in result.stderr
    # The backend checks again, whatever hands it a URL: a refusal, not a connection attempt.
    started = time.monotonic()
    with pytest.raises(ReviewerUnavailable) as caught:
        call_reviewer(ReviewerConfig("openai", MODEL, None, 30, project, url="http://10.255.255.1/v1"), "p",
                      answer_complete)
    assert time.monotonic() - started < 2
    assert caught.value.kind == "not-configured" and "plain http" in caught.value.message


def test_openai_without_a_url_names_the_command_that_sets_one(project: Path) -> None:
    with pytest.raises(ReviewerUnavailable) as caught:
        call_reviewer(ReviewerConfig("openai", MODEL, None, 30, project), "p", answer_complete)
    assert "omp config set memory-reviewer-url http://127.0.0.1:11434/v1" in (caught.value.hint or "")


# ---------------------------------------------------------------------------------------------
# one registry; per-backend timeouts


def test_the_reviewer_choices_come_from_one_registry(project: Path) -> None:
    assert omp(project, {}, "config", "set", "memory-reviewer", "openai").returncode == 0
    refused = omp(project, {}, "memory-review", "--reviewer", "nonesuch")
    assert refused.returncode == 2 and "openai" in refused.stderr
    assert "openai" in omp(project, {}, "eval", "--help").stdout
    bad = omp(project, {}, "config", "set", "memory-reviewer", "nonesuch")
    assert bad.returncode == 2 and "copilot | openai | command | offline" in bad.stderr


@pytest.mark.parametrize(("reviewer", "seconds"), [("copilot", 120), ("openai", 900), ("command", 900)])
def test_the_timeout_default_depends_on_the_backend(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                    reviewer: str, seconds: int) -> None:
    monkeypatch.setenv("OMP_MEMORY_REVIEWER", reviewer)
    setting = config.resolve(None)["memory-review-timeout"]
    assert (setting.value, setting.origin) == (seconds, "default")
    monkeypatch.setenv("OMP_MEMORY_REVIEW_TIMEOUT", "33")
    assert config.resolve(None)["memory-review-timeout"].value == 33


def test_a_review_with_reviewer_openai_gets_openais_default_timeout(project: Path) -> None:
    from omp.paths import ProjectPaths
    from omp.review.outcome import ReviewRequest
    from omp.review.pipeline import review_context

    ctx = review_context(ProjectPaths(project), ReviewRequest(reviewer="openai"))
    assert ctx.timeout == 900


# ---------------------------------------------------------------------------------------------
# omp doctor knows the backend


def _reviewer_checks(result: object) -> list[dict]:
    return [check for check in result.json()["checks"] if check["name"] == "reviewer"]  # type: ignore[attr-defined]


def test_doctor_names_the_missing_url_and_deep_calls_the_server(project: Path, stub: StubServer) -> None:
    env = {"OMP_MEMORY_REVIEWER": "openai", "OMP_MEMORY_REVIEW_MODEL": MODEL}
    [missing] = _reviewer_checks(omp(project, env, "doctor", "--json"))
    assert missing["status"] == "fail" and "memory-reviewer-url" in missing["detail"]
    assert missing["fix"].startswith("omp config set memory-reviewer-url http://127.0.0.1:11434/v1")

    stub.then(completion("OK"))
    [deep] = _reviewer_checks(omp(project, {**env, "OMP_MEMORY_REVIEWER_URL": stub.url}, "doctor", "--deep", "--json"))
    assert deep["status"] == "ok" and "'OK'" in deep["detail"] and stub.url in deep["detail"]
    [request] = stub.seen
    assert request.body["model"] == MODEL

    stub.then(error(404, f"model '{MODEL}' not found"))
    stub.script.pop(0)
    [failed] = _reviewer_checks(omp(project, {**env, "OMP_MEMORY_REVIEWER_URL": stub.url}, "doctor", "--deep", "--json"))
    assert failed["status"] == "fail" and "not found" in failed["detail"]
    assert "omp config set memory-review-model" in failed["detail"]  # a model the server serves: the user's to name


# ---------------------------------------------------------------------------------------------
# omp eval scores it like any other backend


def test_eval_scores_the_openai_backend_with_the_users_url_and_key(tmp_path: Path, stub: StubServer,
                                                                   isolated_home: Path) -> None:
    """eval runs in a throwaway home: the user's URL (global config) and key (reviewer.env) are
    carried into it, and openai's own timeout default applies, not one copied from copilot's."""
    from helpers import run_omp

    (isolated_home / ".omp").mkdir(exist_ok=True)
    (isolated_home / ".omp" / "reviewer.env").write_text(f"OMP_REVIEWER_API_KEY={KEY}\n")
    assert run_omp(["config", "set", "memory-reviewer-url", stub.url, "--global"], cwd=tmp_path).returncode == 0
    stub.then(completion(json.dumps({"schema": "omp.review.v1", "directives": [], "notes": [], "skill_drafts": [],
                                     "forget": []})))
    corpus = tmp_path / "one.jsonl"
    chat = [{"role": "assistant", "content": "Done."}, {"role": "user", "content": "thanks, that works"},
            {"role": "assistant", "content": "Glad to help."}]
    corpus.write_text(json.dumps({"id": "lint-rule", "category": "request", "language": "en",
                                  "expect": [{"kind": "directive", "contains": "linter"}],
                                  "messages": [{"role": "user", "content": "From now on, run the linter before committing."},
                                               *chat]}) + "\n")
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    result = run_omp(["eval", "--json", "--reviewer", "openai", "--model", MODEL, "--corpus", str(corpus)], cwd=tmp_path,
                     env={"TMPDIR": str(tmpdir), "OMP_TOKENIZER": "estimate"}, timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["reviewer"] == "openai" and report["cases"][0]["error"] is None
    [request] = stub.seen
    assert request.headers.get("Authorization") == f"Bearer {KEY}" and request.body["model"] == MODEL
    assert KEY not in result.stdout + result.stderr
    from omp.evaluate import _carried_settings

    carried = _carried_settings()  # what eval copies into its throwaway home
    assert carried == {"OMP_MEMORY_REVIEWER_URL": stub.url}  # no timeout default frozen at copilot's 120


def test_omp_trust_says_where_a_project_config_would_send_transcripts(project: Path) -> None:
    (project / ".omp").mkdir()
    (project / ".omp" / "config.json").write_text(json.dumps({"memory-reviewer-url": "https://collector.example/v1"}))
    shown = omp(project, {}, "trust")  # stdin is no terminal: it shows the file and refuses
    assert "memory-reviewer-url = https://collector.example/v1" in shown.stdout
    assert "a server omp will send your session's transcript to" in shown.stdout
