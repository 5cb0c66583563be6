"""Structure and scope around the explicit-request grammar (omp.intents, docs/reviewer-answer-schema.md, issue 35).

The grammar reads one sentence; real messages need more than that, measured on real
developer–assistant conversations:

- **the message's structure**: a long message (over `LONG_MESSAGE_CHARS`) is mostly a pasted
  body — an article, a spec, a prompt template — and only its first and last short paragraphs
  are the user's own words (`own_words`). A message that sets up a role-play, a persona, a game
  or a prompt template (`is_setup`) holds rules for that setup, not for the user's work;
- **the scope of a request**: "in this story", "for this essay", "in this file", "for the rest
  of the chat" is the current task or document, not the user's way of working (`scoped`);
- **what a rule is made of**: a fragment ("REMEMBER THE", "as part of our conversation", "you
  must") is refused (`fragment`), and a rule made only of pointing words ("do that", "like
  this") points back at what was said before (`only_points`);
- **requests to save or change a rule** ("add a rule that …", "make this a global rule: …",
  "update the rule so you always …") and the **standing word at the end** ("…, always", "…
  ever again", "… nunca más") — `save_rule`, `standing_tail`.

Standard library only; every pattern is compiled on first use (omp.lazyre).
"""

from __future__ import annotations

import re

from omp.lazyre import lazy

LONG_MESSAGE_CHARS = 2000  # above this, a message's body is pasted material (measured: no good rule came from one)
OWN_WORDS_CHARS = 400  # a long message's first or last paragraph is the user's when it is at most this long


