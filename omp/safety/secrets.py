"""Secret detection and redaction (SPEC §6.1).

Secrets are found by two detectors whose findings are merged:

- detect-secrets' *format* plugins (AWS, GitHub, private keys, JWT, basic auth, keywords,
  Slack, Stripe, OpenAI, Azure, …), a well-kept detector. Its entropy plugins are never enabled:
  they flag git SHAs, UUIDs and hashes, and its online verification is never called. It is
  imported on first need, and shown only the lines a cheap prefilter picks (a plugin's literal prefix, in the case the plugin matches it, or a
  secret keyword followed by an assignment), because it costs ≈ 0.1–0.3 ms per line and
  redaction runs over megabytes. If it cannot be imported, our own patterns still work.
- our own patterns, for what detect-secrets misses or reports without a usable span:
  `github_pat_…` and `gho_/ghs_/ghu_/ghr_` tokens, `sk-proj-…`/`sk-ant-…` keys, Google `AIza…`
  keys and `ya29.` OAuth tokens, Azure connection strings and SAS signatures, Slack `xapp-`/
  `xoxe-`, Stripe `whsec_`, credentials in URLs of any scheme (`redis://:pw@`, a password holding
  `@ : /`, Sentry DSNs), `Authorization:` headers, `curl -u user:pw`, `mysql -pPW`,
  `--password X`, `password=`-style assignments and environment-style names holding a
  credential word anywhere (`PGPASSWORD=…`, `SECRET_KEY_BASE=…`), "the password is X", an AWS
  secret key near the word "secret", bearer tokens, and PEM private-key blocks (which span
  lines); vendors' prefixed tokens detect-secrets has no plugin for (`_VENDOR_TOKENS`), PuTTY
  key files, Docker and Kubernetes registry auth, cookies, `.netrc` lines, a URL's `?key=`, a
  Markdown table's secret, and an API key or token told in prose in the explicit pass's seven
  languages. The classes both find (AWS key ids, `ghp_`, Slack `xoxb-`, Stripe `sk_live_`, JWTs)
  stay in both lists on purpose: detect-secrets is optional at import time and reports values
  rather than spans, so our pattern is the fallback and gives the span.

Where secrets live, beside these (each a module of its own, wired in by `_pattern_findings`):
credential files by their layout (`credential_files`), a generated value given to a secret-named
thing in any syntax (`named_values`), base64 looked at again, headless PEM bodies and split
tokens (`encoded`), and more vendors' prefixes read off gitleaks' rule set (`vendors`).

Speed: Python's `re` has no multi-pattern search, and a dozen patterns with a leading `\\b`
each walk the whole text (≈ 30 MB/s apiece). So every pattern names the literal triggers it
cannot match without ("ghp_", "aws", "://", "password", …); one sweep of an ASCII-lowered copy
finds them all (`_trigger_hits`, an Aho-Corasick automaton: omp.substrings), and each pattern
runs only in a small window at each of its triggers.

detect-secrets reports *what* it found, not always *where* (a GitHub token comes back as "ghp",
a JWT without its signature), so each of its findings is located in the line and widened to
the whole token; when it cannot be located, the whole line is redacted rather than risk a leak.

A text that disguises a secret (a zero-width character inside it, fullwidth letters, a Cyrillic
letter drawn like a Latin one) is read as it shows and the findings mapped back (`_undisguised`).

Our patterns are compiled on first use (`omp.lazyre`): most texts hold the triggers of only a
few of them, and compiling all at import cost about 25 ms of every review.
"""

from __future__ import annotations

import bisect
import collections
import re
from typing import Any, Callable, Iterable, Iterator

from msgspec import Struct

from omp.lazyre import LazyPattern, lazy
from omp.safety import credential_files, encoded, named_values, vendors
from omp.safety.lookalikes import AS_LATIN, LOOKALIKE_LETTERS
from omp.substrings import SubstringSet

__all__ = [
    "SecretFinding",
    "contains_secret",
    "find_secrets",
    "may_hold_key_block",
    "redact",
    "redaction_marker",
]


class SecretFinding(Struct, frozen=True):
    kind: str  # short label used in markers: "github-token", "aws-access-key", "private-key", …
    start: int  # offsets into the scanned text
    end: int


