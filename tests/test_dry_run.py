"""`omp memory-review --dry-run`: the packet a review would send, and nothing written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import run_omp
from sessions_support import (
    FIXTURE,
    FIXTURE_ID,
    assistant,
    conversation,
    lines,
    tool_request,
    tool_result,
    user,
    write_session,
)
from test_safety import PEM_BLOCK, SECRET_PARTS, SECRETS

ENV = {"OMP_TOKENIZER": "estimate"}  # tests never download tiktoken's encoding


@pytest.fixture
def copilot(isolated_home: Path) -> Path:
    return Path(os.environ["COPILOT_HOME"])


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under root (git's own folder aside), with size and mtime."""
    found: dict[str, tuple[int, int]] = {}
    for path in sorted(root.rglob("*")):
        if ".git" in path.relative_to(root).parts[:1]:
            continue
        stat = path.stat()
        found[str(path.relative_to(root))] = (stat.st_size if path.is_file() else -1, stat.st_mtime_ns)
    return found


def fixture_in(project: Path, copilot: Path) -> Path:
    text = FIXTURE.read_text(encoding="utf-8").replace("/home/dev/proj", str(project))
    return write_session(copilot, FIXTURE_ID, text)


def test_dry_run_prints_the_packet_and_what_it_did(project: Path, copilot: Path) -> None:
    fixture_in(project, copilot)
    result = run_omp(["memory-review", "--session", "latest", "--dry-run"], cwd=project, env=ENV)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "dry run: nothing was written" in out
    assert FIXTURE_ID in out
    assert "tokenizer: estimate" in out
    assert "memory-review-max-input-tokens 24,000" in out
    assert "kept user 1/1, assistant 2/2, tool 1/1" in out
    assert "redacted:   nothing" in out
    assert "[user #0]\nplease USE_TOOL now" in out
    assert "[tool #2]\n(tool output: bash;" in out
    assert "system prompt" not in out and "CTX-MARKER" not in out


def test_dry_run_json_is_one_object(project: Path, copilot: Path) -> None:
    events = fixture_in(project, copilot)
    result = run_omp(["memory-review", "--session", FIXTURE_ID[:8], "--dry-run", "--json"], cwd=project, env=ENV)
    assert result.returncode == 0, result.stderr
    data = result.json()
    assert data["ran"] is False and data["dry_run"] is True and data["reason"] == "dry run"
    assert data["session"] == FIXTURE_ID
    tokens = data["tokens"]
    assert tokens["tokenizer"] == "estimate"
    assert tokens["max_input"] == 24000
    assert tokens["budget"] + tokens["prompt_reserve"] == 24000
    assert 0 < tokens["packet"] <= tokens["budget"]
    assert data["packet"]["kept"] == {"user": 1, "assistant": 2, "tool": 1}
    assert data["packet"]["text"].startswith("[user #0]")
    assert data["cursor"] == {"start": 0, "end": events.stat().st_size, "resumed": False}


def test_budget_comes_from_config(project: Path, copilot: Path) -> None:
    fixture_in(project, copilot)
    result = run_omp(["memory-review", "--dry-run", "--json"], cwd=project,
                     env={**ENV, "OMP_MEMORY_REVIEW_MAX_INPUT_TOKENS": "3000"})
    assert result.returncode == 0, result.stderr
    tokens = result.json()["tokens"]
    assert tokens["max_input"] == 3000
    assert tokens["budget"] < 3000


def test_no_secret_reaches_the_dry_run_output(project: Path, copilot: Path) -> None:
    events = [
        *conversation(str(project), ["Deploy with these: " + SECRETS["aws-access-key"] + " " + SECRETS["aws-secret-key"]]),
        user("my tokens: " + SECRETS["github-token"] + " and " + SECRETS["github-pat"]),
        user("the deploy key is\n" + PEM_BLOCK),
        assistant("Using the session cookie " + SECRETS["jwt"],
                  [tool_request("c1", command="psql " + SECRETS["url-credentials"].split("=", 1)[1])]),
        tool_result("c1", "connected to postgres://admin:s3cr3tP4ss@db.example.com:5432/app\n" + SECRETS["slack-token"]),
    ]
    write_session(copilot, "secret-session", events)
    for args in (["--dry-run"], ["--dry-run", "--json"]):
        result = run_omp(["memory-review", "--session", "secret-session", *args], cwd=project, env=ENV)
        assert result.returncode == 0, result.stderr
        output = result.stdout + result.stderr
        for name in ("aws-access-key", "aws-secret-key", "github-token", "github-pat", "jwt", "url-credentials", "slack-token"):
            for part in SECRET_PARTS[name]:
                assert part not in output, (name, part)
        assert "MIIEowIBAAKCAQEA" not in output
        for kind in ("aws-access-key", "github-token", "private-key", "jwt", "url-credentials"):
            assert kind in output  # counted by kind, never shown
    data = json.loads(result.stdout)
    assert data["packet"]["redactions"]["github-token"] == 2
    assert data["packet"]["redactions"]["private-key"] == 1


