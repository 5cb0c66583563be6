"""Copilot's sessionStart / sessionEnd hooks: the fast path (SPEC §9.2, §9.3, §12).

    python -m omp.hooks session-start   <  {"sessionId", "cwd", "source", ...}
    python -m omp.hooks session-end     <  {"sessionId", "cwd", "reason", ...}

Copilot runs these around every session, so they must be quick and must never break one:
- stdout is always one JSON object (`{}` when there is nothing to say) and the exit status is
  always 0, whatever arrives on stdin; a problem is one line on stderr and in `G/logs/hooks.log`;
- the review itself never runs here: sessionEnd detaches `omp memory-review` (omp.detach) and
  returns, so Copilot exits at once while the review goes on;
- a reviewer's own Copilot session (`OMP_REVIEWER` set, or `OMP_MEMORY_MODE=off`) gets
  nothing: no review, no context;
- sessionStart's nudge names what waits for the user (pending proposals, skill drafts, failed
  or queued reviews) and asks the model to pass it on, since the user never sees it; and it
  brings the instruction file to what the mode demands when it is out of step (an old block in
  `hook` mode, a block another tool rewrote in `block` mode), at the cost of one read or stat.

Why this module re-reads a few things itself: SPEC §12 allows the sessionEnd hook 25 ms over a
bare `python -c pass`. Importing omp.config / omp.paths / omp.memory costs several times that
(dataclasses pulls in inspect, fsio pulls in tempfile, the stores pull in datetime and
unicodedata). So the hot path imports only `os` and `sys`, and carries small readers for
exactly what it needs — project root, `memory-mode` / `memory-inject`, the session id check,
the pending count — and a small JSON reader and writer: `import json` alone (json.decoder
imports re, re imports enum, ...) costs most of the budget on a modest machine. Each one is tested for agreement with the library function it stands
in for (tests/test_hooks.py), and anything unusual (a value it does not recognise, a file that
does not parse) is handed to the library itself, so errors are reported the library's way.

The project's `.omp/config.json` counts only when trusted (omp.trust, SPEC §3.1): its sha256 must
be the one `G/trust.json` records for this project. That costs one small builtin hash module,
and only when the project has a config file; an untrusted file is never parsed, and
sessionStart says in one line that it is ignored.

Hooks act only inside a git repository, and sessionEnd only for a session whose
`events.jsonl` is a regular file: a hook never creates anything anywhere else (SPEC §9.2).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only; importing typing costs start-up time
    from typing import Any, Mapping

MAX_PAYLOAD_BYTES = 1 << 20
NUDGE = "[MEMORY REVIEW] {n} proposed directive(s) await your review — run omp project-memory pending"
STATE_DIR = ".omp"

_ID_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_ID_REST = _ID_FIRST | frozenset("._-")


class HookResult:
    """What a hook prints, and what it did (for logs and tests)."""

    __slots__ = ("output", "action")

    def __init__(self, output: dict[str, Any], action: str) -> None:
        self.output = output
        self.action = action

    def __repr__(self) -> str:
        return f"HookResult({self.output!r}, {self.action!r})"


# ---------------------------------------------------------------------------------------------
# JSON without importing json (see the module docstring). Anything the small reader does not
# accept is handed to the json module, so the result is always what json.loads would return.


class _NotJSON(ValueError):
    pass


_WS = " \t\n\r"
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_DIGITS = "0123456789"
_NUMBER_CHARS = frozenset("+-.eE" + _DIGITS)


def loads(text: str) -> Any:
    """json.loads(text), mostly without the json module."""
    try:
        value, end = _value(text, _skip(text, 0))
        if _skip(text, end) != len(text):
            raise _NotJSON("extra data")
        return value
    except (_NotJSON, IndexError):
        import json  # the exact verdict (and NaN, Infinity, …) comes from the real parser

        return json.loads(text)


def _skip(s: str, i: int) -> int:
    while i < len(s) and s[i] in _WS:
        i += 1
    return i


def _value(s: str, i: int) -> tuple[Any, int]:
    c = s[i]
    if c == '"':
        return _string(s, i + 1)
    if c == "{":
        return _object(s, i + 1)
    if c == "[":
        return _array(s, i + 1)
    for word, value in (("true", True), ("false", False), ("null", None)):
        if s.startswith(word, i):
            return value, i + len(word)
    return _number(s, i)


def _string(s: str, i: int) -> tuple[str, int]:
    parts: list[str] = []
    while True:
        quote = s.find('"', i)
        if quote < 0:
            raise _NotJSON("unterminated string")
        slash = s.find("\\", i, quote)
        chunk = s[i : quote if slash < 0 else slash]
        if any(ch < " " for ch in chunk):
            raise _NotJSON("control character in string")
        parts.append(chunk)
        if slash < 0:
            return "".join(parts), quote + 1
        kind = s[slash + 1]
        if kind in _ESCAPES:
            parts.append(_ESCAPES[kind])
            i = slash + 2
            continue
        if kind != "u":
            raise _NotJSON("bad escape")
        code = _hex4(s, slash + 2)
        i = slash + 6
        if 0xD800 <= code < 0xDC00 and s.startswith("\\u", i):
            low = _hex4(s, i + 2)
            if 0xDC00 <= low < 0xE000:
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                i += 6
        parts.append(chr(code))


def _hex4(s: str, i: int) -> int:
    digits = s[i : i + 4]
    if len(digits) != 4 or any(ch not in "0123456789abcdefABCDEF" for ch in digits):
        raise _NotJSON("bad \\u escape")
    return int(digits, 16)


def _number(s: str, i: int) -> tuple[int | float, int]:
    end = i
    while end < len(s) and s[end] in _NUMBER_CHARS:
        end += 1
    token = s[i:end]
    body = token[1:] if token.startswith("-") else token
    mantissa, _, exponent = body.replace("E", "e").partition("e")
    whole, dot, fraction = mantissa.partition(".")
    if (
        not whole or any(ch not in _DIGITS for ch in whole) or (len(whole) > 1 and whole[0] == "0")
        or (dot and (not fraction or any(ch not in _DIGITS for ch in fraction)))
        or ("e" in body.replace("E", "e") and not _exponent_ok(exponent))
    ):
        raise _NotJSON("bad number")
    if dot or "e" in body.replace("E", "e"):
        return float(token), end
    return int(token), end


def _exponent_ok(exponent: str) -> bool:
    digits = exponent[1:] if exponent[:1] in ("+", "-") else exponent
    return bool(digits) and all(ch in _DIGITS for ch in digits)


def _object(s: str, i: int) -> tuple[dict[str, Any], int]:
    result: dict[str, Any] = {}
    i = _skip(s, i)
    if s[i] == "}":
        return result, i + 1
    while True:
        if s[i] != '"':
            raise _NotJSON("expected a key")
        key, i = _string(s, i + 1)
        i = _skip(s, i)
        if s[i] != ":":
            raise _NotJSON("expected ':'")
        result[key], i = _value(s, _skip(s, i + 1))
        i = _skip(s, i)
        if s[i] == "}":
            return result, i + 1
        if s[i] != ",":
            raise _NotJSON("expected ',' or '}'")
        i = _skip(s, i + 1)


def _array(s: str, i: int) -> tuple[list[Any], int]:
    result: list[Any] = []
    i = _skip(s, i)
    if s[i] == "]":
        return result, i + 1
    while True:
        value, i = _value(s, i)
        result.append(value)
        i = _skip(s, i)
        if s[i] == "]":
            return result, i + 1
        if s[i] != ",":
            raise _NotJSON("expected ',' or ']'")
        i = _skip(s, i + 1)


def dumps(value: Any) -> str:
    """json.dumps for what the hooks print (objects of strings), ASCII-only; else the json module.

    ASCII with \\u escapes is valid JSON whatever encoding the hook's stdout has (a Windows
    pipe is not UTF-8).
    """
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return "{" + ", ".join(f"{_quote(k)}: {_quote(v)}" for k, v in value.items()) + "}"
    import json

    return json.dumps(value)


def _quote(text: str) -> str:
    out = ['"']
    for ch in text:
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif " " <= ch <= "~":
            out.append(ch)
        elif ch in "\n\r\t\b\f":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}[ch])
        else:
            code = ord(ch)
            if code > 0xFFFF:  # a surrogate pair, as json.dumps writes it
                code -= 0x10000
                out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
            else:
                out.append(f"\\u{code:04x}")
    out.append('"')
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# input


def read_payload(stream: Any) -> dict[str, Any]:
    """The hook's JSON object from stdin; {} for anything else (empty, garbage, a terminal)."""
    if stream is None:
        return {}
    try:
        if stream.isatty():
            return {}
        source = getattr(stream, "buffer", stream)
        raw = source.read(MAX_PAYLOAD_BYTES)
    except (OSError, ValueError, AttributeError):
        return {}
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    try:
        value = loads(raw) if raw and raw.strip() else {}
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def session_id_of(payload: Mapping[str, Any]) -> str | None:
    """camelCase `sessionId` (Copilot configs) or snake_case `session_id` (Claude-style ones)."""
    value = payload.get("sessionId", payload.get("session_id"))
    return value if isinstance(value, str) else None


