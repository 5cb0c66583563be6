"""What a user message asks for in so many words: a standing rule, a forget request, a correction.

This is the grammar behind the explicit pass (SPEC §5.3) and the packet's priorities (§4.3). It
is pure text analysis with no model (regular expressions, and one Aho-Corasick sweep for its
first look: omp.substrings): it must run on every review.

How a message is read, in three steps:

1. **What the user said, not what they pasted.** Fenced code blocks, indented code, quoted lines
   (`> …`), code-comment lines (`# …`, `// …`), log lines, and a pasted file or page (what
   follows an introduction such as "Here is the README:" or a Markdown heading) are dropped.
   Inline code and quoted strings ("…", “…”, «…», 「…」) stay in the rule's text but are masked
   while looking for a trigger, so a request *inside* them is never seen.
2. **Sentences.** Lines, then sentences (`.!?` and `。！？`), list markers ("2.", "-") removed.
3. **A trigger, and what may stand before it.** Each language has a few trigger families:
   *remember* ("remember that", "keep in mind", "make a note that", "merk dir", "记住",
   "覚えておいて", "recuerda que", "n'oublie pas que", "lembre-se de que" …), *from now on*
   ("going forward", "from here on out", "ab sofort", "从现在开始", "今後", "a partir de ahora",
   "désormais", "de agora em diante" …), *always / never* ("always", "don't ever", "we never",
   "immer", "永远不要", "必ず", "siempre", "jamais", "nunca" …) and *forget* ("forget that",
   "vergiss", "忘掉", "olvida", "oublie", "esqueça" …). A trigger counts only when what precedes
   it in the sentence is courtesy or a label ("Thanks.", "Quick note:", "please", "ok,"), a polite
   ask ("could you please", "make sure you", "I want you to"), a subject that states a team rule
   ("we", "you should"), or a condition, which is then kept in the rule ("If the build fails on
   CI, always …"). "It always fails" or "I never said that" are therefore not rules.

Then two filters: a **question** is not a request ("do you remember what the error was?"),
unless it is a polite ask ("could you please remember that CI runs on Node 20?"); a **one-off**
instruction is not a standing rule: it names this answer, this run, the next question, "for
now" (in each language).

The rule keeps the user's own words, untranslated: the trigger of the *remember* and *from now
on* families is cut from its start ("From now on, sign every commit" → "Sign every commit");
*always/never* keep their word; conditions and subjects stay.
"""

from __future__ import annotations

import bisect
import itertools
import re
import unicodedata
from typing import Iterator, Literal

from msgspec import Struct

from omp import intents_pl_ru, standing
from omp.lazyre import LazyPattern, lazy
from omp.substrings import SubstringSet, substring_set

RequestKind = Literal["directive", "forget"]

MIN_RULE_CHARS = 6  # "use it" is not a rule; CJK rules are short, hence characters, not words


class Request(Struct, frozen=True):
    """One explicit request found in a user message."""

    kind: RequestKind
    text: str  # the rule (or what to forget), in the user's words
    sentence: str  # the sentence it came from: the evidence
    # False: the user may not have meant a standing rule (the standing word only at the end, a
    # request pointing back at another message): a model reviewer decides (SPEC §5.3).
    certain: bool = True


# ---------------------------------------------------------------------------------------------
# 1. what the user said

_FENCE = lazy(r"^\s*(```|~~~)")
_QUOTE_LINE = lazy(r"^\s*>")
_COMMENT_LINE = lazy(r"^\s*(?:#(?!\d)(?![#\s]*\w+\s*:\s*$)|//|/\*|\*/|<!--|--\s|;;|%\s|rem\s)", re.I)
_HEADING = lazy(r"^\s{0,3}#{1,6}\s+\S")
_LOG_LINE = lazy(
    r"^[^\s]{1,80}\s+[-|:]\s+(?:INFO|WARN(?:ING)?|ERROR|DEBUG|TRACE|FATAL|CRITICAL)\b|\b[A-Z]\w*(?:Warning|Error|Exception):\s"
    r"|^\s*(?:\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\d\d:\d\d:\d\d|(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE|FATAL)\b[:\]]?"
    r"|Traceback \(most recent|File \"|at [\w.$<>]+\(|\$ |[\w./-]+:\d+(?::\d+)?:|npm (?:ERR|WARN)|E\s{2,})"
)
_CODE_LINE = lazy(
    r"^\s*(?:def |class |import |from \S+ import |return\b|const |let |var |function\b|public |private |fn |func "
    r"|package |#include|@\w+\(|if \(|for \(|while \(|\}|\{$)|\{\s*$|^\s*[\w.\[\]]+\s*=\s*\S"
    # A statement's ";" at the end of a line, but not a sentence's ("Always run the linter before
    # pushing;"): a call, an assignment, brackets, a path, a closing quote, SQL, or one token.
    r"|^(?=[^\n]*(?:\w\(|[=\[\]{}<>]|::|->))[^\n]*;\s*$|['\"`)]\s*;\s*$|^\s*\S+;\s*$"
    r"|^\s*(?:SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|GRANT|USE|SET) [^\n]*;\s*$"
)
# A line that introduces pasted material: what follows it is not the user speaking.
_PASTE_INTRO = lazy(
    r"(?:\b(?:here(?:'s| is| are)|below is|pasted|paste|copied|copy of|this is (?:the|what|from|an?)|contents? of"
    r"|from the (?:docs?|readme|page|wiki|website|site|article|issue|email|file|manual)"
    r"|(?:readme|page|docs?|article|file|log|output|email|issue|wiki|site|website|comment|message|post|answer)"
    r"\s+(?:says|said|reads|contains|goes)|it says|they (?:wrote|said)|(?:he|she) (?:wrote|said)"
    r"|hier (?:ist|sind)|folgende[sn]?|aquí (?:está|tienes|va|sigue)|a continuación|esto es|voici|ci-dessous|aqui (?:está|vai)|segue)"
    r"|以下[是は]|下面是|如下|这是|これは)[^\n]{0,120}[:：]\s*$"
    r"|\b(?:pasted|copied|paste|copy)\b[^\n]{0,60}\bbelow\b"
    r"|\b(?:e-?mail|mail|message|page|docs?|file|log|output|text|snippet|article|post|comment|issue|ticket|thread|readme"
    r"|wiki|transcript|excerpt|section|content|trace|traceback|diff|patch|config|datei|seite|nachricht|correo|página"
    r"|archivo|mensaje|fichier|courriel|arquivo|página|mensagem|trecho|文档|内容|邮件|日志|ファイル|メール|ログ"
    r"|documento|documentos|document|documents|dokument|dokumentation|documentation|documentação|documentación)\b[^\n]{0,80}[:：]\s*$",
    re.I,
)
# "Here's our team policy, please remember it:", "Here are our conventions, stick to them:",
# "Here's what I want going forward:" introduce the user's own list, not a paste: the line asks
# for what follows to be kept (a trigger of the remember or from-now family, see
# `_asks_to_keep`, or one of these words). "I want you to see them" does not: a paste shown.
_ASKS_TO_KEEP = lazy(
    r"\b(?:please )?(?:remember|note|follow|stick (?:to|with)|adhere to|obey|respect|apply|keep to|abide by)\b"
    r"|记住|遵守|照做|覚えて|守って|従って|merk|beachte|halte dich|halt dich|recuerda|recuérd|en cuenta|síg|cumpl|respét"
    # not "suis" ("je suis": I am), "sigue" ("it goes on") nor "segue" ("here follows", a paste's intro)
    r"|retiens|retenez|respecte|suis-les|suis-la|suivez|lembr|siga|sigam|cumpr|respeit|em mente", re.I)
# "Our documentation rules:", "Unsere Doku-Regeln:": the user's own list, though "documentation …:"
# opens a paste.
_OURS = lazy(r"^(?:our|my|team|house|unsere?|meine?|nuestras?|nuestros?|mis|nos|notre|mes|nossas?|nossos?|minhas?|meus)\b"
             r"|^(?:我们的|我的|私たちの|うちの)", re.I)
_SEPARATOR = lazy(r"^\s*(?:-{3,}|\*{3,}|={3,}|_{3,})\s*$")
_FILE_LABEL = lazy(r"^\s*(?:[-=]{3,}\s*)?[\w./-]+\.(?:md|txt|rst|py|js|ts|json|ya?ml|toml|html?|sh|cfg|ini)\s*(?:[-=]{3,})?\s*:?\s*$", re.I)

