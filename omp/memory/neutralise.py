"""Making proposed text safe to store and to inject (docs/secrets-and-poisoning.md#planted-rules).

Two different jobs:

- *neutralising* rewrites text so it cannot change the structure of the files it lands in:
  a directive or a title becomes one line; Markdown list and checkbox syntax at the start of a
  line (or where a line break was) is dropped, so a proposal can never forge an item of the
  pending checklist; HTML comment delimiters are removed, so no text can open, close or fake
  the managed block; invisible and bidirectional control characters are removed. This is pure
  standard library: the managed block re-applies it whenever it renders.
- *unhiding* (`strip_hidden_markdown`) keeps of a note's Markdown what a reader of the rendered
  text sees, so nothing reaches an agent that the person reading the note cannot see: HTML
  comments (an unterminated one hides the rest), link titles, reference definitions, images,
  raw HTML tags (their text stays) and elements whose content does not show (`<details>` shows
  its summary only; `hidden`, `style`, `class`: presentation omp cannot see may hide), empty
  links and entities of invisible characters. Code spans and fenced code show as typed: kept.
- *checking* refuses text that carries a secret or an instruction-injection pattern. It uses
  `omp.safety.secrets` and `omp.safety.injection` (detect-secrets underneath), imported only when a check runs.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from omp.lazyre import lazy
from omp.safety.injection import injection_reasons

# Line separators Python's splitlines() knows, so no exotic separator survives as a line break.
_LINE_BREAK_RE = lazy(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
# `- [ ] x`, `* x`, `+ x`, `1. x`, `2) x`, `[x] x` at the start of a line.
_LIST_PREFIX_RE = lazy(r"^\s*(?:(?:[-*+]|\d{1,9}[.)])(?=\s|\[|$)\s*)?(?:\[[ xX]?\]\s*)?")
_COMMENT_RE = lazy(r"<!--|-->|--!>")
_FORGET_PREFIX_RE = lazy(r"^\s*forget\s*:\s*", re.IGNORECASE)
_SPACES_RE = lazy(r"[ \t]+")
_END_PUNCT = ".;:!?,"


def _drop_invisible(text: str) -> str:
    """Remove format (Cf: zero-width, bidi overrides) and control characters but tab/newline."""
    if text.isprintable():  # the common case, checked in C: nothing to remove
        return text
    return "".join(
        ch
        for ch in text
        if ch in "\t\n" or unicodedata.category(ch) not in ("Cf", "Cc", "Co", "Cs")
    )


def _drop_comment_delimiters(text: str) -> str:
    # Repeat: removing one delimiter can join the halves of another ("<!<!---->--").
    previous = None
    while previous != text:
        previous = text
        text = _COMMENT_RE.sub("", text)
    return text


def _strip_list_prefix(line: str) -> str:
    # Repeat so "- - [ ] x" or "1. - [x] x" cannot leave a second marker behind.
    previous = None
    while previous != line:
        previous = line
        line = _LIST_PREFIX_RE.sub("", line, count=1)
    return line


def neutralise_line(text: str) -> str:
    """One safe line: list/checkbox syntax and comment delimiters gone, breaks collapsed.

    Lines are joined with "; " (or a space after end punctuation) so "Rule A\\n- [ ] Rule B"
    stays one readable item instead of becoming two.
    """
    text = unicodedata.normalize("NFC", _LINE_BREAK_RE.sub("\n", text))
    text = _drop_comment_delimiters(_drop_invisible(text))
    joined = ""
    for raw in text.split("\n"):
        line = _SPACES_RE.sub(" ", _strip_list_prefix(raw)).strip()
        if not line:
            continue
        if joined:
            joined += " " if joined[-1] in _END_PUNCT else "; "
        joined += line
    return _drop_comment_delimiters(joined).strip()


def neutralise_directive(text: str) -> str:
    """A directive line; a leading "FORGET:" is reworded so it cannot pose as a removal proposal."""
    line = neutralise_line(text)
    if _FORGET_PREFIX_RE.match(line):
        line = _FORGET_PREFIX_RE.sub("Forget ", line, count=1).strip()
    return line


def neutralise_body(text: str) -> str:
    """Multi-line Markdown (note and draft bodies): keep lines, remove what could fake markers
    and what the rendered text would hide (`strip_hidden_markdown`)."""
    text = strip_hidden_markdown(_LINE_BREAK_RE.sub("\n", text))
    text = _drop_comment_delimiters(_drop_invisible(text))
    lines = [line.rstrip() for line in text.split("\n")]
    return "\n".join(lines).strip("\n")


def neutralise_title(text: str) -> str:
    """A note's title: one safe line, of what the rendered Markdown shows."""
    return neutralise_line(strip_hidden_markdown(_LINE_BREAK_RE.sub("\n", text)))


