"""A whole user message → its explicit requests (docs/reviewer-answer-schema.md): the first look (trigger stems), a
huge message's head and tail, lists introduced by a line that asks to keep them, requests that
point back at an earlier sentence."""

from __future__ import annotations

import bisect
import itertools
import re
from typing import Iterator

from omp.intents import pl_ru, standing
from omp.intents.grammar import _POLITE_LEAD, _PRACTICE_CLAUSE, _judged, _polite_question, find_request
from omp.intents.phrases import (
    WHERE_TO_KEEP,
    _ALWAYS_TRIGGER,
    _CJK_COMPLAINT_END,
    _FILLERS,
    _FLAGS,
    _FROM_NOW_TRIGGER,
    _ONE_OFF,
    _QUESTION_END,
    _TAG_QUESTION,
    _TRIGGERS,
    _has_cjk,
)
from omp.intents.request import Request
from omp.intents.wording import (
    _asks,
    _capitalise,
    _evidence,
    _imperative,
    _rule_like,
    _strip_courtesy,
    _strip_fillers,
    _tidy,
)
from omp.intents.spoken import (
    _LIST_MARK,
    _introduces_a_list,
    _mask,
    sentences,
    spoken_lines,
)
from omp.lazyre import lazy
from omp.substrings import SubstringSet, substring_set

SCAN_CHARS = 128 * 1024  # of a huge message, its head and its tail are read: the middle is a paste


