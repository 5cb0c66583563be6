"""One spoken sentence → the explicit request it makes, or None (docs/reviewer-answer-schema.md): a trigger and what
stands before it, a saved rule, a conditional convention, the standing word later; then judged
whole (scope, fragments) and the rule's text cut from the sentence."""

from __future__ import annotations

import re

from omp.intents import conventions, pl_ru, standing
from omp.intents.phrases import (
    WHERE_TO_KEEP,
    _ALWAYS_NEXT_BAD,
    _ALWAYS_TRIGGER,
    _HAPPENS_EACH_TIME,
    _OBLIGES,
    _TEAM_SHOULD,
    _CANNOT_BE_POLITE,
    _CJK_COMPLAINT_END,
    _CJK_IMPERATIVE,
    _CJK_NOT_A_RULE,
    _CJK_PREFIX_OK,
    _DETERMINER,
    _BEFORE_THE_ACT,
    _EACH_OCCASION,
    _ECHO_FORGET,
    _FILLERS,
    _FLAGS,
    _FORGET_CONVERSATION,
    _FORGET_REASON,
    _FROM_NOW_TRIGGER,
    _JA_POLITE_TAIL,
    _JOKING,
    _CJK_ASK_BEFORE,
    _CJK_THIS_GUIDELINE,
    _CLAUSE_BEFORE,
    _CLAUSE_OR_LABEL,
    _DONT_FORGET,
    _ENGLISH_THIRD_PERSON,
    _JA_NEXT_ACT,
    _LETS,
    _PRACTICE_CLAUSE,
    _PREFERENCE,
    _PREPOSITION_NEXT,
    _NO_LONGER_APPLIES,
    _NOT_A_RULE_AFTER,
    _ONE_OFF,
    _ONE_TIME_ACT,
    _PAST_AFTER_SUBJECT,
    _POLITE,
    _POLITE_ASK,
    _PREDICTION,
    _PREFIX_OK,
    _PREPOSITION_FIRST,
    _QUESTION_END,
    _QUESTION_START,
    _REMEMBER_TRIGGER,
    _REPLY_LANGUAGE,
    _REPLY_LANGUAGE_AFTER,
    _REPORTED,
    _REPORTED_OCCASION,
    _RULE_NAMED,
    _SPEAKER_SAYS,
    _STANDING_CONDITION,
    _STANDING_NEGATION,
    _TAG_QUESTION,
    _THAT_THING,
    _THEN_DO,
    _TRIGGERS,
    _V2_TRIGGER,
    _VERB_BEFORE_V2,
    _VERB_FIRST,
    _VERB_FIRST_TRIGGER,
    _has_cjk,
    _names_a_thing,
    family_kind,
)
from omp.intents.request import Request
from omp.intents.wording import (
    _IMPERATIVE_START,
    _ONLY_FILLERS_RE,
    _POLITE_START,
    _TRAILING,
    _capitalise,
    _drop_polite,
    _evidence,
    _imperative,
    _rule_like,
    _strip_courtesy,
    _strip_fillers,
    _strip_fillers_span,
    _tidy,
)
from omp.intents.spoken import _mask
from omp.lazyre import lazy


def find_request(sentence: str) -> Request | None:
    """The explicit request a spoken sentence makes, or None: the grammar's (`_grammar_request`)
    or, when it finds none, a request to save a rule, the standing word at the end, or a request
    in a later clause (`_beyond_grammar`); then judged whole (`_judged`: scope, fragments)."""
    saved = _saved_rule(sentence)
    if saved is not None:
        return _judged(saved, scope=False)
    if pl_ru.is_polish_or_russian(_mask(sentence)):  # quoted or inline-code words are not the language spoken
        found = pl_ru.find(sentence)  # their own grammar (Polish "nie" is no German "nie")
        request = None if found is None else Request(found.kind, found.text, _evidence(sentence), found.certain)
    else:
        request = _grammar_request(sentence) or _beyond_grammar(sentence)
        found = pl_ru.find(sentence) if request is None else None  # Polish typed without its letters
        request = request if found is None else Request(found.kind, found.text, _evidence(sentence), found.certain)
    return None if request is None else _judged(request)


