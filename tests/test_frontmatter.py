"""Front matter is read as YAML (Copilot reads SKILL.md as YAML): a hand-edited draft with a folded
`description: >-` is published with its text, not the characters ">-"."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_omp
from omp.memory import frontmatter

HAND_EDITED = """---
name: release-checklist
description: >-
  Cut a release: bump the version,
  tag it, then run make release.
status: draft
created: 2026-12-01
---
# Release checklist

1. Bump the version.
"""


def test_a_folded_description_is_published_as_its_text(project: Path) -> None:
    draft = project / ".omp" / "self-evolve" / "drafts" / "release-checklist" / "SKILL.md"
    draft.parent.mkdir(parents=True)
    draft.write_text(HAND_EDITED)
    listed = run_omp(["project-memory", "drafts"], cwd=project)
    assert listed.returncode == 0, listed.stderr
    assert ">-" not in listed.stdout
    result = run_omp(["project-memory", "promote-skill", "release-checklist"], cwd=project)
    assert result.returncode == 0, result.stderr
    published = (project / ".github" / "skills" / "release-checklist" / "SKILL.md").read_text()
    fields, body = frontmatter.parse(published)
    assert fields["description"] == "Cut a release: bump the version, tag it, then run make release."
    assert ">-" not in published and "1. Bump the version." in body


def test_scalars_stay_the_text_the_user_wrote() -> None:
    fields, _ = frontmatter.parse("---\ncreated: 2026-12-01\nenabled: yes\ncount: 012\n---\n")
    assert fields == {"created": "2026-12-01", "enabled": "yes", "count": "012"}


def test_what_omp_writes_reads_back_exactly() -> None:
    title = 'He said: "ship it" — #1, 100% `make`: done\\n'
    text = frontmatter.render([("id", "he-said"), ("title", title), ("created", "2026-12-01T07:49:08Z")]) + "body\n"
    fields, body = frontmatter.parse(text)
    assert fields == {"id": "he-said", "title": title, "created": "2026-12-01T07:49:08Z"} and body == "body\n"


@pytest.mark.parametrize("block", ["title: a: b", "title: [unclosed", "- just\n- a list"])
def test_front_matter_that_is_not_yaml_is_unreadable_with_the_line(block: str) -> None:
    with pytest.raises(frontmatter.FrontMatterError, match="front matter"):
        frontmatter.parse(f"---\nid: x\n{block}\n---\nbody")
