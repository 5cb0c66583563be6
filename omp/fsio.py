"""Safe file I/O for every store: atomic replace, exclusive create, locks, strict reads.

Rules every store follows:
- a write goes to a temp file in the same folder, is fsynced, then `os.replace`d over the
  target, so a reader (or a crash) sees the old file or the new one, never half of one;
- a file that does not parse is reported with its path and line, and never rewritten;
- read-modify-write happens under the project lock, and the read happens *after* the lock is
  taken (lock, then re-check).

Standard library only. The hook fast path does not use it (its readers are omp.core's).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import time
from pathlib import Path
from typing import Any, Iterable, Iterator

from omp.errors import OmpError

LOCK_TIMEOUT_SECONDS = 120.0
_DEFAULT_MODE = 0o644


class OutsideProjectError(OmpError):
    """A write would follow a symbolic link out of the folder omp may write in. Nothing is written."""

    def __init__(self, path: Path, target: str, boundary: Path) -> None:
        super().__init__(
            f"refusing to write {path}: it leads through a symbolic link to {target}, outside {boundary}; "
            "nothing was written",
            f"replace the link at {path} (or the linked folder above it) with a real file or folder, or "
            f"point it at a place inside {boundary}, then run the command again",
        )
        self.path = path
        self.target = target


def confine(path: Path, boundary: Path) -> Path:
    """The real file a write to `path` lands in; OutsideProjectError if that is outside `boundary`.

    Every write under the project (or under C for the personal instructions file) goes through
    this, so a link of the file itself or of any folder above it can never carry omp's bytes out
    of the project, and a link that stays inside (`.github/copilot-instructions.md` →
    `../AGENTS.md`) is written in place, the link kept a link.
    """
    return _confined(path, boundary, os.path.realpath(boundary))


def confine_all(paths: Iterable[Path], boundary: Path) -> None:
    """`confine` each of `paths` (OutsideProjectError at the first that leads out), the
    boundary resolved once: a project's layout is checked before every locked write."""
    base = os.path.realpath(boundary)
    for path in paths:
        _confined(path, boundary, base)


def _confined(path: Path, boundary: Path, base: str) -> Path:
    real = os.path.realpath(path)
    if real != base and not real.startswith(base.rstrip(os.sep) + os.sep):
        raise OutsideProjectError(path, real, boundary)
    return Path(real)


class CorruptFileError(OmpError):
    """A file omp owns exists but cannot be parsed. It is left exactly as it is."""

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(
            f"{path} is not valid: {detail}",
            "fix the file by hand (or move it aside); omp never rewrites a file it cannot read",
        )
        self.path = path


# Whether a write waits for the disk. Always, but while `throwaway_writes` holds: a run whose
# every write goes to folders it removes when it ends (`omp eval`, `omp demo`), where a crash
# loses nothing worth keeping. Two fsyncs a write were a fifth of an eval's time.
_durability = {"fsync": True}


@contextlib.contextmanager
def throwaway_writes() -> Iterator[None]:
    """Inside the block, writes stay atomic (a temp file, then a rename) but are not fsynced.
    Only for a run that writes nothing but throwaway folders (omp.demo.isolated_environment)."""
    previous = _durability["fsync"]
    _durability["fsync"] = False
    try:
        yield
    finally:
        _durability["fsync"] = previous


def _fsync(fd: int) -> None:
    if _durability["fsync"]:
        os.fsync(fd)


def _fsync_dir(folder: Path) -> None:
    # Makes the rename itself durable; not possible on every platform, harmless to skip there.
    if not _durability["fsync"]:
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _target_mode(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return _DEFAULT_MODE & ~umask


# What tempfile.mkstemp does, without importing tempfile (and shutil, random, …): 5–7 ms of
# every omp process that loads this module, a hook's cold start and each CLI command included.
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)


# `.<target name>.<12 hex digits>.tmp`: the only names `_exclusive_temp` makes, so the sweep
# below removes omp's own leftovers and nothing a person put there.
_TEMP_SUFFIX_LEN = len(".0123456789ab.tmp")
TEMP_LEFTOVER_SECONDS = 600.0  # a write takes milliseconds; ten minutes old is a killed writer's


def is_temp_name(name: str) -> bool:
    """Is `name` one `_exclusive_temp` makes?"""
    if not (name.startswith(".") and name.endswith(".tmp")) or len(name) <= _TEMP_SUFFIX_LEN + 1:
        return False
    tag = name[-_TEMP_SUFFIX_LEN:]
    return tag[0] == "." and all(c in "0123456789abcdef" for c in tag[1:13])


