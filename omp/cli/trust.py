"""`omp trust [--root DIR] [--yes] [--revoke]` (SPEC §3.1)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from omp import config as config_lib
from omp import trust as trust_lib
from omp.cli.options import project_paths, root_option
from omp.core.memory_on import note_memory_on
from omp.errors import UsageError


@click.command("trust")
@click.option("--yes", "-y", "assume_yes", is_flag=True,
              help="Trust the file without asking (it is still shown). Needed when stdin is not a terminal.")
@click.option("--revoke", is_flag=True, help="Stop trusting this project's config.")
@root_option
def cli(assume_yes: bool, revoke: bool, root: Path | None) -> int:
    """Show the project's .omp/config.json and trust exactly those bytes.

    A project config that omp did not write on this machine (committed to the repository,
    changed by a pull, edited by hand) is ignored until you trust it. Editing it again makes it
    untrusted again; `omp config set` keeps it trusted.
    """
    project = project_paths(root)
    if revoke:
        removed = trust_lib.forget(project)
        click.echo(f"{project.config}: no longer trusted" if removed else f"{project.config} was not trusted")
        return 0
    review = config_lib.prepare_trust_review(project)
    if review.trust.state == "trusted":
        click.echo(f"{project.config} is already trusted")
        return 0
    click.echo(f"{project.config} ({review.trust.reason}):")
    click.echo("-" * 72)
    click.echo(review.text.rstrip("\n"))
    click.echo("-" * 72)
    if review.settings:
        click.echo("It sets:")
        for key, value in review.settings:
            click.echo(f"  {key} = {value}")
        if any(key == "memory-reviewer-command" for key, _ in review.settings):
            click.echo("  (memory-reviewer-command is a program omp will run with your session's transcript)")
    if not assume_yes:
        if not sys.stdin.isatty():
            raise UsageError("not trusted: stdin is not a terminal, so omp cannot ask",
                             "read the file above, then run: omp trust --yes")
        if not click.confirm("Trust this file?", default=False):
            click.echo("not trusted; the file stays ignored")
            return 1
    trust_lib.approve(project, review)
    click.echo(f"trusted {project.config} (sha256 {trust_lib.digest(review.raw)[:12]}…)")
    if config_lib.get_value("memory-mode", project) == "on":
        # Trusting the file is what turns memory mode on here: a sweep reviews sessions from now on.
        note_memory_on(str(project.root))
    return 0