def cwd_of(payload: Mapping[str, Any], env: Mapping[str, str]) -> str | None:
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and cwd:
        return cwd
    # A plugin hook runs in the plugin's folder, never the project's: only Copilot's own
    # variable can stand in for a missing `cwd`.
    return env.get("COPILOT_PROJECT_DIR") or None


def is_reviewer_session(env: Mapping[str, str]) -> bool:
    return bool(env.get("OMP_REVIEWER", "").strip()) or env.get("OMP_MEMORY_MODE", "").strip().lower() == "off"


def is_valid_session_id(value: str) -> bool:
    """Same rule as omp.paths.is_valid_session_id, without importing re."""
    return (
        0 < len(value) <= 128
        and value[0] in _ID_FIRST
        and all(ch in _ID_REST for ch in value)
        and ".." not in value
    )


# ---------------------------------------------------------------------------------------------
# project and settings (light readers; see the module docstring)


def _home() -> str:
    return os.environ.get("HOME") or os.path.expanduser("~")


def _same(a: str, b: str) -> bool:
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except OSError:
        return False


def git_project_root(cwd: str | None) -> str | None:
    """The git repository around `cwd`, for the hooks: None outside one (SPEC §9.2).

    A hook never creates anything in a folder that is not inside a git repository: Copilot can
    run anywhere (`/`, the home folder, a downloads folder), and a global memory-mode must not
    scatter `.omp/` folders over all of them.
    """
    root = project_root(cwd)
    if root is None or not os.path.exists(os.path.join(root, ".git")):
        return None
    return root