# ---------------------------------------------------------------------------------------------
# Hidden Markdown (docs/behaviour.md#what-gets-written, docs/secrets-and-poisoning.md#planted-rules). An agent reads a note's Markdown as typed; a person reads it
# rendered. What only the first sees is removed, so a note says the same to both. The scan reads
# left to right as CommonMark does (a code span and a comment compete: the first to start wins);
# where it cannot tell, it removes (the safe side: a few visible words lost, never hidden ones kept).

# Quick test for anything to look at: without these characters the text is plain.
_MAYBE_HIDDEN_RE = lazy(r"[<\[&`~]|-->")
_FENCE_RE = lazy(r"^ {0,3}(`{3,}(?=[^`]*$)|~{3,})")
# `[label]: destination "title"` on a line of its own (the title may take the next line).
_REFERENCE_DEF_RE = lazy(
    r"^ {0,3}\[(?:[^\[\]\\]|\\.){1,999}\]:[ \t]*\n?[ \t]*(?:<[^<>\n]*>|\S+)"
    r"(?:(?:[ \t]+|[ \t]*\n[ \t]*)(?:\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\)))?[ \t]*$\n?",
    re.MULTILINE,
)
# What may start a construct the scan has to look at.
_TOKEN_RE = lazy(r"`+|<!--|-->|<!\[CDATA\[|<[?!]|</?[A-Za-z]|!\[|\[|&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_OPEN_TAG_RE = lazy(
    r"<([A-Za-z][A-Za-z0-9-]*)((?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s\"'=<>`]+|'[^']*'|\"[^\"]*\"))?)*)\s*(/?)>"
)
_CLOSE_TAG_RE = lazy(r"</([A-Za-z][A-Za-z0-9-]*)\s*>")
_ATTRIBUTE_NAME_RE = lazy(r"\s+([A-Za-z_:][\w.:-]*)")
# `(destination "title")` after a link's or image's `[text]`.
_LINK_TAIL_RE = lazy(
    r"\([ \t]*\n?[ \t]*(<[^<>\n]*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*)"
    r"(?:(?:[ \t]+|[ \t]*\n[ \t]*)(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\)))?[ \t]*\n?[ \t]*\)"
)
_LINK_REFERENCE_RE = lazy(r"\[(?:[^\[\]\\]|\\.){0,999}\]")
_BLANK_LINE_RE = lazy(r"\n[ \t]*\n")
_BLANK_LINES_RE = lazy(r"\n(?:[ \t]*\n){2,}")

# HTML's element names (the standard's list, not a list of attacks): a tag-like word that is not
# one, without attributes (`List<String>`), is text. Elements whose content never shows on a
# page are removed with it; `<details>` shows only its `<summary>`.
_HTML_ELEMENTS = frozenset("""
a abbr acronym address area article aside audio b base basefont bdi bdo big blink blockquote body br
button canvas caption center cite code col colgroup data datalist dd del details dfn dialog dir div dl
dt em embed fieldset figcaption figure font footer form frame frameset h1 h2 h3 h4 h5 h6 head header
hgroup hr html i iframe img input ins kbd label legend li link main map mark marquee math menu meta
meter nav nobr noembed noframes noscript object ol optgroup option output p param picture plaintext
pre progress q rp rt ruby s samp script search section select slot small source span strike strong
style sub summary sup svg table tbody td template textarea tfoot th thead time title tr track tt u ul
var video wbr xmp
""".split())
_CONTENT_NEVER_SHOWN = frozenset("""
audio canvas datalist dialog embed frame frameset head iframe map math noembed noframes noscript
object script select style svg template textarea title video
""".split())
# Attributes that decide how (or whether) an element shows: omp cannot see the page, so an
# element that carries one is treated as hidden.
_PRESENTATION_ATTRIBUTES = frozenset({"hidden", "style", "class", "aria-hidden", "size", "color", "width", "height"})


