"""Judgements on one user message or sentence for the packet and the note gate (docs/explicit-requests-and-eval.md#the-packet, docs/reviewer-answer-schema.md):
a correction, a message to keep, a question, a one-off, a CJK imperative."""

from __future__ import annotations

import re
import unicodedata

from omp.intents.grammar import _polite_question
from omp.intents.wording import _asks
from omp.intents.messages import requests_in
from omp.intents.phrases import _CJK_IMPERATIVE, _FILLERS, _ONE_OFF, _has_cjk
from omp.intents.spoken import _FENCE, _QUOTE_LINE, _mask
from omp.lazyre import lazy

# ---------------------------------------------------------------------------------------------
# corrections, for the packet's priorities (docs/explicit-requests-and-eval.md#the-packet)

_CORRECTION = lazy(
    # "No problem, go ahead." and "Actually works great now" agree; "Hmm, no —", "Ugh, no." do not.
    rf"^(?!{_FILLERS}(?:no (?:problem|worries|rush|hurry|need)\b|actually,? (?:it |that |this )?(?:works|worked|looks|is (?:fine|great|good)|that'?s (?:fine|great|good))))"
    rf"(?:(?:hmm+|ugh+|uh+|um+|argh+|meh|well|oops|whoa)\b\s*[,.!…—–-]*\s*)?{_FILLERS}"
    r"(?:no\b|(?:eso|esto) no es\b|(?:ce|ça) n'est pas\b|c'est pas\b|isso não\b|não é (?:isso|o que)|das ist (?:nicht|falsch)\b"
    r"|(?:that|this|it) (?:broke|breaks|broken)\b|nope\b|nah\b|not (?:that|this|what|quite|the)\b|wrong\b|that'?s (?:wrong|not|incorrect)|that is (?:wrong|not)"
    r"|this is (?:wrong|not)|incorrect\b|actually\b|wait\b|stop\b|undo\b|revert\b|i (?:said|meant|asked|told you)\b"
    r"|you (?:misunderstood|broke|changed|removed|forgot|deleted|ignored)\b|don'?t do that|why did you\b|instead\b|rather\b"
    r"|the other one\b|nein\b|falsch\b|nicht (?:das|so)\b|ich meinte\b|eigentlich\b"
    r"|no,|no es\b|incorrecto\b|me refería\b|en realidad\b|non\b|pas ça\b|je voulais dire\b|en fait\b"
    r"|não\b|errado\b|eu quis dizer\b|na verdade\b"
    r"|不对|不是|错了|不要这样|我说的是|应该是|其实|違う|違います|いいえ|そうじゃな|ではなく)",
    re.I,
)


def is_correction(text: str) -> bool:
    """Does a user message correct what came before ("no, the other one")? Its first line says."""
    first = text.lstrip()[:300].split("\n", 1)[0].strip()
    if not first or _FENCE.match(first) or _QUOTE_LINE.match(first):
        return False  # a message that opens with a paste
    return bool(_CORRECTION.match(unicodedata.normalize("NFKC", first)))


def asks_to_keep(text: str) -> bool:
    """A user message the packet must carry whatever the budget: a correction or a request."""
    return is_correction(text) or next(requests_in(text), None) is not None


# ---------------------------------------------------------------------------------------------
# one sentence judged the way the explicit pass judges it (the note gate, omp.review.note_gate)


def is_question(sentence: str) -> bool:
    """A question that is not a polite ask ("Is it always necessary to run the full suite?";
    not "Could you remember that CI runs on Node 20?")."""
    return _asks(sentence) and not _polite_question(_mask(sentence))


def is_one_off(sentence: str) -> bool:
    """Does the sentence name this answer, this run, "for now" (in each language)?"""
    return bool(_ONE_OFF.search(_mask(sentence)))


def imperative_cjk(sentence: str) -> bool:
    """A Chinese or Japanese request or prohibition form ("…してください", "千万不要…")."""
    return _has_cjk(sentence) and bool(_CJK_IMPERATIVE.search(sentence.strip()))
