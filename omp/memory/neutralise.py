"""Making proposed text safe to store and to inject (SPEC §6.2).

Two different jobs:

- *neutralising* rewrites text so it cannot change the structure of the files it lands in:
  a directive or a title becomes one line; Markdown list and checkbox syntax at the start of a
  line (or where a line break was) is dropped, so a proposal can never forge an item of the
  pending checklist; HTML comment delimiters are removed, so no text can open, close or fake
  the managed block; invisible and bidirectional control characters are removed. This is pure
  standard library: the managed block re-applies it whenever it renders.
- *checking* refuses text that carries a secret or an instruction-injection pattern. It uses
  `omp.safety.secrets` and `omp.safety.injection` (detect-secrets underneath), imported only when a check runs.
"""

from __future__ import annotations

import re
import unicodedata

from omp.lazyre import lazy
from omp.safety.injection import injection_reasons

# Line separators Python's splitlines() knows, so no exotic separator survives as a line break.
_LINE_BREAK_RE = lazy(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
# `- [ ] x`, `* x`, `+ x`, `1. x`, `2) x`, `[x] x` at the start of a line.
_LIST_PREFIX_RE = lazy(r"^\s*(?:(?:[-*+]|\d{1,9}[.)])(?=\s|\[|$)\s*)?(?:\[[ xX]?\]\s*)?")
_COMMENT_RE = lazy(r"<!--|-->|--!>")
_FORGET_PREFIX_RE = lazy(r"^\s*forget\s*:\s*", re.IGNORECASE)
_SPACES_RE = lazy(r"[ \t]+")
_END_PUNCT = ".;:!?,"


def _drop_invisible(text: str) -> str:
    """Remove format (Cf: zero-width, bidi overrides) and control characters but tab/newline."""
    if text.isprintable():  # the common case, checked in C: nothing to remove
        return text
    return "".join(
        ch
        for ch in text
        if ch in "\t\n" or unicodedata.category(ch) not in ("Cf", "Cc", "Co", "Cs")
    )


def _drop_comment_delimiters(text: str) -> str:
    # Repeat: removing one delimiter can join the halves of another ("<!<!---->--").
    previous = None
    while previous != text:
        previous = text
        text = _COMMENT_RE.sub("", text)
    return text


def _strip_list_prefix(line: str) -> str:
    # Repeat so "- - [ ] x" or "1. - [x] x" cannot leave a second marker behind.
    previous = None
    while previous != line:
        previous = line
        line = _LIST_PREFIX_RE.sub("", line, count=1)
    return line


def neutralise_line(text: str) -> str:
    """One safe line: list/checkbox syntax and comment delimiters gone, breaks collapsed.

    Lines are joined with "; " (or a space after end punctuation) so "Rule A\\n- [ ] Rule B"
    stays one readable item instead of becoming two.
    """
    text = unicodedata.normalize("NFC", _LINE_BREAK_RE.sub("\n", text))
    text = _drop_comment_delimiters(_drop_invisible(text))
    joined = ""
    for raw in text.split("\n"):
        line = _SPACES_RE.sub(" ", _strip_list_prefix(raw)).strip()
        if not line:
            continue
        if joined:
            joined += " " if joined[-1] in _END_PUNCT else "; "
        joined += line
    return _drop_comment_delimiters(joined).strip()


def neutralise_directive(text: str) -> str:
    """A directive line; a leading "FORGET:" is reworded so it cannot pose as a removal proposal."""
    line = neutralise_line(text)
    if _FORGET_PREFIX_RE.match(line):
        line = _FORGET_PREFIX_RE.sub("Forget ", line, count=1).strip()
    return line


def neutralise_body(text: str) -> str:
    """Multi-line Markdown (note and draft bodies): keep lines, remove what could fake markers."""
    text = _LINE_BREAK_RE.sub("\n", text)
    text = _drop_comment_delimiters(_drop_invisible(text))
    lines = [line.rstrip() for line in text.split("\n")]
    return "\n".join(lines).strip("\n")


def stored_forms(text: str) -> list[str]:
    """`text` as given and as each store would write it.

    Checks run on every form: neutralising removes `<!---->`, control and invisible characters,
    and removing them can join the halves of a token ("ghp_abc<!---->def…" is stored as a whole
    `ghp_` token) or of an injection phrase.
    """
    forms = [text]
    for form in (neutralise_line(text), neutralise_body(text)):
        if form not in forms:
            forms.append(form)
    return forms


def secret_reason(*texts: str | None) -> str | None:
    """Why the texts may not be stored because of a secret, or None. Never echoes the secret."""
    # Not at the top: the managed block is rendered with this module, on the sessionStart hook's
    # path too, and the secret rules cost 19 ms to import; only storing an item needs them.
    from omp.safety.secrets import find_secrets

    kinds: list[str] = []
    for text in texts:
        if text:
            for form in stored_forms(text):
                kinds.extend(finding.kind for finding in find_secrets(form))
    if not kinds:
        return None
    return "contains a secret (" + ", ".join(sorted(set(kinds))) + ")"


def injection_reason(*texts: str | None) -> str | None:
    """Why the texts look like an instruction-injection attempt, or None."""
    reasons: list[str] = []
    for text in texts:
        if text:
            for form in stored_forms(text):
                reasons.extend(r for r in injection_reasons(form) if r not in reasons)
    if not reasons:
        return None
    return "looks like instruction injection (" + "; ".join(reasons) + ")"


def rejection_reason(*texts: str | None, check_injection: bool = True) -> str | None:
    """The first reason to refuse these texts (secret first, then injection), or None."""
    return secret_reason(*texts) or (injection_reason(*texts) if check_injection else None)