def remove_leftover_temps(folder: Path, older_than: float = TEMP_LEFTOVER_SECONDS,
                          now: float | None = None, recursive: bool = True, skip: tuple[Path, ...] = ()) -> int:
    """Remove the temp files of atomic writes that were killed mid-write (`is_temp_name`, older
    than `older_than` seconds) in `folder` (and below, if `recursive`, but not in the folders
    `skip` names). Symbolic links are never followed (a linked folder is not walked, a link is
    never removed); nothing else is touched. Returns how many were removed."""
    skipped = {os.path.normpath(path) for path in skip}
    now = time.time() if now is None else now
    removed = 0
    if not os.path.isdir(folder) or os.path.islink(folder):
        return 0
    for current, dirs, files in os.walk(folder, followlinks=False):
        if not recursive:
            dirs.clear()
        dirs[:] = [name for name in dirs if os.path.normpath(os.path.join(current, name)) not in skipped]
        if os.path.normpath(current) in skipped:
            continue
        for name in files:
            if not is_temp_name(name):
                continue
            path = os.path.join(current, name)
            try:
                info = os.lstat(path)
                if stat.S_ISREG(info.st_mode) and now - info.st_mtime > older_than:
                    os.unlink(path)
                    removed += 1
            except OSError:
                continue  # gone meanwhile, or not ours to remove
    return removed


