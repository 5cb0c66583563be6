"""Make a project whose memory has grown: N notes, D directives, P pending items.

    python bench/gen_memory.py /tmp/big --notes 20000 --directives 500 --pending 200

The files are written with omp's own renderers (the same bytes `omp project-memory add-note`,
`promote` and a review would write), straight to disk, and recorded in G/trust.json as omp
records what it writes: making 20,000 notes through the CLI would
measure the CLI, not the memory. The project is a real git repository, so every omp command
finds it. Used by bench/bench_memory_scale.py and by tests/test_memory_scale.py.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import subprocess
from pathlib import Path

from omp import trust
from omp.memory.directives import Directive, PendingItem, render_checklist, render_directives, render_pending_metadata
from omp.memory.notes import render_note
from omp.paths import ProjectPaths

TOPICS = ("build", "deploy", "tests", "database", "frontend", "api", "auth", "logging", "cache", "docs")


def make_project(root: Path, notes: int, directives: int, pending: int) -> ProjectPaths:
    root.mkdir(parents=True, exist_ok=True)
    if not (root / ".git").exists():
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    paths = ProjectPaths(root)
    paths.notes.mkdir(parents=True, exist_ok=True)
    for number in range(notes):
        topic = TOPICS[number % len(TOPICS)]
        note_id = f"{topic}-fact-{number}"
        created = f"20{20 + number % 6}-{1 + number % 12:02d}-{1 + number % 28:02d}T12:{number % 60:02d}:00Z"
        text = render_note(note_id, f"The {topic} fact number {number}", created, f"session-{number}",
                           f"the {topic} fact {number}", f"What was found about {topic} in session {number}.")
        (paths.notes / f"{note_id}.md").write_text(text, encoding="utf-8")
    paths.directives.parent.mkdir(parents=True, exist_ok=True)
    directives_text = render_directives([
        Directive(f"Rule {number}: run the {TOPICS[number % len(TOPICS)]} check before every commit",
                  "2025-01-01T00:00:00Z", "manual")
        for number in range(directives)
    ])
    paths.directives.write_text(directives_text, encoding="utf-8")
    # As omp records what it wrote: the directives and the queued items are this machine's own.
    trust.record_directives(paths, directives_text.encode("utf-8"))
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")  # not expired
    items = [PendingItem("add", f"Proposed rule {number}: keep the {TOPICS[number % len(TOPICS)]} logs short",
                         now, f"session-{number}", f"keep the logs short {number}")
             for number in range(pending)]
    paths.pending_md.parent.mkdir(parents=True, exist_ok=True)
    paths.pending_md.write_text(render_checklist(items), encoding="utf-8")
    paths.pending_json.write_text(render_pending_metadata(items), encoding="utf-8")
    trust.record_queued(paths, [(item.kind, item.text) for item in items])
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--notes", type=int, default=20_000)
    parser.add_argument("--directives", type=int, default=500)
    parser.add_argument("--pending", type=int, default=200)
    args = parser.parse_args()
    make_project(args.root, args.notes, args.directives, args.pending)
    print(f"{args.root}: {args.notes} notes, {args.directives} directives, {args.pending} pending items")


if __name__ == "__main__":
    main()