def _judged(request: Request, scope: bool = True) -> Request | None:
    """A request whose scope is the current story, document or task, or whose rule is a
    fragment or only points back ("do it like this": the caller resolves it), is none. (A rule
    the user asks to save is theirs whatever it names or however it is worded, "all errors must
    be logged" too: `scope` False.)"""
    if scope and standing.scoped(_mask(request.sentence)):
        return None
    text = _COURTESY_AFTER.sub("", request.text)  # "utilise toujours des f-strings, stp"
    if text != request.text:
        request = Request(request.kind, text, request.sentence, request.certain)
    if _HANGUL.search(text) and not _KO_ORDER_END.search(text):
        return None  # "항상 에러가 발생해요": what always happens, told; an order ends "…세요", "…해", "…마세요"
    if _WHERE_TO_KEEP_ONLY.match(text):
        return None  # "remember that for your instructions": points back (`_points_back`)
    if _has_cjk(text) and (_CJK_POINTER.match(text) or _CJK_DONE_THIS_WAY.search(text)):
        return None  # "以后都这样做", "每次刷新后都要这样展示": points back (`_points_back`)
    if not _has_cjk(text) and (standing.fragment(text) or standing.only_points(text)):
        return None
    if _WANT_COUNT.match(text):
        return None  # "we always want to use 4 robots": how many of a thing the product has, a spec line
    if scope and standing.spec_like(text) and not _REMEMBER_TRIGGER.search(_mask(request.sentence)) and not _said_from_now_on(request) \
            and not _ABOUT_REPLIES.match(request.sentence):  # "every response should …" is about the replies
        return None  # "the function must always return a list": what is being built
    if _CONFIG_VALUE.search(_mask(request.sentence)):
        return None  # "On a forcé trailingSlash: always dans Astro": a setting's value, not an order
    if _REPORTED_OCCASION.match(request.sentence):
        return None  # "Each time you've spawned a new cli it has bumped the port": what happened
    if standing.about_the_thing_in_hand(text) and not _ALWAYS_TRIGGER.search(_mask(text)):
        return None  # "remember it is a brief presentation": this task's context
    if standing.speaker_will(text):
        return None  # "I'll always use the latest version from now on": what the user will do
    if standing.task_context(text) or standing.this_tasks_file(text) or standing.this_chats_thing(text):
        return None  # "keep in mind that the intended functionality is …", "remember to update the @__init__.py"
    if _ASKS_ABOUT.match(text) or _TEXT_TASK.match(_mask(request.sentence)):
        return None  # "can you explain why we should never use eval?", "Translate to French: always …"
    return request


def _said_from_now_on(request: Request) -> bool:
    """Is the rule a prohibition that a from-now word opens or precedes ("make sure in future too
    the test file should never be created")? Then it is the work's rule, not the spec of the thing
    built. (A trailing one modifies its verb: "that will be helpful in the future"; and "from now on
    the user will ask questions about the document" still tells how the thing built is used.)"""
    if not _PROHIBITION.search(request.text):
        return False
    start = request.sentence.lower().rfind(request.text[:12].lower())
    before = request.sentence[:start] if start >= 0 else ""
    return bool(_FROM_NOW_TRIGGER.match(_mask(request.text)) or _FROM_NOW_TRIGGER.search(_mask(before)))


_PROHIBITION = lazy(r"\b(?:should|must|shall|may)\s+(?:never|not)\b|\b(?:shouldn'?t|mustn'?t)\b", re.I)


# A sentence whose subject is every reply of the assistant's ("your answers", "every response"), then a
# modal, or "I want your answers to …": how the user wants to be answered, whatever the task.
_REPLIES = r"(?:responses|answers|replies|outputs|explanations|code (?:examples|snippets|blocks))"  # plural: "your answer" is this one
_REPLY = r"(?:response|answer|reply|output|explanation|code (?:example|snippet|block))"
_ABOUT_REPLIES = lazy(
    rf"^{_FILLERS}(?:please\s+)?(?:(?:(?:all(?: of)?\s+)?your|all(?: of)?\s+the)\s+(?:future\s+)?{_REPLIES}|(?:every|each)(?:\s+single|\s+one of your|\s+of your)?\s+(?:future\s+)?(?:{_REPLY}|{_REPLIES}))"
    r"(?:\s+(?:you (?:give|write|send)|from (?:now|here) on|going forward))?\s+(?:should|must|shall|need to|needs to|have to|has to)\s+\S"
    # "any code you write must have tests", "all the functions you generate should have docstrings"
    rf"|^{_FILLERS}(?:please\s+)?(?:all|any|every|each)(?:\s+of)?(?:\s+the)?\s+(?:[\w-]+\s+)?(?:code|functions?|tests?|commits?|files?|components?|classes|class|scripts?|queries|query|sql)"
    r"\s+(?:that\s+)?you\s+(?:write|generate|create|produce|add|make|give me|suggest)\s+(?:from now on\s+|going forward\s+)?"
    r"(?:should|must|shall|needs? to|has to|have to)\s+\S"
    rf"|^{_FILLERS}i\s+(?:want|need|'d like|would like|prefer)\s+(?:all(?: of)?\s+|every one of\s+)?your\s+(?:future\s+)?{_REPLIES}"
    r"\s+(?:to\s+(?:be|include|have|contain|use|start|end)|in|without|with)\b", _FLAGS)
# "Explain why we should never …", "tell me how you always …": the standing word stands in what the
# user asks to be told about, an embedded question, not in an order.
_ASKS_ABOUT = lazy(r"^(?:(?:please|also|and)\s+)*(?:explain|tell (?:me|us)|show (?:me|us)|describe|clarify|teach (?:me|us)"
                   r"|help (?:me|us) understand|let (?:me|us) know|i (?:wonder|want to know|need to know))\b"
                   r"(?:\s+[\w'-]+){0,3}?\s+(?:why|how|what|whether|if|when|where|which|who)\b", re.I)
