"""The review packet (docs/explicit-requests-and-eval.md#the-packet) and token counting."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
import tiktoken
from helpers import built_once
from sessions_support import (
    FIXTURE,
    assistant,
    conversation,
    generate_session,
    lines,
    tool_request,
    tool_result,
    user,
)
from test_safety import PEM_BLOCK, SECRET_PARTS, SECRETS

import omp.tokens as tokens_module
from omp.packet import CONTEXT_SHARE, PAIR_LEVELS, Packet, SessionIndexer, build_packet
from omp.review.explicit import scan
from omp.sessions.events import SessionReader
from omp.tokens import TokenCounter, estimate_tokens, get_counter

LABEL = re.compile(r"^\[(user|assistant|tool) #(\d+)\]$", re.M)


def byte_level_encoding() -> tiktoken.Encoding:
    """A real tiktoken Encoding built offline (LIBRARIES.md): one token per byte."""
    return tiktoken.Encoding(
        name="test-bytes",
        pat_str=r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
        mergeable_ranks={bytes([i]): i for i in range(256)},
        special_tokens={},
    )


TIKTOKEN = TokenCounter(byte_level_encoding())
ESTIMATE = TokenCounter()
COUNTERS = pytest.mark.parametrize("counter", [TIKTOKEN, ESTIMATE], ids=["tiktoken", "estimate"])


def write(tmp_path: Path, events: list) -> Path:
    path = tmp_path / "events.jsonl"
    path.write_text(lines(events), encoding="utf-8")
    return path


def labels(packet: Packet) -> list[tuple[str, int]]:
    return [(origin, int(seq)) for origin, seq in LABEL.findall(packet.text)]


def assert_well_formed(packet: Packet, counter: TokenCounter) -> None:
    assert packet.tokens == counter.count(packet.text)
    assert packet.tokens <= packet.budget
    seqs = [m.seq for m in packet.messages]
    assert seqs == sorted(seqs), "conversation order kept"
    assert labels(packet) == [(m.origin, m.seq) for m in packet.messages]


# --------------------------------------------------------------------------------------------
# Token counting


def test_tiktoken_counter_uses_the_encoding() -> None:
    assert TIKTOKEN.name == "tiktoken"
    assert TIKTOKEN.count("héllo") == len("héllo".encode())  # byte-level: one token per byte
    assert TIKTOKEN.count("text with <|endoftext|> inside") > 0  # data, not a special token


def test_estimate_over_counts_bytes_per_token() -> None:
    assert ESTIMATE.name == "estimate"
    assert estimate_tokens("") == 0
    assert estimate_tokens("abc") == 1
    assert estimate_tokens("abcd") == 2
    assert estimate_tokens("日本語") == 5  # 9 non-ASCII bytes / 2, rounded up
    english = "The quick brown fox jumps over the lazy dog. " * 100
    assert estimate_tokens(english) >= len(english) / 4  # o200k takes ~4 characters of English per token


def test_get_counter_falls_back_to_the_estimate_quickly(monkeypatch: pytest.MonkeyPatch) -> None:
    def offline(name: str) -> tiktoken.Encoding:
        raise ConnectionError("no network")

    monkeypatch.setattr(tiktoken, "get_encoding", offline)
    tokens_module.reset_counter_cache()
    try:
        assert get_counter().name == "estimate"
        assert get_counter() is get_counter()  # tried once per process
    finally:
        tokens_module.reset_counter_cache()


def test_get_counter_never_blocks_on_a_hanging_download(monkeypatch: pytest.MonkeyPatch) -> None:
    def hanging(name: str) -> tiktoken.Encoding:
        time.sleep(30)
        raise AssertionError("unreachable")

    monkeypatch.setattr(tiktoken, "get_encoding", hanging)
    monkeypatch.setattr(tokens_module, "LOAD_TIMEOUT", 0.2)
    tokens_module.reset_counter_cache()
    started = time.monotonic()
    try:
        assert get_counter().name == "estimate"
    finally:
        tokens_module.reset_counter_cache()
    assert time.monotonic() - started < 10


def test_get_counter_uses_tiktoken_when_the_encoding_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    encoding = byte_level_encoding()
    monkeypatch.setattr(tiktoken, "get_encoding", lambda name: encoding)
    tokens_module.reset_counter_cache()
    try:
        counter = get_counter()
        assert counter.name == "tiktoken" and counter.count("abc") == 3
        monkeypatch.setenv("OMP_TOKENIZER", "estimate")
        tokens_module.reset_counter_cache()
        assert get_counter().name == "estimate"
    finally:
        tokens_module.reset_counter_cache()


# --------------------------------------------------------------------------------------------
# What reaches the packet


@COUNTERS
def test_fixture_packet_has_every_message_labelled(counter: TokenCounter) -> None:
    packet = build_packet(FIXTURE, 2000, counter=counter)
    assert_well_formed(packet, counter)
    assert labels(packet) == [("user", 0), ("assistant", 1), ("tool", 2), ("assistant", 3)]
    assert packet.tokenizer == counter.name
    assert packet.end_offset == FIXTURE.stat().st_size
    assert packet.stats.to_dict()["kept"] == {"user": 1, "assistant": 2, "tool": 1}
    assert "[user #0]\nplease USE_TOOL now" in packet.text


def test_no_secret_reaches_the_packet(tmp_path: Path) -> None:
    texts = [SECRETS[name] for name in sorted(SECRETS)]
    path = write(tmp_path, [
        user("Here are the credentials: " + texts[0]),
        *[user(text) for text in texts[1:8]],
        assistant("Noted " + texts[8], [tool_request("c1", command=f"export T={texts[9]}")]),
        tool_result("c1", "\n".join(texts[10:]) + "\n" + PEM_BLOCK + "\n" + "filler line\n" * 2000),
        user("and my key:\n" + PEM_BLOCK),
    ])
    packet = build_packet(path, 20_000, counter=ESTIMATE)
    for name in SECRETS:
        for part in SECRET_PARTS[name]:
            assert part not in packet.text, name
    assert "MIIEowIBAAKCAQEA" not in packet.text
    assert packet.stats.redactions["private-key"] == 2
    assert sum(packet.stats.redactions.values()) >= len(SECRETS)
    assert "[REDACTED:github-token]" in packet.text


def test_huge_tool_output_is_redacted_around_its_cuts(tmp_path: Path) -> None:
    token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    # Secrets placed right where the head and tail cuts fall, and deep in the middle.
    output = ("word " * 139) + token + " " + ("filler " * 300_000) + token + " " + ("tail " * 99) + "END"
    path = write(tmp_path, [user("run it"), assistant("", [tool_request("c1")]), tool_result("c1", output)])
    packet = build_packet(path, 24_000, counter=ESTIMATE)
    tool = [m for m in packet.messages if m.origin == "tool"][0]
    assert "ghp_" not in packet.text
    assert tool.text.startswith(f"(tool output: bash; {len(output):,} chars)")
    assert tool.text.rstrip().endswith("END")
    omitted = int(re.search(r"\[… ([\d,]+) characters omitted …\]", tool.text).group(1).replace(",", ""))
    assert len(output) - 2_000 < omitted < len(output)


def test_a_secret_across_either_cut_of_an_ordinary_tool_output_is_never_shown_in_part(tmp_path: Path) -> None:
    """A 20 KB output (no key block) is redacted only a few KB beyond its cuts: every corpus
    secret placed across the head cut or the tail cut is still seen whole and redacted; a key
    block across the tail cut, its header kilobytes before it, takes the full margin."""
    from safety_corpus import SECRETS as CASES

    events: list = [user("run them")]
    for number, case in enumerate(CASES):
        filler = "word " * 4000
        half = len(case.text) // 2
        head = filler[: 700 - half] + case.text + " " + filler
        tail = filler + case.text + " " + "end " * ((500 - half) // 4)
        events += [assistant("", [tool_request(f"h{number}")]), tool_result(f"h{number}", head),
                   assistant("", [tool_request(f"t{number}")]), tool_result(f"t{number}", tail)]
    import base64
    import random

    rng = random.Random(3)  # a 6 KB key (RSA 4096 and PGP blocks are this long and longer)
    body = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(4_500))).decode()
    long_key = "\n".join(["-----BEGIN RSA PRIVATE KEY-----", *(body[i:i + 64] for i in range(0, len(body), 64)),
                          "-----END RSA PRIVATE KEY-----"])
    key_lines = long_key.splitlines()
    key_tail = ("word " * 4000) + long_key + "\n" + "end " * 100
    events += [assistant("", [tool_request("k")]), tool_result("k", key_tail)]
    path = write(tmp_path, events)
    packet = build_packet(path, 400_000, counter=ESTIMATE)
    tools = [m for m in packet.messages if m.origin == "tool"]
    assert len(tools) == 2 * len(CASES) + 1  # every output is in the packet
    for case in CASES:
        for needle in case.needles:
            assert needle not in packet.text, case.name
    assert not [line for line in key_lines[1:-1] if line in packet.text]


def test_shas_and_uuids_are_not_redacted(tmp_path: Path) -> None:
    import hashlib
    import uuid

    shas = [hashlib.sha1(str(i).encode()).hexdigest() for i in range(50)]
    uuids = [str(uuid.UUID(int=i * 7919 + 12345)) for i in range(50)]
    path = write(tmp_path, [
        user("commits " + " ".join(shas[:25])),
        assistant("sessions " + " ".join(uuids[:25])),
        *[tool_result(f"c{i}", f"{sha} {u} sha256:{hashlib.sha256(sha.encode()).hexdigest()}")
          for i, (sha, u) in enumerate(zip(shas[25:], uuids[25:]))],
    ])
    packet = build_packet(path, 24_000, counter=ESTIMATE)
    assert packet.stats.redactions == {}
    assert "REDACTED" not in packet.text
    for value in shas + uuids:
        assert value in packet.text


@COUNTERS
def test_a_600kb_user_message_keeps_head_and_tail_within_budget(tmp_path: Path, counter: TokenCounter) -> None:
    big = "BIG-HEAD " + "\n".join(f"log line {i} with some words in it" for i in range(18_000)) + " BIG-TAIL"
    assert len(big) > 600_000
    path = write(tmp_path, [
        user("first question"), assistant("first answer"),
        user(big), assistant("that is a long log"),
        user("last question"), assistant("last answer"),
    ])
    packet = build_packet(path, 5_000, counter=counter)
    assert_well_formed(packet, counter)
    kept_users = [m for m in packet.messages if m.origin == "user"]
    assert [m.seq for m in kept_users] == [0, 2, 4]  # every user message survives
    cut = kept_users[1].text
    assert cut.startswith("BIG-HEAD") and cut.endswith("BIG-TAIL")
    assert "characters omitted" in cut
    assert packet.stats.trimmed["user"] == 1


@COUNTERS
def test_user_messages_win_over_assistant_and_tool(tmp_path: Path, counter: TokenCounter) -> None:
    events: list = []
    for n in range(40):
        events += [
            user(f"user request number {n}: please change module {n} and run its tests"),
            assistant(f"assistant reply {n} " + "explaining the change in detail " * 30,
                      [tool_request(f"c{n}", command=f"pytest tests/test_{n}.py")]),
            tool_result(f"c{n}", f"tool output {n}\n" + "PASSED test line\n" * 400),
        ]
    path = write(tmp_path, events)
    packet = build_packet(path, 5_000, counter=counter)
    assert_well_formed(packet, counter)
    stats = packet.stats.to_dict()
    assert stats["kept"]["user"] == 40  # all users first
    assert stats["dropped"]["user"] == 0
    assert stats["dropped"]["tool"] > 0


def test_newest_user_messages_win_when_not_all_fit(tmp_path: Path) -> None:
    events = [user(f"user message {n:03d} " + "word " * 60) for n in range(100)]
    path = write(tmp_path, events)
    packet = build_packet(path, 2_000, counter=ESTIMATE)
    assert_well_formed(packet, ESTIMATE)
    kept = [m.seq for m in packet.messages]
    assert 0 < len(kept) < 100
    assert kept == list(range(100 - len(kept), 100))  # the newest, in order
    assert packet.text.startswith(f"[{len(kept)} of 100 messages; #N is a message's position")


def test_early_user_messages_survive_a_long_tool_heavy_tail(tmp_path: Path) -> None:
    """Never "only the last N messages": what matters most is kept wherever it is."""
    events = [user(f"early instruction {n}: use pnpm, never npm") for n in range(5)]
    for n in range(300):
        events += [assistant("", [tool_request(f"c{n}")]), tool_result(f"c{n}", "x y z\n" * 500)]
    path = write(tmp_path, events)
    packet = build_packet(path, 3_000, counter=ESTIMATE)
    assert_well_formed(packet, ESTIMATE)
    assert [m.seq for m in packet.messages if m.origin == "user"] == [0, 1, 2, 3, 4]


def test_packet_from_a_cursor_has_only_new_turns(tmp_path: Path) -> None:
    path = write(tmp_path, conversation("/p", ["old question"]))
    first = build_packet(path, 5_000, counter=ESTIMATE)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(lines([user("new question"), assistant("new answer")]))
    second = build_packet(path, 5_000, cursor=first.end_offset, counter=ESTIMATE)
    assert [m.text for m in second.messages] == ["new question", "new answer"]
    assert "old question" not in second.text
    assert second.cursor == first.end_offset
    assert second.end_offset == path.stat().st_size


def test_empty_packet_when_nothing_is_new(tmp_path: Path) -> None:
    path = write(tmp_path, conversation("/p", ["q"]))
    size = path.stat().st_size
    packet = build_packet(path, 5_000, cursor=size, counter=ESTIMATE)
    assert packet.messages == [] and packet.text == "" and packet.tokens == 0
    assert packet.end_offset == size


# --------------------------------------------------------------------------------------------
# A large generated session (~20 MB; the 100 MB case is in bench/), generated once per run and
# read by every worker whose tests need it (helpers.built_once). Its tests also share one xdist
# group, which keeps them on one worker where pytest-xdist can.
ONE_WORKER = pytest.mark.xdist_group("large_session")


@pytest.fixture(scope="module")
def large_session() -> tuple[Path, dict]:
    def build(folder: Path) -> None:
        info = generate_session(folder / "events.jsonl", mb=20, user_messages=150, seed=3)
        (folder / "info.json").write_text(json.dumps(info), encoding="utf-8")

    folder = built_once("large-session", build)
    return folder / "events.jsonl", json.loads((folder / "info.json").read_text(encoding="utf-8"))


@ONE_WORKER
@COUNTERS
@pytest.mark.parametrize("budget", [1_000, 24_000])
def test_large_session_packet_stays_within_budget(large_session: tuple[Path, dict], budget: int,
                                                  counter: TokenCounter) -> None:
    path, info = large_session
    packet = build_packet(path, budget, counter=counter)
    assert_well_formed(packet, counter)
    stats = packet.stats.to_dict()
    assert stats["seen"] == info["messages"]
    assert stats["bad_lines"] == 0 and not stats["partial_tail"]
    assert packet.end_offset == info["bytes"]
    users = [m.seq for m in packet.messages if m.origin == "user"]
    assert users, "user messages come first"
    # docs/explicit-requests-and-eval.md#the-packet (changed by issue 13): corrections and explicit requests first, each with the
    # assistant turn it answers; never user messages alone.
    kept = {m.seq for m in packet.messages}
    pairs = _corrections_and_requests(path)
    assert pairs and stats["kept"]["assistant"] > 0
    for user_seq, assistant_seq in pairs:
        if user_seq in kept:
            assert assistant_seq is None or assistant_seq in kept
    if budget >= 24_000:
        assert all(u in kept and (a is None or a in kept) for u, a in pairs)


def _corrections_and_requests(path: Path) -> list[tuple[int, int | None]]:
    """(user message, the assistant message just before it) for every correction and request."""
    from omp.intents.checks import asks_to_keep

    pairs: list[tuple[int, int | None]] = []
    answered: int | None = None
    for message in SessionReader(path).iter_messages():
        if message.origin == "assistant":
            answered = message.seq
        elif message.origin == "user":
            if asks_to_keep(message.text):
                pairs.append((message.seq, answered))
            answered = None
    return pairs


@ONE_WORKER
@pytest.mark.parametrize("budget", [1_000, 24_000])
def test_a_review_reads_the_session_once_for_the_explicit_pass_and_the_packet(
        large_session: tuple[Path, dict], budget: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/performance.md#where-speed-matters: one pass over the file. The explicit pass's stream indexes the messages for
    the packet, and the packet built from that index is the one the packet's own scan builds."""
    path, _info = large_session
    alone = build_packet(path, budget, counter=ESTIMATE)
    opened: list[int] = []
    real_open = SessionReader._open

    def counting_open(self: SessionReader):  # type: ignore[no-untyped-def]
        opened.append(self.cursor)
        return real_open(self)

    monkeypatch.setattr(SessionReader, "_open", counting_open)
    indexer = SessionIndexer(SessionReader(path))
    found = scan(indexer.messages())
    packet = build_packet(path, budget, counter=ESTIMATE, index=indexer.index(found.asking))
    assert opened == [0], "the session is streamed once"
    assert packet.to_dict() == alone.to_dict()
    index = indexer.index(found.asking)
    assert found.messages == len(index.entries) == sum(alone.stats.seen.values())
    assert index.must_keep == {user for user, _ in _corrections_and_requests(path)}


