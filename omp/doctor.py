"""`omp doctor [--deep] [--json]`: is everything in place, and if not, what fixes it (docs/doctor.md).

Each check reports `ok`, `info`, `warn` or `fail`, what it found, and for anything but `ok` the
command that fixes it. A `fail` means memory does not work as configured; the command then exits 1.
A `warn` is something the user has to act on (a queued review, a BYOK variable hooks will not get,
reviewer sessions in the history, an ignored project config): the last line says `all good` only
when no check is `warn` or `fail`, and otherwise counts and names them. `info` is context.

Checks: Copilot CLI found and its version; how omp's hooks are registered (missing; duplicated —
each registration runs every hook, so every review would start twice; the Python the hooks run
with); memory-mode and where it comes from; whether the project's config is trusted or ignored
(docs/trust.md#a-repository-never-chooses-what-runs); the reviewer (`--deep` really calls it, with what a hook-started review would get
from `reviewer.env`; without --deep, the provider variables the shell sets that reviewer.env does
not give back); tokenizer; stale claims; the retry queue and reviews that failed for good, with
their last error; whether the state folders are writable; Copilot's own memory features that
touch the same files (the Copilot Memory setting, `/chronicle improve` edits of the instruction
file); reviewer sessions left in Copilot's history.

Every fix line is one command that runs as printed and fixes what its check names, from where
doctor ran and in an untrusted clone too: omp.doctor_fixes builds them (docs/doctor.md).
The review's checks (reviewer, tokenizer, claims and queue) are in omp.doctor_review.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from omp import config, trust
from omp.copilot import find_copilot
from omp.copilot_history import reviewer_sessions
from omp.core.instructions import out_of_step
from omp.doctor_check import Check, Status
from omp.doctor_fixes import (
    Context,
    copilot_fix,
    env_note,
    found_here,
    memory_on_fix,
    move_aside,
    one_command,
    reinstall,
    removal_fix,
    root_arg,
    settings_fix,
    trust_fix,
)
from omp.doctor_review import check_claims_and_queue, check_reviewer, check_tokenizer
from omp.errors import OmpError
from omp.fsio import CorruptFileError
from omp.install import (
    Registration,
    _read_jsonc,
    find_registrations,
    plugin_dir,
    run_management_command,
)
from omp.memory.block import held_back_items
from omp.memory.render import untrusted_directives
from omp.paths import GlobalPaths, ProjectPaths


@dataclass
class Report:
    checks: list[Check]

    @property
    def ok(self) -> bool:
        """Nothing is broken (the exit code): warnings may still need the user."""
        return not any(check.status == "fail" for check in self.checks)

    @property
    def attention(self) -> list[Check]:
        """Every check the user has something to do about: `fail` and `warn`."""
        return [check for check in self.checks if check.status in ("fail", "warn")]

    @property
    def summary(self) -> str:
        """The last line: `all good` only when nothing is broken and nothing waits for the user."""
        todo = self.attention
        if not todo:
            return "all good"
        broken = sum(check.status == "fail" for check in todo)
        warnings = len(todo) - broken
        counts = [f"{broken} broken"] if broken else []
        counts += [_plural(warnings, "warning")] if warnings else []
        names = ", ".join(dict.fromkeys(check.name for check in todo))
        # Some faults have no command (a network down, a model only the user can name): their
        # detail says what to do.
        action = "run the fix lines above" if all(check.fix for check in todo) else "see the lines above"
        return f"{_plural(len(todo), 'thing')} to fix ({' and '.join(counts)}: {names}): {action}"

    def to_json(self) -> dict[str, object]:
        return {"ok": self.ok, "all_good": not self.attention, "attention": len(self.attention),
                "summary": self.summary, "checks": [asdict(check) for check in self.checks]}


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


# ---------------------------------------------------------------------------------------------
# checks


def check_copilot(ctx: Context) -> list[Check]:
    found = find_copilot()
    if not found:
        return [Check("copilot", "fail", "Copilot CLI not found on PATH",
                      "npm install -g @github/copilot")]
    try:
        proc = run_management_command(found, "--version", timeout=60)
    except OmpError as exc:
        return [Check("copilot", "fail", exc.message + (f" ({exc.hint})" if exc.hint else ""),
                      "npm install -g @github/copilot")]
    version = next((line.strip() for line in proc.stdout.splitlines() if line.strip()), "")
    if proc.returncode != 0 or not version:
        detail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit code {proc.returncode}"]
        return [Check("copilot", "fail", f"{found} --version failed: {detail[0]}",
                      "npm install -g @github/copilot")]
    ctx.copilot, ctx.copilot_works = found, True
    return [Check("copilot", "ok", f"{version.rstrip('.')} ({found})")]


def _interpreter_check(registration: Registration) -> Check:
    baked = registration.interpreter()
    if baked:
        if not (os.path.isfile(baked) and os.access(baked, os.X_OK)):
            return Check("hooks python", "warn",
                         f"the Python that registered the hooks is gone ({baked}); they fall back to omp on PATH",
                         reinstall(registration))
        here = os.path.abspath(sys.executable)
        if os.path.abspath(baked) != here:
            return Check("hooks python", "info",
                         f"hooks run with {baked}; this omp runs with {here}",
                         reinstall(registration))
        return Check("hooks python", "ok", f"hooks run with {baked} (this omp)")
    if os.environ.get("OMP_PYTHON"):
        return Check("hooks python", "ok", f"hooks run with $OMP_PYTHON ({os.environ['OMP_PYTHON']})")
    omp_on_path = shutil.which("omp")
    if omp_on_path:
        return Check("hooks python", "ok", f"hooks run with the Python behind {omp_on_path}")
    return Check("hooks python", "fail",
                 f"{registration.label} names no Python and there is no omp on PATH: its hooks cannot run",
                 reinstall(registration))


def check_registration(ctx: Context) -> list[Check]:
    try:
        registrations = find_registrations(ctx.copilot if ctx.copilot_works else None, ctx.global_paths)
    except OmpError as exc:
        return [Check("registration", "fail", exc.message + (f" ({exc.hint})" if exc.hint else ""), None)]
    enabled = [r for r in registrations if r.enabled]
    checks: list[Check] = []
    for registration in registrations:
        if not registration.enabled:
            checks.append(Check("registration", "info", f"{registration.label}: does not run",
                                copilot_fix(ctx, registration.removal)))
    if not enabled:
        # Without a working Copilot CLI only the hooks file can be written (`omp install` needs it).
        checks.append(Check("registration", "fail", "omp's hooks are not registered with Copilot CLI: "
                            "no session is reviewed when it ends",
                            "omp install" if ctx.copilot_works else "omp install --hooks-only"))
        return checks
    if len(enabled) > 1:
        labels = "; ".join(r.label for r in enabled)
        keep, extra = _keep_one(enabled, ctx.global_paths)
        checks.append(Check("registration", "fail",
                            f"registered {len(enabled)} times ({labels}): every hook runs {len(enabled)} times; "
                            f"keeping {keep.label}",
                            one_command(*(copilot_fix(ctx, r.removal) for r in extra))))
    else:
        checks.append(Check("registration", "ok", enabled[0].label))
        checks.extend(_checkout_copy(enabled[0]))
    checks.extend(_interpreter_check(r) for r in enabled)
    return checks


def _keep_one(enabled: list[Registration], global_paths: GlobalPaths) -> tuple[Registration, list[Registration]]:
    """Which registration to keep: the one `omp install` made (it knows its Python), else the first."""
    ours = [r for r in enabled if r.folder is not None and r.folder.resolve() == plugin_dir(global_paths).resolve()
            or r.kind == "hooks-file" and r.name == str(global_paths.copilot / "hooks" / "omp.json")]
    keep = ours[0] if ours else enabled[0]
    return keep, [r for r in enabled if r is not keep]


def _folder_size(folder: Path, stop_at: int = 1 << 40) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                continue
        if total > stop_at:
            break
    return total


def _checkout_copy(registration: Registration) -> list[Check]:
    """A direct install of a whole checkout: Copilot copied all of it (.venv included)."""
    folder = registration.folder
    if registration.kind != "plugin" or folder is None:
        return []
    if not any((folder / marker).exists() for marker in ("pyproject.toml", ".venv", ".git")):
        return []
    megabytes = _folder_size(folder) / 1e6
    return [Check("registration", "warn",
                  f"{registration.label} is a copy of a whole checkout ({megabytes:.0f} MB in {folder}), "
                  "not just the plugin", "omp install --force")]


def check_memory_mode(ctx: Context) -> list[Check]:
    verdict = trust.check(ctx.project, ctx.global_paths)
    ctx.config_ignored = verdict is not None and verdict.ignored
    if ctx.config_ignored and ctx.project is not None:
        try:
            review = config.prepare_trust_review(ctx.project)  # what `omp trust` checks before it asks
            ctx.ignored_turns_on = ("memory-mode", "on") in review.settings
        except OmpError as exc:
            ctx.config_unusable = exc.message
    try:
        settings = config.resolve(ctx.project, ctx.global_paths)
    except OmpError as exc:
        return [Check("memory-mode", "fail", f"settings cannot be read: {exc.message}", settings_fix(ctx, exc))]
    ctx.settings = {name: s.value for name, s in settings.items()}
    ctx.origins = {name: s.origin for name, s in settings.items()}
    mode = settings["memory-mode"]
    where = mode.origin + (f" ({mode.source})" if mode.source else "")
    scope = f"project {ctx.project.root}" if ctx.project else "outside any project"
    inject = settings["memory-inject"].value
    if mode.value != "on":
        # Never set: omp is installed but does nothing yet. Set off somewhere: the user's choice.
        status: Status = "warn" if mode.origin == "default" else "info"
        ignored = "; the project's own config is ignored until trusted (see project config)" if ctx.config_ignored else ""
        return [Check("memory-mode", status, f"off for {scope}, from {where}: sessions are not reviewed{ignored}"
                      + env_note(ctx, "memory-mode", "on"), memory_on_fix(ctx))]
    return [Check("memory-mode", "ok", f"on for {scope}, from {where}; memory-inject={inject}")]


def check_trust(ctx: Context) -> list[Check]:
    """An untrusted project config is ignored as a whole (docs/trust.md#a-repository-never-chooses-what-runs), and directives omp did not
    write here are not shown: say so, and the fix."""
    verdict = trust.check(ctx.project, ctx.global_paths)
    if verdict is None:
        return []
    if verdict.state == "absent":
        config_check = Check("project config", "ok", f"none ({verdict.path}): global settings and defaults apply")
    elif verdict.ignored and ctx.config_unusable:
        # `omp trust` refuses a file omp could not use anyway: moving it aside is what runs.
        config_check = Check("project config", "warn",
                             f"{verdict.path} is ignored: {verdict.reason}; and omp cannot use it as it is "
                             f"({ctx.config_unusable}): correct it by hand and run omp trust, or move it aside",
                             move_aside(verdict.path))
    elif verdict.ignored:
        # `omp trust` shows the file (and what it would run) and asks before trusting it.
        config_check = Check("project config", "warn",
                             f"{verdict.path} is ignored: {verdict.reason}; `omp trust` shows it and asks",
                             trust_fix(ctx))
    else:
        config_check = Check("project config", "ok", f"{verdict.path} is trusted (written by omp or approved)")
    try:
        return [config_check] + _directives_trust(ctx)
    except CorruptFileError as exc:  # every write refuses it too: moving it aside is what runs
        return [config_check, Check("project directives", "fail", f"{exc.message} ({exc.hint})", move_aside(exc.path))]


def _directives_trust(ctx: Context) -> list[Check]:
    """Active directives omp did not write here are not shown to Copilot (omp.trust), nor stored
    items that read as instruction injection: say so."""
    assert ctx.project is not None
    checks = []
    held_back = untrusted_directives(ctx.project)
    if held_back is not None:
        checks.append(Check("project directives", "warn",
                            f"{held_back.notice()} (`omp trust` lists every directive and asks)", trust_fix(ctx)))
    screened = held_back_items(ctx.project)
    if screened:
        checks.append(Check("stored memory", "warn",
                            f"{len(screened)} item(s) not shown to Copilot, they read as instruction injection: "
                            + "; ".join(screened[:3]), removal_fix(ctx, untrusted=held_back is not None)))
    return checks


def _writable(folder: Path) -> tuple[bool, Path]:
    """Can omp create or change `folder`? (Checks the nearest folder that exists.)"""
    probe = folder
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    return os.access(probe, os.W_OK | os.X_OK), probe


def check_folders(ctx: Context) -> list[Check]:
    folders = [("global home", ctx.global_paths.home), ("copilot home", ctx.global_paths.copilot)]
    if ctx.project is not None:
        folders.insert(0, ("project state", ctx.project.logs))
    bad = []
    for label, folder in folders:
        ok, probe = _writable(folder)
        if not ok:
            bad.append(Check("folders", "fail", f"{label} {folder} is not writable ({probe})",
                             f"chmod u+rwx {shlex.quote(str(probe))}"))
    return bad or [Check("folders", "ok", "state folders writable: " + ", ".join(str(f) for _, f in folders))]


def _memory_settings(copilot_home: Path) -> list[str]:
    """`key=value` for every Copilot setting whose name mentions memory (C/settings.json, C/config.json)."""
    found = []
    for name in ("settings.json", "config.json"):
        data = _read_jsonc(copilot_home / name)
        if isinstance(data, dict):
            found += [f"{key}={data[key]!r} ({name})" for key in sorted(data) if "memory" in key.lower()]
    return found


def check_copilot_memory(ctx: Context) -> list[Check]:
    """Copilot's own memory features beside omp's (COPILOT.md §7): Copilot Memory (cloud-stored
    facts, on by default in interactive sessions) and `/chronicle improve`, which edits the very
    instruction file omp keeps its block in."""
    settings = _memory_settings(ctx.global_paths.copilot)
    where = ", ".join(settings) if settings else ("no setting in Copilot's config, so its default: on in "
                                                  "interactive sessions, off in -p runs")
    checks = [Check("copilot memory", "info",
                    f"Copilot Memory (cloud-stored, separate from omp's files): {where}; see /memory show in Copilot")]
    if ctx.project is None:
        return checks
    inject = (ctx.settings or {}).get("memory-inject", "block")
    instructions = ctx.project.instructions
    if inject != "block" or not instructions.exists():
        return checks

    if out_of_step(str(ctx.project.root), "block"):
        checks.append(Check("chronicle", "warn",
                            f"{instructions} changed since omp last wrote its block (Copilot's /chronicle improve "
                            "edits this file); the next session start restores omp's block and keeps the other text",
                            f"omp memory sync{root_arg(ctx)}"))
    else:
        checks.append(Check("chronicle", "ok",
                            f"{instructions} is as omp left it; if /chronicle improve edits it, omp restores its "
                            "block at the next sync and keeps the other tool's text"))
    return checks


def check_history(ctx: Context) -> list[Check]:
    """Reviewer sessions in the user's Copilot history: `copilot --continue` would resume one."""
    left = reviewer_sessions(ctx.global_paths.copilot)
    if not left:
        return [Check("copilot history", "ok", "no reviewer session in Copilot's history")]
    return [Check("copilot history", "warn",
                  f"{len(left)} reviewer session(s) from earlier omp runs are in Copilot's history: "
                  "copilot --continue may resume one, /resume lists them",
                  "omp memory-review clean-history")]


CHECKS: tuple[Callable[[Context], list[Check]], ...] = (
    check_copilot, check_registration, check_memory_mode, check_trust, check_reviewer, check_tokenizer,
    check_claims_and_queue, check_folders, check_copilot_memory, check_history,
)


def diagnose(project: ProjectPaths | None, deep: bool = False) -> Report:
    ctx = Context(project, GlobalPaths.current(), deep, found_here=found_here(project))
    checks: list[Check] = []
    for check in CHECKS:
        try:
            checks.extend(check(ctx))
        except OmpError as exc:
            # A hint is advice in words, not always a command: a fix line must run as printed.
            fix = move_aside(exc.path) if isinstance(exc, CorruptFileError) else None
            hint = "" if exc.hint is None or fix else f" ({exc.hint})"
            checks.append(Check(check.__name__.removeprefix("check_"), "fail", exc.message + hint, fix))
    return Report(checks)
