"""The `copilot` reviewer: the Copilot CLI with the user's login or their own provider (docs/reviewers.md).

`OMP_COPILOT_BIN`, else `copilot` on PATH, runs as `copilot --model M --output-format json
--no-custom-instructions --no-auto-update --available-tools omp-no-tools --disable-builtin-mcps
--session-id <uuid>` (COPILOT.md §5: a tool name that matches nothing sends the model zero tools),
the prompt on stdin, through omp.review.reviewers.run_process (its environment, reviewer.env
included, its folder, its bounds). The session id is chosen here so that afterwards
omp.copilot_history removes that session from the user's history (its folder and its rows in
`C/session-store.db`): `copilot --continue` and `/resume` never land on a review.

stdout is JSONL events (COPILOT.md §5, §8): the answer is the `assistant.message` events'
`data.content`, the cost the last line's `{"type": "result", "usage": {"premiumRequests": N}}`.
A failed run says why in a `session.error` event — `{"errorType": "query"|"authentication"|…,
"message": "Model 'gpt-5-mini' not found on provider at http://…/v1 (HTTP 404).\\n  Check…",
"statusCode": 404}` — and exits 1 with nothing on stderr; some failures come before any event,
on stderr only (`Error: No authentication information found.`, `Offline mode requires a local
model provider. Set COPILOT_PROVIDER_BASE_URL …`). The failure's message holds those words
(redacted, one line), its kind and fix come from the status, then the words; a bring-your-own-
key setup (COPILOT_OFFLINE or COPILOT_PROVIDER_BASE_URL reaches the reviewer) gets fixes that
name reviewer.env and the provider, not `copilot login`.
"""

from __future__ import annotations

import json
import shutil
from typing import Any, Callable, Mapping, NamedTuple

from omp.copilot import HINT_INSTALL
from omp.copilot_history import Forgotten, copilot_home_of, forget_session, new_session_id
from omp.paths import global_home
from omp.process import reviewer_env_file
from omp.review.reviewers import (
    HINT_MODEL, KILL_GRACE_SECONDS, LINGER_SECONDS, Fixes, ReviewerConfig, ReviewerReply, ReviewerUnavailable,
    answered, copilot_binary, login_hint, one_line, process_failure, reviewer_env, run_process, secret_values,
    stated_error,
)

NO_TOOLS = "omp-no-tools"
PROVIDER_URL = "COPILOT_PROVIDER_BASE_URL"


class Events(NamedTuple):
    """What omp reads of `copilot --output-format json`."""

    answer: str
    premium_requests: float | None
    error: str  # the last `session.error` message (else a model call's failure), as printed
    status: int | None  # the HTTP status that error reports, if any


def argv(config: ReviewerConfig, session_id: str | None = None) -> list[str]:
    command = [
        # JSONL events rather than `-s`: the same answer, plus the run's premium requests (the
        # last `result` line), which the cost ledger records, and the reason of a failure.
        copilot_binary(), "--model", config.model, "--output-format", "json", "--no-custom-instructions",
        "--no-auto-update", "--available-tools", NO_TOOLS, "--disable-builtin-mcps",
    ]
    if session_id:
        # An id chosen here, so the session can be removed from the user's history afterwards.
        command += ["--session-id", session_id]
    return command