# Every trigger above contains one of these (lower-cased): a substring test is many times faster
# than the trigger patterns, and most messages hold none of them. tests/test_intents.py checks
# that no trigger escapes this list.
TRIGGER_STEMS: tuple[str, ...] = (
    "remeb", "rembe", "remmb", "rememe", "rememn", "remenb", "rmemb",  # the usual typos ("remeber")
    "rememb", "in mind", "a note", "take note", "note for", "note down", "note bien", "note that", "note this",
    "mental note", "for later", "standing ", "permanent ", "general instr", "rest of",
    "later sess", "upcoming sess", "note to", "subsequent", "your respon", "your answer", "your repl",
    "every respon", "every answer", "every repl", "every single", "each respon", "each answer", "each repl", "upcoming",
    "you write", "you generate", "you create", "you produce", "you add", "you make", "you give me", "you suggest",
    "gilt", "norma", "规定", "规矩", "一直", "pense à", "pensez à",  # "Für dieses Projekt gilt:", "规定：", "请一直…"
    # a request pointing back at the sentence before it: "We don't use default exports. Stick to that."
    "stick to", "that way", "keep doing", "halte dich", "halt dich", "cíñete", "atente", "tiens-t'en", "respecte",
    "siga isso", "mantenha isso", "se atenha",
    "note:", "memori", "forget", "write down", "unlearn", "drop the rule",
    "notes", "note these", "note those", "note them", "note the following", "note all", "to note",  # a list's intro (`_LIST_WORDS`), "one thing to note:"
    "anymore", "any more", "any longer", "for good", "no longer", " ever ", " ever.", " ever!", " ever,",  # a standing "no more"
    "next time",  # "For next time: …"
    "recordá", "acordate", "tené en", "olvidés", "anotá", "apuntá", "memorizá",  # voseo
    "starting", "en más", "plus", "let's keep", "lets keep", "let's stick", "lets stick", "let's stay", "let's follow",  # "starting now", "de ahora en más", "n'utilise plus print"
    "instruction", "memory", "memories", "preference",  # "add to your instructions that …"
    "rule", "policy", "policies", "convention", "for the record", "habit", "by default", "told you", "asked you",
    "how many times", "as i said", "as i asked", "vuelvas a", "volte a", "practice", "our standard", "our way", "decided", "we will", "we'll", "we’ll", "we are going", "we're going",
    "we’re going", "we are gonna", "everywhere", "all places", "throughout the", "responses", "replies", " answers ", "remind you", "te recuerdo", "le recuerdo", "os recuerdo", "je te rappelle",
    "je vous rappelle", "te lembro", "lhe lembro",
    # the words a list of the user's rules is introduced with (`_LIST_INTRO`): "Our guidelines:"
    "guideline", "style guide", "standards", "practices", "preferences", "regel", "konvention", "richtlinie",
    "regla", "normas", "convencion", "règle", "regra", "convenç", "规范", "规则", "约定", "守则", "ルール", "規約", "規則", "決まり",
    "from now", "from here", "forward", "henceforth", "from this point", "future", "as a rule", "from today",
    "always", "never", "t ever", "not ever", "you ever", "at all times", "whenever", "every time", "each time", "any time",
    "merk", "denk", "behalte", "vergiss", "vergessen", "notier", "ab jetzt", "ab sofort", "von nun", "von jetzt",
    "künftig", "zukunft", "fortan", "ab heute", " immer", "immer ", " nie", "nie ", "niemals", "keinesfalls",
    "auf keinen", "jedes mal",
    "recuerd", "recuérd", "acuérd", "acuerd", "cuenta", "olvid", "olvíd", "toma nota", "apunt", "anota", "anote", "anotar",
    "recordar", "adelante", "desde ahora", "futuro", "siempre", "nunca", "jamás", "jamas", "cada vez", "partir", "memoriz",
    "souvien", "souven", "rappelle", "retien", "reten", "oubli", "garde en", "garde à", "gardez", "garder", "noter", "prends note",
    "prenez note", "mémoris", "désormais", "dorénavant", "avenir", "toujours", "jamais", "chaque fois",
    "toutes les fois", "dès maintenant",
    "lembr", "esque", "em mente", "guarde", "guardar", "de agora", "daqui", "doravante", "sempre", "toda vez",
    "记", "忘", "以后", "今后", "往后", "将来", "从现在", "从今", "永远", "千万", "绝对", "绝不", "决不", "不要再", "别再",
    "一定要", "总是", "始终", "务必", "每次", "每个", "每個", "每一", "从不", "从来不", "一律",
    "記", "從現在", "從今", "永遠", "絕對", "絕不", "決不", "別再", "總是", "始終", "務必", "從不", "從來不", "將來",
    "覚え", "忘れ", "メモ", "心に留め", "留意", "念頭", "頭に入れ", "やめて", "止めて", "stop ", "quit ", "今後", "これから", "次回", "以後", "以降", "常に", "いつも", "必ず", "絶対", "決して",
    "二度と", "毎回",
    # the language to talk in (`_REPLY_LANGUAGE`): "please answer in English", "请用中文说话"
    "in english", "in chinese", "in mandarin", "in spanish", "in portuguese", "in french", "in german", "in japanese",
    "in korean", "in russian", "in polish", "in italian", "in dutch", "in turkish", "in ukrainian", "in vietnamese",
    "in indonesian", "in hindi", "in arabic", "in hebrew", "in swedish", "in czech",
    "用中文", "用英文", "用英语", "使用中文", "使用英文", "说中文", "说英文", "汉语", "日语", "日文", "韩语", "俄语", "法语", "德语",
    "西班牙语",
    "before every", "after every", "before each", "after each", "on every", "on each", "with every", "with each",
    "de cada", "tras cada", "vor jedem", "nach jedem", "bei jedem", "avant chaque", "après chaque",
    # a convention as a condition and an imperative (`_IF_YOU_DO`): "if you add a dependency, pin it"
    "if you ", "when you ", "once you ", "before you ", "after you ", "if we ", "when we ", "when i ", "cuando ", "antes de ", "después de ",
    "quando ", "depois de ", "si tu ", "si vous ", "quand tu ", "quand vous ", "lorsque ", "dès que ", "wenn du ", "wenn ihr ",
    "wenn wir ", "falls du ", "sobald du ", "如果你", "如果我们", "要是你", "当你", "每当你",
    # a convention without a standing word (omp.intents.conventions): "for commit messages use …",
    # "to build, run …", "stick to …", "no print statements whatsoever", "I don't want any … in …"
    " use ", " follow ", " run ", "stick with", "stay with", "rely on", "adhere to", "soever", " at all",
    "anywhere", "want any", "want no", " be no ", "not be any", "使用", "请用", "請用", "运行", "執行", "执行",
    "d'ora in", "da ora in", "da adesso in", "d'ora innanzi", "da oggi in", "in futuro", "앞으로", "이제부터", "지금부터",
    " mai ", "항상", "언제나", "절대", "ricord", "tieni a mente", "tieni presente", "non dimenticare",
    "don't", "dont", "do not", "not to", "to not", "make sure", "prefer", "favor", "favour", "your responses", "your answers",
    "your replies", "认识到", "認識到", "意识到", "意識到", "知道", "清楚", "明白",
) + pl_ru.STEMS