# "Translate to French: Always wash your hands", "Rewrite this: …", "Summarize: …": what follows the
# label is the text to work on, not the user's words to keep.
_TEXT_TASK = lazy(r"^\W*(?:(?:ok|okay|now|so|please|pls|and|also)[\s,]+)*(?:(?:can|could|would) you\s+(?:please\s+)?)?"
                  r"(?:translate|rewrite|rephrase|paraphrase|reword|summari[sz]e|proofread|correct|polish|shorten|simplify"
                  r"|improve|edit|grammar[- ]check|spell[- ]check|tl;?dr)\b[^:：\n]{0,60}[:：]\s*\S", re.I)


_WANT_COUNT = lazy(r"^(?:we|i)\s+(?:(?:always|never|still)\s+)?(?:want|need|require)\s+(?:to\s+(?:use|have|run|keep|spawn|show)\s+)?"
                   r"(?:exactly\s+|at least\s+|at most\s+|only\s+)?\d+\s+[^\W\d_]", re.I)


def _saved_rule(sentence: str) -> Request | None:
    """"add a rule that …", "make this a global rule: …", "update the rule so you always …"."""
    masked = _mask(sentence)
    if bool(_QUESTION_END.search(masked.rstrip(" .!"))) and not _polite_question(masked):
        return None
    saved = standing.save_rule(_strip_courtesy(sentence))
    if not saved:  # "" points back at what came before ("make this a global rule")
        return None
    return Request("directive", _tidy(saved), _evidence(sentence))


_COURTESY_AFTER = lazy(r"(?:[,;]\s*|\s+)(?:pls|please|plz|thx|thanks|thank you|por favor|porfa|gracias|bitte|danke|merci|stp|svp"
                       r"|s'il te plaît|s'il vous plaît|obrigad[oa]|valeu)[\s.!。！]*$|[，,]?\s*谢谢[。！!]*$", re.I)
# "trailingSlash: always", "strict = true, always": a standing word as a setting's value, after an
# identifier (camelCase, snake_case, dotted) and a colon or an equals sign.
_CONFIG_VALUE = lazy(r"\b(?:[a-z]+[A-Z]\w*|\w+_\w+|\w+\.\w+)\s*[:=]\s*[\"']?(?:always|never)\b")
_HANGUL = lazy(r"[\uac00-\ud7a3]")
_KO_ORDER_END = lazy(r"(?:세요|십시오|주세요|줘|해라|하자|합시다|마라?|마세요|말 것|해)[.!。！\s]*$")
_WHERE_TO_KEEP_ONLY = lazy(rf"^{WHERE_TO_KEEP}\W*$", re.I)
# "…都要这样展示": what is to be done is "this way", what the user pointed at
_CJK_DONE_THIS_WAY = lazy(r"都(?:要|得|需要|必须)?(?:这样|這樣|这么|這麼|那样|那樣)")
_CJK_POINTER = lazy(r"^(?:都|也|就)?(?:要)?(?:这样|这么)(?:做|写|办|弄)?(?:吧|哦|啊)?$|^(?:も|は)?(?:そう|こう)(?:して|する)(?:ね|ください|下さい)?$")
# "can you use pnpm from now on?", "… from now on thx": a polite ask or thanks around the trigger.
_COURTESY_ONLY = lazy(standing.COURTESY_TAIL.replace("(?:[", "^(?:[", 1), re.I)
_CJK_POLITE_MODAL = lazy(r"(?:你)?(?:能不能|能否|可不可以|可以不可以)(?:帮我)?|(?:好吗|好不好|行吗|行不行|吗|呢|么)?[？?]*$")
# "revisa o código, e lembre-se que …": a request in the clause after a conjunction.
_NEXT_CLAUSE = lazy(r"(?:[,;，；]|\s[—–-]+)\s*(?:(?:and|also|but|then|plus|e|y|et|und|aber|pero|mas|mais|também|también|aussi|还有|另外)\s+)?"
                    r"(?:still\s+)?|\s(?:and|also|then|plus|e|y|et|und|pero|mas|mais)\s+", re.I)
# "now maybe also …": this moment, hedged; "… what to expect in the future": the trigger tells
# when of the verb right before it, not that the sentence is to hold.
_HEDGED = lazy(r"^(?:(?:now|so|ok|okay|and|also)\s+)*(?:maybe|perhaps|possibly|probably)\b", re.I)
_TRIGGER_MODIFIES = lazy(r"\b(?:expect|happen|happens|come|comes|change|changes|break|breaks|need|needs|be needed|look like"
                         r"|plan|planned|add|added|use|used)\s*$", re.I)
