"""Secrets found by *where they live*: the credential files an agent `cat`s or a user pastes, and
credentials told in prose (docs/secrets-and-poisoning.md).

A credential file says which of its values is secret by its layout, not by the value's look:
- a table's header row names its secret columns (the AWS console's `credentials.csv`:
  `User name,Password,Access key ID,Secret access key,Console login link`, then value rows);
  every cell under such a column is secret, whatever it looks like (the same for a Markdown table);
- `.npmrc`: `//registry/:_auth=<base64 user:password>`, `_authToken=`, `_password=`;
- kubeconfig: `client-key-data:` (a base64 private key; `client-certificate-data` is public);
- an INI file (`.pypirc`, AWS `credentials`, `.s3cfg`): `password = word` under a `[section]`
  is a literal, not code;
- `.netrc` across lines (`machine h` / `login u` / `password p`);
- `.pgpass`: `host:port:db:user:password`, one entry a line;
- a GCP service-account key's `private_key_id`;
- "log in with admin / S3cure!Pass", "credentials: root / Tr0ub4dor&3", "user deploy password …".

Each finder runs at a literal trigger of its own (swept with the others in one pass:
`omp.safety.secrets._trigger_hits`), except `.pgpass`, found from its `:port:` field.
Finders return `(kind, start, end)`.
"""

from __future__ import annotations

from typing import Callable, Iterator

from omp.lazyre import lazy
from omp.safety.named_values import looks_random

Found = tuple[str, int, int]


def _line_bounds(text: str, at: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, at) + 1
    stop = text.find("\n", at)
    return start, len(text) if stop < 0 else stop


def _is_placeholder(value: str) -> bool:
    value = value.strip().strip("\"'`")
    bare = value.rstrip(".,;")
    if "…" in value or not any(c.isalnum() for c in value):
        return True  # "password …", documentation
    return (not value or value[0] in "$<{%*" or value.lower() in ("none", "null", "xxx", "changeme", "redacted")
            or value.startswith("[REDACTED") or (bare.isalpha() and bare.isupper() and len(bare) <= 10))  # PW, PASSWORD


# --------------------------------------------------------------------------------------------
# Tables whose header names a secret column (CSV, TSV, Markdown)

_SECRET_COLUMN = lazy(r"(?i)(?:^|[\s_-])(?:password|passwd|pwd|passphrase|secret(?:[\s_-]*access)?[\s_-]*key|secret|token"
                      r"|api[\s_-]*key|private[\s_-]*key|auth[\s_-]*token|access[\s_-]*token|credentials?)$")
_HEADER_NAME = lazy(r"^[A-Za-z][A-Za-z0-9_\-./#]*(?: [A-Za-z0-9_\-./#]+){0,3}$")  # a name: four words at most
_NOT_A_HEADER = lazy(r"[(){}\[\]=:;<>]")  # code, JSON, prose with a colon: no header row
_MAX_ROWS = 200
_RULE_LINE = lazy(r"[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*\|")
_FOLDED_ROW = lazy(r"\|[ \t]+(?=\|)")


def _cells(line: str, separator: str) -> list[tuple[int, int]]:
    """(start, end) of each cell of a row, offsets in `line`, quotes and spaces trimmed."""
    spans = []
    position = 0
    body = line
    if separator == "|":
        body = line.rstrip()
        if body.startswith("|"):
            position = 1
        if body.endswith("|"):
            body = body[:-1]
    for part in body[position:].split(separator) if position < len(body) else []:
        start, end = position, position + len(part)
        while start < end and line[start] in " \t\"'`":
            start += 1
        while end > start and line[end - 1] in " \t\"'`\r":
            end -= 1
        spans.append((start, end))
        position += len(part) + 1
    return spans


def _row_bounds(text: str, at: int) -> tuple[int, int]:
    """A table row's bounds: a line, or a piece of one between "; " (how a stored line folds its
    line breaks: omp.memory.neutralise)."""
    start, stop = _line_bounds(text, at)
    fold = text.rfind("; ", start, at)
    start = start if fold < 0 else fold + 2
    fold = text.find("; ", at, stop)
    return start, stop if fold < 0 else fold


