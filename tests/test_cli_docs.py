"""The CLI's help and the command reference must not drift (STYLE §9).

docs/reference/commands.md holds a command reference between `<!-- commands:start -->` and
`<!-- commands:end -->`: one usage line per command (`omp config get [KEY] [--json] …`). These
tests walk the real click tree (nested groups included) and check both directions:

- every command and subcommand `omp --help` lists, and every option it takes, is in the
  reference;
- every `omp …` usage line in the reference names a command that exists, with options it has.

The page is generated from the same tree by `python tools/gen_reference.py`
(tests/test_docs_reference.py holds the whole page to it); these checks read the summary.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import click
import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from omp.cli import cli as root  # noqa: E402

README = REPO / "docs" / "reference" / "commands.md"
START, END = "<!-- commands:start -->", "<!-- commands:end -->"
HEADLESS = ("-p", "--prompt")  # `omp -p PROMPT …` is `omp launch -- -p PROMPT …` (omp.cli.main)
_OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


@dataclass(frozen=True)
class CommandDoc:
    path: tuple[str, ...]  # ("project-memory", "pending")
    command: click.Command
    parents: tuple[click.Command, ...]  # the groups above it (their options apply too)

    @property
    def name(self) -> str:
        return " ".join(("omp", *self.path))

    def options(self) -> set[str]:
        found: set[str] = set()
        for param in self.command.params:
            if isinstance(param, click.Option) and not param.hidden:
                found.update(o for o in param.opts if o.startswith("--"))
        return found


def commands() -> list[CommandDoc]:
    """Every command a user can run, in help order; a group that runs on its own is one too."""
    found: list[CommandDoc] = []

    def walk(command: click.Command, ctx: click.Context, path: tuple[str, ...], parents: tuple[click.Command, ...]) -> None:
        if isinstance(command, click.Group):
            if path and (command.invoke_without_command or command.params):
                found.append(CommandDoc(path, command, parents))
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is None or sub.hidden:
                    continue
                walk(sub, click.Context(sub, info_name=name, parent=ctx), (*path, name), (*parents, command))
        else:
            found.append(CommandDoc(path, command, parents))

    walk(root, click.Context(root, info_name="omp"), (), ())
    return found


# ---------------------------------------------------------------------------------------------
# generating the reference


def _metavar(param: click.Parameter) -> str:
    if isinstance(param.type, click.Choice):
        return "|".join(str(c) for c in param.type.choices)
    if param.metavar:
        return param.metavar
    if isinstance(param, click.Argument):
        return param.human_readable_name.upper()
    if isinstance(param.type, click.Path):
        return "DIR" if not param.type.file_okay else "PATH"
    numbers = {"integer": "N", "float": "N", "integer range": "N", "float range": "N"}
    return numbers.get(param.type.name, (param.name or "value").upper())


def usage_line(doc: CommandDoc) -> str:
    parts = [doc.name]
    if doc.path == ("launch",):
        return "omp launch -- [copilot options]"
    for param in doc.command.params:
        if isinstance(param, click.Argument):
            shown = _metavar(param)
            if shown.startswith("["):
                parts.append(shown)  # already shaped, e.g. "[N]..."
            else:
                shown += "..." if param.nargs == -1 else ""
                parts.append(shown if param.required else f"[{shown}]")
    for param in doc.command.params:
        if isinstance(param, click.Option) and not param.hidden:
            flag = max(param.opts, key=len)
            parts.append(f"[{flag}]" if param.is_flag else f"[{flag} {_metavar(param)}]")
    return " ".join(parts)


def render_reference() -> str:
    """The summary section, markers included: each usage line, its help's first sentence below it."""
    docs = commands()
    entries = [(usage_line(d), d.command.get_short_help_str(limit=100)) for d in docs]
    at = next(i for i, d in enumerate(docs) if d.path == ("launch",))
    entries.insert(at, ("omp -p PROMPT [copilot options]", "The same as: omp launch -- -p PROMPT [copilot options]."))
    body: list[str] = []
    for usage, summary in entries:
        body += [usage, f"    {summary}"]
    return "\n".join([START, "```text", *body, "```", END])


# ---------------------------------------------------------------------------------------------
# reading the reference page


