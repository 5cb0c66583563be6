"""Small output helpers for commands."""

from __future__ import annotations

import json
from typing import Any

import click


def echo_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


def format_value(value: Any) -> str:
    if value is None:
        return ""
    return str(value)