_NEXT_STEP = lazy(rf"^{_FILLERS}(?:now|then|next|first|after that|agora|ahora|maintenant|jetzt|现在|接下来)\b", _FLAGS)
# "clean up, the flag is useless, coz we always want to cheat here": a team's standing practice
# given as the reason.
_REASON_CLAUSE = lazy(r"[,;，；]?\s*\b(?:because|coz|cuz|cause|'cause|since|as|porque|parce que|car|weil|denn|pois|因为)\s+"
                      r"(?=(?:we|our team|the team|nosotros|nous|wir|nós|a gente|我们)\s+(?:\w+\s+)?(?:always|never|siempre|nunca"
                      r"|toujours|jamais|immer|nie|sempre|总是|从不)\b)", re.I)
# A clause inside the ask: "can you make it so the button is always visible" (the standing
# word describes the thing being built, not how to work).
_SUBORDINATE = lazy(r"\b(?:so|that|which|who|where|when|if|because|is|are|it|que|qui|donde|cuando|où|quand|onde|quando|dass|wo|wenn)\b", re.I)
_LETS_KEEP = lazy(
    rf"^{_FILLERS}let'?s\s+(?:always\s+)?(?:keep|stick (?:with|to)|stay with|follow|stay consistent with)\s+"
    r"(?!(?:going|it|this|that|them|in mind|up|on|trying|looking|working|at|an eye|track|things)\b)(?:the|our|a|an|using)\s+\S.*", _FLAGS)
_DOES = lazy(r"^[a-z]+[^\Wsu]s\b|^[a-z]+(?:ed|ing)\b", re.I)
# What makes "let's keep the …" a convention rather than this task's choice ("let's keep the old
# function"): a naming or layout word, or a comparison with the rest of the project.
_CONVENTION = lazy(
    r"\b(?:names?|naming|conventions?|style|format|formatting|structure|layout|pattern|casing|case|order|spelling)\b"
    r"|\b(?:like|analog(?:ous)?|analagous|consistent|consistency|same as|to match|as in|as with|as we do)\b", re.I)
_EVERY_TIME_I = lazy(
    rf"^{_FILLERS}(?:every time|each time|whenever|any time|cada vez que|siempre que|sempre que|toda vez que"
    r"|chaque fois que|jedes mal,? wenn"
    # "When I ask for code, only give me the code": the user's own recurring ask
    r"|when(?=\s+(?:i|we)\s+(?:ask|send|paste|give|say|type|request|share|upload|mention)\b))"
    r"\s+(?:i|we|you|yo|eu|je|ich|wir|nous|nós)\b.{3,120}?"
    r"(?:\s+(?:pls|please|plz|then|por favor|bitte)\s+|,\s*)(?P<act>[^\W\d_]{2,}\s+\S.*)$", _FLAGS)


# "… in your responses", "… in all of your answers": every reply (a plural), not this one.
# ("keep your responses under 200 words", "write your answers in plain text": the object of a verb
# that shapes them, too; "check your answers to the quiz" is one act)
_IN_YOUR_REPLIES = lazy(rf"\b(?:(?:in|to|for|from|into)\s+|(?:keep|write|make|format|end|start|begin|limit|structure|give)\s+)"
                        rf"(?:all\s+(?:of\s+)?)?your\s+(?:future\s+)?{_REPLIES}\b"
                        # "please keep responses short": the replies, plural, "your" left out
                        rf"|\b(?:keep|make|limit)\s+(?:all\s+(?:the\s+)?)?{_REPLIES}\s+(?:short|brief|concise|under|below|shorter|to\s+the\s+point|in)\b", re.I)


