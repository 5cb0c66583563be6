"""Secret detection and redaction (docs/secrets-and-poisoning.md): find every secret in a text, and redact it.

Secrets are found by detectors whose findings are merged, each a module of its own:

- omp's own patterns (`omp.safety.patterns`: the one table of them, and PEM private-key blocks)
  and credentials given to a name (`omp.safety.assignments`: `password=`, `PGPASSWORD=…`);
- detect-secrets' format plugins (`omp.safety.detect_secrets_adapter`), optional, imported on
  first need and shown only the lines a prefilter picks;
- where secrets live: credential files by their layout (`credential_files`), a generated value
  given to a secret-named thing in any syntax (`named_values`), base64 looked at again, headless
  PEM bodies and split tokens (`encoded`). `_pattern_findings` wires them in.

Speed: Python's `re` has no multi-pattern search, and a dozen patterns with a leading `\\b`
each walk the whole text (≈ 30 MB/s apiece). So every pattern names the literal triggers it
cannot match without ("ghp_", "aws", "://", "password", …); one sweep of an ASCII-lowered copy
finds them all (`_trigger_hits`, an Aho-Corasick automaton: omp.substrings), and each pattern
runs only in a small window at each of its triggers.

A text that disguises a secret (a zero-width character inside it, fullwidth letters, a Cyrillic
letter drawn like a Latin one) is read as it shows and the findings mapped back
(`omp.safety.disguise`).
"""

from __future__ import annotations

import bisect
import collections
from typing import Callable, Iterable, Iterator

from omp.safety import credential_files, encoded, named_values
from omp.safety.assignments import KEYWORD_TRIGGERS, assignment_finding, env_assignment_finding
from omp.safety.detect_secrets_adapter import DS_TRIGGERS, detect_secrets_findings
from omp.safety.disguise import DISGUISE, span_in_original, undisguised
from omp.safety.finding import SecretFinding
from omp.safety.patterns import PATTERNS, PEM_MARK, pem_findings
from omp.substrings import SubstringSet

__all__ = [
    "contains_secret",
    "find_secrets",
    "may_hold_key_block",
    "redact",
    "redaction_marker",
]


def redaction_marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _lowered(text: str) -> str:
    """A lower-case copy with the same offsets (str.lower can lengthen a few characters)."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.translate(_ASCII_LOWER)


# How a private key that spans lines and kilobytes starts: a PEM header, a PuTTY key file.
_KEY_BLOCK_MARKS = ("-----BEGIN", "PuTTY-User-Key")


def may_hold_key_block(text: str) -> bool:
    """Could `text` hold a private-key block, the one secret far longer than a line? Every other
    secret found here spans at most about 1,200 characters after its trigger (a cut that keeps
    a few KB beyond itself sees it whole)."""
    return any(mark in text for mark in _KEY_BLOCK_MARKS)


_Finder = Callable[[str, int], "SecretFinding | None"]


def _own_triggers() -> dict[str, list[_Finder]]:
    table: dict[str, list[_Finder]] = collections.defaultdict(list)
    for pattern in PATTERNS:
        for trigger in pattern.triggers:
            table[trigger].append(pattern.find)
    for trigger in KEYWORD_TRIGGERS:
        table[trigger].append(assignment_finding)
    for trigger in ("password", "passwd", "passphrase", "secret", "token", "key", "pwd", "credential", "auth"):
        table[trigger].append(env_assignment_finding)
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


_OWN_TRIGGERS = _own_triggers()
_PLACE_TRIGGERS = _place_triggers()
_GLUE_TRIGGERS = frozenset(encoded.GLUE_TRIGGERS)
_ALL_TRIGGERS = tuple(sorted(DS_TRIGGERS | set(_OWN_TRIGGERS) | set(_PLACE_TRIGGERS) | _GLUE_TRIGGERS))
_PREFIX_TRIGGERS = frozenset(trigger for trigger in _ALL_TRIGGERS if _is_prefix_trigger(trigger))


def _look_again(text: str) -> list[tuple[str, int, int]]:
    """Every secret in a decoded or joined text, without decoding or joining it again."""
    return [(f.kind, f.start, f.end) for f in _find_secrets(text, nested=True)]


def _pattern_findings(text: str, hits: Iterable[tuple[int, str]], nested: bool = False) -> Iterator[SecretFinding]:
    yield from pem_findings(text)
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
    styled letters — is looked for in the text as it shows (`undisguised`), and its span is
    mapped back onto `text`, so the disguise is redacted with it."""
    if not text:
        return []
    if not text.isascii() and DISGUISE.search(text):
        shown, removed = undisguised(text)
        return [span_in_original(finding, removed) for finding in _find_secrets(shown)]
    return _find_secrets(text)


def _find_secrets(text: str, nested: bool = False) -> list[SecretFinding]:
    lowered = _lowered(text)
    hits = _trigger_hits(lowered)
    if (not hits and PEM_MARK not in text and not encoded.may_hold_run(text)
            and not credential_files.may_hold_pgpass(text)):
        # Nothing can be found: every own pattern and every detect-secrets segment starts at a
        # trigger, the PEM scan at its mark, the encoded rules at a run of 20 token
        # characters and the `.pgpass` rule at a `:port:` field. Most texts redacted (a tool request's command, a title) end here, without
        # the generators, sorts and merges below.
        return []
    own = sorted(_pattern_findings(text, hits, nested), key=lambda f: f.start)
    # A token's head (`partial-token`) gives way to what detect-secrets names it by.
    covered = _coverage([f for f in own if f.kind != "partial-token"])
    extra = [f for f in detect_secrets_findings(text, lowered, hits) if not covered(f)]
    return _merge(own + extra)


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
