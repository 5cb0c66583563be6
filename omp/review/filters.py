"""Safety filters on every proposed item, before anything is written (docs/secrets-and-poisoning.md, docs/secrets-and-poisoning.md#planted-rules).

- an item that carries a secret in any field (evidence included) is rejected and counted by
  kind; the reason names the kind, never the secret. (The packet was redacted, but the explicit
  pass reads raw user messages, and a model can still echo something.) An item that quotes a
  `[REDACTED:…]` marker is rejected the same way: it is about a secret and useless without it;
- an item with an instruction-injection pattern ("ignore previous instructions", `curl … $TOKEN`,
  edits to instruction files, invisible or bidirectional Unicode) is rejected with the reason.

Both checks look at every field as given AND as a store would write it
(`omp.memory.neutralise.stored_forms`): removing `<!---->` or a control character while
neutralising must not rebuild a token or an injection phrase that the raw text hid. The stores
neutralise and re-check the same way, as a second line of defence. Notes pass exactly the same
checks as directives, title and body: they are written without a human.
"""

from __future__ import annotations

import collections
import re
from dataclasses import dataclass, field

from omp.lazyre import lazy
from omp.memory.items import RejectionCode
from omp.memory.neutralise import stored_forms
from omp.review.answer import Proposal, Rejection
from omp.safety.injection import injection_reasons
from omp.safety.secrets import find_secrets

_REDACTED = lazy(r"\[REDACTED:([a-z0-9-]+)\]", re.I)


@dataclass
class Screened:
    kept: list[Proposal] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    secrets: collections.Counter[str] = field(default_factory=collections.Counter)


def _secret_kinds(item: Proposal) -> list[str]:
    kinds: list[str] = []
    for name, text in item.texts().items():
        # Exactly what would be stored, too: neutralising can rebuild a token.
        for form in stored_forms(text):
            found = [finding.kind for finding in find_secrets(form)]
            if name != "evidence":
                found += [match.group(1).lower() for match in _REDACTED.finditer(form)]
            kinds.extend(k for k in found if k not in kinds)
    return kinds


def _injection(item: Proposal) -> list[str]:
    reasons: list[str] = []
    for text in item.texts().values():
        for form in stored_forms(text):
            reasons.extend(r for r in injection_reasons(form) if r not in reasons)
    return reasons


def screen(items: list[Proposal]) -> Screened:
    result = Screened()
    for item in items:
        kinds = _secret_kinds(item)
        if kinds:
            result.secrets.update(kinds)
            label = ", ".join(sorted(set(kinds)))
            result.rejected.append(Rejection(item.where, item.kind, RejectionCode.SECRET,
                                             f"{item.where}: contains a secret ({label})", item.source))
            continue
        reasons = _injection(item)
        if reasons:
            result.rejected.append(Rejection(
                item.where, item.kind, RejectionCode.INJECTION, f"{item.where}: looks like instruction injection ({'; '.join(reasons)})", item.source))
            continue
        result.kept.append(item)
    return result
