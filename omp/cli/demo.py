"""`omp demo [--reviewer offline|copilot] [--keep] [--json]` (docs/behaviour.md#omp-demo-and-omp-eval)."""

from __future__ import annotations

import click

from omp.cli.options import json_option
from omp.cli.render import echo_json
from omp.demo import REVIEWERS, report_lines, run_demo


@click.command("demo")
@click.option("--reviewer", type=click.Choice(REVIEWERS), default=REVIEWERS[0], show_default=True,
              help="offline: no model, no network. copilot: a real review with your Copilot login.")
@click.option("--keep", is_flag=True, help="Keep the temporary project and homes, and say where they are.")
@json_option
def cli(reviewer: str, keep: bool, as_json: bool) -> int:
    """Show the whole pipeline on a bundled session, in throwaway folders.

    Creates a temporary git project, Copilot home and omp home (your own are never touched),
    writes a realistic Copilot session into it, reviews it, and reports what was written, what
    was rejected and why, what was redacted, and what the next session would be told.
    """
    report = run_demo(reviewer=reviewer, keep=keep)
    if as_json:
        echo_json(report.to_json())
    else:
        for line in report_lines(report):
            click.echo(line)
    return report.exit_code
