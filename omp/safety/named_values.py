"""A random-looking value given to a secret-named thing, in any language's syntax (docs/secrets-and-poisoning.md).

`let secret_token: &str = "…";` (Rust), `setApiToken("…")` (Java), `val clientSecret = "…"`
(Kotlin), `$db_pass = '…'` (PHP, Perl), `#define API_KEY "…"` (C), `<password>…</password>`
(XML), `{"authToken", "…"}` (C++), `CREATE USER app PASSWORD '…'` (SQL): the syntax differs, the
structure does not. A *name* whose last word is a credential word, then whatever a language puts
between a name and its value (a type, `=`, `:=`, `:`, `=>`, `<-`, `(`, `,`, `>`, a space), then a
literal on the same line that *looks generated*: long enough, no spaces, several kinds of
character, high entropy. So an unlisted language is read the same way, while `token_count = 4096`
(the name's last word is not a credential word), `password = get_password()` (not a literal) and
`secret_name: "db-creds"` (a word, not a generated value) stay.

Run at the keyword triggers secret detection already sweeps for (`omp.safety.secrets`): nothing
here walks the text on its own.
"""

from __future__ import annotations

import math
import re
from typing import Iterator

from omp.lazyre import lazy

# Words a credential's name ends with (the name's last word, after camelCase and snake_case are
# split). "key" counts only after a word that makes it a credential (`api_key`, `signingKey`):
# `primary_key`, `sort_key`, `cache_key` are not.
_SECRET_WORDS = frozenset({
    "password", "passwd", "passphrase", "pwd", "pass", "pw", "secret", "secrets", "token", "credential",
    "credentials", "apikey", "privatekey", "secretkey", "accesskey", "authtoken", "accesstoken", "passcode",
})
_KEY_QUALIFIERS = frozenset({
    "api", "auth", "access", "secret", "private", "client", "account", "service", "signing", "encryption",
    "master", "license", "licence", "subscription", "app", "application", "session", "hmac", "jwt", "webhook",
    "storage", "shared", "sas", "consumer", "developer", "admin", "root", "write", "deploy", "x",
})
_GLUED_TOKENS = frozenset({"apitoken", "authtoken", "accesstoken", "refreshtoken", "bottoken", "bearertoken",
                           "sessiontoken", "idtoken", "usertoken", "apptoken", "deploytoken"})
# Words after the credential word that still name the credential itself (`api_key_value`).
_TRAILING = frozenset({"value", "str", "string", "b64", "base64", "raw", "plain", "text", "literal", "base"})
# Triggers: where one of these stands, a name could end in a credential word (lower case, as the
# text is searched).
TRIGGERS = ("password", "passwd", "passphrase", "pwd", "pass", "secret", "token", "credential", "key", "passcode")

