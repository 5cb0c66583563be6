"""The managed block's markers, and whether the project's instruction file needs a sync.

omp.memory.block writes the block between these markers; sessionStart checks with one read or
one stat whether the file is in step with the mode (docs/behaviour.md#project-memory-and-the-managed-block), and only then runs the library.
"""

from __future__ import annotations

import os

from omp.core import jsonlite, layout

START_MARKER = "<!-- omp:memory:start -->"
END_MARKER = "<!-- omp:memory:end -->"


def out_of_step(root: str, inject: str) -> bool:
    """Does the project's instruction file need a sync? `hook` mode: it still holds omp's block.
    `block` mode: it changed since omp last wrote it (the record's stat differs)."""
    path = os.path.join(root, layout.INSTRUCTIONS)
    if inject == "hook":
        try:
            with open(path, "rb") as handle:
                return START_MARKER.encode() in handle.read(1 << 20)
        except OSError:
            return False
    try:
        with open(os.path.join(root, layout.BLOCK_RECORD), "rb") as handle:
            record = jsonlite.loads(handle.read().decode("utf-8"))
        stored = record.get("stat") if isinstance(record, dict) else None
    except (OSError, ValueError, RecursionError):
        return False  # omp never wrote a block here (or an older omp did): nothing to compare
    try:
        info = os.stat(path)
    except OSError:
        return True  # omp wrote the file and it is gone
    return stored != [info.st_mtime_ns, info.st_size]