def own_words(text: str) -> str:
    """The part of a message the user wrote themselves. A short message is all theirs; of a long
    one, only the first and the last paragraph (or line), when each is short: "here's the doc:"
    … "ok, and from now on …". The body between them is what they pasted."""
    if len(text) <= LONG_MESSAGE_CHARS:
        return text
    parts = [p for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    if len(parts) < 3:
        parts = [p for p in text.strip().splitlines() if p.strip()]
    if len(parts) < 2:
        return ""  # one long block: pasted whole
    ends = [_introduction(parts[0])]  # "we need to check the problems below: …" — what follows is pasted
    if not _SEPARATOR_LINE.match(parts[-2].strip().splitlines()[-1]) and not _DOCUMENT_VOICE.match(parts[-1].strip()):
        ends.append(parts[-1])  # (after a "---" rule, or speaking of "this breakdown", it is the document's own end)
    return "\n\n".join(p for p in ends if len(p) <= OWN_WORDS_CHARS)


# A long message's first paragraph that introduces the paste and then starts it on the same line:
# "we need to check whether the following problems exist: <pasted answer>". The user's words end
# at the colon after the introducing word.
_INTRODUCED = lazy(r"^(?P<intro>[^\n]*?(?:\b(?:following|below|this|these|here|attached|pasted|output|answer|reply|says|said)\b"
                   r"|下面|以下|如下|这段|这个)[^:：\n]{0,30}[:：])", re.I)


def _introduction(paragraph: str) -> str:
    match = _INTRODUCED.match(paragraph)
    return paragraph if match is None else match.group("intro")


_SEPARATOR_LINE = lazy(r"^\s*(?:-{3,}|\*{3,}|_{3,}|={3,})\s*$")
# "This breakdown provides specific steps for the team …": a document speaking of itself.
_DOCUMENT_VOICE = lazy(
    r"^(?:this|the above|these)\s+(?:\w+\s+)?(?:breakdown|document|doc|plan|guide|list|summary|spec|specification|section|report"
    r"|overview|proposal|outline|analysis|tasks?)\s+(?:provides?|covers?|describes?|outlines?|gives?|lists?|explains?|summari[sz]es?)\b",
    re.I)


# A role-play, persona, game or template set up in the message: its "always"/"from now on" are
# the setup's rules. Grammar, not phrases: a second-person "you are/you'll be" + an article or
# a name, "act as", "pretend", "let's play", "stay in character"; a template's placeholders.
_SETUP = lazy(
    # "You are DAN, an AI without …", "you'll be Linus, a grumpy engineer": a role described (two
    # words at least follow), not praise ("you're the best", "you are a lifesaver!")
    # (after a label too: "Remember: you are Bob, an assistant who always …")
    r"(?:^|[.!?:：\n]\s*|(?:from now on|going forward|now|remember(?: that)?|keep in mind(?: that)?)[,\s]+)(?:you(?:'re| are| will be|'ll be| will act| will play"
    r"| will pretend| will respond as| are now| shall be)"
    r"\s+(?:now\s+)?(?:(?:a|an|my|the|as|called|named)\b|(?-i:[A-Z][A-Za-z]+)\b(?!\s+(?:right|correct|wrong)))"
    r"(?=[^.!?\n]*?\s[^\s.!?]+\s[^\s.!?]|\s*,))"
    # "act as …", "pretend …": told to the assistant (a sentence's start, after "please", "I want you to")
    r"|(?:^|[.!?\n]\s*|please\s+|you to\s+|(?:from now on|now)[,\s]+)(?:act(?:ing)? as\b|pretend(?:ing)? (?:to be|you(?:'re| are)"
    r"|that you)|imagine you(?:'re| are)|behave like|talk like a|speak like a|answer as\b|respond as\b)"
    # a prompt written for another agent: "You are executing Phase 1 of …", "You are tasked with …"
    r"|^\W*you(?:'re| are) (?:now )?(?:executing|implementing|working on|tasked with|responsible for|a sub-?agent|an? (?:\w+ )?agent\b)"
    r"|\b(?:role-?play|let'?s play|play a game|stay in character|in character"
    r"|eres un|actúa como|finge que|haz de|tu es un|joue le rôle|agis comme|você é um|aja como|finja que|du bist ein|spiel(?:e)? die rolle"
    r")|你是一[个只位名]|扮演|假装你|角色扮演|猫娘|あなたは.{1,20}です|として振る舞|ロールプレイ"
    r"|\{\{[^}\n]{1,40}\}\}|\[(?:INSERT|YOUR|PUT|ADD)[^\]\n]{0,40}\]|<(?:your|insert)[^>\n]{0,40}>",
    re.I)


def is_setup(text: str) -> bool:
    """Does the message set up a role-play, a persona, a game or a prompt template?"""
    return _SETUP.search(text) is not None


# The current task or document, not the user's way of working: "in this story", "for this
# essay", "in this file", "for the rest of the document". (A project, a repository, a codebase,
# a team is where the user works: "in this repo we always …" stands.)
_SCOPE_NOUNS = (
    r"story|chapter|scene|plot|character|game|role-?play|novel|poem|song|essay|letter|article|blog post|post|document|doc"
    r"|draft|slide|presentation|file|function|method|component|class|module|script|snippet|notebook|page|screen|form"
    r"|refactor|exercise|assignment|homework|chat|conversation|thread|translation|summary|review|example|query"
    r"|loop|block|line|test|endpoint|route|handler|cell|section|paragraph|sentence")
_SCOPED = lazy(
    rf"\b(?:in|for|on|within|throughout|inside|during|to)\s+(?:this|that|the current|the following|your next|the next)\s+"
    rf"(?:\w+\s+)?(?:{_SCOPE_NOUNS})s?\b(?!\s*(?:names?|headers?)\b)"
    rf"|\b(?:for|in|during) the rest of (?:this|the|our) (?:{_SCOPE_NOUNS})\b"
    r"|\b(?:the|our|my) (?:hero|heroine|villain|dragon|narrator|protagonist|character|story|plot)\b"
    # "never mention that you are an AI in the cover letter", "in the poem, …": a piece of writing
    # this chat produces (the project's files and code are where the user works: "in the tests" stands)
    r"|\b(?:in|for|to|into|throughout) (?:the|my|your) (?:[\w-]+\s+)?(?:story|chapter|scene|poem|song|lyrics|essay|letter"
    r"|cover letter|article|blog post|speech|email|e-mail|presentation|slides|novel|tweet|thread|toast|eulogy|resume|résumé|cv)\b"
    # "from now on we're going to focus on the backend": what the work turns to next
    r"|\b(?:let'?s|we(?:'re| are) going to|we'?ll|we will)\s+(?:now\s+)?(?:focus|work|concentrate)\s+on\b"
    r"|\b(?:en|para|durante) (?:este|esta|el|la) (?:historia|cuento|capítulo|juego|ensayo|documento|archivo|función|chat|conversación)\b"
    r"|\b(?:dans|pour|pendant) (?:ce|cette|cet) (?:histoire|chapitre|jeu|essai|document|fichier|fonction|chat|conversation)\b"
    r"|\b(?:in|für|während) (?:dieser|diesem|dieses) (?:geschichte|kapitel|spiel|aufsatz|dokument|datei|funktion|chat|unterhaltung)\b"
    r"|\b(?:nesta|neste|nessa|nesse|para esta|para este) (?:história|capítulo|jogo|redação|documento|arquivo|função|conversa)\b"
    r"|(?:这个|这篇|这段|本)(?:故事|章节|游戏|文章|文档|文件|函数|对话)(?:里|中)|この(?:物語|ゲーム|記事|文書|ファイル|関数|会話)(?:では|で)",
    re.I)


def scoped(sentence: str) -> bool:
    """Does the request hold only for the current task, story, persona or document?"""
    return _SCOPED.search(sentence) is not None


# Words that only point at something said before, or hold a sentence together.
_FUNCTION_WORDS = frozenset(
    "the a an this that these those it its it's to of in on at for with by from as like and or but so then "
    "is are be been was were will would can could should must shall may might do does did done doing don't dont "
    "not no yes you your you're i me my we our us they them he she his her always never ever again from now "
    "please pls plz thx thanks ok okay just also too same way above below before said discussed mentioned "
    "keep sure make part conversation here there what which who how when where all any some every each "
    "remember mind note in following rule rules going forward moving future later".split())
_POINTING = frozenset(
    "do it that this like way same thing things again keep doing so above before said discussed mentioned "
    "what there here too also ok okay please pls plz thx thanks just always never ever from now on going forward "
    "remember stick to eso esto así lo mismo isso assim ça cela comme das so haz hazlo hacé hacelo siempre faz fazer sempre "
    "fais fait toujours mach mache immer genauso".split())
_ENDS_OPEN = frozenset(
    "the a this these those my your our their to of for with by from and or but if "
    "you we i must should will would can could need have has is are be don't dont make sure keep "
    "el la los las un una del que y con para por les des du et der die das ein eine und zu mit für von um uma com".split())
_WORD = lazy(r"[^\W_][\w'’-]*")


def fragment(rule: str) -> bool:
    """A rule that is not a rule: it ends open ("REMEMBER THE", "you must", "always make sure"),
    is an adverbial alone ("as part of our conversation", "like I said before"), or says nothing
    but standing words ("always, always, always"). Chinese and Japanese are judged by length."""
    words = [w.lower() for w in _WORD.findall(rule)]
    if not words or not rule.isascii() and re.search(r"[\u3040-\u30ff\u3400-\u9fff]", rule):
        return False
    last = rule.split()[-1].strip(".,;:!?…")
    if last.isalpha() and last.lower() in _ENDS_OPEN and words[-2:] != ["now", "on"]:
        return True  # (a last token that is a URL, a path or a version is no open end)
    if words[0] in ("as", "like") and "," not in rule:
        return True  # "as we discussed", "as part of our conversation", "like I said before"
    return not [w for w in words if w not in _FUNCTION_WORDS]


# "The function must always return a list", "the user will ask questions about the document":
# a thing's behaviour (the specification of what is being built, or a prompt's), not how the
# user wants work done — a team ("we"), "you" or an imperative is.
_SPEC = lazy(
    r"^(?:the|a|an|each|every|all|its|his|her|their|this|that|these|those)\s+(?:[\w-]+\s+){0,3}?"
    r"(?:must|should|will|shall|can|cannot|can't|has to|have to|needs to|need to|is going to|are going to|'ll)\b"
    # "make sure the API always returns JSON": how the thing behaves, told in the present
    r"|^(?:the|a|an|each|every|all|its|his|her|their|this|that|these|those)\s+(?:[\w-]+\s+){0,3}?(?:always|never)\s+"
    r"(?:[a-z]+[^\Wsu]s|is|are|has|have|gets|goes|does)\b", re.I)


# "Keep in mind that the intended functionality is …", "the goal is …": what the task at hand is
# for, told as context for it (a task's brief, not a standing rule).
_TASK_CONTEXT = lazy(
    r"^(?:the|this|our|my)\s+(?:(?:intended|current|expected|desired|main|overall|original|actual|end)\s+)?"
    r"(?:functionality|goal|purpose|idea|intent|intention|objective|requirement|use case|task|plan|point)s?\s+(?:is|are|was|here)\b"
    # "remember the context: I am building a todo app", "keep in mind I'm writing a thesis": the task told
    r"|^(?:the |some |this |my |our )?(?:context|background|situation|setup|scenario)\s*[:：]"
    r"|^(?:i|we)(?:'m|'re| am| are)\s+(?:currently\s+|now\s+|just\s+)?(?:building|making|creating|writing|developing|trying to)\b",
    re.I)

# "remember it is a brief presentation", "keep in mind this is only a prototype": "it" and "this"
# are the thing in hand, and what is told about it is context for this task; so is a date ("the
# deadline is Friday", "it's due tomorrow"). (Followed by a standing order — "This is the prod
# cluster, never run migrations by hand" — the order stands: the caller asks first.)
_THING_IN_HAND = lazy(
    r"^(?:(?:it|this|that|they|these)(?:'s|’s| is| are| was| were)"
    r"|its\s+(?:ok|okay|fine|alright|not|just|only|important)\b"  # "remember its okay to make errors": "it's", as typed
    # "remember this page is the private room": a piece of what is being built, in hand
    r"|(?:(?:this|that|these|those)\s+)?(?:page|screen|view|file|function|component|table|card|button|tile|section|modal|form"
    r"|bug|error|issue|endpoint|query|step|part)s?\s+(?:is|are|was|were)\b"
    r"|(?:is|are|was|were))\s"  # ("remember it is …" cut as "remember it" + "is …")
    r"|.*\b(?:deadline|due (?:on|by|date|tomorrow|today|next|this)|tomorrow|tonight|this (?:week|weekend|sprint|afternoon|morning|evening))\b",
    re.I)


def about_the_thing_in_hand(rule: str) -> bool:
    """Is the rule only a fact about the work in hand ("it is a brief presentation")?"""
    return _THING_IN_HAND.match(rule) is not None


# "I'll always use the latest version from now on", "from now on I will just test": what the user
# will do, told; an order is to the assistant or the team, a statement about the speaker is not.
_SPEAKER_WILL = lazy(r"^(?:(?:ok|okay|so|well|and|but|then|also)[\s,]+)*i(?:'ll|’ll| will| shall| am going to|'m going to|'m gonna| am gonna)\b", re.I)


def speaker_will(rule: str) -> bool:
    """Does the rule say what the user will do ("I'll always use …"), not ask for anything?"""
    return _SPEAKER_WILL.match(rule) is not None


# "Always show all available options based on the current selection", "always freeze the first and
# the last one", "Always only show one table": what the product shows, told as an imperative — the
# spec of the thing built. Shown to the user ("always show me the diff", "… in your answers"), it is
# how the assistant is to answer.
_SHOWS = lazy(
    r"^(?:(?:always|never|only|just|please|also|and)[\s,]+)*(?:always\s+)?(?:only\s+)?(?:show|display|render|list|freeze|highlight|hide"
    r"|sort|expand|collapse|refresh|pre-?select|select|disable|enable|grey out|gray out)\b"
    r"(?!\s+(?:me|us|the user|them|him|her)\b)(?![^.]*\b(?:your|you|reply|replies|answers?|responses?|output|chat|summary)\b)",
    re.I)


def spec_like(rule: str) -> bool:
    """Does the rule state how a thing behaves (a spec), rather than how to work?"""
    return _SPEC.match(rule) is not None or _SHOWS.match(rule) is not None


# "remember to use the function I gave you above": a thing of this conversation, named as such
_THIS_CHATS_THING = lazy(r"\bi (?:just )?(?:gave|sent|showed|pasted|shared|wrote) (?:you|to you|here|above|earlier)\b"
                         r"|\b(?:you (?:just )?(?:gave|sent|showed|wrote) me)\b|\b(?:above|earlier in (?:this|our) (?:chat|conversation))\s*$", re.I)


def this_chats_thing(rule: str) -> bool:
    """Does the rule act on a thing of this conversation ("the function I gave you above")?"""
    return _THIS_CHATS_THING.search(rule.rstrip(" .!")) is not None


def task_context(rule: str) -> bool:
    """Does the rule tell what the task at hand is for ("the intended functionality is …")?"""
    return _TASK_CONTEXT.match(rule) is not None


_POINTER_CORE = frozenset("do doing keep stick remember like way same that this it eso esto así isso assim ça cela das "
                          "haz hazlo hacelo faz fais mach mache genauso".split())


# "remember to also update the @__init__.py", "记得要复制一份@notebooks/x.ipynb": a file the user
# put in this task's context (an @-mention), and nothing that makes it standing.
_MENTION = lazy(r"(?:^|\s|[\u3400-\u9fff])@[\w./\\-]+")
_STANDING_WORD = lazy(
    r"\b(?:always|never|every|each|whenever|keep|all|any|from now|going forward|in the future|immer|nie|jede[snm]?|siempre|nunca"
    r"|cada|sempre|toujours|jamais|chaque)\b|总是|每次|以后|今后|永远|一直|始终|毎回|いつも|常に|必ず|今後", re.I)


def this_tasks_file(rule: str) -> bool:
    """Does the rule act on a file @-mentioned for this task, with no word that makes it standing?"""
    return _MENTION.search(rule) is not None and _STANDING_WORD.search(rule) is None


def only_points(rule: str) -> bool:
    """"Do that", "always do it like this", "keep doing that": the rule is only pointing words, so
    it means what was said before it ("Always." alone is no pointer: a standing word)."""
    words = [w.lower() for w in _WORD.findall(rule)]
    return bool(words) and all(w in _POINTING for w in words) and any(w in _POINTER_CORE for w in words)


# "Add a rule that …", "make this a global rule: …", "save this as a rule: …", "add to your
# instructions that …", "update the rule so you always …": a request to keep what follows.
_SAVE_RULE = lazy(
    r"^(?:(?:please|pls|plz|ok|okay|also|and|so|yo|hey|hi|can you|could you|would you|i want you to|you should|then"
    r"|let'?s|let us)[,\s]+)*"
    r"(?:(?:add|create|make|write|save|put|set|store|record|keep)(?: up)?(?: (?:this|that|it|a|an|the|one|new|another|as|into))*"
    r"(?: (?:global|general|permanent|project|new|standing|custom|team|repo|repository|user|workspace"
    # whose rule it is: the agent's ("create a cursor rule that says …"), not a linter's
    r"|cursor|claude|copilot|agent|ai|windsurf|cline|mdc))*"
    r" (?:rule|instruction|guideline|preference|memory|convention|policy)s?"
    # "a new rule file for error handling that says …", "a rule about using the domain layer"
    r"(?: file)?(?: (?:for|about|on) (?!(?:the|a|an|this|that|my|your|our|its)\b(?: \w+)? (?:config|linter|firewall|eslint))"
    r"(?P<about>[^,:]{1,50}?)(?= that| which| saying| stating|:|$))?"
    # where it goes: the assistant's rules, instructions or memory (not "the eslint config")
    r"(?: (?:to|in|into|for) (?:your|the|my|our|this|that)(?: same)? (?:[\w./-]+ ){0,2}?(?:rules?|instructions|memory|memories"
    r"|guidelines|preferences|mdc|\.?cursorrules|(?:rules? |instructions? |mdc |md )?(?:file|folder)|copilot-instructions(?:\.md)?))?"
    r"|(?:add|save|put|write|store|record|note|capture|codify|document) (?:this |that |it )?(?:to|in|into) (?:(?:your|the|my|our) )?(?:\w+ )?"
    r"(?:[\w.-]+/)?(?:rules|instructions|memory|memories|guidelines|preferences|copilot-instructions(?:\.md)?|\.?cursorrules"
    r"|claude\.md|agents\.md)"
    r"|(?:save|keep|store|remember|codify|capture|record|document|note) (?:this|that|it) as (?:a |an |the )?(?:\w+ )?(?:rule|instruction|guideline|preference|convention)"
    # "make sure this is captured in the rules: …", "this should be documented as a rule: …"
    r"|(?:make sure |ensure )?(?:this|that|it) (?:is|gets|should be|must be|needs to be) (?:captured|recorded|documented|noted|saved|added|written down)"
    r" (?:in|to|into|as) (?:(?:your|the|my|our|a|an) )?(?:\w+ )?(?:rules?|instructions|guidelines|memory|conventions?)"
    r"|(?:update|change|edit|modify|amend|rewrite|fix) (?:the|this|that|your|my|our) (?:[\w.-]+ )?"
    r"(?:rule|instruction|guideline|preference|convention)s?(?: (?:about|on|for) [^,:]{1,40}?)?"
    # "edit my CLAUDE.md to never …", "update the rules file so you always …": the agent's instruction file changed
    r"|(?:tell |please |pls )*(?:edit|update|change|modify|amend|fix|adjust) (?:my|the|our|your) (?:claude|agents|gemini|copilot-instructions"
    r"|\.?cursorrules|cursor rules|rules?|instructions?|system prompt|prompt|memory)(?:\.md)?(?: files?)?(?= (?:to|so)\b)"
    r"|(?:agrega|añade|agregá|crea|guarda) (?:una |esta |la )?regla|(?:adicione|adiciona|crie|cria|salve|salva) (?:uma |essa |esta )?regra"
    r"|(?:ajoute|crée|enregistre) (?:une |cette )?règle|(?:füge|leg|speichere)(?: eine| diese)? regel"
    r"|(?:加|添加|新增|保存)(?:一条|这条)?(?:规则|规定)|ルールに(?:追加|して)"
    # "This should be a rule: …", "that needs to become a global rule"
    r"|(?:this|that|it) (?:should|must|needs to|has to|ought to) (?:be|become) (?:a|an|the|one of (?:your|the|our)) (?:\w+ )?"
    r"(?:rule|convention|guideline|standard)s?)"
    r"(?P<sep>\s*(?:that says|which says|that states|stating|saying|that|so that|so|where|que|dass|:|：|—|–|-|,)(?: that)?\s*"
    r"|\s+(?=to\s+(?!(?:the|a|an|this|that|my|your|our|its)\b)[^\W\d_]{2,}\s)|\s+(?=[\"“«'])|\s*$)"
    r"(?P<rest>.*)$",
    re.I | re.S)


_ABOUT_THE_RULE = lazy(r"^(?:you|we|i|they|it)\s+(?:can|could|may|might|will|would|should)\s+(?:apply|use|follow|see|find|read"
                       r"|understand|do|check|remember|keep|reuse|enforce)\b(?:\W*$|\s*,)", re.I)


def save_rule(sentence: str) -> str | None:
    """The rule a request to save or change a rule states ("" when it states none: "make this a
    global rule" points at what came before), or None when the sentence is no such request."""
    # "@rules/ add to cursor rules …": a mention of a file or folder first
    match = _SAVE_RULE.match(re.sub(r"^(?:@\S+\s+)+", "", sentence.strip()).rstrip(".!。！ "))
    if match is None:
        return None
    rest = match.group("rest").strip(" .!:;,")
    if not rest and match.group("about") and re.match(r"(?:using|not|never|always|avoiding|keeping|preferring)\b", match.group("about"), re.I):
        rest = match.group("about").strip()  # "add a rule about using the domain layer for all db access": what it is about
    quoted = re.fullmatch(r"[\"“«'](.+?)\s*[\"”»']", rest, re.S)
    rest = quoted.group(1).strip(" .!:;,") if quoted else rest  # the rule given in quotes, whole
    rest = re.sub(r"^to\s+(?:(?:say|reflect|state|mention)(?:\s+that|\s*:)\s+)?", "", rest, flags=re.I)  # "add a rule to always run …", "… to say that …"
    rest = re.sub(r"^it\s+(?:says|states|reads)\s+(?:that\s+|to\s+(?=\w))?", "", rest, flags=re.I)  # "… so that it says to use bun:test"
    if re.match(r"(?:not|rather than|instead of)\b", rest, re.I):
        return ""  # "This should be a rule, not a suggestion": what came before is the rule
    if _ABOUT_THE_RULE.match(rest):
        return None  # "add a rule that you can apply": the clause says what the rule is like, not what it says
    rest = re.sub(r"^you\s+(?=(?:always|never|don'?t|do not)\b)", "", rest, flags=re.I)
    rest = re.sub(r"^you\s+(?:should|must)\s+", "", rest, flags=re.I)
    return rest[:1].upper() + rest[1:] if rest else ""


# The standing word at the end of the sentence: "use tabs not spaces, always", "dont add comments
# like that ever again", "no uses print nunca más", "keep the imports sorted from now on thx".
COURTESY_TAIL = (r"(?:[\s,.!]*(?:pls|please|plz|thx|thanks|thank you|ty|ok|okay|por favor|porfa|gracias|bitte|danke"
                  r"|merci|stp|svp|obrigad[oa]|valeu|谢谢|拜托))*[\s.!。！]*$")
_STANDING_TAIL = lazy(
    r"^(?P<rule>.{4,}?)[\s,;—–\-，、。]+(?P<word>always|ever again|from now on|(?<!days )(?<!weeks )(?<!months )(?<!years )(?<!hours )(?<!minutes )(?<!day )(?<!week )(?<!month )(?<!year )from now|going forward|moving forward|in (?:the )?future"
    r"|every time|each time|immer|nie wieder|niemals|ab jetzt|in zukunft|siempre|nunca más|nunca mais"
    r"|de ahora en adelante|a partir de ahora|de ahora en más|daqui (?:pra|para) frente|a partir de agora|de agora em diante"
    r"|toujours|plus jamais|désormais|à l'avenir|sempre|para sempre"
    r"|(?:以后|今后|往后)(?:都|也)(?:是|这样|要这样)?|每次都(?:这样|是)?|毎回|いつも|今後(?:も|ずっと)?|これからも(?:ずっと)?)"
    r"(?:\s+(?:as well|too|also))?"  # "please use this approach in the future as well"
    + COURTESY_TAIL, re.I | re.S)


# "这个命令用nohup放后台跑吧（以后都是）", "run it with nohup (always)": the standing word in brackets at the end.
_BRACKETED_TAIL = lazy(
    r"^(?P<rule>.{4,}?)[\s,，]*[（(]\s*(?P<word>(?:and |also |that )?(?:always|from now on|going forward|every time|for the future"
    r"|(?:以后|今后|往后)(?:都|也)(?:是|这样|要)?|以后都|今後も(?:ずっと)?|これからも|siempre|de ahora en adelante|sempre|daqui pra frente"
    r"|toujours|désormais|immer|ab jetzt|künftig)(?: too| as well| please| pls)?)\s*[)）][\s.!。！]*$", re.I | re.S)


def standing_tail(sentence: str) -> tuple[str, str] | None:
    """(the sentence's rule, its standing word) when the standing word closes the sentence."""
    bracketed = _BRACKETED_TAIL.match(sentence.strip())
    if bracketed is not None:
        return bracketed.group("rule").strip(" ,;—–-，吧"), bracketed.group("word")
    match = _STANDING_TAIL.match(sentence.strip())
    if match is None:
        return None
    return match.group("rule").strip(" ,;—–-"), match.group("word")