def strip_hidden_markdown(text: str) -> str:
    """`text` without what its rendered Markdown would not show (see the module's docstring).

    Fenced code blocks are kept byte for byte; the prose between them is scanned.
    """
    if not _MAYBE_HIDDEN_RE.search(text):
        return text
    return "".join(chunk if fenced else _strip_prose(chunk) for fenced, chunk in _fenced_chunks(text))


def _fenced_chunks(text: str) -> list[tuple[bool, str]]:
    """`text` cut into (is fenced code, lines) runs; an unclosed fence runs to the end."""
    chunks: list[tuple[bool, str]] = []
    prose: list[str] = []
    lines = iter(text.splitlines(keepends=True))
    for line in lines:
        opening = _FENCE_RE.match(line)
        if not opening:
            prose.append(line)
            continue
        if prose:
            chunks.append((False, "".join(prose)))
            prose = []
        fence = opening.group(1)
        code = [line]
        for inner in lines:
            code.append(inner)
            closing = _FENCE_RE.match(inner)
            if closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= len(fence) \
                    and not inner.strip().strip(fence[0]):
                break
        chunks.append((True, "".join(code)))
    if prose:
        chunks.append((False, "".join(prose)))
    return chunks


def _strip_prose(text: str) -> str:
    shown = _unhide(_REFERENCE_DEF_RE.sub("", text))
    # What was removed leaves its blank lines behind: two in a row are as many as Markdown shows.
    return shown if shown == text else _BLANK_LINES_RE.sub("\n\n", shown)


def _unhide(text: str) -> str:
    out: list[str] = []
    pos = 0
    while True:
        found = _TOKEN_RE.search(text, pos)
        if found is None:
            out.append(text[pos:])
            break
        out.append(text[pos : found.start()])
        shown, pos = _construct(text, found.start(), found.group())
        out.append(shown)
    return "".join(out)


def _rest_hidden(text: str) -> tuple[str, int]:
    """An unterminated comment or hidden element hides the rest of `text` (its line break stays)."""
    return ("\n" if text.endswith("\n") else ""), len(text)


def _construct(text: str, start: int, token: str) -> tuple[str, int]:
    """What the construct at `start` shows, and where the scan goes on."""
    if token.startswith("`"):
        return _code_span(text, start, len(token))
    if token == "<!--":
        end = text.find("-->", start + 2)
        return ("", end + 3) if end >= 0 else _rest_hidden(text)
    if token == "-->":
        return "", start + 3
    if token in ("<![CDATA[", "<?", "<!"):
        closer = {"<![CDATA[": "]]>", "<?": "?>", "<!": ">"}[token]
        end = text.find(closer, start + len(token))
        return ("", end + len(closer)) if end >= 0 else _rest_hidden(text)
    if token.startswith("<"):
        return _tag(text, start)
    if token == "![":
        return _image(text, start)
    if token == "[":
        return _link(text, start)
    return _entity(token), start + len(token)


def _code_span(text: str, start: int, ticks: int) -> tuple[str, int]:
    """A code span shows as typed; backticks without their match are plain text."""
    closing = _backticks(ticks).search(text, start + ticks)
    if closing is None or _BLANK_LINE_RE.search(text, start, closing.start()):
        return text[start : start + ticks], start + ticks
    return text[start : closing.end()], closing.end()


@functools.lru_cache(maxsize=16)
def _backticks(count: int) -> re.Pattern[str]:
    """A run of exactly `count` backticks (what closes a code span opened by as many)."""
    return re.compile(rf"(?<!`)`{{{count}}}(?!`)")


def _tag(text: str, start: int) -> tuple[str, int]:
    closing = _CLOSE_TAG_RE.match(text, start)
    if closing:
        known = closing.group(1).lower() in _HTML_ELEMENTS
        return ("", closing.end()) if known else (text[start : closing.end()], closing.end())
    opening = _OPEN_TAG_RE.match(text, start)
    if opening is None:
        return "<", start + 1  # `a <b` or `x < y`: text
    name, attributes, self_closing = opening.group(1).lower(), opening.group(2), opening.group(3)
    if name not in _HTML_ELEMENTS and not attributes.strip():
        return text[start : opening.end()], opening.end()  # `List<String>`: a word, no hidden text
    names = {n.lower() for n in _ATTRIBUTE_NAME_RE.findall(attributes)}
    hides = name in _CONTENT_NEVER_SHOWN or name == "details" or bool(names & _PRESENTATION_ATTRIBUTES)
    if not hides or self_closing:
        return "", opening.end()  # the tag goes, the text it wraps stays
    end, inner = _element_end(text, opening.end(), name)
    if end is None:
        return _rest_hidden(text)
    if name == "details" and not names & _PRESENTATION_ATTRIBUTES:
        summary = re.search(r"<summary\b[^>]*>(.*?)(?:</summary\s*>|$)", inner, re.IGNORECASE | re.DOTALL)
        return (_unhide(summary.group(1)).strip() + " " if summary else ""), end
    return "", end


