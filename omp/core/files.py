"""Reading a file that may be hostile, and writing a small one atomically, with `os` only."""

from __future__ import annotations

import os
import stat


def read_regular(path: str | os.PathLike[str]) -> bytes | None:
    """The file's bytes; None when it does not exist. Never blocks (a FIFO is refused, not opened
    for a reader that would wait for a writer). Raises OSError for anything but a regular file."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{os.fspath(path)} is not a regular file")
        chunks: list[bytes] = []
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)


def write_best_effort(path: str, text: str | bytes) -> bool:
    """Write `text` (UTF-8, or bytes as they are) atomically (temp file + replace: a reader sees
    the old file or the new one), creating the folder; False when it could not be written. For
    caches and records whose loss costs only a recomputation (the library's `fsio.atomic_write`
    is for the stores)."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as handle:
            handle.write(text if isinstance(text, bytes) else text.encode("utf-8"))
        os.replace(tmp, path)
        return True
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
