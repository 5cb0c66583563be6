"""`omp launch -- [copilot options]` and `omp -p PROMPT [copilot options]` (docs/reviewers.md#headless-runs-and-hooks-only)."""

from __future__ import annotations

import click

from omp.launch import launch


@click.command(
    "launch",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.argument("copilot_args", nargs=-1, type=click.UNPROCESSED)
def cli(copilot_args: tuple[str, ...]) -> int:
    """Run Copilot CLI with COPILOT_ARGS untouched, then review its session.

    \b
    omp launch -- -p "fix the failing test" --allow-all-tools
    omp -p "fix the failing test" --allow-all-tools      (the same)

    A new session gets `--session-id <uuid>` so omp knows which one to review; with
    memory-mode on, the review is detached after Copilot exits. The exit code is Copilot's.
    """
    result = launch(list(copilot_args))
    for notice in result.notices:
        click.echo(f"omp: {notice}", err=True)
    if result.warning:
        click.echo(f"omp: {result.warning}", err=True)
    return result.exit_code
