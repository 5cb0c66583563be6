"""`omp config get|set|unset` (docs/reference/config.md)."""

from __future__ import annotations

from pathlib import Path

import click

from omp import config as config_lib
from omp import trust as trust_lib
from omp.cli.options import json_option, project_paths, root_option
from omp.cli.render import echo_json, format_value
from omp.core.memory_on import note_memory_on
from omp.paths import ProjectPaths


@click.group("config")
def cli() -> None:
    """Read and change settings (environment › project › global › defaults)."""


def _project_or_none(root: Path | None, scope_global: bool) -> ProjectPaths | None:
    if scope_global:
        return None
    return project_paths(root)


@cli.command("get")
@click.argument("key", required=False)
@json_option
@click.option("--show-origin", is_flag=True, help="Show where each value comes from.")
@root_option
def get_cmd(key: str | None, as_json: bool, show_origin: bool, root: Path | None) -> None:
    """Print KEY's value, or every key's, as key=value lines."""
    if key is not None:
        config_lib.lookup_key(key)
    project = project_paths(root)
    settings = config_lib.resolve(project)
    notice = trust_lib.ignored_notice(project)
    if notice:
        # stderr: stdout stays key=value lines (or JSON) that scripts parse.
        click.echo(f"omp: note: {notice}", err=True)
    chosen = [settings[key]] if key else list(settings.values())
    if as_json:
        if show_origin:
            echo_json({s.key: {"value": s.value, "origin": s.origin} for s in chosen})
        else:
            echo_json({s.key: s.value for s in chosen})
        return
    for setting in chosen:
        line = f"{setting.key}={format_value(setting.value)}"
        # --show-origin is for a person reading where values came from: nothing in it is invisible.
        click.echo(f"{setting.origin}\t{trust_lib.visible(line, keep='')}" if show_origin else line)


@cli.command("set", context_settings={"ignore_unknown_options": True})
@click.argument("key")
@click.argument("value")
@click.option("--global", "scope_global", is_flag=True, help="Write the global config instead.")
@root_option
def set_cmd(key: str, value: str, scope_global: bool, root: Path | None) -> None:
    """Set KEY to VALUE in the project (or --global) config."""
    project = _project_or_none(root, scope_global)
    stored = config_lib.set_value(key, value, "global" if scope_global else "project", project)
    where = "global" if scope_global else "project"
    click.echo(f"{key}={format_value(stored)} ({where})")
    if key == "memory-mode" and stored == "on" and project is not None:
        note_memory_on(str(project.root))  # a sweep reviews sessions from here on (docs/behaviour.md#the-review-run)
    if key in config_lib.BLOCK_KEYS:
        _refresh_block(root, scope_global)


@cli.command("unset")
@click.argument("key")
@click.option("--global", "scope_global", is_flag=True, help="Change the global config instead.")
@root_option
def unset_cmd(key: str, scope_global: bool, root: Path | None) -> None:
    """Remove KEY from the project (or --global) config."""
    project = _project_or_none(root, scope_global)
    removed = config_lib.unset_value(key, "global" if scope_global else "project", project)
    where = "global" if scope_global else "project"
    click.echo(f"unset {key} ({where})" if removed else f"{key} was not set in the {where} config")
    if removed and key in config_lib.BLOCK_KEYS:
        _refresh_block(root, scope_global)


def _refresh_block(root: Path | None, scope_global: bool) -> None:
    """Caps decide what the managed block shows, so it is re-rendered when they change.

    A `--global` change touches no project (docs/reference/config.md): only the personal block in
    `C/copilot-instructions.md`; each project's block follows at its next review or
    `omp project-memory` change.
    """
    # Only a change re-renders the block: `omp config get` starts without the renderer (2.7 ms).
    from omp.memory.block import sync_after_config_change, sync_after_global_config_change

    if scope_global:
        sync_after_global_config_change()
        return
    sync_after_config_change(project_paths(root))