# For the first look only the stems that contain no other stem matter ("whenever" holds "never"):
# a smaller automaton (omp.substrings), the same answer.
def _minimal(stems: tuple[str, ...]) -> tuple[str, ...]:
    """The stems that hold no other stem. Each stem is looked for in all of them joined (a find
    in C per occurrence): comparing every pair cost each review's start 2.5 ms."""
    joined = "\x00".join(stems)
    ends = list(itertools.accumulate(len(stem) + 1 for stem in stems))  # where each stem's "\x00" is, +1
    holding: set[int] = set()
    for stem in stems:
        at = joined.find(stem)
        while at >= 0:
            index = bisect.bisect_right(ends, at)
            if stems[index] != stem:
                holding.add(index)
            at = joined.find(stem, at + 1)
    return tuple(stem for index, stem in enumerate(stems) if index not in holding)


_MINIMAL_STEMS = _minimal(TRIGGER_STEMS)
_FIRST_LOOK = SubstringSet(_MINIMAL_STEMS)


# Text that is not the user's is only ever *reported* (a rule planted in a page), never proposed,
# and a long session holds a lot of it: it is looked at for the triggers a planted rule uses.
FOREIGN_LEAD_CHARS = 40
FOREIGN_STEMS: tuple[str, ...] = (
    "rememb", "from now", "forward", "always", "never", "forget", "désormais", "dorénavant", "a partir de", "ab sofort",
    "ab jetzt", "immer", "siempre", "toujours", "sempre", "nunca", "jamais", "记住", "以后", "今后", "覚えて", "今後",
)


