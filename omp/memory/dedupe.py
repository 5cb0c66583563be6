"""When two memory items say the same thing (docs/behaviour.md#what-gets-written, docs/reference/commands.md).

Two texts are duplicates when

- they are equal after folding: Unicode NFKC, case folded, every run of punctuation and
  whitespace turned into one space; or
- their folded word sets are near-equal: Jaccard similarity |A ∩ B| / |A ∪ B| ≥ 0.85, where A
  and B are the sets of folded words with the articles "a", "an", "the" left out (so "Use the
  pnpm CLI" and "use pnpm cli" are the same rule, while word order and repetition never matter).

Standard library only.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Callable

from omp.lazyre import lazy

SIMILARITY_THRESHOLD = 0.85
_NON_WORD_RE = lazy(r"[\W_]+", re.UNICODE)
_IGNORED_WORDS = frozenset({"a", "an", "the"})
# Words that say *how* someone asks to forget, not *what*: "forget that we use pnpm", "olvida la
# regla de yarn", "vergiss die Regel mit yarn" (in the seven languages the explicit pass reads).
_REQUEST_WORDS = frozenset(
    {"a", "an", "the", "that", "this", "we", "i", "you", "our", "my", "it", "is", "are", "be", "to", "of",
     "about", "please", "forget", "remove", "drop", "rule", "rules", "directive", "directives", "note", "notes",
     # German
     "die", "der", "das", "den", "dem", "ein", "eine", "regel", "regeln", "mit", "über", "von", "zu", "zum", "zur",
     "dass", "wir", "ich", "bitte", "vergiss", "vergessen", "es", "ist",
     # Spanish
     "el", "la", "los", "las", "un", "una", "regla", "reglas", "de", "del", "sobre", "que", "lo", "olvida",
     "olvídate", "olvidate", "por", "favor", "nota",
     # French
     "le", "les", "une", "règle", "règles", "du", "des", "sur", "qu", "nous", "oublie", "oubliez", "concernant",
     # Portuguese
     "o", "os", "as", "um", "uma", "regra", "regras", "do", "da", "dos", "das", "esqueça", "esquece", "esqueca"}
)


def fold(text: str) -> str:
    """Case, punctuation and whitespace folded: the key for exact-duplicate checks."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return _NON_WORD_RE.sub(" ", text).strip()


def tokens(text: str) -> frozenset[str]:
    return folded_tokens(fold(text))


def folded_tokens(folded: str) -> frozenset[str]:
    """The word set of a text already folded (`fold`): what `tokens` gives, without folding twice."""
    words = folded.split()
    kept = frozenset(w for w in words if w not in _IGNORED_WORDS)
    return kept or frozenset(words)


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the folded word sets (0.0 when either has no words)."""
    ta, tb = tokens(a), tokens(b)
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)


def is_duplicate(a: str, b: str) -> bool:
    fa, fb = fold(a), fold(b)
    if fa and fa == fb:
        return True
    return similarity(a, b) >= SIMILARITY_THRESHOLD


def overlap(target: str, candidate: str) -> float:
    """Share of the target's words found in the candidate (for matching a forget request)."""
    tt = _match_words(_CJK_REQUEST_WORDS.sub(" ", fold(target))) - _REQUEST_WORDS
    tc = _match_words(fold(candidate))
    if not tt:
        return 0.0
    return len(tt & tc) / len(tt)


# "关于 yarn 的规则", "yarn のルール": the Chinese and Japanese for "the rule about".
_CJK_REQUEST_WORDS = lazy(r"关于|有关|的规则|规则|规定|这条|那条|这个|那个|我们|のルール|ルール|について|に関する|という")
_CJK_RUN = lazy(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]+")


def _match_words(folded: str) -> frozenset[str]:
    """The words a forget target is matched by: each word singular, and a run of Chinese or
    Japanese (written without spaces) as its pairs of characters ("用纱线" is "用纱", "纱线")."""
    words: set[str] = set()
    for word in folded.split():
        if word.isascii():
            words.add(_singular(word))
            continue
        words.update(_singular(piece) for piece in _CJK_RUN.sub(" ", word).split())  # "yarn" of "yarnのルール"
        for run in _CJK_RUN.findall(word):
            words.update(run[i:i + 2] for i in range(max(1, len(run) - 1)))
    return frozenset(words)


def _singular(word: str) -> str:
    """"merges" and "merge" are one word to a forget request ("forget the rule about squash
    merges" means "Squash merge every PR"): a final "s" is dropped from a word of four letters or more."""
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


class DedupeIndex:
    """Known texts, each with a label saying where it lives ("active directive", "note x", ...)."""

    # A plain class, not a dataclass: the sessionStart hook's render loads this module
    # (docs/performance.md, "Records and JSON").
    __slots__ = ("entries", "lookups", "folds")

    def __init__(self, entries: list[tuple[str, str, frozenset[str]]] | None = None,
                 folds: dict[str, tuple[str, frozenset[str]]] | None = None) -> None:
        self.entries = list(entries or ())
        # Each text folded once however many indexes are built over it: a batch passes one dict
        # to all of its indexes (a review builds one per kind of proposal, over the same stores).
        self.folds = folds if folds is not None else {}
        # Stores too large to hold here (the notes: omp.memory.note_catalog answers for them),
        # asked in their place among the entries: (entries before it, its lookup).
        self.lookups: list[tuple[int, Callable[[str], str | None]]] = []

    def add(self, label: str, text: str) -> None:
        known = self.folds.get(text)
        if known is None:
            folded = fold(text)
            known = self.folds[text] = (folded, folded_tokens(folded))
        self.entries.append((label, *known))

    def add_lookup(self, find: Callable[[str], str | None]) -> None:
        """Ask `find(text)` (a label, or None) after the entries added so far, before later ones."""
        self.lookups.append((len(self.entries), find))

    def find(self, text: str) -> str | None:
        """`label: text-ish` of the first known item `text` duplicates, or None."""
        folded = fold(text)
        words = folded_tokens(folded)
        lookups = iter(self.lookups)
        pending = next(lookups, None)
        for position, (label, known_fold, known_words) in enumerate(self.entries):
            while pending is not None and pending[0] == position:
                if found := pending[1](text):
                    return found
                pending = next(lookups, None)
            if folded and folded == known_fold:
                return label
            if words and known_words:
                if len(words & known_words) / len(words | known_words) >= SIMILARITY_THRESHOLD:
                    return label
        while pending is not None:
            if found := pending[1](text):
                return found
            pending = next(lookups, None)
        return None