_BOLD_POINT = lazy(r"^\s*(?:[-*•+]\s+|\d{1,3}[.)]\s+)?\*\*[^*\n]{1,60}\*\*")
# "the report must cover at least these:", "make sure the parser handles the following:": what
# the thing of this task must do, item by item (a list of the user's rules names them: `_LIST_WORDS`).
_CONTENT_INTRO = lazy(
    r"\b(?:at least|at minimum|the following)\b[^:：]{0,30}[:：]\s*$"
    r"|\b(?:must|should|needs? to|has to|have to|will|handles?|covers?|supports?|includes?|contains?)\s+(?:\w+\s+){0,3}?"
    r"(?:cover|handle|support|include|contain|these|this|the following)\b[^:：]{0,60}[:：]\s*$", re.I)
_INLINE_CODE = lazy(r"`[^`\n]+`")
_QUOTED = lazy(r"\"[^\"\n]{2,}\"|“[^”\n]{2,}”|„[^“”\n]{2,}[“”]|«[^»\n]{2,}»|「[^」\n]{1,}」|『[^』\n]{1,}』")


def spoken_lines(text: str) -> list[str]:
    """The lines the user wrote themselves: pasted code, quotes, logs, files and pages dropped."""
    lines: list[str] = []
    fence: str | None = None
    raw_lines = text.splitlines()
    pasted = False
    introduced = False  # the line before introduced a paste ("Here is the trace:")
    separated = False
    previous_blank = True
    # Numbered or bulleted points with bold labels ("1. **Root cause**: …"): another model's
    # analysis pasted, not typed into a chat. One such line may be the user's; two are a paste.
    bold_points = sum(1 for line in raw_lines if _BOLD_POINT.match(line)) >= 2
    enumerating = False  # after "… must cover at least these:": the items are the task's thing, not rules
    for line in raw_lines:
        fence_match = _FENCE.match(line)
        if fence is not None:
            if fence_match and fence_match.group(1) == fence:
                fence = None
            continue
        if fence_match:
            fence = fence_match.group(1)  # an unclosed fence runs to the end: all of it pasted
            if introduced:
                pasted = False  # what "Here is the trace:" introduced is the fence: after it, the user speaks
            introduced = False
            continue
        stripped = line.strip()
        if stripped:
            introduced = False
        if _SEPARATOR.match(line):
            separated = not separated  # between two rules: a pasted mail, page or document
            continue
        if pasted or separated:
            continue
        blank = not stripped
        if blank:
            previous_blank = True
            lines.append("")
            continue
        indented = (line.startswith("    ") or line.startswith("\t")) and previous_blank and not _LIST_MARK.match(stripped)
        previous_blank = False
        if _HEADING.match(line) and len(raw_lines) > 1:
            pasted = True  # a Markdown document: people do not type headings into a chat
            continue
        if _FILE_LABEL.match(line) or stripped.startswith("Traceback (most recent call last)"):
            pasted = True
            continue
        if indented or _QUOTE_LINE.match(line) or _COMMENT_LINE.match(line) or _LOG_LINE.match(line) or _CODE_LINE.search(line):
            continue
        if bold_points and _BOLD_POINT.match(line):
            continue
        if enumerating and _LIST_MARK.match(stripped):
            continue
        enumerating = bool(_CONTENT_INTRO.search(stripped)) and not _introduces_a_list(stripped)
        lines.append(line)
        if _PASTE_INTRO.search(stripped) and not (_introduces_a_list(stripped) and
                                                   (_asks_to_keep(stripped) or _OURS.match(stripped))):
            pasted = introduced = True
    return lines


def _mask(text: str) -> str:
    """The same text with inline code and quoted strings blanked (offsets kept)."""
    def blank(match: re.Match[str]) -> str:
        return " " * len(match.group(0))

    if "`" in text:
        text = _INLINE_CODE.sub(blank, text)
    return _QUOTED.sub(blank, text) if _QUOTE_CHARS.search(text) else text


# ---------------------------------------------------------------------------------------------
# 2. sentences

_LIST_MARK = lazy(r"^(?:[-*•+]\s+|\d{1,3}[.)-]\s+|[a-z][.)]\s+|\(\d{1,3}\)\s+|[①-⑳]\s*)")
# After . ! ? and whitespace (but not inside "e.g." or a version number), after CJK sentence
# ends, and after ! ? right before a Chinese or Japanese character. Never inside a token (a run
# without whitespace: a URL, a path, a password): "postgres://app:S3cr3t!x9@db" is one word, and
# a sentence cut at its "!" would make a rule of half a secret. Each match starts at the
# punctuation, so that the search skips to it (a pattern that starts with a lookbehind is tried
# at every character, five times slower): a sentence ends one after a match's start.
_SENTENCE_END = lazy(
    r"[.!?。！？](?:(?<![.\s][a-z]\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<=[.!?])\s+(?=\S)|(?<=[。！？])(?=\S)"
    r"|(?<=[!?])(?=[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]))")


def sentences(line: str) -> Iterator[str]:
    """The sentences of a line. A quoted string that spans several sentences is blanked first
    (`_mask` on the whole line), so what it says is never read as the user's request."""
    line = _LIST_MARK.sub("", line.strip()).strip()
    masked = _QUOTED.sub(lambda m: " " * len(m.group(0)), line) if _QUOTE_CHARS.search(line) else line
    start = 0
    for end in [m.start() + 1 for m in _SENTENCE_END.finditer(masked)] + [len(line)]:
        piece, seen = line[start:end], masked[start:end]
        start = end
        if not seen.strip():
            continue  # a sentence entirely inside quotes
        if seen != piece and _QUOTE_CHARS.search(piece) and not _QUOTE_CHARS.search(seen) \
                and _QUOTED.sub(lambda m: " " * len(m.group(0)), piece) != seen:
            piece = _blank_spans(piece, seen)  # a quote opened here and closed in a later sentence
        sentence = _LIST_MARK.sub("", piece.strip()).strip()
        if sentence:
            yield sentence


_QUOTE_CHARS = lazy(r"[\"“”„«»「」『』]")


def _blank_spans(piece: str, seen: str) -> str:
    """`piece` with what the masked view blanked removed (a quote's part in this sentence)."""
    return "".join(c for c, m in zip(piece, seen) if not (m == " " and c != " "))


# ---------------------------------------------------------------------------------------------
# 3. triggers

