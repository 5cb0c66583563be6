"""Many processes writing project memory at once lose nothing and corrupt nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from omp.memory.directives import parse_checklist
from omp.memory.notes import list_notes

WRITER = """
import sys
from pathlib import Path
from omp.memory.items import DirectiveProposal, NoteProposal
from omp.memory.store import memory_batch
from omp.paths import ProjectPaths

i = int(sys.argv[2])
with memory_batch(ProjectPaths(Path(sys.argv[1])), journal_session=f"session-{i}") as batch:
    notes = batch.add_notes([NoteProposal(f"Service {i} listens on port {8000 + i}", f"body {i}", f"session-{i}", "ev")])
    rules = batch.propose_directives([DirectiveProposal(f"Rule {i}: call tool{i} for task{i}", f"session-{i}", "ev")])
assert [r.status for r in notes + rules] == ["written", "written"], notes + rules
"""


@pytest.mark.slow
def test_twenty_processes_add_twenty_notes_and_twenty_directives(project: Path) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(project), str(i)],
            env=dict(os.environ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(20)
    ]
    for proc in procs:
        _out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err

    notes = list_notes(project / ".omp/memory/notes")  # parses every note, or raises
    assert sorted(n.title for n in notes) == sorted(f"Service {i} listens on port {8000 + i}" for i in range(20))
    checklist = parse_checklist((project / ".omp/memory-review/pending-directives.md").read_text())
    assert sorted(line.text for line in checklist) == sorted(f"Rule {i}: call tool{i} for task{i}" for i in range(20))
    metadata = json.loads((project / ".omp/memory-review/pending.json").read_text())
    assert sorted(item["session"] for item in metadata["items"]) == sorted(f"session-{i}" for i in range(20))
    for journal in (project / ".omp/memory-review/journal").iterdir():
        json.loads(journal.read_text())
    assert len(list((project / ".omp/memory-review/journal").iterdir())) == 20
