"""The small YAML front matter subset notes and skill files use.

Written: `key: value` lines between `---` fences; free text is a JSON string literal (which is
also a valid YAML double-quoted scalar, so Copilot's skill loader and any YAML parser read it),
plain tokens (slugs, `draft`) are written bare. Read: the same, tolerantly, because people edit
these files by hand — single-quoted and bare values are accepted, unknown keys are kept, and only
a front matter that is opened but never closed counts as unreadable.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

FENCE = "---"
_KEY_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s?(.*)$")
_BARE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]*$")


class FrontMatterError(ValueError):
    pass


def _scalar(value: str) -> str:
    if _BARE_RE.match(value) and value.lower() not in ("true", "false", "null", "yes", "no", "on", "off", "~"):
        return value
    return json.dumps(value, ensure_ascii=False)


def render(fields: list[tuple[str, str | None]]) -> str:
    """Front matter block (with a trailing newline); None values are left out."""
    lines = [FENCE]
    lines.extend(f"{key}: {_scalar(value)}" for key, value in fields if value is not None)
    lines.append(FENCE)
    return "\n".join(lines) + "\n"


def _parse_value(raw: str) -> str:
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        try:
            value = json.loads(raw)
            if isinstance(value, str):
                return value
        except json.JSONDecodeError:
            pass
        return raw[1:-1]
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        return raw[1:-1].replace("''", "'")
    return raw


def parse(text: str) -> tuple[dict[str, str], str]:
    """(fields, body). Text without front matter gives ({}, text)."""
    text = text.lstrip("\ufeff")
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r").strip() != FENCE:
        return {}, text
    fields: dict[str, str] = {}
    for number, raw in enumerate(lines[1:], start=1):
        line = raw.rstrip("\r")
        if line.strip() == FENCE:
            return fields, "\n".join(lines[number + 1 :])
        match = _KEY_RE.match(line)
        if match:
            fields[match.group(1)] = _parse_value(match.group(2))
    raise FrontMatterError("front matter opened with '---' on line 1 is never closed")


def read_file(path: Path) -> tuple[dict[str, str], str]:
    """A store file's front matter and body: FileNotFoundError when it is gone, CorruptFileError
    (naming the file; it is never rewritten) when its front matter does not parse."""
    from omp.fsio import CorruptFileError, read_text

    text = read_text(path)
    if text is None:
        raise FileNotFoundError(path)
    try:
        return parse(text)
    except FrontMatterError as exc:
        raise CorruptFileError(path, str(exc)) from exc
