"""The `command` reviewer: `memory-reviewer-command`, prompt on stdin, answer on stdout (docs/reviewers.md).

The command line is split with shlex and run without a shell, through
omp.review.reviewers.run_process (its environment, reviewer.env included, its folder, its
bounds). Its program is a name on PATH or an absolute path, never one resolved against the
project folder (docs/trust.md#a-repository-never-chooses-what-runs): `./reviewer` would run whatever file a repository puts there.

A run without an answer fails with the command's own words: the line of its stderr (else
stdout) that states the error, redacted and on one line, and the fix its words point to.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path
from typing import Any, Callable, Mapping

from omp.config import is_program_name_allowed
from omp.process import reviewer_env_file
from omp.review.reviewers import (
    HINT_COMMAND, HINT_DOCTOR, HINT_OFFLINE, KILL_GRACE_SECONDS, LINGER_SECONDS, Fixes, ReviewerConfig,
    ReviewerReply, ReviewerUnavailable, answered, one_line, process_failure, reviewer_env, run_process,
    secret_values, stated_error,
)


def argv(config: ReviewerConfig) -> list[str]:
    return command_line(config.command)


def command_line(text: str | None) -> list[str]:
    """memory-reviewer-command as argv, or ReviewerUnavailable('not-configured') with the fix."""
    if not text:
        raise ReviewerUnavailable(
            "not-configured", "memory-reviewer is 'command' but memory-reviewer-command is not set", HINT_COMMAND
        )
    try:
        command = shlex.split(text)
    except ValueError as exc:
        raise ReviewerUnavailable("not-configured", f"memory-reviewer-command does not parse: {exc}", HINT_COMMAND) from exc
    if not command:
        raise ReviewerUnavailable("not-configured", "memory-reviewer-command is empty", HINT_COMMAND)
    if not is_program_name_allowed(command[0]):
        raise ReviewerUnavailable(
            "not-configured",
            f"memory-reviewer-command program {command[0]!r} is a relative path; "
            "it must be a program on PATH or an absolute path",
            HINT_COMMAND,
        )
    return command


def describe(settings: Mapping[str, Any], model: str) -> str:
    """`command: <command line>` when its program can be found (`omp doctor`)."""
    text = settings.get("memory-reviewer-command")
    program = command_line(text)[0]
    if not (shutil.which(program) or Path(program).is_file()):
        raise ReviewerUnavailable("missing", f"reviewer command {program!r} not found", HINT_COMMAND)
    return f"command: {text}"


def fixes() -> Fixes:
    where = reviewer_env_file()
    return Fixes(
        auth=f"log the reviewer command in, or put the key it needs in {where} (chmod 600; every reviewer start reads it)",
        other=f"check memory-reviewer-command ({HINT_DOCTOR}); {HINT_OFFLINE}",
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
    """One review by memory-reviewer-command. Returns the reply, or raises ReviewerUnavailable."""
    reply = run_process(argv(config), prompt, config, base_env=base_env, answer_complete=answer_complete,
                        linger=linger, grace=grace, on_start=on_start)
    if answered(reply, answer_complete):
        return reply
    env = reviewer_env(config, base_env)
    said = one_line(stated_error(reply.stderr, reply.text), secret_values(env))
    raise process_failure(reply, said, fixes(), model=config.model, env=env)
