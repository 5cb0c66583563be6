"""Secrets that do not show as themselves: encoded, wrapped, headless or split (docs/secrets-and-poisoning.md).

- **base64 that decodes to a secret**: a base64-wrapped `ghp_` token, a kubeconfig's
  `client-key-data` (a PEM key, encoded again), a Kubernetes Secret's `data:` values. Each
  plausible base64 run is decoded and, when it decodes to text, looked at again with every rule;
  a secret inside hides the whole run. Binary (an image, a digest, a SHA read as base64) does not
  decode to text and stays.
- **a PEM body without its BEGIN line** (a paste that lost its first line, a key in a JSON
  string): three or more whole lines of 64 (or 70, 76) base64 characters, hidden when an
  `-----END … PRIVATE KEY-----` line closes them or when they decode to a private key's own
  structure (DER `SEQUENCE { INTEGER 0|1, … }`, OpenSSH's `openssh-key-v1`). A certificate's body
  (`SEQUENCE { SEQUENCE …`) and an image's stay.
- **tokens without a prefix of their own**, told by their structure: a Discord bot token (three
  base64url parts, the first a user id's digits), a Twilio API key (`SK` + 32 hex) and the auth
  token (32 hex) that follows an account SID (`AC` + 32 hex, itself no secret), Mailgun's
  `key-` + 32 hex.
- **a token split** across lines, by a string concatenation (`"ghp_abc" + "def…"`,
  `'sk-' . '…'`, `"a" "b"`) or by markup (`ghp_abc<!---->def…`): where a token's characters stop at
  such a joiner, the parts are joined and looked at again, and a secret found across a joint is
  hidden in the original, joiners and all.

All of it reads *runs* of token characters found by one regex sweep (`_RUN`, anchored at a run's
start so each run is read once), and the split check also starts at the prefix triggers the
other rules already swept for. Findings are `(kind, start, end)`.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Callable, Iterable, Iterator

from omp.lazyre import lazy
from omp.safety.named_values import looks_random

Found = tuple[str, int, int]
LookAgain = Callable[[str], list[Found]]

_RUN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-=")
_LONG = 20  # the shortest run read as a token, base64 or a PEM line
_DIGITS = lazy(r"\d")
_HEX = frozenset("0123456789abcdefABCDEF")
_PEM_WIDTHS = (64, 70, 76)
_PEM_END = lazy(r"[ \t]*(?:\r?\n|\\n)?[ \t]*-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_DISCORD_TAIL = lazy(r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])")
_TWILIO_TOKEN = lazy(r"(?<![0-9a-fA-F])[0-9a-f]{32}(?![0-9a-fA-F])")
_MAX_DECODE = 65536


def _printable(data: bytes) -> bool:
    if len(data) < 8:
        return False
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return sum(c.isprintable() or c in "\r\n\t" for c in text) >= 0.97 * len(text)


def _b64decode(run: str) -> bytes | None:
    body = run.rstrip("=")
    if len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        if "-" in body or "_" in body:
            if "+" in body or "/" in body:
                return None
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None


def _mixed(run: str) -> bool:
    """Base64 of text has both cases and digits; a path, a word or a hex digest has not."""
    return run.lower() != run and run.upper() != run and _DIGITS.search(run) is not None


def _is_private_key_der(data: bytes) -> bool:
    """DER of a private key: SEQUENCE, then INTEGER 0 or 1 (PKCS#1, PKCS#8, SEC1); or an
    OpenSSH key. A certificate's SEQUENCE opens with another SEQUENCE."""
    if data.startswith(b"openssh-key-v1\x00"):
        return True
    if len(data) < 8 or data[0] != 0x30:
        return False
    length = data[1]
    at = 2 + (length & 0x7F if length & 0x80 else 0)
    return data[at:at + 3] in (b"\x02\x01\x00", b"\x02\x01\x01")


def _vendor(text: str, start: int, end: int) -> Found | None:
    run = text[start:end]
    if len(run) == 34 and run[:2] == "SK" and all(c in _HEX for c in run[2:]):
        return ("twilio-key", start, end)
    if run.startswith("key-") and len(run) == 36 and all(c in _HEX for c in run[4:]):
        return ("mailgun-key", start, end)
    if 36 <= len(run) <= 37 and run[32:35] == "-us" and run[35:].isdigit() and all(c in _HEX for c in run[:32]):
        return ("mailchimp-key", start, end)
    if len(run) == 50 and run[32] == run[41] == "-" and all(c in _HEX for c in run.replace("-", "")):
        return ("mailgun-key", start, end)  # Mailgun's newer keys: 32-8-8 hex
    if 23 <= len(run) <= 28 and run[0] in "MNO" and end < len(text) and text[end] == ".":
        tail = _DISCORD_TAIL.match(text, end, min(len(text), end + 60))
        decoded = _b64decode(run) if tail else None
        if tail and decoded and decoded.isdigit():
            return ("discord-bot-token", start, tail.end())
    return None


def _twilio_auth_token(text: str, start: int, end: int) -> Found | None:
    """The 32-hex auth token that follows an account SID (`AC` + 32 hex, not a secret itself)."""
    run = text[start:end]
    if not (len(run) == 34 and run[:2] == "AC" and all(c in _HEX for c in run[2:])):
        return None
    token = _TWILIO_TOKEN.search(text, end, min(len(text), end + 160))
    return ("twilio-auth-token", *token.span()) if token else None


def _whole_line(text: str, start: int, end: int) -> bool:
    """Does the run fill its line (indentation aside), or a `\\n`-separated piece of a string?"""
    before = start
    while before > 0 and text[before - 1] in " \t":
        before -= 1
    starts = before == 0 or text[before - 1] in "\n\"'" or text[before - 2:before] == "\\n"
    return starts and (end == len(text) or text[end] in "\r\n\"'" or text.startswith("\\n", end))


def _ends_line(text: str, end: int) -> bool:
    return end == len(text) or text[end] in "\r\n" or text.startswith("\\n", end)


def _between_lines(text: str, end: int, start: int) -> bool:
    gap = text[end:start]
    return gap.strip(" \t\r") in ("\n", "\\n")


def _pem_body(text: str, lines: list[tuple[int, int]]) -> Found | None:
    """A run of base64 lines: a private key's body when an END line closes it or it decodes to a
    private key's structure."""
    # Every line but the last is as wide as the format's (the first may be a line's tail: a
    # body pasted after "here it is: ").
    widths = {end - start for start, end in lines[1:-1]}
    if len(lines) < 3 or len(widths) != 1 or (width := widths.pop()) not in _PEM_WIDTHS:
        return None
    if lines[0][1] - lines[0][0] > width:
        return None
    last_end = lines[-1][1]
    closing = _PEM_END.match(text, last_end, min(len(text), last_end + 80))
    if closing is not None:
        return ("private-key", lines[0][0], closing.end())
    data = _b64decode("".join(text[start:end] for start, end in lines[:4])[:256])
    if data is not None and _is_private_key_der(data):
        return ("private-key", lines[0][0], last_end)
    return None


def _decoded_secret(text: str, start: int, end: int, look_again: LookAgain | None) -> Found | None:
    run = text[start:end]
    if look_again is None or len(run) > _MAX_DECODE or not (_mixed(run) or run.endswith("=")):
        return None
    data = _b64decode(run)
    if data is None or not _printable(data):
        return None
    found = look_again(data.decode("utf-8"))
    return (f"base64-{found[0][0]}", start, end) if found else None


# Token characters as "x", every other byte as a space: a run of 20 is then a literal the
# regex engine finds at C speed (a character-class pattern tried at every offset cost 18 ms per
# MB of source code; this costs 4).
_RUN_CHARS_MAP = bytes(ord("x") if chr(i) in _RUN_CHARS and chr(i) != "=" else ord(" ") for i in range(256))
_XRUN = re.compile(b"x" * 20 + b"x*")


def runs(text: str) -> list[tuple[int, int]]:
    """Every run of 20 or more token characters (and its `=` padding): what the checks below read.
    The text is read as ASCII, one byte per character (any other character is not a token's),
    so offsets are the text's."""
    marked = text.encode("ascii", "replace").translate(_RUN_CHARS_MAP)
    spans = []
    for match in _XRUN.finditer(marked):
        start, end = match.span()
        while end < len(text) and end - match.end() < 2 and text[end] == "=":
            end += 1
        spans.append((start, end))
    return spans


def run_findings(text: str, spans: list[tuple[int, int]], look_again: LookAgain | None) -> Iterator[Found]:
    """Secrets among the runs of token characters: vendors' structured tokens, base64 that decodes
    to a secret, PEM bodies without their BEGIN line. `look_again` (None inside a decoded text:
    one level of decoding) finds secrets in a decoded text."""
    lines: list[tuple[int, int]] = []
    for start, end in spans:
        if end - start < _LONG:
            continue
        found = _vendor(text, start, end) or _twilio_auth_token(text, start, end)
        if found is not None:
            yield found
            continue
        if _whole_line(text, start, end) or _ends_line(text, end):
            if lines and not (_between_lines(text, lines[-1][1], start) and _whole_line(text, start, end)):
                body = _pem_body(text, lines)
                if body is not None:
                    yield body
                lines = []
            lines.append((start, end))
        found = _decoded_secret(text, start, end, look_again)
        if found is not None:
            yield found
    if lines:
        body = _pem_body(text, lines)
        if body is not None:
            yield body


def may_hold_run(text: str) -> bool:
    """Could `text` hold a run the checks here read (the shortcut of a text with no trigger)?"""
    return len(text) >= _LONG and bool(runs(text))


# --------------------------------------------------------------------------------------------
# Split tokens

_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.")
_JOINER = lazy(
    r"""(?:["'`][ \t]*(?:\+|\.|\.\.|&|\|\||~)?[ \t]*(?:\\?\r?\n[ \t]*(?:\+|\.|&)?[ \t]*)?["'`]  # "a" + "b", 'a' . 'b'
      |<!--[^>\n]{0,40}-->|<wbr\s*/?>|</?(?:span|b|i|em|strong|code)>                       # markup
      |\\\r?\n[ \t]*|\\n|\r?\n[ \t]*(?:>[ \t]?)*                                          # line breaks
    )(?=[A-Za-z0-9_+/-])""",
    re.VERBOSE,
)
_MAX_PARTS = 6
_MAX_JOINED = 600


_TOKEN_RUN = lazy(r"[A-Za-z0-9_+/=.-]{0,400}")


def _token_end(text: str, at: int) -> int:
    match = _TOKEN_RUN.match(text, at)
    return match.end() if match else at


def _joined(text: str, start: int) -> tuple[str, list[tuple[int, int]]] | None:
    """The token starting at `start` with its parts joined across joiners: the joined text (from
    its line's start, so a keyword before it is seen) and the original span of each piece."""
    line_start = max(text.rfind("\n", 0, start) + 1, start - 120)
    pieces = [(line_start, _token_end(text, start))]
    for _ in range(_MAX_PARTS):
        joiner = _JOINER.match(text, pieces[-1][1], min(len(text), pieces[-1][1] + 80))
        if joiner is None:
            break
        end = _token_end(text, joiner.end())
        pieces.append((joiner.end(), end))
        if sum(b - a for a, b in pieces) > _MAX_JOINED:
            break
    if len(pieces) == 1:
        return None
    last = pieces[-1][1]
    pieces[-1] = (pieces[-1][0], min(len(text), last + 3))  # a closing quote, for the keyword rules
    return "".join(text[a:b] for a, b in pieces), pieces


def _original(pieces: list[tuple[int, int]], offset: int, at_end: bool) -> int:
    for a, b in pieces:
        if offset < b - a or (at_end and offset == b - a):
            return a + offset
        offset -= b - a
    return pieces[-1][1]


def split_findings(text: str, spans: list[tuple[int, int]], prefix_starts: Iterable[int],
                   look_again: LookAgain) -> Iterator[Found]:
    """Secrets across a joiner, from each candidate token start: a prefix trigger's offset, or a
    run of 20 token characters with a digit that ends at a joiner, or a token before a
    concatenation or markup (`glue_start`): a split token's first part, when its prefix is no
    trigger."""
    starts = set(prefix_starts)
    for start, end in spans:
        if end < len(text) and text[end] in _JOINER_STARTS and _DIGITS.search(text, start, end):
            starts.add(start)
    done = -1
    for start in sorted(starts):
        if start < done:
            continue
        end = _token_end(text, start)
        if end - start < 3 or end >= len(text) or text[end] not in _JOINER_STARTS:
            continue
        if _JOINER.match(text, end, min(len(text), end + 80)) is None:
            continue
        joined = _joined(text, start)
        if joined is None:
            continue
        window, pieces = joined
        first_joint = pieces[0][1] - pieces[0][0]
        if any(b == first_joint and kind != "partial-token" for kind, a, b in look_again(window[:first_joint])):
            continue  # the token was whole before the joiner ("ghp_…\nnext line" is not one token)
        for kind, a, b in look_again(window):
            if a < first_joint < b:
                yield (kind, _original(pieces, a, False), _original(pieces, b, True))
                done = pieces[-1][1]


_JOINER_STARTS = frozenset("\"'`<\\\r\n")
# Where a string concatenation or markup starts (swept with the other triggers, in one pass):
# `"ghp_abc" + "def…"`, `'sk-' . '…'`, `"a" "b"`, `ghp_abc<!---->def…`.
GLUE_TRIGGERS = ('" +', '"+', "' +", "'+", "` +", "`+", "' .", "'.", '" .', '".', '" "', "' '", '" &', "' &",
                 "<!--", "<wbr", "<span", "</span")


def glue_start(text: str, hit: int) -> int | None:
    """The start of the token a concatenation or markup at `hit` follows (8 characters or more),
    or None."""
    start = hit
    while start > 0 and hit - start < 200 and text[start - 1] in _TOKEN_CHARS:
        start -= 1
    return start if hit - start >= 8 else None


def partial_token(text: str, hit: int, prefix: str) -> Found | None:
    """A vendor's prefix followed by 16 or more random-looking characters: a token, or the head
    of one cut off (a sentence cut at a line break, a wrapped line), which is a leak too."""
    if hit > 0 and (text[hit - 1].isalnum() or text[hit - 1] in "_-"):
        return None
    end = _token_end(text, hit + len(prefix))
    tail = text[hit + len(prefix):end].rstrip(".-")
    if len(tail) < 16 or not looks_random(tail, 16):
        return None
    return ("partial-token", hit, hit + len(prefix) + len(tail))


# Prefix triggers (lower case) a token starts with: a split check starts at each.
PREFIX_ENDS = ("_", "-", ".")
