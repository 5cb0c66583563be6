"""A convention stated without a standing word (docs/explicit-requests-and-eval.md): how a kind of
work is done here, a principle to stick to, a kind of code ruled out.

Real standing requests are often told as the project's way of working, with no "always" or
"from now on" in them: "for commit msg use the 50/72 rule", "to build, use scripts/build.sh",
"要构建请在 WSL 中使用脚本 build_wsl.sh", "I'd like to stick to a data-agnostic frontend",
"there must be no direct print statements whatsoever", "I don't want any dataframe operations
in player_service". What makes them standing is their structure, not a word:

- **a kind of work, then how**: "for / in / with" a kind of thing (bare, or "all", "any", "every",
  "new": never "this", "the", "my"), or "to" a recurring operation (build, test, deploy, …),
  then "use", "follow", "stick to" …;
- **a principle to keep**: "stick to" / "stay with" something that is not the task in hand ("the
  plan", "the topic") nor a pronoun;
- **a kind ruled out**: "there must be no …", "no … whatsoever / at all / anywhere", or "I don't
  want any …" in a place of the code (a module name, "the backend", "the services"), and "do not
  come up with solutions that …";
- **a decision for the project**: "I've decided to incorporate the falla code", "we will be using
  dependency extras", "use num_results everywhere";
- **a habit stopped**: "stop adding comments to every function", "最終段にcatつけるのやめて" —
  what the assistant keeps using, adding, telling; not a process halted ("stop the server");
- **something kept, protected**: "don't change / overwrite / reset …" when the thing is the
  user's or the team's ("my git config"), the sentence says why ("we don't want to lose the
  history"), or what the user changed is named before it ("i tweaked the numbers, make sure to
  not overwrite them"). "Don't touch the CSS" alone is this task's.

And **a condition, then an imperative** (`conditional`): "if you add a dependency, pin its
version", "cuando agregues una dependencia, fija la versión" — the assistant doing a kind of work.

Each is a reading, so an uncertain candidate: a model reviewer decides when one runs
(omp.review.explicit), and the caller has already refused questions, jokes and one-off scope.
"""

from __future__ import annotations

import re

from omp.intents.phrases import _CJK_COMPLAINT_END, _FILLERS, _FLAGS, _ONE_OFF_NOUNS, _QUESTION_END, _has_cjk
from omp.intents.request import Request
from omp.intents.wording import _asks, _capitalise, _evidence, _imperative, _rule_like, _strip_fillers, _tidy
from omp.lazyre import lazy

# What is not a kind of work: one thing of this task, a pronoun, an idiom ("for example", "for now").
_NOT_A_KIND = (r"(?:the|a|an|this|that|these|those|it|its|them|my|your|his|her|their|me|you|us|him|now|today|tonight|once"
               r"|example|instance|a moment|a while|sure|real|free|good|one|some|more|less|both|either|each other)\b")
_HOW = r"(?:please\s+|always\s+|just\s+)?(?:use|follow|stick to|stick with|apply|prefer|go with|adhere to|keep to|rely on)\s+"
_FOR_A_KIND = lazy(
    rf"^{_FILLERS}(?:for|in|with|when writing|when making)\s+(?!{_NOT_A_KIND})"
    # a kind, not one thing of the code ("in test_cmd_add use …", "for getUser use …")
    r"(?P<kind>(?:(?:all|any|every|new)\s+)?(?![\w.-]*(?:_|(?-i:[a-z][A-Z])|\())[^\W\d_][\w./-]*(?:\s+(?!use\b|follow\b)[\w./-]+){0,2}?)"
    rf"\s*[,:]?\s+{_HOW}(?P<what>\S.*)$", _FLAGS)
# "To build, use scripts/build.sh", "to run the tests use make test": a recurring operation.
_OPERATIONS = (r"build|rebuild|run|test|deploy|release|publish|format|lint|install|start|launch|debug|compile|package"
               r"|migrate|serve|check|bump|commit|push|ship|bundle|typecheck|type-check|regenerate|generate")
_TO_DO = lazy(
    rf"^{_FILLERS}(?:in order\s+)?to\s+(?:{_OPERATIONS})\b(?P<object>(?:\s+(?!{_NOT_A_KIND}|use\b|run\b)[\w./-]+){{0,3}}?|\s+the\s+\w+s)"
    r"\s*[,:]?\s+(?:please\s+|always\s+)?(?:use|run|call|execute|invoke|go through|type)\s+(?P<what>\S.*)$", _FLAGS)