# What may stand before a trigger: courtesy, labels, polite asks, in every language.
_FILLER = (
    r"(?:ok(?:ay)?|so|and|also|please|pls|plz|hey|hi|hello|thanks|thank you|thx|ty|btw|fyi|note|quick note|small note"
    r"|one more thing|one last thing|by the way|important|reminder|heads up|heads-up|psa|oh|ah|alright|all right|great|cool|good"
    r"|just so you know|for your information|as a reminder|just a reminder|friendly reminder"
    r"|note to (?:self|you|us|both of us|the team)(?: and (?:you|me|the team))?"
    r"|quick reminder|side note|anyway|anyhow|in any case|oh and|and also|no kidding|seriously|honestly|for real|tbh|to be honest|frankly"
    # Where the rule holds, when it is this project: the rule stays standing ("In this repo we always …").
    r"|in this repo|in this repository|in this project|in this codebase|in our repo|in our project|in our codebase"
    r"|for this repo|for this project|on this project|on this team|in our team|around here"
    r"|perfect|nice|yes|yeah|yep|sure|right|well|and also|just|but|copilot|@copilot|guys|folks|also important"
    r"|no(?=\s*,)|nope|nah|porfa|porfis|xfa|plis|meanwhile|in the meantime|mean while|for now on"
    r"|bitte|danke|übrigens|noch was|wichtig|hinweis|also|und|gut|ok|prima|super"
    r"|por favor|gracias|oye|importante|nota|además|bueno|vale|perfecto|y"
    r"|s'il te plaît|s'il vous plaît|stp|svp|merci|au fait|important|remarque|aussi|bon|parfait|et|d'accord"
    r"|por favor|obrigado|obrigada|valeu|aliás|importante|nota|também|beleza|certo|e"
    r"|好的|好|谢谢|另外|还有|顺便说一下|顺便|对了|注意|请|麻烦|麻烦你|提醒一下|重要"
    r"|ありがとう|ありがとうございます|あと|それと|ちなみに|注意|重要|了解|では|じゃあ)"
)
_FILLERS = rf"(?:¿|¡|(?:{_FILLER})(?![A-Za-zÀ-ÿ'’])\s*[,:;!.，：、！。—–-]?\s*)*"
_LABEL = r"(?:[^\s:：]{1,20}(?:\s+[^\s:：]{1,20}){0,3}\s*[:：]\s*)?"  # "Quick note:", "重要："
_POLITE = (
    r"(?:(?:would|do) you mind\s+|(?:can|could|shall) we(?: please)?\s+|(?:could|can|would|will) you(?: please| kindly| also)?\s+|please\s+|kindly\s+|i(?:'d| would) like you to\s+"
    r"|i want you to\s+|i need you to\s+|you (?:should|must|need to|have to|gotta|always have to)\s+"
    r"|it(?:'s| is) (?:important|crucial|essential|vital|key|a must) (?:that |to )(?:you |we )?"
    r"|make sure(?: that)?(?: you| to| we)?\s+|be sure to\s+|ensure(?: that)? you\s+|try to\s+"
    r"|(?:kannst|könntest|kann|könnt|kannst) (?:du|ihr)(?:\s+(?:bitte|dir|mir|euch|mal|auch))*\s+|(?:können|könnten) Sie(?:\s+(?:bitte|sich|mal|auch))*\s+"
    r"|(?:puedes|podrías|puede|podría)(?: por favor)?\s+|(?:peux|pourrais)-tu(?: s'il te plaît)?\s+"
    r"|(?:pouvez|pourriez)-vous\s+|merci de\s+|veuillez\s+|(?:você )?(?:pode|poderia)(?: por favor)?\s+"
    r"|il faut(?: que (?:tu|vous|l'on|on))?\s+|(?:tu dois|vous devez|on doit|nous devons)\s+"
    r"|(?:hay que|tienes que|tenéis que|tenés que|tenes que|debes|debés|debemos|es necesario|se debe)\s+"
    r"|(?:é preciso|é necessário|tem que|temos que|você deve|deve-se|precisa|precisamos)\s+"
    r"|(?:du musst|ihr müsst|man muss|man sollte|wir müssen|wir sollten|du solltest)\s+"
    r"|(?:你)?(?:能不能|能否|可不可以|可以|能)(?:帮我)?\s*)"
)
_CONDITION = (
    r"(?:(?:if|when|whenever|before|after|unless|once|while|every time|each time|in case|on)\b[^,;:]{1,160}[,:]\s*"
    r"|(?:wenn|falls|bevor|nachdem|sobald|jedes mal,? wenn)\b[^,;:]{1,160}[,:]\s*"
    r"|(?:si|cuando|antes de|después de|cada vez que|siempre que)\b[^,;:]{1,160}[,:]\s*"
    r"|(?:si|s'|quand|lorsque|avant de|après|chaque fois que)\b[^,;:]{1,160}[,:]\s*"
    r"|(?:se|quando|antes de|depois de|sempre que|toda vez que)\b[^,;:]{1,160}[,:]\s*"
    r"|(?:如果|要是|假如|每次|当)[^，,。]{1,80}[，,]\s*|[^，,。]{1,80}(?:的时候|之前|以后|后)[，,]\s*"
    r"|[^、。]{1,80}(?:たら|なら|場合は?|時は|ときは|前に|後は)[、,]\s*)"
)
_SUBJECT = (
    r"(?:(?:we|our team|the team|everyone|everybody|all of us)(?: (?:should|must|will|shall|need to|have to|do))?\s+"
    r"|you (?:should|must|shall|need to|have to|will)\s+"
    r"|(?:wir|man|ihr|du|Sie)\s+(?:\w+\s+){0,3}|(?:nosotros|aquí|aqui|nós|a gente|on|nous)\s+(?:\w+\s+){0,3}"
    r"|(?:我们|咱们|你|大家)(?:应该|必须|要)?)"
)

