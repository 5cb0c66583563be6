"""The sessionStart context of `memory-inject=hook`, cached (docs/behaviour.md#copilot-integration, docs/performance.md#where-speed-matters).

Rendering the managed block's content (omp.memory.render.hook_context, which re-sanitises every
text) imports most of the memory library: several times the hook's budget. So the rendered
text is kept in `R/.omp/state/hook-context.txt` after the fingerprint of everything it was
rendered from (a header line, the names of the notes it shows, the fingerprint line, then the
text). The hook reads it when the fingerprint still matches; omp.memory.render renders and
stores it when it does not, and after every change of memory in hook mode.
"""

from __future__ import annotations

import os

from omp.core import jsonlite, layout, settings
from omp.core.files import write_best_effort

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: importing typing costs the hook start-up time
    from typing import Any, Mapping

HEADER = "omp hook context v3"  # v3: the shown notes named on line 2; v2: notes under "Recorded facts"
# The renderer is part of what the text depends on: a new omp renders anew. The block's render, each
# note's line and the neutralising that both re-apply (a stat each: microseconds).
_MEMORY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "memory")
_RENDERERS = tuple(os.path.join(_MEMORY, name) for name in ("render.py", "note_catalog.py", "neutralise.py"))


def _stat_key(path: str) -> list[Any]:
    try:
        info = os.stat(path)
    except OSError:
        return [path, None]
    return [path, info.st_mtime_ns, info.st_size]


def base_parts(root: str, env: Mapping[str, str]) -> list[Any]:
    """What the managed block's content depends on besides the notes it shows.

    The stores' files (active directives, project and global), the config files and
    `OMP_MEMORY_*` variables (the caps), this project's trust record (it decides whether the
    project's caps count and its directives show), the renderer itself, and the notes folder's
    own stat: a note added, removed or renamed (omp's writes, a `git pull`, an editor that
    saves by renaming) changes it. Stat calls and one small read of G/trust.json. (The record,
    not the trust file's stat: every project's directive write touches that file, and each would
    have made every other project's next session render anew.)
    """
    home = layout.global_home()
    return [
        _stat_key(os.path.join(root, layout.DIRECTIVES)),
        _stat_key(os.path.join(home, layout.GLOBAL_DIRECTIVES)),
        _stat_key(os.path.join(root, layout.PROJECT_CONFIG)),
        _stat_key(os.path.join(home, layout.GLOBAL_CONFIG)),
        _trust_record(root),
        *(_stat_key(renderer) for renderer in _RENDERERS),
        sorted((k, v) for k, v in env.items() if k.startswith("OMP_MEMORY_")),
        _folder_key(os.path.join(root, layout.NOTES_DIR)),
    ]


def fingerprint(base: list[Any], shown: list[list[Any]]) -> str:
    """One line: `base_parts` and the identity of every note the context shows, `[name, size,
    mtime_ns, ctime_ns, inode]` (a note edited where it lies leaves its folder as it was, but
    not its own stat). Notes the context does not show are not looked at one by one: with
    20,000 of them that would cost the hook its budget, and only a change of the folder can
    bring one into the context."""
    return repr([*base, shown])  # one line: repr escapes every newline


def shown_now(root: str, names: list[str]) -> list[list[Any]]:
    """The identity, now, of the notes a cached context shows (by file name)."""
    folder = os.path.join(root, layout.NOTES_DIR)
    found: list[list[Any]] = []
    for name in names:
        try:
            info = os.stat(os.path.join(folder, name), follow_symlinks=False)
        except OSError:
            found.append([name, None])
            continue
        found.append([name, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino])
    return found


def _folder_key(path: str) -> list[Any]:
    try:
        info = os.stat(path)
    except OSError:
        return [None]
    return [info.st_mtime_ns, info.st_ctime_ns, info.st_ino]


def _trust_record(root: str) -> Any:
    try:
        entry = settings.trusted_projects().get(settings.project_key(root))
    except (OSError, ValueError, RecursionError):
        return "unreadable"
    if not isinstance(entry, dict):
        return None
    return [entry.get("sha256"), entry.get("previous"), entry.get(settings.DIRECTIVES_DIGEST)]


def cached(root: str, env: Mapping[str, str]) -> str | None:
    """The cached context when nothing it was rendered from changed since, else None."""
    try:
        with open(os.path.join(root, layout.CONTEXT_CACHE), "rb") as handle:
            header, names, stored, context = handle.read().decode("utf-8").split("\n", 3)
        shown = jsonlite.loads(names)
    except (OSError, ValueError, RecursionError):
        return None
    if header != HEADER or not (isinstance(shown, list) and all(isinstance(name, str) for name in shown)):
        return None
    return context if stored == fingerprint(base_parts(root, env), shown_now(root, shown)) else None


def store(root: str, base: list[Any], shown: list[list[Any]], context: str) -> None:
    """Keep `context`, rendered from `base` and the notes `shown` (their identity when read),
    for the next sessionStart (best effort; never through a `.omp` or `state` linked out of the
    project)."""
    path = os.path.join(root, layout.CONTEXT_CACHE)
    if layout.is_inside(path, root):
        names = jsonlite.dumps([note[0] for note in shown])
        write_best_effort(path, f"{HEADER}\n{names}\n{fingerprint(base, shown)}\n{context}")
