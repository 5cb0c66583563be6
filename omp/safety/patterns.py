"""omp's own secret patterns (docs/secrets-and-poisoning.md): the one table of them, with the checks its entries name.

They cover what detect-secrets misses or reports without a usable span:
  `github_pat_…` and `gho_/ghs_/ghu_/ghr_` tokens, `sk-proj-…`/`sk-ant-…` keys, Google `AIza…`
  keys and `ya29.` OAuth tokens, Azure connection strings and SAS signatures, Slack `xapp-`/
  `xoxe-`, Stripe `whsec_`, credentials in URLs of any scheme (`redis://:pw@`, a password holding
  `@ : /`, Sentry DSNs), `Authorization:` headers, `curl -u user:pw`, `mysql -pPW`,
  `--password X`, "the password is X", an AWS secret key near the word "secret", bearer tokens,
  and PEM private-key blocks (which span lines, `pem_findings`); vendors' prefixed tokens
  detect-secrets has no plugin for (`omp.safety.vendors`), PuTTY key files,
  Docker and Kubernetes registry auth, cookies, `.netrc` lines, and an API key or token told in
  prose in the explicit pass's seven languages. (`password=`-style and environment-style
  assignments: `omp.safety.assignments`.) The classes detect-secrets finds too (AWS key ids,
  `ghp_`, Slack `xoxb-`, Stripe `sk_live_`, JWTs) stay here on purpose: detect-secrets is
  optional at import time and reports values rather than spans, so our pattern is the fallback
  and gives the span.

Every pattern names the literal triggers it cannot match without ("ghp_", "aws", "://",
"password", …): `omp.safety.secrets` finds them all in one sweep and runs each pattern only in a
small window at each of its triggers.

The patterns are compiled on first use (`omp.lazyre`): most texts hold the triggers of only a
few of them, and compiling all at import cost about 25 ms of every review.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Callable, Iterator

from omp.lazyre import LazyPattern, lazy
from omp.safety import vendors
from omp.safety.finding import SecretFinding


@dataclass(frozen=True)
class _Pattern:
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


def is_placeholder(value: str) -> bool:
    return bool(_PLACEHOLDER_RE.match(value.strip()))


def _not_placeholder(match: re.Match[str]) -> bool:
    return not is_placeholder(match.group("secret"))


def _has_digit(match: re.Match[str]) -> bool:
    return any(c.isdigit() for c in match.group("secret"))


def _url_password(match: re.Match[str]) -> bool:
    value = match.group("secret")
    # "host:8080/path@x" is a port and a path, not a password.
    return not re.match(r"^\d{1,5}(?:/.*)?$", value) and not is_placeholder(value)


def _is_base64_credentials(match: re.Match[str]) -> bool:
    value = match.group("secret")
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded  # user:password


def _cli_user_value(match: re.Match[str]) -> bool:
    value = match.group("secret")
    return not is_placeholder(value) and not value.isdigit()  # `docker run -u 1000:1000`


# Words that follow `--password` in documentation rather than a password.
_CLI_PROSE = frozenset(
    "option options flag flags argument arguments parameter parameters switch is are and or to "
    "with for instead of on in was were must can will".split()
)


def _cli_value(match: re.Match[str]) -> bool:
    value = match.group("secret")
    return not is_placeholder(value) and not value.startswith("-") and value.lower() not in _CLI_PROSE


# What follows "the password is" in prose or code without being a password: a word in any
# language ("wrong", "None", "válido"), a dotted name (`token is Name.Other` in a lexer).
_PROSE_WORDS = lazy(r"^(?:[^\W\d_]+|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)[.,;:!?)\]]*$")


def _prose_secret(match: re.Match[str]) -> bool:
    value = match.group("secret")
    if is_placeholder(value.rstrip(".,;:!?)]}")):
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
    return len(value) >= 4 and not value.isalpha() and not is_placeholder(value)


def _aws_secret_shape(match: re.Match[str]) -> bool:
    value = match.group("secret")
    return any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)


def token_like(value: str) -> bool:
    """Long, with letters and digits: a generated credential, not a word or a setting."""
    return len(value) >= 12 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _secret_token_like(match: re.Match[str]) -> bool:
    return token_like(match.group("secret"))


def _holds_a_session_cookie(match: re.Match[str]) -> bool:
    """A Cookie header is a credential when one of its values is generated (theme=dark is not)."""
    return any(token_like(pair.partition("=")[2].strip()) for pair in match.group("secret").split(";"))


PATTERNS: tuple[_Pattern, ...] = (
    *(_Pattern(kind, lazy(pattern), triggers) for kind, pattern, triggers in vendors.TOKENS_BY_PREFIX),
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

PEM_MARK = "-----BEGIN"  # where every PEM block starts (`pem_findings` looks for nothing else)


def pem_findings(text: str) -> Iterator[SecretFinding]:
    position = 0
    while True:
        begin_at = text.find(PEM_MARK, position)
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
