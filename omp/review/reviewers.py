"""The reviewer call's shared parts: what every backend takes and gives back (docs/reviewers.md).

Each backend is one module of omp.review.backends, named by its entry in that package's
registry: `copilot` (the Copilot CLI), `command` (`memory-reviewer-command`), `openai` (an
OpenAI-compatible server); `offline` calls no model. `call_reviewer` hands a call to the module
the registry names. What they share lives here:

- the types: `ReviewerConfig` (what to call), `ReviewerReply` (what came back),
  `ReviewerUnavailable` (no usable answer this time: retryable, never a verdict on the session;
  the session is queued and retried with backoff, a bounded number of times: omp.review.queue);
- the environment (`reviewer_env`): every reviewer gets ours — or the one the caller hands in,
  e.g. a hook's for `omp doctor --deep` — plus `G/reviewer.env`, then `OMP_MEMORY_MODE=off` and
  `OMP_REVIEWER=1` so its own session never triggers a review or an injection. reviewer.env is
  applied here, to every start (hook-started, a typed `omp memory-review`, a sweep, `omp eval`,
  `omp doctor --deep`), and wins over the shell: one file configures the reviewer, and a review
  run by hand sees what a hook-started one sees;
- running a process (`run_process`), the one place a reviewer process starts: the prompt on
  **stdin** (argv is capped at 128 KiB and is visible in `ps`), a fresh empty folder
  `omp-review-*` that omp marks as its own (omp.reviewer_folder; removed afterwards), its own
  process group. omp.process pumps stdin, stdout and stderr with threads, so a 500 KB prompt
  cannot deadlock against a reviewer that writes before it reads, and watches stdout as it
  arrives: once a complete answer is there the reviewer gets `LINGER_SECONDS` to exit before its
  tree is stopped. On timeout the tree is terminated, then killed after `KILL_GRACE_SECONDS`;
  whatever stdout holds by then is still used. stdout is read up to `MAX_OUTPUT_BYTES`: a
  reviewer that writes more is ended and the review fails (`too-large`); a reader that fails
  ends the reviewer too (`read-error`);
- the failure (`diagnose`): the reviewer's own words — Copilot's `session.error` event, a
  server's error body, a command's stderr — redacted, on one line of at most `DETAIL_CHARS`
  (`one_line`), in the message; the kind and the fix in the hint chosen from what the reviewer
  reports (an HTTP status first, then its words): an unknown model names `omp config set
  memory-review-model`, a refused login the login or reviewer.env, a variable the reviewer asks
  for and does not have reviewer.env. The message reaches the log line, the queue entry and so
  `omp doctor`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping

from omp.copilot import HINT_INSTALL, find_copilot
from omp.copilot_history import Forgotten, use_reviewer_home
from omp.errors import OmpError
from omp.lazyre import lazy
from omp.process import (
    TERMINATE_GRACE_SECONDS,
    OutputReadError,
    read_env_file,
    reviewer_env_file,
    run_captured,
)
from omp.review import backends
from omp.reviewer_folder import reviewer_folder

BACKENDS = backends.NAMES
# Kinds of ReviewerUnavailable where the reviewer answered, but not in a form omp reads.
ANSWER_REFUSED = frozenset({"too-large", "read-error"})
LINGER_SECONDS = 3.0
# What omp reads of a reviewer's stdout. An answer is under 100 KB, Copilot's JSON events around
# it a few times that; past this the reviewer is ended and the review fails (docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps).
MAX_OUTPUT_BYTES = 4 * 1024 * 1024
KILL_GRACE_SECONDS = TERMINATE_GRACE_SECONDS
# The reviewer's own words in a message: one line, this long at most (a log line, a queue entry,
# a line of `omp doctor`).
DETAIL_CHARS = 200

HINT_LOGIN = "run: copilot login"
HINT_MODEL = "run: omp config set memory-review-model <name> (for example gpt-5-mini or claude-haiku-4.5)"
HINT_NETWORK = "check the network; the review is retried by the next omp memory-review --sweep"
HINT_TIMEOUT = "run: omp config set memory-review-timeout <seconds> (a larger value)"
HINT_COMMAND = 'run: omp config set memory-reviewer-command "<command line>"'
HINT_OFFLINE = "or review without a model: omp config set memory-reviewer offline"
HINT_DOCTOR = "omp doctor --deep calls the reviewer as a hook-started review would"


@dataclass(frozen=True)
class ReviewerConfig:
    backend: str
    model: str
    command: str | None
    timeout: float
    project_root: Path
    claim_token: str | None = None  # marks the reviewer's processes (OMP_REVIEW_CLAIM) for a takeover
    url: str | None = None  # memory-reviewer-url, for the `openai` backend


@dataclass
class ReviewerReply:
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


def copilot_binary() -> str:
    found = find_copilot()
    if not found:
        raise ReviewerUnavailable("missing", "Copilot CLI not found on PATH", HINT_INSTALL)
    return found


# ---------------------------------------------------------------------------------------------
# the environment


def with_reviewer_env_file(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base` (default: ours) with `G/reviewer.env`'s settings on top (they win)."""
    env = dict(os.environ if base is None else base)
    env.update(read_env_file(reviewer_env_file()))
    return env


