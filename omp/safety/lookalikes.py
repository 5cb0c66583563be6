"""Greek and Cyrillic letters drawn like Latin ones (Unicode's confusables for the letters an
attacker needs), one for one: the injection filter reads a word made of them as the Latin word it
shows, and secret detection reads a token with one in it ("ghр_…", a Cyrillic р) as the token.
Not "μ", "π" or "λ", which are read as themselves in "5 μs" or "λx"."""

from __future__ import annotations

LOOKALIKE_LETTERS = "аеорсухіјѕԁһӏԛԝАВЕКМНОРСТХІЈЅοαινκρυτΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"
LATIN_LETTERS = "aeopcyxijsdhlqwABEKMHOPCTXIJSoaivkputABEZHIKMNOPTYX"
AS_LATIN = str.maketrans(LOOKALIKE_LETTERS, LATIN_LETTERS)
