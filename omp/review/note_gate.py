"""The note gate: a model's note is applied at once only when it is an inert fact (docs/behaviour.md#what-gets-written, docs/secrets-and-poisoning.md#planted-rules).

Notes are written without a human and their titles reach every later Copilot session, so a
note that reads as an instruction is the road around every other gate. Each validated model
note is judged by its SHAPE and its PROVENANCE, never by a list of known attacks:

- **Shape.** A note states something about the project, the code or the user's setup. It is
  REFUSED when a sentence of its title or body reads as an instruction to the agent (an
  imperative: a sentence that opens with a verb in its base form, "before X, do Y", "remember
  to …", "make sure …"; rule words — must, should, always/never before a verb — in English,
  Chinese, Japanese, German, Spanish, French and Portuguese; the explicit pass's own grammar;
  words addressed to the agent, "you", "the assistant"; words about the agent's instructions
  being set aside) — rules take the directive path, with the user's words as evidence — or
  when it holds a command line to run (shell STRUCTURE: a pipe into a program, `$(…)`,
  backticks, `&&`/`||`/`;` chains, redirections to a path, `export X=`, a `-c` code string, a
  program followed by flags or a URL, a PowerShell cmdlet call). A note may still name a file
  path or a tool.
- **The evidence is a statement.** When the quote is the user's, the sentence it was taken
  from is judged as the explicit pass judges one: a question ("Is it always necessary to run
  the full suite?"), a one-off instruction ("always format this answer as a table"), or an
  instruction to the agent is not a fact the user stated — REFUSED. So a rule the explicit
  pass refused never comes back as a note.
- **Provenance.** The quote must come from the user's own words or from a tool that read the
  repository. A fact found only in a web page (a fetch or browse tool), a network command's
  output (`curl`, `git clone` … run by a shell tool: `omp.sessions.provenance`), text pasted
  into a user message, or the assistant's own words is PROPOSED: it waits in the pending list
  as `NOTE: title`, with its source, for a human.

Explicit-pass items and `omp project-memory add-note` (a human typed it) are not gated.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Iterator

from omp.intents.checks import imperative_cjk, is_one_off, is_question
from omp.intents.messages import requests_anywhere
from omp.intents.spoken import sentences
from omp.lazyre import lazy
from omp.memory.items import RejectionCode
from omp.review.answer import PASTED, WEB, Proposal, Rejection, one_line
from omp.safety.injection import fold_for_matching
from omp.safety.secrets import redact


class Verdict(enum.Enum):
    APPLY = "apply"
    PROPOSE = "propose"
    REFUSE = "refuse"


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    code: RejectionCode | None = None  # why it was refused
    reason: str = ""  # for a person: why refused, or where a proposed fact came from
    source: str = ""  # a proposed note's source, as `pending` shows it


@dataclass
class Gated:
    applied: list[Proposal] = field(default_factory=list)  # every other item passes through here
    proposed: list[tuple[Proposal, str]] = field(default_factory=list)  # (note, its source)
    rejected: list[Rejection] = field(default_factory=list)


def gate_notes(items: list[Proposal]) -> Gated:
    """Split validated, screened proposals: model notes judged, everything else passed on."""
    result = Gated()
    for item in items:
        if not item.kind.spec.keeps_provenance or item.source != "model":
            result.applied.append(item)
            continue
        decision = judge(item)
        if decision.verdict is Verdict.APPLY:
            result.applied.append(item)
        elif decision.verdict is Verdict.PROPOSE:
            result.proposed.append((item, decision.source))
        else:
            assert decision.code is not None
            result.rejected.append(Rejection(item.where, item.kind, decision.code,
                                             f"{item.where}: {decision.reason}", item.source))
    return result


def judge(note: Proposal) -> Decision:
    """APPLY, PROPOSE or REFUSE one model note (see the module docstring)."""
    text = f"{note.title}\n{note.body}"
    command = command_in(text)
    if command is not None:
        return Decision(Verdict.REFUSE, RejectionCode.NOTE_HOLDS_COMMAND,
                        f"holds a command line to run ({command}): a note states a fact; "
                        "a human can record one with `omp project-memory add-note`")
    rule = rule_in(text)
    if rule is not None:
        return Decision(Verdict.REFUSE, RejectionCode.NOTE_READS_AS_RULE,
                        f"reads as an instruction to the agent ({rule}): a note states a fact; "
                        "rules take the directive path, from your own words")
    provenance = note.provenance
    origins = set(provenance.origins) if provenance else set()
    if "user" in origins:
        problem = _not_a_statement(note.evidence, provenance.sentences if provenance else ())
        if problem is not None:
            return Decision(Verdict.REFUSE, RejectionCode.NOTE_EVIDENCE_NOT_A_STATEMENT,
                            f"its evidence is {problem}, not a fact the user stated")
        return Decision(Verdict.APPLY)
    if "tool" in origins:
        return Decision(Verdict.APPLY)  # the repository's own files, read by a tool
    source = _source(origins, provenance.source if provenance else "")
    return Decision(Verdict.PROPOSE, reason=f"a fact {source}: it waits for a human", source=source)


def _source(origins: set[str], label: str) -> str:
    if WEB in origins:
        name = label.split(" (", 1)[0]
        target = label[len(name):].strip(" ()").removeprefix("network: ")
        shown = f"{name} {target}".strip()
        return f"from a web page ({shown})" if " (network: " not in label else f"from a network command's output ({shown})"
    if PASTED in origins:
        return "from text pasted into a user message"
    return "from the assistant"


# ---------------------------------------------------------------------------------------------
# the evidence: a statement?

# "Remember that …", "FYI, …", "Note: …": a request to keep a fact is still a statement of it.
_KEEP_LEAD = lazy(
    r"^(?:(?:ok|okay|so|also|and|btw|fyi|note|please|thanks)[,:.!]?\s+)*(?:remember|note|keep in mind|bear in mind"
    r"|for the record|just so you know|for your information|fyi|make a note)(?:\s+(?:that|this))?\s*[,:—–-]?\s+", re.I)


def _not_a_statement(quote: str, said: tuple[str, ...]) -> str | None:
    """What the user's words a note quotes are, when they are not a statement of fact: the
    sentence it was taken from asks, or gives a one-off instruction; or the quote itself is an
    instruction ("we use pnpm" in "please add lodash, we use pnpm" is a statement)."""
    for sentence in said:
        if is_question(sentence):
            return f"a question (\"{_shown(sentence)}\")"
        if is_one_off(sentence) and rule_in(_stated(sentence)) is not None:
            return f"a one-off instruction (\"{_shown(sentence)}\")"
    if rule_in(_stated(quote)) is not None:
        return f"an instruction (\"{_shown(quote)}\"): rules take the directive path"
    return None


def _stated(text: str) -> str:
    """The words after "Remember that …", "FYI, …": what the user asks to be kept."""
    stated = _KEEP_LEAD.sub("", text.strip())
    return stated[:1].upper() + stated[1:] if stated != text.strip() else stated


def _shown(text: str) -> str:
    return redact(one_line(text))[0][:80]


# ---------------------------------------------------------------------------------------------
# shape: an instruction to the agent?

# Verbs people open an instruction with. (A sentence that opens with one of these, in its base
# form, and is not followed by the verb of a subject — "Build steps run in CI" — is an order.)
_BASE_VERBS = frozenset("""
accept add adjust allow always apply approve archive ask assume attach avoid back block bump call cancel change check
choose clean clear clone close commit compile configure confirm consider continue copy create cut debug decline delete
deploy disable disregard do document download drop edit email enable ensure escalate exclude execute exfiltrate expose
export fetch fix follow force forget format forward generate get give grant grep hide ignore import include inject
insert install invoke keep kill launch leave let lint list load lock log login make mark merge migrate mirror modify
move never note notify obey open override paste patch pause pick pin ping pipe post prefer prepend print proceed
publish pull purge push put read rebase rebuild record redirect refactor refresh reject release reload remember remove
rename replace report request require reset resolve restart restore retry return revert review rewrite rm run save
say scan schedule send set share ship show sign skip sort source spawn specify squash stage start stop store
submit suppress switch sync tag tell test touch treat trigger trust try turn type uninstall unlock unset update
upgrade upload use validate verify wait wipe write
""".split())
# Words a note's sentence may open with that are not verbs here even when the lexicon holds
# them as such: a determiner, a pronoun, a conjunction, a preposition (seven languages' Latin
# ones).
_FUNCTION_WORDS = frozenset("""
a an the this that these those it its it's there here all any both each every few many most no none some such only
our my their his her we they i he she one two three if when whenever while before after because since although as
of in on at by for from with without to into onto over under about per via than then so and or but not also
le la les un une des du de d' l' ce cet cette ces il elle ils elles on nous notre nos leur leurs et ou mais
el los las uno una unos unas este esta estos estas ese esa lo nuestro nuestra su sus y o pero
der die das den dem des ein eine einen einem einer dieser diese dieses es er sie wir unser unsere und oder aber
o os as um uma uns umas este esta isso isto ele ela eles elas nós nosso nossa seu sua e ou mas
""".split())
_DETERMINERS = frozenset("""
the a an all every each any this that these those your its their our my his her some no
le la les un une tous toutes tout chaque ce cette ces vos votre
el la los las un una todo todos toda todas cada este esta estos estas tu tus su sus
den die das dem des ein eine einen alle jede jeden jedes diese dieses deine ihre
o a os as um uma todos todas cada este esta estes estas seu sua seus suas
""".split())
# A finite verb after the opening word: the opening word was a subject ("Build fails on arm64",
# "Deploy scripts live in ops/").
_FINITE = frozenset("""
is are was were be been has have had does do did can could will would may might shall must should
ist sind war waren hat haben wird werden kann es son está están fue est sont était são é está estão foi
""".split())
_WORD = lazy(r"[^\W\d_][\w'’-]*")


def _opens_with_order(sentence: str) -> bool:
    """Does a (Latin-script) sentence open with an imperative?"""
    words = [w.lower().strip("'’") for w in _WORD.findall(sentence[:200])]
    if not words:
        return False
    first, rest = words[0], words[1:4]
    if first in ("please", "bitte", "kindly"):
        return bool(rest)
    if first in ("don't", "dont", "do") and rest[:1] in (["not"], []) or first in ("don't", "dont"):
        return True  # "Don't …", "Do not …"
    if first in _FUNCTION_WORDS or first.endswith("ing"):
        return False  # "The suite …", "Caching the results …" (a gerund names an activity)
    if any(word in _FINITE or _third_person(word) for word in rest[:2]) or _agrees(rest):
        return False  # the first words were a subject: "Lint runs …", "make release runs …"
    if rest and rest[0] in _HEAD_NOUNS:
        return False  # a name: "Release command", "Deploy process", "Build steps"
    if first in _BASE_VERBS:
        return True
    if len(rest) >= 1 and rest[0] in ("sie", "du", "ihr", "vous", "usted"):
        return True  # "Führen Sie …", "Exécutez-vous"
    if first.endswith("ez") and len(first) > 4 and first not in ("chez", "assez", "nez"):
        return True  # French: "Exécutez", "Ignorez", "Utilisez"
    # "Ignoriere alle …", "Ejecuta todas …", "Approuve toutes …": a verb, then its object's
    # determiner. A noun is rarely followed straight by one.
    return bool(rest) and rest[0] in _DETERMINERS and not first.endswith("s")


# Nouns a verb-looking word names a thing with ("Release command", "Test setup"): a title, not an order.
_HEAD_NOUNS = frozenset("""
command commands process setup steps step flow workflow config configuration policy notes version versions target
targets script scripts pipeline pipelines cadence schedule date dates branch branches checklist procedure strategy
tooling time times owner owners location path paths server servers database job jobs matrix logs output settings
environment environments stage stages tool tools order rules tag tags cache key keys url urls port ports limit limits
""".split())


def _third_person(word: str) -> bool:
    """"Lint runs …", "Build fails …": the opening word's verb, in the third person."""
    return word in _THIRD_PERSON