# Family patterns. `rest` is what the rule says when the trigger is cut; `keep` marks families
# whose trigger word stays in the rule.
_REMEMBER = (
    r"(?:remember|remeber|rember|remmber|remembr|rememeber|remebmer|(?:keep|bear)(?: this| that| these| those| them| it| the following| all (?:of )?this)? in mind|make a (?:mental )?note|take a (?:mental )?note|take note|mental note|note for the future|note for later|note for next time"
    r"|(?:save|keep|store) (?:this|that|it) for (?:later|next time|the future|future sessions|future reference)(?=\s*[:：—–-])"
    r"|(?:(?:one|another|a|the|some|a few|two|three) )?(?:more )?things? to (?:remember|keep in mind|note)(?=\s*[:：—–-])"
    r"|for future reference|memorize|memorise|don't forget|dont forget|don’t forget|do not forget|never forget|note down|write down)"
    r"(?P<conn>\s+(?:that|this|to|of|this down|it|the fact that))?"
    r"|(?:merk(?:e)? dir|merken Sie sich|denk(?:e)?(?: bitte)?(?: in zukunft| künftig| immer| bitte)? (?:daran|dran)|behalte(?:n Sie)?(?: das| dies| folgendes)? im (?:Kopf|Hinterkopf)"
    r"|vergiss nicht|vergessen Sie nicht|notier(?:e)? dir|(?:dir |sich |euch )?merken|daran denken|dran denken)(?:\s+bitte)?(?P<conn_de>\s*(?:,\s*)?(?:dass|zu))?"
    r"|(?:recuerda|recuérdalo|recuerde|acuérdate(?: de)?|ten en cuenta|tenga en cuenta|no olvides|no te olvides(?: de)?"
    r"|toma nota(?: de)?|apunta|anota|memoriza|recordar|tener en cuenta|apuntar|anotar|memorizar"
    # the voseo of Argentina and Uruguay: "recordá que …", "acordate de …", "tené en cuenta …"
    r"|recordá|acordate(?: de)?|tené en cuenta|no te olvidés(?: de)?|no olvidés|anotá|apuntá|memorizá)(?P<conn_es>\s+que)?"
    r"|for the record(?=\s*[:,])"
    r"|(?:souviens-toi|souvenez-vous|rappelle-toi|retiens|retenez|n'oublie pas|n'oubliez pas|garde en tête|gardez en tête|pense à|pensez à"
    r"|garde à l'esprit|prends note|prenez note|note bien|mémorise|retenir|noter|te souvenir|vous souvenir|garder en tête|mémoriser)(?P<conn_fr>\s+(?:que|qu'|de|d'))?"
    r"|(?:lembre-se|lembra|lembre|não esqueça|não se esqueça|nao esqueca|tenha em mente|tem em mente|anote|guarde|memorize"
    r"|lembrar|anotar|guardar|ter em mente|memorizar)"
    r"(?P<conn_pt>\s+(?:de que|que|de|disso|isso|isto)(?=[\s:,]))?"
    r"|(?:请?记住|请?记得|别忘了|別忘了|不要忘记|不要忘了|记一下|记下来|记下|牢记|请注意以后)"
    r"|(?:覚えておいて(?:ください|下さい|ね)?|覚えといて|覚えておくこと|覚えて(?:ください|ほしい|おいてほしい)"
    r"|忘れないで(?:ください|ね)?|メモして(?:おいて)?(?:ください)?|心に留めて(?:おいて)?(?:ください)?)"
)
_FROM_NOW = (
    r"(?:from now on|from here on(?: out)?|going forward|moving forward|henceforth|from this point(?: on| forward)?"
    r"|in (?:the )?future|for the future|for next time|as a (?:general )?rule(?: of thumb)?|from today on|make (?:it|this) a rule(?: that)?"
    r"|(?:the|our|a) (?:rule|policy|convention)(?: here| in this (?:repo|project|team))? is(?: that)?"
    r"|(?:new |house |team |general |golden |one )?rule(?: of thumb)?(?: (?:for|in|on) (?:this|our|the) (?:project|repo|repository|codebase|team))?(?=\s*[:：—–-])"
    r"|(?:our |team )?(?:policy|convention)(?=\s*[:：—–-])|(?:standing|permanent) (?:instruction|order|rule|request)s?(?=\s*[:：—–-])|general instructions?(?=\s*[:：—–-])"
    r"|for the rest of (?:this|the|our) (?:project|repo|repository|codebase)|for all future (?:sessions|work|tasks|changes|prs|commits)"
    # "Grundregel:", "Regla general:", "Règle générale :", "Regra geral:", "规定：", "ルール："
    r"|(?:(?:grund|haus|team|faust)regel|regel|für (?:dieses|unser) (?:projekt|repo) gilt|regla(?: general| de oro| de la casa)?"
    r"|norma(?: general)?|règle(?: générale| d'or| de base)?|regra(?: geral| de ouro| básica)?"
    r"|规定|规则|规矩|约定|ルール|規則|決まり)(?=\s*[:：—–-])"
    r"|in (?:all )?(?:future|later|upcoming) sessions"
    r"|ab jetzt|ab sofort|von nun an|von jetzt an|künftig|zukünftig|in zukunft|für die zukunft|fortan|ab heute"
    r"|starting (?:from )?(?:now|today)(?: on)?|starting now"
    r"|a partir de ahora|de ahora en adelante|de ahora en más|de aquí en más|desde ahora|en adelante|en el futuro|para el futuro|a partir de hoy|de aquí en adelante"
    r"|désormais|dorénavant|à partir de maintenant|à l'avenir|pour l'avenir|à partir d'aujourd'hui|dès maintenant"
    r"|de agora em diante|a partir de agora|daqui (?:para|pra) frente|daqui em diante|no futuro|para o futuro|doravante|a partir de hoje"
    r"|从现在开始|从现在起|从今以后|从今往后|以后|今后|往后|将来"
    r"|今後は?|これからは|次回から(?:は)?|以後|以降は)"
)
_ALWAYS = (
    r"(?:always|never|don't ever|dont ever|do not ever|never ever|don't you ever|at all times"
    r"|immer|niemals|nie|keinesfalls|auf keinen fall"
    r"|siempre|nunca|jamás|jamas"
    r"|toujours|jamais|ne jamais|n'\w+ (?:plus )?jamais|ne \w+ (?:plus )?jamais|n'\w+ plus|ne \w+ plus"
    r"|sempre|nunca|jamais"
    r"|永远不要|永远不|千万不要|千万别|绝对不要|绝不|决不|不要再|别再|一定要|总是|始终|务必|每次都|从不|从来不|一律|一直"
    r"|每次[^，,。！？!?]{1,20}?都(?:要|得|必须)"
    r"|常に|いつも|必ず|絶対に|決して|二度と|毎回)"
)
_FORGET = (
    r"(?:forget|stop remembering|no need to remember|you can forget|unlearn|drop the rule)"
    r"(?P<fconn>\s+(?:that|about|the fact that|the rule that|what i said about))?"
    r"|(?:vergiss|vergessen Sie)(?!\s+(?:nicht|bitte nicht))(?P<fconn_de>\s*,?\s*(?:dass|das mit|die regel))?"
    r"|(?:olvida|olvídate de|olvidate de|olvide)(?P<fconn_es>\s+(?:que|lo de|la regla de))?"
    r"|(?:oublie|oubliez)(?P<fconn_fr>\s+(?:que|qu'|la règle))?"
    r"|(?:esqueça|esquece|esqueca)(?P<fconn_pt>\s+(?:que|a regra))?"
    r"|(?:忘掉|忘记|忘了吧|不用再记|不用记)|(?:忘れて(?:ください|下さい)?)"
)
_CJK = lazy(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")  # 4 ms to compile: see _has_cjk


def _has_cjk(text: str) -> bool:
    """Does `text` hold a Chinese or Japanese character? (An ASCII text is told in O(1).)"""
    return not text.isascii() and _CJK.search(text) is not None


_FLAGS = re.I | re.S


def _family(trigger: str) -> LazyPattern:
    # \b does not work next to CJK characters; (?<![^\W\d_]) is "not after a letter" for Latin
    # words and harmless for CJK triggers, which have no letter boundaries.
    return lazy(rf"(?P<trigger>(?<![A-Za-zÀ-ÿ0-9_'’])(?:{trigger})(?:(?<=[^A-Za-zÀ-ÿ])|(?![A-Za-zÀ-ÿ0-9_])))", _FLAGS)


_REMEMBER_TRIGGER = _family(_REMEMBER)
_ALWAYS_TRIGGER = _family(_ALWAYS)
_FROM_NOW_TRIGGER = _family(_FROM_NOW)
_TRIGGERS: tuple[tuple[str, LazyPattern], ...] = (
    ("forget", _family(_FORGET)),
    ("remember", _REMEMBER_TRIGGER),
    ("from_now", _FROM_NOW_TRIGGER),
    ("always", _family(_ALWAYS)),
)
_PREFIX_OK = lazy(
    rf"^{_FILLERS}{_LABEL}{_FILLERS}(?P<cond>{_CONDITION})?{_FILLERS}(?P<polite>{_POLITE})*(?P<subject>{_SUBJECT})?"
    rf"(?P<polite2>{_POLITE})*(?:also\s+|auch\s+|también\s+|aussi\s+|também\s+|也|还)?$",
    _FLAGS,
)
# A Japanese or Chinese sentence that asks (a request or prohibition form), or a Chinese
# imperative adverb: then "always/never" may stand after the topic.
_CJK_IMPERATIVE = lazy(
    r"(?:ください|下さい|して|しないで|しないこと|すること|禁止|ましょう|てね|でね|るな|ないように)[。！!.]?\s*$"
    r"|^(?:千万|绝对不要|绝对不能|永远不要|一定要|务必|不要再|别再|决不|绝不)")
_JA_POLITE_TAIL = lazy(r"^(?:もらえますか|もらえる|もらえない|くれますか|くれる|くれない|いただけますか|いただけません|ください|下さい|ね|よ|くれ)[かね]?[?？。！!]*$")
# "…, OK?", "…，记住了吗？": a tag that asks for agreement does not make the request a question.
_TAG_QUESTION = lazy(
    r"[,，、]?\s*(?:ok|okay|right|got it|alright|understood|yes|verstanden|klar|ja|vale|entendido|d'accord|compris|entendu"
    r"|beleza|entendeu|certo|combinado|记住了吗|记住了没|好吗|好不好|可以吗|行吗|懂了吗|明白吗|知道了吗|わかった|分かった|いい|覚えた|了解)"
    r"\s*[?？]\s*$", re.I)
_V2_TRIGGER = lazy(r"^(?:ab jetzt|ab sofort|von nun an|von jetzt an|künftig|zukünftig|in zukunft|für die zukunft|fortan|ab heute)$", re.I)
_CJK_NOT_A_RULE = lazy(r"^(?:忘|出错|失败|报错|崩溃|不行|没有|搞不|失敗|エラー|落ちる|壊れ)")
# "いつも CI で失敗する", "总是在 CI 上失败": it fails, what happens (unless asked not to let it).
_CJK_COMPLAINT_END = lazy(
    r"(?:失败|失敗|报错|出错|崩溃|挂掉|挂了|超时|落ちる|落ちた|落ちます|落ちました|壊れる|壊れた|壊れます|エラーになる|エラーが出る"
    r"|タイムアウトする|忘れる|忘れます|忘记|忘了|不行|不工作|動かない)(?:する|した|します|しました|了|的|啊|呢|よ|ね|な|わ)*[。.!！…]*$")
_CJK_PREFIX_OK = lazy(rf"^{_FILLERS}{_LABEL}{_FILLERS}(?P<cond>{_CONDITION})?(?P<polite>{_POLITE})?(?P<subject>{_SUBJECT})?[，,、：:]?\s*$", _FLAGS)

# Not a rule though a trigger word is there.
_NOT_A_RULE_AFTER = lazy(
    r"^(?:when|what|how|why|where|who|whether|which|mind|minding|it\b|about it|me\b|this\b\s*$|that\b\s*$"
    r"|cuando|qué|como|cómo|quand|quoi|comment|wann|was|wie|warum|quando|o que|como)", re.I)
_ALWAYS_NEXT_BAD = lazy(
    r"^(?:the|a|an|this|that|same|so|seen|heard|been|done|had|got|thought|happens|happened|works|worked|fails|failed|was|were|is|are"
    r"|mind|again(?=\s*(?:[,.!;…]|$))|ever$|sure|be (?:this|that|so|like)\b|something|nothing|happy|glad|fun|a pleasure|helpful|useful|nice|great|appreciated|awesome|amazing|forget|forgets|forgot|gets?|good|bad|too|wrong|right|crash(?:es|ed)?|breaks?|broke"
    r"|falla|fallan|falló|funciona|funcionan|funcionó|rompe|falha|falham|quebra|échoue|échouent|marche|fonctionne|plante"
    r"|scheitert|funktioniert|klappt|stürzt|kaputt|geht|schlägt|hängt|bricht|läuft|passiert|gibt es|ist es|war es"
    r"|lo mismo|même|mismo|misma|mesmo|mesma|dasselbe|dieselbe|derselbe|gleiche"
    r"|había|habían|he|has|ha|hemos|tinha|tenho|tive|foi|fui|hatte|habe|hab|war|ai|avait|avons|vi|visto|gesehen"
    # "Siempre me olvido …", "sempre me esqueço …": what happens to the speaker, not a rule.
    r"|me olvido|me olvida|me equivoco|me pasa|me esqueço|me esquece|me engano|me acontece|m'arrive|j'oublie"
    # "Nunca entendi esse erro", "Nunca funcionó", "jamais testé": what happened (a past tense), not a rule
    r"|\w+(?:ei|ou|iu)|entendi|consegui|fiz|soube|pude|disse|\w+[éíó]|hice|supe|dije|fue"
    # "Nie wieder so einen Bug", "Never again such a mess": an exclamation
    r"|wieder so|so (?:ein|eine|einen|was)|again (?:such|this|that|a|an)|más (?:un|una|esto|eso)|mais (?:um|uma|isso)"
    # "Immer wieder dieser Fehler", "Sempre dá esse erro": what keeps happening
    r"|wieder (?:dieser|diese|dieses|das|der|die)|dá|dão|deu|da (?:el |un )?error|sale|aparece|aparecem|acontece)\b", re.I)
# After "can you remember that" in a question: a thing ("that bug from last week?", "that file I
# showed you?"), not a clause ("that CI runs on Node 20?", "that we deploy on Fridays?").
_THAT_THING = lazy(
    r"^(?!(?:we|i|you|they|he|she|it|the|our|all|every|no|there|this|prod|ci|main)\b)[\w-]+"
    r"(?:\s+(?:from|we|i|you|they|he|she|last|yesterday|earlier|again|about|in|on|at|with|when|where)\b.*)?[?？\s]*$",
    re.I)
_FORGET_REASON = lazy(
    r"\s*[,;—–]\s+(?=(?:we|i|you|they|since|because|as|now|it's|it is|that's|wir|weil|da|porque|ya|parce|car|nous|pois|我们|因为)\b)", re.I)
# "forget the css, just make it work": what to do instead follows the thing left aside.
_THEN_DO = lazy(r"\s*(?:[,;—–]|\s(?:and|then|y|et|und|e))\s+(?:(?:just|instead|rather|only|now)\s+)?", re.I)
# In a forget request's trigger, the rule it names ("drop the rule about", "olvida la regla de").
_RULE_NAMED = lazy(r"(?:(?:the|la|a|die|le|o) )?(?:rule|regla|règle|regel|regra)\b.*$", re.I)
_PREPOSITION_FIRST = lazy(r"^(?:about|on|for|regarding|mit|über|zu|zum|zur|von|sur|de|du|des|concernant|sobre|do|da|dos|das|acerca de)\s", re.I)
# An article right after an "always" that opens the sentence: "Siempre el mismo error", "Immer das Gleiche".
_ARTICLE_FIRST = lazy(r"^(?:la|le|les|un|une|el|los|las|una|os|as|um|uma|der|die|das|ein|eine|dem|den)\b", re.I)
_SAME_TROUBLE = lazy(
    r"\b(?:même|pareil|mismo|misma|mesmo|mesma|gleiche|selbe|dasselbe|erreur|error|erro|fehler|problème|problema|problem|bug"
    r"|souci|lío|histoire|historia|história|geschichte|chose|cosa|coisa|ding)\b", re.I)


def _names_a_thing(rest: str) -> bool:
    """A few words after an article that name the same trouble again: "la même erreur", "el
    mismo error", "das Gleiche" (and not "le vendredi" nor "die Tests zuerst laufen lassen")."""
    clause = re.split(r"[,;:–—]", rest, maxsplit=1)[0]  # "la même erreur, je ne comprends pas"
    return bool(_ARTICLE_FIRST.match(clause)) and len(clause.split()) <= 7 and bool(_SAME_TROUBLE.search(clause))


# A forget request that is a correction of the conversation, not of memory.
_FORGET_CONVERSATION = lazy(
    r"^(?:(?:the|my) (?:last|previous|earlier|first) (?:message|comment|request|question|instruction|sentence|part|one|answer)"
    r"|what i (?:just )?(?:said|asked|wrote)|my (?:last|previous)|that last|la dernière|o que eu disse|lo que dije|was ich gesagt)", re.I)
# "In the future this will be replaced": a prediction, not a rule.
_PREDICTION = lazy(
    r"^(?:this|that|it|there|they|these|those)\b.*\b(?:will|'ll|is going to|are going to)\b|^(?:with|to|and|into|from|on)\b"
    r"|^(?:perhaps|maybe|possibly|probably|hopefully|eventually)\b"
    # "From now on it should work, right?", "In the future we might move to pnpm": a guess
    r"|^(?:it|this|that|things|everything|there)\s+(?:might|may|could|would)\b|^(?:we|i)\s+(?:might|may|could|would)\b"
    r"|^(?:it|this|that|things|everything)\s+should\s+(?:work|pass|help|improve|be (?:fine|ok|okay|good|better|faster|easier|done))\b"
    # "from now on it works, thanks!": what holds now, not a rule
    r"|^(?:it|this|that|things|everything)\s+(?:works|worked|runs|passes|is (?:fine|ok|okay|good|working|better|done))\b"
    # "The rule is a bit confusing to me": an opinion of the rule
    r"|^(?:a bit|a little|very|so|too|quite|really|pretty|kind of|sort of|confusing|unclear|weird|strange|silly|stupid"
    r"|dumb|annoying|outdated|broken|wrong|hard|complicated|useless|pointless|not (?:clear|great|good|ideal))\b", re.I)
# "For the record, I was right about the cache", "As a rule of thumb, I think it's fine": the
# speaker's own past or opinion, not a rule.
_SPEAKER_SAYS = lazy(r"^i\s+(?:was|were|did|said|told|thought|think|guess|believe|feel|knew|meant|am right|'m right)\b"
                    # "from now on I'll handle the deploys myself": the speaker's own plan
                    r"|^i(?:'ll|'m going to| will| am going to| can)\s"
                    # "From now on I am just giving you instructions …": what the speaker does
                    r"|^i(?:'m| am)\s+(?:just\s+|only\s+)?\w+ing\b", re.I)
_PAST_AFTER_SUBJECT = lazy(r"^(?:had|was|were|did|got|used|seemed|wanted|forgot|forget|\w+ed)\b", re.I)
_DETERMINER = lazy(r"^(?:the|a|an|this|that|these|those|my|your|our|it|el|la|los|las|le|les|der|die|das|o|a|os|as)\b", re.I)
# "Usa siempre pnpm", "Benutze immer pnpm", "Utilise toujours pnpm": an imperative verb, then the word.
_VERB_FIRST_TRIGGER = lazy(r"^(?:immer|niemals|nie|siempre|nunca|jamás|toujours|jamais|sempre)$", re.I)
_VERB_FIRST = lazy(
    rf"^{_FILLERS}(?P<cond>{_CONDITION})?(?:{_POLITE})?(?!(?:es|das|der|die|er|sie|ist|war|hat|it|il|elle|ce|c'est|ça|cela|est|está|esto|eso|isso|isto|ele|ela"
    r"|é|era|foi|fue|ser|être|sein|ich|je|yo|eu|wir|nous|nosotros|nós|on|man|que|qui|y|et|und|e|no|ne|não|nicht)\s)"
    # "Nutze in Zukunft immer ruff": a German "from now on" may stand between the verb and "immer"
    r"(?P<verb>[^\W\d_]{2,})\s+(?:(?:bitte|mal|por favor|s'il te plaît|stp)\s+)?(?:(?:in zukunft|künftig|zukünftig|ab jetzt|ab sofort|von nun an|von jetzt an|fortan|ab heute)\s+)?$",
    _FLAGS)
# "Nutze ab jetzt ruff.": the imperative's verb before the German "from now on" ("Läuft ab jetzt
# besser.", a verb in -t, tells what happens).
_VERB_BEFORE_V2 = lazy(
    rf"^{_FILLERS}(?:bitte\s+)?(?!(?:es|das|der|die|er|sie|ist|war|hat|ich|wir|man|und|nicht|alles|nichts)\s)(?P<verb>[^\W\d_]{{1,}}[^\W\d_t])\s+(?:bitte\s+)?$",
    _FLAGS)
# "Forget it.", "Vergiss es, ich mach's selbst.": a pronoun alone, then the sentence or its clause ends.
_ECHO_FORGET = lazy(r"^(?:it|this|that|everything|all that|about it|me|mind|lo|le|la|es|das|isso|ça|eso|esto|isto)\s*(?:[.!,;]|$)", re.I)

# --- questions
_QUESTION_START = lazy(
    r"^(?:do(?!\s+not\b|n't|n’t)|does|did|is|are|was|were|have|has|had|what|why|how|when|where|who|which|should|shall|may|might|am"
    r"|do you remember|did you|erinnerst du|weißt du|weisst du|hast du|ist|sind|was|warum|wie|wo|wann|wer"
    r"|recuerdas|te acuerdas|sabes|qué|por qué|cómo|dónde|cuándo"
    r"|tu te souviens|te souviens-tu|est-ce que|pourquoi|comment|où|quand|qu'est-ce"
    r"|você (?:se )?lembra|lembra (?:de )?(?:qual|o que|quando|como)|por que|o que|onde|quando|qual"
    r"|你还记得|你记得|还记得|为什么|怎么|什么|覚えてる|覚えています)(?![A-Za-zÀ-ÿ'’])", re.I)
_QUESTION_END = lazy(r"[?？]\s*$|(?:吗|么|呢|か)\s*[。.]?\s*$")
_POLITE_ASK = lazy(
    r"^(?:{f})(?:could|can|would|will) you(?: please| kindly| also)?\s+|^(?:{f})(?:can|could|shall) we\s+|please\b|\bbitte\b|por favor|s'il (?:te|vous) plaît"
    r"|\b(?:could|can|would|will) you(?: please| kindly)?\s+(?!remember (?:what|when|how|why|where|who|which))"
    r"|^(?:{f})(?:kannst|könntest|können|könnten) (?:du|Sie)|^(?:{f})¿?(?:puedes|podrías|podria|podrías|puede|podría)\b"
    r"|^(?:{f})(?:peux|pourrais|pouvez|pourriez)-(?:tu|vous)|^(?:{f})(?:você )?(?:pode|poderia|podes)\b"
    r"|能不能|能否|可不可以|可以.*吗|好吗|好不好|行吗|行不行|麻烦|帮我|请"
    r"|てくれ|てもら|ていただ|ください|下さい".replace("{f}", _FILLERS), re.I)
_CANNOT_BE_POLITE = lazy(r"^(?:{f})(?:why|what|how|when|where|who|which|warum|was|wie|por qué|qué|pourquoi|quoi|por que)\b|^(?:{f})(?:do|did|does) you remember|^(?:{f})remember (?:what|when|how|why|where|who|which)\b|你还记得|还记得|覚えてる[？?]|覚えていますか".replace("{f}", _FILLERS), re.I)

# --- one-off scope
_ONE_OFF_NOUNS = (
    "answer|reply|response|question|message|time|run|commit|pr|pull request|task|session|conversation|chat|turn|once|build"
    "|step|query|output|table|prompt|request|one|go|attempt|iteration|test run|script|job|ticket|issue|bug|fix|migration"
    "|release|deployment|demo|meeting|experiment")
_ONE_OFF = lazy(
    # "this run", "that commit"; a plural only after "the next" ("remember that commits
    # must be signed": there "that" opens a clause)
    r"\b(?:(?:this|the current|the next|your next|that) (?:{nouns})|(?:the next|your next) (?:{nouns})s)\b"
    r"|\bfor (?:now|the moment|the time being|today|this(?! (?:project|repo|repository|codebase|team|company|org)\b)"
    r"|the rest of (?:this|the|our) (?:session|conversation|chat))\b"
    r"|\b(?:just|only) (?:this )?once\b|\bright now\b|\bthis time\b|\btemporarily\b|\btoday\b|\btonight\b"
    r"|\bafter this\b|\b(?:when|once|after) (?:you're|you are|you've|you have) (?:done|finished)\b|\bafter that\b|\bin (?:this|your next) (?:answer|reply|response|message|session|conversation|chat)\b"
    r"|\bfor (?:the )?next (?:\d+|few|couple|two|three) (?:questions?|answers?|replies|messages?|minutes?|hours?)\b"
    r"|\bdiese[snm]? (?:Mal|Antwort|Frage|Lauf|Commit|Sitzung|Skript|Skripts|Ticket|Bug|Aufgabe)\b|\bdiesmal\b|\bvorerst\b|\bfür jetzt\b|\bfürs erste\b|\bheute\b"
    r"|\bnächsten? Frage\b|\bim Moment\b|\bvorübergehend\b"
    r"|\besta (?:vez|respuesta|pregunta|sesión|ejecución|tarea)\b|\beste (?:commit|paso|script|ticket|bug)\b|\bpor ahora\b|\bpor el momento\b|\bhoy\b"
    r"|\bpróxima pregunta\b|\bde momento\b|\btemporalmente\b"
    r"|\bcette (?:fois|réponse|question|session|tâche|étape|exécution|migration)\b"
    r"|\b(?:ce|cet) (?:commit|coup-ci|script|fichier temporaire|job|build|lancement|ticket|bug|essai)\b|\bpour l'instant\b|\bpour le moment\b"
    r"|\baujourd'hui\b|\bprochaine question\b|\btemporairement\b"
    r"|\bdesta vez\b|\bnesta (?:resposta|pergunta|sessão|execução|tarefa)\b|\bessa vez\b|\bpor enquanto\b|\bpor agora\b|\bhoje\b"
    r"|\b(?:deste|neste|desse|nesse) (?:script|commit|ticket|bug)\b"
    r"|\bpróxima pergunta\b|\bneste (?:commit|momento)\b|\btemporariamente\b"
    r"|这次|这一次|此次|暂时|目前先|先这样|今天|这个回答|这个问题|下一个问题|下个问题|这轮|本轮|这一轮"
    r"|今回|今だけ|とりあえず|一時的に|今日は|この回答|この質問|次の質問|今のところ".replace("{nouns}", _ONE_OFF_NOUNS),
    re.I,
)


def family_kind(family: str) -> RequestKind:
    return "forget" if family == "forget" else "directive"


# A sentence that says it is not meant: a joke's marker, in the seven languages.
_JOKING = lazy(
    r"\b(?:just kidding|(?<!no )(?:i'?m |only )?kidding|jk|j/k|lol|lmao|rofl|haha\w*|hehe\w*|jaja\w*|jeje\w*|kkk+|rsrs\w*|mdr|ptdr"
    r"|nur (?:ein )?(?:scherz|spaß|witz)|war ein witz|c'est une blague|je rigole|es broma|estoy bromeando|é brincadeira|brincadeira)\b"
    r"|哈哈|开玩笑|開玩笑|冗談|（笑）|\(笑\)|笑笑|😂|🤣", re.I)
_REPORTED = lazy(
    r"\b(?:says?|said|wrote|writes|reads|told|tells|claims?|sagt|sagte|schreibt|dice|dijo|escribe|dit|écrit|diz|disse|escreve)\b"
    r"|说|写着|言って|書いて", re.I)
# "Whenever you touch the schema, run the migrations": a condition, then an imperative.
_STANDING_CONDITION = lazy(
    rf"^{_FILLERS}(?:whenever|every time|each time|any time|immer wenn|jedes mal,? wenn|cada vez que|siempre que"
    r"|chaque fois que|à chaque fois que|toutes les fois que|sempre que|toda vez que)\b[^,，]{3,160}[,，]\s*"
    r"(?!(?:it|i|we|they|he|she|there|this|that|the|es|ich|wir|das|der|die|il|je|on|nous|ça|c'|yo|eso|esto|ele|ela|eu|isso)\b)"
    r"(?P<act>[^\W\d_]{2,}\s+\S.*)$", _FLAGS)

# "Please stop using yarn, we moved to pnpm for good.", "We don't use yarn anymore.": a standing
# "no more" (English), the whole sentence the rule.
_STANDING_NEGATION = lazy(
    rf"^{_FILLERS}{_LABEL}(?=.*\b(?:anymore|any more|any longer|for good|no longer|ever(?=\W*$))\b)(?:please\s+)?"
    r"(?:(?:don'?t|do not|stop|quit)\s+|(?:we|you)\s+(?:don'?t|do not|shouldn'?t|should not|no longer|won'?t|will not)\s+)"
    r"(?!(?:worry|bother|mind|have|get|see|hear|know|think|care|feel|talk|need to worry)\b)[a-z]", _FLAGS)
# "The rule about squash merges no longer applies, forget it.": what it names is to be forgotten.
_NO_LONGER_APPLIES = lazy(
    rf"^{_FILLERS}(?P<what>\S.{{2,160}}?)\s+(?:no longer applies|doesn't apply anymore|does not apply anymore"
    r"|doesn't apply any more|is no longer (?:needed|valid|true|the case|required|in effect|a thing)"
    r"|isn't (?:needed|valid|true|required) anymore)\b", _FLAGS)


def find_request(sentence: str) -> Request | None:
    """The explicit request a spoken sentence makes, or None: the grammar's (`_grammar_request`)
    or, when it finds none, a request to save a rule, the standing word at the end, or a request
    in a later clause (`_beyond_grammar`); then judged whole (`_judged`: scope, fragments)."""
    saved = _saved_rule(sentence)
    if saved is not None:
        return _judged(saved, scope=False)
    if intents_pl_ru.is_polish_or_russian(_mask(sentence)):  # quoted or inline-code words are not the language spoken
        found = intents_pl_ru.find(sentence)  # their own grammar (Polish "nie" is no German "nie")
        request = None if found is None else Request(found.kind, found.text, _evidence(sentence), found.certain)
    else:
        request = _grammar_request(sentence) or _beyond_grammar(sentence)
        found = intents_pl_ru.find(sentence) if request is None else None  # Polish typed without its letters
        request = request if found is None else Request(found.kind, found.text, _evidence(sentence), found.certain)
    return None if request is None else _judged(request)


def _judged(request: Request, scope: bool = True) -> Request | None:
    """A request whose scope is the current story, document or task, or whose rule is a
    fragment or only points back ("do it like this": the caller resolves it), is none. (A rule
    the user asks to save is theirs whatever it names: `scope` False.)"""
    if scope and standing.scoped(_mask(request.sentence)):
        return None
    text = _COURTESY_AFTER.sub("", request.text)  # "utilise toujours des f-strings, stp"
    if text != request.text:
        request = Request(request.kind, text, request.sentence, request.certain)
    if _has_cjk(text) and _CJK_POINTER.match(text):
        return None  # "以后都这样做": points back (`_points_back`)
    if not _has_cjk(text) and (standing.fragment(text) or standing.only_points(text)):
        return None
    if _WANT_COUNT.match(text):
        return None  # "we always want to use 4 robots": how many of a thing the product has, a spec line
    if standing.spec_like(text) and not _REMEMBER_TRIGGER.search(_mask(request.sentence)):
        return None  # "the function must always return a list": what is being built
    if standing.task_context(text) or standing.this_tasks_file(text):
        return None  # "keep in mind that the intended functionality is …", "remember to update the @__init__.py"
    return request


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
_CJK_POINTER = lazy(r"^(?:都|也|就)?(?:要)?(?:这样|这么)(?:做|写|办|弄)?(?:吧|哦|啊)?$|^(?:も|は)?(?:そう|こう)(?:して|する)(?:ね|ください|下さい)?$")
# "can you use pnpm from now on?", "… from now on thx": a polite ask or thanks around the trigger.
_COURTESY_ONLY = lazy(standing.COURTESY_TAIL.replace("(?:[", "^(?:[", 1), re.I)
_CJK_POLITE_MODAL = lazy(r"(?:你)?(?:能不能|能否|可不可以|可以不可以)(?:帮我)?|(?:好吗|好不好|行吗|行不行|吗|呢|么)?[？?]*$")
# "revisa o código, e lembre-se que …": a request in the clause after a conjunction.
_NEXT_CLAUSE = lazy(r"[,;，；]\s*(?:(?:and|also|but|then|plus|e|y|et|und|aber|pero|mas|mais|também|también|aussi|还有|另外)\s+)?"
                    r"|\s(?:and|also|then|plus|e|y|et|und|pero|mas|mais)\s+", re.I)
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
    r"|chaque fois que|jedes mal,? wenn)\s+(?:i|we|you|yo|eu|je|ich|wir|nous|nós)\b.{3,120}?"
    r"(?:\s+(?:pls|please|plz|then|por favor|bitte)\s+|,\s*)(?P<act>[^\W\d_]{2,}\s+\S.*)$", _FLAGS)


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


