"""Credentials given to a name (docs/secrets-and-poisoning.md): `password = "…"`, `"api_key": "…"`, `secret: …`,
`Password=…;` in a connection string, and environment-style names holding a credential word
anywhere (`PGPASSWORD=…`, `SECRET_KEY_BASE=…`, a Markdown table's `| API_TOKEN | … |`). Each
finder runs at a keyword trigger (`omp.safety.secrets`) and decides by the value whether it is a
literal secret or code, a placeholder or prose.
"""

from __future__ import annotations

import re

from omp.lazyre import lazy
from omp.safety.finding import SecretFinding
from omp.safety.patterns import is_placeholder, token_like

_CALL_RE = lazy(r"[A-Za-z_][A-Za-z0-9_.]*\(")
_IDENTIFIER_RE = lazy(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\[.*)?")


_ENV_WORDS = ("PASSWORD", "PASSWD", "PASSPHRASE", "SECRET", "TOKEN", "KEY", "PWD", "CREDENTIAL", "CREDENTIALS")


def _env_name_holds_credential(name: str) -> bool:
    """A part of the name ends with a credential word: PGPASSWORD, SECRET_KEY_BASE, APIKEY —
    not OMP_TOKENIZER or HOTKEYS, where the word runs on into another one. (AUTH counts only as
    the name's end, TWILIO_AUTH: `_only_auth`.)"""
    return _has_credential_part(name) or _ends_in_auth(name)


def _has_credential_part(name: str) -> bool:
    return any(part.endswith(_ENV_WORDS) for part in name.split("_"))


def _ends_in_auth(name: str) -> bool:
    return name.rsplit("_", 1)[-1].endswith("AUTH")


def _only_auth(name: str) -> bool:
    """TWILIO_AUTH, BASIC_AUTH: a credential by its name's last word only, so its value must look
    like one too (AUTH_MODE=oauth and USE_AUTH=yes are settings)."""
    return _ends_in_auth(name) and not _has_credential_part(name)


def _env_assignment(match: re.Match[str]) -> bool:
    name, value = match.group("name"), match.group("secret")
    if not _env_name_holds_credential(name) or is_placeholder(value.rstrip(".,;:!?)]}")):
        return False
    if name.endswith(("_KEYS", "KEYBOARD")) or value.startswith(("$", "%")):
        return False
    if _only_auth(name):
        return token_like(value)
    glued = match.group(0)[len(name):].lstrip("\"'")[:1] == "="
    if glued:
        return not _CALL_RE.match(value)  # NAME=value (shell, .env): the value is a literal
    return _bare_value_is_secret(value)  # NAME = value / NAME: value: could be code


# `password = "…"`, `"api_key": "…"`, `secret: …`, `DB_PASSWORD=…`, `Password=…;` (connection
# strings). Matched at a keyword trigger. The keyword must end its identifier (`token_count` is
# not a key), a bare `key` needs a prefix that makes it a credential (`api_key`, `secretKey`),
# and the value must look like a literal, not code.
KEYWORD_TRIGGERS = ("password", "passwd", "passphrase", "pass", "pwd", "secret", "token", "credential", "key")
_KEY_PREFIXES = (
    "api", "auth", "access", "secret", "private", "client", "account", "service", "signing",
    "encryption", "master", "license", "subscription", "app", "db", "database", "session",
)
# A quote may come escaped (`{\\"password\\": \\"…\\"}`: JSON inside a JSON string, as a log or a
# tool's output shows it).
_ASSIGNMENT_RE = lazy(
    r"(?i)(?P<keyword>password|passwd|passphrase|pass|pwd|secret|token|credentials?|key)(?![A-Za-z0-9_])"
    r"(?:\\?[\"'])?\]?[ \t]*(?:=|:=|:|=>)[ \t]*"
    r"(?:\\?(?P<quote>[\"'`])(?P<quoted>[^\"'`\n]{1,512}?)\\?(?P=quote)|(?P<bare>[^\s\"'`,;\\]{1,512}))"
)
_ASSIGNMENT_PREFIX_LOOKBACK = 24


def assignment_finding(text: str, hit: int) -> SecretFinding | None:
    match = _ASSIGNMENT_RE.match(text, hit, min(len(text), hit + 600))
    if match is None or not _keyword_starts_identifier_part(text, hit):
        return None
    in_query = hit > 0 and text[hit - 1] in "?&"  # https://…/api?key=…&q=…
    if match.group("keyword").lower() == "key" and not _credential_key_prefix(text, hit) and not in_query:
        return None
    if match.group("quoted") is not None:
        value, span = match.group("quoted"), match.span("quoted")
        # (a URL's query is never quoted: "`?key=` in a URL" is prose about one)
        secret = len(value.strip()) >= 4 and not is_placeholder(value) and not in_query
    else:
        value, span = match.group("bare"), match.span("bare")
        if in_query:  # the value ends at the next parameter; a credential is a generated string
            value = value.split("&", 1)[0]
            span = (span[0], span[0] + len(value))
            secret = token_like(value)
        else:
            secret = _bare_value_is_secret(value)
    return SecretFinding("password-assignment", *span) if secret else None


# Upper-case (environment-style) names holding a credential word anywhere: PGPASSWORD=…,
# SECRET_KEY_BASE=…, MY_API_TOKEN_V2: … Matched from the start of the name, found by walking
# back from the keyword; a lower-case keyword is never one (most hits, in prose), so it costs
# nothing there.
_ENV_ASSIGNMENT_RE = lazy(
    r"(?P<name>[A-Z0-9_]*(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|KEY|PWD|CREDENTIALS?|AUTH)[A-Z0-9_]*)"
    # "| NAME | value |": a Markdown table's row; "NAME=\" then the value: a shell line continued
    # (also as stored, its line break folded to a space or "; ")
    r"[\"'`]?(?:[ \t]*(?:=|:=|:|=>)|(?P<cell>[ \t]+\|))[ \t]*(?:\\[ \t]*(?:\r?\n|;)?[ \t]*)?"
    r"(?:(?P<q>[\"'])(?P<quoted>[^\"'\n]{4,512})(?P=q)|`?(?P<secret>[^\s\"'`,;|]{4,512})`?)"
)
_ENV_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def env_assignment_finding(text: str, hit: int) -> SecretFinding | None:
    if not text[hit].isupper():
        return None
    start = hit
    while start > 0 and hit - start < 60 and text[start - 1] in _ENV_NAME_CHARS:
        start -= 1
    if start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        return None  # inside a longer, mixed-case identifier
    match = _ENV_ASSIGNMENT_RE.match(text, start, min(len(text), start + 640))
    if match is None or match.end("name") <= hit or not _env_name_holds_credential(match.group("name")):
        return None
    if match.group("cell") is not None and not _table_row(text, start, match.end()):
        return None  # `KEY_READ | KEY_WOW64`, `PASSWORD|PASSWD`: an expression, not a table
    if match.group("quoted") is not None:  # NAME="two words": quoted, so a literal
        value = match.group("quoted")
        if is_placeholder(value) or value.startswith(("$", "%")) or (
                _only_auth(match.group("name")) and not token_like(value)):
            return None
        return SecretFinding("password-assignment", *match.span("quoted"))
    if not _env_assignment(match):
        return None
    return SecretFinding("password-assignment", *match.span("secret"))


def _table_row(text: str, start: int, end: int) -> bool:
    """Is the name at `start` a Markdown table's cell ("| NAME | value |"): a pipe and a space
    before it, a space and a pipe after the value?"""
    before = text[max(0, start - 3):start].rstrip("`")
    return before.endswith(("| ", "|\t")) and text[end:end + 3].lstrip(" \t").startswith("|")


def _keyword_starts_identifier_part(text: str, hit: int) -> bool:
    """`api_key`, `apiKey`, `"password"` yes; `monkey`, `bypass` no."""
    if hit == 0:
        return True
    previous = text[hit - 1]
    return not previous.isalnum() or (previous.islower() and text[hit].isupper())


def _credential_key_prefix(text: str, hit: int) -> bool:
    before = text[max(0, hit - _ASSIGNMENT_PREFIX_LOOKBACK) : hit].lower().rstrip("_.-")
    return before.endswith(_KEY_PREFIXES)


def _bare_value_is_secret(value: str) -> bool:
    if is_placeholder(value) or _CALL_RE.match(value):
        return False
    if _IDENTIFIER_RE.fullmatch(value) and not any(c.isdigit() for c in value):
        return False  # self.password, os.environ["X"], a type name
    return len(value) >= 6
