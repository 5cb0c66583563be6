"""Front matter is read as YAML (Copilot reads SKILL.md as YAML): a hand-edited draft with a folded
`description: >-` is published with its text, not the characters ">-"."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import python_output, run_omp
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


def _yaml_fields(block: str) -> dict[str, str]:
    """What PyYAML alone reads (the reader before omp's shortcut)."""
    import yaml

    data = yaml.load(block, Loader=yaml.BaseLoader) or {}
    return {str(key): frontmatter._as_text(value) for key, value in data.items()}


def test_the_shortcut_for_omps_own_front_matter_reads_what_yaml_reads() -> None:
    """A block exactly as omp renders it is read without PyYAML; over values full of what YAML
    treats apart (quotes, escapes, colons, NEL, U+2028, tabs, controls, BOM, emoji), whatever
    the shortcut reads is what YAML reads, and the rest is left to YAML."""
    import random

    pieces = ["plain", "two words", "a: b", "#hash", "'single'", '"double"', "back\\slash", "tab\there",
              "new\nline", "cr\rhere", "\x85nel", "ls\u2028ps\u2029", "\x7fdel", "\x01ctrl", "\ufeffbom",
              "é", "中文", "😀", "yes", "null", "~", "-dash", "1.5", "2026-12-01", "a/b", "  padded  ", "",
              "\\u00e9", "\ud83d", "x" * 300]
    rng = random.Random(7)
    shortcut = 0
    for _ in range(3000):
        values = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 4))]
        fields = [(f"k{index}", value) for index, value in enumerate(values)]
        block = frontmatter.render(fields)[len("---\n"):-len("---\n") - 1]
        fast = frontmatter._as_rendered(block)
        if fast is None:
            continue
        shortcut += 1
        assert fast == _yaml_fields(block) == dict(fields), block
    assert shortcut > 500  # the shortcut is taken, so the comparison means something


@pytest.mark.parametrize("block", [
    "title: >-\n  folded", "title: plain words", "title: \"a\" # comment", "title: 'quoted'",
    "title: \"dup\"\ntitle: \"dup\"", "title: yes", "title:\t\"tab\"", "k" * 200 + ": v",
])
def test_anything_omp_would_not_have_written_goes_to_yaml(block: str) -> None:
    assert frontmatter._as_rendered(block) is None


def test_reading_omps_notes_does_not_import_yaml() -> None:
    program = ("import sys\nfrom omp.memory import frontmatter as f\n"
               "text = f.render([('id', 'n-1'), ('title', 'He said: \"ship it\" — #1'), ('created', '2026-12-01')])\n"
               "print(f.parse(text + 'body')[0]['title'], 'yaml' in sys.modules)\n"
               "f.parse('---\\ndescription: >-\\n  folded\\n---\\n')\n"
               "print('yaml' in sys.modules)\n")
    out = python_output(program)
    assert out.splitlines() == ['He said: "ship it" — #1 False', "True"]
