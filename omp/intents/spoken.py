"""What the user said in a message, and its sentences (docs/reviewer-answer-schema.md): pasted code, quotes, logs,
files and pages dropped; inline code and quoted strings masked."""

from __future__ import annotations

import re
from typing import Iterator

from omp.intents.phrases import _FROM_NOW_TRIGGER, _REMEMBER_TRIGGER
from omp.lazyre import lazy

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
    # "Translate to French:", "Rewrite this:", "Proofread my essay:": the text to work on follows
    r"|^\W*(?:(?:ok|okay|now|so|please|pls|and|also)[\s,]+)*(?:(?:can|could|would) you\s+(?:please\s+)?)?"
    r"(?:translate|rewrite|rephrase|paraphrase|reword|summari[sz]e|proofread|correct|polish|shorten|simplify|improve|edit)\b[^\n]{0,80}[:：]\s*$"
    r"|\b(?:e-?mail|mail|message|page|docs?|file|log|output|text|snippet|article|post|comment|issue|ticket|thread|readme"
    r"|wiki|transcript|excerpt|section|content|trace|traceback|diff|patch|config|datei|seite|nachricht|correo|página"
    r"|prompt|system prompt|промпт|提示词|プロンプト"  # "Prompt: IMPORTANT INFORMATION: …": a prompt pasted to be used
    r"|overview|brief|specification|spec|prd|proposal"  # "Project Overview:", "PRD:": a document pasted
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

# What an agent's transcript wraps in tags ("<bash-input>", "<teammate-message …>", "<command-name>"):
# a tool's or another agent's text, not typed by the user. Lower-case names only: "<Image />" is
# the user naming a component.
_TAG_OPEN = lazy(r"^\s*<(?P<tag>[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+|[a-z]+-?[a-z]*)(?:\s[^>]*)?>")
# A merge conflict ("<<<<<<< Updated upstream"): the rest is a file's text. (A line of "=" alone is
# also how people underline a heading or separate parts: `_SEPARATOR`.)
_CONFLICT_MARK = lazy(r"^(?:<{7}|>{7})(?:\s|$)")
# A shell prompt ("❯ cat …", "➜ ~ git status", "PS C:\\Users\\me> netstat …"): a terminal session pasted.
_SHELL_PROMPT = lazy(r"^\s*(?:❯|➜|λ|PS [A-Za-z]:\\[^>\n]*>|[\w.-]+@[\w.-]+:[^$\n]*\$)\s*\S")
# An assistant's answer pasted back: it opens in the assistant's voice ("Short answer: yes —",
# "I can't run commands in your environment, but here's …", "Change summary:", "为了帮你…我将…").
_ASSISTANT_VOICE = lazy(
    r"^\W*(?:short answer|long answer|tl;?dr|change summary|summary of (?:the )?changes|what (?:i|we) changed"
    r"|i (?:can(?:no|'|’)?t|am unable to|(?:'|’)m unable to) (?:run|access|execute|see|open|browse)\b[^\n]{0,60}\bbut\b"
    r"|here(?:'s| is) (?:exactly )?(?:how you can|what you can|how to|a (?:quick|short|step-by-step) (?:guide|summary|overview))"
    r"|looking at [^,\n]{1,60}, (?:the|i|it|this|there)\b"
    r"|(?:great|good|excellent) question\b|you'?re (?:absolutely )?right\b[^\n]{0,40}\b(?:i|let me)\b"
    r"|(?:为了)?(?:帮你|帮助你|为你)[^\n]{0,30}(?:我将|我会|我来)|我(?:可以|来|将)(?:帮你|为你))", re.I)
# The same, after the user's own first words on the line ("please update with this change too Short answer: yes — …").
_VOICE_INSIDE = lazy(r"\b(?:Short answer|Long answer|TL;DR|Change summary)\s*[:：]", re.I)
# A command line typed into a shell, with its options ("python3 -c \"…\"", "sed -i '' 's/…/'"): what the user ran.
_COMMAND_LINE = lazy(r"^\s*(?:sudo\s+)?(?:python3?|node|bash|sh|zsh|sed|awk|cat|echo|git|npm|npx|pnpm|yarn|pip3?|uv|docker|kubectl"
                     r"|curl|wget|make|cargo|go|dotnet|mvn|gradle|adb)\s+(?:-{1,2}[\w-]+|<<)")