def _conditional_convention(sentence: str) -> Request | None:
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


def _beyond_grammar(sentence: str) -> Request | None:
    masked = _mask(sentence)
    question = bool(_QUESTION_END.search(masked.rstrip(" .!"))) and not _polite_question(masked)
    if question or _JOKING.search(masked) or _ONE_OFF.search(masked):
        return None
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
    every = _EVERY_TIME_I.match(sentence)
    if every is not None and _imperative(every.group("act")):
        return Request("directive", _capitalise(_tidy(_strip_fillers(sentence))), _evidence(sentence), certain=False)
    conditional = _conditional_convention(sentence)
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
    # "now write the migration, remember that the table is huge": context for the step at hand
    clauses = () if _NEXT_STEP.match(sentence) else _NEXT_CLAUSE.finditer(sentence)
    for clause in clauses:
        after = sentence[clause.end():]
        lead = _strip_fillers_span(after)
        if _REMEMBER_TRIGGER.match(after, len(lead)) or _FROM_NOW_TRIGGER.match(after, len(lead)):
            request = _grammar_request(after)
            if request is not None:
                return Request(request.kind, request.text, _evidence(sentence), certain=False)
    reason = _REASON_CLAUSE.search(sentence)
    if reason is not None:
        request = _grammar_request(sentence[reason.end():])
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
            not sentence[end:].strip(_TRAILING + "ね。よ") or _JA_POLITE_TAIL.match(sentence[end:].strip())):
        # Japanese (and at times Chinese) puts the verb last: "…ことを覚えておいてください".
        rest = re.sub(r"(?:ことを|ことは|のを|を|って|と|は)\s*$", "", sentence[:start].strip(" ，、：:"))
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
    prefix = (_CJK_PREFIX_OK if cjk else _PREFIX_OK).match(before)
    if prefix is None and family == "always" and cjk and _CJK_IMPERATIVE.search(match.group("trigger") + sentence[end:]):
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


