"""Reviewer backends: one protocol and one registry (docs/reviewers.md).

Everything that names a backend reads `REGISTRY`: config validation (`memory-reviewer`'s values
and `memory-review-timeout`'s per-backend default), the CLI (`--reviewer` choices), `omp eval`,
`omp doctor` and the review pipeline. A new backend is one new module here with a `call`
function (`call(config, prompt, answer_complete, **options) -> ReviewerReply`, the signature of
omp.review.reviewers.call_reviewer), optionally a `describe(settings, model) -> str` (what it
would call, for `omp doctor`; raising ReviewerUnavailable when a setting is missing) and a
`throwaway_environment() -> dict` (what `omp eval`'s throwaway home must carry), and one
`Entry` below, whose fields say what the rest of omp needs to know (`uses_copilot`,
`fix_setting`, …). No other module names a backend (tests/test_backend_registry.py checks). omp.review.reviewers holds what the
backends share: the types, the reviewer's environment (reviewer.env applied to every start), the
one function that starts a reviewer process, and the reading of a failure.

This module is imported by omp.config, which the sessionStart hook's cold render loads: it holds
facts only (names, defaults, whether a call costs money, the URL rule) and imports no backend.
`Entry.call` imports its module when a review really calls it — by name, because the backends
import omp.review.reviewers, which imports omp.config, which imports this registry.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping, NamedTuple, Protocol

# The `openai` backend's server, when none is configured: Ollama's default address.
EXAMPLE_URL = "http://127.0.0.1:11434/v1"
HINT_URL = f"run: omp config set memory-reviewer-url {EXAMPLE_URL} (your server's base URL)"
LOOPBACK_NAMES = frozenset({"localhost", "localhost.", "ip6-localhost", "ip6-loopback"})


class Backend(Protocol):
    """What the rest of omp may ask of a backend. `config` is an omp.review.reviewers
    ReviewerConfig and `call` returns a ReviewerReply (typed loosely here: this module must not
    import them, see the module docstring)."""

    name: str
    default_timeout: float

    def costs_money(self, settings: Mapping[str, Any]) -> bool: ...

    def call(self, prompt: str, config: Any, answer_complete: Callable[[str], bool], **options: Any) -> Any: ...

    def describe(self, settings: Mapping[str, Any], model: str) -> str: ...


class Entry(NamedTuple):
    name: str
    summary: str  # one line, for help texts and `omp doctor`
    default_timeout: float  # seconds, when memory-review-timeout is set in no layer (docs/reference/config.md)
    module: str | None  # the module whose `call` runs it; None: no model is called
    function: str = "call"
    paid: Callable[[Mapping[str, Any]], bool] = lambda settings: False
    # Runs the Copilot CLI: `omp doctor` needs Copilot to run, `omp eval` lends it the user's
    # Copilot login and hands its sessions back, and a failed login is fixed by `copilot login`.
    uses_copilot: bool = False
    # Passes Copilot's own variables (COPILOT_PROVIDER_*, …) to what it runs, so a hook-started
    # review needs them in reviewer.env (`omp doctor`'s reviewer env check).
    reads_copilot_env: bool = True
    # The setting that names where the model is (`omp eval`'s description says it), if any.
    location_setting: str | None = None
    # (setting, value) whose `omp config set` fixes a `describe` failure; None: the fix is going
    # back to a backend that works.
    fix_setting: tuple[str, str] | None = None

    @property
    def runs_model(self) -> bool:
        return self.module is not None

    def costs_money(self, settings: Mapping[str, Any]) -> bool:
        """Does one call cost money (or a metered quota) under these settings?"""
        return self.paid(settings)

    def call(self, prompt: str, config: Any, answer_complete: Callable[[str], bool], **options: Any) -> Any:
        if self.module is None:
            raise ValueError(f"the {self.name} backend calls no model")
        # Every backend module's function takes what omp.review.reviewers.call_reviewer takes.
        function = getattr(importlib.import_module(self.module), self.function)
        return function(config, prompt, answer_complete, **options)

    def describe(self, settings: Mapping[str, Any], model: str) -> str:
        """What this backend would call under `settings`, in a few words (`omp doctor`), without
        calling it. Raises omp.review.reviewers.ReviewerUnavailable (`not-configured`, `missing`)
        with the fix when a setting it needs is absent or wrong."""
        if self.module is None:
            return f"{self.name}: {self.summary}, no model is called"
        describe = getattr(importlib.import_module(self.module), "describe", None)
        return describe(settings, model) if describe else f"{self.name}, model {model}"

    def throwaway_environment(self) -> dict[str, str]:
        """Variables a run in a throwaway home (`omp eval`) carries over for this backend: its
        module's optional `throwaway_environment()` (the openai backend's key)."""
        if self.module is None:
            return {}
        carry = getattr(importlib.import_module(self.module), "throwaway_environment", None)
        return dict(carry()) if carry else {}


def _openai_paid(settings: Mapping[str, Any]) -> bool:
    # A server on this machine costs nothing per call; anything else is assumed to bill.
    url = settings.get("memory-reviewer-url")
    return not (isinstance(url, str) and is_loopback_url(url))


# The order is the order help texts list them.
REGISTRY: dict[str, Entry] = {
    entry.name: entry
    for entry in (
        Entry("copilot", "the Copilot CLI with your login (premium requests)", 120, "omp.review.backends.copilot",
              paid=lambda settings: True, uses_copilot=True),
        Entry("openai", "an OpenAI-compatible server: Ollama, llama.cpp, LM Studio, vLLM", 900,
              "omp.review.backends.openai", paid=_openai_paid, reads_copilot_env=False,
              location_setting="memory-reviewer-url", fix_setting=("memory-reviewer-url", EXAMPLE_URL)),
        # A command is the user's own program: omp cannot know what it calls, and asks nothing (docs/explicit-requests-and-eval.md#omp-eval--how-good-is-a-reviewer).
        Entry("command", "memory-reviewer-command, prompt on stdin, answer on stdout", 900,
              "omp.review.backends.command"),
        Entry("offline", "the explicit pass only", 120, None),
    )
}
NAMES: tuple[str, ...] = tuple(REGISTRY)
DEFAULT = NAMES[0]  # memory-reviewer's default
# The backend that calls no model: what a setup with no working reviewer falls back to.
NO_MODEL = next(name for name, entry in REGISTRY.items() if not entry.runs_model)


def lookup(name: str) -> Entry:
    """The backend called `name` (KeyError if there is none: callers validate names first)."""
    return REGISTRY[name]


def default_timeout(name: str) -> float:
    entry = REGISTRY.get(name)
    return entry.default_timeout if entry else REGISTRY[DEFAULT].default_timeout


# ---------------------------------------------------------------------------------------------
# the `openai` backend's URL: plain http only to this machine (docs/reference/config.md)


def is_loopback_host(host: str) -> bool:
    """127.0.0.0/8, ::1 or localhost: a name or address that never leaves this machine."""
    import ipaddress  # only a reviewer URL needs it, never the hooks that load this registry

    host = host.strip("[]").lower()
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def is_loopback_url(url: str) -> bool:
    from urllib.parse import urlsplit  # only a reviewer URL needs it, never the hooks that load this registry

    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return False
    return bool(host) and is_loopback_host(host or "")


def url_problem(url: str) -> str | None:
    """Why `url` cannot be the `openai` reviewer's base URL, or None when it can."""
    from urllib.parse import urlsplit  # only a reviewer URL needs it, never the hooks that load this registry

    text = url.strip()
    if not text or any(ord(char) < 33 or ord(char) == 127 for char in text):
        return "a URL has no spaces or control characters"
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018  (raises ValueError on a bad port)
    except ValueError as exc:
        return f"it does not parse: {exc}"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "expected http:// or https:// and a host"
    if parts.username or parts.password:
        return "a key never goes in the URL: put OMP_REVIEWER_API_KEY in reviewer.env"
    if parts.query or parts.fragment:
        return "expected a base URL without ?query or #fragment"
    if parts.scheme == "http" and not is_loopback_host(parts.hostname):
        return (f"plain http is allowed only to this machine (127.0.0.1, ::1, localhost), not {parts.hostname!r}: "
                "the transcript would cross the network unencrypted; use https")
    return None
