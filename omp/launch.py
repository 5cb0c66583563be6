"""The headless wrapper: `omp -p PROMPT [copilot options]`, `omp launch -- [copilot options]` (docs/reviewers.md#headless-runs-and-hooks-only).

Copilot gets the arguments exactly as given, plus `--session-id <uuid4>` when the run starts a
new session, so the wrapper knows which session to review without guessing. Its stdin, stdout
and stderr are the wrapper's own (nothing is added to them), its exit code is the wrapper's, and
SIGINT / SIGTERM / SIGHUP reach it (omp.process.run_foreground). After Copilot exits, with
memory-mode on, the review of that session is detached (omp.detach) and the wrapper returns at
once.

Which session was it?
- a new session: the id we passed, or the user's own `--session-id ID`;
- `--resume [X]` / `-r [X]` / `--continue`: Copilot picks the session, so the wrapper notes each
  session's `events.jsonl` size and mtime before the run and reviews the one that changed
  (when several changed — other Copilot windows — the one matching X, else none);
- a subcommand (`omp launch -- plugin list`), `--help`, `--version`, `--connect`: no session.

Before Copilot starts, once per project, one line on stderr (stdout is Copilot's answer) when
omp's hooks are registered but nothing set this git project's memory-mode: omp is not reviewing
it, and the command that turns it on (omp.core.notice; the sessionStart hook then stays quiet).

The sessionEnd hook, when the plugin is installed too, starts the same review first; the
wrapper then sees that hook's run log and starts nothing (the claim would make a second review
harmless anyway, §5.1).
"""

from __future__ import annotations

import os
import shlex
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from omp.copilot import HINT_INSTALL, copilot_command
from omp.core import notice as notice_rules
from omp.core.layout import (
    git_project_root,
    is_valid_session_id,
    project_root,
    same_path,
)
from omp.core.settings import Unsure, hook_settings, is_reviewer_session
from omp.detach import runs_dir, start_review
from omp.errors import OmpError
from omp.paths import GlobalPaths
from omp.process import Detached, run_foreground

NO_SESSION_FLAGS = frozenset({"-h", "--help", "-v", "--version", "--acp"})
RESUME_FLAGS = frozenset({"-r", "--resume", "--continue"})


@dataclass(frozen=True)
class LaunchPlan:
    argv: list[str]  # the whole command line run
    session_id: str | None  # known before the run (ours or the user's --session-id)
    resume: str | None  # --resume's value ("" for --continue or a bare --resume); None if new
    work_dir: Path  # where Copilot works: -C DIR, else the working directory
    reviewable: bool  # False for subcommands, --help, --version, --connect


@dataclass
class LaunchResult:
    exit_code: int
    session_id: str | None = None
    review: Detached | None = None
    skipped: str | None = None  # why no review was started (policy: memory-mode off, …)
    warning: str | None = None  # a problem the user should hear about (on stderr)
    notices: tuple[str, ...] = ()  # what the user would otherwise never see (printed on stderr)


def _option_value(args: Sequence[str], index: int, flag: str) -> tuple[str | None, int]:
    """The value of `flag` at args[index] (`--flag V`, `--flag=V`, `-CV`) and the next index."""
    arg = args[index]
    if arg.startswith(flag + "="):
        return arg[len(flag) + 1 :], index + 1
    if len(flag) == 2 and arg.startswith(flag) and len(arg) > 2:  # short form glued: -Cdir
        return arg[2:], index + 1
    if index + 1 < len(args):
        return args[index + 1], index + 2
    return None, index + 1