def table_findings(text: str, hit: int) -> Iterator[Found]:
    """At a secret word in a header row: every cell under each secret column, row after row."""
    start, stop = _row_bounds(text, hit)
    if stop - start > 2000:
        return
    # "here is the file: User name,Password,…": the header starts after the prose.
    lead = text.rfind(": ", start, hit)
    start = start if lead < 0 else lead + 2
    header = text[start:stop]
    if _NOT_A_HEADER.search(header):
        return
    separator = next((s for s in (",", "\t", "|") if header.count(s) >= (2 if s == "|" else 1)), None)
    if separator is None:
        return
    if separator == "|" and not header.lstrip().startswith("|"):
        start += header.index("|")  # "Deploy with | host | password |": the table starts at its pipe
        header = text[start:stop]
    folded: list[tuple[int, int]] = []
    if separator == "|":
        # "| h | password | |---|---| | v | pw |": a table whose rows were folded onto one line.
        joints = [(start + m.start() + 1, start + m.end()) for m in _FOLDED_ROW.finditer(header)]
        if joints:
            row_starts = [b for _, b in joints]
            row_stops = [a for a, _ in joints[1:]] + [stop]
            folded = list(zip(row_starts, row_stops))
            stop = joints[0][0]
            header = text[start:stop]
    columns = _cells(header, separator)
    if len(columns) < 2:
        return
    names = [header[a:b] for a, b in columns]
    # A header is names, not values or code: `password,secret = get()` is not one, nor a line of
    # a list (`"find_secrets",`: an empty last name).
    if not all(name and _HEADER_NAME.match(name) for name in names):
        return
    # A Markdown table's header is followed by its rule line (`|---|---|`).
    if separator == "|" and not folded and not _RULE_LINE.match(text, _next_row(text, stop)):
        return
    secret_columns = [i for i, name in enumerate(names) if _SECRET_COLUMN.search(name.strip())
                      and "id" not in name.lower().split()]
    if not secret_columns:
        return
    for a, b in folded:
        yield from _row_findings(text, a, b, separator, len(columns), secret_columns)
    if folded:
        stop = folded[-1][1]
    line_start = _next_row(text, stop)
    for _ in range(_MAX_ROWS):
        if line_start >= len(text):
            return
        _, line_stop = _row_bounds(text, line_start)
        row = text[line_start:line_stop]
        if separator == "|" and set(row.strip()) <= set("|-: "):
            line_start = _next_row(text, line_stop)  # a Markdown table's rule line
            continue
        if len(_cells(row, separator)) != len(columns):
            return  # the table ended
        yield from _row_findings(text, line_start, line_stop, separator, len(columns), secret_columns)
        line_start = _next_row(text, line_stop)


def _row_findings(text: str, start: int, stop: int, separator: str, width: int,
                  secret_columns: list[int]) -> Iterator[Found]:
    row = text[start:stop].rstrip(" \t")
    cells = _cells(row, separator)
    if len(cells) != width or (separator == "|" and set(row.strip()) <= set("|-: ")):
        return
    for index in secret_columns:
        a, b = cells[index]
        if b - a >= 4 and not _is_placeholder(row[a:b]):
            yield ("credentials-table", start + a, start + b)


def _next_row(text: str, stop: int) -> int:
    return stop + (2 if text.startswith("; ", stop) else 1)


TABLE_TRIGGERS = ("password", "secret access key", "secret", "token", "api key", "api_key", "passwd")


# --------------------------------------------------------------------------------------------
# Values secret by their key in a credential file

# `_auth=`, `_authToken=`, `_password=` (.npmrc, also `//registry/:_auth`), kubeconfig's
# `client-key-data:`, a service-account key's `private_key_id`, `aws_session_token`,
# `client-secret:`/`id-token:`/`refresh-token:` (a kubeconfig's OIDC provider).
_KEYED_RE = lazy(
    r"(?P<key>_auth|_authToken|_password|client-key-data|private_key_id|id-token|refresh-token|(?i:identitytoken)"
    r"|(?i:registrytoken))[\"']?[ \t]*[:=][ \t]*[\"']?(?P<secret>[^\s\"',;()]{6,8192})"
)
KEYED_TRIGGERS = ("_auth", "_password", "client-key-data", "private_key_id", "id-token", "refresh-token",
                  "identitytoken", "registrytoken")


def keyed_finding(text: str, hit: int) -> Iterator[Found]:
    match = _KEYED_RE.match(text, hit, min(len(text), hit + 9000))
    if match is None or (hit > 0 and (text[hit - 1].isalnum() or text[hit - 1] == "_")):
        return
    value = match.group("secret")
    if not _is_placeholder(value):
        yield ("credential-file", *match.span("secret"))


# --------------------------------------------------------------------------------------------
# INI files: `password = value` under a [section]

_INI_LINE = lazy(
    r"(?im)^[ \t]*(?P<key>[\w.-]*(?:password|passwd|secret|token|secret_key|access_key|api_key|apikey)[\w-]*)"
    r"[ \t]*[=:][ \t]*(?P<secret>[^\s#;]\S{2,300})[ \t]*$"
)
_SECTION = lazy(r"(?m)^[ \t]*\[[^\]\n]{1,80}\][ \t]*$")


def ini_finding(text: str, hit: int) -> Iterator[Found]:
    start, stop = _line_bounds(text, hit)
    match = _INI_LINE.match(text, start, stop)
    if match is None or not (match.start("key") <= hit < match.end("key")):
        return
    if match.group("key").lower().endswith(("_id", "_file", "_path", "_name", "_url")):
        return
    # A [section] header within the 40 lines above: an INI file (.pypirc, AWS credentials).
    window_start = start
    for _ in range(40):
        window_start = text.rfind("\n", 0, max(0, window_start - 1)) + 1
        if window_start == 0:
            break
    if _SECTION.search(text, window_start, start) is None:
        return
    value = match.group("secret")
    if not _is_placeholder(value) and "(" not in value:
        yield ("credential-file", *match.span("secret"))