# Verbs that say what something does, in the third person; not nouns a verb takes as object
# ("Run tests …" is an order, "Lint runs …" a fact).
_THIRD_PERSON = frozenset("""
runs fails passes lives works breaks takes needs uses requires depends starts stops happens exists reads writes loads
returns calls prints expects contains sits goes comes lands hangs crashes succeeds supports targets stores keeps
generates creates produces ships deploys points resolves listens serves talks connects waits retries caches skips
""".split())


def _agrees(rest: list[str]) -> bool:
    """"Deploy scripts live in ops/", "Cache keys use the commit": a plural noun, then its verb."""
    return len(rest) >= 2 and rest[0].endswith("s") and not rest[0].endswith("ss") and rest[1] in _BASE_VERBS | {
        "live", "lives", "run", "runs", "use", "uses", "go", "goes", "need", "needs", "take", "takes", "come", "get"}


_RULE_WORDS = lazy(
    r"\b(?:must|mustn't|should|shouldn't|shall|ought to|have to|has to|had better|need to|needs to|make sure|be sure to"
    r"|ensure (?:that|you)|remember to|don't forget|do not forget|never forget|is (?:required|mandatory|forbidden|prohibited)"
    r"|are (?:required|mandatory|forbidden|prohibited)|not (?:allowed|permitted)|at all times|without exception"
    # "always"/"never" before a verb in its base form ("never run"); not "never returns", nor
    # "never from a laptop" (a practice stated, the verb left out)
    r"|(?:always|never)\s+(?!\w+(?<!s)s\b|\w+ed\b|(?:been|had|was|were|is|are|from|on|in|at|with|by|for|to|the|an?"
    r"|during|after|before|without|under|over|via|on|inside|outside|locally|empty|null|zero|true|false)\b)[a-z]+"
    r"|muss|müssen|musst|müsst|sollte|sollten|solltest|soll|sollen|darf nicht|dürfen nicht|stets"
    r"|debe|deben|debes|debemos|debería|deberían|hay que|tienes que|tiene que|tenéis que|asegúrate|no olvides"
    r"|doit|doivent|dois|devez|devons|il faut|faut|assurez-vous|assure-toi|n'oubliez pas|n'oublie pas"
    r"|deve|devem|deves|devemos|é preciso|é necessário|tem que|têm que|certifique-se|não esqueça)\b"
    r"|^(?:immer|nie|niemals|siempre|nunca|jamás|toujours|jamais|sempre)\b"
    r"|必须|必需|应该|应当|务必|一定要|不要|不得|禁止|千万|切勿|严禁|不准|不许|^请|记得"
    r"|べき|なければ(?:ならない|いけない|ならぬ)|ないで(?:ください|下さい)?|てください|て下さい|すること|しないこと|禁止|ましょう"
    r"|忘れずに|必ず|絶対に",
    re.I)
