"""detect-secrets, as one more detector beside omp's own patterns (docs/secrets-and-poisoning.md).

Its *format* plugins (AWS, GitHub, private keys, JWT, basic auth, keywords, Slack, Stripe,
OpenAI, Azure, …) are a well-kept detector. Its entropy plugins are never enabled: they flag git
SHAs, UUIDs and hashes, and its online verification is never called. It is imported on first
need, and shown only the lines a cheap prefilter picks (a plugin's literal prefix, in the case
the plugin matches it, or a secret keyword followed by an assignment), because it costs
≈ 0.1–0.3 ms per line and redaction runs over megabytes. If it cannot be imported, our own
patterns still work.

detect-secrets reports *what* it found, not always *where* (a GitHub token comes back as "ghp",
a JWT without its signature), so each of its findings is located in the line and widened to
the whole token; when it cannot be located, the whole line is redacted rather than risk a leak.
"""

from __future__ import annotations

import bisect
import re
from typing import Any, Callable, Iterable, Iterator

from omp.lazyre import LazyPattern, lazy
from omp.safety.finding import SecretFinding


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
    # (see detect_secrets_findings): on its own such a prefix brings nothing.
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
DS_TRIGGERS = frozenset(_DS_FORMAT_TRIGGERS + _DS_KEYWORD_TRIGGERS + (_DS_AWS_TRIGGER,))
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
    for at, trigger in (hit for hit in hits if hit[1] in DS_TRIGGERS):
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


def detect_secrets_findings(text: str, lowered: str, hits: list[tuple[int, str]]) -> Iterator[SecretFinding]:
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
