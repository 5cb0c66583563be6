"""Migrating a `.oh-my-copilot/` folder from the TypeScript oh-my-copilot (docs/writes-and-undo.md#leftovers-of-killed-runs).

Assumed layout (it mirrors ours, relative to `R/.oh-my-copilot/`):

    project-memory.json                     active directives: v2 object or a plain list of strings
    memory-review/pending-directives.md     the pending checklist (`- [ ] text`, `- [ ] FORGET: text`)
    memory-review/pending.json              optional metadata of the pending items
    memory-review/decisions.jsonl           optional decisions (tombstones)
    memory/notes/*.md                       notes
    self-evolve/drafts/<slug>/SKILL.md      skill drafts

Everything found is merged into `R/.omp/` the first time the stores are opened, under the
project lock: nothing is lost, and nothing is doubled — an item equal (after folding) to one we
already hold is skipped, so a migration interrupted half-way and run again adds only what is
missing. Only open (unticked) checklist lines become pending items. When done, a marker
`R/.omp/state/legacy-migrated.json` records what was taken; the legacy folder is left as it
was (it is already in `.gitignore`), and it is not read again.

Symbolic links are never followed: a linked `.oh-my-copilot`, a linked folder inside it or a
linked file is skipped, and every file is opened with O_NOFOLLOW.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from omp.fsio import CorruptFileError, append_jsonl, atomic_write, atomic_write_json, create_exclusive, iter_jsonl, read_text
from omp.memory import dedupe, directives as dirs, frontmatter, notes as notes_mod
from omp.memory.directives import Directive, PendingItem
from omp.memory.journal import utc_now
from omp.paths import ProjectPaths

MARKER_NAME = "legacy-migrated.json"


def marker_path(paths: ProjectPaths) -> Path:
    return paths.logs / MARKER_NAME


def needs_migration(paths: ProjectPaths) -> bool:
    """Cheap check (no lock): is there an unmigrated, real (not linked) legacy folder?"""
    try:
        mode = os.lstat(paths.legacy_state).st_mode
    except FileNotFoundError:
        return False
    return stat.S_ISDIR(mode) and not marker_path(paths).exists()


def _is_real(path: Path, base: Path) -> bool:
    """True if `path` and every folder from `base` down to it exist and none is a symbolic link."""
    try:
        parts = path.relative_to(base).parts
    except ValueError:
        return False
    chain = [base]
    for part in parts:
        chain.append(chain[-1] / part)
    for current in chain:
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return False
        except FileNotFoundError:
            return False
    return True


def _read(path: Path, base: Path) -> str | None:
    """The file's text, or None if it is missing, linked, or not a regular file."""
    if not _is_real(path, base):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        raw = handle.read()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorruptFileError(path, f"not UTF-8 text (byte {exc.start})") from exc