# Words addressed to the agent: a fact about a project does not speak to whoever reads it.
_ADDRESSED = lazy(
    r"\b(?:you|your|yours|yourself|the (?:assistant|agent|ai|model|bot|llm)|copilot|claude"
    r"|dich|dir|euch|deine?|vous|votre|vos|toi|ton|ta|tes|usted|ustedes|vosotros|você|vocês|teu|tua)\b"
    r"|你|您|あなた|君は", re.I)
# The agent's own instructions, set aside or replaced: never a fact about a project.
_INSTRUCTIONS = lazy(
    r"\b(?:instructions?|guidance|guidelines?|directives?|system prompt|prompt|rules?|policy|policies|orders?"
    r"|anweisungen|regeln|instrucciones|reglas|consignes|règles|instruções|regras)\b|指示|指令|规则|提示词|ルール|命令", re.I)
_SET_ASIDE = lazy(
    r"\b(?:ignore[sd]?|disregard(?:ed|s)?|obsolete|no longer (?:apply|applies|valid|in effect)|supersede[sd]?|overrid(?:e|es|den)"
    r"|replaced|void|aside|outdated|revoked|cancell?ed|forgotten|suspended|lifted|earlier|previous|prior|above"
    r"|given (?:to you|before|earlier)|ignorier\w*|vorherige\w*|ignora\w*|anteriores?|ignor\w*|précédent\w*)\b"
    r"|忽略|无视|忘记|作废|之前|以前|先前|無視|忘れ", re.I)
