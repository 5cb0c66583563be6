#!/usr/bin/env python3
"""Generate a realistic Copilot CLI session log (`events.jsonl`) of a requested size.

Deterministic for a given seed. The events use the real field names and types of Copilot CLI
1.0.102 (see /work/shared/fixtures/copilot-session-with-tool.jsonl and COPILOT.md §4):
`session.start` with `context.cwd`/`gitRoot`, a ~20 KB `system.message`, `hook.start`/`hook.end`
pairs, `user.message` (with `transformedContent`), `assistant.turn_start`, `session.usage_record`,
`assistant.message` with `toolRequests`, `tool.execution_start`, `tool.execution_complete` with
`result.content` (and sometimes `detailedContent`), `assistant.turn_end`, `session.shutdown`.

Most of the bytes are tool output (file reads, test runs, greps), as in real sessions; the
requested number of user messages is spread evenly and the tool output is sized to reach the
requested total.

    python bench/gen_session.py OUT --mb 100 --user-messages 1300 --seed 1 --cwd /some/project

OUT is a file path (`…/events.jsonl`) or a folder (then `OUT/events.jsonl` and a
`workspace.yaml` are written there, as Copilot does).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import random
import sys
import uuid
from pathlib import Path
from typing import Any, TextIO

WORDS = (
    "the parser config build test cache module import function returns value error handler "
    "request response session token budget packet review memory note directive stream file "
    "line offset cursor retry queue claim lock writer reader schema field index commit branch "
    "merge rebase deploy docker image layer service client server timeout latency metric log"
).split()

USER_TEMPLATES = (
    "Why does {path} fail with {error} when I run the tests?",
    "Please refactor {func} in {path} so it streams instead of reading the whole file.",
    "Use pnpm, not npm, in this repository. Then fix the lint errors in {path}.",
    "The build is broken on main since {sha}; can you look at {path}?",
    "Add a test for {func} that covers the empty input case.",
    "Can you explain what {func} does and whether it is still used?",
    "Rename {func} to something clearer and update every caller.",
    "The CI job times out after {n} minutes; find the slow test.",
    "OK, that works. Now update the README section about {word} {word2}.",
)

# Explicit requests (docs/reviewer-answer-schema.md) and corrections, rarer than ordinary turns as in real sessions,
# and each one different: the packet must carry every one of them with the assistant turn it
# answers (docs/performance.md#where-speed-matters, bench/bench_coverage.py).
EXPLICIT_SHARE = 0.03
CORRECTION_SHARE = 0.05
EXPLICIT_TEMPLATES = (
    "remember that integration tests for {func} need the docker compose stack running first",
    "From now on, run `make check` before proposing a commit that touches {path}.",
    "Never push directly to main; open a pull request for {func} instead.",
    "Thanks. Going forward, keep {func} free of {word} imports.",
    "We never commit generated files under {path}.",
    "Please keep in mind that the {word} service times out after {n} seconds.",
    "If the {word} tests fail on CI, always rerun them once before debugging {func}.",
)
CORRECTION_TEMPLATES = (
    "No, that's the wrong file: I meant {path}, not the one you changed.",
    "No, the other one. Revert the change to {func} and fix {path} instead.",
    "That's not what I asked: keep {func} as it was and only add the test.",
    "Actually, undo that: {func} must stay synchronous.",
)

ASSISTANT_TEMPLATES = (
    "I'll start by reading {path} to see how {func} is implemented.",
    "The failure comes from {func}: it assumes the {word} is never empty. I'll add a guard and a test.",
    "I ran the test suite: {n} passed, 1 failed in {path}. Looking at the traceback next.",
    "Done. I changed {func} to stream line by line and kept the public signature the same.",
    "There are {n} callers of {func}; I updated all of them and the tests pass.",
)


class Words:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def word(self) -> str:
        return self.rng.choice(WORDS)

    def path(self) -> str:
        return f"src/{self.word()}/{self.word()}_{self.word()}.py"

    def func(self) -> str:
        return f"{self.word()}_{self.word()}"

    def sha(self) -> str:
        return hashlib.sha1(str(self.rng.random()).encode()).hexdigest()

    def fill(self, template: str) -> str:
        return template.format(
            path=self.path(), func=self.func(), error=f"{self.word().title()}Error", sha=self.sha()[:10],
            n=self.rng.randint(2, 90), word=self.word(), word2=self.word(),
        )

    def sentence(self, n: int) -> str:
        return " ".join(self.word() for _ in range(n)).capitalize() + "."

    def code_line(self) -> str:
        kind = self.rng.random()
        if kind < 0.3:
            return f"    {self.word()}_{self.word()} = {self.func()}({self.word()}, {self.rng.randint(0, 999)})"
        if kind < 0.5:
            return f"def {self.func()}({self.word()}: str, {self.word()}: int = {self.rng.randint(0, 9)}) -> bool:"
        if kind < 0.65:
            return f"    # {self.sentence(self.rng.randint(4, 12))}"
        if kind < 0.8:
            return f"    if {self.word()} is None or {self.word()} > {self.rng.randint(0, 99)}:"
        return f'    raise ValueError("{self.sentence(self.rng.randint(3, 8))}")'

    def tool_output(self, size: int) -> str:
        kind = self.rng.random()
        lines: list[str] = []
        total = 0
        number = 1
        while total < size:
            if kind < 0.55:  # a file read, numbered like Copilot's view tool
                line = f"{number}. {self.code_line()}"
            elif kind < 0.8:  # test output
                line = f"{self.path()}::test_{self.func()} {'PASSED' if self.rng.random() < 0.95 else 'FAILED'} [{number % 100:3d}%]"
            elif kind < 0.92:  # git log / grep
                line = f"{self.sha()} {self.sentence(self.rng.randint(4, 10))} ({uuid.UUID(int=self.rng.getrandbits(128))})"
            else:
                line = f"{self.path()}:{number}: {self.code_line().strip()}"
            lines.append(line)
            total += len(line) + 1
            number += 1
        return "\n".join(lines)[:size]


class Writer:
    def __init__(self, out: TextIO, rng: random.Random, session_id: str, start: dt.datetime) -> None:
        self.out = out
        self.rng = rng
        self.session_id = session_id
        self.clock = start
        self.parent: str | None = None
        self.bytes = 0

    def _uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        self.clock += dt.timedelta(milliseconds=self.rng.randint(5, 900))
        event_id = self._uuid()
        event = {
            "type": kind,
            "data": data,
            "id": event_id,
            "timestamp": self.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "parentId": self.parent,
        }
        line = json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n"
        self.out.write(line)
        self.bytes += len(line.encode("utf-8"))
        self.parent = event_id

    def hook(self, hook_type: str, payload: dict[str, Any]) -> None:
        invocation = self._uuid()
        self.emit("hook.start", {"hookInvocationId": invocation, "hookType": hook_type, "input": payload})
        self.emit("hook.end", {"hookInvocationId": invocation, "hookType": hook_type, "success": True})


def generate(
    out_path: Path,
    mb: float,
    user_messages: int,
    seed: int = 1,
    cwd: str = "/home/dev/proj",
    session_id: str | None = None,
    big_user_message_kb: int = 0,
    big_tool_output_kb: int = 0,
) -> dict[str, Any]:
    """Write the session; return what was written (bytes, messages per origin, session id)."""
    rng = random.Random(seed)
    words = Words(rng)
    session_id = session_id or str(uuid.UUID(int=rng.getrandbits(128), version=4))
    target = int(mb * 1024 * 1024)
    user_messages = max(1, user_messages)
    counts = {"user": 0, "assistant": 0, "tool": 0}
    asks: dict[str, int] = {}  # user messages by kind: explicit request, correction, other
    start = dt.datetime(2026, 11, 29, 9, 0, tzinfo=dt.timezone.utc)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with out_path.open("w", encoding="utf-8") as out:
        w = Writer(out, rng, session_id, start)
        w.emit("session.start", {
            "sessionId": session_id, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.102",
            "startTime": start.isoformat().replace("+00:00", "Z"), "selectedModel": "gpt-5-mini",
            "reasoningEffort": "medium", "contextTier": None,
            "context": {"cwd": cwd, "gitRoot": cwd, "branch": "main", "headCommit": words.sha()},
            "alreadyInUse": False, "remoteSteerable": False,
        })
        w.hook("sessionStart", {"source": "new", "sessionId": session_id, "cwd": cwd})
        w.emit("system.message", {"role": "system", "content": "You are GitHub Copilot CLI. " + words.sentence(3000)})
        for turn in range(user_messages):
            remaining_turns = user_messages - turn
            budget = max(2000, (target - w.bytes) // remaining_turns)
            middle = turn == user_messages // 2
            _turn(w, words, rng, turn, budget, cwd, counts, asks, big_user_message_kb if middle else 0,
                  big_tool_output_kb if middle else 0)
        w.hook("sessionEnd", {"reason": "complete", "sessionId": session_id, "cwd": cwd})
        w.emit("session.shutdown", {"accountingSnapshot": {"totalPremiumRequestCost": 0.0, "totalUserRequests": user_messages}})
    return {"path": str(out_path), "bytes": out_path.stat().st_size, "session_id": session_id, "messages": counts,
            "user_kinds": asks}


def _turn(w: Writer, words: Words, rng: random.Random, turn: int, budget: int, cwd: str,
          counts: dict[str, int], asks: dict[str, int], big_kb: int, big_tool_kb: int = 0) -> None:
    interaction = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    pick = rng.random()
    if pick < EXPLICIT_SHARE:
        template, kind = rng.choice(EXPLICIT_TEMPLATES), "explicit"
    elif pick < EXPLICIT_SHARE + CORRECTION_SHARE:
        template, kind = rng.choice(CORRECTION_TEMPLATES), "correction"
    else:
        template, kind = rng.choice(USER_TEMPLATES), "other"
    asks[kind] = asks.get(kind, 0) + 1
    content = words.fill(template)
    if rng.random() < 0.08:  # a pasted log now and then
        content += "\n\n```\n" + words.tool_output(rng.randint(1500, 6000)) + "\n```"
    if big_kb:
        content += "\n\n" + words.tool_output(big_kb * 1024)
    w.hook("userPromptSubmitted", {"sessionId": w.session_id, "prompt": content[:200], "cwd": cwd})
    w.emit("user.message", {
        "content": content,
        "transformedContent": f"<current_datetime>{w.clock.isoformat()}</current_datetime>\n\n{content}\n\n<system_reminder>\nctx\n</system_reminder>",
        "messageId": str(uuid.UUID(int=rng.getrandbits(128), version=4)), "supportedNativeDocumentMimeTypes": [],
        "delivery": "idle", "interactionId": interaction, "turnId": str(turn),
    })
    counts["user"] += 1
    tools = rng.randint(1, 4)
    per_tool = max(200, (budget - 3500) // tools)
    for step in range(tools):
        w.emit("assistant.turn_start", {"turnId": f"{turn}.{step}", "interactionId": interaction})
        w.emit("session.usage_record", {"usage": {"model": "gpt-5-mini", "inputTokens": rng.randint(1000, 90000), "outputTokens": rng.randint(10, 900)}})
        call_id = f"call_{turn}_{step}"
        command = rng.choice(["pytest -q", f"cat {words.path()}", f"git log --oneline -n {rng.randint(5, 50)}", f"grep -rn {words.func()} src"])
        name = rng.choice(["bash", "view", "grep"]) if not command.startswith("pytest") else "bash"
        arguments = {"command": command, "description": words.sentence(4)} if name == "bash" else {"path": words.path()}
        w.emit("assistant.message", {
            "messageId": str(uuid.UUID(int=rng.getrandbits(128), version=4)), "model": "gpt-5-mini",
            "content": words.fill(rng.choice(ASSISTANT_TEMPLATES)) if rng.random() < 0.6 else "",
            "toolRequests": [{"toolCallId": call_id, "name": name, "arguments": arguments, "type": "function",
                              "intentionSummary": words.sentence(3)}],
            "interactionId": interaction, "turnId": f"{turn}.{step}",
        })
        counts["assistant"] += 1
        w.emit("tool.execution_start", {"toolCallId": call_id, "toolName": name, "arguments": arguments, "turnId": f"{turn}.{step}"})
        w.hook("preToolUse", {"sessionId": w.session_id, "cwd": cwd, "toolName": name})
        size = big_tool_kb * 1024 if big_tool_kb and step == 0 else int(per_tool * rng.uniform(0.5, 1.5))
        output = words.tool_output(size)
        result: dict[str, Any] = {"content": output}
        if rng.random() < 0.1:
            result["detailedContent"] = output
        w.emit("tool.execution_complete", {
            "toolCallId": call_id, "model": "gpt-5-mini", "interactionId": interaction, "turnId": f"{turn}.{step}",
            "success": rng.random() < 0.95, "result": result,
            "toolTelemetry": {"properties": {"executionMode": "sync"}, "metrics": {"commandTimeout": 30000.0}},
        })
        counts["tool"] += 1
        w.emit("assistant.turn_end", {"turnId": f"{turn}.{step}"})
    w.emit("assistant.message", {
        "messageId": str(uuid.UUID(int=rng.getrandbits(128), version=4)), "model": "gpt-5-mini",
        "content": " ".join(words.fill(rng.choice(ASSISTANT_TEMPLATES)) for _ in range(rng.randint(1, 4))),
        "toolRequests": [], "interactionId": interaction, "turnId": f"{turn}.end",
    })
    counts["assistant"] += 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="events.jsonl path, or a session folder")
    parser.add_argument("--mb", type=float, default=1.0, help="approximate size in MiB (default 1)")
    parser.add_argument("--user-messages", type=int, default=None, help="user messages (default: 13 per MiB)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cwd", default="/home/dev/proj", help="session.start context.cwd and gitRoot")
    parser.add_argument("--session-id", default=None)
    parser.add_argument("--big-user-message-kb", type=int, default=0, help="one user message of this size, mid-session")
    parser.add_argument("--big-tool-output-kb", type=int, default=0, help="one tool output of this size, mid-session")
    args = parser.parse_args(argv)
    out: Path = args.out
    folder = None
    if out.suffix != ".jsonl":
        folder, out = out, out / "events.jsonl"
    users = args.user_messages if args.user_messages is not None else max(1, round(13 * args.mb))
    info = generate(out, args.mb, users, args.seed, args.cwd, args.session_id, args.big_user_message_kb,
                    args.big_tool_output_kb)
    if folder is not None:
        (folder / "workspace.yaml").write_text(
            f"id: {info['session_id']}\ncwd: {args.cwd}\ngit_root: {args.cwd}\nbranch: main\n", encoding="utf-8"
        )
    json.dump(info, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