def _beyond_grammar(sentence: str) -> Request | None:
    masked = _mask(sentence)
    polite = _polite_question(masked)
    if _JOKING.search(masked):
        return None
    telling = conventions.stops_telling(sentence, polite)
    if telling is not None or (_QUESTION_END.search(masked.rstrip(" .!")) and not polite):
        return telling
    if _ONE_OFF.search(masked):
        # "we have a lot of code right now, but still keep in mind the architecture": a later
        # clause may hold a request of its own
        return _later_clause(sentence)
    asked_text = _strip_courtesy(sentence)
    asked = _POLITE_START.match(asked_text)
    standing_word = _ALWAYS_TRIGGER.search(_mask(asked_text), asked.end()) if asked is not None else None
    if asked is not None and standing_word is not None \
            and not _ALWAYS_NEXT_BAD.match(asked_text[standing_word.end():].lstrip()) \
            and not _SUBORDINATE.search(asked_text[asked.end():standing_word.start()]):
        # "tenés que correr los tests siempre antes de pushear": a modal ask, the standing word later
        text = _tidy(asked_text[asked.end():])
        if _rule_like(text) and not _QUESTION_START.match(text):
            return Request("directive", _capitalise(text), _evidence(sentence), certain=False)
    kept = _LETS_KEEP.match(sentence)
    if kept is not None and not _ONE_OFF.search(masked) and _CONVENTION.search(sentence):
        # "Let's keep the singular folder name, analogous to `src`": a convention agreed on
        return Request("directive", _capitalise(_tidy(_strip_fillers(sentence))), _evidence(sentence), certain=False)
    if _ABOUT_REPLIES.match(sentence) and _rule_like(sentence):
        # "Your answers should always be concise", "I want all your answers in markdown": how every reply is to be
        return Request("directive", _capitalise(_tidy(_strip_fillers(sentence))), _evidence(sentence), certain=False)
    if _IN_YOUR_REPLIES.search(masked) and _imperative(asked_text[asked.end():] if asked is not None else sentence):
        # "Please don't use emojis in your responses": every reply, not the next one
        return Request("directive", _capitalise(_tidy(_strip_fillers(_strip_courtesy(sentence)))), _evidence(sentence),
                       certain=False)
    after_task = None if _REPLY_LANGUAGE.match(sentence.strip()) else _REPLY_LANGUAGE_AFTER.search(sentence.strip())
    if after_task is not None and not _QUESTION_END.search(masked.rstrip(" .!")):
        # "逐一修复然后更新README，使用中文回答": the task is this one; the language asked for holds
        clause = after_task.group("clause") or after_task.group("cjk")
        return Request("directive", _capitalise(_tidy(clause)), _evidence(sentence), certain=False)
    if _REPLY_LANGUAGE.match(sentence.strip()):
        # "请用中文说话", "please answer in English": the language the user talks in, asked for
        # on its own, holds for the replies that follow, not for one answer
        return Request("directive", _capitalise(_tidy(_strip_fillers(_strip_courtesy(sentence)))), _evidence(sentence),
                       certain=False)
    occasion = _EACH_OCCASION.search(masked)
    if occasion is not None and not _HAPPENS_EACH_TIME.search(masked):
        # "run the tests before every commit", "tenés que correr los tests antes de cada commit":
        # an act tied to each unit of the work is a habit, whatever the verb
        if _has_cjk(occasion.group()):
            # "…，我们完成每个里程碑之后都需要…": the clause that holds it, its 都需要 the obligation
            clause = sentence[max(sentence.rfind(mark, 0, occasion.start()) for mark in "，,；;：:") + 1:]
            if not _rule_like(clause) or _CJK_DONE_THIS_WAY.search(clause):
                return None  # "每次刷新后都要这样展示": points at what was shown, the thing built
            return Request("directive", _tidy(clause), _evidence(sentence), certain=False)
        team = _TEAM_SHOULD.match(sentence)  # "I think we should bump the version each time we make changes"
        act = _strip_fillers(asked_text[asked.end():] if asked is not None else sentence[team.end():] if team else sentence)
        act = act.rstrip(" ?？")  # "Can you stop adding disclaimers to every answer?": a polite ask
        if (team is not None or _imperative(act)) and not (act.isascii() and _DOES.match(act)) and _rule_like(act) \
                and not _ONE_TIME_ACT.match(act):
            return Request("directive", _capitalise(_tidy(sentence[len(team.group("hedge") or ""):] if team else act)),
                           _evidence(sentence), certain=False)
    if asked is not None and _OBLIGES.match(asked.group()) and _BEFORE_THE_ACT.search(masked):
        # "tenés que correr los tests antes de pushear", "you have to run the linter before committing"
        act = _strip_fillers(asked_text[asked.end():])
        if _rule_like(act) and not _ONE_TIME_ACT.match(act):
            return Request("directive", _capitalise(_tidy(act)), _evidence(sentence), certain=False)
    every = _EVERY_TIME_I.match(sentence)
    if every is not None and _imperative(every.group("act")) and not _REPORTED_OCCASION.match(sentence) \
            and not _ONE_TIME_ACT.match(every.group("act")):
        return Request("directive", _capitalise(_tidy(_strip_fillers(sentence))), _evidence(sentence), certain=False)
    conditional = conventions.conditional(sentence) or conventions.convention(sentence)
    if conditional is not None:
        return conditional
    tail = standing.standing_tail(sentence)
    if tail is not None:
        rule, word = tail
        rule = _strip_fillers(rule)
        cjk_rule = _has_cjk(rule) and not _CJK_COMPLAINT_END.search(rule)  # Chinese has no imperative mark
        # "works fine locally, always", "crashes on startup every time": what it does, not an imperative
        does = rule.isascii() and _DOES.match(rule) is not None
        hedged = _HEDGED.match(rule) is not None or _TRIGGER_MODIFIES.search(rule) is not None
        if (cjk_rule or (_imperative(rule) and not does and not hedged)) and _rule_like(rule):
            keep_word = not _FROM_NOW_TRIGGER.fullmatch(word)
            text = f"{rule}, {word}" if keep_word and "," in sentence[len(rule):] else (
                f"{rule} {word}" if keep_word else rule)
            if sentence.rstrip(" .!。！").endswith((")", "）")) or _has_cjk(sentence):
                text = _strip_fillers(sentence)  # "…（以后都是）", "…，以后也是": the user's sentence whole
            text = _tidy(text)
            return Request("directive", text if _has_cjk(text) else _capitalise(text), _evidence(sentence), certain=False)
    inside = _clause_with_standing_tail(sentence)
    if inside is not None:
        return inside
    later = _later_clause(sentence)
    if later is not None:
        return later
    reason = _REASON_CLAUSE.search(sentence)
    if reason is not None:
        request = _grammar_request(sentence[reason.end():])
        if request is not None:
            return Request(request.kind, request.text, _evidence(sentence), certain=False)
    return None