def redaction_marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _lowered(text: str) -> str:
    """A lower-case copy with the same offsets (str.lower can lengthen a few characters)."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.translate(_ASCII_LOWER)


# --------------------------------------------------------------------------------------------
# Our own patterns


class _Pattern(Struct, frozen=True):
    kind: str
    regex: LazyPattern
    triggers: tuple[str, ...]  # lower-case literals found in every match
    before: int = 0  # how far before its trigger a match may start
    reach: int = 1200  # how far after its trigger a match may end
    check: Callable[[re.Match[str]], bool] | None = None

    def find(self, text: str, hit: int) -> SecretFinding | None:
        if self.before:
            # The match that covers this trigger (an earlier one in the window has its own).
            window = self.regex.finditer(text, max(0, hit - self.before), min(len(text), hit + self.reach))
            match = next((m for m in window if m.start() <= hit < m.end()), None)
        else:
            match = self.regex.match(text, hit, min(len(text), hit + self.reach))
        if match is None or (self.check is not None and not self.check(match)):
            return None
        group = "secret" if "secret" in self.regex.groupindex and match.group("secret") else 0
        start, end = match.span(group)
        return SecretFinding(self.kind, start, end) if end > start else None


_PLACEHOLDER_RE = lazy(
    r"""^(?:
        \$\{?[A-Za-z_][A-Za-z0-9_]*\}?     # $VAR, ${VAR}
      | \$\(.*\)                           # $(command)
      | \$\{\{.*\}\}? | \{\{.*\}\} | \{[A-Za-z_.]*\}   # ${{ secrets.X }}, {{ template }}, {name}
      | <[^<>]*>                           # <password>
      | %\(?[A-Za-z_]*\)?s                 # %s, %(name)s
      | [*xX.•]+                           # ****, xxxx, ....
      | \[REDACTED[^\]]*\]                 # already redacted
      | (?i:none|null|nil|true|false|undefined|empty|string|str|bytes|int|bool|any|optional
           |required|secretstr|your[_-]?\w*|example\w*|placeholder\w*|dummy|test|password
           |passwd|secret|token|pass|pw|pwd|value|values|val|key|foo|bar|baz|redacted|hidden|masked
           |user:pw|user:pass(?:word)?)
    )$""",
    re.VERBOSE,
)
_CALL_RE = lazy(r"[A-Za-z_][A-Za-z0-9_.]*\(")
_IDENTIFIER_RE = lazy(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\[.*)?")


def _is_placeholder(value: str) -> bool:
    return bool(_PLACEHOLDER_RE.match(value.strip()))


def _not_placeholder(match: re.Match[str]) -> bool:
    return not _is_placeholder(match.group("secret"))


def _has_digit(match: re.Match[str]) -> bool:
    return any(c.isdigit() for c in match.group("secret"))


def _url_password(match: re.Match[str]) -> bool:
    value = match.group("secret")
    # "host:8080/path@x" is a port and a path, not a password.
    return not re.match(r"^\d{1,5}(?:/.*)?$", value) and not _is_placeholder(value)


def _is_base64_credentials(match: re.Match[str]) -> bool:
    # Only a Basic-auth candidate needs these (base64 brings struct: 1 ms of every review's start).
    import base64
    import binascii

    value = match.group("secret")
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded  # user:password


def _cli_user_value(match: re.Match[str]) -> bool:
    value = match.group("secret")
    return not _is_placeholder(value) and not value.isdigit()  # `docker run -u 1000:1000`


# Words that follow `--password` in documentation rather than a password.
_CLI_PROSE = frozenset(
    "option options flag flags argument arguments parameter parameters switch is are and or to "
    "with for instead of on in was were must can will".split()
)


def _cli_value(match: re.Match[str]) -> bool:
    value = match.group("secret")
    return not _is_placeholder(value) and not value.startswith("-") and value.lower() not in _CLI_PROSE


# What follows "the password is" in prose or code without being a password: a word in any
# language ("wrong", "None", "válido"), a dotted name (`token is Name.Other` in a lexer).
_PROSE_WORDS = lazy(r"^(?:[^\W\d_]+|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)[.,;:!?)\]]*$")


def _prose_secret(match: re.Match[str]) -> bool:
    value = match.group("secret")
    if _is_placeholder(value.rstrip(".,;:!?)]}")):
        return False
    if match.groupdict().get("q"):
        return True
    # Unquoted: "hunter2", "Tr0ub4dor&3", "S3cret!" are secrets; "wrong", "stored", "in" are prose.
    return not _PROSE_WORDS.match(value) and len(value.rstrip(".,;:!?)")) >= 4


_PROSE_END = ".,;:!?)]}。，、！？」』"
# "Password" in French, German, Spanish, Portuguese, Chinese and Japanese (and "passwort"): triggers
# like the others (`_trigger_hits`).
_FOREIGN_PASSWORD_WORDS = ("mot de passe", "kennwort", "contraseña", "contrasena", "senha", "密码", "口令", "パスワード",
                           "パスコード")
# "Key" and "token" in German, French, Spanish and Portuguese, read with English's (whose "token"
# they use too); the Chinese and Japanese words are their own pattern's triggers.
_FOREIGN_KEY_WORDS = ("schlüssel", "schluessel", "clé", "clef", "jeton", "clave", "chave")


def _foreign_prose_secret(match: re.Match[str]) -> bool:
    """After "das Passwort ist", "密码是": a word ("falsch", "什么", "incorrecta") is prose; a value
    of four characters or more that is not only letters is the password."""
    value = match.group("secret").rstrip(_PROSE_END)
    for tail in ("です", "だ", "。"):  # "パスワードは Secret-Pass-99 です"
        value = value.removesuffix(tail)
    if not value or value[0] in "<${%[":  # "<sua senha>", "$DB_PASSWORD", "{password}"
        return False
    return len(value) >= 4 and not value.isalpha() and not _is_placeholder(value)


def _aws_secret_shape(match: re.Match[str]) -> bool:
    value = match.group("secret")
    return any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)


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


def _token_like(value: str) -> bool:
    """Long, with letters and digits: a generated credential, not a word or a setting."""
    return len(value) >= 12 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _secret_token_like(match: re.Match[str]) -> bool:
    return _token_like(match.group("secret"))


def _holds_a_session_cookie(match: re.Match[str]) -> bool:
    """A Cookie header is a credential when one of its values is generated (theme=dark is not)."""
    return any(_token_like(pair.partition("=")[2].strip()) for pair in match.group("secret").split(";"))


def _only_auth(name: str) -> bool:
    """TWILIO_AUTH, BASIC_AUTH: a credential by its name's last word only, so its value must look
    like one too (AUTH_MODE=oauth and USE_AUTH=yes are settings)."""
    return _ends_in_auth(name) and not _has_credential_part(name)


def _env_assignment(match: re.Match[str]) -> bool:
    name, value = match.group("name"), match.group("secret")
    if not _env_name_holds_credential(name) or _is_placeholder(value.rstrip(".,;:!?)]}")):
        return False
    if name.endswith(("_KEYS", "KEYBOARD")) or value.startswith(("$", "%")):
        return False
    if _only_auth(name):
        return _token_like(value)
    glued = match.group(0)[len(name):].lstrip("\"'")[:1] == "="
    if glued:
        return not _CALL_RE.match(value)  # NAME=value (shell, .env): the value is a literal
    return _bare_value_is_secret(value)  # NAME = value / NAME: value: could be code


# Vendors' tokens that detect-secrets 1.5.0 does not know, each by the prefix the vendor puts on it
# (kind, pattern, the prefixes in lower case). A prefix makes them cheap to find and certain: what
# follows it is fixed in length and alphabet.
_VENDOR_TOKENS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("shopify-token", r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b", ("shpat_", "shpss_", "shpca_", "shppa_")),
    ("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", ("dop_v1_", "doo_v1_", "dor_v1_")),
    ("doppler-token", r"\bdp\.(?:st|ct|sa|scim|audit|pt)\.(?:[a-z0-9_-]{2,35}\.)?[a-zA-Z0-9]{40,44}\b", ("dp.",)),
    ("age-secret-key", r"\bAGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}\b", ("age-secret-key-1",)),
    ("vault-token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}", ("hvs.", "hvb.", "hvr.")),
    ("google-oauth-secret", r"\bGOCSPX-[A-Za-z0-9_-]{24,40}", ("gocspx-",)),
    ("docker-token", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}", ("dckr_",)),
    ("grafana-token", r"\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})", ("glsa_", "glc_")),
    ("postman-key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", ("pmak-",)),
    ("groq-key", r"\bgsk_[A-Za-z0-9]{48,56}\b", ("gsk_",)),
    ("xai-key", r"\bxai-[A-Za-z0-9]{70,90}\b", ("xai-",)),
    ("perplexity-key", r"\bpplx-[A-Za-z0-9]{40,56}\b", ("pplx-",)),
    ("replicate-token", r"\br8_[A-Za-z0-9]{37}\b", ("r8_",)),
    ("linear-key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{32,64}\b", ("lin_api_", "lin_oauth_")),
    ("langsmith-key", r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b", ("lsv2_",)),
    ("newrelic-key", r"\bNRAK-[A-Z0-9]{27}\b", ("nrak-",)),
    ("sentry-token", r"\bsntry[su]_[A-Za-z0-9+/=_]{40,}", ("sntrys_", "sntryu_")),
    ("planetscale-token", r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}", ("pscale_",)),
    ("supabase-token", r"\bsbp_[a-f0-9]{40}\b", ("sbp_",)),
    ("figma-token", r"\bfigd_[A-Za-z0-9_-]{40,}", ("figd_",)),
    ("notion-token", r"\b(?:ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})\b", ("ntn_", "secret_")),
    ("heroku-key", r"\bHRKU-[A-Za-z0-9_-]{60}\b", ("hrku-",)),
    ("flyio-token", r"\bfo1_[A-Za-z0-9_-]{43}\b", ("fo1_",)),
    ("pulumi-token", r"\bpul-[a-f0-9]{40}\b", ("pul-",)),
    ("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b", ("dapi",)),
    ("atlassian-token", r"\bATATT3[A-Za-z0-9_=-]{100,}", ("atatt3",)),
    ("jfrog-token", r"\bAKCp[A-Za-z0-9]{69}\b", ("akcp",)),
)

_PATTERNS: tuple[_Pattern, ...] = (
    *(_Pattern(kind, lazy(pattern), triggers) for kind, pattern, triggers in _VENDOR_TOKENS),
    *(_Pattern(kind, lazy(pattern), triggers, before=before) for kind, pattern, triggers, before in vendors.TOKENS),
    _Pattern("github-token", lazy(r"\bgh[pousr]_[A-Za-z0-9]{30,255}\b"), ("ghp_", "gho_", "ghs_", "ghu_", "ghr_")),
    _Pattern("github-token", lazy(r"\bgithub_pat_[A-Za-z0-9_]{40,255}\b"), ("github_pat_",)),
    _Pattern("anthropic-key", lazy(r"\bsk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_-]{20,}"), ("sk-",)),
    _Pattern(
        "openai-key",
        # sk-…, sk-proj-…, sk-svcacct-…: long, with digits (a hyphenated word is not a key).
        lazy(r"\bsk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?(?=[A-Za-z0-9_-]{0,200}\d)[A-Za-z0-9_-]{20,}"),
        ("sk-",),
    ),
    _Pattern(
        "aws-access-key",
        lazy(r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b"),
        ("akia", "asia", "abia", "acca", "a3t"),
    ),
    _Pattern(
        "aws-secret-key",
        lazy(
            r"(?i)aws[A-Za-z0-9_.-]{0,30}(?:secret|access)[A-Za-z0-9_.-]{0,30}[\"']?\s*(?:=|:|=>)\s*"
            r"[\"']?(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        ("aws",),
    ),
    _Pattern("gcp-api-key", lazy(r"AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"), ("aiza",)),
    _Pattern("azure-storage-key", lazy(r"(?i)AccountKey=(?P<secret>[A-Za-z0-9+/=]{20,})"), ("accountkey=",)),
    _Pattern(
        "azure-sas-token",
        lazy(r"(?i)(?:SharedAccessSignature=|sig=)(?P<secret>[A-Za-z0-9%+/=]{20,})"),
        ("sharedaccesssignature=", "sig="),
    ),
    _Pattern("azure-key", lazy(r"(?i)SharedAccessKey=(?P<secret>[A-Za-z0-9+/=]{20,})"), ("sharedaccesskey=",)),
    _Pattern("slack-token", lazy(r"\bxox[abposre]-[A-Za-z0-9-]{10,}"), ("xox",)),
    _Pattern("slack-token", lazy(r"\bxapp-\d-[A-Za-z0-9-]{10,}"), ("xapp-",)),
    _Pattern("stripe-webhook-secret", lazy(r"\bwhsec_[A-Za-z0-9+/=]{20,}"), ("whsec_",)),
    _Pattern("gcp-oauth-token", lazy(r"\bya29\.[0-9A-Za-z_-]{20,}"), ("ya29.",)),
    _Pattern(
        "slack-webhook",
        lazy(r"hooks\.slack\.com/services/(?P<secret>[A-Za-z0-9_/-]{20,})"),
        ("hooks.slack.com",),
    ),
    _Pattern("stripe-key", lazy(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"), ("sk_live_", "sk_test_", "rk_live_", "rk_test_")),
    _Pattern("gitlab-token", lazy(r"\bglpat-[A-Za-z0-9_-]{20,}"), ("glpat-",)),
    # Not in detect-secrets 1.5.0: Hugging Face tokens, Discord webhook URLs, Telegram bot tokens.
    _Pattern("huggingface-token", lazy(r"\bhf_[A-Za-z0-9]{30,}\b"), ("hf_",)),
    _Pattern(
        "discord-webhook",
        lazy(r"discord(?:app)?\.com/api/webhooks/\d{5,30}/(?P<secret>[A-Za-z0-9_-]{20,})"),
        ("discord.com/api/webhooks", "discordapp.com/api/webhooks"),
    ),
    _Pattern("telegram-bot-token", lazy(r"\b\d{8,10}:(?P<secret>AA[0-9A-Za-z_-]{32,36})(?![0-9A-Za-z_-])"), (":aa",),
             before=11),
    _Pattern("npm-token", lazy(r"\bnpm_[A-Za-z0-9]{36}\b"), ("npm_",)),
    _Pattern("pypi-token", lazy(r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"), ("pypi-",)),
    _Pattern("jwt", lazy(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{0,1024}"), ("eyj",)),
    _Pattern(
        "url-credentials",
        # scheme://user:password@host in any scheme (redis://:pw@, mysql://, amqp://); only the
        # password is redacted. The password runs to the LAST "@" before the host, so one holding
        # "@", ":" or "/" is hidden whole; a port followed by a path ("host:8080/a@b") is not one.
        lazy(
            r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@'\"<>]{0,256}:(?P<secret>[^\s'\"<>]{1,256})@"
            r"[A-Za-z0-9\[]"
        ),
        ("://",),
        before=22,
        reach=600,
        check=_url_password,
    ),
    _Pattern(
        "url-credentials",
        # A token as the whole user part: Sentry DSNs (https://<32 hex>@o1.ingest.sentry.io/2),
        # https://<token>@host. Long and with a digit, so "git@github.com" stays.
        lazy(
            r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://(?P<secret>[A-Za-z0-9_.~%-]{16,256})@[A-Za-z0-9\[]"
        ),
        ("://",),
        before=22,
        reach=600,
        check=_has_digit,
    ),
    _Pattern(
        "authorization-header",
        # Authorization: Basic dXNlcjpwYXNz / Bearer … / token … — the scheme word is kept.
        lazy(
            r"(?i)authorization[\"']?\s*[:=]\s*[\"']?(?:(?:basic|bearer|token|digest|negotiate|apikey)\s+)?"
            r"(?P<secret>[A-Za-z0-9._~+/-]{8,}=*)(?![A-Za-z0-9._~+/=-])"
        ),
        ("authorization",),
        check=_not_placeholder,
    ),
    _Pattern(
        "basic-auth",
        lazy(r"(?i)\bbasic\s+(?P<secret>[A-Za-z0-9+/]{12,}={0,2})(?![A-Za-z0-9+/=])"),
        ("basic",),
        check=_is_base64_credentials,
    ),
    _Pattern(
        "cli-credentials",
        # curl -u user:pw, curl --user user:pw (wget/http use the same form).
        lazy(r"(?:-u|--user)(?:\s+|=)[\"']?[^\s:\"'`]{1,100}:(?P<secret>[^\s\"'`]{1,200})"),
        ("-u", "--"),
        check=_cli_user_value,
    ),
    _Pattern(
        "cli-credentials",
        # mysql -pPW (the password glued to -p), mysqldump, mariadb, mysqladmin.
        lazy(r"\b(?i:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]{0,200}?\s-p(?P<secret>[^\s\"'`]{2,200})"),
        ("mysql", "mariadb"),
        check=_not_placeholder,
    ),
    _Pattern(
        "cli-credentials",
        # docker/podman/helm login … -p X, sshpass -p X (the password as the next word).
        lazy(
            r"(?i:\b(?:docker|podman|helm|buildah|skopeo|oras)\b[^\n|;&]{0,60}?\blogin\b|\bsshpass\b)"
            r"[^\n|;&]{0,200}?\s-p\s+[\"']?(?P<secret>[^\s\"'`]{2,200})"
        ),
        ("login", "sshpass"),
        before=80,
        reach=400,
        check=_cli_value,
    ),
    _Pattern(
        "cli-credentials",
        # --password X, --password=X, --token X, --api-key X, --client-secret X, …
        lazy(
            r"(?i)--(?:db-)?(?:password|passwd|pass|pwd|token|secret|api-?key|access-?token|auth-?token"
            r"|client-?secret|secret-?key)(?:=|\s+)[\"']?(?P<secret>[^\s\"'`]{3,300})"
        ),
        ("--",),  # one trigger for every option name: each trigger is one pass over the text
        check=_cli_value,
    ),
    _Pattern(
        "password-in-prose",
        # "the password is hunter2", "the token is `abc123…`", "the password for staging is …";
        # an API key or token in German, French, Spanish or Portuguese the same way ("Der
        # API-Schlüssel lautet …", "la clé API est …", "el token es …", "o token é …"). Only after
        # a verb: "token: 4096" is a setting (and an assignment's rule reads it).
        lazy(
            r"(?i)\b(?:password|passphrase|passcode|passwd|pwd|secret|token|api key"
            r"|schlüssel|schluessel|clé|clef|jeton|clave|chave)"
            r"(?:\s*(?:d'|de l'|de la |de |da |do )?api)?"  # "la clé API", "la clave de la API"
            r"(?:\s+(?:for|of|on|to|de|du|des|für|von|del|da|do)\s+(?:the\s+)?[\w.-]{1,60})?"
            r"\s+(?:is|was|will be|est|était|sera|ist|lautet|war|es|era|será|é)\s+"
            r"(?:(?P<q>[\"'`]))?(?P<secret>(?(q)[^\"'`\n]{4,200}|[^\s\"'`]{4,200}))(?(q)(?P=q))"
        ),
        ("password", "passphrase", "passcode", "passwd", "pwd", "secret", "token", "api key", *_FOREIGN_KEY_WORDS),
        check=_prose_secret,
    ),
    _Pattern(
        "password-in-prose",
        # The other six languages the explicit pass reads: a rule asked for in German may carry
        # "das Passwort ist Geheim123!x". "Mot de passe : …", "la contraseña del servidor es …",
        # "senha: …", "密码是 …", "パスワードは … です".
        lazy(
            r"(?i)(?:mot de passe|passwort|kennwort|contraseña|contrasena|senha|密码|口令|パスワード|パスコード)"
            r"(?:\s+(?:de|du|des|für|von|del|de la|da|do)\s+[\w.-]{1,60})?"
            r"\s*(?:est|était|sera|ist|lautet|war|es|era|será|é|是|为|は|:|：|=)\s*"
            r"[\"'`「『]?(?P<secret>[^\s\"'`」』]{4,200})"
        ),
        ("passwort", *_FOREIGN_PASSWORD_WORDS),
        check=_foreign_prose_secret,
    ),
    _Pattern(
        "password-in-prose",
        # The same in Chinese and Japanese: "令牌是 …", "API密钥：…", "APIキーは … です".
        lazy(r"(?:密钥|秘钥|令牌|キー|トークン)\s*(?:是|为|は|：|:)\s*[\"'`「『]?(?P<secret>[^\s\"'`」』]{8,200})"),
        ("密钥", "秘钥", "令牌", "キー", "トークン"),
        check=_foreign_prose_secret,
    ),
    _Pattern(
        "password-assignment",
        # A .netrc line (or the same in a curl/ftp config): machine HOST login USER password PW.
        # Matched from "machine" or "login" (rare words; "password" is everywhere), on one line; a
        # value that is a bare word ("login / password reset") is prose.
        lazy(
            r"(?i)(?:machine[ \t]+\S{1,200}[ \t]+(?:login[ \t]+\S{1,200}[ \t]+)?|login[ \t]+\S{1,200}[ \t]+)"
            r"password[ \t]+(?P<secret>[^\s\"'`]{1,200})"
        ),
        ("machine", "login"),
        reach=640,
        check=_prose_secret,
    ),
    _Pattern(
        "private-key",
        # A PuTTY key file (.ppk), header to its last line: the private lines are base64 like the
        # public ones, so the whole block goes (up to its blank line, at most 200 lines).
        lazy(r"PuTTY-User-Key-File-\d+:[^\n]*(?:\r?\n(?![ \t]*\r?\n)[^\n]*){0,200}"),
        ("putty-user-key-file-",),
        reach=16384,
    ),
    _Pattern(
        "docker-auth",
        # A Docker config's "auth": base64 of user:password (~/.docker/config.json, a pull secret).
        lazy(r"(?i)auth[\"']?\s*:\s*[\"'](?P<secret>[A-Za-z0-9+/]{8,}={0,2})[\"']"),
        ("auth",),
        check=_is_base64_credentials,
    ),
    _Pattern(
        "docker-auth",
        # A Kubernetes pull secret's .dockerconfigjson (or .dockercfg): the config, base64-encoded.
        lazy(r"(?i)dockerc(?:onfigjson|fg)[\"']?\s*:\s*[\"']?(?P<secret>[A-Za-z0-9+/]{20,}={0,2})"),
        ("dockerconfigjson", "dockercfg"),
    ),
    _Pattern(
        "cookie",
        # Set-Cookie: NAME=VALUE; Path=/ — the value; what follows the first ";" is attributes.
        lazy(r"(?i)\bset-cookie[\"']?\s*:\s*[^\s=;]{1,200}=(?P<secret>[^;\s\"'`]{1,4096})"),
        ("set-cookie",),
        check=_secret_token_like,
    ),
    _Pattern(
        "cookie",
        # Cookie: a=1; session=… — every pair, when one of them holds a generated value.
        lazy(r"(?i)(?<![\w-])cookie[\"']?\s*:\s*[\"']?(?P<secret>[^\s=;\"'`]{1,200}=[^\r\n\"'`]{1,4096})"),
        ("cookie",),
        check=_holds_a_session_cookie,
    ),
    _Pattern(
        "aws-secret-key",
        # A 40-character AWS secret key near the word "secret" (mixed case: a hex SHA is not one).
        lazy(r"(?i:secret)[^\n]{0,60}?(?<![A-Za-z0-9/+=])(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"),
        ("secret",),
        check=_aws_secret_shape,
    ),
    _Pattern(
        "bearer-token",
        lazy(r"(?i)bearer\s+(?P<secret>[A-Za-z0-9._~+/-]{20,}=*)(?![A-Za-z0-9._~+/=-])"),
        ("bearer",),
        check=_has_digit,
    ),
)


# `password = "…"`, `"api_key": "…"`, `secret: …`, `DB_PASSWORD=…`, `Password=…;` (connection
# strings). Matched at a keyword trigger. The keyword must end its identifier (`token_count` is
# not a key), a bare `key` needs a prefix that makes it a credential (`api_key`, `secretKey`),
# and the value must look like a literal, not code.
_KEYWORD_TRIGGERS = ("password", "passwd", "passphrase", "pass", "pwd", "secret", "token", "credential", "key")
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


def _assignment_finding(text: str, hit: int) -> SecretFinding | None:
    match = _ASSIGNMENT_RE.match(text, hit, min(len(text), hit + 600))
    if match is None or not _keyword_starts_identifier_part(text, hit):
        return None
    in_query = hit > 0 and text[hit - 1] in "?&"  # https://…/api?key=…&q=…
    if match.group("keyword").lower() == "key" and not _credential_key_prefix(text, hit) and not in_query:
        return None
    if match.group("quoted") is not None:
        value, span = match.group("quoted"), match.span("quoted")
        # (a URL's query is never quoted: "`?key=` in a URL" is prose about one)
        secret = len(value.strip()) >= 4 and not _is_placeholder(value) and not in_query
    else:
        value, span = match.group("bare"), match.span("bare")
        if in_query:  # the value ends at the next parameter; a credential is a generated string
            value = value.split("&", 1)[0]
            span = (span[0], span[0] + len(value))
            secret = _token_like(value)
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


def _env_assignment_finding(text: str, hit: int) -> SecretFinding | None:
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
        if _is_placeholder(value) or value.startswith(("$", "%")) or (
                _only_auth(match.group("name")) and not _token_like(value)):
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
    if _is_placeholder(value) or _CALL_RE.match(value):
        return False
    if _IDENTIFIER_RE.fullmatch(value) and not any(c.isdigit() for c in value):
        return False  # self.password, os.environ["X"], a type name
    return len(value) >= 6


_PEM_BEGIN_RE = lazy(r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END_RE = lazy(r"-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
# What follows a PEM header when its END line is missing (a truncated paste): whole lines of
# base64 or header fields, separated by newlines or literal "\n" escapes (a key inside a JSON
# string). A blank line or a line of prose ends it.
_PEM_LINE_END = r"(?=[ \t]*(?:\r?\n|\\n|[\"']|$))"
_PEM_BODY_RE = lazy(
    r"(?:[ \t]*(?:\r?\n|\\n)[ \t]*(?:[A-Za-z0-9+/=]+|(?:Proc-Type|DEK-Info|Comment):[^\n\\]*)" + _PEM_LINE_END + ")*"
)
_PEM_MAX_BODY = 16384
# How a private key that spans lines and kilobytes starts: a PEM header, a PuTTY key file.
_KEY_BLOCK_MARKS = ("-----BEGIN", "PuTTY-User-Key")


def may_hold_key_block(text: str) -> bool:
    """Could `text` hold a private-key block, the one secret far longer than a line? Every other
    secret found here spans at most about 1,200 characters after its trigger (a cut that keeps
    a few KB beyond itself sees it whole)."""
    return any(mark in text for mark in _KEY_BLOCK_MARKS)


_PEM_MARK = "-----BEGIN"  # where every PEM block starts (`_pem_findings` looks for nothing else)


def _pem_findings(text: str) -> Iterator[SecretFinding]:
    position = 0
    while True:
        begin_at = text.find(_PEM_MARK, position)
        if begin_at < 0:
            return
        begin = _PEM_BEGIN_RE.match(text, begin_at)
        if begin is None:
            position = begin_at + 10
            continue
        end = _PEM_END_RE.search(text, begin.end(), begin.end() + _PEM_MAX_BODY)
        if end is not None:
            stop = end.end()
        else:
            body = _PEM_BODY_RE.match(text, begin.end(), begin.end() + _PEM_MAX_BODY)
            stop = body.end() if body else begin.end()
        yield SecretFinding("private-key", begin.start(), stop)
        position = stop


_Finder = Callable[[str, int], "SecretFinding | None"]


def _own_triggers() -> dict[str, list[_Finder]]:
    table: dict[str, list[_Finder]] = collections.defaultdict(list)
    for pattern in _PATTERNS:
        for trigger in pattern.triggers:
            table[trigger].append(pattern.find)
    for trigger in _KEYWORD_TRIGGERS:
        table[trigger].append(_assignment_finding)
    for trigger in ("password", "passwd", "passphrase", "secret", "token", "key", "pwd", "credential", "auth"):
        table[trigger].append(_env_assignment_finding)
    return dict(table)


# Where secrets live (omp.safety.credential_files, omp.safety.named_values): finders that yield
# `(kind, start, end)`, run at their triggers like the patterns above.
_PlaceFinder = Callable[[str, int], Iterable[tuple[str, int, int]]]


def _place_triggers() -> dict[str, list[_PlaceFinder]]:
    table: dict[str, list[_PlaceFinder]] = collections.defaultdict(list)
    for trigger, finders in credential_files.trigger_table().items():
        table[trigger].extend(finders)
    for trigger in named_values.TRIGGERS:
        table[trigger].append(_named_value)
    return dict(table)


def _named_value(text: str, hit: int) -> Iterable[tuple[str, int, int]]:
    found = named_values.named_value(text, hit)
    return () if found is None else (found,)


def _is_prefix_trigger(trigger: str) -> bool:
    """A trigger a token starts with (`ghp_`, `sk-`, `hvs.`, `akia`): a split check starts there."""
    if len(trigger) < 3 or not trigger[0].isalnum():
        return False  # `--`, `-u`, `://`: an option or a URL, not a token's start
    return trigger.endswith(encoded.PREFIX_ENDS) or trigger in ("akia", "asia", "aiza", "eyj", "xox", "dapi", "akcp")


def _look_again(text: str) -> list[tuple[str, int, int]]:
    """Every secret in a decoded or joined text, without decoding or joining it again."""
    return [(f.kind, f.start, f.end) for f in _find_secrets(text, nested=True)]


def _pattern_findings(text: str, hits: Iterable[tuple[int, str]], nested: bool = False) -> Iterator[SecretFinding]:
    yield from _pem_findings(text)
    prefix_starts = []
    place_hits = []
    for at, trigger in hits:
        for finder in _OWN_TRIGGERS.get(trigger, ()):
            finding = finder(text, at)
            if finding is not None:
                yield finding
        if trigger in _PLACE_TRIGGERS:
            place_hits.append((at, trigger))
        if trigger in _PREFIX_TRIGGERS:
            prefix_starts.append(at)
            partial = encoded.partial_token(text, at, trigger)
            if partial is not None:
                yield SecretFinding(*partial)
        elif trigger in _GLUE_TRIGGERS:
            glued = encoded.glue_start(text, at)
            if glued is not None:
                prefix_starts.append(glued)
    # After the patterns': of two generic findings of one span, the first one's kind is kept.
    for at, trigger in place_hits:
        for place_finder in _PLACE_TRIGGERS[trigger]:
            for kind, start, end in place_finder(text, at):
                yield SecretFinding(kind, start, end)
    runs = encoded.runs(text)
    places = (credential_files.pgpass_findings(text),
              encoded.run_findings(text, runs, None if nested else _look_again),
              () if nested else encoded.split_findings(text, runs, prefix_starts, _look_again))
    for found in places:
        for kind, start, end in found:
            yield SecretFinding(kind, start, end)


# --------------------------------------------------------------------------------------------
# detect-secrets

# Plugins with a literal prefix the prefilter can look for. (Discord, Telegram and Twilio
# tokens have none, so they would never be shown a line; they are left out rather than
# pretended.)
_DS_PLUGINS = (
    "AWSKeyDetector",
    "AzureStorageKeyDetector",
    "BasicAuthDetector",
    "GitHubTokenDetector",
    "GitLabTokenDetector",
    "JwtTokenDetector",
    "KeywordDetector",
    "MailchimpDetector",
    "NpmDetector",
    "OpenAIDetector",
    "PrivateKeyDetector",
    "PypiTokenDetector",
    "SendGridDetector",
    "SlackDetector",
    "SquareOAuthDetector",
    "StripeDetector",
)

_DS_KINDS = {
    "AWS Access Key": "aws-access-key",
    "Azure Storage Account access key": "azure-storage-key",
    "Basic Auth Credentials": "url-credentials",
    "GitHub Token": "github-token",
    "GitLab Token": "gitlab-token",
    "JSON Web Token": "jwt",
    "Secret Keyword": "password-assignment",
    "Mailchimp Access Key": "mailchimp-key",
    "NPM tokens": "npm-token",
    "OpenAI Token": "openai-key",
    "Private Key": "private-key",
    "PyPI upload token": "pypi-token",
    "SendGrid API Key": "sendgrid-key",
    "Slack Token": "slack-token",
    "Square OAuth Secret": "square-oauth-secret",
    "Stripe Access Key": "stripe-key",
}

# The plugins' literal prefixes, each written once, as its plugin matches it. Most plugins match
# theirs case-sensitively, so such a prefix must stand in the text in that case: `acca` in a git
# SHA cannot start an AWS key id (`ACCA…`), and a line whose only trigger is such a prefix in
# another case goes to detect-secrets no more (its load and scan cost far more than this check).
# A line holding a keyword still goes (`_alone`): a keyword form only detect-secrets knows must
# not depend on whether a SHA beside it happens to hold `acca`.
_DS_EXACT_CASE_PREFIXES = (
    "AKIA", "ASIA", "ABIA", "ACCA", "A3T",  # AWS key ids: [A-Z0-9]{16} follows
    "ghp_", "gho_", "ghs_", "ghu_", "ghr_", "glpat-", "eyJ", "-us", "npm_", "sk-",
    "PRIVATE KEY", "PuTTY", "pypi-", "SG.", "sq0csp", "sk_live", "rk_live", "sk_test", "rk_test",
    # npm's: an .npmrc's `//registry/:_authToken=…` holds neither "npm_" (a legacy token is hex)
    # nor "://", so this line never reached detect-secrets (tests/test_secrets_prefilter.py)
    "/:_authToken=",
    # GitLab's other token kinds (its plugin's denylist): deploy, feed, OAuth, runner, CI/CD,
    # incoming-mail, trigger, agent and OAuth-application tokens, and runner registration.
    "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-", "glagent-", "gloas-", "GR1348941",
)
# The prefixes that count in any case (the Slack plugin ignores case; "github_pat_" is kept as it
# was; "://" counts only before a `user:password@`, see `_DS_PREFIX_FOLLOW`).
_DS_ANY_CASE_PREFIXES = ("://", "github_pat_", "xox", "hooks.slack")
_DS_EXACT_CASE = {prefix.lower(): prefix for prefix in _DS_EXACT_CASE_PREFIXES}
# What must follow a prefix (in the lower-cased text) for any plugin to match there: each a
# necessary condition read off the plugin's pattern, looser than it (case folded, lengths at
# their minimum), never a copy of it. Without it, "en-us", "task-list" or any URL brought its line
# to detect-secrets, whose load alone costs a review ≈ 70 ms and 7 MB (hashlib, OpenSSL,
# logging, multiprocessing): a hook payload's "plugin-userPromptSubmitted" did. A prefix
# not listed brings its line as before. tests/test_secrets_prefilter.py holds every line this
# skips to detect-secrets finding nothing in it.
_DS_PREFIX_FOLLOW: dict[str, LazyPattern] = {
    **{prefix: lazy(r"[0-9a-z]{16}") for prefix in ("akia", "asia", "abia", "acca")},  # AWS: [0-9A-Z]{16}
    "a3t": lazy(r"[0-9a-z]{17}"),
    **{prefix: lazy(r"[a-z0-9_]{36}") for prefix in ("ghp_", "gho_", "ghs_", "ghu_", "ghr_")},  # GitHub
    # GitLab: at least 20 of [A-Za-z0-9_-] (glcbt's optional "XY_" is of them too)
    **{prefix: lazy(r"[a-z0-9_\-]{20}") for prefix in (
        "glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-", "glagent-", "gloas-", "gr1348941")},
    "eyj": lazy(r"[a-z0-9_=\-]+\.[a-z0-9_=\-]"),  # a JWT: eyJ…, a dot, more of it
    "-us": lazy(r"[0-9]"),  # Mailchimp: …-us[0-9]{1,2}
    "sk-": lazy(r"[a-z0-9_\-]*t3blbkfj"),  # OpenAI: sk-…T3BlbkFJ…
    "pypi-": lazy(r"ageichlwas5vcmc|agendgvzdc5wexbplm9yzw"),  # pypi-AgEIcHlwaS5vcmc…, test.pypi's
    "sg.": lazy(r"[a-z0-9_\-]{22}\."),  # SendGrid: SG.{22}.{43}
    "sq0csp": lazy(r"-"),
    **{prefix: lazy(r"_[0-9a-z]{24}") for prefix in ("sk_live", "rk_live", "sk_test", "rk_test")},  # Stripe
    "://": lazy(r"[^\s@]*:[^\s@]*@"),  # basic auth: ://user:password@ (npm's `/:_authToken=` is a prefix of its own)
    "xox": lazy(r"[abposr]-[0-9]"),  # Slack: xox[abposr]-digits-…
    "hooks.slack": lazy(r"\.com/services/t"),
    # A private key's lines are found by omp's PEM scan, which drops what the plugin reports
    # (see _detect_secrets_findings): on its own such a prefix brings nothing.
    "private key": lazy(r"(?!)"), "putty": lazy(r"(?!)"),
}
_DS_FORMAT_TRIGGERS = (*_DS_EXACT_CASE, *_DS_ANY_CASE_PREFIXES)  # lower-case, as the text is searched
# The keyword plugin's words, its denylist spelled out (`api_?key` as "api_key" and "apikey"): it
# matches only where one of them stands, so a line goes to detect-secrets for a keyword only when
# it holds one, and an assignment or comparison follows it. ("key" or "pass" alone, in a JSON
# line's "key": or "passes:", brought a line and loaded detect-secrets for nothing: the plugin
# knows neither word on its own.) Azure's `AccountKey=` is one of them, "accountkey": the keyword
# rule's `=` after it is what its plugin needs too.
_DS_KEYWORD_TRIGGERS = tuple(
    spelled for word in (
        "api_?key", "auth_?key", "service_?key", "account_?key", "db_?key", "database_?key", "priv_?key",
        "private_?key", "client_?key", "db_?pass", "database_?pass", "key_?pass", "password", "passwd", "pwd",
        "secret", "contrase")  # contraseña and contrasena (an ASCII-lowered "CONTRASEÑA" keeps its Ñ)
    for spelled in dict.fromkeys((word.replace("_?", "_"), word.replace("_?", ""))))
# The AWS plugin's second form: a 40-character secret in quotes shortly after "aws" and a
# credential word (`aws_key "wJalr…"`), which has no `=` or `:` for the keyword rule to see.
_DS_AWS_TRIGGER = "aws"
_DS_TRIGGERS = frozenset(_DS_FORMAT_TRIGGERS + _DS_KEYWORD_TRIGGERS + (_DS_AWS_TRIGGER,))
_OWN_TRIGGERS = _own_triggers()
_PLACE_TRIGGERS = _place_triggers()
_GLUE_TRIGGERS = frozenset(encoded.GLUE_TRIGGERS)
_ALL_TRIGGERS = tuple(sorted(_DS_TRIGGERS | set(_OWN_TRIGGERS) | set(_PLACE_TRIGGERS) | _GLUE_TRIGGERS))
_PREFIX_TRIGGERS = frozenset(trigger for trigger in _ALL_TRIGGERS if _is_prefix_trigger(trigger))
# The keyword plugin's forms (those it uses on a line of no known file type), each by what must
# follow the word: an assignment or comparison (`password = x`, `password: x`, `password != "x"`,
# `password <- "x"`), or quotes and a semicolon (`private_key "x";`); or, before the word, a
# comparison (`"x" == my_password`: `_DS_KEYWORD_PRECEDE_RE`).
_DS_KEYWORD_FOLLOW_RE = lazy(r"[^\s=:]{0,40}\s*(?:=|:|!=|<-)|\S{0,100}?\s*['\"`][^\n]*;")
_DS_KEYWORD_PRECEDE_RE = lazy(r"[!=]{2,3}\s*\w*\Z")
_DS_AWS_FOLLOW_RE = lazy(r"[^\n]{0,45}?['\"][0-9a-zA-Z/+]{40}['\"]")
# What must follow a trigger for its line to be worth detect-secrets' time.
_DS_FOLLOW = {**{trigger: _DS_KEYWORD_FOLLOW_RE for trigger in _DS_KEYWORD_TRIGGERS},
              _DS_AWS_TRIGGER: _DS_AWS_FOLLOW_RE}
# Longer lines are shown to detect-secrets as a window around each trigger, so one huge line
# (a minified file, a 600 KB paste) never goes through it whole.
_LONG_LINE = 2000
_WINDOW = 400

_ds_state: dict[str, Any] = {"enabled": True}


def _import_detect_secrets(settings: dict[str, Any]) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """detect-secrets' `scan_line` and `transient_settings`, with every module a scan under
    `settings` uses (plugins, filters) imported now. Its plugins import `requests` for their
    online `verify`, which omp never calls: a scan finds, it never verifies (tests/test_safety.py
    checks that a redaction opens no connection)."""
    # Heavy (≈ 170 ms with requests): loaded only for a line one of its plugins could match.
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import transient_settings

    with transient_settings(settings):
        list(scan_line("omp"))  # imports the plugins and filters the settings name
    return scan_line, transient_settings


def _detect_secrets_scanner() -> Callable[[list[str]], list[list[tuple[str, str]]]] | None:
    """A function scanning lines with detect-secrets, or None when it is unavailable."""
    if "scan" in _ds_state:
        return _ds_state["scan"]
    settings = {"plugins_used": [{"name": name} for name in _DS_PLUGINS]}
    try:
        scan_line, transient_settings = _import_detect_secrets(settings)
    except Exception:  # any import problem: our own patterns carry on alone
        _ds_state["scan"] = None
        return None

    def scan(lines: list[str]) -> list[list[tuple[str, str]]]:
        results: list[list[tuple[str, str]]] = []
        with transient_settings(settings):
            for line in lines:
                try:
                    found = [(s.type, s.secret_value or "") for s in scan_line(line)]
                except Exception:  # a plugin bug must not stop redaction; our patterns remain
                    found = []
                results.append(found)
        return results

    _ds_state["scan"] = scan
    return scan


def set_detect_secrets_enabled(enabled: bool) -> None:
    """Tests use this to prove our own patterns stand alone when detect-secrets is missing."""
    _ds_state["enabled"] = enabled


def detect_secrets_available() -> bool:
    return _ds_state["enabled"] and _detect_secrets_scanner() is not None


def _candidate_segments(text: str, lowered: str, hits: Iterable[tuple[int, str]]) -> list[tuple[int, str]]:
    """(offset, segment) pieces of `text` worth showing detect-secrets, in order."""
    hits = sorted(hits)
    # Where a keyword (or "aws") stands: the one plugin with forms its rule cannot see (see _alone).
    positions = [at for at, trigger in hits if trigger in _DS_FOLLOW]
    segments: list[tuple[int, str]] = []
    last_stop = -1
    for at, trigger in (hit for hit in hits if hit[1] in _DS_TRIGGERS):
        if at < last_stop:
            continue  # this line (or window) is already taken
        follow = _DS_FOLLOW.get(trigger)
        if follow is not None and not follow.match(lowered, at + len(trigger)) and not (
                follow is _DS_KEYWORD_FOLLOW_RE and _DS_KEYWORD_PRECEDE_RE.search(lowered, max(0, at - 64), at)):
            continue  # a keyword (or "aws") none of its plugin's forms stands around
        start = text.rfind("\n", 0, at) + 1
        stop = text.find("\n", at)
        stop = len(text) if stop < 0 else stop
        if stop - start > _LONG_LINE:
            start, stop = _window(text, at, start, stop)
        if follow is None and not _prefix_may_match(text, lowered, at, trigger) and _alone(positions, at, start, stop):
            continue  # a prefix in the wrong case, or without what follows it in a secret
        segments.append((start, text[start:stop]))
        last_stop = stop
    return segments


def _prefix_may_match(text: str, lowered: str, at: int, trigger: str) -> bool:
    """Could a plugin match at this prefix? Only in its case (when its plugin minds case) and
    with what must follow it (`_DS_PREFIX_FOLLOW`)."""
    exact = _DS_EXACT_CASE.get(trigger)
    if exact is not None and not text.startswith(exact, at):
        return False
    follow = _DS_PREFIX_FOLLOW.get(trigger)
    return follow is None or follow.match(lowered, at + len(trigger)) is not None


def _alone(positions: list[int], at: int, start: int, stop: int) -> bool:
    """No keyword in `[start, stop)` but at `at`. A prefix that cannot match brings its line
    only when a keyword stands in it too: a keyword form only detect-secrets knows, which the
    keyword rule (`=`, `:` after it) does not pass, `password "x";`, must not depend on whether a
    prefix beside it is a real one. Another prefix that cannot match brings nothing either; one
    that can brings its line itself."""
    first, last = bisect.bisect_left(positions, start), bisect.bisect_left(positions, stop)
    return all(position == at for position in positions[first:last])


def _window(text: str, at: int, line_start: int, line_stop: int) -> tuple[int, int]:
    """A window of about ±_WINDOW around `at`, cut at spaces so no token is split."""
    lo = max(line_start, at - _WINDOW)
    hi = min(line_stop, at + _WINDOW)
    space = text.rfind(" ", max(line_start, lo - _WINDOW), lo)
    lo = space + 1 if space >= 0 else lo
    space = text.find(" ", hi, min(line_stop, hi + _WINDOW))
    hi = space if space >= 0 else hi
    return lo, hi


# Characters a finding is widened over, per kind, when detect-secrets reports only part of it.
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_\-.+/=~]")  # tiny, and matched char by char: compiled now
_PASSWORD_CHARS = re.compile(r"[^\s:/@'\"<>]")


def _widen(line: str, start: int, end: int, kind: str) -> tuple[int, int]:
    chars = _PASSWORD_CHARS if kind == "url-credentials" else _TOKEN_CHARS
    while start > 0 and chars.match(line, start - 1):
        start -= 1
    while end < len(line) and chars.match(line, end):
        end += 1
    return start, end


def _locate(line: str, kind: str, value: str) -> list[tuple[int, int]]:
    spans = []
    position = line.find(value) if value else -1
    while position >= 0:
        if kind == "password-assignment":
            spans.append((position, position + len(value)))  # keyword values are exact
        else:
            spans.append(_widen(line, position, position + len(value), kind))
        position = line.find(value, position + len(value))
    return spans


def _detect_secrets_findings(text: str, lowered: str, hits: list[tuple[int, str]]) -> Iterator[SecretFinding]:
    if not _ds_state["enabled"]:
        return
    segments = _candidate_segments(text, lowered, hits)
    if not segments:
        return
    scan = _detect_secrets_scanner()
    if scan is None:
        return
    for (offset, segment), found in zip(segments, scan([s for _, s in segments])):
        for secret_type, value in found:
            kind = _DS_KINDS.get(secret_type) or _slug(secret_type)
            if kind == "private-key":
                continue  # the PEM scan owns private keys and knows where the block ends
            # Reported but not locatable: hide the whole line rather than risk a leak.
            for start, end in _locate(segment, kind, value) or [(0, len(segment))]:
                yield SecretFinding(kind, offset + start, offset + end)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "secret"


# --------------------------------------------------------------------------------------------
# Public API


# Kinds that say less than a format match: on an overlap the specific kind names the union.
_GENERIC_KINDS = frozenset({"password-assignment", "bearer-token", "password-in-prose", "authorization-header",
                            "cookie", "secret-assignment", "login-credentials", "credential-file", "credentials-table",
                            "partial-token"})


def _merge(findings: Iterable[SecretFinding]) -> list[SecretFinding]:
    """Non-overlapping findings in text order; overlapping ones become one span."""
    ordered = sorted(findings, key=lambda f: (f.start, -(f.end - f.start), f.kind in _GENERIC_KINDS))
    merged: list[SecretFinding] = []
    for finding in ordered:
        if merged and finding.start < merged[-1].end:
            last = merged[-1]
            kind = finding.kind if last.kind in _GENERIC_KINDS and finding.kind not in _GENERIC_KINDS else last.kind
            merged[-1] = SecretFinding(kind, last.start, max(last.end, finding.end))
            continue
        merged.append(finding)
    return merged


def find_secrets(text: str) -> list[SecretFinding]:
    """Every secret in `text`, as non-overlapping spans in text order.

    A secret disguised from the patterns — a zero-width character inside a token, fullwidth or
    styled letters — is looked for in the text as it shows (`_undisguised`), and its span is
    mapped back onto `text`, so the disguise is redacted with it."""
    if not text:
        return []
    if not text.isascii() and _DISGUISE.search(text):
        shown, removed = _undisguised(text)
        return [_span_in_original(finding, removed) for finding in _find_secrets(shown)]
    return _find_secrets(text)


def _find_secrets(text: str, nested: bool = False) -> list[SecretFinding]:
    lowered = _lowered(text)
    hits = _trigger_hits(lowered)
    if (not hits and _PEM_MARK not in text and not encoded.may_hold_run(text)
            and not credential_files.may_hold_pgpass(text)):
        # Nothing can be found: every own pattern and every detect-secrets segment starts at a
        # trigger, the PEM scan at its mark, the encoded rules at a run of 20 token
        # characters and the `.pgpass` rule at a `:port:` field. Most texts redacted (a tool request's command, a title) end here, without
        # the generators, sorts and merges below.
        return []
    own = sorted(_pattern_findings(text, hits, nested), key=lambda f: f.start)
    # A token's head (`partial-token`) gives way to what detect-secrets names it by.
    covered = _coverage([f for f in own if f.kind != "partial-token"])
    extra = [f for f in _detect_secrets_findings(text, lowered, hits) if not covered(f)]
    return _merge(own + extra)


# Characters that hide a secret from patterns of plain ASCII: invisible format characters
# (zero-width space and joiners, the soft hyphen, word joiner, BOM), variation selectors,
# fullwidth forms, the mathematical alphanumerics ("𝐠𝐡𝐩_…") and Greek or Cyrillic letters drawn
# like Latin ones ("ghр_…"). Only a text holding one is folded, at C speed (Chinese and Japanese
# text, whose punctuation is fullwidth, and Russian text, keep their own letters: they are not
# in the table, and a lookalike read as Latin makes no secret of a Russian word).
_DISGUISE = lazy("[\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufe00-\ufe0f\ufeff\uff01-\uff5e"
                 f"\U0001d400-\U0001d7ff{LOOKALIKE_LETTERS}]")
_INVISIBLE = lazy("[\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufe00-\ufe0f\ufeff]")
_shown_table: dict[int, int | str] = {}


def _undisguised(text: str) -> tuple[str, list[int]]:
    """`text` as it shows, and the offsets (in `text`) of the invisible characters taken out.
    Every other character keeps its place: a fullwidth or styled letter becomes the one letter
    it shows (NFKC), so offsets move only where an invisible one went."""
    if not _shown_table:
        import unicodedata  # only a disguised text needs the table: built once, on first need

        for start, stop in ((0xFF01, 0xFF5F), (0x1D400, 0x1D800)):
            for code in range(start, stop):
                shown = unicodedata.normalize("NFKC", chr(code))
                if len(shown) == 1 and shown.isascii():
                    _shown_table[code] = shown
        _shown_table.update(AS_LATIN)
    removed = [match.start() for match in _INVISIBLE.finditer(text)]
    shown = text.translate(_shown_table)
    if removed:
        shown = _INVISIBLE.sub("", shown)
    return shown, removed


def _span_in_original(finding: SecretFinding, removed: list[int]) -> SecretFinding:
    """A finding in the folded text, as a span of the original: the invisible characters before
    it shift it right; those inside it widen it."""
    if not removed:
        return finding
    # The i-th removed character sat just before folded offset removed[i] - i.
    gaps = [at - i for i, at in enumerate(removed)]
    start = finding.start + bisect.bisect_right(gaps, finding.start)
    end = finding.end + bisect.bisect_left(gaps, finding.end)
    return SecretFinding(finding.kind, start, end)


_OPTION_DASHES = "--"  # not a literal like the others: see _option_dashes
# Every trigger literal, looked for at once (omp.substrings): one sweep of the text finds every
# occurrence of every one of them, overlapping ones too. (Python's `re` has no multi-pattern
# search: a sweep per first letter, 20 patterns, cost a packet's redaction 3x as much.)
_TRIGGERS = SubstringSet(trigger for trigger in _ALL_TRIGGERS if trigger != _OPTION_DASHES)
_TRIGGER_RANK = {trigger: rank for rank, trigger in enumerate(_ALL_TRIGGERS)}


def _trigger_hits(lowered: str) -> list[tuple[int, str]]:
    """(offset, trigger) for every occurrence of every trigger literal in the text (overlapping
    ones too: "pass" and "password" at one offset), by trigger in `_ALL_TRIGGERS` order, each
    trigger's offsets ascending."""
    found: dict[str, list[int]] = {}
    for trigger, at in _TRIGGERS.occurrences(lowered):
        found.setdefault(trigger, []).append(at)
    dashes = _option_dashes(lowered)
    if dashes:
        found[_OPTION_DASHES] = dashes
    return [(at, trigger) for trigger in sorted(found, key=_TRIGGER_RANK.__getitem__) for at in found[trigger]]