def reviewer_env(config: ReviewerConfig, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The reviewer's environment: `base` plus reviewer.env, memory off and the reviewer flag.

    The flags are set last: a reviewer.env line cannot turn the reviewer's own memory back on.
    """
    env = with_reviewer_env_file(base)
    env["OMP_MEMORY_MODE"] = "off"
    env["OMP_REVIEWER"] = "1"
    env["OMP_REVIEW_MODEL"] = config.model
    env.pop("OMP_REVIEW_CLAIM", None)  # only this review's own mark, never one inherited or from the file
    use_reviewer_home(env)  # eval/demo: the user's Copilot home, where the session is then forgotten
    if config.claim_token:
        env["OMP_REVIEW_CLAIM"] = config.claim_token
    return env


# ---------------------------------------------------------------------------------------------
# running the process


def run_process(
    argv: list[str],
    prompt: str,
    config: ReviewerConfig,
    *,
    base_env: Mapping[str, str] | None = None,
    answer_complete: Callable[[str], bool] | None = None,
    linger: float = LINGER_SECONDS,
    grace: float = KILL_GRACE_SECONDS,
    on_start: Callable[[int], object] | None = None,
) -> ReviewerReply:
    """Run one reviewer process in a fresh temp folder, with `reviewer_env(config, base_env)`.
    Raises ReviewerUnavailable('missing').

    `on_start(pid)` runs once the process exists (the claim records it, docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps).
    """
    env = reviewer_env(config, base_env)
    with reviewer_folder() as workdir:  # marked as omp's: its session is known as the reviewer's
        try:
            finished = run_captured(
                argv, stdin=prompt, env=env, cwd=workdir, timeout=config.timeout,
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
            raise ReviewerUnavailable("read-error", one_line(f"reviewer output could not be read: {exc}"),
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


def answered(reply: ReviewerReply, answer_complete: Callable[[str], bool]) -> bool:
    """Is `reply` to be returned? Yes when it holds an answer, whatever the exit status (a
    reviewer that answered and then timed out or crashed still answered), and when a clean exit
    printed something that is not one (the caller reports it as an invalid answer). No when the
    run failed: the backend then says why (`diagnose`). Raises ReviewerUnavailable('too-large')
    when stdout passed MAX_OUTPUT_BYTES without an answer."""
    if answer_complete(reply.text):
        return True
    if reply.overflowed:
        raise ReviewerUnavailable(
            "too-large", f"reviewer wrote more than {MAX_OUTPUT_BYTES // (1024 * 1024)} MB without an answer; "
            "omp stopped reading and ended it", f"check the reviewer; {HINT_OFFLINE}", reply)
    return reply.returncode == 0 and not reply.timed_out and bool(reply.text.strip())


# ---------------------------------------------------------------------------------------------
# the reviewer's own words, and what they mean

_AUTH = lazy(r"no authentication information found|not authenticated|authentication failed|unauthori[sz]ed|"
             r"not logged in|please (?:log ?in|sign in)|copilot login|invalid api key|incorrect api key", re.I)
_MODEL = lazy(
    r"(?:unknown|invalid|unsupported) model|model\b[^\n]{0,80}?\b(?:is )?(?:not available|not supported|unavailable|"
    r"not found|not enabled|does not exist)|no such model",
    re.I,
)
_RATE = lazy(r"rate.?limit|too many requests|\b429\b|quota", re.I)
_NETWORK = lazy(
    r"enotfound|econnrefused|econnreset|etimedout|eai_again|getaddrinfo|fetch failed|socket hang up|"
    r"network|could not resolve|connection (?:refused|reset|timed out)|unable to connect|could not connect",
    re.I,
)
# An environment variable a reviewer asks for (`Set COPILOT_PROVIDER_BASE_URL to …`, `$API_KEY is
# not set`): a NAME_LIKE_THIS in words that speak of setting one (node's `ERR_…` codes are no ask).
_VARIABLE = lazy(r"(?<![\w$])\$?(?!ERR_)([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b")
_ASKS_FOR_SETTING = lazy(r"\b(?:set|unset|export|environment|variable|missing)\b", re.I)
# A line that states an error: `Error: …`, Python's last traceback line `ValueError: …`, `fatal: …`.
_ERROR_LINE = lazy(r"^\W*(?:\w*(?:error|exception)|fatal|failed)\b", re.I)
_SECRET_NAME = lazy(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH", re.I)
_REDACTED = "[REDACTED]"


def secret_values(env: Mapping[str, str]) -> list[str]:
    """The values of credential-named variables the reviewer was given (a provider's key in
    reviewer.env): cut out of its words by value, whatever their shape."""
    return sorted({value for name, value in env.items() if _SECRET_NAME.search(name) and len(value) >= 8},
                  key=len, reverse=True)


def one_line(text: str, secrets: Iterable[str] = ()) -> str:
    """Redacted, one line, at most DETAIL_CHARS: what a log line, a queue entry and `omp doctor`
    may hold of a reviewer's words. Known secret values go first, then omp's secret redaction."""
    from omp.safety.secrets import (
        redact,  # the patterns load only when a reviewer failed
    )

    for secret in secrets:
        if secret:
            text = text.replace(secret, _REDACTED)
    text = " ".join(redact(text)[0].split())
    return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 1] + "…"


def stated_error(*outputs: str) -> str:
    """The line of a reviewer's output that says what went wrong: the one that names a known
    cause, else the last that states an error (`Error: …`, `ValueError: …`), else the last line;
    from the first output that has any text (stderr before stdout)."""
    for output in outputs:
        lines = [line.strip() for line in output.splitlines() if line.strip()]
        if not lines:
            continue
        for pattern in (_AUTH, _MODEL, _RATE, _NETWORK, _ERROR_LINE):
            found = [line for line in lines if pattern.search(line)]
            if found:
                return found[-1]
        return lines[-1]
    return ""


@dataclass(frozen=True)
class Fixes:
    """A backend's fix for each kind of failure (the hint). `variable` is formatted with the
    names the reviewer asked for."""

    auth: str
    model: str = HINT_MODEL
    network: str = HINT_NETWORK
    variable: str = ("put {names} in {file} (every reviewer start reads it; hooks do not get the shell's), "
                     "then check: omp doctor --deep")
    other: str = f"check the reviewer ({HINT_DOCTOR}); {HINT_OFFLINE}"


def diagnose(said: str, fixes: Fixes, *, status: int | None = None, model: str | None = None,
             env: Mapping[str, str] | None = None, reply: ReviewerReply | None = None,
             what: str = "reviewer failed") -> ReviewerUnavailable:
    """A failed run without an answer, as a retryable error: its kind and fix from `status` (an
    HTTP status the reviewer reports) first, then from its words `said` (already `one_line`).
    `what` opens the message when nothing more specific is known ("reviewer exited with code 1")."""
    detail = said or "(it said nothing)"
    model_part = f" {model!r}" if model else ""
    # A status that tells the cause decides; any other (400, none) leaves it to the words.
    words = said if not (status in (401, 403, 404, 429) or (status or 0) >= 500) else ""
    if status in (401, 403) or _AUTH.search(words):
        return ReviewerUnavailable("auth", f"reviewer is not authenticated: {detail}", fixes.auth, reply)
    if status == 404 or _MODEL.search(words):
        return ReviewerUnavailable("model", f"review model{model_part} not available: {detail}", fixes.model, reply)
    if status == 429 or _RATE.search(words):
        return ReviewerUnavailable("rate-limited", f"reviewer is rate-limited: {detail}", HINT_NETWORK, reply)
    if (status or 0) >= 500:
        return ReviewerUnavailable("server", f"the reviewer's model server failed: {detail}", HINT_NETWORK, reply)
    if _NETWORK.search(words):
        return ReviewerUnavailable("network", f"reviewer cannot reach its model: {detail}", fixes.network, reply)
    given = env if env is not None else os.environ
    asked = _VARIABLE.findall(said) if _ASKS_FOR_SETTING.search(said) else []
    missing = sorted({name for name in asked if not given.get(name)})
    if missing:  # it asks for a setting it was not given: reviewer.env is where it goes
        hint = fixes.variable.format(names=", ".join(missing), file=reviewer_env_file())
        return ReviewerUnavailable("not-configured", f"reviewer is not configured: {detail}", hint, reply)
    return ReviewerUnavailable("failed", f"{what}: {detail}" if said else what, fixes.other, reply)


def process_failure(reply: ReviewerReply, said: str, fixes: Fixes, *, model: str, env: Mapping[str, str],
                    status: int | None = None) -> ReviewerUnavailable:
    """A reviewer process that ended without an answer: a timeout, else `diagnose`."""
    if reply.timed_out:
        tail = f"; it said: {said}" if said else ""
        return ReviewerUnavailable(
            "timeout", f"reviewer gave no answer within {reply.duration_ms / 1000:.0f}s{tail}", HINT_TIMEOUT, reply)
    code = reply.returncode
    what = f"reviewer exited with code {code}" if code else "reviewer gave an empty answer"
    return diagnose(said, fixes, status=status, model=model, env=env, reply=reply, what=what)


def login_hint() -> str:
    """Not authenticated: a login, or — for bring-your-own-key and offline users, whose provider
    variables Copilot strips from hooks — the reviewer.env file that gives them back."""
    return (f"{HINT_LOGIN}; with your own model provider (BYOK/offline), put its COPILOT_PROVIDER_* and "
            f"COPILOT_OFFLINE settings in {reviewer_env_file()} (hooks do not get them), then check: omp doctor --deep")


# ---------------------------------------------------------------------------------------------
# the call


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
    """One reviewer call, by the backend module the registry names. Returns a reply holding a
    usable answer (or a clean exit's text, which the caller reports as an invalid answer), or
    raises ReviewerUnavailable.

    `base_env`: the environment the reviewer starts from (default: ours); reviewer.env is added
    to it either way (`reviewer_env`).
    """
    entry = backends.REGISTRY.get(config.backend)
    if entry is None or not entry.runs_model:
        raise OmpError(f"backend {config.backend!r} calls no model")
    reply: ReviewerReply = entry.call(prompt, config, answer_complete, linger=linger, grace=grace,
                                      on_start=on_start, base_env=base_env)
    return reply