def test_dry_run_writes_nothing(project: Path, copilot: Path, isolated_home: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    # Fresh interpreters, not the test's warm one: what a fresh review would write (in the
    # project or the homes), a dry run must not.
    fixture_in(project, copilot)
    (project / "README.md").write_text("hello\n")
    before_project = snapshot(project)
    before_home = snapshot(isolated_home)
    for args in (["--dry-run"], ["--dry-run", "--json"], ["--dry-run", "--force", "--session", FIXTURE_ID]):
        result = run_omp(["memory-review", *args], cwd=project, env={**ENV, "OMP_MEMORY_MODE": "on"}, subprocess=True)
        assert result.returncode == 0, result.stderr
    assert snapshot(project) == before_project
    assert not (project / ".omp").exists()
    assert not (project / ".gitignore").exists()
    assert snapshot(isolated_home) == before_home


def test_dry_run_works_whatever_the_memory_mode(project: Path, copilot: Path) -> None:
    fixture_in(project, copilot)
    for mode in ("off", "on"):
        result = run_omp(["memory-review", "--dry-run", "--json"], cwd=project, env={**ENV, "OMP_MEMORY_MODE": mode})
        assert result.returncode == 0, result.stderr
        assert result.json()["packet"]["kept"]["user"] == 1


def test_dry_run_starts_where_the_last_review_stopped(project: Path, copilot: Path) -> None:
    path = write_session(copilot, "resumed-1", conversation(str(project), ["old question"]))
    cursor = path.stat().st_size
    with path.open("a", encoding="utf-8") as handle:
        handle.write(lines([user("new question after resume"), assistant("new answer")]))
    claims = project / ".omp" / "memory-review" / "claims"
    claims.mkdir(parents=True)
    (claims / "resumed-1.json").write_text(json.dumps({
        "token": "t", "pid": 1, "pid_started_at": None, "host": "h", "started_at": 0.0,
        "state": "done", "cursor": cursor,
    }))
    result = run_omp(["memory-review", "--session", "resumed-1", "--dry-run", "--json"], cwd=project, env=ENV)
    assert result.returncode == 0, result.stderr
    data = result.json()
    assert data["cursor"]["start"] == cursor and data["cursor"]["resumed"] is True
    assert "new question after resume" in data["packet"]["text"]
    assert "old question" not in data["packet"]["text"]

    forced = run_omp(["memory-review", "--session", "resumed-1", "--dry-run", "--force", "--json"], cwd=project, env=ENV)
    assert "old question" in forced.json()["packet"]["text"]


def test_unknown_session_is_a_failure_with_a_hint(project: Path, copilot: Path) -> None:
    result = run_omp(["memory-review", "--session", "latest", "--dry-run"], cwd=project, env=ENV)
    assert result.returncode == 1
    assert "no Copilot session of" in result.stderr
    result = run_omp(["memory-review", "--session", "deadbeef-0000", "--dry-run"], cwd=project, env=ENV)
    assert result.returncode == 1
    assert "no session" in result.stderr


@pytest.mark.slow
def test_large_user_message_dry_run_stays_in_budget(project: Path, copilot: Path) -> None:
    big = "HEAD-MARK " + "data line with words\n" * 30_000 + " TAIL-MARK"
    write_session(copilot, "big-one", conversation(str(project), ["before", big, "after"]))
    result = run_omp(["memory-review", "--session", "big-one", "--dry-run", "--json"], cwd=project,
                     env={**ENV, "OMP_MEMORY_REVIEW_MAX_INPUT_TOKENS": "4000"})
    assert result.returncode == 0, result.stderr
    data = result.json()
    assert data["tokens"]["packet"] <= data["tokens"]["budget"]
    text = data["packet"]["text"]
    assert "HEAD-MARK" in text and "TAIL-MARK" in text
    assert text.index("[user #0]") < text.index("HEAD-MARK") < text.index("[user #4]")
    assert data["packet"]["trimmed"]["user"] == 1
