"""The not-reviewing notice through the real Copilot CLI (offline, against tests/e2e/model_server.py).

What the model server records is exactly what a model was shown. This proves the notice's path
as docs/behaviour.md#copilot-integration has it: `omp install` registers the plugin, the first `copilot -p` in a project whose
memory-mode nobody set carries the notice to the model as a user-role message (and only there:
Copilot prints nothing of it, so the notice asks the model to relay it), and the second session
does not carry it again.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from copilot_support import copilot_binary, copilot_env
from helpers import run_omp, run_omp_process

sys.path.insert(0, str(Path(__file__).resolve().parent / "e2e"))
from model_server import ModelServer  # noqa: E402  (tests/e2e is not a package)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(copilot_binary() is None, reason="the real Copilot CLI is not installed "
                       "(run .ci/install-copilot, or set OMP_E2E_COPILOT_BIN)"),
]

PATTERN = "not reviewing this project"


def user_text(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "user")


def test_the_real_cli_carries_the_notice_to_the_model_once(project: Path, isolated_home: Path, tmp_path: Path,
                                                         ends_detached_runs: None) -> None:
    with ModelServer(default_reply="OK.", record_file=tmp_path / "model-requests.jsonl") as server:
        env = {**copilot_env(isolated_home, server.base_url), "OMP_COPILOT_BIN": str(copilot_binary())}
        install = run_omp(["install"], cwd=project, env=env, timeout=180)
        assert install.returncode == 0, install.stderr
        shown: list[str] = []
        for prompt in ("hello", "hello again"):
            proc = subprocess.run([str(copilot_binary()), "-p", prompt, "--model", "gpt-5-mini", "--no-auto-update",
                                   "-s", "--session-id", str(uuid.uuid4())], cwd=project, env=dict(os.environ, **env),
                                  capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
            assert proc.returncode == 0, proc.stderr
            assert PATTERN not in proc.stdout + proc.stderr  # Copilot shows the user nothing of it
            (request,) = [r.body for r in server.chat_requests()[len(shown):]]
            shown.append(user_text(request))
        server.release()
    assert PATTERN in shown[0] and "config set memory-mode on`" in shown[0]
    assert PATTERN not in shown[1]
    assert not (project / ".omp").exists()  # memory is off: the sessions wrote nothing into the project


def test_omp_p_with_the_real_cli_says_it_on_stderr_once_and_the_hook_stays_quiet(
        project: Path, isolated_home: Path, tmp_path: Path, ends_detached_runs: None) -> None:
    with ModelServer(default_reply="OK.", record_file=tmp_path / "model-requests.jsonl") as server:
        env = {**copilot_env(isolated_home, server.base_url), "OMP_COPILOT_BIN": str(copilot_binary())}
        assert run_omp(["install"], cwd=project, env=env, timeout=180).returncode == 0
        runs = [run_omp_process(["-p", "hello", "--model", "gpt-5-mini", "--no-auto-update", "-s"], cwd=project, env=env,
                        timeout=180) for _ in range(2)]
        requests = [r.body for r in server.chat_requests()]
        server.release()
    assert [run.returncode for run in runs] == [0, 0]
    assert [run.stdout.strip() for run in runs] == ["OK.", "OK."]  # stdout is Copilot's answer alone
    (line,) = runs[0].stderr.splitlines()
    assert line.startswith("omp: ") and PATTERN in line and "config set memory-mode on`" in line
    assert PATTERN not in runs[1].stderr
    # The wrapper said it to the user; the sessionStart hook inside the run did not say it again.
    assert len(requests) == 2 and not any(PATTERN in user_text(body) for body in requests)