def _clause_with_standing_tail(sentence: str) -> Request | None:
    """A from-now word closing one comma clause of a run-on message ("this isnt presentable, i
    prefer rounded polygons for any shapes going forward, this is a great first attempt"): that
    clause alone is the rule, when it is an order or the speaker's preference."""
    clauses = [part.strip() for part in re.split(r"[,;]", sentence)]
    if len(clauses) < 2:
        return None
    for clause in clauses:
        tail = standing.standing_tail(clause)
        if tail is None or not _FROM_NOW_TRIGGER.fullmatch(tail[1]):
            continue
        rule = _strip_fillers(tail[0])
        if _has_cjk(rule) or _HEDGED.match(rule) or _TRIGGER_MODIFIES.search(rule) or (rule.isascii() and _DOES.match(rule)):
            continue
        if (_imperative(rule) or _PREFERENCE.match(rule)) and _rule_like(rule) and not standing.speaker_will(rule):
            return Request("directive", _capitalise(_tidy(rule)), _evidence(sentence), certain=False)
    return None


def _later_clause(sentence: str) -> Request | None:
    """A remember or from-now request that opens a later clause ("…, but keep in mind …")."""
    # "now write the migration, remember that the table is huge": context for the step at hand
    clauses = () if _NEXT_STEP.match(sentence) else _NEXT_CLAUSE.finditer(sentence)
    for clause in clauses:
        after = sentence[clause.end():]
        lead = _strip_fillers_span(after)
        asked = _POLITE_START.match(after[len(lead):])  # "…, and also make sure in future …"
        at = len(lead) + (asked.end() if asked is not None else 0)
        if (_REMEMBER_TRIGGER.match(after, at) or _FROM_NOW_TRIGGER.match(after, at)) and not _ONE_OFF.search(_mask(after)):
            request = _grammar_request(after) or (_beyond_grammar(after) if asked is not None else None)
            if request is not None:
                return Request(request.kind, request.text, _evidence(sentence), certain=False)
    return None


def _grammar_request(sentence: str) -> Request | None:
    """The request the grammar reads in a sentence (a trigger and what may stand before it)."""
    if sentence.rstrip().endswith(("?", "？")):
        sentence = _TAG_QUESTION.sub("", sentence) or sentence
    masked = _mask(sentence)
    if _JOKING.search(masked):
        return None  # "From now on it's your turn, just kidding", "Remember to buy milk lol"
    question = bool(_QUESTION_END.search(masked.rstrip(" .!")))
    standing = _STANDING_CONDITION.match(masked) or _STANDING_NEGATION.match(masked)
    if standing and not question and not _ONE_OFF.search(masked):
        text = _tidy(_strip_fillers(sentence))
        if _rule_like(text):
            return Request("directive", _capitalise(text), _evidence(sentence))
    gone = _NO_LONGER_APPLIES.match(masked)
    if gone and not question:
        what = _tidy(sentence[gone.start("what"):gone.end("what")])
        if _rule_like(what) and not _ECHO_FORGET.match(what):
            return Request("forget", _capitalise(what), _evidence(sentence))
    for family, pattern in _TRIGGERS:
        for match in pattern.finditer(masked):
            request = _at(sentence, masked, family, match)
            if request is None:
                continue
            if question and not _polite_question(masked):
                return None
            checked = _conjunction_blanked(masked, match)
            if family == "from_now":  # "starting today", "à partir d'aujourd'hui": the start of a standing rule
                checked = checked[:match.start()] + " " * (match.end() - match.start()) + checked[match.end():]
            if _ONE_OFF.search(checked):
                return None
            return request
    return None


def _conjunction_blanked(masked: str, match: re.Match[str]) -> str:
    """The sentence with "that" after "remember" blanked: in "Remember that commits must be
    signed" it opens a clause, and "that commits" is not the one-off "that commit"."""
    conn = match.groupdict().get("conn")
    if conn and conn.strip().lower() == "that":
        start, end = match.span("conn")
        return masked[:start] + " " * (end - start) + masked[end:]
    return masked


def _polite_question(masked: str) -> bool:
    return bool(_POLITE_ASK.search(masked)) and not _CANNOT_BE_POLITE.search(masked)


# Polish letters: "serwer nie działa" is Polish "not", not German "never".
_NOT_GERMAN = lazy(r"[ąćęłńśźżĄĆĘŁŃŚŹŻ]|\b(?:się|jest|że|czy|mi|nic)\b", re.I)