_TO_DO_CJK = lazy(r"^(?:要|需要|想要?)?(?:构建|構建|编译|編譯|运行|運行|测试|測試|部署|发布|發布|打包|启动|啟動|调试|調試|安装|安裝|提交)"
                  r"(?:项目|項目)?(?:时|時|的时候|的時候)?[，,]?\s*(?:请|請|都|就)[^，,。？?]{0,30}?(?:使用|用|运行|運行|执行|執行|跑)\s*\S")
_STICK_TO = lazy(
    # framed as the speaker's or the team's way ("Stick to the limitations for sheet …" alone is this task's)
    rf"^{_FILLERS}(?:i(?:'?d| would) (?:like|prefer|want) to|i want to|i'?d rather|let'?s|we(?: should| must| need to| will)?"
    r"|always|you should|please always)\s+(?:stick|stay) (?:to|with)\s+"
    r"(?!(?:it|this|that|them|these|those|the (?:plan|task|topic|question|point|subject|scope|brief|script|outline|original|request"
    r"|instructions?|prompt|question)s?)\b)(?P<what>\S.*)$", _FLAGS)
# A place in the code: an identifier (player_service, api/v1, UserController) or a layer of it.
_CODE_PLACE = (r"(?:e\.g\.\s+)?(?:[\w.-]*[_/.][\w./-]*|(?-i:[a-z]+[A-Z]\w*)|(?:the |our |any |all )?(?:code|codebase|code base|repo|repository"
               r"|backend|back end|frontend|front end|services?|components?|modules?|controllers?|views?|models?|tests?|handlers?"
               r"|routes?|templates?|business logic|data layer|data access layer|api layer|ui layer|domain layer)\b)")
_KIND_RULED_OUT = lazy(
    rf"^{_FILLERS}(?:(?:therefore|therfore|therfor|so|hence|thus)[\s,]+)?(?:"
    r"there\s+(?:must|should|shall|may|can)\s+(?:be\s+no|not\s+be\s+any|never\s+be(?:\s+any)?)\s+(?P<none>[^\W\d_][^,;]*?)"
    r"\s+(?:\w*soever|at all|anywhere|ever)\b"  # "whatsoever", and as typed ("whantsoever")
    # ("no need to handle it in admin at all" says what this task leaves out)
    r"|no\s+(?!(?:need|reason|way|problem|worries|idea|doubt|matter|change|changes|issue|issues|error|errors)\b)"
    r"(?P<no>[^\W\d_][^,;]*?)\s+(?:\w*soever|at all|anywhere)\b"
    # "no test scripts ever, i will test by recrawling": a few words and "ever", no verb among them
    # ("no other features will ever be necessary" says what will happen)
    r"|no\s+(?P<none_ever>(?:(?!(?:will|would|is|are|was|were|be|been|can|could|should|shall|has|have|had|did|does|do)\b)"
    r"[^\W\d_][\w-]*\s+){1,4}?)ever\b(?!\s+(?:since|again|before|after))"
    r"|(?:i|we)\s+(?:don'?t|dont|do not)\s+want\s+(?:any|no)\s+(?P<any>[^\W\d_][^,;]*?)\s+(?:in|inside|within)\s+"
    rf"{_CODE_PLACE})", _FLAGS)


# A prohibition that protects something kept: "don't change my git config", "Do not reinit
# task-master, we don't want to lose the history", "i tweaked some numbers, make sure to not
# overwrite them" — the object is the user's or the team's ("my", "our"), or the sentence says why
# (a reason, a consequence), or what was changed is named before it; and "do not come up with
# solutions that change the import structure": a constraint on every solution, not on one.
_DESTROY = (r"change|modify|touch|overwrite|override|reset|re-?init\w*|reinstall|delete|remove|rewrite|alter|mess with|revert"
            r"|rename|downgrade|upgrade|bump")
_PROTECTS = lazy(
    rf"^{_FILLERS}(?:so|and|but|also|thus|hence)?[\s,]*(?:please\s+)?(?:do not|don'?t|dont|never|make sure(?: to| you)? (?:do not|don'?t|not)(?: to)?"
    rf"|be careful not to)\s+(?:ever\s+)?(?:{_DESTROY})\s+(?P<object>\S.*?)\s*$", _FLAGS)