def stems_in(text: str, stems: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """The trigger stems that occur in `text` (lower-cased; " nie" and "immer " match at its ends)."""
    return (_FIRST_LOOK if stems is None else substring_set(stems)).found_in(_spaced(text))


def might_ask(text: str) -> bool:
    """A cheap first look: does any trigger word occur at all? (Most messages hold none.)"""
    return _FIRST_LOOK.any_in(_spaced(text))


_LINE_BREAKS = str.maketrans("\n\r\t", "   ")


def _spaced(text: str) -> str:
    """`text` lower-cased between two spaces, line breaks and tabs as spaces: the stems that hold
    a space (" ever ", " nie", "immer ") also match at a line's end ("… folder ever\n")."""
    return f" {text.lower().translate(_LINE_BREAKS)} "


def _bounded(text: str) -> str:
    if len(text) <= 2 * SCAN_CHARS:
        return text
    head, tail = text[:SCAN_CHARS], text[-SCAN_CHARS:]
    return head[: head.rfind("\n") + 1] + tail[tail.find("\n") + 1:]


# "We use yarn here. Remember that." — the request points back at the sentence before it.
_BARE_REMEMBER_CJK = lazy(
    r"^(?:请)?(?:记住|记下|记一下)(?:这个|这一点|这条)?(?:了|吧|哦|啊)?$|^(?:これを|それを)?覚えて(?:おいて|おいてね|おいてください|ね)?$"
    # "以后都这样做", "今後もそうしてください": do it this way from now on
    r"|^(?:以后|今后|从现在开始|往后)(?:都|也|就)?(?:要)?(?:这样|这么)(?:做|写|办|弄)?(?:吧|哦|啊)?$"
    r"|^(?:今後|これから)(?:も|は)?(?:そう|こう)(?:して|する)(?:ね|ください|下さい)?$")
_JA_POLITE_SUFFIX = lazy(r"(?:もらえますか|もらえる|くれますか|くれる|いただけますか)$")
_BARE_REMEMBER_WORDS = lazy(
    r"^(?:please\s+)?(?:remember (?:that|this|it)|(?:keep|bear) (?:that|this|it) in mind|note (?:that|this)|memori[sz]e (?:that|this)"
    r"|make a note of (?:that|this|it)|merk dir das|denk daran|behalte das|recuerda eso|recuérdalo|ten eso en cuenta"
    r"|retiens ça|retiens-le|souviens-toi de ça|lembre disso|lembra disso|guarde isso|recuerda esto|merk dir das|lembre-se disso"
    # after "could you", "kannst du", "¿puedes", "peux-tu", "pode": the infinitive
    r"|dir das merken|(?:dir |sich )?das merken|daran denken|recordarlo|recordar eso|tenerlo en cuenta"
    r"|t'en souvenir|te souvenir de ça|retenir ça|lembrar disso|lembrar isso|se lembrar disso"
    # "… Please stick to that.": keep to what the sentence before says
    r"|stick to (?:that|this|it)(?: from now on| going forward)?|keep (?:it|doing it|things) that way|keep doing (?:that|this|it)"
    r"|halte? dich (?:daran|dran)|cíñete a (?:eso|esto)|atente a (?:eso|esto)|tiens-t'en à (?:ça|cela)|respecte (?:ça|cela)"
    r"|siga isso|mantenha isso|se atenha a isso)"
    # "keep that in mind from now on", "remember that going forward": the standing words add nothing
    r"(?:\s*,?\s+(?:from now on|going forward|moving forward|in (?:the )?future|for (?:the )?future|for later|for next time))?"
    r"(?:\s+(?:please|bitte|por favor|s'il te plaît|stp))?$",
    re.I)


def _points_back(sentence: str) -> bool:
    """"Remember that.", "Could you please remember that?": a request about the sentence next
    to it. "Remember that?" alone asks whether they recall it, and is not one."""
    untagged = _TAG_QUESTION.sub("", sentence)
    masked = _mask(untagged)
    if _QUESTION_END.search(masked.rstrip(" .!")):
        if not _polite_question(masked):
            return False
        untagged = _POLITE_LEAD.sub("", untagged, count=1)
    bare = _KEEP_IT_FOR.sub("", _strip_fillers(untagged).strip(" .!?。！？ね:：")).strip(" ,")
    if _positive_pointer(bare):
        return True  # "do that from now on", "keep doing it like this"
    if _has_cjk(bare):
        bare = _JA_POLITE_SUFFIX.sub("", bare)
        return bool(_BARE_REMEMBER_CJK.match(bare))
    return bool(_BARE_REMEMBER_WORDS.match(bare))


# "remember that for your instructions", "… for future reference": where to keep what it points at.
_KEEP_IT_FOR = lazy(rf"[\s,]+{WHERE_TO_KEEP}$", re.I)


# "never do that", "don't do it like this again": a pointer that forbids what it points at; the
# rule is not the sentence pointed at, so it is not resolved.
_NEGATION = lazy(r"\b(?:never|don'?t|do not|no|not|stop|nunca|jamais|jamás|nie|niemals|nicht|não|ne|pas)\b|不|别|しない", re.I)


def _positive_pointer(bare: str) -> bool:
    if not might_ask(bare) or _NEGATION.search(bare) or not any(p.search(bare) for _, p in _TRIGGERS[1:]):
        return False
    # "a partir de ahora haz eso", "mach das ab jetzt immer so": the standing words aside, only pointing words
    rest = _ALWAYS_TRIGGER.sub(" ", _FROM_NOW_TRIGGER.sub(" ", bare))
    return standing.only_points(rest)


def points_back(text: str) -> bool:
    """Is a whole user message a request about what was said before it ("remember this",
    "perfect, do that from now on", "make this a global rule")?"""
    said = [s for line in spoken_lines(text) for s in sentences(line)]
    if len(said) != 1 or not might_ask(said[0]):
        return False
    return _points_back(said[0]) or standing.save_rule(_strip_courtesy(said[0])) == ""


def _lone_sentence(text: str) -> str | None:
    """The one sentence (at most 300 characters) of a short user message that a later "remember
    this" may point at, unless it asks, is a one-off or holds only for this task or document."""
    said = [s for line in spoken_lines(text) for s in sentences(line)]
    if len(said) != 1 or len(said[0]) > 300:
        return None
    sentence = said[0]
    masked = _mask(sentence)
    if _asks(sentence) or _ONE_OFF.search(masked) or standing.scoped(masked):
        return None
    return sentence


def standalone_rule(text: str) -> str | None:
    """The rule a short user message states on its own ("use pnpm instead of npm for installs"),
    which a later "remember this" points at: one sentence, an imperative or a team's practice,
    not a question nor a one-off. None when it is not that clear."""
    sentence = _lone_sentence(text)
    if sentence is None:
        return None
    text = _tidy(_strip_fillers(sentence))
    if _has_cjk(text):  # Chinese has no imperative mark: a sentence that does not ask nor complain
        return text if _rule_like(text) and not _CJK_COMPLAINT_END.search(text) else None
    if not _rule_like(text) or not (_imperative(text) or _PRACTICE_CLAUSE.match(text)):
        return None
    return _capitalise(text)


# The assistant's last sentence offers to do something: "Should I also add type hints to the new
# functions?", "Do you want me to run the linter after each change?", "Want me to …?"
_OFFER = lazy(
    r"(?:^|[.!?]\s+)(?:(?:should|shall) i(?: also| always| go ahead and)?|(?:do you want|would you like|want) me to(?: also| always)?"
    r"|(?:¿)?(?:quieres que|querés que) (?:también )?|voulez-vous que je|veux-tu que je|(?:você )?quer que eu|soll ich)"
    r"\s+(?P<act>[^?\n]{6,200})\?\s*$", re.I)


def remembers_back(text: str) -> bool:
    """Is a whole user message only "remember that" / "keep this in mind" (a note of what was
    said before, not "do that from now on", which points at an act)?"""
    said = [s for line in spoken_lines(text) for s in sentences(line)]
    if len(said) != 1:
        return False
    bare = _strip_fillers(_TAG_QUESTION.sub("", said[0])).strip(" .!?。！？ね:：")
    if _has_cjk(bare):
        return bool(_BARE_REMEMBER_CJK.match(_JA_POLITE_SUFFIX.sub("", bare)))
    return bool(_BARE_REMEMBER_WORDS.match(bare)) and not bare.lower().startswith(("stick", "keep it", "keep doing",
                                                                                  "keep things", "halt", "cíñete", "atente",
                                                                                  "tiens", "respecte", "siga", "mantenha",
                                                                                  "se atenha"))


def stated_fact(text: str) -> str | None:
    """The one fact a short user message states ("The API base URL is /api/v2"), which a later
    "remember that" asks to keep: one sentence, neither a question, a complaint, this task's
    context nor a one-off. None when it is not that clear."""
    sentence = _lone_sentence(text)
    if sentence is None or _QUESTION_END.search(_mask(sentence).rstrip(" .!")):
        return None
    text = _tidy(_strip_fillers(sentence))
    if not _rule_like(text) or standing.task_context(text) or standing.speaker_will(text) or standing.fragment(text) \
            or standing.about_the_thing_in_hand(text):
        return None
    if _has_cjk(text):
        return None if _CJK_COMPLAINT_END.search(text) else text
    return _capitalise(text)


def offered(text: str) -> str | None:
    """What the assistant's message offers to do in its last sentence, as a rule ("Add type
    hints to the new functions"), or None. An affirmative "yes, always do that" points at it."""
    tail = text.strip()[-400:]
    match = _OFFER.search(tail)
    if match is None:
        return None
    act = _tidy(match.group("act"))
    act = re.sub(r"\b(?:for you|from now on|going forward)\b", "", act, flags=re.I).strip(" ,")
    return _capitalise(act) if _rule_like(act) else None


def requests_in(text: str) -> Iterator[Request]:
    """Every explicit request of a user message, in order (pasted material left out: a long
    message's body, a role-play, persona or template set up, see omp.intents.standing)."""
    own = standing.own_words(_bounded(text))
    if standing.is_setup(_mask(own)):
        return iter(())
    if _orders_a_piece(own):
        return (request for request in _find_requests(own) if _reaches_past_the_piece(request))
    if _answers_questions(own):  # "… 5. just let the user delete each and ask every time": still the spec
        return (request for request in _find_requests(own)
                if request.kind == "forget" or _FROM_NOW_TRIGGER.search(_mask(request.sentence)))
    return _find_requests(own)


# "1. yes, everything like you wrote\n2. just list orders\n3. yes, always show the guest": the
# user answers the assistant's numbered questions about the thing being built, item by item; an
# "always" in an answer is that thing's spec, unless it reaches past it (a from-now word, "we").
_ANSWER_ITEM = lazy(r"^\s*(?:\d{1,2}[.)-]|[-*•])\s*(?:"
                    # a yes or a no on its own ("yes, …", "no.", "yes do not touch …"), not "NO hardcoded colors"
                    r"(?:yes|yeah|yep|no|nope|nah|ok|okay|sure|correct|right|exactly|agreed|same|both|none|neither|either"
                    r"|sí|si|não|nein|ja|oui|non)(?:[,.!;:]|\s*$|\s+(?:do|just|and|but|please|everything|that|as|like|for|to|it)\b)"
                    r"|(?:just|only|as you (?:said|wrote|suggested)|like you (?:said|wrote))\b|(?:是的|对|不用|不需要|都可以|只|はい|いいえ))", re.I)
_LIST_ITEM = lazy(r"^\s*(?:\d{1,2}[.)-]|[-*•])\s+\S")


def _answers_questions(text: str) -> bool:
    """Answers, item by item: two yes/no items, or two fragments of at most three words ("2. to
    all", "4. more detailed"). Never a list the user introduces as rules ("Remember the following:")."""
    lines = text.splitlines()
    items = [line for line in lines if _LIST_ITEM.match(line)]
    if len(items) < 3 or any(len(line) > 200 for line in items) \
            or any(_introduces_a_list(_mask(line.strip())) for line in lines if not _LIST_ITEM.match(line)):
        return False
    answers = sum(1 for line in items if _ANSWER_ITEM.match(line))
    fragments = sum(1 for line in items if len(_LIST_MARK.sub("", line.strip()).split()) <= 3
                    and not _ALWAYS_TRIGGER.search(line))
    return answers >= 2 or fragments >= 2


# "Write me a cover letter. Remember to mention my 5 years …", "Generate 10 interview questions.
# Always include the answer after each question.": a message that opens by ordering one piece of
# work; its "always" and "remember to" are that piece's spec, unless a sentence reaches past it
# (a from-now word, "every time", the team's practice). A rule or a note ordered is the user's.
_ORDERS_A_PIECE = lazy(
    # ("Please analyze this codebase and create a CLAUDE.md file, …": the piece ordered after a first step)
    rf"^{_FILLERS}(?:(?:please|pls|can you|could you|would you|now)\s+)*(?:(?:analy[sz]e|read|review|check|scan|look at)\s+[^,.]{{1,40}}?\s+and\s+(?:then\s+)?)?"
    r"(?:write|generate|create|compose|draft|produce|give me"
    r"|list|suggest|come up with|prepare|design)\s+(?:me\s+|us\s+)?(?:a|an|some|\d+|two|three|four|five|six|seven|eight|nine|ten"
    r"|several|a few)\s+(?!(?:[\w-]+\s+)?(?:rules?|notes?|memor\w*|instructions?|guidelines?|conventions?|polic(?:y|ies))\b)", _FLAGS)
_REACHES_PAST = lazy(r"\b(?:every time|each time|whenever|in (?:all )?(?:future|later)|for (?:all )?future"
                     # the team's practice ("we always squash", "our convention"), not "our competitors"
                     r"|we\s+(?:\w+\s+)?(?:always|never|should|must|use|prefer|don'?t|do not|want|need|keep|follow)"
                     r"|our\s+(?:team|project|codebase|repo\w*|conventions?|rules?|practices?|style|standards?|workflow|polic\w+|process))\b",
                     re.I)


def _orders_a_piece(text: str) -> bool:
    """Does the message's first spoken sentence order one piece of work ("Write me a cover letter.")?"""
    first = next((sentence for line in spoken_lines(text) for sentence in sentences(line)), "")
    return _ORDERS_A_PIECE.match(first.strip()) is not None


def _reaches_past_the_piece(request: Request) -> bool:
    masked = _mask(request.sentence)
    return request.kind == "forget" or bool(_FROM_NOW_TRIGGER.search(masked) or _REACHES_PAST.search(masked))


def _find_requests(text: str) -> Iterator[Request]:
    if not might_ask(text):
        return
    listed = False  # after "Please remember the following:", each list item is a request
    for line in spoken_lines(text):
        if listed:
            if not line.strip():
                listed = False
                continue
            item = _tidy(_LIST_MARK.sub("", line.strip()))
            if _LIST_MARK.match(line.strip()) and _rule_like(item) and not _ONE_OFF.search(item) and not _asks(item):
                yield Request("directive", _capitalise(item), _evidence(line))
                continue
            listed = False
        if might_ask(line) and _introduces_a_list(_mask(line.strip())):
            listed = True
            continue
        said = list(sentences(line))
        taken: set[int] = set()
        for index, sentence in enumerate(said):
            if index in taken or not might_ask(sentence):
                continue  # no trigger word in it: neither a request nor one pointing at its neighbour
            request = find_request(sentence)
            if request is not None and dangling(request.text):
                request = _antecedent(said, index, taken, request)  # "… never skip them": what "them" is
            if request is None:
                request = _pointed_at_in_sentence(sentence)
            if request is None and index > 0 and (index - 1) not in taken and _STANDING_ALONE.match(sentence.strip()) \
                    and _imperative(said[index - 1]):
                # "main に直接 push しないでください。絶対に。", "Don't push to main. Ever.": the word
                # that makes the sentence before it a standing rule stands on its own.
                request = _pointed_at(said[index - 1], sentence)
            if request is None and (_points_back(sentence) or standing.save_rule(_strip_courtesy(sentence)) == ""):
                # "We use yarn. Remember that." points back; "Remember this: …" or
                # "覚えておいてもらえますか？CIはNode 20です。" points ahead.
                if index > 1 and (index - 1) not in taken and (index - 2) not in taken:
                    request = _chained(said[index - 2], said[index - 1], sentence)
                if request is None and index > 0 and (index - 1) not in taken:
                    request = _pointed_at(said[index - 1], sentence)
                if request is None and index + 1 < len(said):
                    request = _pointed_at(said[index + 1], sentence)
                    if request is not None:
                        taken.add(index + 1)
            if request is not None:
                taken.add(index)
                yield request


# "never skip them", "always run it before pushing": the verb's object is a pronoun, and the rule
# means nothing without what it points at. ("keep it short", "make it a habit": an idiom's "it".)
_DANGLING_TAIL_WORDS = 5  # "always run it before pushing to main" still needs what "it" is
_DANGLING = lazy(
    rf"^{_FILLERS}(?:(?:always|never|ever|don'?t ever|dont ever|do not ever|never ever|please|pls|also|just|from now on|going forward)"
    # "we never use it": the team's practice, with its standing word ("we deploy it with helm" is a fact told)
    r"[\s,]+)*(?:(?:we|you)\s+(?:(?:should|must)\s+)?(?:always|never)\s+)?(?:(?:don'?t|dont|do not|not)\s+)?"
    r"(?!(?:make|keep|take|let|get)\b)[a-z]{2,}\s+"
    r"(?:(?:them|it)(?![\w'’])|(?:this|that|these|those)(?=\s*(?:again|anymore|too|either|first|[.!,]|$))"
    # "use this approach in the future as well": a way of doing things the sentence before shows
    r"|(?:this|that|these|those|the same)\s+(?:ap+roa?ch|way|pattern|method|style|format|structure|convention|technique"
    r"|solution|logic|practice|setup|layout)(?:e?s)?(?=\s*(?:again|anymore|too|as well|also|[.!,]|$)))", re.I)


def dangling(text: str) -> bool:
    """Is the rule's object only a pronoun ("Never skip them")? Not when much follows it: "just fix
    it and do it yourself, you dont need to ask me" says how to work, whatever "it" was."""
    match = _DANGLING.match(text)
    return match is not None and len(text[match.end():].split()) <= _DANGLING_TAIL_WORDS


def _antecedent(said: list[str], index: int, taken: set[int], request: Request) -> Request | None:
    """The rule whose pronoun the sentence before it explains ("The integration tests are slow.
    Never skip them."), or None: that sentence must be a statement of the user's, not a question
    nor a request of its own. A reading, so uncertain: a model reviewer may decline it."""
    if index == 0 or (index - 1) in taken:
        return None
    before = said[index - 1]
    masked = _mask(before)
    if _QUESTION_END.search(masked.rstrip(" .!")) or not _rule_like(before) or (might_ask(before) and find_request(before)):
        return None
    text = f"{_tidy(_strip_fillers(before))}. {request.text}"
    return Request(request.kind, _capitalise(text), _evidence(f"{before} {request.sentence}"), certain=False)


def dangles(text: str) -> bool:
    """Is a whole user message one standing request whose object is a pronoun ("never skip
    them")? What it points at is the message before: a model reviewer decides."""
    said = [s for line in spoken_lines(text) for s in sentences(line)]
    if len(said) != 1 or not might_ask(said[0]):
        return False
    request = find_request(said[0])
    return request is not None and request.kind == "directive" and dangling(request.text)


# A standing word alone as a sentence ("Ever.", "絶対に。", "Immer!").
_STANDING_ALONE = lazy(
    r"^(?:ever|ever again|never again|never|never ever|always|not ever|at all times|immer|niemals|nie|nie wieder|siempre|nunca|jamás|nunca más"
    r"|toujours|jamais|plus jamais|sempre|nunca mais|永远|永远不要|一定|绝对|绝对不要|千万|絶対に?|必ず|いつも|常に|二度と"
    r"|(?:以后|今后)(?:都|也)(?:是|这样)?|今後(?:も|ずっと)|これからも(?:ずっと)?|毎回)"
    r"[.!。！]*$", re.I)
# "we deploy with make release only — please remember that": the pointer ends the sentence,
# after a dash, a semicolon, a comma or an ellipsis.
_TRAILING_POINTER = lazy(r"^(?P<said>.+?)\s*(?:\s[—–-]+\s|[—–]|;|,|…|\.\.\.|，|、)\s*(?P<pointer>[^—–;,，、…]+)$")


def _pointed_at_in_sentence(sentence: str) -> Request | None:
    match = _TRAILING_POINTER.match(sentence.strip())
    if match is None or not _points_back(match.group("pointer")):
        return None
    return _pointed_at(match.group("said"), sentence)


def _pointed_at(previous: str, sentence: str) -> Request | None:
    if _asks(previous) or _ONE_OFF.search(_mask(previous)):
        return None
    text = _tidy(_strip_fillers(previous))
    if not _rule_like(text):
        return None
    return _judged(Request("directive", text if _has_cjk(text) else _capitalise(text), _evidence(f"{previous} {sentence}")))


_REMEMBERING = lazy(r"\b(?:remember|remeber|rember|remmber|remembr|rememeber|remebmer|rememnber|remenber|rmember)(?:ing)?\s+(?:to\s+)?", re.I)
_ANAPHOR = lazy(r"^(?:this|that|it|these|those|das|esto|eso|isso|isto|ça|cela|这|那)\b", re.I)


def _chained(earlier: str, previous: str, sentence: str) -> Request | None:
    """"Are you remembering to update the spec? This is to be updated all the time. Make this a
    rule.": the sentence pointed at says "this", and the one before it names what — the rule
    keeps both (of a question that asks whether they remember to do something, what to do)."""
    if not _ANAPHOR.match(previous.strip()) or _asks(previous):
        return None
    if _asks(earlier):
        named = _REMEMBERING.search(_mask(earlier))  # "are you remembering to …?", "did you remember to …?"
        if named is None:
            return None
        antecedent = _tidy(earlier[named.end():])
    else:
        antecedent = _tidy(_strip_fillers(earlier))
    said = _tidy(previous)
    if not _rule_like(antecedent) or not _rule_like(said) or _ONE_OFF.search(_mask(f"{antecedent} {said}")):
        return None
    return Request("directive", f"{_capitalise(antecedent)}. {said}", _evidence(f"{earlier} {previous} {sentence}"))


def _line_sentences(line: str) -> Iterator[str]:
    """The sentences of a line of text that is read whole, its quote or heading marks left out."""
    return sentences(line.strip().lstrip(">#* ").strip())


def requests_anywhere(text: str) -> Iterator[Request]:
    """Every request any sentence of `text` makes, pasted or not, with every trigger of the
    grammar: for the few short texts a review checks whole (a note the model wrote, its quote)."""
    for line in _bounded(text).splitlines():
        for sentence in _line_sentences(line):
            if might_ask(sentence):
                request = find_request(sentence)
                if request is not None:
                    yield request


def requests_in_foreign(text: str) -> Iterator[Request]:
    """Requests in text that is not the user's (tool output, assistant text): every line counts,
    since a page planting a rule does not fence it."""
    text = _bounded(text)
    found = stems_in(text, FOREIGN_STEMS)
    if not found:
        return
    lowered_lines = text.lower().splitlines()
    for line, lowered in zip(text.splitlines(), lowered_lines):
        if not any(stem in lowered for stem in found):
            continue  # most lines of a tool's output hold none of the words the whole text holds
        for sentence in _line_sentences(line):
            # A planted rule puts its trigger up front ("From now on, always …"); an assistant's
            # "the field is never empty" is not worth the full grammar on every such sentence.
            lead = f" {sentence[:FOREIGN_LEAD_CHARS].lower()} "
            if any(stem in lead for stem in found):  # (a few stems, a short lead: `in` is quickest)
                request = find_request(sentence)
                if request is not None:
                    yield request