SCAN_CHARS = 128 * 1024  # of a huge message, its head and its tail are read: the middle is a paste


# Every trigger above contains one of these (lower-cased): a substring test is many times faster
# than the trigger patterns, and most messages hold none of them. tests/test_intents.py checks
# that no trigger escapes this list.
TRIGGER_STEMS: tuple[str, ...] = (
    "remeb", "rembe", "remmb", "rememe",  # the usual typos ("remeber")
    "rememb", "in mind", "a note", "take note", "note for", "note down", "note bien", "note that", "note this",
    "mental note", "for later", "standing ", "permanent ", "general instr", "rest of",
    "later sess", "upcoming sess", "note to",
    "gilt", "norma", "规定", "规矩", "一直", "pense à", "pensez à",  # "Für dieses Projekt gilt:", "规定：", "请一直…"
    # a request pointing back at the sentence before it: "We don't use default exports. Stick to that."
    "stick to", "that way", "keep doing", "halte dich", "halt dich", "cíñete", "atente", "tiens-t'en", "respecte",
    "siga isso", "mantenha isso", "se atenha",
    "note:", "memori", "forget", "write down", "unlearn", "drop the rule",
    "notes", "note these", "note those", "note them", "note the following", "note all", "to note",  # a list's intro (`_LIST_WORDS`), "one thing to note:"
    "anymore", "any more", "any longer", "for good", "no longer", " ever ", " ever.", " ever!",  # a standing "no more"
    "next time",  # "For next time: …"
    "recordá", "acordate", "tené en", "olvidés", "anotá", "apuntá", "memorizá",  # voseo
    "starting", "en más", "plus", "let's keep", "lets keep", "let's stick", "lets stick", "let's stay", "let's follow",  # "starting now", "de ahora en más", "n'utilise plus print"
    "instruction", "memory", "memories", "preference",  # "add to your instructions that …"
    "rule", "policy", "policies", "convention", "for the record",
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
    "一定要", "总是", "始终", "务必", "每次", "从不", "从来不", "一律",
    "覚え", "忘れ", "メモ", "心に留め", "今後", "これから", "次回", "以後", "以降", "常に", "いつも", "必ず", "絶対", "決して",
    "二度と", "毎回",
    # a convention as a condition and an imperative (`_IF_YOU_DO`): "if you add a dependency, pin it"
    "if you ", "when you ", "once you ", "before you ", "after you ", "if we ", "when we ", "cuando ", "antes de ", "después de ",
    "quando ", "depois de ", "si tu ", "si vous ", "quand tu ", "quand vous ", "lorsque ", "dès que ", "wenn du ", "wenn ihr ",
    "wenn wir ", "falls du ", "sobald du ", "如果你", "如果我们", "要是你", "当你", "每当你",
) + intents_pl_ru.STEMS


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
    r"|siga isso|mantenha isso|se atenha a isso)(?:\s+(?:please|bitte|por favor|s'il te plaît|stp))?$",
    re.I)