def _element_end(text: str, pos: int, name: str) -> tuple[int | None, str]:
    """Where the element opened just before `pos` ends (nested ones of its name counted), and
    its content; (None, "") when it is never closed."""
    pattern = re.compile(rf"<(/?){re.escape(name)}(?=[\s/>])[^>]*>", re.IGNORECASE)
    depth = 1
    for found in pattern.finditer(text, pos):
        depth += -1 if found.group(1) else (0 if found.group().endswith("/>") else 1)
        if depth == 0:
            return found.end(), text[pos : found.start()]
    return None, ""


def _bracketed(text: str, start: int) -> int | None:
    """The index after the `]` that closes the `[` at `start` (nesting and escapes counted)."""
    depth = 0
    index = start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "`":  # a code span inside the brackets: its brackets are text
            ticks = len(text[index:]) - len(text[index:].lstrip("`"))
            index = _code_span(text, index, ticks)[1]
            continue
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return index + 1
        elif text.startswith("\n\n", index):
            return None
        index += 1
    return None


def _image(text: str, start: int) -> tuple[str, int]:
    """An image shows a picture, never its alt text or title (and its address can report a read)."""
    after = _bracketed(text, start + 1)
    if after is None:
        return "!", start + 1
    tail = _LINK_TAIL_RE.match(text, after) or _LINK_REFERENCE_RE.match(text, after)
    return "", tail.end() if tail else after


def _link(text: str, start: int) -> tuple[str, int]:
    """A link keeps its text and address; its title (shown on hover only) goes, and so does a
    link with no visible text at all."""
    after = _bracketed(text, start)
    tail = _LINK_TAIL_RE.match(text, after) if after is not None else None
    if after is None or tail is None:
        return "[", start + 1  # not a link (or a reference one, whose definition is gone): text
    label = _unhide(text[start + 1 : after - 1])
    if not _drop_invisible(label).strip():
        return "", tail.end()
    return f"[{label}]({tail.group(1)})", tail.end()


def _entity(token: str) -> str:
    """A character reference shows its character: one that shows nothing goes."""
    import html  # only when an entity is met

    shown = html.unescape(token)
    return token if shown == token or _drop_invisible(shown).strip(" ") else ""


def stored_forms(text: str) -> list[str]:
    """`text` as given and as each store would write it.

    Checks run on every form: neutralising removes `<!---->`, control and invisible characters,
    and removing them can join the halves of a token ("ghp_abc<!---->def…" is stored as a whole
    `ghp_` token) or of an injection phrase.
    """
    forms = [text]
    for form in (neutralise_line(text), neutralise_body(text), neutralise_title(text)):
        if form not in forms:
            forms.append(form)
    return forms


def secret_reason(*texts: str | None) -> str | None:
    """Why the texts may not be stored because of a secret, or None. Never echoes the secret."""
    # Not at the top: the managed block is rendered with this module, on the sessionStart hook's
    # path too, and the secret rules cost 19 ms to import; only storing an item needs them.
    from omp.safety.secrets import find_secrets

    kinds: list[str] = []
    for text in texts:
        if text:
            for form in stored_forms(text):
                kinds.extend(finding.kind for finding in find_secrets(form))
    if not kinds:
        return None
    return "contains a secret (" + ", ".join(sorted(set(kinds))) + ")"


def injection_reason(*texts: str | None) -> str | None:
    """Why the texts look like an instruction-injection attempt, or None."""
    reasons: list[str] = []
    for text in texts:
        if text:
            for form in stored_forms(text):
                reasons.extend(r for r in injection_reasons(form) if r not in reasons)
    if not reasons:
        return None
    return "looks like instruction injection (" + "; ".join(reasons) + ")"


def rejection_reason(*texts: str | None, check_injection: bool = True) -> str | None:
    """The first reason to refuse these texts (secret first, then injection), or None."""
    return secret_reason(*texts) or (injection_reason(*texts) if check_injection else None)
