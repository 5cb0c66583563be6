"""`omp install [--hooks-only] [--force]` (docs/install.md)."""

from __future__ import annotations

import click

from omp.install import install


@click.command("install")
@click.option("--hooks-only", is_flag=True,
              help="Write C/hooks/omp.json instead of installing the Copilot plugin.")
@click.option("--force", is_flag=True,
              help="Replace every registration recognisable as omp's (its own, or the repository "
                   "installed by hand as a plugin or marketplace).")
def cli(hooks_only: bool, force: bool) -> None:
    """Register omp's sessionStart/sessionEnd hooks with Copilot CLI.

    Writes the plugin to OMP_HOME/plugin/omp with this Python baked in, then runs
    `copilot plugin install` on it (or, with --hooks-only, writes COPILOT_HOME/hooks/omp.json).
    Refuses when omp is registered already: each registration would run every hook again.
    """
    result = install(hooks_only=hooks_only, force=force)
    for label in result.replaced:
        click.echo(f"removed: {label}")
    click.echo(f"registered: {result.registered}")
    click.echo(f"plugin folder: {result.plugin_dir}")
    click.echo(f"hooks run with: {result.interpreter}")
    click.echo("next: cd your-project && omp config set memory-mode on; then omp doctor --deep checks it all")
