"""Helpers for the review tests: Copilot-shaped sessions on disk, and the fake reviewer."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from helpers import Result, run_omp

OMP_CMD = [sys.executable, "-m", "omp"]
FAKE = Path(__file__).resolve().parent / "fake_reviewer.py"
# The fakes need only the standard library: `-S` skips `site` (the venv's .pth files, among them
# the editable install's finder). One fake reviewer call took 56 ms of CPU with it and 40 ms
# without (10 interleaved runs); the suite starts hundreds (one per case of `omp eval`).
NO_SITE = "-S"
SCHEMA = "omp.review.v1"


# ---------------------------------------------------------------------------------------------
# sessions


def _event(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "data": data, "id": str(uuid.uuid4()), "timestamp": "2026-11-29T19:06:07.182Z",
            "parentId": None}


def user(text: str) -> dict[str, Any]:
    return _event("user.message", {"content": text, "transformedContent": f"<current_datetime/>\n\n{text}"})


def assistant(text: str, command: str | None = None) -> dict[str, Any]:
    requests = []
    if command:
        requests.append({"toolCallId": "call_1", "name": "bash", "arguments": {"command": command},
                         "type": "function", "intentionSummary": "run a command"})
    return _event("assistant.message", {"content": text, "toolRequests": requests, "model": "gpt-5-mini"})


def tool(output: str) -> dict[str, Any]:
    return _event("tool.execution_complete", {"toolCallId": "call_1", "success": True, "result": {"content": output}})


def session_start(session_id: str, cwd: Path) -> dict[str, Any]:
    return _event("session.start", {
        "sessionId": session_id, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.102",
        "selectedModel": "gpt-5-mini", "context": {"cwd": str(cwd), "gitRoot": str(cwd), "branch": "main"},
    })


def copilot_home() -> Path:
    return Path(os.environ["COPILOT_HOME"])


def write_session(project: Path, events: Sequence[dict[str, Any]], session_id: str | None = None) -> str:
    """A session of `project` under COPILOT_HOME/session-state/<id>/events.jsonl."""
    session_id = session_id or str(uuid.uuid4())
    folder = copilot_home() / "session-state" / session_id
    folder.mkdir(parents=True, exist_ok=True)
    lines = [session_start(session_id, project), *events]
    with (folder / "events.jsonl").open("w", encoding="utf-8") as handle:
        for event in lines:
            handle.write(json.dumps(event) + "\n")
    return session_id


def append_events(session_id: str, events: Sequence[dict[str, Any]]) -> None:
    with (copilot_home() / "session-state" / session_id / "events.jsonl").open("a", encoding="utf-8") as handle:
        for event in events:
            handle.write(json.dumps(event) + "\n")


def conversation(topic: str = "pnpm") -> list[dict[str, Any]]:
    """A small realistic exchange with a correction the reviewer can quote."""
    return [
        user(f"please add the lodash dependency, we use {topic} in this repo"),
        assistant("Running the install.", command="npm install lodash"),
        tool("added 1 package in 2s"),
        user(f"no, do not use npm: this project uses {topic} for everything"),
        assistant(f"Understood, switching to {topic}."),
    ]


# ---------------------------------------------------------------------------------------------
# answers


def answer(directives: Sequence[dict[str, str]] = (), notes: Sequence[dict[str, str]] = (),
           skill_drafts: Sequence[dict[str, str]] = (), forget: Sequence[dict[str, str]] = ()) -> dict[str, Any]:
    return {"schema": SCHEMA, "directives": list(directives), "notes": list(notes),
            "skill_drafts": list(skill_drafts), "forget": list(forget)}


def standard_answer(topic: str = "pnpm") -> dict[str, Any]:
    return answer(
        directives=[{"text": f"Use {topic}, not npm, for dependencies",
                     "evidence": f"this project uses {topic} for everything"}],
        notes=[{"title": f"Package manager is {topic}", "body": f"Dependencies are installed with {topic}.",
                "evidence": f"we use {topic} in this repo"}],
    )


def reply(stdout: str = "", *, stderr: str = "", exit: int = 0, sleep: float = 0, hang: bool = False,
          ignore_term: bool = False) -> dict[str, Any]:
    return {"stdout": stdout, "stderr": stderr, "exit": exit, "sleep": sleep, "hang": hang, "ignore_term": ignore_term}


def json_reply(obj: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    return reply(json.dumps(obj), **kwargs)


# ---------------------------------------------------------------------------------------------
# the fake reviewer


@dataclass
class Call:
    folder: Path

    @property
    def argv(self) -> list[str]:
        return json.loads((self.folder / "argv.json").read_text())

    @property
    def stdin(self) -> str:
        return (self.folder / "stdin.txt").read_text(encoding="utf-8")

    @property
    def cwd(self) -> str:
        return (self.folder / "cwd.txt").read_text()

    @property
    def env(self) -> dict[str, str]:
        return json.loads((self.folder / "env.json").read_text())


class FakeReviewer:
    """A folder of canned replies, and the record of every call made to the fake."""

    def __init__(self, base: Path) -> None:
        self.base = base
        (base / "replies").mkdir(parents=True, exist_ok=True)
        self._queued = 0
        self.copilot_bin = base / "copilot"
        self.copilot_bin.write_text(f'#!/bin/sh\nexec "{sys.executable}" {NO_SITE} "{FAKE}" "$@"\n')
        self.copilot_bin.chmod(self.copilot_bin.stat().st_mode | stat.S_IEXEC)

    def queue(self, *replies: dict[str, Any]) -> None:
        for item in replies:
            self._queued += 1
            (self.base / "replies" / f"{self._queued:04d}.json").write_text(json.dumps(item))

    def default(self, item: dict[str, Any]) -> None:
        (self.base / "default.json").write_text(json.dumps(item))

    def calls(self) -> list[Call]:
        folder = self.base / "calls"
        if not folder.is_dir():
            return []
        return [Call(p) for p in sorted(folder.iterdir())]

    @property
    def command(self) -> str:
        return f'"{sys.executable}" {NO_SITE} "{FAKE}"'

    def env(self, backend: str = "command", **settings: str) -> dict[str, str]:
        """Environment for `run_omp`: memory mode on, this fake as the reviewer."""
        env = {"OMP_MEMORY_MODE": "on", "FAKE_REVIEWER_DIR": str(self.base), "OMP_MEMORY_REVIEWER": backend,
               "OMP_TOKENIZER": "estimate"}  # no tiktoken download attempt in every subprocess
        if backend == "command":
            env["OMP_MEMORY_REVIEWER_COMMAND"] = self.command
        elif backend == "copilot":
            env["OMP_COPILOT_BIN"] = str(self.copilot_bin)
        for key, value in settings.items():
            env["OMP_" + key.upper()] = str(value)
        return env


def omp(project: Path, env: dict[str, str], *args: str, timeout: float = 60) -> Result:
    """Run the real `omp ARGS` in the project with the fake reviewer's environment: `run_omp`,
    forked from a warm omp (the review's own start-up is what tests/test_process_start.py and the
    hook tests start for real)."""
    return run_omp(list(args), cwd=project, env=env, timeout=timeout)


def review(project: Path, env: dict[str, str], *args: str, timeout: float = 60) -> Result:
    """`omp memory-review --json ARGS` in the project (json() gives the outcome object)."""
    return omp(project, env, "memory-review", "--json", *args, timeout=timeout)


def spawn_review(project: Path, env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    full = dict(os.environ)
    full.update(env)
    return subprocess.Popen([*OMP_CMD, "memory-review", "--json", *args], cwd=project, env=full,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def state(project: Path) -> Path:
    return project / ".omp"


def notes(project: Path) -> list[Path]:
    folder = state(project) / "memory" / "notes"
    return sorted(folder.glob("*.md")) if folder.is_dir() else []


def pending_lines(project: Path) -> list[str]:
    path = state(project) / "memory-review" / "pending-directives.md"
    if not path.exists():
        return []
    return [line for line in path.read_text().splitlines() if line.startswith("- [ ] ")]


def log_lines(project: Path) -> list[dict[str, Any]]:
    path = state(project) / "state" / "memory-review.log"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def ledger(project: Path) -> list[dict[str, Any]]:
    path = state(project) / "state" / "cost.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