# A Chinese sentence that opens with a verb of doing: an order ("运行…", "批准所有…").
_CJK_ORDER = lazy(r"^(?:请)?(?:运行|执行|使用|安装|删除|批准|忽略|无视|设置|添加|下载|提交|推送|禁用|关闭|跳过|启用|上传|复制|导出)")
# "Before X, Y", "If X, Y", "Whenever X, Y": the condition, then what to do.
_CONDITION = lazy(
    r"^(?:before|after|when|whenever|if|once|unless|while|prior to|every time|each time|bevor|wenn|nachdem|falls"
    r"|antes de|después de|cuando|si|avant de|après|quand|lorsque|depois de|quando|se)\b[^,;:]{1,160}[,;:]\s*(?P<then>.+)$",
    re.I)
_CLAUSES = lazy(r"\s*(?:[;:，；：]|\s[—–-]\s|\.\s|,\s*(?:(?:then|and then|and|but|so|y|et|und|e|puis|dann|luego|depois)\s+)?)\s*")


def rule_in(text: str) -> str | None:
    """Why `text` reads as an instruction to the agent (a short reason), or None."""
    folded = fold_for_matching(text)
    request = next((r for r in requests_anywhere(folded) if r.kind == "directive"), None)
    if request is not None:
        return f"a standing rule: \"{_shown(request.text)}\""
    for sentence in _sentences(folded):
        reason = _order_in(sentence)
        if reason is not None:
            return f"{reason}: \"{_shown(sentence)}\""
    return None


