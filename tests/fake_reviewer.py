#!/usr/bin/env python3
"""A fake reviewer executable for the review pipeline's tests (standard library only).

Used as the `command` reviewer (`memory-reviewer-command = "python tests/fake_reviewer.py"`)
and as the Copilot CLI (`OMP_COPILOT_BIN` pointing at a small wrapper that runs this file).

`FAKE_REVIEWER_DIR` names its folder:

    replies/<name>.json   canned replies, consumed in name order, each by exactly one call
    default.json          the reply when the queue is empty (optional; else exit 3)
    calls/<NNNN>/         one folder per call, created with mkdir (atomic) once the fake has
                          read its whole stdin, holding
                          argv.json, stdin.txt, cwd.txt, env.json, pid.txt, reply.json
                          (the reply it took) and answered.txt once it has written stdout

A reply is `{"stdout": str, "stderr": str, "exit": int, "sleep": seconds before answering,
"hang": true to sleep "forever" after answering, "ignore_term": true to ignore SIGTERM,
"fill": regex, "spawn_child": true to start a child process (pid in child.txt) that sleeps
for an hour in the reviewer's process group, "repeat": N to write stdout N times (50 MB of
output without a 50 MB reply file)}`. With `fill`, every "@@" in stdout becomes the last match of the regex in the
prompt (the transcript comes last), so one default reply can answer many different sessions.
A reply is taken by renaming it into the call's folder: of several fakes running at once, only
one rename of a given file succeeds, so no two calls ever take the same reply.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time

# os.path, not pathlib: every call is a process start (357 in the eval's test alone), and importing
# pathlib cost ≈ 6 ms of each one's ≈ 38.


def _write(folder: str, name: str, data: str | bytes) -> None:
    """`folder/name`, whole or not at all: a test polling for the file never reads it half-written."""
    part = os.path.join(folder, f".{name}.part")
    with open(part, "wb") as handle:
        handle.write(data if isinstance(data, bytes) else data.encode("utf-8"))
    os.replace(part, os.path.join(folder, name))


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _new_call_dir(base: str) -> str:
    calls = os.path.join(base, "calls")
    os.makedirs(calls, exist_ok=True)
    number = len(os.listdir(calls)) + 1
    while True:
        path = os.path.join(calls, f"{number:04d}")
        try:
            os.mkdir(path)
            return path
        except FileExistsError:
            number += 1


def _take_reply(base: str, call: str) -> dict:
    replies = os.path.join(base, "replies")
    names = os.listdir(replies) if os.path.isdir(replies) else []
    for name in sorted(n for n in names if n.endswith(".json") and not n.startswith(".")):
        target = os.path.join(call, "reply.json")
        try:
            os.rename(os.path.join(replies, name), target)
        except FileNotFoundError:
            continue  # another fake took it first
        return json.loads(_read(target))
    default = os.path.join(base, "default.json")
    if os.path.isfile(default):
        reply = json.loads(_read(default))
        _write(call, "reply.json", json.dumps(reply))
        return reply
    return {"stdout": "", "stderr": "fake reviewer: no canned reply left\n", "exit": 3}


def main() -> int:
    base = os.environ["FAKE_REVIEWER_DIR"]
    # The prompt first, then the record: a fake that omp's death ends (PDEATHSIG) before it has
    # the prompt leaves no call behind that names no session (tests/test_crash_safety.py).
    data = sys.stdin.buffer.read()
    call = _new_call_dir(base)
    _write(call, "stdin.txt", data)
    _write(call, "pid.txt", str(os.getpid()))
    _write(call, "argv.json", json.dumps(sys.argv[1:]))
    _write(call, "cwd.txt", os.getcwd())
    _write(call, "env.json", json.dumps(dict(os.environ)))
    reply = _take_reply(base, call)
    if reply.get("spawn_child"):
        import subprocess

        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _write(call, "child.txt", str(child.pid))
    if reply.get("ignore_term"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(float(reply.get("sleep", 0)))
    stdout = reply.get("stdout", "")
    if reply.get("fill"):
        found = re.findall(reply["fill"], data.decode("utf-8", errors="replace"))
        stdout = stdout.replace("@@", found[-1] if found else "nothing-matched")
    try:
        for _ in range(int(reply.get("repeat", 1))):
            sys.stdout.write(stdout)
        sys.stdout.flush()
    except BrokenPipeError:  # omp stopped reading (it reads a bounded amount)
        return 141
    sys.stderr.write(reply.get("stderr", ""))
    sys.stderr.flush()
    _write(call, "answered.txt", "yes")
    if reply.get("hang"):
        time.sleep(3600)
    return int(reply.get("exit", 0))


if __name__ == "__main__":
    raise SystemExit(main())