_KEPT = lazy(r"^(?:my|our)\s", re.I)
_WHY = lazy(r"[,;]\s*(?:we|i)\s+(?:don'?t|dont|do not)\s+want\b|\b(?:because|since|otherwise|or else|so that)\b"
            r"|\bif you\b.*\b(?:i'?ll|we'?ll|it'?ll|i will|we will|it will|breaks?|fails?)\b", re.I)
_BEFORE_IT = lazy(r"^(?:i|we)\s+(?:\w+\s+)?(?:tweaked|changed|adjusted|tuned|set|configured|edited|modified|fixed|wrote|added)\b"
                  r"[^,;]*[,;]\s*", re.I)
_NO_SOLUTIONS = lazy(
    rf"^{_FILLERS}(?:please\s+)?(?:do not|don'?t|dont|never)\s+(?:come up with|suggest|propose|offer|give me|write)\s+"
    r"(?:any\s+)?(?:solutions?|changes|approaches|fixes|code)\s+(?:that|which|th[a-z]{1,3})\s+\S", _FLAGS)  # as typed: "thant"
# "I prefer tabs over spaces", "we prefer composition to inheritance": a preference between two ways.
_PREFERS = lazy(rf"^{_FILLERS}(?:i|we)\s+(?:(?:really|strongly|always)\s+)?(?:prefer|favou?r)\s+(?!(?:if|that|to|when|not)\b)"
                r"(?P<what>[^\W\d_][^,;]{0,60}?)\s+(?:over|to|instead of|rather than)\s+\S", _FLAGS)
_SO = lazy(r"^(?:therefore|therfore|therfor|so|hence|thus)[\s,]+", _FLAGS)
# "stop adding comments to every function", "最終段にcatつけるのやめて": a habit of the assistant's
# work or answers stopped — what it keeps putting in, using or telling; not a process halted
# ("stop running the server", "stop the build").
_HABITS = (r"using|adding|putting|writing|creating|including|inserting|appending|leaving|generating|making|suggesting"
           r"|recommending|telling me|asking me|giving me|apologi[sz]ing|repeating|wrapping|prefixing|mentioning|changing my")
_STOPS_A_HABIT = lazy(
    rf"^{_FILLERS}(?:(?:please|pls|and|also|but|so|just)[\s,]+)*(?:stop|quit)\s+(?:(?:always|constantly|just|randomly)\s+)?(?:{_HABITS})\b"
    r"(?:\s+\S|\s*[,.!;]|\s*$)", _FLAGS)
# A decision for the project, told by the speaker or the team: "I've decided to incorporate the
# falla code", "We will be using dependency extras", "JUST USE num_results everywhere" — what is
# chosen from now on, not what this task does ("what we will use (Playwright)" is inside a task).
_DECIDED = lazy(
    rf"^{_FILLERS}(?:(?:so|and|ok|okay|also|btw)[\s,]+)*(?:i|we)(?:'ve|’ve| have)?\s+(?:just\s+|finally\s+)?decided\s+"
    r"(?:to\s+(?:use|go with|switch to|stick with|stay with|incorporate|adopt|keep|move to|drop|stop using|standardi[sz]e on)"
    r"|on\s+(?:using\s+)?)\s*\S"
    rf"|^{_FILLERS}(?:(?:so|and|ok|okay|also)[\s,]+)*we(?:'ll|’ll| will| are going to|'re going to|’re going to| are gonna)\s+"
    r"(?:be\s+)?(?:using|use|switching to|switch to|sticking with|stick with|going with|go with)\s+"
    r"(?!(?:this|that|it|them|the following|a|an|some)\b)\S"
    rf"|^{_FILLERS}(?:(?:just|please|always)\s+)*use\s+\S[^.;!?]{{0,60}}?\s+(?:\*\*)?(?:everywhere|in all places"
    r"|throughout the (?:code|codebase|project|app|repo))\b", _FLAGS)
