"""Small output helpers for commands."""

from __future__ import annotations

from typing import Any

import click

from omp.program import json_text


def echo_json(value: Any) -> None:
    click.echo(json_text(value))


def format_value(value: Any) -> str:
    if value is None:
        return ""
    return str(value)


def short_session(session_id: str) -> str:
    """A session id as shown in lists: a UUID's first group (8 characters: a unique prefix every
    `--session` and `undo` accepts), never cut in the middle of a group; other ids up to 16."""
    head = session_id.split("-", 1)[0]
    if len(session_id) == 36 and len(head) == 8:
        return head
    return session_id if len(session_id) <= 16 else session_id[:16] + "…"