def _option_dashes(lowered: str) -> list[int]:
    """Where an option starts: "--" and a letter. A ruler ("# ------") would be a hit at every
    dash."""
    offsets = []
    at = lowered.find(_OPTION_DASHES)
    while at >= 0:
        if lowered[at + 2 : at + 3].isalpha() and (at == 0 or lowered[at - 1] != "-"):
            offsets.append(at)
        at = lowered.find(_OPTION_DASHES, at + 2)
    return offsets


def _coverage(spans: list[SecretFinding]) -> Callable[[SecretFinding], bool]:
    """A test "does one of `spans` (sorted by start) contain this finding?", in log time."""
    starts = [s.start for s in spans]
    reach: list[int] = []  # the furthest end among spans starting at or before each one
    for span in spans:
        reach.append(max(span.end, reach[-1]) if reach else span.end)

    def covered(finding: SecretFinding) -> bool:
        index = bisect.bisect_right(starts, finding.start) - 1
        return index >= 0 and reach[index] >= finding.end

    return covered


def contains_secret(text: str) -> bool:
    return bool(find_secrets(text))


def redact(text: str) -> tuple[str, collections.Counter[str]]:
    """`text` with each secret replaced by `[REDACTED:<kind>]`, and the counts by kind."""
    counts: collections.Counter[str] = collections.Counter()
    findings = find_secrets(text)
    if not findings:
        return text, counts
    parts: list[str] = []
    position = 0
    for finding in findings:
        parts.append(text[position : finding.start])
        parts.append(redaction_marker(finding.kind))
        counts[finding.kind] += 1
        position = finding.end
    parts.append(text[position:])
    return "".join(parts), counts