def readme_section() -> str:
    text = README.read_text(encoding="utf-8")
    if START not in text or END not in text:
        pytest.fail(f"docs/reference/commands.md has no command summary (between {START} and {END}): "
                    "run `python tools/gen_reference.py`", pytrace=False)
    return text[text.index(START) + len(START) : text.index(END)]


def usage_lines(section: str) -> list[str]:
    """Every `omp …` usage in the section: unindented code-block lines, and `omp …` in backticks.

    (Indented lines are descriptions; a `# comment` after a usage is ignored.)
    """
    found: list[str] = []
    for raw in section.splitlines():
        if raw.startswith("omp "):
            found.append(raw.split("#", 1)[0].strip())
        else:
            found += [m.strip() for m in re.findall(r"`(omp [^`]+)`", raw)]
    return found


def resolve(usage: str, docs: list[CommandDoc]) -> CommandDoc | None:
    """The command a usage line names: the longest path of its leading words."""
    words = usage.split()[1:]
    if words and words[0] in HEADLESS:
        words = ["launch"]
    best: CommandDoc | None = None
    for doc in docs:
        if tuple(words[: len(doc.path)]) == doc.path and (best is None or len(doc.path) > len(best.path)):
            best = doc
    return best


# ---------------------------------------------------------------------------------------------
# the tests


def test_every_command_and_option_is_in_the_readme_reference() -> None:
    section = readme_section()
    docs = commands()
    documented: dict[tuple[str, ...], set[str]] = {}
    for usage in usage_lines(section):
        doc = resolve(usage, docs)
        if doc is not None:
            documented.setdefault(doc.path, set()).update(_OPTION.findall(usage))
    missing = [d.name for d in docs if d.path not in documented]
    assert not missing, f"commands missing from the command reference: {missing}"
    undocumented = {d.name: sorted(d.options() - documented[d.path]) for d in docs if d.options() - documented[d.path]}
    assert not undocumented, f"options missing from the command reference: {undocumented}"


def test_every_readme_usage_line_names_a_real_command_with_real_options() -> None:
    section = readme_section()
    docs = commands()
    lines = usage_lines(section)
    assert lines, "the command reference holds no `omp …` usage lines"
    for usage in lines:
        doc = resolve(usage, docs)
        assert doc is not None, f"the command reference names a command omp does not have: {usage!r}"
        if doc.path == ("launch",):
            continue  # everything after `--` (or -p) belongs to Copilot
        allowed = doc.options().union(*(CommandDoc((), p, ()).options() for p in doc.parents))
        unknown = [o for o in _OPTION.findall(usage) if o not in allowed]
        assert not unknown, f"the reference's {usage!r} uses options {doc.name} does not take: {unknown}"


def test_the_walk_sees_what_omp_help_shows() -> None:
    """The tree walked above is the one users see: `omp --help` and each group's help list it."""
    from helpers import run_omp

    docs = commands()
    top = sorted({d.path[0] for d in docs})
    shown = run_omp(["--help"])
    assert shown.returncode == 0
    listed = re.findall(r"^  ([a-z][a-z-]*)\s", shown.stdout.split("Commands:", 1)[1], flags=re.M)
    assert sorted(listed) == top
    for group in sorted({d.path[0] for d in docs if len(d.path) > 1}):
        help_text = run_omp([group, "--help"]).stdout.split("Commands:", 1)[1]
        subs = sorted(re.findall(r"^  ([a-z][a-z-]*)\s", help_text, flags=re.M))
        assert subs == sorted(d.path[1] for d in docs if len(d.path) == 2 and d.path[0] == group)


def test_generated_reference_satisfies_both_checks() -> None:
    """What `python tests/test_cli_docs.py` prints passes the checks above by construction."""
    docs = commands()
    lines = usage_lines(render_reference())
    assert {resolve(u, docs).path for u in lines if resolve(u, docs)} == {d.path for d in docs}  # type: ignore[union-attr]
    for doc in docs:
        if doc.path != ("launch",):
            [line] = [u for u in lines if resolve(u, docs) == doc and not u.split()[1:2] == ["-p"]]
            assert set(_OPTION.findall(line)) == doc.options()


if __name__ == "__main__":
    print(render_reference())
