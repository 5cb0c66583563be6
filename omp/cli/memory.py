"""`omp memory sync`: re-render the managed blocks from the stores (docs/behaviour.md#project-memory-and-the-managed-block)."""

from __future__ import annotations

from pathlib import Path

import click

from omp.cli.options import json_option, project_paths, root_option
from omp.cli.render import echo_json
from omp.memory import block, note_catalog


@click.group("memory")
def cli() -> None:
    """Maintain the memory omp injects into Copilot sessions."""


@cli.command("sync")
@json_option
@root_option
def sync_cmd(as_json: bool, root: Path | None) -> None:
    """Re-render the managed block in .github/copilot-instructions.md (and your personal one)."""
    paths = project_paths(root)
    note_catalog.check_every_note(paths.root)  # what the folder's stat cannot tell: a note edited in place
    result = block.sync_block(paths)
    if as_json:
        echo_json(result.to_json())
        return
    for line in result.repaired:
        click.echo(f"warning: {line}", err=True)
    messages = {
        "written": "updated",
        "unchanged": "already up to date",
        "absent": "nothing to write yet",
        "removed": "omp's block removed (memory-inject=hook: sessionStart injects memory instead)",
        "skipped": "not written (memory-inject=hook: sessionStart injects memory instead)",
    }
    for name, state in ((result.project_file, result.project), (result.global_file, result.global_)):
        click.echo(f"{name}: {messages.get(state, state)}")
