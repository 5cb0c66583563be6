"""YAML front matter of notes and skill files.

Written: `key: value` lines between `---` fences; free text is a JSON string literal (which is
also a valid YAML double-quoted scalar, so Copilot's skill loader and any YAML parser read it),
plain tokens (slugs, `draft`) are written bare.

Read: with a real YAML parser (PyYAML, already installed with detect-secrets), because people
edit these files by hand and Copilot reads `SKILL.md` as YAML — a folded `description: >-` is
its text, not the characters ">-". `BaseLoader` keeps every scalar a string (a bare date or
`yes` stays the text the user wrote). Unknown keys are kept; a value that is a list or a map is
kept as its JSON text. A front matter that is opened but never closed, or is not YAML, is
unreadable: the caller names the file and never rewrites it.

One shortcut, because importing PyYAML costs a review ≈ 18 ms (docs/performance.md#where-speed-matters) and most front matter
is omp's own: a block that is exactly what `render` writes — every line `key: value`, each value
bare or a JSON string literal, rendering the values read gives the same text byte for byte, and
no character a YAML reader treats apart (tabs, controls, NEL, U+2028/2029, non-characters) — is
read without YAML. Such a block means the same to YAML (tests/test_frontmatter.py compares both
readers over generated values); anything else, a hand edit above all, goes to PyYAML.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from omp.fsio import CorruptFileError, read_text
from omp.lazyre import lazy


FENCE = "---"
_BARE_RE = lazy(r"^[A-Za-z0-9][A-Za-z0-9._/-]*$")


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


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)


def parse(text: str) -> tuple[dict[str, str], str]:
    """(fields, body). Text without front matter gives ({}, text)."""
    text = text.lstrip("\ufeff")
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r").strip() != FENCE:
        return {}, text
    for number, raw in enumerate(lines[1:], start=1):
        if raw.rstrip("\r").strip() == FENCE:
            block = "\n".join(line.rstrip("\r") for line in lines[1:number])
            return _fields(block), "\n".join(lines[number + 1 :])
    raise FrontMatterError("front matter opened with '---' on line 1 is never closed")


_RENDERED_LINE = lazy(r"([A-Za-z0-9_][A-Za-z0-9_-]{0,99}): (.+)")  # YAML caps implicit keys at 1024
# Characters outside YAML's printable set, and the ones it reads as line breaks or strips.
_YAML_APART = lazy("[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")


def _as_rendered(block: str) -> dict[str, str] | None:
    """The fields of a block exactly as `render` writes it, else None (YAML must read it)."""
    if not block:
        return {}
    if _YAML_APART.search(block.replace("\n", " ")):
        return None
    fields: dict[str, str] = {}
    for line in block.split("\n"):
        match = _RENDERED_LINE.fullmatch(line)
        if match is None or match.group(1) in fields:
            return None
        raw = match.group(2)
        if raw.startswith('"'):
            try:
                value = json.loads(raw)
            except ValueError:
                return None
            if not isinstance(value, str):
                return None
        else:
            value = raw
        if _scalar(value) != raw:  # not what render writes for this value: YAML decides
            return None
        fields[match.group(1)] = value
    return fields


def _fields(block: str) -> dict[str, str]:
    rendered = _as_rendered(block)
    if rendered is not None:
        return rendered
    import yaml  # PyYAML costs ~25 ms to import; only a note or draft with front matter needs it

    try:
        data = yaml.load(block, Loader=yaml.BaseLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 2}: " if mark is not None else ""  # +1 for the fence, +1 from 0-based
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FrontMatterError(f"front matter is not valid YAML ({where}{problem})") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontMatterError("front matter is not a set of `key: value` lines")
    return {str(key): _as_text(value) for key, value in data.items()}


def read_file(path: Path) -> tuple[dict[str, str], str]:
    """A store file's front matter and body: FileNotFoundError when it is gone, CorruptFileError
    (naming the file; it is never rewritten) when its front matter does not parse."""
    text = read_text(path)
    if text is None:
        raise FileNotFoundError(path)
    try:
        return parse(text)
    except FrontMatterError as exc:
        raise CorruptFileError(path, str(exc)) from exc
