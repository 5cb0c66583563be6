"""`omp eval` figures per language, for the README's table of the real-data corpus.

    python bench/eval_by_language.py          # real-dev, real-heldout, real-heldout2, bundled; offline
    python bench/eval_by_language.py --reviewer copilot --yes real-heldout

Runs `omp eval --json` on each corpus named (a shipped name or a path) and prints, per language,
the standing requests recalled and the rules proposed where the user asked for none, as a
Markdown table. HOME, OMP_HOME and COPILOT_HOME point into a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict


def run(corpus: str, extra: list[str], env: dict[str, str]) -> dict:
    proc = subprocess.run([sys.executable, "-m", "omp", "eval", "--json", "--corpus", corpus, *extra],
                          env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="*", default=["real-dev", "real-heldout", "real-heldout2", "bundled"])
    parser.add_argument("--reviewer", default="offline")
    parser.add_argument("--yes", action="store_true")
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="omp-eval-lang-")
    env = {**os.environ, "HOME": home, "OMP_HOME": os.path.join(home, ".omp"),
           "COPILOT_HOME": os.path.join(home, ".copilot"), "OMP_TOKENIZER": "estimate"}
    extra = ["--reviewer", args.reviewer, *(["--yes"] if args.yes else [])]
    print("| corpus | language | cases | standing requests recalled | rules wrongly proposed |")
    print("|---|---|---|---|---|")
    for corpus in args.corpora:
        report = run(corpus, extra, env)
        rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # cases, recalled, expected, wrong
        for case in report["cases"]:
            row = rows[case["language"]]
            row[0] += 1
            row[1] += case["recalled"]
            row[2] += case["expected"]
            row[3] += len(case["unexpected"]) if not case["expected"] else 0
        total = [sum(values) for values in zip(*rows.values())]
        for language, (cases, recalled, expected, wrong) in [*sorted(rows.items(), key=lambda r: -r[1][0]),
                                                             ("**all**", total)]:
            share = f" ({recalled / expected:.0%})" if expected else ""
            print(f"| {corpus} | {language} | {cases} | {recalled}/{expected}{share} | {wrong} |")


if __name__ == "__main__":
    main()
