"""`omp trust [--root DIR] [--yes] [--revoke]` (docs/trust.md#a-repository-never-chooses-what-runs)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from omp import config as config_lib
from omp import trust as trust_lib
from omp.cli.options import project_paths, root_option
from omp.core.files import read_regular
from omp.core.memory_on import note_memory_on
from omp.errors import UsageError
from omp.memory import block as memory_block, directives as dirs
from omp.paths import ProjectPaths


@click.command("trust")
@click.option("--yes", "-y", "assume_yes", is_flag=True,
              help="Trust the files without asking (they are still shown). Needed when stdin is not a terminal.")
@click.option("--revoke", is_flag=True, help="Stop trusting this project's config and directives.")
@root_option
def cli(assume_yes: bool, revoke: bool, root: Path | None) -> int:
    """Show the project's .omp/config.json and .omp/project-memory.json and trust exactly those bytes.

    A project config or directives file that omp did not write on this machine (committed to
    the repository, changed by a pull, edited by hand) is ignored until you trust it: the
    config's settings do not count, the directives are not shown to Copilot. Editing a file
    again makes it untrusted again; omp's own commands keep it trusted.
    """
    project = project_paths(root)
    if revoke:
        removed = trust_lib.forget(project)
        if removed:
            memory_block.refresh_after_trust(project)  # the directives are no longer shown
        what = f"{project.config} and {project.directives.name}"
        click.echo(f"{what}: no longer trusted" if removed else f"{what} were not trusted")
        return 0
    config_review = _config_review(project)
    directives_raw = read_regular(project.directives)
    directives_untrusted = not trust_lib.directives_verdict(project, directives_raw)
    if config_review is None and not directives_untrusted:
        click.echo(f"{project.config} and {project.directives.name} are already trusted (or absent)")
        return 0
    if config_review is not None:
        click.echo(f"{project.config} ({config_review.trust.reason}):")
        click.echo("-" * 72)
        click.echo(config_review.text.rstrip("\n"))
        click.echo("-" * 72)
        if config_review.settings:
            click.echo("It sets:")
            for key, value in config_review.settings:
                click.echo(f"  {key} = {value}")
            if any(key == "memory-reviewer-command" for key, _ in config_review.settings):
                click.echo("  (memory-reviewer-command is a program omp will run with your session's transcript)")
            if any(key == "memory-reviewer-url" for key, _ in config_review.settings):
                click.echo("  (memory-reviewer-url is a server omp will send your session's transcript to)")
    if directives_untrusted:
        # Parsed from the very bytes that will be trusted; one line each (a line break in a
        # directive could fake a line of this listing), every invisible character by its code.
        texts = [trust_lib.visible(d.text, keep="") for d in dirs.parse_directives(project.directives, directives_raw)]
        click.echo(f"{project.directives} (not written by omp on this machine): {len(texts)} directive(s) "
                   "every Copilot session here would be told to follow:")
        for text in texts:
            click.echo(f"  - {text}")
    if not assume_yes:
        if not sys.stdin.isatty():
            raise UsageError("not trusted: stdin is not a terminal, so omp cannot ask",
                             "read the file(s) above, then run: omp trust --yes")
        both = config_review is not None and directives_untrusted
        if not click.confirm("Trust these files?" if both else "Trust this file?", default=False):
            click.echo("not trusted; the file(s) stay ignored")
            return 1
    if config_review is not None:
        trust_lib.approve(project, config_review)
        click.echo(f"trusted {project.config} (sha256 {trust_lib.digest(config_review.raw)[:12]}…)")
    if directives_untrusted and directives_raw is not None:
        trust_lib.approve_directives(project, directives_raw)
        click.echo(f"trusted {project.directives} (sha256 {trust_lib.digest(directives_raw)[:12]}…)")
        memory_block.refresh_after_trust(project)
    if config_review is not None and config_lib.get_value("memory-mode", project) == "on":
        # Trusting the file is what turns memory mode on here: a sweep reviews sessions from now on.
        note_memory_on(str(project.root))
    return 0


def _config_review(project: ProjectPaths) -> trust_lib.Review | None:
    """What `omp trust` shows of the config, or None when there is nothing to approve there."""
    layer = trust_lib.read_project_layer(project)
    if layer.trust.state != "untrusted":
        return None
    return config_lib.prepare_trust_review(project)
