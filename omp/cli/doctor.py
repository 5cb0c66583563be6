"""`omp doctor [--deep] [--json]` (docs/doctor.md)."""

from __future__ import annotations

from pathlib import Path

import click

from omp.cli.options import json_option, root_option
from omp.cli.render import echo_json
from omp.doctor import diagnose
from omp.errors import UsageError
from omp.paths import ProjectPaths
from omp.trust import visible


@click.command("doctor")
@click.option("--deep", is_flag=True, help="Also call the reviewer with a tiny prompt.")
@json_option
@root_option
def cli(deep: bool, as_json: bool, root: Path | None) -> int:
    """Check the Copilot CLI, hook registration, settings, reviewer and state; say how to fix each.

    The last line says `all good` only when no check is a warning or a failure; otherwise it
    counts and names the checks that need you. Exits 1 when something is broken (a failure).
    """
    try:
        project: ProjectPaths | None = ProjectPaths.discover(root)
    except UsageError:
        project = None  # e.g. run from the home folder: check everything but the project
    report = diagnose(project, deep=deep)
    if as_json:
        echo_json(report.to_json())
    else:
        width = max(len(check.name) for check in report.checks)
        for check in report.checks:
            # Details quote settings and stored text: every invisible character shown by its code.
            click.echo(f"{check.status:<4}  {check.name:<{width}}  {visible(check.detail, keep='')}")
            if check.fix and check.status != "ok":
                click.echo(f"{'':<4}  {'':<{width}}  fix: {visible(check.fix, keep='')}")
        # The last line is what a user reads: `all good` only when nothing waits for them.
        click.echo(report.summary)
    return 0 if report.ok else 1
