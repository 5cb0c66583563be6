"""The fix lines of `omp doctor` (docs/doctor.md): each one command that runs as printed and fixes what
its check names, from the folder doctor ran in, in any project, an untrusted clone included.

- one command: split with shlex and started without a shell, or pasted into one; several steps
  (each only if the one before worked) go to `sh -c`;
- a setting is changed in the layer its value comes from (`omp config set` refuses an untrusted
  project file, so a default is changed in the global one); a value the environment sets gets no
  fix line, since no command changes the shell that runs it;
- `--root` is named when doctor ran from another folder; a review is retried with memory mode on
  for that one command (it would otherwise be skipped, and fix nothing);
- a reviewer's worded hint (with placeholders) goes in the check's detail, never in its fix.

docs/doctor.md lists every fix and which of them change trust (only `omp trust`, which asks).
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from omp import config, trust
from omp.core.settings import env_var
from omp.errors import OmpError
from omp.fsio import CorruptFileError
from omp.install import Registration
from omp.memory import directives as dirs
from omp.memory import notes as notes_mod
from omp.memory.block import note_held_back
from omp.paths import GlobalPaths, ProjectPaths
from omp.review import backends
from omp.safety.injection import injection_reasons


@dataclass
class Context:
    """What the checks found so far that later checks and the fix lines depend on."""

    project: ProjectPaths | None
    global_paths: GlobalPaths
    deep: bool
    copilot: str | None = None
    copilot_works: bool = False
    settings: dict | None = None
    origins: dict[str, str] = field(default_factory=dict)  # key -> where its value came from (env, project, global, default)
    config_ignored: bool = False  # the project's config is untrusted, so `omp config set` refuses it
    found_here: bool = False  # omp run from this folder finds the same project (fixes need no --root)
    config_unusable: str | None = None  # why `omp trust` would refuse the ignored project config
    ignored_turns_on: bool = False  # the ignored project config sets memory-mode on


def one_command(*commands: str | None) -> str | None:
    """One command line that runs as printed, whether pasted into a shell or split with shlex and
    started without one: a single command as it is; several steps (each only if the one before
    worked), or a line that needs a shell's syntax, handed to `sh -c`."""
    steps = [command for command in commands if command]
    if not steps:
        return None
    if len(steps) == 1 and not needs_shell(steps[0]):
        return steps[0]
    return f"sh -c {readable_quote(' && '.join(steps))}"


def needs_shell(command: str) -> bool:
    """Does `command` use a shell's operators (`&&`, `|`, `>>`, `;`, a subshell)?"""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    try:
        return any(token and set(token) <= set("();<>|&") for token in lexer)
    except ValueError:
        return True


def readable_quote(text: str) -> str:
    """`shlex.quote`, but a script with single quotes inside and nothing a shell expands in double
    quotes goes in double quotes: a single quote inside single quotes is correct and unreadable."""
    if "'" in text and not set(text) & set('"$`\\!'):
        return f'"{text}"'
    return shlex.quote(text)


def found_here(project: ProjectPaths | None) -> bool:
    """Does an omp command run from this folder act on `project` (so a fix needs no --root)?"""
    if project is None:
        return False
    try:
        return ProjectPaths.discover(None).root.resolve() == project.root.resolve()
    except (OmpError, OSError):
        return False


def root_arg(ctx: Context) -> str:
    """` --root R` when run from elsewhere (`omp doctor --root R`), else nothing."""
    assert ctx.project is not None
    return "" if ctx.found_here else f" --root {shlex.quote(str(ctx.project.root))}"


def trust_fix(ctx: Context) -> str:
    """`omp trust` shows the files and asks: the human choice stays the human's."""
    return f"{trust.FIX}{root_arg(ctx)}" if ctx.project is not None else trust.FIX


def setting_fix(ctx: Context, key: str, value: str) -> str | None:
    """The command that gives `key` the value `value` where it counts: the layer it comes from now
    (a project value wins over the global one), and the global file for a default, which `omp
    config set` never refuses (an untrusted project file it does). A value from the environment
    wins over every file, and no command can change the shell that runs it: no fix line then
    (`_env_note` says where to change it)."""
    origin = ctx.origins.get(key, "default")
    if origin == "env":
        return None
    if origin == "project" and ctx.project is not None:
        return f"omp config set {key} {shlex.quote(value)}{root_arg(ctx)}"
    return f"omp config set {key} {shlex.quote(value)} --global"


def env_note(ctx: Context, key: str, value: str) -> str:
    """What to do when the environment sets `key` (it wins over every file), else nothing."""
    if ctx.origins.get(key) != "env":
        return ""
    return (f" ({env_var(key)} is set in your environment and wins over every config file: set it to "
            f"{value}, or unset it, where you set it)")


def memory_on_fix(ctx: Context) -> str | None:
    """Memory mode on for this project (or everywhere, outside one). An untrusted project file
    refuses `omp config set` until the user has read and trusted it (trusting one that turns
    memory mode on is the whole fix); one omp cannot use is moved aside first."""
    if ctx.origins.get("memory-mode") == "env":
        return None
    if ctx.project is None:
        return "omp config set memory-mode on --global"
    set_here = f"omp config set memory-mode on{root_arg(ctx)}"
    if ctx.config_unusable:
        return one_command(move_aside(ctx.project.config), set_here)
    if ctx.config_ignored:
        return trust_fix(ctx) if ctx.ignored_turns_on else one_command(trust_fix(ctx), set_here)
    return set_here


