"""The environment a hook-started review really gets (docs/reviewers.md, docs/doctor.md; COPILOT.md §3, §7).

Copilot CLI removes the provider and token variables from every hook process. A user whose
Copilot works through bring-your-own-key or offline settings in the shell (`COPILOT_OFFLINE`,
`COPILOT_PROVIDER_BASE_URL`, …) therefore has a reviewer that works from the shell and fails
from the sessionEnd hook. `G/reviewer.env` (read by omp.process) is how the user hands those
settings back: every reviewer omp starts gets it (omp.review.reviewers.reviewer_env), a
hook-started one included; this module tells what a hook would see, so `omp doctor --deep`
tests that case and not the shell's.
"""

from __future__ import annotations

import os
import shlex
from typing import Mapping

from omp.process import read_env_file, review_environment, reviewer_env_file

# Verified with Copilot CLI 1.0.102 (COPILOT.md §3): removed unless the hook entry sets them.
STRIPPED_NAMES = ("GITHUB_TOKEN", "COPILOT_GITHUB_TOKEN", "OPENAI_API_KEY", "COPILOT_OFFLINE")
STRIPPED_PREFIXES = ("COPILOT_PROVIDER_",)


def is_stripped(name: str) -> bool:
    return name in STRIPPED_NAMES or name.startswith(STRIPPED_PREFIXES)


def as_a_hook_sees_it(shell: Mapping[str, str] | None = None) -> dict[str, str]:
    """`shell` (default: ours) minus what Copilot strips from hooks."""
    base = os.environ if shell is None else shell
    return {k: v for k, v in base.items() if not is_stripped(k)}


def hook_review_environment(shell: Mapping[str, str] | None = None) -> dict[str, str]:
    """What a review started by the sessionEnd hook runs with: the hook's env plus reviewer.env."""
    return review_environment(as_a_hook_sees_it(shell))


def missing_from_reviewer_env(shell: Mapping[str, str] | None = None) -> list[str]:
    """Stripped variables the shell sets that reviewer.env does not give back (sorted)."""
    base = os.environ if shell is None else shell
    given = read_env_file(reviewer_env_file())
    return sorted(k for k in base if is_stripped(k) and k not in given)


def reviewer_env_fix(names: list[str]) -> str:
    """A shell command that copies `names` from the current shell into reviewer.env (private)."""
    path = shlex.quote(reviewer_env_file())
    pattern = "|".join(names) if names else "COPILOT_OFFLINE|COPILOT_PROVIDER_[A-Z_]*"
    folder = shlex.quote(os.path.dirname(reviewer_env_file()) or ".")
    return (f"mkdir -p {folder} && (umask 077; env | grep -E '^({pattern})=' >> {path}) "
            f"&& chmod 600 {path}")
