"""Skill drafts (docs/files.md#what-omp-writes) and their promotion into Copilot skills.

A draft is `R/.omp/self-evolve/drafts/<slug>/SKILL.md`:

    ---
    name: release-to-pypi
    description: "How to cut a release and upload it to PyPI"
    status: draft
    session: 3f2a...
    evidence: "verbatim words from the session"
    ---
    markdown body

Copilot never loads drafts. `promote-skill` moves one to `R/.github/skills/<slug>/SKILL.md`
with the front matter Copilot requires (`name`, `description`) and nothing else.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from omp.errors import OmpError, UsageError
from omp.fsio import confine, create_exclusive
from omp.lazyre import lazy
from omp.memory import frontmatter
from omp.memory.journal import Writer

SKILL_FILE = "SKILL.md"
SLUG_RE = lazy(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_SLUG = 64  # Copilot / agent-skills limit on a skill's name
MAX_DESCRIPTION = 1024


@dataclass(frozen=True)
class Draft:
    slug: str
    description: str
    status: str
    session: str | None
    evidence: str | None
    body: str
    path: Path

    def summary(self) -> dict[str, str | None]:
        return {"slug": self.slug, "description": self.description, "session": self.session, "path": str(self.path)}


def read_draft(path: Path) -> Draft:
    fields, body = frontmatter.read_file(path)
    return Draft(
        slug=path.parent.name,
        description=fields.get("description", ""),
        status=fields.get("status", "draft"),
        session=fields.get("session") or None,
        evidence=fields.get("evidence") or None,
        body=body.strip("\n"),
        path=path,
    )


def list_drafts(folder: Path) -> list[Draft]:
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        return []
    drafts = []
    for name in names:
        skill = folder / name / SKILL_FILE
        if name.startswith(".") or (folder / name).is_symlink() or skill.is_symlink() or not skill.is_file():
            continue
        drafts.append(read_draft(skill))
    return drafts


def render_draft(slug: str, description: str, body: str, session: str | None, evidence: str | None) -> str:
    head = frontmatter.render(
        [("name", slug), ("description", description), ("status", "draft"), ("session", session), ("evidence", evidence)]
    )
    return f"{head}\n{body.strip()}\n"


def render_skill(draft: Draft) -> str:
    head = frontmatter.render([("name", draft.slug), ("description", draft.description)])
    return f"{head}\n{draft.body.strip()}\n"


def create_draft(writer: Writer, folder: Path, slug: str, description: str, body: str, session: str | None, evidence: str | None) -> Path | None:
    """Write a new draft; None when a draft with this slug already exists."""
    path = folder / slug / SKILL_FILE
    if writer.create(path, render_draft(slug, description, body, session, evidence)):
        return path
    return None


def draft_path(folder: Path, slug: str) -> Path:
    path = folder / slug / SKILL_FILE
    if not SLUG_RE.match(slug) or not path.is_file() or path.is_symlink():
        raise UsageError(f"no skill draft named {slug!r}", "list the drafts with: omp project-memory drafts")
    return path


def promote(drafts_folder: Path, skills_folder: Path, slug: str, within: Path) -> Path:
    """Move a draft to `<skills>/<slug>/SKILL.md`. Refuses to overwrite an existing skill, and
    to write through a `.github`, `skills` or skill folder that links out of `within` (R)."""
    source = draft_path(drafts_folder, slug)
    draft = read_draft(source)
    if not draft.description.strip():
        raise OmpError(
            f"draft {slug!r} has no description, and Copilot requires one",
            f"add a `description:` line to the front matter of {source}",
        )
    target = skills_folder / slug / SKILL_FILE
    confine(target, within)  # before anything moves: the draft stays where it is
    if not create_exclusive(target, render_skill(draft), within):
        raise OmpError(
            f"{target} already exists; not overwriting it",
            f"remove or rename that skill, or delete the draft: rm -r {source.parent}",
        )
    source.unlink()
    try:
        source.parent.rmdir()
    except OSError:
        pass  # the human put other files beside the draft: leave them
    return target