def review_command(ctx: Context, args: str) -> str:
    """`omp memory-review ARGS`, for this project, run even while memory mode is off here (the
    review would otherwise be skipped, and the fix would fix nothing)."""
    mode_on = (ctx.settings or {}).get("memory-mode") == "on"
    prefix = "" if mode_on else f"env {env_var('memory-mode')}=on "
    return f"{prefix}omp memory-review {args}{root_arg(ctx) if ctx.project is not None else ''}"


def copilot_fix(ctx: Context, command: str) -> str:
    """A `copilot …` fix names the very binary omp found when `copilot` on PATH is another one
    (or none): OMP_COPILOT_BIN, an npm prefix that is not on PATH."""
    if not command.startswith("copilot ") or ctx.copilot is None:
        return command
    on_path = shutil.which("copilot")
    if on_path and os.path.realpath(on_path) == os.path.realpath(ctx.copilot):
        return command
    return shlex.quote(ctx.copilot) + command.removeprefix("copilot")


def reinstall(registration: Registration) -> str:
    """`omp install --force` again, of the same kind (a plugin, or the hooks file alone)."""
    return "omp install --hooks-only --force" if registration.kind == "hooks-file" else "omp install --force"


def settings_fix(ctx: Context, error: OmpError) -> str | None:
    """A command that gets the settings readable again: a file that does not parse is moved aside
    (kept, never rewritten), a value no key accepts is unset in the layer that holds it."""
    if isinstance(error, CorruptFileError):
        return move_aside(error.path)
    for key in config.KEYS.values():
        raw = os.environ.get(key.env_var)
        if raw is not None and raw.strip():
            try:
                config.parse_value(key, raw, where=f"environment variable {key.env_var}")
            except OmpError:
                return None  # the message names the variable; only the shell that set it can change it
    layers: list[tuple[config.Origin, Path]] = [("global", ctx.global_paths.config)]
    if ctx.project is not None and not ctx.config_ignored:
        layers.insert(0, ("project", ctx.project.config))
    for origin, path in layers:
        try:
            data = config.read_layer(path)
        except OmpError:
            continue
        for name, value in data.items():
            found = config.KEYS.get(name)
            if found is None or value is None:
                continue
            try:
                config.stored_value(found, value, path, origin)
            except OmpError:
                where = " --global" if origin == "global" else root_arg(ctx)
                return f"omp config unset {found.name}{where}"
    return None


def move_aside(path: Path) -> str:
    """`mv FILE FILE.broken`: a file omp cannot use stops counting, and nothing in it is lost."""
    return f"mv {shlex.quote(str(path))} {shlex.quote(str(free_name(path)))}"


def free_name(path: Path) -> Path:
    """`path.broken` (or `.broken-2`, …): where a file that does not parse is moved, losing nothing."""
    candidate, number = path.with_name(path.name + ".broken"), 1
    while candidate.exists():
        number += 1
        candidate = path.with_name(f"{path.name}.broken-{number}")
    return candidate


def removal_fix(ctx: Context, untrusted: bool) -> str | None:
    """Commands that remove every stored item that reads as injection: the notes' files, then the
    directives from the last (numbers stay valid). omp changes an untrusted directives file only
    once it is trusted (docs/trust.md#a-repository-never-chooses-what-runs), so that comes first; the held-back items stay out of the block
    meanwhile."""
    assert ctx.project is not None
    commands = [f"rm {shlex.quote(str(note.path))}" for note in notes_mod.list_notes(ctx.project.notes)
                if note_held_back(note)]
    numbers = [n for n, d in enumerate(dirs.read_directives(ctx.project.directives), start=1)
               if injection_reasons(d.text)]
    if numbers and untrusted:
        commands.append(trust_fix(ctx))
    commands += [f"omp project-memory remove-directive {n}{root_arg(ctx)}" for n in reversed(numbers)]
    return one_command(*commands)


def deep_fix(ctx: Context, backend: str, model: str, error: OmpError) -> str | None:
    """A command that fixes the failed call, where one exists (the reviewer's hint is advice in
    words, with placeholders: it goes in the detail). A network fault, a server's own model list
    or key: only the user can say, so no fix line."""
    kind = getattr(error, "kind", None)
    uses_copilot = backend in backends.REGISTRY and backends.lookup(backend).uses_copilot
    if uses_copilot and kind == "auth":
        return copilot_fix(ctx, "copilot login")
    if uses_copilot and kind == "model" and model != config.KEYS["memory-review-model"].default:
        return setting_fix(ctx, "memory-review-model", config.KEYS["memory-review-model"].default)
    if kind == "timeout":
        longer = min(2 * int(float((ctx.settings or {}).get("memory-review-timeout", 120))), 86400)
        return setting_fix(ctx, "memory-review-timeout", str(longer))
    return None
