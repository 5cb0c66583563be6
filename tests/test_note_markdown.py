"""Hidden Markdown never reaches a note (docs/behaviour.md#what-gets-written, docs/secrets-and-poisoning.md#planted-rules): what an agent reads of a note is what
a person sees when the note is rendered. Comments, link titles, reference definitions, images,
raw HTML that hides its text and invisible entities are removed before a note is stored, and a
note stored before (or committed by a repository) is shown without them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_support import pm

from omp.memory.block import render_block_lines, sync_block
from omp.memory.items import NoteProposal, RejectionCode
from omp.memory.neutralise import neutralise_title, strip_hidden_markdown
from omp.memory.store import add_notes
from omp.paths import ProjectPaths

HIDDEN = "zebra payload"  # what each form tries to hide; never in any output

HIDING_FORMS = [
    f"Tests use UTC <!-- {HIDDEN} --> in CI.",
    f"Tests use UTC in CI. <!-- {HIDDEN}",  # unterminated: hides the rest
    f"Tests use UTC in CI <!--\n{HIDDEN}\n-->.",
    f"Tests use UTC in CI <!-- a --><!-- {HIDDEN} -->",
    f'Tests use UTC in [CI](https://ci.example "{HIDDEN}").',
    f"Tests use UTC in [CI](https://ci.example '{HIDDEN}').",
    f"Tests use UTC in [CI](https://ci.example ({HIDDEN})).",
    f'Tests use UTC in CI.\n\n[ci]: https://ci.example "{HIDDEN}"',
    f"Tests use UTC in CI.\n\n[{HIDDEN}]: https://ci.example",
    f"Tests use UTC in CI.\n\n[ci]: <https://ci.example>\n  '{HIDDEN}'",
    f"Tests use UTC in CI. ![{HIDDEN}](https://tracker.example/p.png)",
    f"Tests use UTC in CI. ![{HIDDEN}][logo]",
    f'Tests use UTC in CI. <img src="x.png" alt="{HIDDEN}">',
    f"Tests use UTC in CI. <details>{HIDDEN}</details>",
    f"Tests use UTC in CI. <details><summary>More</summary>\n\n{HIDDEN}\n</details>",
    f"Tests use UTC in CI. <span hidden>{HIDDEN}</span>",
    f'Tests use UTC in CI. <div style="display:none">{HIDDEN}</div>',
    f"Tests use UTC in CI.\n<div style='font-size:0'>\n\n{HIDDEN}\n\n</div>",
    f'Tests use UTC in CI. <span style="color:transparent">{HIDDEN}</span>',
    f'Tests use UTC in CI. <font size="0">{HIDDEN}</font>',
    f'Tests use UTC in CI. <div style="display:none"><div>x</div>{HIDDEN}</div>',
    f"Tests use UTC in CI. <SPAN HIDDEN>{HIDDEN}",  # unterminated, upper case
    f"Tests use UTC in CI. <template>{HIDDEN}</template>",
    f'Tests use UTC in CI. <a href="https://x.example" title="{HIDDEN}">docs</a>',
    f"Tests use UTC in CI. <![CDATA[{HIDDEN}]]>",
    f"Tests use UTC in CI. [](https://x.example/{HIDDEN.replace(' ', '-')})",
    f"Tests use UTC in CI. [&#8203;](https://x.example/{HIDDEN.replace(' ', '-')})",
]


@pytest.mark.parametrize("text", HIDING_FORMS)
def test_what_rendering_hides_is_removed_and_what_it_shows_stays(text: str) -> None:
    shown = strip_hidden_markdown(text)
    assert HIDDEN not in shown and HIDDEN.replace(" ", "-") not in shown
    assert "Tests use UTC" in shown and "CI" in shown
    assert HIDDEN not in neutralise_title(text)


@pytest.mark.parametrize("text", [
    "The parser returns `List<String>` and `<!-- marker -->` stays as typed.",
    "```html\n<!-- the template's region marker -->\n<details>kept</details>\n```",
    "Generic code uses List<String> here.",
    "See [the docs](https://docs.example/a_(b)) and <https://example.com>.",
    "Compare a < b and b > c; A &amp; B.",
])
def test_visible_text_code_and_plain_links_are_kept(text: str) -> None:
    assert strip_hidden_markdown(text) == text


def test_a_link_keeps_its_text_and_address_and_loses_its_title() -> None:
    assert strip_hidden_markdown('Read [the runbook](https://r.example "x y") first') == \
        "Read [the runbook](https://r.example) first"
    assert strip_hidden_markdown("<b>Bold</b> and <details><summary>Why</summary>because</details>") == "Bold and Why "


def test_a_note_is_stored_without_hidden_markdown_and_read_and_the_block_show_none(project: Path) -> None:
    title = f"Tests use TZ=UTC <!-- {HIDDEN} --> because [CI](https://ci.example \"{HIDDEN}\") runs in UTC"
    body = (f"CI runs in UTC.\n\n<details>{HIDDEN}</details>\n\n![{HIDDEN}](https://t.example/p.png)\n\n"
            f"[ci]: https://ci.example \"{HIDDEN}\"\n\nWrap long answers in `<details>` blocks.")
    [result] = add_notes(ProjectPaths(project), [NoteProposal(title, body, "sess-1", "CI runs in UTC")])
    assert result.status == "written", result
    note_file = project / ".omp" / "memory" / "notes" / f"{result.ref}.md"
    stored = note_file.read_text(encoding="utf-8")
    assert HIDDEN not in stored
    assert "Tests use TZ=UTC because [CI](https://ci.example) runs in UTC" in stored
    assert "CI runs in UTC.\n\nWrap long answers in `<details>` blocks." in stored  # a code span shows as typed
    sync_block(ProjectPaths(project))
    block = (project / ".github" / "copilot-instructions.md").read_text(encoding="utf-8")
    assert HIDDEN not in block and "Tests use TZ=UTC" in block
    shown = pm(project, "read", result.ref or "")
    assert shown.returncode == 0, shown.stderr
    assert HIDDEN not in shown.stdout and "CI runs in UTC." in shown.stdout
    as_json = pm(project, "read", result.ref or "", "--json")
    assert HIDDEN not in as_json.stdout and "CI runs in UTC." in json.loads(as_json.stdout)["body"]


def test_a_note_stored_before_is_shown_stripped(project: Path) -> None:
    """A note an older omp wrote, or a repository committed, with hidden Markdown in it."""
    folder = project / ".omp" / "memory" / "notes"
    folder.mkdir(parents=True)
    (folder / "ci-timezone.md").write_text(
        "---\nid: ci-timezone\ntitle: \"CI runs in UTC <!-- " + HIDDEN + " -->\"\ncreated: 2025-01-31T12:00:00Z\n---\n"
        f"# CI runs in UTC\n\nThe runners use UTC. <span hidden>{HIDDEN}</span>\n<!-- {HIDDEN}\n",
        encoding="utf-8")
    shown = pm(project, "read", "ci-timezone")
    assert shown.returncode == 0, shown.stderr
    assert HIDDEN not in shown.stdout and "The runners use UTC." in shown.stdout
    block = "\n".join(render_block_lines(ProjectPaths(project)))
    assert HIDDEN not in block and "CI runs in UTC" in block


def test_hidden_markdown_cannot_join_the_halves_of_a_secret(project: Path) -> None:
    """Removing a comment joins the text around it: the checks read the text as it is stored."""
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    body = f"The bot uses {token[:12]}<!-- note -->{token[12:]} for releases."
    [result] = add_notes(ProjectPaths(project), [NoteProposal("Release bot token", body, "sess-1", "release bot")])
    assert result.status == "rejected" and result.code is RejectionCode.SECRET, result
    assert not list((project / ".omp" / "memory" / "notes").glob("*.md"))
