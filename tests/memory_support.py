"""Helpers for the project-memory tests: real stores in a real git project."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import Result, run_omp

from omp import config
from omp.memory.items import DirectiveProposal, ItemKind, ItemResult, NoteProposal
from omp.memory.store import add_notes, propose_directives
from omp.paths import ProjectPaths

START = "<!-- omp:memory:start -->"
END = "<!-- omp:memory:end -->"


def enable(project: Path, **settings: str) -> ProjectPaths:
    """memory-mode on for `project` (and any other settings), written the way `omp config set` writes."""
    paths = ProjectPaths(project)
    config.set_value("memory-mode", "on", "project", paths)
    for key, value in settings.items():
        config.set_value(key.replace("_", "-"), value, "project", paths)
    return paths


def pm(project: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    """Run `omp project-memory ARGS --root PROJECT` in a subprocess."""
    return run_omp(["project-memory", *args, "--root", str(project)], env=env)


def propose(project: Path, *texts: str, kind: ItemKind = ItemKind.DIRECTIVE, session: str = "sess-1") -> list[ItemResult]:
    proposals = [DirectiveProposal(t, session, f"the user said: {t}", kind=kind) for t in texts]
    return propose_directives(ProjectPaths(project), proposals)


def note(project: Path, title: str, body: str = "", session: str = "sess-1") -> ItemResult:
    return add_notes(ProjectPaths(project), [NoteProposal(title, body, session, title)])[0]


def pending_labels(project: Path) -> list[str]:
    result = pm(project, "pending", "--json")
    assert result.returncode == 0, result.stderr
    return [item["label"] for item in result.json()["pending"]]


def active_texts(project: Path) -> list[str]:
    result = pm(project, "read", "--json")
    assert result.returncode == 0, result.stderr
    return [d["text"] for d in result.json()["directives"]]


def block_of(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return text[text.index(START) : text.index(END) + len(END)]


def outside_block(path: Path) -> bytes:
    data = path.read_bytes()
    start, end = data.index(START.encode()), data.index(END.encode()) + len(END)
    return data[:start] + data[end:]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every regular file under `folder` (relative path → bytes), to prove nothing changed."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink() and p.name != ".lock"
    }


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