def test_the_index_of_one_pass_matches_the_packets_own_scan(tmp_path: Path) -> None:
    path = write(tmp_path, conversation("/p", ["No, the other one.", "From now on use pnpm.", "thanks"])
                 + [assistant("ok", [tool_request("c9", command="make check")]), tool_result("c9", "all good")])
    indexer = SessionIndexer(SessionReader(path, 0))
    messages = list(indexer.messages())
    found = scan(messages)
    entries = list(SessionReader(path, 0).iter_entries())
    index = indexer.index(found.asking)
    assert [(e.seq, e.origin, e.offset) for e in index.entries] == [(e.seq, e.origin, e.offset) for e in entries]
    assert [m.seq for m in messages] == [e.seq for e in entries]
    users = [m for m in messages if m.origin == "user"]
    assert found.asking == {users[1].seq}  # the request; the correction is the indexer's own
    assert index.must_keep == {users[0].seq, users[1].seq}


@ONE_WORKER
@COUNTERS
def test_large_session_all_user_messages_reach_the_packet_when_they_fit(large_session: tuple[Path, dict],
                                                                        counter: TokenCounter) -> None:
    path, info = large_session
    users = [m for m in SessionReader(path).iter_messages() if m.origin == "user"]
    needed = sum(counter.count(f"[user #{m.seq}]\n{m.text}") + 2 for m in users)
    # The other user messages leave CONTEXT_SHARE to assistant and tool context, and the
    # corrections and requests bring the assistant turns they answer (docs/explicit-requests-and-eval.md#the-packet).
    answers = PAIR_LEVELS[0][1] * len(_corrections_and_requests(path))
    packet = build_packet(path, int((needed + answers) / (1 - CONTEXT_SHARE)) + 200, counter=counter)
    assert_well_formed(packet, counter)
    assert packet.stats.kept["user"] == info["messages"]["user"] == 150
    assert packet.stats.trimmed["user"] == 0
    kept = {m.seq: m.text for m in packet.messages}
    assert all(kept[m.seq] == m.text for m in users)  # whole, unaltered


@COUNTERS
@pytest.mark.parametrize("budget", [0, 30, 80, 200, 400])
def test_tiny_budgets_are_never_exceeded(budget: int, counter: TokenCounter) -> None:
    packet = build_packet(FIXTURE, budget, counter=counter)
    assert packet.tokens <= budget
    assert packet.tokens == counter.count(packet.text)
    if packet.messages:  # whatever fits, the user's message is in it first
        assert packet.stats.kept["user"] == 1