# "SAME THING HAPPENED STOP TELLING ME TO RESTART THE SERVER I ALREADY DID THAT": told to the
# assistant about its answers, wherever it stands in the sentence
_STOPS_TELLING = lazy(r"\b(?:stop|quit)\s+(?:telling me|asking me|suggesting|recommending)\b[^,.;!?]*", re.I)
# "Use `uv pip ...` not `pip ...`": one tool or command chosen over another, both in code quotes
_TOOL_OVER_TOOL = lazy(rf"^{_FILLERS}(?:please\s+|always\s+)?use\s+`[^`]+`\s*,?\s+(?:not|instead of|rather than|over)\s+`[^`]+`", _FLAGS)
_STOPS_A_HABIT_JA = lazy(r"(?:する|つける|付ける|入れる|書く|使う|追加する|出す|聞く|言う)?(?:のを|のは|のも|の|ことは|ことを)(?:もう)?(?:やめて|止めて)"
                         r"(?:ください|下さい|ほしい|欲しい|くれ|ね|よ)?")


def convention(sentence: str) -> Request | None:
    """The convention `sentence` states without a standing word, as an uncertain candidate, or None."""
    if _asks(sentence):
        return None
    if _has_cjk(sentence):
        if _TO_DO_CJK.match(_strip_fillers(sentence)):
            return _candidate(_strip_fillers(sentence), sentence)
        stops = _STOPS_A_HABIT_JA.search(sentence)
        if stops is not None:  # the clause that ends in "やめて" ("…, 無意味だから" is the reason)
            return _candidate(re.sub(r"^(?:あと|それと|あと、|また|それから)[、,\s]*", "", sentence[:stops.end()]), sentence)
        return None
    # The readings whose rule is the sentence whole (a kind of work and how: only with a "what").
    if any(reading.match(sentence) for reading in (_STOPS_A_HABIT, _TOOL_OVER_TOOL, _DECIDED, _PREFERS)) or any(
            (match := reading.match(sentence)) is not None and len(match.group("what").strip(" .!")) >= 2
            for reading in (_FOR_A_KIND, _TO_DO, _STICK_TO)):
        return _candidate(_strip_fillers(sentence), sentence)
    if _KIND_RULED_OUT.match(sentence) or _NO_SOLUTIONS.match(sentence):
        return _candidate(_SO.sub("", _strip_fillers(sentence)), sentence)
    return _protects(sentence)


def stops_telling(sentence: str, polite: bool) -> Request | None:
    """"STOP TELLING ME TO RESTART THE SERVER", wherever it stands in the sentence: its own clause,
    which a long outburst may follow with a question ("…, DO YOU JUST NOT …?"); the clause itself
    no question, unless the whole is a polite ask ("can you stop telling me to …?")."""
    telling = _STOPS_TELLING.search(sentence)
    if telling is None or (not polite and sentence[telling.end():].lstrip().startswith("?")):
        return None
    return _candidate(telling.group(0), sentence)


def _protects(sentence: str) -> Request | None:
    before = _BEFORE_IT.match(sentence)  # "i tweaked some numbers, make sure to not overwrite them"
    own = sentence[before.end():] if before is not None else sentence
    clause = own.split(",")[0] if before is None else own
    match = _PROTECTS.match(clause.strip())
    if match is None:
        return None
    kept = _KEPT.match(match.group("object")) is not None or _WHY.search(own) is not None or before is not None
    return _candidate(_SO.sub("", _strip_fillers(sentence)), sentence) if kept else None


def _candidate(text: str, sentence: str) -> Request | None:
    text = _tidy(text)
    if not _rule_like(text):
        return None
    return Request("directive", text if _has_cjk(text) else _capitalise(text), _evidence(sentence), certain=False)


