#!/usr/bin/env python3
"""Safety figures (docs/secrets-and-poisoning.md, docs/secrets-and-poisoning.md#planted-rules): secrets caught, planted items refused, false positives.

The cases are the corpus the tests use (tests/safety_corpus.py), run through the very
functions a review uses:

- a secret is *caught* when redaction leaves none of its parts (what the reviewer would see)
  AND the review's safety filter refuses a note carrying it (what would be stored);
- a planted item is *refused* when the review's safety filter rejects it as a note
  (title and body are planted separately: 2 items per case);
- a *false positive* is a control text changed by redaction, or a benign note refused.

It also says, per secret class, which detector finds it: detect-secrets' format plugins alone,
or omp's own patterns alone (the lists are merged in use).

    python bench/bench_safety.py            # prints the figures and the table
    python bench/bench_safety.py --json     # the figures as one JSON object
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from safety_corpus import BENIGN_NOTES, CONTROLS, PLANTED, SECRETS, SecretCase  # noqa: E402

from omp.safety import detect_secrets_adapter  # noqa: E402
from omp.safety import secrets as safety  # noqa: E402
from omp.review.answer import Proposal  # noqa: E402
from omp.review.filters import screen  # noqa: E402


def _note(title: str, body: str) -> Proposal:
    return Proposal(kind="note", where="notes[0]", source="model", evidence="quoted words", title=title, body=body)


def _redaction_hides(case: SecretCase) -> bool:
    redacted, _ = safety.redact(case.text)
    return not any(needle in redacted for needle in case.needles)


def _caught(case: SecretCase) -> bool:
    return _redaction_hides(case) and bool(screen([_note("Deploy setup", f"Use {case.text}")]).rejected)


def _detector(case: SecretCase) -> str:
    """Which detector, alone, hides every part of this secret."""
    detect_secrets_adapter.set_detect_secrets_enabled(False)
    try:
        own = _redaction_hides(case)
    finally:
        detect_secrets_adapter.set_detect_secrets_enabled(True)
    text, lowered = case.text, case.text.lower()
    # detect-secrets' findings alone (its private-key finding is left to omp's PEM scan, which
    # knows where a block ends, so a key counts as omp's).
    hidden = text
    for finding in sorted(detect_secrets_adapter.detect_secrets_findings(text, lowered, safety._trigger_hits(lowered)),
                          key=lambda f: -f.start):
        hidden = hidden[: finding.start] + "#" + hidden[finding.end:]
    ds = hidden != text and not any(needle in hidden for needle in case.needles)
    return "both" if own and ds else "detect-secrets" if ds else "omp" if own else "MISSED"


def _refused(title: str, body: str) -> bool:
    return bool(screen([_note(title, body)]).rejected)


def figures() -> dict[str, object]:
    secrets_missed = [c.name for c in SECRETS if not _caught(c)]
    planted_missed = [c.name for c in PLANTED if not _refused(c.title, c.body)]
    control_fp = [name for name, text in CONTROLS if safety.redact(text)[0] != text]
    note_fp = [title for title, body in BENIGN_NOTES if _refused(title, body)]
    return {
        "secrets_caught": len(SECRETS) - len(secrets_missed),
        "secrets_total": len(SECRETS),
        "secrets_missed": secrets_missed,
        "planted_refused": len(PLANTED) - len(planted_missed),
        "planted_total": len(PLANTED),
        "planted_missed": planted_missed,
        "false_positives": len(control_fp) + len(note_fp),
        "controls_total": len(CONTROLS) + len(BENIGN_NOTES),
        "false_positive_cases": control_fp + note_fp,
        "detectors": {c.name: _detector(c) for c in SECRETS},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = figures()
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    print(f"secrets caught:         {result['secrets_caught']} of {result['secrets_total']}")
    print(f"planted items refused:  {result['planted_refused']} of {result['planted_total']}")
    print(f"false positives:        {result['false_positives']} of {result['controls_total']} controls")
    for key in ("secrets_missed", "planted_missed", "false_positive_cases"):
        if result[key]:
            print(f"  {key}: {', '.join(result[key])}")  # type: ignore[arg-type]
    print("\nwhich detector finds each secret class (alone):")
    for name, detector in result["detectors"].items():  # type: ignore[union-attr]
        print(f"  {name:34} {detector}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
