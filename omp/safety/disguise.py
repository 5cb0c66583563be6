"""A text that disguises a secret (a zero-width character inside it, fullwidth letters, a
Cyrillic letter drawn like a Latin one), read as it shows, and its findings mapped back onto it."""

from __future__ import annotations

import bisect
import unicodedata

from omp.lazyre import lazy
from omp.safety.finding import SecretFinding
from omp.safety.lookalikes import AS_LATIN, LOOKALIKE_LETTERS


# Characters that hide a secret from patterns of plain ASCII: invisible format characters
# (zero-width space and joiners, the soft hyphen, word joiner, BOM), variation selectors,
# fullwidth forms, the mathematical alphanumerics ("𝐠𝐡𝐩_…") and Greek or Cyrillic letters drawn
# like Latin ones ("ghр_…"). Only a text holding one is folded, at C speed (Chinese and Japanese
# text, whose punctuation is fullwidth, and Russian text, keep their own letters: they are not
# in the table, and a lookalike read as Latin makes no secret of a Russian word).
DISGUISE = lazy("[\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufe00-\ufe0f\ufeff\uff01-\uff5e"
                 f"\U0001d400-\U0001d7ff{LOOKALIKE_LETTERS}]")
_INVISIBLE = lazy("[\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufe00-\ufe0f\ufeff]")
_shown_table: dict[int, int | str] = {}


def undisguised(text: str) -> tuple[str, list[int]]:
    """`text` as it shows, and the offsets (in `text`) of the invisible characters taken out.
    Every other character keeps its place: a fullwidth or styled letter becomes the one letter
    it shows (NFKC), so offsets move only where an invisible one went."""
    if not _shown_table:
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


def span_in_original(finding: SecretFinding, removed: list[int]) -> SecretFinding:
    """A finding in the folded text, as a span of the original: the invisible characters before
    it shift it right; those inside it widen it."""
    if not removed:
        return finding
    # The i-th removed character sat just before folded offset removed[i] - i.
    gaps = [at - i for i, at in enumerate(removed)]
    start = finding.start + bisect.bisect_right(gaps, finding.start)
    end = finding.end + bisect.bisect_left(gaps, finding.end)
    return SecretFinding(finding.kind, start, end)
