"""find_secrets returns at once for a text with no trigger and no PEM mark; the full path must agree.

(On the text the patterns read: a disguised text is folded first, `omp.safety.disguise`, and its
findings mapped back; the corpus tests show that end to end.)"""

from __future__ import annotations

import random

from omp.safety import detect_secrets_adapter, patterns, secrets
from omp.safety.finding import SecretFinding

from safety_corpus import CONTROLS, SECRETS


def _full_path(text: str) -> list[SecretFinding]:
    """find_secrets without its shortcut: every own pattern, the PEM scan and detect-secrets."""
    if not text:
        return []
    lowered = secrets._lowered(text)
    hits = secrets._trigger_hits(lowered)
    own = sorted(secrets._pattern_findings(text, hits), key=lambda f: f.start)
    covered = secrets._coverage([f for f in own if f.kind != "partial-token"])
    extra = [f for f in detect_secrets_adapter.detect_secrets_findings(text, lowered, hits) if not covered(f)]
    return secrets._merge(own + extra)


def _texts() -> list[str]:
    rng = random.Random(11)
    corpus = [case.text for case in SECRETS] + [text for _, text in CONTROLS]
    words = ["pytest -q", "git status", "cat src/x.py", "the build", "-----BEGIN", "PRIVATE KEY-----", "ok", "\n",
             "MIIBOgIBAAJBAK", "run it", "src/omp/secrets.py", "README.md"]
    made = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 30))) for _ in range(300)]
    # Every corpus secret cut in two: the halves hold a part of a secret, often no trigger.
    halves = [half for text in corpus for half in (text[: len(text) // 2], text[len(text) // 2:])]
    return corpus + made + halves + ["", " ", "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----"]


def test_find_secrets_is_its_full_path() -> None:
    shortcut = 0
    for text in _texts():
        assert secrets._find_secrets(text) == _full_path(text), text
        lowered = secrets._lowered(text)
        shortcut += bool(text) and not secrets._trigger_hits(lowered) and patterns.PEM_MARK not in text
    assert shortcut > 50  # the shortcut is taken, and agrees

