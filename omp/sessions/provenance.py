"""Where a tool's output came from: the repository, or the network (docs/behaviour.md#what-gets-written, docs/secrets-and-poisoning.md#planted-rules).

A note is applied without a human only when its evidence comes from the user's words or from
the repository's own files read by a tool. A web page (a fetch or browse tool) or a network
command's output (`curl`, `git clone`, `pip download` … run by a shell tool) is somebody else's
text: a fact found there waits for a human.

The session reader labels such a tool's output when it reads the tool request (`tool_label`):
`web_fetch (https://…)`, `bash (network: curl -fsSL https://…)`. The label is the excerpt's
header (`(tool output: LABEL; N chars)`), which the reviewer reads too, and which the evidence
check reads back (`is_remote_label`). The decision is made from the tool's name and the
command's structure (the program each piece of a pipeline runs, a URL it names), never from
the output's text, which the page controls.
"""

from __future__ import annotations

import re
from typing import Any

# Words in a tool's name that say it reads the web (Copilot's `web_fetch`, `web_search`, an MCP
# server's `fetch_url`, `browser_navigate`, `http_get`, `tavily-search` …).
_FETCH_WORDS = frozenset(
    "fetch browse browser http https url uri search web websearch webfetch download navigate crawl crawler scrape "
    "scraper curl wget internet online".split())
# Words in a tool's name that say it runs a shell command.
_SHELL_WORDS = frozenset("bash shell sh zsh fish powershell pwsh cmd terminal command exec run console".split())
# Programs whose output is the network's: they fetch, connect or query a remote service.
_NETWORK_PROGRAMS = frozenset(
    "curl wget http https xh httpie nc ncat netcat socat telnet ssh scp sftp ftp tftp rsync lynx w3m links elinks "
    "aria2c iwr irm invoke-webrequest invoke-restmethod gh hub dig nslookup whois openssl mosh svn".split())
# Programs with a network subcommand: `git clone`, `pip download`, `npm view` …
_NETWORK_SUBCOMMANDS = {
    "git": frozenset("clone fetch pull ls-remote archive".split()),
    "pip": frozenset("download index search".split()),
    "pip3": frozenset("download index search".split()),
    "uv": frozenset("pip".split()),
    "npm": frozenset("view info show v search".split()),
    "pnpm": frozenset("view info".split()),
    "yarn": frozenset("info npm".split()),
    "cargo": frozenset("search info".split()),
    "gem": frozenset("search fetch specification".split()),
    "brew": frozenset("info search".split()),
    "docker": frozenset("search".split()),
    "go": frozenset("get".split()),
}
# Words that only wrap the program that follows them (`sudo -E curl`, `env X=1 wget`).
_WRAPPERS = frozenset("sudo doas env time nice nohup command exec xargs timeout stdbuf builtin".split())
_URL = re.compile(r"\b(?!file:)[a-z][a-z0-9+.-]{1,15}://", re.I)
_SEPARATORS = re.compile(r"\|\||&&|[|;&\n`]|\$\(|<\(|\(")
_CODE_FETCH = re.compile(r"urlopen|urllib|requests\.(?:get|post)|http\.client|socket\.|fetch\(|/dev/tcp/|Net\.WebClient"
                         r"|DownloadString|DownloadFile|WebRequest|RestMethod", re.I)
_NAME_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
LABEL_CHARS = 160


def name_words(name: str) -> set[str]:
    """The words of a tool's name: `web_fetch`, `github-mcp-server-search_code`, `fetchUrl`."""
    return {word.lower() for word in _NAME_WORDS.findall(name)}


def is_fetch_tool(name: str) -> bool:
    return bool(name_words(name) & _FETCH_WORDS)


def is_shell_tool(name: str) -> bool:
    return bool(name_words(name) & _SHELL_WORDS)


def _program(segment: str) -> tuple[str, str]:
    """The program a piece of a command line runs, and its first argument (lower-cased)."""
    words = [w.strip("'\"") for w in segment.split()]
    at = 0
    while at < len(words):
        word = words[at]
        base = word.rsplit("/", 1)[-1].rsplit("\\", 1)[-1].lower()
        if "=" in word and not word.startswith("-") or base in _WRAPPERS or word.startswith("-") or word.isdigit():
            at += 1  # an assignment, a wrapper, a wrapper's flag or its number (`timeout 30`)
            continue
        break
    if at >= len(words):
        return "", ""
    program = words[at].rsplit("/", 1)[-1].rsplit("\\", 1)[-1].lower().removesuffix(".exe")
    argument = next((w.lower() for w in words[at + 1:] if not w.startswith("-")), "")
    return program, argument


def network_program(command: str) -> str | None:
    """The network program a shell command runs (`curl`, `git clone`, a URL it names), or None."""
    if _URL.search(command) or _CODE_FETCH.search(command):
        return "url" if _URL.search(command) else "code"
    for segment in _SEPARATORS.split(command):
        program, argument = _program(segment)
        if program in _NETWORK_PROGRAMS:
            return program
        if argument and argument in _NETWORK_SUBCOMMANDS.get(program, ()):
            return f"{program} {argument}"
    return None


def _one_line(value: Any) -> str:
    text = " ".join(value.split()) if isinstance(value, str) else ""
    text = text.replace(";", ",")  # the excerpt header ends in "; N chars)"
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def tool_label(name: str, arguments: Any, redact: Any = None) -> str:
    """What the excerpt header calls a tool's output: its name, and for a fetch tool or a
    network command what it read (`redact` cleans that part of secrets)."""
    if not isinstance(arguments, dict):
        return name
    clean = redact or (lambda text: text)
    if is_fetch_tool(name):
        target = next((arguments[k] for k in ("url", "uri", "href", "query", "q") if isinstance(arguments.get(k), str)), "")
        shown = _one_line(clean(target)) if target else ""
        return f"{name} ({shown})" if shown else name
    command = arguments.get("command") or arguments.get("cmd") or arguments.get("script")
    if isinstance(command, str) and network_program(command):
        return f"{name} (network: {_one_line(clean(command))})"
    return name


def is_remote_label(label: str) -> bool:
    """Does an excerpt header's tool label say the output came from the network?"""
    name = label.split(" (", 1)[0]
    return is_fetch_tool(name) or " (network: " in label


_HEADER = re.compile(r"^\(tool output: (?P<label>.+?)(?:, failed)?; (?:about )?[\d,]+ chars\)$")


def header_label(first_line: str) -> str | None:
    """The tool label of an excerpt's header line, or None."""
    match = _HEADER.match(first_line.strip())
    return match.group("label") if match else None
