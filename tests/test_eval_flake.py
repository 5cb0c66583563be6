"""A review waiting on a slow model keeps its claim (docs/behaviour.md#exactly-once-claims-the-retry-queue-and-sweeps): the flake "another review took
this session over; nothing written" seen in a real `omp eval` run with a local model.

A claim is stale, whatever its pid says, once it is older than the timeout plus a margin. The
timeout used was the *judge's*: a second review of the session running with a shorter one (the
copilot backend's 120 s against the openai backend's 900 s, or another `memory-review-timeout`)
took over a first review still within its own timeout after 120 + 300 s. An `openai` reviewer is
an HTTP call, not a process a takeover can end, so the first review got its answer, found its
claim gone and wrote nothing. The claim now records its owner's timeout and is judged by it.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from helpers import run_omp
from openai_stub import StubServer, completion
from review_support import (FakeReviewer, conversation, json_reply, log_lines, pending_lines, spawn_review,
                            standard_answer, write_session)
from omp.paths import ProjectPaths
from omp.review import claim as claims

SLOW_CALL = 600.0  # seconds the first review has (as if) been waiting on its model


def _claim_file(project: Path, session: str) -> Path:
    return claims.claim_path(ProjectPaths(project), session)


def _as_if_started_earlier(path: Path, seconds: float) -> None:
    """The claim as it is `seconds` into its review: its stamp and its file time that far back."""
    record = json.loads(path.read_text())
    record["started_at"] -= seconds
    path.write_text(json.dumps(record))
    then = time.time() - seconds
    os.utime(path, (then, then))


@pytest.mark.slow
def test_a_review_waiting_on_a_slow_model_is_not_taken_over_by_one_with_a_shorter_timeout(project: Path,
                                                                                        tmp_path: Path) -> None:
    session = write_session(project, conversation())
    fake = FakeReviewer(tmp_path / "fake")
    fake.default(json_reply(standard_answer()))
    assert run_omp(["config", "set", "memory-mode", "on"], cwd=project).returncode == 0
    with StubServer() as server:
        # The local model takes its time (the first call of a real trial took 435 s; 3 s here).
        server.then(completion(json.dumps(standard_answer())))
        server.script[0].delay = 3.0
        slow = {"OMP_MEMORY_REVIEWER_URL": server.url, "OMP_MEMORY_REVIEW_MODEL": "qwen2.5-coder",
                "OMP_TOKENIZER": "estimate"}  # openai: memory-review-timeout 900 s by default
        first = spawn_review(project, slow, "--session", session, "--reviewer", "openai")
        try:
            deadline = time.monotonic() + 60
            while not server.seen and time.monotonic() < deadline:
                time.sleep(0.02)
            assert server.seen, "the first review never reached its model"
            claim = _claim_file(project, session)
            assert json.loads(claim.read_text())["timeout"] == 900
            _as_if_started_earlier(claim, SLOW_CALL)  # 600 s in: within 900, past 120 + 300

            # A second review of the session with the copilot backend (120 s) looks at the claim.
            second = run_omp(["memory-review", "--json", "--session", session, "--reviewer", "copilot"],
                             cwd=project, env=fake.env("copilot"))
            out, err = first.communicate(timeout=60)
        finally:
            if first.poll() is None:
                first.kill()
                first.wait()
    assert second.returncode == 0, second.stderr
    assert second.json()["ran"] is False and "being reviewed by pid" in second.json()["reason"]
    assert fake.calls() == []  # no second model bill, no takeover
    assert first.returncode == 0, out + err
    outcome = json.loads(out)
    assert outcome["ran"] is True, outcome  # before: "another review took this session over; nothing written"
    assert any("pnpm" in line for line in pending_lines(project))
    assert [line["outcome"] for line in log_lines(project) if line.get("session") == session][-1] == "ran"


def test_a_claim_is_stale_after_its_own_timeout_and_a_forged_one_still_within_a_day(project: Path) -> None:
    paths = ProjectPaths(project)
    held = claims.acquire(paths, "s-1", end_offset=1, force=False, timeout=900)
    assert isinstance(held, claims.Claim)
    record = claims.read_record(paths, "s-1")
    assert isinstance(record, claims.ClaimRecord) and record.timeout == 900
    now = time.time()
    # Alive, 600 s old: held under its own 900 s, whatever the judge's timeout.
    assert claims.stale_reason(record, 120, now=now + 600) is None
    # Past its own timeout and the margin: stale for every judge.
    assert "old" in (claims.stale_reason(record, 120, now=now + 900 + claims.STALE_MARGIN_SECONDS + 5) or "")
    # A claim that names a huge timeout (forged, or corrupt) blocks no longer than the largest
    # timeout omp accepts, plus the margin.
    forged = claims.ClaimRecord.from_json({**json.loads(claims.claim_path(paths, "s-1").read_text()),
                                           "timeout": 1e12, "started_at": now})
    later = now + claims.MAX_CLAIM_TIMEOUT + claims.STALE_MARGIN_SECONDS + 5
    assert "old" in (claims.stale_reason(forged, 120, now=later) or "")
    # An older omp's claim names no timeout: the judge's own counts, as before.
    legacy = claims.ClaimRecord.from_json({**json.loads(claims.claim_path(paths, "s-1").read_text()), "timeout": None})
    assert legacy.timeout is None
    assert claims.stale_reason(legacy, 120, now=now + 120 + claims.STALE_MARGIN_SECONDS + 5) is not None