def project_root(cwd: str | None) -> str | None:
    """omp.paths.find_project_root as if omp were started in `cwd`; None when it would refuse.

    Not an explicit `--root`: the home folder never silently becomes a project.
    """
    if not cwd:
        return None
    try:
        base = os.path.realpath(os.path.expanduser(cwd))
    except (OSError, ValueError):
        return None
    if not os.path.isdir(base):
        return None
    home = _home()
    candidate = base
    while True:
        if os.path.exists(os.path.join(candidate, ".git")):
            return None if _same(candidate, home) else candidate
        parent = os.path.dirname(candidate)
        if parent == candidate:
            break
        candidate = parent
    return None if _same(base, home) else base


class _Unsure(Exception):
    """The light reader met something only the library can judge (bad value, bad file)."""


def _read_regular(path: str) -> bytes | None:
    """omp.trust.read_regular: the bytes, None when missing; never blocks on a FIFO."""
    import stat  # already loaded by os: free

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        chunks: list[bytes] = []
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)


def _parse_layer(path: str, raw: bytes) -> dict[str, Any]:
    try:
        data = loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        raise _Unsure(path) from None
    if not isinstance(data, dict):
        raise _Unsure(path)
    return data


def _config_layer(path: str) -> dict[str, Any]:
    try:
        raw = _read_regular(path)
    except FileNotFoundError:
        return {}
    except OSError:
        raise _Unsure(path) from None
    return {} if raw is None else _parse_layer(path, raw)


def _sha256(raw: bytes) -> str:
    # The builtin module is a third of hashlib's import time (hashlib loads OpenSSL).
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]  # Python <= 3.11
    except ImportError:
        try:
            from _sha2 import sha256  # type: ignore[import-not-found, no-redef]  # Python >= 3.12
        except ImportError:
            from hashlib import sha256  # type: ignore[assignment]
    return str(sha256(raw).hexdigest())