# The words a line that introduces a list of the user's rules holds ("Our conventions:").
_LIST_WORDS = (
    r"(?:remember|keep in mind|note(?:s| these| those| them| the following| all| for| down| that| this)|note(?=\s*[:：])|rules?|polic(?:y|ies)|conventions?|guidelines|style guide|standards|practices|preferences"
    r"|from now on|going forward|(?:for|in) the future|for future|for next time|always|merk|denk|recuerda|ten en cuenta"
    r"|retiens|souviens|n'oublie|lembr|guarde|anote|记住|记一下|以后|覚えて|今後"
    # "rules" and "conventions" in the other languages the grammar reads
    r"|regeln?|konventionen|richtlinien|reglas?|normas|convenciones|règles?|regras?|convenções|规范|规则|约定|守则"
    r"|ルール|規約|規則|決まり)"
)
_LIST_INTRO = lazy(_LIST_WORDS + r"[^:：]{0,40}[:：]\s*$", re.I)


# What follows an intro's trigger: a few words, then the colon that ends the line.
_LIST_TAIL = lazy(r"[^:：]{0,40}[:：]\s*$")


def _introduces_a_list(line: str) -> bool:
    """"Please remember the following:", "Keep these in mind:", "Retenez ceci :": a line that ends
    in a colon a few words after a trigger of the remember family (every phrasing the grammar
    reads as a request to remember), or after one of `_LIST_INTRO`'s words ("Rules:")."""
    if _LIST_INTRO.search(line):
        return True
    return any(_LIST_TAIL.match(line, match.end())
               for trigger in (_REMEMBER_TRIGGER, _FROM_NOW_TRIGGER) for match in trigger.finditer(line))


