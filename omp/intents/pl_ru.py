"""Explicit requests in Polish and Russian (docs/reviewer-answer-schema.md, issue 35): the grammar of omp.intents —
a standing word or a remember word, what may stand before it (courtesy, a condition, a polite
ask or a modal, "we"), then an imperative, a modal or the team's practice — for two languages
whose words and verb forms it does not know.

Two grammatical marks decide what the other languages decide with word lists:

- **The imperative** is told by its ending: Polish imperatives end in a consonant ("używaj",
  "pisz", "rób", "usuń"), plural in "-cie", first plural in "-my" ("używamy", "róbmy": the team's
  practice); Russian ones in "-й", "-и", "-ь" (and "-те"). A verb that tells what happens
  ("działa", "przechodzą", "падает", "работает") ends otherwise.
- **The aspect** after a remember word: "pamiętaj, żeby uruchamiać testy", "не забывай обновлять
  changelog" (imperfective: each time) are habits; "pamiętaj aby użyć …", "не забудь запустить
  тесты" (perfective: once) are reminders for the task at hand, unless a standing word says
  otherwise.

Polish "nie" is "not", never "never"; "nigdy nie …" is "never". Standard library only; the
patterns are compiled on first use (omp.lazyre).
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from omp.lazyre import lazy

_L = r"[^\W\d_]"  # a letter, in any alphabet
_END = r"(?![^\W\d_])"  # a word's end (\b is too weak: it sees "ł" and "ё" as letters only with re.U, which holds)

_FILLER = (
    r"ok|okej|okay|dobra|dobrze|dzięki|dziękuję|proszę|i|a|no|tak|super|świetnie|ważne|uwaga|aha|przy okazji|btw|oraz|także"
    r"|ок|окей|хорошо|спасибо|пожалуйста|и|а|да|так|кстати|важно|отлично|супер|ладно|слушай|также|ещё|еще"
)
_FILLERS = rf"(?:(?:{_FILLER}){_END}\s*[,:;!.—–-]?\s*)*"
_LABEL = r"(?:[^\s:]{1,20}(?:\s+[^\s:]{1,20}){0,2}\s*:\s*)?"
_CONDITION = (
    r"(?:(?:jeśli|jeżeli|jesli|gdy|kiedy|zanim|po tym,? jak|za każdym razem,? (?:gdy|kiedy)|ilekroć"
    r"|если|когда|перед тем,? как|прежде чем|после того,? как|каждый раз,? когда|всякий раз,? когда)"
    rf"{_END}[^,;:]{{1,160}}[,:]\s*)"
)
_MODAL = (
    r"(?:proszę|musisz|musimy|trzeba|należy|powinieneś|powinnaś|powinniśmy|masz|możesz|czy możesz|czy mógłbyś"
    r"|пожалуйста|нужно|надо|необходимо|следует|ты должен|ты должна|мы должны|должен|должна|должны|можешь|не мог бы ты|мог бы ты)"
    rf"{_END}\s*"
)
_SUBJECT = rf"(?:(?:my|wszyscy|мы|все){_END}\s*|(?:w tym (?:repo|repozytorium|projekcie)|в этом (?:репо|репозитории|проекте)){_END}\s*,?\s*)"

_REMEMBER = (
    r"(?P<word>pamiętaj(?:cie)?|pamietaj|zapamiętaj(?: sobie)?|zapamietaj|nie zapominaj(?:cie)?|nie zapomnij(?:cie)?"
    r"|miej na uwadze|weź pod uwagę|zanotuj(?: sobie)?"
    r"|запомни(?:те)?(?: себе)?|помни(?:те)?|не забывай(?:те)?|не забудь(?:те)?|имей(?:те)? в виду|учти(?:те)?|возьми на заметку)"
    rf"{_END}(?P<conn>\s*[,:]?\s*(?:że|ze|żeby|zeby|aby|o tym,? że|что|чтобы){_END}|\s*:)?"
)
_FROM_NOW = (
    r"(?:od teraz|od tej chwili|od tej pory|od dziś|od dzisiaj|na przyszłość|na przyszlosc|w przyszłości|odtąd|od tego momentu"
    r"|с этого момента|с этих пор|с сегодняшнего дня|отныне|впредь|в дальнейшем|в будущем|на будущее|с сегодня|теперь всегда)"
    rf"{_END}"
)
_ALWAYS = (
    r"(?:zawsze|nigdy(?: więcej)?|za każdym razem|już nigdy|всегда|никогда(?: больше)?|каждый раз|больше никогда|больше)"
    rf"{_END}"
)
_FORGET = rf"(?:zapomnij|zapomnijcie|забудь|забудьте){_END}(?P<fconn>\s*,?\s*(?:że|o regule|o zasadzie|что|про правило|о правиле|правило){_END})?"

_PREFIX = lazy(
    rf"^{_FILLERS}{_LABEL}{_FILLERS}(?P<cond>{_CONDITION})?{_FILLERS}(?P<subject>{_SUBJECT})?(?P<modal>{_MODAL})?(?:też\s+|тоже\s+)?$",
    re.I | re.S)
_TRIGGERS = (
    ("forget", lazy(rf"(?<!{_L}){_FORGET}", re.I)),
    ("remember", lazy(rf"(?<!{_L}){_REMEMBER}", re.I)),
    ("from_now", lazy(rf"(?<!{_L}){_FROM_NOW}", re.I)),
    ("always", lazy(rf"(?<!{_L}){_ALWAYS}", re.I)),
)

# The imperative (2nd person), the first plural (the team's practice) and the modals (`_MODAL`).
_PL_IMPERATIVE = lazy(r"^(?:nie\s+)?(?!(?:jest|jak|tak|już|też|tym|tam|ten|gdy|bez|przez|pod|nad|coś|nic|mnie|się|czas)\b)"
                      r"[^\W\d_]{2,}(?:[jńźśćżbwlsz]|dź|rz|cz|cie|my)(?![^\W\d_])", re.I)
_RU_IMPERATIVE = lazy(r"^(?:не\s+)?(?!(?:при|они|мои|твои|свои|эти|те|и|или|ли|если|после|после|пути)(?![^\W\d_]))"
                      r"[а-яё]{2,}(?:[йь]|(?<!л)и|[йь]те|ите|ем|им|ём)(?![^\W\d_])", re.I)
_MODAL_START = lazy(rf"^{_MODAL}", re.I)
_CYRILLIC = lazy(r"[а-яё]", re.I)
_POLISH_LETTER = lazy(r"[ąćęłńśźżĄĆĘŁŃŚŹŻ]")

# The habitual (imperfective) infinitive after a remember word: "uruchamiać", "dodawać",
# "обновлять", "запускать"; a perfective one ("użyć", "запустить") is a reminder for now.
_IMPERFECTIVE = lazy(r"(?:ać|ать|ять)$", re.I)
_PERFECTIVE_PL = lazy(r"(?:dać|yć|ić|ąć|eć|ść|źć|c)$", re.I)

_ONE_OFF = lazy(
    r"(?<![^\W\d_])(?<!od )(?<!с )(?:tym razem|na razie|teraz|dzisiaj|dziś|tylko raz|w tej odpowiedzi|w tym pliku|w tej funkcji|w tym zadaniu"
    r"|w tym kroku|w tej wiadomości|w tej sesji"
    r"|в этот раз|на этот раз|пока что|сейчас|сегодня|только один раз|в этом ответе|в этом файле|в этой функции|в этой задаче"
    r"|на этом шаге|в этом сообщении|в этой сессии)(?![^\W\d_])", re.I)
_POLITE_QUESTION = lazy(rf"^{_FILLERS}(?:czy (?:możesz|mógłbyś|mogłabyś)|możesz|можешь|не мог(?:ла)? бы ты|мог(?:ла)? бы ты|можно)(?![^\W\d_])", re.I)
_PREDICTION = lazy(r"^(?:będzie|będą|zostanie|może|будет|будут|станет|может)(?![^\W\d_])", re.I)
_STANDING_IN = lazy(rf"(?<!{_L})(?:{_ALWAYS}|{_FROM_NOW}|każd\w+|кажд\w+)", re.I)
_TRAILING = " .!?;,:…"
# "rób to samo", "делай это", "не делай так": an imperative whose object only points elsewhere.
_EVERY_TIME = lazy(r"^(?:kiedy|gdy|когда)(?![^\W\d_])[^,;:]{2,120},\s*(?P<act>\S.*)$", re.I)
_LEADING_ALWAYS = lazy(rf"^(?:zawsze|всегда|już zawsze|и впредь){_END}\s*", re.I)
_POINTS = lazy(r"^(?:nie\s+|не\s+)?(?:[^\W\d_]+\s+)?(?:to(?:\s+samo)?|tak|tego|tym|je|ich|это|так|то же самое|этого|их|его|её|то)"
               r"(?:\s+(?:samo|też|zawsze|всегда|тоже|же|и впредь))*\s*[.!]*$", re.I)
_COURTESY_AFTER = lazy(r"(?:[,;]\s*|\s+)(?:proszę|prosze|dzięki|dziekuje|dziękuję|пожалуйста|спасибо|плиз|пж)[\s.!]*$", re.I)

Kind = Literal["directive", "forget"]


class Found(NamedTuple):
    kind: Kind
    text: str
    certain: bool


def is_polish_or_russian(sentence: str) -> bool:
    """Does the sentence hold a Cyrillic letter or a letter only Polish has? (Then the other
    languages' grammar is not asked: Polish "nie" is no German "never".)"""
    return bool(_CYRILLIC.search(sentence) or _POLISH_LETTER.search(sentence))


def find(sentence: str) -> Found | None:
    """The standing request a Polish or Russian sentence makes, or None."""
    text = sentence.strip()
    question = text.rstrip(" .!").endswith("?")
    if (question and not _POLITE_QUESTION.match(text)) or _ONE_OFF.search(text):
        return None
    for family, pattern in _TRIGGERS:
        for match in pattern.finditer(text):
            found = _at(text, family, match)
            if found is not None:
                return found
    return None


def _at(sentence: str, family: str, match: re.Match[str]) -> Found | None:
    before, after = sentence[:match.start()], sentence[match.end():].strip(" ,:;-–—")
    prefix = _PREFIX.match(before)
    if prefix is None:
        return _verb_first(sentence, family, match, before, after)
    if _POLITE_QUESTION.match(sentence):
        after = after.rstrip(" ?")
    if _POINTS.match(after):
        return None  # "od teraz rób to samo": what it points at stands elsewhere (omp.intents resolves English ones)
    cond = (prefix.group("cond") or "").strip()
    subject = (prefix.group("subject") or "").strip() if family == "always" else ""
    lead = " ".join(part for part in (cond, subject) if part)
    lead = lead + " " if lead else ""
    if family == "forget":
        # "zapomnij o tym błędzie": ignore it in this task; only a rule or a fact said before is forgotten
        return Found("forget", _tidy(after), True) if match.group("fconn") and _rule_like(after) else None
    if family == "remember":
        return _remembered(sentence, match, after, lead)
    if family == "from_now":
        acting = _LEADING_ALWAYS.sub("", after)  # "od teraz zawsze pisz …": the standing word twice
        if _PREDICTION.match(acting) or not _acts(acting):
            return None  # "od teraz będzie działać": what will happen
        return _found(lead + after, certain=True)
    word = match.group(0)
    every = _EVERY_TIME.match(after)
    if every is not None and _acts(every.group("act")):
        return _found(f"{lead}{word} {after}", certain=True)  # "zawsze kiedy dodajesz endpoint, dopisz test"
    if word.lower() == "больше" and not re.match(r"не(?![^\W\d_])", after, re.I):
        return None  # "больше" alone is "more"; "больше не …" is "no more"
    if not (_acts(after) or prefix.group("modal") or (prefix.group("subject") and _practice(after))):
        return None
    return _found(f"{lead}{word} {after}", certain=True)


def _remembered(sentence: str, match: re.Match[str], after: str, lead: str) -> Found | None:
    conn = (match.group("conn") or "").strip(" ,").lower()
    word = match.group("word").lower()
    if conn in ("że", "ze", "что", ":", "o tym, że", "o tym że"):
        return _found(lead + after, certain=True)  # a fact or a rule to keep
    infinitive = after.split()[0] if after.split() else ""
    habitual = word.startswith(("nie zapominaj", "не забывай")) or (
        bool(_IMPERFECTIVE.search(infinitive)) and not _PERFECTIVE_PL.match(infinitive))
    if word.startswith(("nie zapomnij", "не забудь")):
        habitual = False  # the perfective imperative: "don't forget (this once)"
    if not (habitual or _STANDING_IN.search(after)):
        return None  # "pamiętaj aby użyć …", "не забудь запустить тесты": a reminder for the task at hand
    return _found(lead + after, certain=bool(_STANDING_IN.search(after)) or not conn)


def _verb_first(sentence: str, family: str, match: re.Match[str], before: str, after: str) -> Found | None:
    """"używaj zawsze pnpm", "пиши коммиты по-английски впредь": the imperative first."""
    if family not in ("always", "from_now"):
        return None
    lead = before.strip(" ,")
    stripped = re.sub(rf"^{_FILLERS}", "", lead, flags=re.I)
    if len(stripped.split()) != 1 or not _acts(stripped) or any(mark in stripped for mark in ",;:") or _POINTS.match(f"{stripped} {after}"):
        return None
    if family == "from_now":
        return _found(f"{stripped} {after}".strip(), certain=False)
    return _found(f"{stripped} {match.group(0)} {after}".strip(), certain=not after == "")


def _acts(text: str) -> bool:
    """Does `text` start with an imperative, the team's practice or a modal?"""
    text = text.strip()
    if _MODAL_START.match(text):
        return True
    imperative = _RU_IMPERATIVE if _CYRILLIC.match(text) else _PL_IMPERATIVE
    return bool(imperative.match(text))


def _practice(text: str) -> bool:
    first = text.split()[0] if text.split() else ""
    return bool(re.search(r"(?:my|ем|им|ём|ют|ут|ят|ат)$", first, re.I))


def _found(text: str, certain: bool) -> Found | None:
    text = _tidy(_COURTESY_AFTER.sub("", _tidy(text)))
    if len(text.split()) < 2 or len(text) < 6:
        return None
    return Found("directive", text[:1].upper() + text[1:], certain)


def _rule_like(text: str) -> bool:
    return len(text.split()) >= 2


def _tidy(text: str) -> str:
    return " ".join(text.split()).rstrip(_TRAILING)


# The trigger stems (lower-cased) for omp.intents' first look.
STEMS: tuple[str, ...] = (
    "pamięt", "pamiet", "zapamięt", "zapamiet", "nie zapomin", "nie zapomn", "na uwadze", "pod uwagę", "zanotuj",
    "od teraz", "od tej", "od dziś", "od dzisiaj", "przyszłoś", "przyszlos", "odtąd", "zawsze", "nigdy", "za każdym",
    "zapomnij", "od tego",
    "запомн", "помни", "не забыв", "не забуд", "в виду", "учти", "на заметку", "с этого", "с этих", "с сегодня", "отныне",
    "впредь", "в дальнейшем", "будущ", "всегда", "никогда", "каждый раз", "больше", "забудь", "теперь всегда",
)
