"""Building Copilot session folders for tests: real `events.jsonl` lines, as Copilot writes them."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterable

REPO = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "copilot-session-with-tool.jsonl"
FIXTURE_ID = "3c847d83-4dbb-44b7-b275-17c051efd491"
FIXTURE_CWD = "/home/dev/proj"
GEN_SESSION = REPO / "bench" / "gen_session.py"

_ids = itertools.count(1)


def event(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    n = next(_ids)
    return {"type": kind, "data": data, "id": f"ev-{n}", "timestamp": "2026-11-29T19:06:06.685Z", "parentId": None}


def session_start(cwd: str, git_root: str | None = None, session_id: str = "s") -> dict[str, Any]:
    return event("session.start", {
        "sessionId": session_id, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.102",
        "selectedModel": "gpt-5-mini", "context": {"cwd": cwd, "gitRoot": git_root or cwd, "branch": "main"},
    })


def user(text: str) -> dict[str, Any]:
    return event("user.message", {"content": text, "transformedContent": f"<current_datetime>x</current_datetime>\n\n{text}\n\n<system_reminder>\nINJECTED-CONTEXT\n</system_reminder>"})


def assistant(text: str = "", tools: Iterable[dict[str, Any]] = ()) -> dict[str, Any]:
    return event("assistant.message", {"content": text, "toolRequests": list(tools), "model": "gpt-5-mini"})


def tool_request(call_id: str, name: str = "bash", command: str = "ls", description: str = "list files",
                 intention: str = "list files") -> dict[str, Any]:
    return {"toolCallId": call_id, "name": name, "arguments": {"command": command, "description": description},
            "type": "function", "intentionSummary": intention}


def tool_result(call_id: str, content: str, success: bool = True, detailed: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"content": content}
    if detailed is not None:
        result["detailedContent"] = detailed
    return event("tool.execution_complete", {"toolCallId": call_id, "success": success, "result": result,
                                             "toolTelemetry": {"metrics": {"commandTimeout": 30000.0}}})


def system_message(text: str = "You are GitHub Copilot CLI. SYSTEM-PROMPT-TEXT") -> dict[str, Any]:
    return event("system.message", {"role": "system", "content": text})


def hook(hook_type: str = "userPromptSubmitted") -> list[dict[str, Any]]:
    return [
        event("hook.start", {"hookInvocationId": "h", "hookType": hook_type, "input": {"prompt": "HOOK-INPUT"}}),
        event("hook.end", {"hookInvocationId": "h", "hookType": hook_type, "success": True,
                           "output": {"additionalContext": "HOOK-OUTPUT"}}),
    ]


def lines(events: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in events)


def session_dir(copilot_home: Path, session_id: str) -> Path:
    return copilot_home / "session-state" / session_id


def write_session(copilot_home: Path, session_id: str, events: Iterable[dict[str, Any]] | str,
                  mtime: float | None = None) -> Path:
    """Write `C/session-state/<id>/events.jsonl`; returns its path. `mtime` orders sessions."""
    folder = session_dir(copilot_home, session_id)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "events.jsonl"
    path.write_text(events if isinstance(events, str) else lines(events), encoding="utf-8")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def conversation(cwd: str, turns: Iterable[str], session_id: str = "s") -> list[dict[str, Any]]:
    """A session.start, a system prompt, and for each user text: hooks, the message, a reply."""
    events = [session_start(cwd, session_id=session_id), system_message()]
    for n, text in enumerate(turns):
        events += hook()
        events.append(user(text))
        events.append(assistant(f"reply {n}"))
    return events


def generate_session(out: Path, mb: float, user_messages: int, cwd: str = "/home/dev/proj", seed: int = 1,
                     big_user_message_kb: int = 0) -> dict[str, Any]:
    """Run bench/gen_session.py (a real subprocess) and return what it reports."""
    args = [sys.executable, str(GEN_SESSION), str(out), "--mb", str(mb), "--user-messages", str(user_messages),
            "--seed", str(seed), "--cwd", cwd]
    if big_user_message_kb:
        args += ["--big-user-message-kb", str(big_user_message_kb)]
    proc = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)
