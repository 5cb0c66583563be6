"""Instruction injection in text meant for memory (docs/secrets-and-poisoning.md#planted-rules).

`injection_reasons(text)` says why a proposed note, directive or draft looks like an attempt to
steer the assistant: asks to ignore earlier instructions (in the seven languages the explicit
pass hears), claims to be new system instructions, sends secrets or local files over the
network, pipes downloaded code into a shell, edits an instruction file; and characters that hide
text (bidirectional controls, invisible and tag characters, variation selectors, blank-looking
letters). Patterns are matched on `fold_for_matching(text)`, so fullwidth letters, a zero-width
space inside a word or a Cyrillic "о" among Latin letters (a homoglyph) do not hide a phrase.
"""

from __future__ import annotations

import re
import unicodedata

from omp.lazyre import LazyPattern, lazy
from omp.safety.lookalikes import AS_LATIN, LOOKALIKE_LETTERS

__all__ = ["fold_for_matching", "injection_reasons"]


_INSTRUCTION_FILES = (
    r"(?:\.github/copilot-instructions\.md|copilot-instructions\.md|\.github/instructions/"
    r"|(?<![A-Za-z0-9_])AGENTS\.md|(?<![A-Za-z0-9_])CLAUDE\.md|(?<![A-Za-z0-9_])GEMINI\.md"
    r"|\.instructions\.md|\.cursorrules|\.github/hooks/|\.copilot/hooks/)"
)
_SECRET_VARIABLE = r"\$\{?[A-Za-z_]*(?:token|secret|key|passw(?:or)?d|pass|credential|auth)[A-Za-z_]*\}?"

_SHELL = r"(?:sudo\s+)?(?:ba|z|da|k|fi)?sh\b"
_FETCH = r"(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b"