# A structured task prompt's section label in capitals ("SCÉNARIO À TESTER :", "MISSION:"): what
# follows is the task's content, as after a Markdown heading ("RULES:" introduces the user's list).
_CAPS_LABEL = lazy(r"^\s*(?:\d+[.)]\s*)?[A-ZÀ-ÖØ-Þ][A-ZÀ-ÖØ-Þ0-9 '’/&-]{3,40}\s*[:：]\s*$")
_BOLD_POINT = lazy(r"^\s*(?:[-*•+]\s+|\d{1,3}[.)]\s+)?\*\*[^*\n]{1,60}\*\*")
# "the report must cover at least these:", "make sure the parser handles the following:": what
# the thing of this task must do, item by item (a list of the user's rules names them: `_LIST_WORDS`).
_CONTENT_INTRO = lazy(
    r"\b(?:at least|at minimum|the following)\b[^:：]{0,30}[:：]\s*$"
    # "Verify:", "Expected behaviour:", "Acceptance criteria:": what the thing of this task must do
    r"|^\W*(?:verify|check|test|expected(?: (?:result|behaviou?r|output)s?)?|acceptance criteria|requirements?|scenarios?"
    r"|test cases?|steps to reproduce)\b[^:：]{0,30}[:：]\s*$"
    # "Attends, petite correction technique :", "A few fixes:": what to change in this task, item by item
    r"|^\W*(?:[\w'’-]+[\s,]+){0,4}(?:corrections?|fix(?:es)?|changes|tasks?|to-?dos?|todo list|corrección|correcciones|correção"
    r"|correções|korrekturen?|änderungen)\b[^:：]{0,20}[:：]\s*$"
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
    tag: str | None = None  # inside an agent transcript's tag, until it closes
    terminal = False  # after a shell prompt or a command line: its output
    for number, line in enumerate(raw_lines):
        if tag is not None:
            if f"</{tag}>" in line:
                tag = None
            continue
        opened = _TAG_OPEN.match(line)
        if opened is not None:
            if f"</{opened.group('tag')}>" not in line:
                tag = opened.group("tag")
            continue
        if _CONFLICT_MARK.match(line):
            break  # a merge conflict: the rest is a file's text
        if number == 0 or not lines:
            if _ASSISTANT_VOICE.match(line.strip()):
                break  # an assistant's answer pasted back: nothing after its first words is the user's
            inside = _VOICE_INSIDE.search(line)
            if inside is not None:
                lines.append(line[:inside.start()])
                break
        if terminal:
            if line.strip():
                continue  # a command's output, up to the next blank line
            terminal = False
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
        if _FILE_LABEL.match(line) or stripped.startswith("Traceback (most recent call last)") \
                or (_CAPS_LABEL.match(line) and len(raw_lines) > 1 and not _introduces_a_list(stripped)):
            pasted = True
            continue
        if _SHELL_PROMPT.match(line) or _COMMAND_LINE.match(line):
            terminal = True
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
    r"|(?<=[!?])(?=[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]))"
    # Japanese chat ends a sentence with an ideographic space as often as with "。"
    r"|(?<=[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff])\u3000(?=\S)")


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


# The words a line that introduces a list of the user's rules holds ("Our conventions:").
_LIST_WORDS = (
    r"(?:remember|keep in mind|note(?:s| these| those| them| the following| all| for| down| that| this)|note(?=\s*[:：])|rules?|polic(?:y|ies)|conventions?|guidelines|style guide|standards|practices|preferences"
    r"|from now on|going forward|(?:for|in) the future|for future|for next time|always|merk|denk|recuerda|ten en cuenta"
    r"|retiens|souviens|n'oublie|lembr|guarde|anote|记住|记一下|以后|覚えて|今後"
    # "rules" and "conventions" in the other languages the grammar reads
    r"|regeln?|konventionen|richtlinien|reglas?|normas|convenciones|règles?|regras?|convenções|规范|规则|约定|守则"
    r"|ルール|規約|規則|決まり)"
)
# (a whole word: "a Rulesync setup focused on:" names no rules)
_LIST_INTRO = lazy(r"(?<![A-Za-z])" + _LIST_WORDS + r"(?![A-Za-z])[^:：]{0,40}[:：]\s*$", re.I)


# "…以下規則", "…下面几点：": "the following (rules, points)" closing the line, a colon or none.
_CJK_FOLLOWING = lazy(r"(?:以下|下面|如下)(?:的|这|這)?(?:几|幾)?(?:条|條|点|點)?(?:规则|規則|规定|規定|要求|约定|約定|规范|規範|原则|原則|事项|事項)?[:：。.\s]*$")
_LIST_INTRO_CJK_WORD = lazy(r"规则|規則|规定|規定|约定|約定|规范|規範|原则|原則|以后|以後|今后|今後|遵守")
# What follows an intro's trigger: a few words, then the colon that ends the line.
_LIST_TAIL = lazy(r"[^:：]{0,40}[:：]\s*$")


def _introduces_a_list(line: str) -> bool:
    """"Please remember the following:", "Keep these in mind:", "Retenez ceci :": a line that ends
    in a colon a few words after a trigger of the remember family (every phrasing the grammar
    reads as a request to remember), or after one of `_LIST_INTRO`'s words ("Rules:")."""
    if _LIST_INTRO.search(line):
        return True
    if _CJK_FOLLOWING.search(line) and (_REMEMBER_TRIGGER.search(line) or _LIST_INTRO_CJK_WORD.search(line)):
        return True  # "請記住以下規則", "以后请遵守下面几点": Chinese points at the list without a colon
    return any(_LIST_TAIL.match(line, match.end())
               for trigger in (_REMEMBER_TRIGGER, _FROM_NOW_TRIGGER) for match in trigger.finditer(line))


def _asks_to_keep(line: str) -> bool:
    """Does a line that introduces a list ask for it to be kept? The words a request to remember
    or a standing rule is made of count (every phrasing the grammar reads as one), and
    `_ASKS_TO_KEEP`'s ("stick to them", "apply these")."""
    return bool(_ASKS_TO_KEEP.search(line) or _REMEMBER_TRIGGER.search(line) or _FROM_NOW_TRIGGER.search(line))