_IDENTIFIER = lazy(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_FILE_NAME = lazy(r"[\w./-]+\.[A-Za-z]{1,5}")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$@.-")
_CAMEL = lazy(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# Between a name and its value: a closing quote or bracket of the name, a type annotation
# (`: &str`, `: String`, `: &'static str`), then an operator or a separator, then a string
# literal's prefix (`r"`, `b'`, `@"`, `new String("`).
_BETWEEN = lazy(
    r"""(?:\\?["'`])?\]?[ \t]*
    (?::[ \t]*&?(?:'static[ \t]+)?(?:mut[ \t]+)?[A-Za-z_][\w.<>\[\]]{0,30}[ \t]*(?==))?
    (?P<op>:=|=>|==|=|:|<-|\(|,|>|[ \t])[ \t]*
    (?:new[ \t]+String\([ \t]*|[A-Za-z_][\w.]*\([ \t]*(?=["'`]))?
    (?:[rbuRBU]|@|\$)?
    (?:(?P<q>\\?["'`])(?P<quoted>[^"'`\s\\]{8,300})(?P=q)|(?P<bare>[^\s"'`,;<>(){}\[\]\\]{8,300}))
    """,
    re.VERBOSE,
)
_PLACEHOLDER = lazy(
    r"(?i)^(?:\$\{?\w+\}?|\{\{.*\}\}|<[^>]*>|%\w*%|x{4,}|\*{3,}|\.{3,}|(?:your|my|example|sample|dummy|fake|test|changeme|"
    r"replace|placeholder|redacted|insert|todo|xxx)[\w-]*)$"
)


def entropy(value: str) -> float:
    """Shannon entropy of `value`, in bits per character."""
    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def looks_random(value: str, minimum: int = 10) -> bool:
    """Does `value` look generated: long enough, no spaces, at least two kinds of character one
    of which a word has not (a digit or a symbol), and high entropy for its length? A word,
    a setting, a path or a dotted name is not."""
    if len(value) < minimum or any(c.isspace() for c in value) or _PLACEHOLDER.match(value):
        return False
    if value.startswith(("/", "./", "../", "~/", "http://", "https://", "file:")) or "://" in value:
        return False  # a path or a URL (a URL's password is found by the URL rule)
    if value.replace(".", "").replace("-", "").replace("_", "").isdigit():
        return False  # a number, a date, a version
    lower = any(c.islower() for c in value)
    upper = any(c.isupper() for c in value)
    digit = any(c.isdigit() for c in value)
    symbol = any(not c.isalnum() for c in value)
    if not (digit or (symbol and upper and lower) or _random_case(value)):
        return False  # snake_case_words, CamelCaseName, kebab-case-name
    if not digit and not _random_case(value) and (_IDENTIFIER.fullmatch(value) or _FILE_NAME.fullmatch(value)):
        return False  # `collections.Counter`, `_ModelPass`, `bench/README.md`: a name, not a value
    if sum((lower, upper, digit, symbol)) < 2:
        return False
    # A random string's entropy grows with its length (a 10-character one has at most 3.3 bits).
    return entropy(value) >= min(3.0, math.log2(len(value)) * 0.8)


def _random_case(value: str) -> bool:
    """Letters in random case ("UzhVwsXHBfIFosRebQlujyl"): long, and about as many capitals as
    small letters, where a CamelCaseName has one capital a word."""
    letters = [c for c in value if c.isalpha()]
    if len(value) < 16 or len(letters) < 16:
        return False
    upper = sum(c.isupper() for c in letters) / len(letters)
    # … and the case changes often (`_TWILIO_TOKEN.search`, `process.env.API_KEY` change it once).
    changes = sum(a.isupper() != b.isupper() for a, b in zip(letters, letters[1:]))
    return 0.25 <= upper <= 0.75 and changes >= len(letters) // 4


def name_words(name: str) -> list[str]:
    """`setApiToken` → set, api, token; `DB_PASSWORD` → db, password; `client-key-data` → …"""
    return [word.lower() for part in re.split(r"[^A-Za-z0-9]+", name) for word in _CAMEL.findall(part)]


def is_secret_name(name: str) -> bool:
    """Is the name's last word (or the last before a `_value`-like one) a credential word?"""
    words = [word for word in name_words(name) if not word.isdigit()]
    while len(words) > 1 and words[-1] in _TRAILING:
        words.pop()
    if not words:
        return False
    last = words[-1]
    if last in _SECRET_WORDS:
        return True
    if last in ("key", "keys"):
        return len(words) > 1 and words[-2] in _KEY_QUALIFIERS
    # Glued words: "dbpassword", "mysecret", "apitoken" (not "tokenizer", "passage", "tiktoken").
    return last.endswith(("password", "passwd", "secret", "apikey")) or last in _GLUED_TOKENS


_NAME_TAIL = lazy(r"[A-Za-z0-9_$@.-]{0,80}")


def _name_start(text: str, hit: int) -> int:
    start = hit
    while start > 0 and hit - start < 80 and text[start - 1] in _NAME_CHARS:
        start -= 1
    while start < hit and text[start] in ".-":
        start += 1
    return start


def named_value(text: str, hit: int) -> tuple[str, int, int] | None:
    """At a trigger: the random-looking literal given to the secret-named thing around it."""
    tail = _NAME_TAIL.match(text, hit)
    end = tail.end() if tail else hit
    # A name does not end in a dot, a dash or a sigil (`token.` ends a sentence).
    while end > hit and text[end - 1] in ".-$@":
        end -= 1
    if end <= hit:
        return None
    # What follows the name first (cheap, and most trigger hits stop here), then the name.
    match = _BETWEEN.match(text, end, min(len(text), end + 400))
    if match is None:
        return None
    start = _name_start(text, hit)
    if not is_secret_name(text[start:end]):
        return None
    group = "quoted" if match.group("quoted") is not None else "bare"
    value = match.group(group)
    op = match.group("op")
    if group == "bare" and op in ("(", ",", " ", "\t", "=="):
        return None  # `check_password(user_input)`, prose: only a literal is a value there
    if match.group("q") and match.group("q").endswith("`") and op not in ("=", ":=", ":"):
        return None  # "the token `abc123`" in prose is code named, not a value given
    if op == ">" and group == "bare" and not text.startswith("</", match.end()):
        return None  # `<password>x</password>`, not `token > limit`
    if not looks_random(value.rstrip(".,;:!?")):
        return None
    return ("secret-assignment", *match.span(group))


def findings(text: str, hits: Iterator[int]) -> Iterator[tuple[str, int, int]]:
    for hit in hits:
        found = named_value(text, hit)
        if found is not None:
            yield found