def _entries(folder: Path, base: Path) -> list[os.DirEntry[str]]:
    if not _is_real(folder, base):
        return []
    try:
        with os.scandir(folder) as it:
            return sorted((e for e in it if not e.is_symlink()), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []


def _legacy_directives(text: str, path: Path) -> list[Directive]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CorruptFileError(path, f"line {exc.lineno}, column {exc.colno}: {exc.msg}") from exc
    items = data if isinstance(data, list) else data.get("directives") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise CorruptFileError(path, 'expected {"directives": [...]} or a list of strings')
    out = []
    for item in items:
        if isinstance(item, str) and item.strip():
            out.append(Directive(item, None, "legacy"))
        elif isinstance(item, dict) and isinstance(item.get("text"), str) and item["text"].strip():
            out.append(Directive(item["text"], item.get("added_at"), item.get("source") or "legacy"))
    return out


def _migrate_directives(paths: ProjectPaths, base: Path, counts: dict[str, int]) -> None:
    source = base / "project-memory.json"
    text = _read(source, base)
    if text is None:
        return
    current = dirs.read_directives(paths.directives)
    merged = list(current)
    for directive in _legacy_directives(text, source):
        if not any(dedupe.fold(d.text) == dedupe.fold(directive.text) for d in merged):
            merged.append(directive)
    if len(merged) != len(current):
        # Not recorded as trusted (omp.trust): the legacy file may be a repository's as well as
        # the user's, so the block shows the merged rules once the user has read them (omp trust),
        # and until then every later write of the file refuses (MemoryBatch.save_directives).
        atomic_write(paths.directives, dirs.render_directives(merged))
        counts["directives"] = len(merged) - len(current)


def _migrate_pending(paths: ProjectPaths, base: Path, counts: dict[str, int]) -> None:
    md = _read(base / "memory-review" / "pending-directives.md", base)
    if md is None:
        return
    meta_text = _read(base / "memory-review" / "pending.json", base)
    legacy_meta: dict[tuple[str, str], PendingItem] = {}
    if meta_text:
        try:
            raw = json.loads(meta_text)
            for item in raw.get("items", []) if isinstance(raw, dict) else []:
                if isinstance(item, dict) and isinstance(item.get("text"), str):
                    kind: dirs.Kind = "forget" if item.get("kind") == "forget" else "add"
                    legacy_meta[(kind, item["text"])] = PendingItem(
                        kind, item["text"], item.get("proposed_at"), item.get("session"), item.get("evidence")
                    )
        except (json.JSONDecodeError, AttributeError):
            pass  # metadata is optional: the checklist alone is enough
    ours_md = read_text(paths.pending_md)
    ours_lines = dirs.parse_checklist(ours_md) if ours_md is not None else []
    metadata = dirs.read_pending_metadata(paths.pending_json)
    known: set[tuple[str, str]] = {(line.kind, dedupe.fold(line.text)) for line in ours_lines}
    known |= {(d.kind, dedupe.fold(d.text)) for d in dirs.tombstones(paths.decisions)}
    active = {dedupe.fold(d.text) for d in dirs.read_directives(paths.directives)}
    added: list[PendingItem] = []
    for line in dirs.parse_checklist(md):
        key = (line.kind, dedupe.fold(line.text))
        if line.ticked or key in known or (line.kind == "add" and key[1] in active):
            continue
        known.add(key)
        meta = legacy_meta.get((line.kind, line.text))
        added.append(meta or PendingItem(line.kind, line.text, utc_now(), None, None))
    if not added:
        return
    text = ours_md if ours_md is not None else dirs.render_checklist([])
    if not text.endswith("\n"):
        text += "\n"
    text += "".join(f"- [ ] {item.label}\n" for item in added)
    # Checklist first, then metadata (see MemoryBatch.save_pending for why).
    atomic_write(paths.pending_md, text)
    atomic_write(paths.pending_json, dirs.render_pending_metadata(metadata + added))
    counts["pending"] = len(added)


def _migrate_decisions(paths: ProjectPaths, base: Path, counts: dict[str, int]) -> None:
    source = base / "memory-review" / "decisions.jsonl"
    if _read(source, base) is None:
        return
    seen = {(r.get("ts"), r.get("text"), r.get("status")) for r in iter_jsonl(paths.decisions)}
    added = 0
    for record in iter_jsonl(source):
        key = (record.get("ts"), record.get("text"), record.get("status"))
        if isinstance(record.get("text"), str) and key not in seen:
            seen.add(key)
            append_jsonl(paths.decisions, record)
            added += 1
    if added:
        counts["decisions"] = added


def _migrate_notes(paths: ProjectPaths, base: Path, counts: dict[str, int]) -> None:
    folder = base / "memory" / "notes"
    existing = notes_mod.list_notes(paths.notes)
    titles = {dedupe.fold(n.title) for n in existing}
    added = 0
    for entry in _entries(folder, base):
        if not entry.name.endswith(".md") or not entry.is_file(follow_symlinks=False):
            continue
        text = _read(folder / entry.name, base)
        if text is None:
            continue
        title = _legacy_title(text, entry.name)
        if dedupe.fold(title) in titles:
            continue
        try:
            frontmatter.parse(text)
        except frontmatter.FrontMatterError:
            # Keep the words, but in a file our reader accepts (a broken one would block every command).
            text = notes_mod.render_note(notes_mod.slugify(title), title, utc_now(), None, None, text)
        stem = notes_mod.slugify(entry.name[:-3], fallback="note")
        for attempt in range(1, 1000):
            name = stem if attempt == 1 else f"{stem}-{attempt}"
            if create_exclusive(paths.notes / f"{name}.md", text):
                break
        titles.add(dedupe.fold(title))
        added += 1
    if added:
        counts["notes"] = added


def _legacy_title(text: str, name: str) -> str:
    try:
        fields, body = frontmatter.parse(text)
    except frontmatter.FrontMatterError:
        return name[:-3]
    first = body.lstrip("\n").partition("\n")[0]
    return fields.get("title") or (first[2:].strip() if first.startswith("# ") else name[:-3])


def _migrate_drafts(paths: ProjectPaths, base: Path, counts: dict[str, int]) -> None:
    folder = base / "self-evolve" / "drafts"
    added = 0
    for entry in _entries(folder, base):
        if not entry.is_dir(follow_symlinks=False):
            continue
        text = _read(folder / entry.name / "SKILL.md", base)
        slug = notes_mod.slugify(entry.name, fallback="")
        if text is None or not slug:
            continue
        if create_exclusive(paths.drafts / slug / "SKILL.md", text):
            added += 1
    if added:
        counts["drafts"] = added


def migrate_legacy(paths: ProjectPaths) -> dict[str, int] | None:
    """Merge `.oh-my-copilot/` into `.omp/` once. Call under the project lock.

    Returns what was taken ({"pending": 3, "notes": 2, ...}), or None when there was nothing to do.
    """
    if not needs_migration(paths):
        return None
    base = paths.legacy_state
    counts: dict[str, int] = {}
    _migrate_directives(paths, base, counts)
    _migrate_decisions(paths, base, counts)  # before pending: dismissed items stay dismissed
    _migrate_pending(paths, base, counts)
    _migrate_notes(paths, base, counts)
    _migrate_drafts(paths, base, counts)
    atomic_write_json(marker_path(paths), {"migrated_at": utc_now(), "source": str(base), "counts": counts})
    return counts
