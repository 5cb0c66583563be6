"""Reviewer backends: one safe call to a model (SPEC §5.2).

- `copilot`: the Copilot CLI (`OMP_COPILOT_BIN`, else `copilot` on PATH) as
  `copilot --model M --output-format json --no-custom-instructions --no-auto-update
  --available-tools omp-no-tools --disable-builtin-mcps --session-id <uuid>` (COPILOT.md §5: a
  name that matches no tool sends the model zero tools). The session id is chosen here so that
  afterwards omp.copilot_history removes that session from the user's history (its folder and
  its rows in `C/session-store.db`): `copilot --continue` and `/resume` never land on a review.
- `command`: `memory-reviewer-command`, split with shlex and run without a shell.
- `offline`: no process at all; the review uses only the explicit pass.
- `openai` (and any backend of omp.review.backends whose entry names another module):
  `call_reviewer` hands the call to that module.

Every process gets the prompt on **stdin** (argv is capped at 128 KiB and is visible in `ps`),
runs in a fresh empty folder `omp-review-*` that omp marks as its own (omp.reviewer_folder;
removed afterwards; the reviewer's own Copilot session is then recorded outside every project), in its own process group, with
`OMP_MEMORY_MODE=off` and `OMP_REVIEWER=1` so its own session never triggers a review or an
injection. omp.process runs it: stdin, stdout and stderr pumped by threads, so a 500 KB prompt
cannot deadlock against a reviewer that writes before it reads, and stdout watched while it
arrives: Copilot often prints the answer and then lingers, so once a complete answer is on
stdout the reviewer gets `LINGER_SECONDS` to exit before its tree is stopped. On timeout the
tree is terminated, then killed after `KILL_GRACE_SECONDS`; whatever stdout holds by then is
still used. stdout is read up to `MAX_OUTPUT_BYTES`: a reviewer that writes more is ended and
the review fails (`too-large`); a reader that fails ends the reviewer too (`read-error`), never
a wait for the whole timeout.

Failures without a usable answer raise `ReviewerUnavailable` (the session is queued and retried
with backoff, a bounded number of times: omp.review.queue) with a hint naming the fix.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path
from typing import Callable, Mapping

from msgspec import Struct, field

from omp.config import is_program_name_allowed
from omp.copilot import HINT_INSTALL, find_copilot
from omp.copilot_history import Forgotten, copilot_home_of, forget_session, new_session_id, use_reviewer_home
from omp.errors import OmpError
from omp.lazyre import lazy
from omp.paths import global_home
from omp.process import TERMINATE_GRACE_SECONDS, OutputReadError, reviewer_env_file, run_captured
from omp.review import backends
from omp.reviewer_folder import reviewer_folder

BACKENDS = backends.NAMES
# Kinds of ReviewerUnavailable where the reviewer answered, but not in a form omp reads.
ANSWER_REFUSED = frozenset({"too-large", "read-error"})
NO_TOOLS = "omp-no-tools"
LINGER_SECONDS = 3.0
# What omp reads of a reviewer's stdout. An answer is under 100 KB, Copilot's JSON events around
# it a few times that; past this the reviewer is ended and the review fails (SPEC §5.1).
MAX_OUTPUT_BYTES = 4 * 1024 * 1024
KILL_GRACE_SECONDS = TERMINATE_GRACE_SECONDS

HINT_LOGIN = "run: copilot login"
HINT_MODEL = "run: omp config set memory-review-model <name> (for example gpt-5-mini or claude-haiku-4.5)"
HINT_NETWORK = "check the network; the review is retried by the next omp memory-review --sweep"
HINT_TIMEOUT = "run: omp config set memory-review-timeout <seconds> (a larger value)"
HINT_COMMAND = 'run: omp config set memory-reviewer-command "<command line>"'
HINT_OFFLINE = "or review without a model: omp config set memory-reviewer offline"


class ReviewerConfig(Struct, frozen=True):
    backend: str
    model: str
    command: str | None
    timeout: float
    project_root: Path
    claim_token: str | None = None  # marks the reviewer's processes (OMP_REVIEW_CLAIM) for a takeover
    url: str | None = None  # memory-reviewer-url, for the `openai` backend


class ReviewerReply(Struct):
    text: str
    stderr: str
    returncode: int | None
    timed_out: bool
    stopped_after_answer: bool
    duration_ms: int
    argv: list[str] = field(default_factory=list)
    premium_requests: float | None = None
    forgotten: Forgotten | None = None  # the reviewer's own session, removed from Copilot's history
    overflowed: bool = False  # stdout passed MAX_OUTPUT_BYTES: reading stopped, the reviewer was ended


class ReviewerUnavailable(OmpError):
    """The reviewer could not give an answer this time. Retryable: never a verdict on the session."""

    def __init__(self, kind: str, message: str, hint: str, reply: ReviewerReply | None = None) -> None:
        super().__init__(message, hint)
        self.kind = kind
        self.reply = reply


# ---------------------------------------------------------------------------------------------
# argv


def copilot_binary() -> str:
    found = find_copilot()
    if not found:
        raise ReviewerUnavailable("missing", "Copilot CLI not found on PATH", HINT_INSTALL)
    return found


def build_argv(config: ReviewerConfig, session_id: str | None = None) -> list[str]:
    if config.backend == "copilot":
        argv = [
            # JSONL events rather than `-s`: the same answer, plus the run's premium requests
            # (the last `result` line), which the cost ledger records.
            copilot_binary(), "--model", config.model, "--output-format", "json", "--no-custom-instructions",
            "--no-auto-update", "--available-tools", NO_TOOLS, "--disable-builtin-mcps",
        ]
        if session_id:
            # An id chosen here, so the session can be removed from the user's history afterwards.
            argv += ["--session-id", session_id]
        return argv
    if config.backend == "command":
        if not config.command:
            raise ReviewerUnavailable(
                "not-configured", "memory-reviewer is 'command' but memory-reviewer-command is not set", HINT_COMMAND
            )
        try:
            argv = shlex.split(config.command)
        except ValueError as exc:
            raise ReviewerUnavailable("not-configured", f"memory-reviewer-command does not parse: {exc}", HINT_COMMAND) from exc
        if not argv:
            raise ReviewerUnavailable("not-configured", "memory-reviewer-command is empty", HINT_COMMAND)
        # A program on PATH or an absolute path, never one resolved against the project folder
        # (SPEC §3.1): `./reviewer` would run whatever file a repository puts there.

        if not is_program_name_allowed(argv[0]):
            raise ReviewerUnavailable(
                "not-configured",
                f"memory-reviewer-command program {argv[0]!r} is a relative path; "
                "it must be a program on PATH or an absolute path",
                HINT_COMMAND,
            )
        return argv
    raise OmpError(f"backend {config.backend!r} runs no process")


def reviewer_env(config: ReviewerConfig, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The reviewer's environment: `base` (default: ours) with memory off and the reviewer flag."""
    env = dict(os.environ if base is None else base)
    env["OMP_MEMORY_MODE"] = "off"
    env["OMP_REVIEWER"] = "1"
    env["OMP_REVIEW_MODEL"] = config.model
    use_reviewer_home(env)  # eval/demo: the user's Copilot home, where the session is then forgotten
    if config.claim_token:
        env["OMP_REVIEW_CLAIM"] = config.claim_token
    return env