_INJECTION_PATTERNS: tuple[tuple[str, LazyPattern], ...] = (
    (
        "asks to ignore previous instructions",
        lazy(
            r"(?i)\b(?:ignore|skip|override|bypass|disregard|forget)\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+|these\s+|those\s+)*"
            r"(?:previous|prior|above|earlier|preceding|former|system|original|existing|other)\s+"
            r"(?:instructions?|prompts?|rules|messages?|directions|context|guidelines|directives)"
            # "ignore the instructions above", "disregard all rules given before"
            r"|\b(?:ignore|skip|override|bypass|disregard|forget)\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+|these\s+|those\s+)*"
            r"(?:instructions?|prompts?|rules|directions|guidelines|directives)\s+(?:\w+\s+){0,3}?"
            r"(?:above|before|earlier|so\s+far|previously|you\s+(?:were|have\s+been)\s+given)"
            # "ignore your instructions", "ignore all your rules"
            r"|\b(?:ignore|disregard|override|bypass)\s+(?:all\s+(?:of\s+)?)?your\s+(?:own\s+)?"
            r"(?:instructions?|rules|guidelines|directives|system\s+prompt|programming)"
        ),
    ),
    (
        "asks to disregard earlier instructions",
        lazy(
            r"(?i)\b(?:disregard|forget)\s+(?:all\s+|any\s+|everything\s+|of\s+)*"
            r"(?:the\s+|your\s+)?(?:above|previous|prior|earlier|preceding|system\s+prompt|instructions)"
            # "disregard what you were told", "ignore everything you have been told"
            r"|\b(?:disregard|ignore|forget)\s+(?:everything\s+|all\s+|anything\s+)?(?:what|that|which)?\s*"
            r"you(?:'ve|'re|\s+have|\s+were|\s+had|\s+are)?\s+(?:been\s+|being\s+)?(?:told|given|instructed|asked|taught)"
        ),
    ),
    (
        # The explicit pass hears requests in seven languages (docs/reviewer-answer-schema.md), so the filter reads the
        # same seven: "ignore (all) previous instructions" in zh, ja, de, es, fr, pt.
        "asks to ignore previous instructions",
        lazy(
            r"(?:忽略|无视|無視|忽視|不要理会|别管)[^。！\n]{0,12}?(?:之前|以前|先前|上面|上述|前面|所有|全部|一切)"
            r"[^。！\n]{0,8}?(?:指令|指示|说明|說明|规则|規則|提示)"
            r"|(?:以前|前|上|これまで|今まで|すべて|全て)の[^。\n]{0,10}?(?:指示|命令|ルール|指令|プロンプト)[^。\n]{0,6}?(?:を)?無視"
            r"|(?i:\b(?:ignoriere|ignorieren\s+sie|vergiss|vergessen\s+sie|missachte)\s+(?:\w+\s+){0,3}?"
            r"(?:vorherigen|bisherigen|obigen|früheren|vorigen|alle[nm]?)\s+(?:\w+\s+)?(?:anweisungen|instruktionen|regeln|befehle))"
            r"|(?i:\b(?:ignora|ignore[sz]?|olvida|oublie[sz]?|esque[cç]a|desconsidere|descarta)\s+(?:\w+\s+){0,3}?"
            r"(?:instrucciones|instructions|instru[cç][oõ]es|reglas|r[eè]gles|regras|consignes|[oó]rdenes|ordens)"
            r"(?:\s+\w+){0,2}?\s+(?:anteriores|pr[eé]c[eé]dentes|previas|pr[eé]vias|ci-dessus|de\s+arriba|acima|antérieures))"
        ),
    ),
    (
        "tries to give the assistant a new role",
        lazy(r"(?i)\byou\s+are\s+now\b|\bfrom\s+now\s+on,?\s+you\s+are\b|\bpretend\s+(?:to\s+be|you\s+are)\b"),
    ),
    (
        "claims to be new system instructions",
        lazy(r"(?i)\b(?:new|updated|real|actual|system)\s+(?:system\s+)?(?:instructions?|prompt)\s*:|\bnew\s+system\s+prompt\b"),
    ),
    (
        "asks to reveal the system prompt",
        lazy(r"(?i)\b(?:reveal|print|show|output|repeat|leak)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+prompt|instructions)"),
    ),
    (
        "sends a secret variable over the network",
        lazy(
            r"(?i)\b(?:curl|wget|invoke-webrequest|invoke-restmethod|iwr|irm|nc|ncat|netcat|scp|httpie)\b"
            r"[^\n]{0,300}?" + _SECRET_VARIABLE
        ),
    ),
    (
        "sends local credentials or the environment over the network",
        lazy(
            r"(?i)\b(?:env|printenv|set)\b\s*\|\s*(?:curl|wget|nc|ncat)\b"
            r"|\b(?:curl|wget)\b[^\n]{0,300}?(?:~|\$HOME)/\.(?:ssh|aws|netrc|git-credentials|npmrc|pypirc|docker)"
        ),
    ),
    (
        "uploads local files",
        # curl -F f=@file, --form, -T/--upload-file, --data-binary @file, -d @file, wget --post-file
        lazy(
            r"(?i)\bcurl\b[^\n]{0,300}?(?:\s(?:-F|--form)\s*['\"]?[^\s=]*=\s*@|\s(?:-T|--upload-file)(?:\s|=)"
            r"|\s(?:-d|--data|--data-binary|--data-raw|--data-urlencode)\s*['\"]?@)"
            r"|\bwget\b[^\n]{0,300}?--(?:post|body)-file"
            r"|\b(?:scp|rsync)\b[^\n]{0,200}?(?:~|\$HOME|/etc|\.ssh|\.aws|\.env)\S*\s+\S+@\S+:"
        ),
    ),
    (
        "pipes downloaded code into a shell",
        lazy(
            r"(?i)\b" + _FETCH + r"[^\n|]{0,300}\|\s*(?:sudo\s+)?(?:(?:ba|z|da|k|fi)?sh|python3?|perl|ruby|node)\b"
            r"|\|\s*(?:iex|invoke-expression)\b"
            # sh -c "$(curl …)", eval "$(wget …)", bash <(curl …), source <(curl …), . <(curl …)
            r"|(?:\b(?:ba|z|da|k|fi)?sh\s+-c|\b(?:python3?|perl|ruby|node)\s+-[ce]|\beval|\bsource|\bexec|(?:^|\s)\.)"
            r"\s*['\"]?\s*(?:\$\(|`)\s*" + _FETCH
            + r"|(?:\b(?:ba|z|da|k|fi)?sh|\bsource|\bpython3?|(?:^|\s)\.)\s+<\(\s*" + _FETCH
            + r"|\biex\s*\(?\s*(?:\(\s*)?(?:new-object|iwr|irm|invoke-webrequest|invoke-restmethod)"
        ),
    ),
    (
        "downloads a program and runs it",
        # curl -o x URL && sh x, wget URL; chmod +x x && ./x
        lazy(
            r"(?i)\b" + _FETCH + r"[^\n]{0,300}?(?:&&|;|\|\|)\s*(?:" + _SHELL
            + r"|chmod\s+(?:[ugoa]*\+[rwx]*x|[0-7]*[1357][0-7]{0,2})\b|\./|(?:python3?|perl|ruby|node)\s+\S)"
        ),
    ),
    (
        "edits an instruction file",
        lazy(
            r"(?i)\b(?:edit|modify|write|writes|append|add|change|update|overwrite|replace|rewrite|delete|remove|"
            r"insert|put|prepend|tee|patch|create|cp|mv|ln|sed|truncate|rm|copy|move)\b[^\n]{0,80}?" + _INSTRUCTION_FILES
            + r"|>{1,2}\s*['\"]?[^\s'\"]{0,200}?" + _INSTRUCTION_FILES
        ),
    ),
)

_BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A)) | {0x200E, 0x200F, 0x061C}
_TAGS = range(0xE0000, 0xE0080)
_VARIATION_SELECTORS = set(range(0xFE00, 0xFE10)) | set(range(0xE0100, 0xE01F0)) | set(range(0x180B, 0x1810))
# Letters and marks that render as nothing or as blank space (used to hide payloads, or to make
# a line look empty): Braille blank, Hangul fillers, Khmer inherent vowels, combining grapheme joiner.
_BLANK_LOOKING = {0x2800, 0x3164, 0xFFA0, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x034F, 0x180E}
_UNICODE_PREFILTER = lazy(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2800\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef]"
)


def _emoji_presentation(text: str, index: int) -> bool:
    """A lone U+FE0E/U+FE0F right after a symbol is ordinary emoji styling ("✔️"), not a payload."""
    code = ord(text[index])
    if code not in (0xFE0E, 0xFE0F) or index == 0:
        return False
    before = unicodedata.category(text[index - 1])
    after = ord(text[index + 1]) if index + 1 < len(text) else 0
    return before in ("So", "Sm", "Nd", "Po") and after not in _VARIATION_SELECTORS


def _unicode_reasons(text: str) -> list[str]:
    # Fast path, checked in C: nothing unprintable but tab/newline, and none of the printable
    # invisible characters (variation selectors, blank-looking letters).
    if text.replace("\n", "").replace("\t", "").replace("\r", "").isprintable() and not _UNICODE_PREFILTER.search(text):
        return []
    bidi: set[int] = set()
    invisible: set[int] = set()
    selectors: set[int] = set()
    blank: set[int] = set()
    control: set[int] = set()
    tags = False
    for index, char in enumerate(text):
        code = ord(char)
        if code in _BIDI:
            bidi.add(code)
        elif code in _TAGS:
            tags = True
        elif code in _VARIATION_SELECTORS:
            if not _emoji_presentation(text, index):
                selectors.add(code)
        elif code in _BLANK_LOOKING:
            blank.add(code)
        elif char in "\t\n\r":
            continue
        else:
            category = unicodedata.category(char)
            if category == "Cf":
                invisible.add(code)
            elif category in ("Cc", "Co", "Cs", "Cn") or category in ("Zl", "Zp"):
                control.add(code)
    reasons = []
    if bidi:
        reasons.append("bidirectional control characters (" + _codes(bidi) + ")")
    if invisible:
        reasons.append("invisible characters (" + _codes(invisible) + ")")
    if tags:
        reasons.append("invisible Unicode tag characters")
    if selectors:
        reasons.append("variation selectors that can hide text (" + _codes(selectors) + ")")
    if blank:
        reasons.append("blank-looking characters (" + _codes(blank) + ")")
    if control:
        reasons.append("control characters (" + _codes(control) + ")")
    return reasons


def _codes(codes: set[int]) -> str:
    return ", ".join(f"U+{c:04X} {unicodedata.name(chr(c), '').lower()}".strip() for c in sorted(codes)[:4])


def fold_for_matching(text: str) -> str:
    """NFKC (fullwidth and styled letters become plain ones) with invisible characters removed,
    and Greek or Cyrillic letters that look Latin read as Latin where a word is made of them.

    Patterns are matched on this, so "Ｉｇｎｏｒｅ ａｌｌ ｐｒｅｖｉｏｕｓ ｉｎｓｔｒｕｃｔｉｏｎｓ",
    "ig\u200bnore previous instructions" or "Ign\u043ere" (a Cyrillic о) reads as what it shows.
    """
    folded = unicodedata.normalize("NFKC", text)
    if folded.isascii():
        return folded
    folded = "".join(
        " " if ord(ch) in _BLANK_LOOKING or unicodedata.category(ch) == "Zs" else ch
        for ch in folded
        if not (unicodedata.category(ch) == "Cf" or ord(ch) in _VARIATION_SELECTORS)
    )
    return _LOOKALIKE_WORD.sub(_as_latin, folded) if _LOOKALIKE.search(folded) else folded


_LOOKALIKE = lazy(f"[{LOOKALIKE_LETTERS}]")
_LOOKALIKE_WORD = lazy(r"[^\W\d_]+")
_GREEK_OR_CYRILLIC = lazy("[\u0370-\u03ff\u0400-\u052f]")


def _as_latin(match: re.Match[str]) -> str:
    """A word that mixes Latin letters with lookalikes ("Ignоre"), or is made of lookalikes alone
    ("оn", "ѕh"), read as the Latin word it shows; a Russian or Greek word, which has letters of its
    own ("пример", "λόγος"), is left as it is."""
    word = match.group(0)
    if not _LOOKALIKE.search(word):
        return word
    latin = word.translate(AS_LATIN)
    return latin if not _GREEK_OR_CYRILLIC.search(latin) else word


def injection_reasons(text: str) -> list[str]:
    """Why `text` looks like an instruction injection; [] means clean."""
    folded = fold_for_matching(text)
    reasons = [reason for reason, pattern in _INJECTION_PATTERNS if pattern.search(folded)]
    return reasons + _unicode_reasons(text)
