"""The `omp` command: a thin click layer over the library.

Each command lives in its own module `omp/cli/<name>.py` (dashes become underscores) and exposes
a click command called `cli`; the group finds them by file name and imports only the one being
run, so adding a command never touches this file and start-up stays small.

`main()` is where errors become exit codes: click's own (usage) errors here, the rest as every omp
program does (`omp.program.guarded`: `OmpError` → its message and hint on stderr, exit 1, 2 for
usage errors; anything unexpected is a bug → exit 3 and a crash log with the traceback). `run()`
is the program (console script, `python -m omp`): `main()`, then a normal exit.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import NoReturn, Sequence

import click

from omp import __version__
from omp.errors import EXIT_FAILURE, EXIT_USAGE
from omp.program import guarded

_NOT_COMMANDS = {"options", "render"}


def _command_names() -> list[str]:
    # The folder's `*.py` files, read directly: pkgutil (and what it imports) would cost every
    # command a few milliseconds of start-up for the same list.
    names = [
        entry.name[:-3].replace("_", "-")
        for entry in os.scandir(Path(__file__).parent)
        if entry.name.endswith(".py") and not entry.name.startswith("_") and entry.name[:-3] not in _NOT_COMMANDS
    ]
    return sorted(names)


class LazyGroup(click.Group):
    """Finds `omp/cli/<name>.py` commands on demand."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return _command_names()

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in _command_names():
            return None
        module = importlib.import_module(f"omp.cli.{cmd_name.replace('-', '_')}")
        return module.cli


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="omp")
def cli() -> None:
    """omp makes GitHub Copilot CLI remember.

    When a Copilot session ends, omp reviews it once with a cheap model and keeps notes,
    proposed directives (applied only when you promote them) and skill drafts. The next session
    starts with what was learned.

    `omp -p PROMPT [copilot options]` runs Copilot headless and reviews the session afterwards.
    """


def _click_error(exc: click.ClickException) -> str:
    """click's own errors in omp's one style (`omp: error: …`, then `usage:` and `hint:` lines),
    not click's `Usage: … Try … Error: …` block beside ours."""
    text = f"omp: error: {_suggest(exc)}"
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        usage = ctx.get_usage().replace("Usage: ", "", 1).strip()
        text += f"\n  usage: {' '.join(usage.split())}\n  hint: {ctx.command_path} --help"
    return text


def _suggest(exc: click.ClickException) -> str:
    """`No such command 'promote'`: click's one fuzzy guess can be the wrong command
    (`promote-skill` for a directive); every command the word starts or names instead."""
    message = exc.format_message()
    ctx = getattr(exc, "ctx", None)
    if not message.startswith("No such command") or ctx is None or not isinstance(ctx.command, click.Group):
        return message
    word = message.split("'")[1] if message.count("'") >= 2 else ""
    names = [n for n in ctx.command.list_commands(ctx) if word and (n.startswith(word) or word in n.split("-"))]
    if not names:
        return f"no such command {word!r}"
    return f"no such command {word!r}; did you mean " + " or ".join(f"{ctx.command_path} {n}" for n in names) + "?"


def _full_short_help(self: click.Command, limit: int = 45) -> str:
    """A command's summary for its group's list: the first sentence, whole (click cuts it at
    `limit` characters with `...`, mid-phrase, whatever the terminal's width)."""
    if self.short_help:
        return self.short_help
    if not self.help:
        return ""
    first = self.help.split("\n\n", 1)[0]
    first = " ".join(first.split())
    end = first.find(". ")
    return first if end < 0 else first[: end + 1]


# Applied to every command class click builds (the lazily loaded groups included).
click.Command.get_short_help_str = _full_short_help  # type: ignore[method-assign]


def run() -> NoReturn:
    """The `omp` program: the console script, `python -m omp`, and omp's own detached starts."""
    raise SystemExit(main())


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-p", "--prompt"):
        # `omp -p ...` is the headless wrapper: every argument goes to Copilot untouched.
        args = ["launch", "--", *args]

    def command() -> int:
        try:
            return int(cli.main(args=args, prog_name="omp", standalone_mode=False) or 0)
        except click.exceptions.Abort:
            click.echo("omp: aborted", err=True)
            return EXIT_FAILURE
        except click.ClickException as exc:
            click.echo(_click_error(exc), err=True)
            return EXIT_USAGE if isinstance(exc, click.UsageError) else exc.exit_code
        except click.exceptions.Exit as exc:
            return exc.exit_code

    return guarded(command, lambda text: click.echo(text, err=True))
