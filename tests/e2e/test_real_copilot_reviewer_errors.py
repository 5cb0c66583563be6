"""The real Copilot CLI as the reviewer, failing (docs/reviewers.md, COPILOT.md §8): its own words reach
the user. Offline: `COPILOT_OFFLINE` and `COPILOT_PROVIDER_BASE_URL` come from `G/reviewer.env`
only — the shell of this typed `omp memory-review` has neither — and the loopback model server
serves one model, not the one configured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from copilot_support import copilot_binary, copilot_env
from helpers import run_omp
from model_server import ModelServer
from review_support import conversation, write_session

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(copilot_binary() is None, reason="the real Copilot CLI is not installed "
                       "(run .ci/install-copilot, or set OMP_E2E_COPILOT_BIN)"),
]


def test_a_model_the_provider_does_not_serve_is_named_with_its_fix(project: Path, isolated_home: Path) -> None:
    with ModelServer() as server:
        server.models = {"served-model"}
        reviewer_env = isolated_home / ".omp" / "reviewer.env"
        reviewer_env.parent.mkdir(parents=True, exist_ok=True)
        reviewer_env.write_text(f"COPILOT_OFFLINE=true\nCOPILOT_PROVIDER_BASE_URL={server.base_url}\n")
        reviewer_env.chmod(0o600)
        env = {**copilot_env(isolated_home), "OMP_COPILOT_BIN": str(copilot_binary()), "OMP_TOKENIZER": "estimate",
               "OMP_MEMORY_MODE": "on", "OMP_MEMORY_REVIEWER": "copilot", "OMP_MEMORY_REVIEW_MODEL": "no-such-model",
               "OMP_MEMORY_REVIEW_TIMEOUT": "90"}
        assert "COPILOT_PROVIDER_BASE_URL" not in env
        session = write_session(project, conversation())
        result = run_omp(["memory-review", "--json", "--session", session], cwd=project, env=env, timeout=180)
        # The reviewer reached the server through reviewer.env alone, and asked for that model.
        assert [r.body.get("model") for r in server.chat_requests()][:1] == ["no-such-model"]
    assert result.returncode == 1, result.stderr
    said = f"Model 'no-such-model' not found on provider at {server.base_url} (HTTP 404)"
    out = result.json()
    assert said in out["reason"] and "omp config set memory-review-model" in out["hint"]
    entry = json.loads((project / ".omp" / "memory-review" / "queue" / f"{session}.json").read_text())
    assert entry["kind"] == "model" and said in entry["last_error"] and "\n" not in entry["last_error"]
    assert "omp config set memory-review-model" in entry["hint"] and "offline" not in entry["hint"]
    [line] = [x for x in map(json.loads, (project / ".omp" / "state" / "memory-review.log").read_text().splitlines())
              if x.get("session") == session]
    assert said in line["reason"] and line["hint"] == entry["hint"]
