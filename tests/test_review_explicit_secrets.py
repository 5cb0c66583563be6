"""The explicit pass never stores a secret, whole or in part (docs/reviewer-answer-schema.md, docs/secrets-and-poisoning.md; issue 32).

Each case is a user's request that holds a credential — a URL's password, a token, a password
told in prose — with a sign inside it (`!`, `.`, `?`, `;`, `#`, `&`, a non-ASCII letter) where
a sentence used to be cut. Each runs through the real review (`omp memory-review`, the
`offline` reviewer: the explicit pass alone), and no file under `.omp/` or `.github/` may hold
the secret or any 8-character part of its value. The ordinary requests next to them are still
proposed, whole.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from omp.intents.request import Request
from omp.memory.items import RejectionCode
from omp.review import explicit
from review_support import FakeReviewer, assistant, pending_lines, review, user, write_session

GHP = "ghp_A1b2C3d4E5F6g7H8i9J0!k1L2m3N4o5P6q7R8"
GHP_DE = "ghp_Zz9Yy8Xx7Ww6Vv5Uu4!Tt3Ss2Rr1Qq0Pp9Oo"

# (id, the user's message, the secret value that must never be stored)
SECRETS: list[tuple[str, str, str]] = [
    # English
    ("en-url-bang", "From now on connect with postgres://app:S3cr3t!x9@db:5432/app", "S3cr3t!x9"),
    ("en-token-bang", f"Remember: the token is {GHP}", GHP),
    ("en-prose-slash", "From now on log in with admin / Hunter2!Pw", "Hunter2!Pw"),
    ("en-prose-question", "From now on log in to staging as admin with Xq7?mZ2pLw, thanks.", "Xq7?mZ2pLw"),
    ("en-url-semicolon", "Always deploy through redis://:Kp9;vT4xQe@cache.internal:6379/0 from now on.", "Kp9;vT4xQe"),
    ("en-prose-hash", "Remember that the admin password is Zr8#kW3nQp for the test box.", "Zr8#kW3nQp"),
    ("en-url-amp", "From now on use amqp://bus:Hq4&zY8!mN@mq:5672/ for the queue", "Hq4&zY8!mN"),
    ("en-key-bang", "Remember that the API key is sk-proj-Ab12Cd34!Ef56Gh78Ij90Kl12Mn34 for the bot.",
     "sk-proj-Ab12Cd34!Ef56Gh78Ij90Kl12Mn34"),
    ("en-url-unicode", "Going forward push with https://deploy:Pässwörd!92x@git.example.com/repo.git please",
     "Pässwörd!92x"),
    ("en-passphrase-dots", "From now on the ssh passphrase is Mv5.qR8.zT3!Lk", "Mv5.qR8.zT3!Lk"),
    ("en-creds-question", "Remember that our creds are admin/Gf7!kP2?wQ", "Gf7!kP2?wQ"),
    ("en-user-password", "From now on sign in with user: admin password: Wd9!xL4#qR", "Wd9!xL4#qR"),
    ("en-slack-bang", "From now on post with the token xoxb-1234567890-Ab!Cd3Ef5Gh7Ij9", "xoxb-1234567890-Ab!Cd3Ef5Gh7Ij9"),
    ("en-never-question", "Never log in with root:Tq4?Lm8!Zx on prod", "Tq4?Lm8!Zx"),
    # German
    ("de-url-bang", "Ab sofort: verbinde dich mit postgres://app:Gehe1m!99x@db:5432/app", "Gehe1m!99x"),
    ("de-prose-hash", "Merk dir: das Passwort ist Xk9#pQ2!zz", "Xk9#pQ2!zz"),
    ("de-prose-question", "Ab sofort: melde dich mit admin / Sonne7?Regen4 an.", "Sonne7?Regen4"),
    ("de-token-bang", f"Merk dir bitte: der Token lautet {GHP_DE}", GHP_DE),
    # Spanish
    ("es-url-bang", "A partir de ahora conéctate con mysql://root:Clave!2024x@10.0.0.5/app", "Clave!2024x"),
    ("es-prose-question", "Recuerda que la contraseña es Ma9!drid?77", "Ma9!drid?77"),
    ("es-url-amp", "De ahora en adelante usa amqp://cola:Ro5&sa!9Tq@mq/ para la cola", "Ro5&sa!9Tq"),
    # French
    ("fr-url-bang", "Désormais, connecte-toi avec postgres://app:Mdp!Fr4nce@db/app", "Mdp!Fr4nce"),
    ("fr-prose-at", "Retiens que le mot de passe est Cr0iss@nt!9z", "Cr0iss@nt!9z"),
    ("fr-url-unicode", "À l'avenir, pousse avec https://bot:Éclair!7çà@git.example.fr/depot.git", "Éclair!7çà"),
    # Portuguese
    ("pt-url-bang", "De agora em diante use postgres://app:S3nhaF0rte!1@db/app", "S3nhaF0rte!1"),
    ("pt-prose-hash", "Lembre-se de que a senha é Bz7!qW3#xP", "Bz7!qW3#xP"),
    # Chinese
    ("zh-url-bang", "以后连接数据库用 postgres://app:Mi4Ma!88x@db:5432/app", "Mi4Ma!88x"),
    ("zh-prose-hash", "记住：密码是 Xk9#pQ2!zzQ，不要改。", "Xk9#pQ2!zzQ"),
    # Japanese
    ("ja-url-bang", "今後は postgres://app:Hi5Mitsu!9x@db/app で接続してください", "Hi5Mitsu!9x"),
    ("ja-prose-question", "覚えておいて：パスワードは Tk7?yO3!kyo です", "Tk7?yO3!kyo"),
]

# (id, the user's message, what the pending rule must read)
ORDINARY: list[tuple[str, str, str]] = [
    ("en-pnpm-bang", "From now on use pnpm! It's faster.", "Use pnpm"),
    ("en-url-query", "Remember that the API docs live at https://docs.example.com/api?v=2&lang=en. Thanks!",
     "The API docs live at https://docs.example.com/api?v=2&lang=en"),
    ("en-env-password", "Never commit the .env file, it holds the DB password.", "Never commit the .env file, it holds the DB password"),
    ("en-key-path", "Remember that the deploy key is ~/.ssh/id_ed25519 on CI.", "The deploy key is ~/.ssh/id_ed25519 on CI"),
    ("en-token-variable", "From now on read the token from $GITHUB_TOKEN!", "Read the token from $GITHUB_TOKEN"),
    ("de-pnpm-bang", "Ab sofort nutze pnpm! Das ist schneller.", "Ab sofort nutze pnpm"),
    ("zh-pnpm-bang", "以后都用pnpm!谢谢", "都用pnpm"),
    ("ja-sentence-ends", "今後は pnpm を使ってください！ありがとう。", "Pnpm を使ってください"),
    ("es-password-manager", "A partir de ahora usa el gestor de contraseñas para la clave del servidor.",
     "Usa el gestor de contraseñas para la clave del servidor"),
]


@pytest.fixture
def fake(tmp_path: Path) -> FakeReviewer:
    return FakeReviewer(tmp_path / "fake")


def _written(project: Path) -> str:
    """Every file omp may write in the project: `.omp/` and `.github/`, read whole."""
    texts = []
    for folder in (project / ".omp", project / ".github"):
        if folder.is_dir():
            texts += [path.read_bytes().decode("utf-8", "replace") for path in folder.rglob("*") if path.is_file()]
    return "\n".join(texts)


def _parts(secret: str, size: int = 8) -> list[str]:
    """The secret and each of its `size`-character parts."""
    return [secret] + [secret[i:i + size] for i in range(len(secret) - size + 1)]


def _review(project: Path, fake: FakeReviewer, *messages: str) -> dict[str, Any]:
    events = []
    for text in messages:
        events += [user(text), assistant("Noted.")]
    # Enough messages that the session is not trivial even when nothing in it may be proposed.
    events += [user("what does this regex do?"), assistant("It matches dates.")]
    session = write_session(project, events)
    done = review(project, fake.env("offline"), "--session", session)
    assert done.returncode == 0, done.stdout + done.stderr
    out: dict[str, Any] = done.json()
    assert out["ran"] is True, out
    return out


@pytest.mark.parametrize(("message", "secret"), [case[1:] for case in SECRETS], ids=[case[0] for case in SECRETS])
def test_no_part_of_a_secret_in_a_request_is_ever_stored(project: Path, fake: FakeReviewer, message: str, secret: str) -> None:
    out = _review(project, fake, message)
    written = _written(project)
    leaked = [part for part in _parts(secret) if part.lower() in written.lower()]
    assert leaked == [], (leaked, pending_lines(project))
    assert pending_lines(project) == []
    # Refused as a secret, counted, never shown.
    refused = [r for r in out["rejected"] if "contains a secret" in r["reason"] and r["source"] == "explicit"]
    assert refused and out["summary"]["secrets_rejected"] >= 1, out
    assert all(part not in str(out) for part in _parts(secret))


def test_the_table_spans_the_signs_and_languages_it_promises() -> None:
    assert len(SECRETS) >= 25
    for sign in "!.?;#&":
        assert any(sign in secret for _, _, secret in SECRETS), sign
    assert any(not secret.isascii() for _, _, secret in SECRETS)
    assert {case[0][:2] for case in SECRETS} >= {"en", "de", "es", "fr", "pt", "zh", "ja"}


@pytest.mark.parametrize(("message", "rule"), [case[1:] for case in ORDINARY], ids=[case[0] for case in ORDINARY])
def test_ordinary_requests_next_to_them_are_still_proposed_whole(project: Path, fake: FakeReviewer, message: str, rule: str) -> None:
    _review(project, fake, message)
    assert pending_lines(project) == [f"- [ ] {rule}"]


def test_a_secret_in_one_sentence_does_not_cost_the_rule_beside_it(project: Path, fake: FakeReviewer) -> None:
    out = _review(project, fake, "From now on use pnpm! Also remember that the staging password is Hunter2!Pw9")
    assert pending_lines(project) == ["- [ ] Use pnpm"]
    assert not any(part in _written(project) for part in _parts("Hunter2!Pw9"))
    assert out["summary"]["secrets_rejected"] >= 1


# ---------------------------------------------------------------------------------------------
# the second lines, where the detector finds nothing


@dataclass
class Msg:
    origin: str
    text: str
    seq: int = 0


@pytest.fixture
def blind(monkeypatch: pytest.MonkeyPatch) -> None:
    """A detector that finds nothing: what the explicit pass must still refuse on its own."""
    monkeypatch.setattr(explicit, "find_secrets", lambda _text: [])


def _refusals(text: str) -> tuple[list[str], list[str]]:
    found = explicit.scan([Msg("user", text)])
    return [p.text for p in found.proposals], [r.reason for r in found.rejected if r.code == RejectionCode.SECRET]


@pytest.mark.parametrize("message", [
    "From now on log in with admin / Hunter2!Pw",
    "Remember that our creds are admin/Gf7!kP2?wQ",
    "From now on sign in with user: admin password: Wd9xL4qRtz",
    "Never log in with root:Tq4?Lm8!Zx on prod",
    "Ab sofort: melde dich mit admin / Sonne7?Regen4 an.",
    "Recuerda que la contraseña es Ma9!drid?77",
    "Retiens que le mot de passe est Cr0iss@nt!9z",
    "Lembre-se de que a senha é Bz7!qW3#xP",
    "以后登录用 admin/Xk9pQ2zzLm",
    "覚えておいて：パスワードは Tk7?yO3!kyo です",
])
def test_a_password_told_in_prose_is_refused_though_the_detector_sees_none(blind: None, message: str) -> None:
    proposed, refused = _refusals(message)
    assert proposed == [] and refused and all("password-in-rule" in reason for reason in refused), (proposed, refused)


@pytest.mark.parametrize(("message", "rule"), [
    ("Never commit the API key to git.", "Never commit the API key to git"),
    ("From now on rotate the deploy key every 90 days.", "Rotate the deploy key every 90 days"),
    ("Always sign commits with the key id_ed25519.", "Always sign commits with the key id_ed25519"),
    ("Remember that the token lives in ~/.config/gh/hosts.yml.", "The token lives in ~/.config/gh/hosts.yml"),
    ("From now on keep every password in 1Password.", "Keep every password in 1Password"),
    ("Ab sofort: das Passwort steht im Tresor.", "Das Passwort steht im Tresor"),
    ("From now on log in with the Python3 launcher.", "Log in with the Python3 launcher"),
])
def test_a_rule_about_credentials_without_one_is_still_proposed(blind: None, message: str, rule: str) -> None:
    assert _refusals(message) == ([rule], [])


def test_a_rule_cut_out_of_a_longer_token_is_refused_though_the_detector_sees_none(
        blind: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever cut it (a grammar pattern that splits at a sign), a rule that keeps only a part of
    a run without whitespace is not stored: its other part may be the rest of a password."""
    message = "From now on connect with postgres://app:S3cr3t!x9@db:5432/app"

    def cutting(text: str) -> Iterator[Request]:
        yield Request("directive", "Connect with postgres://app:S3cr3t", "From now on connect with postgres://app:S3cr3t!")

    monkeypatch.setattr(explicit, "requests_in", cutting)
    proposed, refused = _refusals(message)
    assert proposed == [] and refused == ["explicit (user message #0): contains a secret (cut-token)"]


