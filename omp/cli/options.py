"""Option decorators shared by several commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import click

from omp.paths import ProjectPaths

F = Callable[..., Any]


def root_option(func: F) -> F:
    return click.option(
        "--root",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Project folder (default: the nearest folder above the working directory with .git).",
    )(func)


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(func)


def project_paths(root: Path | None) -> ProjectPaths:
    return ProjectPaths.discover(root)