def _asks_to_keep(line: str) -> bool:
    """Does a line that introduces a list ask for it to be kept? The words a request to remember
    or a standing rule is made of count (every phrasing the grammar reads as one), and
    `_ASKS_TO_KEEP`'s ("stick to them", "apply these")."""
    return bool(_ASKS_TO_KEEP.search(line) or _REMEMBER_TRIGGER.search(line) or _FROM_NOW_TRIGGER.search(line))


# The polite ask a pointing request opens with ("Could you please …", "¿Puedes …"): the grammar's own.
_POLITE_LEAD = lazy(rf"^\s*¿?(?:{_POLITE})", _FLAGS)


def _points_back(sentence: str) -> bool:
    """"Remember that.", "Could you please remember that?": a request about the sentence next
    to it. "Remember that?" alone asks whether they recall it, and is not one."""
    untagged = _TAG_QUESTION.sub("", sentence)
    masked = _mask(untagged)
    if _QUESTION_END.search(masked.rstrip(" .!")):
        if not _polite_question(masked):
            return False
        untagged = _POLITE_LEAD.sub("", untagged, count=1)
    bare = _strip_fillers(untagged).strip(" .!?。！？ね:：")
    if _positive_pointer(bare):
        return True  # "do that from now on", "keep doing it like this"
    if _has_cjk(bare):
        bare = _JA_POLITE_SUFFIX.sub("", bare)
        return bool(_BARE_REMEMBER_CJK.match(bare))
    return bool(_BARE_REMEMBER_WORDS.match(bare))


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


def standalone_rule(text: str) -> str | None:
    """The rule a short user message states on its own ("use pnpm instead of npm for installs"),
    which a later "remember this" points at: one sentence, an imperative or a team's practice,
    not a question nor a one-off. None when it is not that clear."""
    said = [s for line in spoken_lines(text) for s in sentences(line)]
    if len(said) != 1 or len(said[0]) > 300:
        return None
    sentence = said[0]
    if _asks(sentence) or _ONE_OFF.search(_mask(sentence)) or standing.scoped(_mask(sentence)):
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
    message's body, a role-play, persona or template set up, see omp.standing)."""
    own = standing.own_words(_bounded(text))
    if standing.is_setup(_mask(own)):
        return iter(())
    return _find_requests(own)


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
_DANGLING = lazy(
    rf"^{_FILLERS}(?:(?:always|never|ever|don'?t ever|dont ever|do not ever|never ever|please|pls|also|just|from now on|going forward)"
    # "we never use it": the team's practice, with its standing word ("we deploy it with helm" is a fact told)
    r"[\s,]+)*(?:(?:we|you)\s+(?:(?:should|must)\s+)?(?:always|never)\s+)?(?:(?:don'?t|dont|do not|not)\s+)?"
    r"(?!(?:make|keep|take|let|get)\b)[a-z]{2,}\s+"
    r"(?:(?:them|it)(?![\w'’])|(?:this|that|these|those)(?=\s*(?:again|anymore|too|either|first|[.!,]|$)))", re.I)


def dangling(text: str) -> bool:
    """Is the rule's object only a pronoun ("Never skip them")?"""
    return bool(_DANGLING.match(text))


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


# A clause, then a comma and the standing word (`_at`).
_CLAUSE_BEFORE = lazy(rf"^{_FILLERS}{_LABEL}{_FILLERS}(?P<cond>[^,;:?!¿]{{3,120}}?\s*[,;—–]\s*)$", _FLAGS)
_PREPOSITION_NEXT = lazy(
    r"^(?:by|with|on|in|at|for|to|from|without|before|after|via|under|over|into|through|during|mit|ohne|am|im|auf|vor|nach"
    r"|con|sin|en|por|para|antes|después|avec|sans|dans|sur|par|pour|avant|après|com|sem|em|no|na|pelo|pela)\b", re.I)
_PRACTICE_CLAUSE = lazy(r"^(?:we|our team|the team|everyone|everybody|wir|nosotros|nous|on|nós|a gente)\s", re.I)
_ENGLISH_THIRD_PERSON = lazy(r"^(?:always|never)\s+[a-z]+[^s\W]s\b", re.I)
# A standing word alone as a sentence ("Ever.", "絶対に。", "Immer!").
_STANDING_ALONE = lazy(
    r"^(?:ever|ever again|never again|never|never ever|always|not ever|at all times|immer|niemals|nie|nie wieder|siempre|nunca|jamás|nunca más"
    r"|toujours|jamais|plus jamais|sempre|nunca mais|永远|永远不要|一定|绝对|绝对不要|千万|絶対に?|必ず|いつも|常に|二度と"
    r"|(?:以后|今后)(?:都|也)(?:是|这样)?|今後(?:も|ずっと)|これからも(?:ずっと)?|毎回)"
    r"[.!。！]*$", re.I)
# How an imperative starts: a verb (not a pronoun, an article or a name of what happened), or
# "don't"; in Chinese and Japanese, a request or prohibition form (`_CJK_IMPERATIVE`).
_IMPERATIVE_START = lazy(
    rf"^{_FILLERS}(?:please\s+|bitte\s+|por favor,?\s+)?(?:don'?t\b|do not\b|(?!(?:it|its|it's|i|i'm|we|they|he|she|there|this|that|these|those"
    r"|the|a|an|my|our|your|his|her|their|es|ich|wir|das|der|die|ein|eine|il|elle|je|on|nous|ça|c'est|le|la|les|un|une"
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


_REMEMBERING = lazy(r"\b(?:remember|remeber|rember|remmber|remembr|rememeber|remebmer)(?:ing)?\s+(?:to\s+)?", re.I)
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


# ---------------------------------------------------------------------------------------------
# corrections, for the packet's priorities (SPEC §4.3)

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