def test_a_rule_that_only_drops_the_sign_after_a_word_is_whole(blind: None) -> None:
    assert _refusals("From now on use pnpm! It's faster.") == (["Use pnpm"], [])
    assert _refusals("Remember that the docs live at docs/api.md.") == (["The docs live at docs/api.md"], [])


def test_a_long_evidence_is_clipped_between_words_never_inside_one() -> None:
    token = "postgres://app:S3cr3t!x9@db:5432/app"
    assert explicit._clip(f"connect with {token} now", 30) == "connect with"
    assert explicit._clip("以后都用pnpm。谢谢", 6) == "以后都用"
    assert explicit._clip("short enough", 30) == "short enough"


CORPUS = Path(__file__).resolve().parent.parent / "omp" / "data" / "eval" / "corpus.jsonl"


def test_no_ordinary_request_of_the_eval_corpus_is_refused_as_a_secret() -> None:
    """The figure in docs/explicit-requests-and-eval.md: every request the corpus's user messages
    make, outside its `secret` cases, is still proposed (none refused as a secret); every
    `secret` case's request is refused."""
    ordinary = refused = secret_cases = 0
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        said = [Msg("user", m["content"], n) for n, m in enumerate(case["messages"]) if m["role"] == "user"]
        found = explicit.scan(said)
        withheld = [r for r in found.rejected if r.code == RejectionCode.SECRET]
        if case["category"] == "secret":
            secret_cases += 1
            assert found.proposals == [], case["id"]
            continue
        ordinary += len(found.proposals)
        refused += len(withheld)
        assert withheld == [], (case["id"], [r.reason for r in withheld])
    assert ordinary >= 200 and refused == 0 and secret_cases >= 8, (ordinary, secret_cases)