def _status(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599 else None


def _is_event(value: Any) -> bool:
    """A Copilot event: `{"type": "session.error", …}` (a dotted name) or the last `result` line."""
    kind = value.get("type") if isinstance(value, dict) else None
    return isinstance(kind, str) and ("." in kind or kind == "result")


def read_events(stdout: str) -> Events:
    """The answer, the premium requests and the error in `copilot --output-format json` output.
    Output with no events (plain text from an older CLI or a stand-in) is the answer itself."""
    answers: list[str] = []
    premium: float | None = None
    error, status = "", None
    failure, failure_status = "", None  # a model call's own failure, when no session.error came
    saw_events = False
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{") or '"type"' not in line:
            continue
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            continue  # a line cut short by a timeout, or nested past the decoder's depth
        if not _is_event(event):
            continue  # e.g. a plain-text answer that is itself one JSON object
        saw_events = True
        kind, data = event.get("type"), event.get("data")
        data = data if isinstance(data, dict) else {}
        if kind == "assistant.message":
            content = data.get("content")
            if isinstance(content, str) and content.strip():
                answers.append(content)
        elif kind == "result":
            value = (event.get("usage") or {}).get("premiumRequests")
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                premium = float(value)
        elif kind == "session.error" and isinstance(data.get("message"), str):
            error, status = data["message"], _status(data.get("statusCode"))
            if status is None and data.get("errorType") == "authentication":
                status = 401  # Copilot's own word for the cause, when it reports no status
        elif kind == "model.call_failure" and isinstance(data.get("errorMessage"), str):
            failure, failure_status = data["errorMessage"], _status(data.get("statusCode"))
    if not saw_events:
        return Events(stdout, None, "", None)
    if not error:
        error, status = failure, failure_status
    return Events("\n".join(answers), premium, error, status)


def copilot_answer(stdout: str) -> tuple[str, float | None]:
    """The answer and the premium requests (see `read_events`)."""
    events = read_events(stdout)
    return events.answer, events.premium_requests


def describe(settings: Mapping[str, Any], model: str) -> str:
    """`copilot, model M (path)` when the CLI is found (`omp doctor`)."""
    binary = copilot_binary()
    found = shutil.which(binary)
    if found is None:
        raise ReviewerUnavailable("missing", f"cannot run reviewer {binary!r}: not found", HINT_INSTALL)
    return f"copilot, model {model} ({found})"


def fixes(env: Mapping[str, str]) -> Fixes:
    """The fixes for this reviewer's setup: the user's login, or their own provider (BYOK)."""
    provider = env.get(PROVIDER_URL)
    if not (provider or env.get("COPILOT_OFFLINE")):
        return Fixes(auth=login_hint())
    where = reviewer_env_file()
    at = f" at {provider}" if provider else ""
    return Fixes(
        auth=(f"put your provider's key (COPILOT_PROVIDER_API_KEY or COPILOT_PROVIDER_BEARER_TOKEN) in {where} "
              "(chmod 600), then check: omp doctor --deep"),
        model=HINT_MODEL.split(" (")[0] + f": a model your provider{at} serves",
        network=(f"start your model provider{at}, or fix {PROVIDER_URL} in {where}; "
                 "the review is retried by the next omp memory-review --sweep"),
    )


def call(
    config: ReviewerConfig,
    prompt: str,
    answer_complete: Callable[[str], bool],
    *,
    linger: float = LINGER_SECONDS,
    grace: float = KILL_GRACE_SECONDS,
    on_start: Callable[[int], object] | None = None,
    base_env: Mapping[str, str] | None = None,
) -> ReviewerReply:
    """One review by the Copilot CLI. Returns the reply, or raises ReviewerUnavailable."""
    session_id = new_session_id()
    command = argv(config, session_id)
    env = reviewer_env(config, base_env)  # what run_process gives it: where its session lands, its keys
    forgotten: Forgotten | None = None
    try:
        reply = run_process(
            command, prompt, config, base_env=base_env, linger=linger, grace=grace, on_start=on_start,
            answer_complete=lambda raw: answer_complete(read_events(raw).answer),
        )
    finally:
        # The reviewer's process group is gone by now: nothing writes that session any more.
        forgotten = forget_session(copilot_home_of(env), session_id, global_home())
    reply.forgotten = forgotten
    events = read_events(reply.text)
    reply.text, reply.premium_requests = events.answer, events.premium_requests
    if answered(reply, answer_complete):
        return reply
    # Copilot's own account of the failure when it gave one (a few lines at most), else stderr's.
    error, status = events.error, events.status
    if not error:  # the same events on stderr (a wrapper that moved them), else its plain words
        on_stderr = read_events(reply.stderr)
        error, status = on_stderr.error or stated_error(reply.stderr), on_stderr.status
    said = one_line(error, secret_values(env))
    raise process_failure(reply, said, fixes(env), model=config.model, env=env, status=status)
