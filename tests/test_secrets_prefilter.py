"""The prefilter in front of detect-secrets skips only lines detect-secrets finds nothing in.

A line reaches detect-secrets when it holds one of its plugins' triggers: a word of the keyword
plugin's denylist with one of its forms around it, or a format prefix in its plugin's case with
what must follow it there (`_DS_PREFIX_FOLLOW`; a prefix that cannot match still brings a line a
keyword stands in). Lines are shown to detect-secrets here anyway, as the oracle: every line the
rule keeps away must hold nothing it finds (or only what omp drops, a private key its PEM scan
owns), and every line it finds a secret in must be one the rule brings.
And what a user notices: a real Copilot session's text and everyday tool output no longer load
detect-secrets (≈ 70 ms and 7 MB of a review), a secret of each plugin's format still does and
is redacted.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from omp.safety import detect_secrets_adapter, secrets
from omp.safety.secrets import find_secrets, redact

from helpers import python_output
from regex_phrases import spell
from safety_corpus import CONTROLS, SECRETS
from sessions_support import FIXTURE


# One made-up secret of each format a listed prefix starts (the plugin's pattern, filled in).
FORMATS = [
    "AKIAQ3EGUNZ7WTXP4KLM", "ASIAQ3EGUNZ7WTXP4KLM", "A3TXQ3EGUNZ7WTXP4KLM",
    "AccountKey=" + "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3Bx" + "cnN0dXZ3eHl6MDEyMzQ1Njc4OTAxMjM0NTY3OA==",
    "ghp_Qm7Tx2Kp9LwN4vR8yZ1cF5jH3gD6sA0bUeXi", "glpat-Ab3dEf6hIj9kLm2nOp5q", "gldt-Ab3dEf6hIj9kLm2nOp5q",
    "glcbt-3f_Lk7jHg4fDs1aQw8eRt5yU", "GR1348941Po8iUy5tRe2wQa9sDf6g",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "0123456789abcdef0123456789abcdef-us12",
    "sk-proj-Ab3dEf6hIj9kLm2nOp5qT3BlbkFJAb3dEf6hIj9kLm2nOp5q",
    "pypi-AgEIcHlwaS5vcmc" + "Ab3dEf6hIj9kLm2nOp5q" * 4,
    "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",
    "sq0csp-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3",
    "sk_live_" + "Ab3dEf6hIj9kLm2nOp5qRs8t", "rk_live_" + "Ab3dEf6hIj9kLm2nOp5qRs8t",
    "https://deploy:Hq3JvWx8PLm2nRt5@git.example.com/repo.git",
    "https://registry.npmjs.org/:_authToken=npm_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c",
    "xoxb-123456789012-123456789012-Ab3dEf6hIj9kLm2nOp5qRs8t",
    "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
]

# Lines a session is full of that hold a prefix and are not secrets.
BENIGN = [
    "Accept-Language: en-us", "CTX-MARKER-plugin-userPromptSubmitted", "git push --set-upstream origin main",
    "the task-list and the disk-usage report", "see https://docs.github.com/en/copilot and http://localhost:8080/a",
    "ssh://git@github.com/org/repo.git", "file:///home/me/x.py", "eyJ is how a JWT starts", "ghp_ is a token prefix",
    "akia.png", "sg.send(msg)", "Private key material lives in the vault", "PuTTY is a client", "xoxo, the team",
    "pypi-publish step", "sk-learn is scikit-learn", "sk_live is the prefix of a live key", "curl -u me https://x.io",
    "the hooks.slack integration", "glpat-short", "a3tk", "mysql -u root -p", "http://a:b c@d",
]


def _mutations(text: str, rng: random.Random) -> list[str]:
    """Near misses of a secret: cut short, a character changed, the case flipped, split by a space."""
    out = [text[: len(text) * 2 // 3], text.swapcase(), text.lower(), text.upper()]
    for _ in range(6):
        at = rng.randrange(len(text))
        out.append(text[:at] + rng.choice(" -_.:@/=Z9") + text[at + 1:])
        out.append(text[:at] + " " + text[at:])
    return out


def _texts() -> list[str]:
    rng = random.Random(5)
    texts = [case.text for case in SECRETS] + [text for _, text in CONTROLS] + BENIGN + FORMATS
    for secret in FORMATS + [case.text for case in SECRETS]:
        texts += _mutations(secret, rng)
    texts += [f"{rng.choice(BENIGN)} {rng.choice(FORMATS)}" for _ in range(40)]
    texts += [f"{rng.choice(FORMATS)}\n{rng.choice(BENIGN)}" for _ in range(40)]
    return texts + _fixture_strings()


def _fixture_strings() -> list[str]:
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        walk(json.loads(line))
    return found


def _segments(text: str, prefilter: bool, monkeypatch: pytest.MonkeyPatch) -> set[tuple[int, str]]:
    lowered = secrets._lowered(text)
    with monkeypatch.context() as patch:
        if not prefilter:
            patch.setattr(detect_secrets_adapter, "_prefix_may_match", lambda *_: True)
        return set(detect_secrets_adapter._candidate_segments(text, lowered, secrets._trigger_hits(lowered)))


def test_every_line_the_prefilter_skips_holds_nothing_detect_secrets_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    scan = detect_secrets_adapter._detect_secrets_scanner()
    assert scan is not None
    skipped: list[str] = []
    for text in _texts():
        kept, every = _segments(text, True, monkeypatch), _segments(text, False, monkeypatch)
        assert kept <= every, text
        skipped += [segment for _, segment in every - kept]
    found = {segment: hits for segment, hits in zip(skipped, scan(skipped))
             if [kind for kind, _ in hits if kind != "Private Key"]}
    assert found == {}
    assert len(skipped) > 60  # the rule is exercised: many lines never reach detect-secrets


@pytest.mark.slow
def test_findings_are_the_same_with_and_without_the_prefilter(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts()
    with_prefilter = [find_secrets(text) for text in texts]
    monkeypatch.setattr(detect_secrets_adapter, "_prefix_may_match", lambda *_: True)
    assert [find_secrets(text) for text in texts] == with_prefilter


@pytest.mark.parametrize("secret", FORMATS)
def test_a_secret_of_each_format_is_still_redacted(secret: str) -> None:
    redacted, counts = redact(f"config: {secret} (from the logs)")
    assert sum(counts.values()) >= 1
    core = secret.split("=", 1)[-1].split("_", 1)[-1][4:24]
    assert core not in redacted


# Tool output of every day: each of these loaded detect-secrets before (a keyword or a prefix).
EVERYDAY = [
    '{\n  "name": "web",\n  "keywords": ["cli", "memory"],\n  "repository": {"url": "https://github.com/acme/web.git"}\n}',
    "steps:\n  - uses: actions/checkout@v4\n    with:\n      key: ${{ runner.os }}-pip\n",
    "===== 12 passed, 1 skipped in 3.21s =====\nbypass: false",
    "remote:   https://github.com/acme/web/pull/new/fix-1\nTo github.com:acme/web.git",
    "Accept-Language: en-US,en;q=0.9\nContent-Type: application/json",
]


def test_a_real_copilot_session_does_not_load_detect_secrets() -> None:
    """Every string of a real session file (its hook payloads too) and everyday tool output
    hold no secret: redacting them pays neither detect-secrets' load nor its memory. A line with
    a secret of a format only detect-secrets knows still loads it."""
    program = ("import json, sys\n"
               "from omp.safety.secrets import redact\n"
               f"for text in {EVERYDAY!r}: redact(text)\n"
               "def walk(v):\n"
               "    if isinstance(v, str): redact(v)\n"
               "    elif isinstance(v, dict): [walk(x) for x in v.values()]\n"
               "    elif isinstance(v, list): [walk(x) for x in v]\n"
               f"for line in open({str(FIXTURE)!r}, encoding='utf-8'): walk(json.loads(line))\n"
               "print('detect_secrets' in sys.modules)\n"
               "print(redact('mailchimp 0123456789abcdef0123456789abcdef-us12')[0], 'detect_secrets' in sys.modules)\n")
    assert python_output(program).splitlines() == ["False", "mailchimp [REDACTED:mailchimp-key] True"]


# Lines a keyword brings or does not: the plugin knows its denylist's words, not "key" or "pass".
KEYWORD_LINES = [
    '"key": "value"', "keywords: [a, b]", "monkey = 1", "passes: 3", "bypass: true", "hotkey=ctrl+k",
    '{"key": "7f3a9c2e81d04b6f", "passport": "X1234567"}', "keyboard_layout: us", "key_id = 12",
    '"api_key": "Xy7Qm2Kp9LwN4vR8yZ1c"', "db_pass = 'hunter2hunter'", "KEY_PASS: abc123456def",
    "clientkey := Zq8Wv3Lm5Np2Rt7Yb4Kc", "PASSWORD=correct-horse-battery", "my_private_key: Mn7bVc0xZl3kJh6gFd9s",
    "contraseña: Hq3JvWx8PLm2nRt5", "CONTRASENA = 'Hq3JvWx8PLm2nRt5'", "secret: Tp0Wa5Ns2OzQ7yU1bC4f",
    "apikey != 'Uq1Xb6Ot3PaR8zV2cD5g'", "the pwd: /home/me", "database_key <- 'Rn8Uy3Lq0MxO5wS9zA2d'",
]
# The keyword plugin's forms without `=` or `:` after the word: once found only when another
# trigger shared their line.
KEYWORD_FORMS = [
    'if ("hunter2hunter" == my_password) {', "'Hq3JvWx8PLm2nRt5' !== db_password", 'private_key "Xy7Qm2Kp9LwN4vR8";',
    "secret 'Tp0Wa5Ns2OzQ7yU1bC4f';",
]


def test_every_line_detect_secrets_finds_a_secret_in_reaches_it() -> None:
    """Every line is shown to detect-secrets (the oracle); each one it finds a secret in must be
    one the prefilter brings it."""
    scan = detect_secrets_adapter._detect_secrets_scanner()
    assert scan is not None
    lines = sorted({line for text in _texts() + KEYWORD_LINES + KEYWORD_FORMS for line in text.split("\n")
                    if 0 < len(line) < 2000})
    found, missed = 0, []
    for line, hits in zip(lines, scan(lines)):
        if not [kind for kind, _ in hits if kind != "Private Key"]:
            continue
        found += 1
        lowered = secrets._lowered(line)
        if not detect_secrets_adapter._candidate_segments(line, lowered, secrets._trigger_hits(lowered)):
            missed.append(line)
    assert missed == [] and found > 30


@pytest.mark.parametrize("line", KEYWORD_FORMS)
def test_a_keyword_form_without_an_assignment_is_redacted_on_its_own(line: str) -> None:
    secret = line.split('"' if '"' in line else "'")[1]
    assert secret not in redact(line)[0]


def test_a_keyword_alone_brings_no_line_and_a_denylist_word_does() -> None:
    def sent(line: str) -> bool:
        lowered = secrets._lowered(line)
        return bool(detect_secrets_adapter._candidate_segments(line, lowered, secrets._trigger_hits(lowered)))

    assert [line for line in KEYWORD_LINES[:9] if sent(line)] == []
    assert [line for line in KEYWORD_LINES[9:] if not sent(line)] == []


def test_the_keyword_triggers_are_the_installed_plugins_denylist() -> None:
    """omp spells out the keyword plugin's denylist (it cannot import detect-secrets to read it:
    the load is what the prefilter saves). A detect-secrets that knows another word fails here,
    not silently in a review."""
    from detect_secrets.plugins.keyword import DENYLIST

    spelled = {variant for word in DENYLIST for variant in (word.replace("_?", "_"), word.replace("_?", ""))}
    assert all(re.fullmatch(r"[a-zñ_]+", word) for word in spelled)  # plain words, no other regex in them
    folded = {"contrase" if word.startswith("contrase") else word for word in spelled}
    assert folded == set(detect_secrets_adapter._DS_KEYWORD_TRIGGERS)


def test_every_match_of_every_plugin_pattern_reaches_detect_secrets() -> None:
    """The plugins' own patterns, spelled out (tests/regex_phrases.py: every alternative, each
    optional part with and without, each repeat at its least count), each in a line of its own:
    every line detect-secrets finds a secret in is one the prefilter brings it. The keyword
    plugin is held to its denylist above; a private key is omp's PEM scan's."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    scan = detect_secrets_adapter._detect_secrets_scanner()
    assert scan is not None
    rng = random.Random(7)
    lines = []
    for plugin in get_mapping_from_secret_type_to_class().values():
        if plugin.__name__ not in detect_secrets_adapter._DS_PLUGINS or plugin.__name__ in ("KeywordDetector", "PrivateKeyDetector"):
            continue
        for pattern in plugin.denylist:
            samples = spell(pattern.pattern, pattern.flags & ~re.UNICODE)
            lines += [f"config {sample} end" for sample in rng.sample(samples, min(len(samples), 200))]
    found, missed = 0, []
    for line, hits in zip(lines, scan(lines)):
        if not hits:
            continue  # a sample the plugin's own checks refuse (a JWT that is not base64 JSON)
        found += 1
        lowered = secrets._lowered(line)
        if not detect_secrets_adapter._candidate_segments(line, lowered, secrets._trigger_hits(lowered)):
            missed.append(line)
    assert missed == [] and found > 30