def _is_trusted(root: str, raw: bytes) -> bool:
    """omp.trust's verdict: are these the bytes G/trust.json records for this project?"""
    try:
        store = _read_regular(os.path.join(_global_home(), "trust.json"))
        data = loads(store.decode("utf-8")) if store else {}
    except (OSError, ValueError, RecursionError):
        return False  # a trust file that cannot be read trusts nothing
    projects = data.get("projects") if isinstance(data, dict) else None
    entry = projects.get(os.path.realpath(root)) if isinstance(projects, dict) else None
    if not isinstance(entry, dict):
        return False
    found = _sha256(raw)
    return found == entry.get("sha256") or found == entry.get("previous")


def _project_layer(root: str) -> tuple[dict[str, Any], bool]:
    """The project config when trusted, else {} — and whether an untrusted one was ignored.

    The untrusted file is never parsed: whatever it holds cannot make the hook misbehave.
    """
    path = os.path.join(root, STATE_DIR, "config.json")
    try:
        raw = _read_regular(path)
    except FileNotFoundError:
        return {}, False
    except OSError:
        return {}, True  # not a regular file (or unreadable): ignored, like the library does
    if raw is None:
        return {}, False
    if not _is_trusted(root, raw):
        return {}, True
    return _parse_layer(path, raw), False


def _global_home() -> str:
    explicit = os.environ.get("OMP_HOME")
    return os.path.expanduser(explicit) if explicit else os.path.join(_home(), ".omp")


_CHOICES = {"memory-mode": ("on", "off"), "memory-inject": ("block", "hook")}
_DEFAULTS = {"memory-mode": "off", "memory-inject": "block"}


IGNORED = "project-config-ignored"  # settings_for's flag: an untrusted project config was ignored


def _light_settings(root: str, env: Mapping[str, str]) -> dict[str, Any]:
    layers: list[dict[str, Any]] | None = None
    values: dict[str, Any] = {}
    project, values[IGNORED] = _project_layer(root)
    for name, choices in _CHOICES.items():
        raw = env.get("OMP_" + name.upper().replace("-", "_"))
        if raw is not None and raw.strip():
            value = raw.strip().lower()
            if value not in choices:
                raise _Unsure(name)
            values[name] = value
            continue
        if layers is None:
            layers = [project, _config_layer(os.path.join(_global_home(), "config.json"))]
        values[name] = _DEFAULTS[name]
        for data in layers:
            stored = data.get(name)
            if stored is None:
                continue
            if not isinstance(stored, str) or stored.strip().lower() not in choices:
                raise _Unsure(name)
            values[name] = stored.strip().lower()
            break
    return values


def settings_for(root: str, env: Mapping[str, str]) -> dict[str, Any] | None:
    """`memory-mode` and `memory-inject` (env › trusted project › global › default), and
    `IGNORED`: whether an untrusted project config was left out; None if unreadable."""
    try:
        return _light_settings(root, env)
    except _Unsure:
        pass
    # Let the library judge (and word the error); the hook then stays quiet.
    from omp.config import resolve
    from omp.errors import OmpError
    from omp.paths import ProjectPaths
    from omp.trust import check

    try:
        paths = ProjectPaths(_as_path(root))
        settings: dict[str, Any] = {name: setting.value for name, setting in resolve(paths).items()}
        verdict = check(paths)
        settings[IGNORED] = bool(verdict and verdict.ignored)
        return settings
    except OmpError as exc:
        _problem(f"config: {exc.message}")
        return None


def _as_path(text: str) -> Any:
    from pathlib import Path

    return Path(text)


def pending_count(root: str) -> int:
    """Open (unticked) items of the pending checklist — omp.memory.directives.count_open's rule."""
    path = os.path.join(root, STATE_DIR, "memory-review", "pending-directives.md")
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8")
    except FileNotFoundError:
        return 0
    except (OSError, UnicodeDecodeError) as exc:
        _problem(f"pending queue {path}: {exc}")
        return 0
    if "[" not in text:
        return 0
    seen: set[tuple[bool, str, bool]] = set()
    count = 0
    for raw in text.splitlines():
        item = _checklist_item(raw)
        if item is None or not item[1]:
            continue
        ticked, body = item
        removal = body[:6].lower() == "forget" and body[6:].lstrip().startswith(":")
        item_text = body[6:].lstrip()[1:].strip() if removal else body
        if not item_text:
            continue
        key = (removal, item_text, ticked)
        if key in seen:
            continue
        seen.add(key)
        count += 0 if ticked else 1
    return count