INI_TRIGGERS = ("password", "passwd", "secret", "token", "access_key", "api_key", "apikey")


# --------------------------------------------------------------------------------------------
# .netrc across lines

_NETRC = lazy(
    r"(?i)machine[ \t]+\S{1,200}(?:\s+(?:login|account|port)\s+\S{1,200}){0,3}\s+password\s+(?P<secret>\S{1,200})"
)


def netrc_finding(text: str, hit: int) -> Iterator[Found]:
    match = _NETRC.match(text, hit, min(len(text), hit + 800))
    if match is not None and not _is_placeholder(match.group("secret")):
        yield ("credential-file", *match.span("secret"))


# --------------------------------------------------------------------------------------------
# .pgpass: host:port:database:user:password

_PGPASS_PORT = lazy(r":(?:\d{2,5}|\*):")
_PGPASS_LINE = lazy(r"[ \t]*[^\s:#]{1,200}:(?:\d{2,5}|\*):[^\s:]{1,200}:[^\s:]{1,200}:(?P<secret>(?:\\:|[^\s])+)[ \t]*\r?$")


def may_hold_pgpass(text: str) -> bool:
    return _PGPASS_PORT.search(text) is not None


def pgpass_findings(text: str) -> Iterator[Found]:
    """Every `.pgpass` entry's password; found from its `:5432:` field (one regex sweep)."""
    last_line = -1
    for port in _PGPASS_PORT.finditer(text):
        start, stop = _line_bounds(text, port.start())
        if start == last_line:
            continue
        last_line = start
        match = _PGPASS_LINE.fullmatch(text, start, stop)
        if match is not None and not _is_placeholder(match.group("secret")):
            yield ("credential-file", *match.span("secret"))


# --------------------------------------------------------------------------------------------
# Credentials told in prose: "log in with admin / S3cure!Pass"

_PROSE_LOGIN = lazy(
    r"(?i)(?:log[ \t-]?in|sign[ \t-]?in|credentials?|creds|user(?:name)?|account)"
    r"(?:[ \t]+(?:is|are|with|as|using|via|to|for|on|into|in)){0,3}[ \t]*[:=]?[ \t]*"
    r"[\"'`]?(?P<user>[\w.@+-]{2,64})[\"'`]?"
    r"(?:[ \t]*(?:/|:|,|\|)[ \t]*|[ \t]+(?:and|with|/)[ \t]+(?:(?:the[ \t]+)?pass(?:word)?[ \t]+)?"
    r"|[ \t]+(?:pass(?:word)?|pw|pwd)[ \t]*[:=]?[ \t]*)"
    r"[\"'`]?(?P<secret>[^\s\"'`]{4,128}?)[\"'`]?(?=[\s.,;)!?]*(?:\s|$))"
)
PROSE_TRIGGERS = ("log in", "login", "log-in", "sign in", "signin", "sign-in", "credential", "creds", "user ", "username")


def _prose_password(value: str) -> bool:
    """A password told in prose: not a plain word ("reset", "admin") and not a path or a URL."""
    value = value.rstrip(".,;:!?)")
    if len(value) < 6 or _is_placeholder(value) or value.startswith(("/", "http", "~")) or "://" in value:
        return False
    has_digit = any(c.isdigit() for c in value)
    has_other = any(not c.isalnum() for c in value)
    mixed = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    return (has_digit and not value.isdigit() and any(c.isalpha() for c in value)) or (has_other and (has_digit or mixed))


def prose_finding(text: str, hit: int) -> Iterator[Found]:
    if hit > 0 and text[hit - 1].isalnum():
        return  # "superuser", "relogin"
    match = _PROSE_LOGIN.match(text, hit, min(len(text), hit + 300))
    if match is None:
        return
    user, value = match.group("user"), match.group("secret")
    if user.lower() in ("password", "pass", "the", "a", "your", "my", "name", "id") or "/" in value[:1]:
        return
    if _prose_password(value) and looks_random(value, minimum=6) or _prose_password(value) and len(value) >= 8:
        yield ("login-credentials", *match.span("secret"))


# --------------------------------------------------------------------------------------------

Finder = Callable[[str, int], Iterator[Found]]


def trigger_table() -> dict[str, list[Finder]]:
    """Trigger (lower case) → the finders to run where it stands."""
    table: dict[str, list[Finder]] = {}
    for triggers, finder in ((TABLE_TRIGGERS, table_findings), (KEYED_TRIGGERS, keyed_finding),
                             (INI_TRIGGERS, ini_finding), (("machine",), netrc_finding),
                             (PROSE_TRIGGERS, prose_finding)):
        for trigger in triggers:
            table.setdefault(trigger, []).append(finder)
    return table