# ---------------------------------------------------------------------------------------------
# running the process


def run_process(
    argv: list[str],
    prompt: str,
    *,
    env: dict[str, str],
    timeout: float,
    answer_complete: Callable[[str], bool] | None = None,
    linger: float = LINGER_SECONDS,
    grace: float = KILL_GRACE_SECONDS,
    on_start: Callable[[int], object] | None = None,
) -> ReviewerReply:
    """Run one reviewer process in a fresh temp folder. Raises ReviewerUnavailable('missing').

    `on_start(pid)` runs once the process exists (the claim records it, SPEC §5.1).
    """
    with reviewer_folder() as workdir:  # marked as omp's: its session is known as the reviewer's
        try:
            finished = run_captured(
                argv, stdin=prompt, env=env, cwd=workdir, timeout=timeout,
                # Its own group: a takeover (claim.py) can end what a killed run left behind.
                own_group=True, die_with_parent=True,
                complete=answer_complete, linger=linger, grace=grace, on_start=on_start,
                max_stdout=MAX_OUTPUT_BYTES,
            )
        except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
            raise ReviewerUnavailable(
                "missing", f"cannot run reviewer {argv[0]!r}: {exc.strerror or exc}", HINT_INSTALL
            ) from exc
        except OutputReadError as exc:
            # The reviewer was ended already; its output could not be read or checked.
            raise ReviewerUnavailable("read-error", f"reviewer output could not be read: {exc}"[:300],
                                      f"check the reviewer; {HINT_OFFLINE}") from exc
        return ReviewerReply(
            text=finished.stdout,
            stderr=finished.stderr,
            returncode=finished.returncode,
            timed_out=finished.timed_out,
            stopped_after_answer=finished.stopped,
            duration_ms=finished.duration_ms,
            argv=list(argv),
            overflowed=finished.overflowed,
        )


# ---------------------------------------------------------------------------------------------
# classifying failures

_AUTH = lazy(r"no authentication information found|not authenticated|not logged in|please (?:log ?in|sign in)|copilot login", re.I)
_MODEL = lazy(
    r"(?:unknown|invalid|unsupported) model|model\b[^\n]{0,80}?\b(?:is )?(?:not available|not supported|unavailable|not found|not enabled|does not exist)",
    re.I,
)
_RATE = lazy(r"rate.?limit|too many requests|\b429\b|quota", re.I)
_NETWORK = lazy(
    r"enotfound|econnrefused|econnreset|etimedout|eai_again|getaddrinfo|fetch failed|socket hang up|"
    r"network|could not resolve|connection (?:refused|reset|timed out)|unable to connect",
    re.I,
)


