"""Which reviewed session a user means (`omp memory-review undo SESSION`, SPEC §5).

A full id, or a unique prefix of at least 7 characters — the first group of a UUID, as lists
show it — matched against the sessions omp has reviewed in this project (their journals and
claims), so the user never has to paste a whole UUID.
"""

from __future__ import annotations

from omp.errors import UsageError
from omp.paths import ProjectPaths, check_session_id

MIN_PREFIX = 7


def _reviewed(paths: ProjectPaths) -> set[str]:
    found: set[str] = set()
    for folder in (paths.journal, paths.claims):
        try:
            found.update(p.stem for p in folder.iterdir() if p.suffix == ".json" and not p.name.startswith("."))
        except OSError:
            continue
    return found


def reviewed_session(paths: ProjectPaths, spec: str) -> str:
    """The full id `spec` names (itself when it is one, or when nothing matches: the caller then
    reports that there is nothing to undo). An ambiguous prefix is a usage error."""
    check_session_id(spec)
    known = _reviewed(paths)
    if spec in known or len(spec) < MIN_PREFIX:
        return spec
    matches = sorted(sid for sid in known if sid.startswith(spec))
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise UsageError(f"session prefix {spec!r} matches {len(matches)} reviewed sessions: {', '.join(matches[:5])}",
                         "give more characters of the id")
    return spec