def plan_launch(args: Sequence[str], cwd: Path | None = None, binary: str | None = None) -> LaunchPlan:
    """Decide the command line and what is known about its session, without running anything."""
    args = list(args)
    work_dir = Path(cwd or os.getcwd())
    session_id: str | None = None
    resume: str | None = None
    reviewable = not (args and not args[0].startswith("-"))  # `copilot plugin …`: a subcommand
    index = 0
    while index < len(args):
        arg = args[index]
        name = arg.split("=", 1)[0]
        if arg == "--":
            break
        if name in NO_SESSION_FLAGS or name == "--connect":
            reviewable = False
            index += 1
        elif name == "--session-id":
            session_id, index = _option_value(args, index, "--session-id")
        elif name == "-C" or (arg.startswith("-C") and not arg.startswith("--")):
            value, index = _option_value(args, index, "-C")
            if value:
                work_dir = (work_dir / value).resolve()
        elif name in RESUME_FLAGS:
            resume = ""
            if "=" in arg:
                resume = arg.split("=", 1)[1]
            elif name != "--continue" and index + 1 < len(args) and not args[index + 1].startswith("-"):
                resume = args[index + 1]  # --resume takes an optional value
                index += 1
            index += 1
        else:
            index += 1
    argv = [binary or copilot_command()]
    if reviewable and session_id is None and resume is None:
        session_id = str(uuid.uuid4())
        argv += ["--session-id", session_id]
    return LaunchPlan(argv + args, session_id, resume, work_dir, reviewable)


# ---------------------------------------------------------------------------------------------
# sessions touched by a resumed run


def _session_state() -> Path:
    return GlobalPaths.current().session_state


def snapshot_sessions() -> dict[str, tuple[int, int]]:
    """(size, mtime_ns) of every session's events.jsonl."""
    found: dict[str, tuple[int, int]] = {}
    try:
        entries = list(os.scandir(_session_state()))
    except OSError:
        return found
    for entry in entries:
        if not entry.is_dir() or not is_valid_session_id(entry.name):
            continue
        try:
            info = os.stat(os.path.join(entry.path, "events.jsonl"))
        except OSError:
            continue
        found[entry.name] = (info.st_size, info.st_mtime_ns)
    return found


def changed_session(before: dict[str, tuple[int, int]], hint: str | None) -> str | None:
    """The one session whose events grew during the run (`hint` breaks a tie)."""
    after = snapshot_sessions()
    changed = sorted(sid for sid, stamp in after.items() if before.get(sid) != stamp)
    if len(changed) == 1:
        return changed[0]
    if hint:
        matching = [sid for sid in changed if sid == hint or sid.startswith(hint)]
        if len(matching) == 1:
            return matching[0]
    return None


# ---------------------------------------------------------------------------------------------
# running


def run_session(argv: list[str], cwd: Path | None = None) -> int:
    """Run the user's Copilot session in the foreground, on our stdin/stdout/stderr, with
    SIGINT / SIGTERM / SIGHUP passed on; its exit code (128+N when killed by signal N)."""
    try:
        return run_foreground(argv, cwd)
    except FileNotFoundError as exc:
        raise OmpError(f"cannot run Copilot CLI {argv[0]!r}: not found", HINT_INSTALL) from exc
    except PermissionError as exc:
        raise OmpError(f"cannot run Copilot CLI {argv[0]!r}: permission denied", HINT_INSTALL) from exc


def _review_logs(root: str | None) -> set[str]:
    if root is None:
        return set()
    try:
        return {name for name in os.listdir(runs_dir(root)) if name.startswith("review-")}
    except OSError:
        return set()


def review_after(
    plan: LaunchPlan, session_id: str | None, logs_before: set[str] | None = None
) -> tuple[Detached | None, str | None]:
    """Detach the review of `session_id` when memory-mode is on; (started, why not)."""
    if not plan.reviewable:
        return None, "not a session (subcommand, --help or --version)"
    if is_reviewer_session(os.environ):
        return None, "reviewer session"
    if not session_id or not is_valid_session_id(session_id):
        return None, "session not identified (several sessions changed during a resumed run)"
    root = project_root(str(plan.work_dir))
    if root is None:
        return None, "no project (the home folder is never one)"
    # After Copilot has exited: the wrapper starts Copilot without loading the settings (5 ms).
    from omp.config import get_value
    from omp.paths import ProjectPaths

    if get_value("memory-mode", ProjectPaths(Path(root))) != "on":
        return None, "memory-mode off"
    if not (_session_state() / session_id / "events.jsonl").is_file():
        return None, "Copilot recorded no conversation for this session"
    started_by_hook = _review_logs(root) - (logs_before or set())
    if any(name.startswith(f"review-{session_id}-") for name in started_by_hook):
        return None, "the sessionEnd hook already started its review"
    return start_review(root, session_id), None


