"""The real-data corpus (issue 35, docs/explicit-requests-and-eval.md#omp-eval--how-good-is-a-reviewer): real user turns, each with its source and licence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from omp.evaluate import load_corpus

REAL = Path(__file__).resolve().parent.parent / "omp" / "data" / "eval" / "real"
# Licences that let us keep excerpts; anything else must not be in the corpus.
KEPT_LICENCES = ("MIT", "Apache-2.0", "ISC", "BSD", "BSD-2-Clause", "BSD-3-Clause", "CC0", "CC0-1.0", "CC-BY")
# heldout2 was added blind (issue 35, second round): its repositories are in no other part.
PARTS = ("dev", "heldout", "heldout2")
NOTHING_ASKED = {"pasted", "question", "one-off", "statement"}


def _raw(part: str) -> list[dict]:
    return [json.loads(line) for line in (REAL / f"{part}.jsonl").read_text(encoding="utf-8").splitlines() if line]


def test_both_parts_load_with_omps_own_loader_extra_fields_and_all() -> None:
    for part in PARTS:
        cases, _ = load_corpus(REAL / f"{part}.jsonl")
        assert len(cases) == len(_raw(part)) > 100
    assert len(_raw("dev")) + len(_raw("heldout")) >= 400


def test_every_case_names_its_source_licence_and_reason_and_its_label_agrees() -> None:
    for part in PARTS:
        for case in _raw(part):
            source = case["source"]
            assert source["repo"].count("/") == 1 and source["path"] and len(source["commit"]) == 40, case["id"]
            assert source["repo"] != "edobry/minsky", case["id"]  # the separate evaluation is drawn from it
            assert case["licence"].split(" ")[0] in KEPT_LICENCES, case["id"]
            assert case["label_reason"].startswith("standing: " if case["standing"] else "not standing: "), case["id"]
            assert case["messages"][0]["role"] == "user" and case["messages"][0]["content"].strip(), case["id"]
            if case["standing"]:
                assert case["category"] == "request" and case["expect"], case["id"]
            else:
                assert case["category"] in NOTHING_ASKED and not case.get("expect"), case["id"]


def test_no_conversation_spans_both_parts_and_ids_are_unique() -> None:
    def conversations(part: str) -> set[tuple[str, str]]:
        return {(c["source"]["repo"], c["source"]["conversation"]) for c in _raw(part)}

    assert not conversations("dev") & conversations("heldout")
    ids = [c["id"] for part in PARTS for c in _raw(part)]
    assert len(ids) == len(set(ids))


def test_heldout2_is_split_by_repository_from_the_other_parts() -> None:
    def repos(part: str) -> set[str]:
        return {c["source"]["repo"] for c in _raw(part)}

    assert not repos("heldout2") & (repos("dev") | repos("heldout"))
    assert len(_raw("heldout2")) >= 100 and sum(c["standing"] for c in _raw("heldout2")) >= 5


def test_both_parts_hold_standing_requests_and_more_than_english() -> None:
    for part in ("dev", "heldout"):
        cases = _raw(part)
        assert sum(c["standing"] for c in cases) >= 5
        assert len({c["language"] for c in cases}) >= 4
    assert "SOURCES.md" in {p.name for p in REAL.iterdir()}


def test_omp_eval_takes_the_shipped_parts_by_name(tmp_path: Path) -> None:
    from omp.errors import UsageError

    for name, part in (("real-dev", "dev"), ("real-heldout", "heldout"), ("real-heldout2", "heldout2")):
        cases, names = load_corpus(name)
        assert names == [f"bundled:{name}"] and len(cases) == len(_raw(part))
    assert load_corpus("bundled")[0] == load_corpus()[0]
    with pytest.raises(UsageError, match="real-heldout"):
        load_corpus("real-test")  # neither a file nor a shipped corpus: the names are listed
    with pytest.raises(UsageError):
        load_corpus(tmp_path / "missing.jsonl")


# The figures the offline reviewer reached on each part when the explicit pass was last changed
# (README, "How well omp judges"): a change that loses a recalled request or proposes a rule
# where the user asked for none fails here. The held-out part is measured, never tuned on.
# Measured 2026-12-05 (branch realdata, the explicit pass of main at f56f6d0): dev grew by 262 turns
# (11 standing requests), real-heldout2 is new (138 turns, 8 standing).
# Third round (branch explicit3): dev 15 -> 16 recalled, 4 -> 1 wrongly proposed; the held-out parts unchanged.
# Then dev grew by 207 turns (branch realdata3, 18 standing; measured blind first: 3/18, 11 wrong).
# Fifth round (2026-12-06): dev grew by 85 turns from 12 new repositories (14 standing; measured blind
# first: 2/14, 2 wrong), then 45/53 recalled, 10 wrong; the held-out parts unchanged. Sixth round: 80 turns,
# every turn of those repositories read (24 standing; blind 1/24, 2 wrong), then 50/77, 10 wrong; decisions
# for the project read (uncertain): 52/77, 10 wrong; "I remind you …": 53/77; "STOP TELLING ME …" before a
# question: 54/77.
REAL_FLOORS = {"real-dev": {"recalled": 54, "wrong": 10}, "real-heldout": {"recalled": 2, "wrong": 6},
               "real-heldout2": {"recalled": 2, "wrong": 11}}


@pytest.mark.slow
@pytest.mark.parametrize("part", sorted(REAL_FLOORS))
def test_the_offline_reviewer_on_real_conversations_keeps_its_figures(part: str, tmp_path: Path) -> None:
    from helpers import run_omp

    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    result = run_omp(["eval", "--json", "--reviewer", "offline", "--corpus", part], cwd=tmp_path,
                     env={"TMPDIR": str(tmpdir), "OMP_TOKENIZER": "estimate"}, timeout=300)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    recalled = sum(case["recalled"] for case in report["cases"])
    floor = REAL_FLOORS[part]
    assert recalled >= floor["recalled"], part
    # The cases are named for the dev part only: nobody tunes on the held-out parts' failures.
    assert report["wrong_where_nothing_asked"] <= floor["wrong"], [
        (c["id"], c["unexpected"]) for c in report["cases"] if c["unexpected"]] if part == "real-dev" else part