def _checklist_item(raw: str) -> tuple[bool, str] | None:
    """(ticked, text) of a `- [ ] text` line, read as omp.memory.directives' pattern reads it:
    up to 12 spaces, a `-`/`*`/`+` bullet, `[ ]`/`[]`/`[x]`/`[X]`, the rest stripped."""
    stripped = raw.lstrip()
    if len(raw) - len(stripped) > 12 or stripped[:1] not in ("-", "*", "+"):
        return None
    rest = stripped[1:].lstrip()
    if rest[:2] == "[]":
        return False, rest[2:].strip()
    if rest[:1] == "[" and rest[1:2] in (" ", "x", "X") and rest[2:3] == "]":
        return rest[1] != " ", rest[3:].strip()
    return None


class QueueSummary:
    """The retry queue at a glance: how many sessions, whether one is due, the newest error."""

    __slots__ = ("count", "due", "last_error")

    def __init__(self, count: int, due: bool, last_error: str) -> None:
        self.count = count
        self.due = due
        self.last_error = last_error


def queue_summary(root: str, now: float | None = None) -> QueueSummary:
    """One pass over `R/.omp/memory-review/queue/` (small files, a handful at most)."""
    folder = os.path.join(root, STATE_DIR, "memory-review", "queue")
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".json") and not n.startswith(".")]
    except OSError:
        return QueueSummary(0, False, "")
    if not names:
        return QueueSummary(0, False, "")
    import time

    now = time.time() if now is None else now
    due, newest, last_error = False, -1.0, ""
    for name in names:
        try:
            with open(os.path.join(folder, name), "rb") as handle:
                entry = loads(handle.read().decode("utf-8"))
            next_try = entry.get("next_try_at", 0)
            if not isinstance(next_try, (int, float)) or next_try <= now:
                due = True
            updated = entry.get("updated_at", 0)
            error = entry.get("last_error")
            if isinstance(updated, (int, float)) and updated > newest and isinstance(error, str):
                newest, last_error = float(updated), error
        except (OSError, ValueError, AttributeError):
            due = True  # unreadable: the sweep deals with it
    return QueueSummary(len(names), due, last_error)


def queue_due(root: str, now: float | None = None) -> bool:
    """Is a queued session due for its retry? (Entries still backing off wait for later.)"""
    return queue_summary(root, now).due


def draft_count(root: str) -> int:
    """Skill drafts waiting for promotion (`R/.omp/self-evolve/drafts/<slug>/SKILL.md`)."""
    folder = os.path.join(root, STATE_DIR, "self-evolve", "drafts")
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    return sum(1 for n in names if not n.startswith(".") and os.path.isfile(os.path.join(folder, n, "SKILL.md")))


DRAFTS_NUDGE = "[MEMORY REVIEW] {n} skill draft(s) await promotion — run omp project-memory drafts"
FAILED_NUDGE = "[MEMORY REVIEW] {n} review(s) failed: {why} — run omp doctor (queued; retried automatically)"
MENTION_ONCE = ("(omp, the user's memory plugin, wrote the line(s) above for the user, who cannot see them: "
                "mention them once, in one short sentence, at the start of your first reply.)")


def nudge_lines(root: str, queued: QueueSummary | None = None) -> list[str]:
    """What the sessionStart nudge says: pending proposals, skill drafts, failed reviews.

    (One line each; more kinds — an ignored, untrusted project config — join the same list.)
    """
    lines: list[str] = []
    pending = pending_count(root)
    if pending:
        lines.append(NUDGE.format(n=pending))
    drafts = draft_count(root)
    if drafts:
        lines.append(DRAFTS_NUDGE.format(n=drafts))
    queued = queue_summary(root) if queued is None else queued
    if queued.count:
        why = (queued.last_error.split(": ", 1)[0] or "reviewer unavailable")[:120]
        lines.append(FAILED_NUDGE.format(n=queued.count, why=why))
    return lines


CONTEXT_CACHE = os.path.join(STATE_DIR, "state", "hook-context.txt")
_CACHE_HEADER = "omp hook context v1"


def _stat_key(path: str) -> list[Any]:
    try:
        info = os.stat(path)
    except OSError:
        return [path, None]
    return [path, info.st_mtime_ns, info.st_size]


