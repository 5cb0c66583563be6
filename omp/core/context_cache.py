"""The sessionStart context of `memory-inject=hook`, cached (SPEC §9.3, §12).

Rendering the managed block's content (omp.memory.block.hook_context, which re-sanitises every
text) imports most of the memory library: several times the hook's budget. So the rendered
text is kept in `R/.omp/state/hook-context.txt` after the fingerprint of everything it was
rendered from (a header line, the fingerprint line, then the text). The hook reads it when the
fingerprint still matches; omp.memory.block renders and stores it when it does not, and after
every change of memory in hook mode.
"""

from __future__ import annotations

import os

from omp.core import layout, settings
from omp.core.files import write_best_effort

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: importing typing costs the hook start-up time
    from typing import Any, Mapping

HEADER = "omp hook context v2"  # v2: notes under "Recorded facts", `note <id>: "title"`
# The renderer is part of what the text depends on: a new omp renders anew. The block, each
# note's line and the neutralising that both re-apply (a stat each: microseconds).
_MEMORY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "memory")
_RENDERERS = tuple(os.path.join(_MEMORY, name) for name in ("block.py", "note_catalog.py", "neutralise.py"))


def _stat_key(path: str) -> list[Any]:
    try:
        info = os.stat(path)
    except OSError:
        return [path, None]
    return [path, info.st_mtime_ns, info.st_size]


def fingerprint(root: str, env: Mapping[str, str]) -> str:
    """Everything the managed block's content depends on, as one line.

    The stores' files (active directives, project and global; every note), the config files
    and `OMP_MEMORY_*` variables (the caps), this project's trust record (it decides whether the
    project's caps count and its directives show) and the renderer itself. Stat calls, and one
    small read of G/trust.json: cheap even with hundreds of notes. (The record, not the trust
    file's stat: every project's directive write touches that file, and each would have made every
    other project's next session render anew.)
    """
    home = layout.global_home()
    parts: list[Any] = [
        _stat_key(os.path.join(root, layout.DIRECTIVES)),
        _stat_key(os.path.join(home, layout.GLOBAL_DIRECTIVES)),
        _stat_key(os.path.join(root, layout.PROJECT_CONFIG)),
        _stat_key(os.path.join(home, layout.GLOBAL_CONFIG)),
        _trust_record(root),
        *(_stat_key(renderer) for renderer in _RENDERERS),
        sorted((k, v) for k, v in env.items() if k.startswith("OMP_MEMORY_")),
    ]
    notes: list[Any] = []
    try:
        with os.scandir(os.path.join(root, layout.NOTES_DIR)) as entries:
            for entry in entries:
                try:
                    info = entry.stat()
                except OSError:
                    continue
                notes.append([entry.name, info.st_mtime_ns, info.st_size])
    except OSError:
        pass
    parts.append(sorted(notes))
    return repr(parts)  # one line: repr escapes every newline


def _trust_record(root: str) -> Any:
    try:
        entry = settings.trusted_projects().get(settings.project_key(root))
    except (OSError, ValueError, RecursionError):
        return "unreadable"
    if not isinstance(entry, dict):
        return None
    return [entry.get("sha256"), entry.get("previous"), entry.get(settings.DIRECTIVES_DIGEST)]


def cached(root: str, current: str) -> str | None:
    """The cached context when it was rendered from `current` (a fingerprint), else None."""
    try:
        with open(os.path.join(root, layout.CONTEXT_CACHE), "rb") as handle:
            header, stored, context = handle.read().decode("utf-8").split("\n", 2)
    except (OSError, ValueError):
        return None
    return context if header == HEADER and stored == current else None


def store(root: str, current: str, context: str) -> None:
    """Keep `context`, rendered from `current`, for the next sessionStart (best effort; never
    through a `.omp` or `state` linked out of the project)."""
    path = os.path.join(root, layout.CONTEXT_CACHE)
    if layout.is_inside(path, root):
        write_best_effort(path, f"{HEADER}\n{current}\n{context}")