# "if you add a dependency, pin its version", "cuando agregues una dependencia, fija la versión":
# the assistant ("you", "we") doing a kind of work, then an imperative — how to work each time.
# Not a condition on what happens ("if it fails"), on this task's end or on a need or ability.
_IF_YOU_DO = lazy(
    rf"^{_FILLERS}(?P<cond>(?:"
    r"(?:if|when|once|before|after)\s+(?:you|we)\s+(?!(?:are|were|need|want|can|could|like|think|see|know|have|get|don'?t|do not"
    r"|finish|finished|fail|failed|feel|mean|prefer|wish)\b)[a-z]{2,}"
    r"|(?:si|cuando|antes de|después de)\s+(?!(?:falla|fallan|termines|terminas|acabes|acabas|puedes|necesitas|quieres|tienes|es|está"
    r"|hay|lo|la|le|el|los|las|no)\b)[a-záéíóúñ]{3,}(?:es|as|ar|er|ir)"
    r"|(?:se|quando|antes de|depois de)\s+(?:você\s+|vocês\s+)?(?!(?:terminar|acabar|precisar|quiser|puder|der|for|tiver)\b)[a-zà-ú]{3,}(?:ar|er|ir)"
    r"|(?:si|quand|lorsque|dès que)\s+(?:tu|vous)\s+(?!(?:as|avez|es|êtes|peux|pouvez|veux|voulez|dois)\b)[a-zà-ÿ]{3,}"
    r"|(?:wenn|falls|sobald)\s+(?:du|ihr|wir)\s+(?![^,]*\b(?:fertig|brauchst|willst|kannst|magst|musst|bist)\b)[^,]{2,80}?\s+[a-zäöüß]+(?:st|t|en)"
    r")\b[^,;:?]{0,100}?)(?:\s*,\s*|\s+(?:pls|please|plz|then|bitte)\s+)(?P<act>[^\W\d_]{2,}\s+\S.*)$", _FLAGS)
_IF_YOU_DO_CJK = lazy(r"^(?:如果|要是|当|每当)(?:你|我们)(?:要|需要)?(?P<cond>[^，,。？?]{2,40})[，,]\s*(?P<act>\S.*)$")
_REPLY_THING = lazy(rf"\b(?:a|an|the|your|any)\s+(?:{_ONE_OFF_NOUNS})\b", re.I)
_CONDITION_ONE_OFF = lazy(r"\b(?:it|this|that|them|lo|la|le|isso|ça|es|das)\b|失败|出错|报错|完成|做完|写完|好了|有空|不确定|什么", re.I)


_COND_LEAD = lazy(r"^(?:if|when|once|before|after|si|cuando|quand|lorsque|dès que|se|quando|wenn|falls|sobald|antes de|después de|depois de)\s+"
                  r"(?:(?:you|we|tu|vous|du|ihr|wir|você|vocês)\s+)?", re.I)
_DEFINITE = lazy(r"^(?:the|this|that|these|those|my|your|our|his|her|its|el|la|los|las|este|esta|ese|esa|mi|tu|o|a|os|as|esse|essa"
                 r"|meu|minha|seu|sua|le|les|ce|cet|cette|ces|mon|ma|ton|ta|der|die|das|den|dem|diese[nmrs]?|deine[nmrs]?|meine[nmrs]?)$", re.I)


def _names_a_kind(cond: str) -> bool:
    """Does the condition's object name a kind of thing ("a dependency", "tests", "any db model",
    "una dependencia") rather than one thing of this task ("the file", "el archivo", "die Datei")?
    German puts the object before the verb; the other languages after it."""
    lead = _COND_LEAD.match(cond)
    words = cond[lead.end():].split() if lead else cond.split()
    german = cond.lower().startswith(("wenn", "falls", "sobald"))
    objects = words if german else words[1:]
    if objects and objects[0].lower() == "a" and re.match(r"(?:if|when|once|before|after)\s", cond, re.I):
        return True  # English "a" (Portuguese "a" is "the")
    return bool(objects) and not _DEFINITE.match(objects[0])


def conditional(sentence: str) -> Request | None:
    """A convention told as a condition and an imperative, without a standing word: a reading,
    so an uncertain candidate (a model decides when one runs)."""
    text = _strip_fillers(sentence) if _has_cjk(sentence) else sentence
    match = (_IF_YOU_DO_CJK if _has_cjk(sentence) else _IF_YOU_DO).match(text)
    if match is None or _CONDITION_ONE_OFF.search(match.group("cond")) or _REPLY_THING.search(match.group("cond")):
        return None  # "when you run it, …", "if you propose a fix, …": a thing of this task, the reply to it
    if not _has_cjk(sentence) and (len(match.group("cond").split()) < 4 or not _names_a_kind(match.group("cond"))):
        return None  # "before you begin, …", "when you open the file, …": no kind of work, a thing of this task
    act = match.group("act")
    if _has_cjk(act):
        if _CJK_COMPLAINT_END.search(act) or _QUESTION_END.search(act):
            return None
    elif not _imperative(act):
        return None
    rule = _tidy(_strip_fillers(sentence))
    return Request("directive", _capitalise(rule), _evidence(sentence), certain=False) if _rule_like(rule) else None