def context_fingerprint(root: str, env: Mapping[str, str]) -> str:
    """Everything the managed block's content depends on, as one string.

    The stores' files (active directives, project and global; every note), the config files
    and `OMP_MEMORY_*` variables (the caps), and the renderer itself. Stat calls only: cheap
    even with hundreds of notes.
    """
    state = os.path.join(root, STATE_DIR)
    g = _global_home()
    parts: list[Any] = [
        _stat_key(os.path.join(state, "project-memory.json")),
        _stat_key(os.path.join(g, "directives.json")),
        _stat_key(os.path.join(state, "config.json")),
        _stat_key(os.path.join(g, "config.json")),
        _stat_key(os.path.join(g, "trust.json")),  # decides whether the project's caps count
        _stat_key(os.path.join(os.path.dirname(__file__), "memory", "block.py")),
        sorted((k, v) for k, v in env.items() if k.startswith("OMP_MEMORY_")),
    ]
    notes: list[Any] = []
    try:
        with os.scandir(os.path.join(state, "memory", "notes")) as entries:
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


def memory_context(root: str, env: Mapping[str, str]) -> str:
    """The managed block's content, for memory-inject=hook.

    Rendering it (omp.memory.block.hook_context, which re-sanitises every text) imports most of
    the memory library: several times the hook's budget. So the rendered text is kept in
    `R/.omp/state/hook-context.txt` after the fingerprint of everything it was rendered from
    (a header line, the fingerprint line, then the text), and rendered again only when that
    fingerprint changes.
    """
    fingerprint = context_fingerprint(root, env)
    cache_path = os.path.join(root, CONTEXT_CACHE)
    try:
        with open(cache_path, "rb") as handle:
            header, stored, context = handle.read().decode("utf-8").split("\n", 2)
        if header == _CACHE_HEADER and stored == fingerprint:
            return context
    except (OSError, ValueError):
        pass
    if not os.path.isdir(os.path.join(root, STATE_DIR)):
        # No memory here yet, and a hook creates no `.omp/` just to cache that (SPEC §9.2).
        return ""
    try:
        return refresh_context_cache(root, env, fingerprint)
    except Exception as exc:
        _problem(f"memory block: {type(exc).__name__}: {exc}")
        return ""


def refresh_context_cache(root: str | os.PathLike[str], env: Mapping[str, str] | None = None,
                          fingerprint: str | None = None) -> str:
    """Render the block's content now and store it for the next sessionStart; returns it.

    Whoever changes memory in `memory-inject=hook` mode may call this afterwards, so that not
    even the first session after the change pays for rendering.
    """
    from omp.memory.block import hook_context
    from omp.paths import ProjectPaths

    root = os.fspath(root)
    env = os.environ if env is None else env
    fingerprint = fingerprint or context_fingerprint(root, env)
    context = hook_context(ProjectPaths(_as_path(root)))
    cache = os.path.join(root, CONTEXT_CACHE)
    real_root = os.path.realpath(root)
    if os.path.realpath(cache).startswith(real_root.rstrip(os.sep) + os.sep):  # never through a link out
        _write_cache(cache, f"{_CACHE_HEADER}\n{fingerprint}\n{context}")
    return context