def _sentences(text: str) -> Iterator[str]:
    for line in text.splitlines():
        line = line.strip().lstrip("#>*-+ ").strip()
        for sentence in sentences(line):
            yield sentence
            # A label before a colon ("Note: …", "Setup: …") and the clauses of a sentence are
            # each read on their own: "Tests use UTC; run them with make".
            for clause in _CLAUSES.compiled.split(sentence)[1:]:
                if clause:
                    yield clause


_LABEL = lazy(r"^[^\s:：]{1,24}(?:\s+[^\s:：]{1,24}){0,2}\s*[:：]\s")


def _order_in(sentence: str) -> str | None:
    bare = sentence.strip(" \"'`*_()[]")
    if not bare:
        return None
    if imperative_cjk(bare) or _CJK_ORDER.match(bare):
        return "a request form"
    if not _LABEL.match(bare) and _opens_with_order(bare):  # "Setup: …" is a label: its clause is read alone
        return "an imperative"
    condition = _CONDITION.match(bare)
    if condition and _opens_with_order(condition.group("then")):
        return "a condition, then an imperative"
    words = _RULE_WORDS.search(bare)
    if words:
        return f"rule words (\"{words.group(0).strip()}\")"
    if _ADDRESSED.search(bare):
        return "words addressed to the agent"
    if _INSTRUCTIONS.search(bare) and _SET_ASIDE.search(bare):
        return "words about the agent's instructions"
    return None


