"""The small text operations the grammar and the message readers share: a rule's text tidied,
courtesy and fillers cut, whether a text is rule-like, an imperative or a question."""

from __future__ import annotations

from omp.intents.phrases import (
    _CJK_IMPERATIVE,
    _FILLERS,
    _FLAGS,
    _LABEL,
    _POLITE,
    _QUESTION_END,
    _QUESTION_START,
    _has_cjk,
)
from omp.intents.request import MIN_RULE_CHARS
from omp.intents.spoken import _mask
from omp.lazyre import lazy

_TRAILING = " .!?;,:。！？；，：、"


def _tidy(text: str) -> str:
    return " ".join(text.split()).rstrip(_TRAILING)


_FILLERS_RE = lazy(rf"^{_FILLERS}{_LABEL}{_FILLERS}", _FLAGS)
_ONLY_FILLERS_RE = lazy(rf"^{_FILLERS}", _FLAGS)
_POLITE_START = lazy(rf"^(?:{_POLITE})+", _FLAGS)
_POLITE_RE = lazy(rf"(?:{_POLITE})+", _FLAGS)


def _strip_fillers_span(before: str) -> str:
    match = _FILLERS_RE.match(before)
    return match.group(0) if match else ""


def _strip_courtesy(text: str) -> str:
    """`text` without the courtesy before it ("ok so", "please"), a label kept ("create a rule: …")."""
    match = _ONLY_FILLERS_RE.match(text)
    return text[match.end():].strip() if match else text.strip()


def _strip_fillers(text: str) -> str:
    return text[len(_strip_fillers_span(text)):].strip()


def _drop_polite(lead: str) -> str:
    return _POLITE_RE.sub("", lead)


def _evidence(sentence: str) -> str:
    return " ".join(sentence.split())


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def _rule_like(text: str) -> bool:
    """Enough to be a rule: two words, or a CJK phrase of a few characters."""
    text = text.strip(_TRAILING)
    if _has_cjk(text):
        return len(text) >= 4
    return len(text.split()) >= 2 and len(text) >= MIN_RULE_CHARS


# How an imperative starts: a verb (not a pronoun, an article or a name of what happened), or
# "don't"; in Chinese and Japanese, a request or prohibition form (`_CJK_IMPERATIVE`).
_IMPERATIVE_START = lazy(
    rf"^{_FILLERS}(?:please\s+|bitte\s+|por favor,?\s+)?(?:don'?t\b|do not\b|(?!(?:it|its|it's|i|i'm|we|they|he|she|there|this|that|these|those"
    r"|the|a|an|my|our|your|his|her|their|es|ich|wir|das|der|die|ein|eine|il|elle|je|on|nous|ça|c'est|le|la|les|un|une"
    # "Currently when I ran the build I keep getting …": when it happens, then what happens
    r"|currently|recently|yesterday|today|sometimes|apparently|suddenly|somehow|still|usually|lately"
    # "now I have this error": "now" and a subject, what happens
    r"|now(?=\s+(?:i|we|it|there|the|this|that|they|you|he|she)\b)"
    r"|yo|eso|esto|el|los|las|ele|ela|eu|isso|isto|o|os|as|um|uma)\b)[^\W\d_]{2,}\b(?!'s)"
    # "Tests are flaky", "CI was red": a subject and its verb
    r"(?!\s+(?:are|is|was|were|has|have|had|seem|seems|will|would|can|could|might|may|sind|ist|war|waren|hat|haben"
    r"|son|es|está|están|fue|sont|est|était|são|é|estão|foi)\b))", _FLAGS)


def _imperative(sentence: str) -> bool:
    if _has_cjk(sentence):
        return bool(_CJK_IMPERATIVE.search(sentence.strip()))
    return bool(_IMPERATIVE_START.match(sentence.strip())) and not _asks(sentence)


def _asks(text: str) -> bool:
    """Is this a question ("Should we pin Node?"), which no list of rules holds as a rule?"""
    masked = _mask(text)
    return bool(_QUESTION_END.search(masked.rstrip(" .!")) or _QUESTION_START.match(masked))