def _write_cache(path: str, text: str) -> None:
    """Best effort, atomic (temp file + replace): a reader sees the old cache or the new one."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


# ---------------------------------------------------------------------------------------------
# convergent sync at session start (SPEC §7.3): the instruction file is brought to what the mode
# demands even when nothing ran `omp memory sync` — a global switch to `hook` mode, or another
# tool (Copilot's `/chronicle improve`) rewriting the file. The checks are one read and one stat;
# the library (heavy to import) runs only when something is off.

BLOCK_START = "<!-- omp:memory:start -->"  # omp.memory.block.START_MARKER (tests check they agree)
BLOCK_RECORD = os.path.join(STATE_DIR, "state", "managed-block.json")  # omp.memory.block.BLOCK_RECORD
INSTRUCTIONS = os.path.join(".github", "copilot-instructions.md")


def instructions_out_of_step(root: str, inject: str) -> bool:
    """Does the project's instruction file need a sync? `hook` mode: it still holds omp's block.
    `block` mode: it changed since omp last wrote it (the record's stat differs)."""
    path = os.path.join(root, INSTRUCTIONS)
    if inject == "hook":
        try:
            with open(path, "rb") as handle:
                return BLOCK_START.encode() in handle.read(1 << 20)
        except OSError:
            return False
    try:
        with open(os.path.join(root, BLOCK_RECORD), "rb") as handle:
            record = loads(handle.read().decode("utf-8"))
        stored = record.get("stat") if isinstance(record, dict) else None
    except (OSError, ValueError, UnicodeDecodeError):
        return False  # omp never wrote a block here (or an older omp did): nothing to compare
    try:
        info = os.stat(path)
    except OSError:
        return True  # omp wrote the file and it is gone
    return stored != [info.st_mtime_ns, info.st_size]


def converge_instructions(root: str, inject: str) -> str:
    """Sync when the file is out of step; returns what happened, for the action string."""
    if not instructions_out_of_step(root, inject):
        return ""
    try:
        from omp.memory.block import sync_block
        from omp.paths import ProjectPaths

        result = sync_block(ProjectPaths(_as_path(root)))
    except Exception as exc:  # a broken marker, say: the library's message names the line
        message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        _problem(f"instruction file: {message}")
        return ", sync failed"
    for line in result.repaired:
        _problem(line)
    return ", instructions synced"


# ---------------------------------------------------------------------------------------------
# the two hooks


UNTRUSTED_NUDGE = "[MEMORY REVIEW] this project's .omp/config.json is ignored (not trusted) — review it, then run omp trust"


# When memory mode was turned on for a project (SPEC §5 `--sweep`): a sweep reviews only sessions
# that ended after it, since each older one is a billed model call the user never asked for.
# Written by `omp config set memory-mode on`, else the first time a hook (or a sweep) sees the
# mode on; never moved later once written.
MEMORY_ON_FILE = os.path.join(STATE_DIR, "state", "memory-on-since")


def memory_on_since(root: str) -> float | None:
    """The recorded time (epoch seconds), or None if none is recorded."""
    try:
        with open(os.path.join(root, MEMORY_ON_FILE), "rb") as handle:
            return float(handle.read().decode("ascii").split()[0])
    except (OSError, ValueError, IndexError, UnicodeDecodeError):
        return None


def state_inside_project(root: str) -> bool:
    """Does `R/.omp/state` really lie inside R? (A `.omp` or `state` linked out of the project gets
    nothing from a hook; the library's `fsio.confine` is the same rule for everything else.)"""
    real_root = os.path.realpath(root).rstrip(os.sep) + os.sep
    return os.path.realpath(os.path.join(root, STATE_DIR, "state")).startswith(real_root)


def note_memory_on(root: str, when: float | None = None) -> float:
    """Record that memory mode is on now, unless a time is recorded already; returns the time."""
    recorded = memory_on_since(root)
    if recorded is not None:
        return recorded
    import time

    when = time.time() if when is None else when
    # Never the first thing written into R/.omp, and never through a `.omp` linked out of R.
    if os.path.isdir(os.path.join(root, STATE_DIR)) and state_inside_project(root):
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(when))
        _write_cache(os.path.join(root, MEMORY_ON_FILE), f"{when!r} {stamp}\n")
    return when


def _memory_project(payload: Mapping[str, Any], env: Mapping[str, str]) -> tuple[str, dict[str, Any]] | HookResult:
    """The git project and its settings when memory-mode is on there; otherwise why not."""
    root = git_project_root(cwd_of(payload, env))
    if root is None:
        return HookResult({}, "no git project")
    settings = settings_for(root, env)
    if settings is None:
        return HookResult({}, "memory-mode off")
    if settings["memory-mode"] != "on":
        return HookResult(_untrusted_output(settings), "memory-mode off")
    if not os.path.exists(os.path.join(root, MEMORY_ON_FILE)):
        note_memory_on(root)
    return root, settings


def _untrusted_output(settings: Mapping[str, Any]) -> dict[str, Any]:
    return {"additionalContext": UNTRUSTED_NUDGE} if settings.get(IGNORED) else {}


# Copilot 1.0.102 sometimes runs sessionEnd a moment before the session's events.jsonl exists
# (seen under load in the real-CLI e2e tests). When the session's folder is there, the log is
# on its way: wait this long for it, polling. A run that failed before its first turn fires no
# hook at all (COPILOT.md §3), so the wait is paid only in that race.
EVENTS_WAIT_SECONDS = 2.0
_EVENTS_POLL_SECONDS = 0.02