def login_hint() -> str:
    """Not authenticated: a login, or — for bring-your-own-key and offline users, whose provider
    variables Copilot strips from hooks — the reviewer.env file that gives them back."""
    return (f"{HINT_LOGIN}; with your own model provider (BYOK/offline), put its COPILOT_PROVIDER_* and "
            f"COPILOT_OFFLINE settings in {reviewer_env_file()} (hooks do not get them), then check: omp doctor --deep")


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


def classify_failure(reply: ReviewerReply, backend: str) -> ReviewerUnavailable:
    """Turn a reviewer run without a usable answer into a retryable error with its fix."""
    output = f"{reply.stderr}\n{reply.text}"
    detail = _last_line(reply.stderr) or _last_line(reply.text)
    if reply.timed_out:
        return ReviewerUnavailable(
            "timeout", f"reviewer gave no answer within {reply.duration_ms / 1000:.0f}s", HINT_TIMEOUT, reply
        )
    if _AUTH.search(output):
        hint = login_hint() if backend == "copilot" else "log the reviewer command in"
        return ReviewerUnavailable("auth", f"reviewer is not authenticated: {detail}", hint, reply)
    if _MODEL.search(output):
        return ReviewerUnavailable("model", f"review model not available: {detail}", HINT_MODEL, reply)
    if _RATE.search(output):
        return ReviewerUnavailable("rate-limited", f"reviewer is rate-limited: {detail}", HINT_NETWORK, reply)
    if _NETWORK.search(output):
        return ReviewerUnavailable("network", f"reviewer cannot reach its model: {detail}", HINT_NETWORK, reply)
    code = reply.returncode
    what = f"exited with code {code}" if code else "gave an empty answer"
    return ReviewerUnavailable(
        "failed", f"reviewer {what}" + (f": {detail}" if detail else ""),
        f"check the reviewer; {HINT_OFFLINE}", reply,
    )


def copilot_answer(stdout: str) -> tuple[str, float | None]:
    """The answer and the premium requests in `copilot --output-format json` output.

    The answer is the `assistant.message` events' `data.content`; the cost is the last line's
    `{"type": "result", "usage": {"premiumRequests": N}}`. Output with no such events (plain
    text from an older CLI or a stand-in) is taken as the answer itself.
    """
    answers: list[str] = []
    premium: float | None = None
    saw_events = False
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith('{"type"'):
            continue
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            continue  # a line cut short by a timeout, or nested past the decoder's depth
        if not isinstance(event, dict):
            continue
        saw_events = True
        if event.get("type") == "assistant.message":
            content = (event.get("data") or {}).get("content")
            if isinstance(content, str) and content.strip():
                answers.append(content)
        elif event.get("type") == "result":
            value = (event.get("usage") or {}).get("premiumRequests")
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                premium = float(value)
    if not saw_events:
        return stdout, None
    return "\n".join(answers), premium


def call_reviewer(
    config: ReviewerConfig,
    prompt: str,
    answer_complete: Callable[[str], bool],
    *,
    linger: float = LINGER_SECONDS,
    grace: float = KILL_GRACE_SECONDS,
    on_start: Callable[[int], object] | None = None,
    base_env: Mapping[str, str] | None = None,
) -> ReviewerReply:
    """One reviewer call. Returns a reply holding a usable answer, or raises ReviewerUnavailable.

    A reply is usable when `answer_complete` finds an answer in stdout, whatever the exit status
    (a reviewer that answered and then timed out or crashed still answered). A clean exit with
    output that is not an answer is returned too: the caller reports it as an invalid answer.
    """
    entry = backends.REGISTRY.get(config.backend)
    if entry is not None and entry.runs_model and entry.module != __name__:
        return entry.call(prompt, config, answer_complete, linger=linger, grace=grace, on_start=on_start,
                          base_env=base_env)
    session_id = new_session_id() if config.backend == "copilot" else None
    argv = build_argv(config, session_id)
    complete = answer_complete
    if config.backend == "copilot":
        complete = lambda raw: answer_complete(copilot_answer(raw)[0])  # noqa: E731
    env = reviewer_env(config, base_env)
    forgotten: Forgotten | None = None
    try:
        reply = run_process(
            argv, prompt, env=env, timeout=config.timeout,
            answer_complete=complete, linger=linger, grace=grace, on_start=on_start,
        )
    finally:
        if session_id is not None:
            # The reviewer's process group is gone by now: nothing writes that session any more.
            forgotten = forget_session(copilot_home_of(env), session_id, global_home())
    reply.forgotten = forgotten
    if config.backend == "copilot":
        reply.text, reply.premium_requests = copilot_answer(reply.text)
    if answer_complete(reply.text):
        return reply
    if reply.overflowed:
        raise ReviewerUnavailable(
            "too-large", f"reviewer wrote more than {MAX_OUTPUT_BYTES // (1024 * 1024)} MB without an answer; "
            "omp stopped reading and ended it", f"check the reviewer; {HINT_OFFLINE}", reply)
    if reply.returncode == 0 and not reply.timed_out and reply.text.strip():
        return reply
    raise classify_failure(reply, config.backend)