def _at(sentence: str, masked: str, family: str, match: re.Match[str]) -> Request | None:
    start, end = match.span("trigger")
    if match.group("trigger").lower() in ("nie", "niemals", "immer", "nie wieder") and _NOT_GERMAN.search(sentence):
        return None
    before = masked[:start]
    cjk = _has_cjk(match.group("trigger"))
    if cjk and family in ("remember", "forget") and (
            not sentence[end:].strip(_TRAILING + "ね。よ") or _JA_POLITE_TAIL.match(sentence[end:].strip())
            # "…ことに留意してやり直して": keep it in mind, and redo this one (a te-form act after it)
            or (family == "remember" and sentence[start:end].endswith("て") and _JA_NEXT_ACT.match(sentence[end:].strip()))):
        # Japanese (and at times Chinese) puts the verb last: "…ことを覚えておいてください".
        rest = re.sub(r"(?:なことに|ということに|ことに|ことを|ことは|のを|を|って|と|は|に)\s*$", "", sentence[:start].strip(" ，、：:"))
        rest = _strip_fillers(rest)
        return Request(family_kind(family), rest, _evidence(sentence)) if _rule_like(rest) else None
    if family == "from_now" and (not sentence[end:].strip(_TRAILING) or _COURTESY_ONLY.match(sentence[end:])):
        # "Use pnpm from now on." — the trigger closes the sentence.
        rest = _strip_fillers(sentence[:start].strip(" ,，、"))
        if _QUESTION_END.search(masked.rstrip(" .!")):
            if not _polite_question(masked):
                return None
            rest = _strip_fillers(_POLITE_LEAD.sub("", rest, count=1))  # "can you use pnpm from now on?"
        if _QUESTION_START.match(rest) or _HEDGED.match(rest) or _TRIGGER_MODIFIES.search(sentence[:start]):
            return None  # "now maybe also write a readme … what to expect in the future"
        return Request("directive", _capitalise(_tidy(rest)), _evidence(sentence)) if _rule_like(rest) else None
    if cjk and family == "remember" and _CJK_THIS_GUIDELINE.match(sentence[end:].strip()):
        # "关于设计界面必须考虑的7大维请你记住这个准则": "remember this guideline", the guideline named before it
        topic = _CJK_ASK_BEFORE.sub("", sentence[:start]).strip(" ，,、：:")
        return Request("directive", topic, _evidence(sentence)) if _rule_like(topic) else None
    prefix = (_CJK_PREFIX_OK if cjk else _PREFIX_OK).match(before)
    if prefix is None and family == "always" and cjk and _CJK_IMPERATIVE.search(match.group("trigger") + sentence[end:]) \
            and not _CJK_NOT_A_RULE.match(sentence[end:].strip()):
        # Japanese and Chinese put the adverb after the topic: "mainには絶対に直接pushしないで".
        text = _tidy(_strip_fillers(sentence))
        return Request("directive", text, _evidence(sentence)) if _rule_like(text) else None
    verb = ""
    if prefix is None and family == "from_now" and _V2_TRIGGER.match(match.group("trigger")):
        v2 = _VERB_BEFORE_V2.match(before)
        rest = _tidy(sentence[end:].strip(" ,:"))
        if v2 is None or not rest or _QUESTION_END.search(masked.rstrip(" .!")):
            return None
        text = f"{sentence[v2.start('verb'):v2.end('verb')]} {rest}"
        return Request("directive", _capitalise(text), _evidence(sentence)) if _rule_like(text) else None
    if prefix is None and family == "always" and not cjk:
        prefix = _VERB_FIRST.match(before) if _VERB_FIRST_TRIGGER.match(match.group("trigger")) else None
        verb = sentence[prefix.start("verb"):prefix.end("verb")] + " " if prefix else ""
        if prefix is not None and prefix.group("cond"):
            verb = sentence[prefix.start("cond"):prefix.end("cond")] + verb
        if prefix is None:
            # "The staging db is read-only, never write to it.": what holds, then the imperative
            # that follows from it; the rule is the whole sentence (the clause says what "it" is).
            prefix = _CLAUSE_BEFORE.match(before)
            after_trigger = sentence[end:].strip()
            if prefix is not None and (
                    _QUESTION_START.match(prefix.group("cond")) or _REPORTED.search(prefix.group("cond"))
                    or _ENGLISH_THIRD_PERSON.match(match.group("trigger") + sentence[end:])
                    # "We deploy on Mondays, never on Fridays" is the team's practice; "It works
                    # locally, never on CI" is what happens
                    or (not _PRACTICE_CLAUSE.match(prefix.group("cond")) if _PREPOSITION_NEXT.match(after_trigger)
                        else not _IMPERATIVE_START.match(after_trigger))):
                prefix = None  # "The API is slow, always times out": what it does, not what to do
    if prefix is None:
        return None
    has_cond = bool(prefix.groupdict().get("cond"))
    spoken_before = before[:prefix.start("cond")] + before[prefix.end("cond"):] if has_cond else before
    if _REPORTED.search(spoken_before):
        return None  # "The docs say: always …" is what someone else said
    if (family != "forget" and not has_cond and _QUESTION_START.match(masked.lstrip("¿ "))
            and not _polite_question(masked)):
        return None
    after = sentence[end:].strip(" ,:;-–—，：、")
    rest = _tidy(after[len(_ONLY_FILLERS_RE.match(after).group(0)):])  # type: ignore[union-attr]
    trigger = match.group("trigger")
    cond = prefix.groupdict().get("cond") or ""
    subject = prefix.groupdict().get("subject") or ""
    if family == "forget":
        if _LETS.search(before):
            return None  # "lets forget about the tables, i am just interested in the chart": left aside
        connected = any(match.group(g) for g in match.groupdict() if g.startswith("fconn") and match.group(g))
        # "Forget the yarn rule, we use pnpm now": what to forget ends where the reason starts
        # (left in, its words made the target match no rule).
        reason = _FORGET_REASON.search(rest)
        rest = rest[:reason.start()] if reason else rest
        clause = any((match.group(g) or "").strip().lower() in ("that", "the fact that", "the rule that", "what i said about", "dass", "que")
                     for g in match.groupdict() if g.startswith("fconn"))
        then = _THEN_DO.search(rest)
        if then is not None and _imperative(rest[then.end():]):
            if not (clause or _RULE_NAMED.search(rest[:then.start()]) or _RULE_NAMED.search(trigger)):
                return None  # "forget the login page, focus on the api": leave it aside in this task
            rest = rest[:then.start()]  # "forget the yarn rule and use pnpm": the rule, not what to do instead
        named = (_RULE_NAMED.search(trigger) if connected and rest
                 and (not _rule_like(rest) or _PREPOSITION_FIRST.match(rest)) else None)
        if named is not None:
            rest = _tidy(f"{named.group(0)} {rest}")  # "Olvida la regla de yarn": "la regla de yarn"
        if _ECHO_FORGET.match(rest) or not _rule_like(rest) or _FORGET_CONVERSATION.match(rest):
            return None
        if not connected and re.match(r"\s*[,，、]", sentence[end:]):
            return None  # "Esquece, eu faço.": never mind, not a request about memory
        if not connected and not cjk and _NOT_A_RULE_AFTER.match(rest):
            return None
        return Request("forget", _capitalise(rest), _evidence(sentence))
    if family == "remember":
        connected = any(match.group(g) for g in match.groupdict() if g.startswith("conn") and match.group(g))
        if not connected and _DONT_FORGET.match(trigger) and not _CLAUSE_OR_LABEL.match(sentence[end:]):
            return None  # "dont forget host controls": a thing of this task not to leave out, not a rule
        if not connected and not cjk and _NOT_A_RULE_AFTER.match(rest):
            return None  # "remember when we broke prod" tells a story
        if _SPEAKER_SAYS.match(rest):
            return None
        if not connected and not cjk and _DETERMINER.match(rest) and len(rest.split()) < 4:
            return None  # "don't forget the tests": a reminder of a thing, not a rule
        if (match.group("conn") or "").strip().lower() == "that" and _QUESTION_END.search(masked.rstrip(" .!")) \
                and _THAT_THING.match(rest):
            return None  # "Can you remember that bug from last week?": "that" points at a thing
        text = rest if not cond else f"{cond.strip()} {rest}"
    elif family == "from_now" and _V2_TRIGGER.match(trigger) and not re.match(r"\s*[,:]", sentence[end:]):
        # German puts the verb right after "Ab jetzt": cutting it would leave "Schreiben wir …".
        text = _tidy(_strip_fillers(sentence[len(_strip_fillers_span(before)):]))
    elif family == "from_now":
        if _PREDICTION.match(rest) or _SPEAKER_SAYS.match(rest):
            return None
        polite = _POLITE_START.match(rest)
        rest = rest[polite.end():] if polite else rest  # "going forward can you use …?"
        if cjk:
            rest = _CJK_POLITE_MODAL.sub("", rest)  # "以后写代码的时候能不能都加上类型注解？"
        text = rest if not cond else f"{cond.strip()} {rest}"
    else:
        if not cjk and (_ALWAYS_NEXT_BAD.match(rest) or not rest):
            return None
        if not cjk and not before.strip(" ,.!:;-–—") and _names_a_thing(rest):
            return None  # "Toujours la même erreur." ("relance toujours le job" has its verb before)
        if cjk and _CJK_NOT_A_RULE.match(rest):
            return None  # "我们总是忘记更新文档": a complaint, not a rule
        if cjk and _CJK_COMPLAINT_END.search(rest) and not _CJK_IMPERATIVE.search(match.group("trigger") + sentence[end:]):
            return None
        if subject and not cjk and _PAST_AFTER_SUBJECT.match(rest):
            return None
        lead = sentence[len(_strip_fillers_span(before)):start] if (subject or cond) and not verb else ""
        lead = _drop_polite(lead) or verb
        text = f"{lead}{_tidy(sentence[start:end])} {rest}".strip() if not cjk else f"{lead}{sentence[start:]}".strip()
        text = _tidy(text)
    if not _rule_like(text):
        return None
    return Request("directive", _capitalise(text), _evidence(sentence))


# The polite ask a pointing request opens with ("Could you please …", "¿Puedes …"): the grammar's own.
_POLITE_LEAD = lazy(rf"^\s*¿?(?:{_POLITE})", _FLAGS)