def session_events(session_id: str, wait: float = EVENTS_WAIT_SECONDS) -> str | None:
    """`C/session-state/<id>/events.jsonl` when it is a regular file (never opened here)."""
    import stat  # already loaded by os: free

    explicit = os.environ.get("COPILOT_HOME")
    home = os.path.expanduser(explicit) if explicit else os.path.join(_home(), ".copilot")
    folder = os.path.join(home, "session-state", session_id)
    path = os.path.join(folder, "events.jsonl")
    deadline: float | None = None
    while True:
        try:
            return path if stat.S_ISREG(os.stat(path).st_mode) else None  # a FIFO or device: never
        except FileNotFoundError:
            if not os.path.isdir(folder):
                return None  # no such session at all
        except (OSError, ValueError):
            return None
        import time

        now = time.monotonic()
        deadline = now + wait if deadline is None else deadline
        if now >= deadline:
            return None
        time.sleep(_EVENTS_POLL_SECONDS)


def session_end(payload: Mapping[str, Any], env: Mapping[str, str]) -> HookResult:
    """Detach `omp memory-review --session ID --root R` when memory-mode is on."""
    if is_reviewer_session(env):
        return HookResult({}, "reviewer session")
    session_id = session_id_of(payload)
    if not session_id or not is_valid_session_id(session_id):
        return HookResult({}, "no valid session id")
    found = _memory_project(payload, env)
    if isinstance(found, HookResult):
        return HookResult({}, found.action)  # sessionEnd output is not shown to anyone
    root, _ = found
    if session_events(session_id) is None:
        # Nothing to review (the run failed before its first turn, or the "log" is a FIFO or
        # a device): start nothing, create nothing (SPEC §9.2).
        return HookResult({}, "no events.jsonl")
    from omp.detach import start_review

    start_review(root, session_id)
    return HookResult({}, "review started")


def session_start(payload: Mapping[str, Any], env: Mapping[str, str]) -> HookResult:
    """The pending nudge (and, with memory-inject=hook, the managed block's content)."""
    if is_reviewer_session(env):
        return HookResult({}, "reviewer session")
    found = _memory_project(payload, env)
    if isinstance(found, HookResult):
        return found
    root, settings = found
    swept = ""
    queued = queue_summary(root)
    if queued.due:
        from omp.detach import start_sweep

        start_sweep(root)
        swept = ", sweep started"
    swept += converge_instructions(root, settings["memory-inject"])
    parts: list[str] = []
    if settings["memory-inject"] == "hook":
        block = memory_context(root, env)
        if block:
            parts.append(block)
    nudges = nudge_lines(root, queued)
    if settings.get(IGNORED):
        nudges.append(UNTRUSTED_NUDGE)
    if nudges:
        parts.append("\n".join(nudges + [MENTION_ONCE]))
    if not parts:
        return HookResult({}, "nothing to say" + swept)
    return HookResult({"additionalContext": "\n\n".join(parts)}, "context" + swept)


# ---------------------------------------------------------------------------------------------
# entry point

EVENTS = {"session-start": session_start, "session-end": session_end}


def _problem(message: str) -> None:
    """One line on stderr and in G/logs/hooks.log; never on stdout, never a traceback."""
    line = f"omp hook: {message}".replace("\n", " ")[:500]
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
    try:
        import time

        folder = os.path.join(_global_home(), "logs")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "hooks.log"), "a", encoding="utf-8") as handle:
            handle.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')} {line}\n")
    except Exception:
        pass


def run(event: str, stdin: Any, env: Mapping[str, str]) -> HookResult:
    handler = EVENTS.get(event)
    if handler is None:
        _problem(f"unknown hook event {event!r} (expected session-start or session-end)")
        return HookResult({}, "unknown event")
    try:
        return handler(read_payload(stdin), env)
    except Exception as exc:  # a hook must never break the session it runs in
        _problem(f"{event} failed: {type(exc).__name__}: {exc}")
        return HookResult({}, "failed")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    result = run(args[0] if args else "", sys.stdin, os.environ)
    try:
        sys.stdout.write(dumps(result.output) + "\n")
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