def _exclusive_temp(path: Path) -> tuple[int, str]:
    """A new file beside `path`, created here and nowhere else (O_EXCL, not through a link),
    open for writing, mode 0600 until the caller sets the target's."""
    for _ in range(100):
        name = os.path.join(path.parent, f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(name, _TEMP_FLAGS, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


@contextlib.contextmanager
def _naming(path: Path | str) -> Iterator[None]:
    """An OSError from writing to a descriptor (a full disk, say) names no file: give it
    `path`, so the message a user sees says where (omp.errors.storage_error)."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None and exc.errno is not None:
            raise OSError(exc.errno, exc.strerror or os.strerror(exc.errno), str(path)) from exc
        raise


def _write_temp_beside(path: Path, data: str | bytes) -> str:
    """A complete, fsynced temp file in `path`'s folder with `path`'s permission bits."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _target_mode(path)
    fd, tmp_name = _exclusive_temp(path)
    try:
        with _naming(tmp_name), os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            _fsync(handle.fileno())
        os.chmod(tmp_name, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    return tmp_name


PROBE_BYTES = 64 * 1024  # more than a review writes in one go (a claim, notes, a log line)


def probe_write(folder: Path, size: int = PROBE_BYTES) -> None:
    """Write and fsync `size` bytes in `folder`, then remove them at once: OSError (naming the
    file) when the folder cannot take omp's writes — read-only, not permitted, a full disk or
    quota. A review runs this before it calls a reviewer, so such a fault costs no model call."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, name = _exclusive_temp(folder / "omp-write-probe")
    try:
        with _naming(name), os.fdopen(fd, "wb") as handle:
            handle.write(bytes(size))
            handle.flush()
            _fsync(handle.fileno())  # a disk that is full may only show it when the blocks are allocated
    finally:
        with contextlib.suppress(OSError):
            os.unlink(name)


def atomic_write(path: Path, data: str | bytes, within: Path | None = None) -> None:
    """Replace `path` with `data` atomically, keeping the file's permission bits.

    `within`: the folder the write must stay in (`confine`); the real target is replaced, so a
    symbolic link inside it stays a link.
    """
    if within is not None:
        path = confine(path, within)
    tmp_name = _write_temp_beside(path, data)
    try:
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(path.parent)


def dump_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def atomic_write_json(path: Path, value: Any, within: Path | None = None) -> None:
    atomic_write(path, dump_json(value), within)


def create_exclusive(path: Path, data: str | bytes, within: Path | None = None) -> bool:
    """Create `path` only if it does not exist (O_EXCL). Returns False if it already existed.

    The content is written to a temp file first and then hard-linked into place, so the file
    appears complete or not at all (a crash can never leave a half-written claim or note).
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if within is not None:
        if os.path.lexists(path):
            return False  # a link (even a dangling one) is something that exists
        path = confine(path, within)
    tmp_name = _write_temp_beside(path, payload)
    try:
        try:
            os.link(tmp_name, path)
        except FileExistsError:
            return False
        except OSError:
            # File systems without hard links: fall back to O_EXCL + write.
            return _create_exclusive_direct(path, payload)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
    _fsync_dir(path.parent)
    return True


def _create_exclusive_direct(path: Path, payload: bytes) -> bool:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _DEFAULT_MODE)
    except FileExistsError:
        return False
    with _naming(path), os.fdopen(fd, "wb") as handle:
        handle.write(payload)
        handle.flush()
        _fsync(handle.fileno())
    return True


def read_text(path: Path) -> str | None:
    """The file's text, or None when it does not exist. Undecodable bytes are an error."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError as exc:
        raise CorruptFileError(path, "it is a folder, not a file") from exc
    return decode_text(path, raw)


def decode_text(path: Path, raw: bytes) -> str:
    """`raw` as UTF-8 text; CorruptFileError naming `path` when it is not."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorruptFileError(path, f"not UTF-8 text (byte {exc.start})") from exc


def parse_json(path: Path, text: str) -> Any:
    """`text` (read from `path`) as JSON; CorruptFileError naming the file and line when it is not."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CorruptFileError(path, f"line {exc.lineno}, column {exc.colno}: {exc.msg}") from exc
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise CorruptFileError(path, str(exc).split(";")[0]) from exc
    except RecursionError as exc:
        raise CorruptFileError(path, "nested too deeply") from exc


def expect_object(path: Path, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise CorruptFileError(path, f"expected a JSON object, found {type(value).__name__}")
    return value


def read_json(path: Path, default: Any = None) -> Any:
    """Parse a JSON file; `default` when it does not exist; CorruptFileError when it does not parse."""
    text = read_text(path)
    return default if text is None else parse_json(path, text)


def read_json_object(path: Path) -> dict[str, Any]:
    """A JSON file that must hold an object ({} when missing)."""
    return expect_object(path, read_json(path, default={}))


def iter_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """Objects of a JSON-lines file, skipping lines that do not parse (a torn last line)."""
    try:
        handle = path.open("r", encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return
    except IsADirectoryError as exc:
        raise CorruptFileError(path, "it is a folder, not a file") from exc
    with handle:
        for line in handle:
            line = line.strip()
            if not line:
                continue
            try:
                value = json.loads(line)
            except (ValueError, RecursionError):  # a torn line, a 5000-digit number, deep nesting
                continue
            if isinstance(value, dict):
                yield value


def append_line(path: Path, line: str, within: Path | None = None) -> None:
    """Append one line with a single write(2) on an O_APPEND descriptor.

    Appends of one short line from many processes interleave whole lines, never bytes, so logs
    and ledgers need no lock.
    """
    if within is not None:
        path = confine(path, within)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, _DEFAULT_MODE)
    try:
        with _naming(path):
            os.write(fd, data)
    finally:
        os.close(fd)


def append_jsonl(path: Path, record: dict[str, Any], within: Path | None = None) -> None:
    append_line(path, json.dumps(record, ensure_ascii=False, sort_keys=False), within)


# An exclusive lock held through an open descriptor: the kernel drops it when the holder exits
# or is killed, so a lock file left behind is never stale. POSIX: flock(2) on the whole file;
# Windows: msvcrt's lock on its first byte. (This replaced the filelock package: omp needs only
# this one lock, and filelock 4.x cost a review 25-35 ms to import, five dataclasses included.)
if sys.platform == "win32":  # (mypy reads sys.platform, not os.name)
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # EWOULDBLOCK: another process holds it
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

_LOCK_POLL_FIRST = 0.001  # seconds; the wait doubles up to _LOCK_POLL_MAX while the lock is busy
_LOCK_POLL_MAX = 0.05


@contextlib.contextmanager
def file_lock(lock_path: Path, what: str, timeout: float = LOCK_TIMEOUT_SECONDS) -> Iterator[None]:
    """Hold an OS-level lock (released by the kernel if the holder dies, so it never goes stale).

    Not re-entrant: a second `file_lock` on the same path in one process waits for the first.
    The lock file is opened without following a symbolic link (a link there raises OSError,
    and nothing is created where it points).
    """
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0),
                 _DEFAULT_MODE)
    try:
        deadline = time.monotonic() + timeout
        pause = _LOCK_POLL_FIRST
        while not _try_lock(fd):
            left = deadline - time.monotonic()
            if left <= 0:
                raise OmpError(
                    f"timed out after {timeout:.0f}s waiting for the {what} lock ({lock_path})",
                    "another omp process is still writing; try again when it has finished",
                )
            time.sleep(min(pause, left))
            pause = min(pause * 2, _LOCK_POLL_MAX)
        try:
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)
