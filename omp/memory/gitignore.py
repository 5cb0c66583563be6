"""The `.gitignore` managed block (docs/writes-and-undo.md#leftovers-of-killed-runs): added once, when omp first creates `R/.omp`."""

from __future__ import annotations

from pathlib import Path

from omp.fsio import atomic_write, confine, read_text

BLOCK_START = "# >>> omp (managed) >>>"
BLOCK_END = "# <<< omp (managed) <<<"
IGNORED = (".omp/", ".oh-my-copilot/")


def ensure_gitignore_block(root: Path) -> bool:
    """Append the block to `root/.gitignore` unless it is already there. Returns True if written.

    Only for git projects: a plain folder gets no `.gitignore` it never asked for.
    """
    if not (root / ".git").exists():
        return False
    path = root / ".gitignore"
    confine(path, root)  # before reading: bytes from outside must never be copied in
    text = read_text(path) or ""
    if BLOCK_START in text:
        return False
    block = "\n".join((BLOCK_START, *IGNORED, BLOCK_END)) + "\n"
    if text and not text.endswith("\n"):
        text += "\n"
    atomic_write(path, text + ("\n" if text else "") + block, within=root)
    return True