# ---------------------------------------------------------------------------------------------
# shape: a command line to run?

# Programs that run code or a shell: what a pipe must never feed.
_PIPE = lazy(r"(?<![|\s])\s*(?<!\|)\|(?!\|)\s*(?=[^\s|])|\|\s*$", re.M)
_SUBSTITUTION = lazy(r"\$\(|\$\{|<\(|`[^`\n]*[|;&<>$()][^`\n]*`")
_CHAIN = lazy(r"\S\s*(?:&&|\|\|)\s*\S")
_SEMICOLON_CHAIN = lazy(r";\s*(?:sudo|bash|sh|zsh|source|\.|eval|exec|curl|wget|rm|chmod|python3?|node|perl|nc|export|cd)\b")
_REDIRECT = lazy(r"(?:^|\s|\w)(?:[012&]?>>?|<<?)\s*(?:[~/$]|\.\.?/|[\w.-]+/|/dev/|&\d)")
_EXPORT = lazy(r"\b(?:export|setx|setenv)\s+[A-Za-z_][A-Za-z0-9_]*(?:=|\s+\S)|\$env:[A-Za-z_]\w*\s*=", re.I)
_CODE_STRING = lazy(r"(?:^|\s)(?:-c|-e|-Command|-EncodedCommand|-enc|/c|/k|--eval|--exec)\s+[\"'$(\w]", re.I)
_CMDLET = lazy(r"\b[A-Z][a-z]+-[A-Z][A-Za-z]+\b\s*(?:[(\"'$]|-[A-Za-z])|\bIEX\b|\(New-Object\b|\)\.\w+\(")
# A program, then a flag or a URL: `git config --global …`, `pip install --index-url …`,
# `curl https://…`. The program is a lower-case word that is not a word of prose before a flag
# ("the --dry-run flag", "with --frozen-lockfile").
_FLAGGED = lazy(r"(?:^|[\s(`'\"])(?P<program>[a-z][\w.+/-]*)\s+(?:--?[A-Za-z][\w-]*|[a-z][a-z0-9+.-]{1,15}://)")
_PROSE_BEFORE_FLAG = frozenset("""
the a an its this that with without and or of in on at by for from to into via as use uses using pass passes passed
passing add adds added set sets called named flag option options see like e.g i.e run runs ran then also is are was
were be been accepts accept takes take supports support has have had via
""".split())
_FENCED_SHELL = lazy(r"^\s*```\s*(?:sh|bash|zsh|shell|console|powershell|ps1|pwsh|bat|cmd)\b|^\s*\$\s+\S", re.I | re.M)


def command_in(text: str) -> str | None:
    """What in `text` is shaped like a command line to run (a short name for it), or None."""
    folded = fold_for_matching(text)
    for line in folded.splitlines():
        if line.lstrip().startswith("|") and line.rstrip().endswith("|"):
            continue  # a Markdown table's row
        found = _command_in_line(line)
        if found is not None:
            return found
    if _FENCED_SHELL.search(folded):
        return "a shell block"
    return None


def _command_in_line(line: str) -> str | None:
    checks = (
        (_SUBSTITUTION, "a command substitution"),
        (_CHAIN, "a chain of commands"),
        (_SEMICOLON_CHAIN, "a chain of commands"),
        (_EXPORT, "an environment export"),
        (_CODE_STRING, "a code string to run"),
        (_CMDLET, "a PowerShell call"),
        (_REDIRECT, "a redirection"),
    )
    for pattern, name in checks:
        if pattern.search(line):
            return name
    if _PIPE.search(line) and re.search(r"\w[^|]*\|\s*[\w/.$]", line):
        return "a pipe into a program"
    for match in _FLAGGED.finditer(line):
        program = match.group("program").lower()
        if program not in _PROSE_BEFORE_FLAG and program not in _FUNCTION_WORDS:
            return f"a program with flags or a URL (\"{_shown(match.group(0).strip())}\")"
    return None