def not_reviewing_notice(plan: LaunchPlan, cwd: Path | None = None) -> str | None:
    """Before Copilot runs, once per project (omp.core.notice): omp's hooks are registered with
    Copilot but nothing set this git project's memory-mode, so its sessions are not reviewed.
    The check is a stat and the two settings the hooks read; the rest runs only for a project
    that may hear it."""
    if not plan.reviewable or is_reviewer_session(os.environ):
        return None
    root = git_project_root(str(plan.work_dir))
    if root is None or notice_rules.was_told(root):
        return None
    try:
        settings = hook_settings(root, os.environ)
    except Unsure:
        return None  # a setting only the library can judge: the review step names it after the run
    if not notice_rules.is_left_to_default(settings) or not hooks_registered():
        return None
    here = str(cwd or os.getcwd())
    # `-C DIR` may name another project than the one the user's commands would find.
    root_option = "" if same_path(project_root(here) or here, root) else f" --root {shlex.quote(root)}"
    from omp.hooks.notice import (
        not_reviewing as claim_notice,  # once per project: it writes the record
    )

    return claim_notice(root, settings, "omp launch", root_option)


def hooks_registered() -> bool:
    """Are omp's hooks registered with Copilot CLI (an enabled plugin or hooks file)? Read from
    Copilot's own files, without running it."""
    from omp.install import (
        find_registrations,  # only in a project that may hear the notice
    )

    try:
        return any(registration.enabled for registration in find_registrations())
    except OSError:
        return False


def _to_stderr(line: str) -> None:
    sys.stderr.write(f"omp: {line}\n")
    sys.stderr.flush()


def launch(args: Sequence[str], cwd: Path | None = None, say: Callable[[str], None] = _to_stderr) -> LaunchResult:
    """Run Copilot with `args`, then detach the review of its session. Returns Copilot's exit code.

    `say` gets the one line that must come before Copilot's own output (stderr: stdout is
    Copilot's answer)."""
    plan = plan_launch(args, cwd)
    notice = not_reviewing_notice(plan, cwd)
    if notice is not None:
        say(notice)
    before = snapshot_sessions() if plan.resume is not None else {}
    # A sessionEnd hook (plugin installed too) starts the same review while Copilot exits: its
    # run log is new after the run.
    logs_before = _review_logs(project_root(str(plan.work_dir)))
    code = run_session(plan.argv, cwd)
    session_id = plan.session_id
    if plan.resume is not None and session_id is None:
        session_id = changed_session(before, plan.resume)
    try:
        review, skipped = review_after(plan, session_id, logs_before)
    except OmpError as exc:  # Copilot's run stands; only the review could not start
        hint = f" ({exc.hint})" if exc.hint else ""
        return LaunchResult(code, session_id, None, "error", f"review not started: {exc.message}{hint}")
    except OSError as exc:
        return LaunchResult(code, session_id, None, "error", f"review not started: {exc}")
    return LaunchResult(code, session_id, review, skipped, notices=tuple(_notices(plan, session_id, review, skipped)))


def _notices(plan: LaunchPlan, session_id: str | None, review: Detached | None, skipped: str | None) -> list[str]:
    """A sign that the review started, and the sessionStart nudge: in a headless run only the model
    read it (additionalContext is never shown), so the wrapper says it to the user too."""
    lines: list[str] = []
    if review is not None:
        lines.append(f"review of session {session_id} started in the background (log: {review.log})")
    elif skipped == "the sessionEnd hook already started its review":
        lines.append(f"review of session {session_id} started in the background by the sessionEnd hook")
    if review is None and skipped != "the sessionEnd hook already started its review":
        return lines
    root = project_root(str(plan.work_dir))
    if root is not None:
        from omp.hooks.start import nudge_lines  # after Copilot has exited (4 ms)

        lines += [line.replace("[MEMORY REVIEW] ", "") for line in nudge_lines(root)]
    return lines
