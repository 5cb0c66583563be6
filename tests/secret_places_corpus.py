"""Secrets where they live (docs/secrets-and-poisoning.md, issue 32): credential files, secret-named values in many
languages, vendors' tokens, encoded, headless, split and told-in-prose secrets, each in the place
it occurs (a file the agent `cat`s, a user's paste, the model's echo, an explicit request), and the
look-alikes that must stay readable. Shared by tests/test_secret_places.py and
bench/bench_detectors.py. Every credential is fake: made by a seeded generator in the real format.
"""

from __future__ import annotations

import base64
import random
from dataclasses import dataclass

_RNG = random.Random(32)
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_HEX = "0123456789abcdef"
_B64 = _ALNUM + "+/"


def _r(n: int, alphabet: str = _ALNUM) -> str:
    while True:
        value = "".join(_RNG.choice(alphabet) for _ in range(n))
        if alphabet != _ALNUM or (any(c.isdigit() for c in value) and any(c.isupper() for c in value)
                                  and any(c.islower() for c in value)):
            return value


def _pw() -> str:
    return f"{_r(5)}-{_r(4)}!{_RNG.randint(10, 99)}"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _pem_lines(n: int = 6, der_head: str = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC") -> list[str]:
    body = der_head + _r(64 * n - len(der_head), _B64)
    return [body[i:i + 64] for i in range(0, len(body), 64)] + [_r(40, _B64) + "=="]


PLACES = ("cat", "paste", "echo", "request")


@dataclass(frozen=True)
class PlacedSecret:
    name: str
    place: str  # cat: a file the agent reads (tool output); paste: the user's message; echo: the
    # assistant's answer; request: inside "remember that …"
    text: str
    secret: str  # the secret itself: neither it nor any 20-character prefix of it may be seen again


def _forms() -> list[tuple[str, str, str]]:
    """(name, text, secret) of every form."""
    forms: list[tuple[str, str, str]] = []

    def add(name: str, text: str, secret: str) -> None:
        assert secret in text or name.startswith("split"), name
        forms.append((name, text, secret))

    # --- credential files
    key_pem = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(_pem_lines(5, "MIIEowIBAAKCAQEA")) + "\n-----END RSA PRIVATE KEY-----\n"
    kdata = _b64(key_pem)
    add("kubeconfig client-key-data", "users:\n- name: admin\n  user:\n    client-certificate-data: "
        f"{_b64('-----BEGIN CERTIFICATE-----')}\n    client-key-data: {kdata}\n", kdata)
    tok = _r(43, _ALNUM + "-_")
    add("kubeconfig user token", f"users:\n- name: ci\n  user:\n    token: {tok}\n", tok)
    tok = f"{_r(6, 'abcdefghijklmnopqrstuvwxyz0123456789')}.{_r(16, 'abcdefghijklmnopqrstuvwxyz0123456789')}"
    add("kubeadm bootstrap token", f"kubeadm join 10.0.0.1:6443 --token {tok} --discovery-token-ca-cert-hash sha256:"
        f"{_r(64, _HEX)}", tok)
    sec = _r(40, _ALNUM + "/+")
    add("aws credentials ini", f"[default]\naws_access_key_id = AKIA{_r(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}\n"
        f"aws_secret_access_key = {sec}\nregion = eu-west-1\n", sec)
    sess = _r(120, _B64)
    add("aws session token ini", f"[prod]\naws_session_token = {sess}\n", sess)
    pw, sec = _pw(), _r(40, _ALNUM + "/+")
    csv = ("User name,Password,Access key ID,Secret access key,Console login link\n"
           f"deploy,{pw},AKIA{_r(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')},{sec},https://123456789012.signin.aws.amazon.com/console\n")
    add("aws credentials.csv secret key", csv, sec)
    add("aws credentials.csv password", csv, pw)
    sec = _r(40, _ALNUM + "/+")
    add("aws accessKeys.csv", f"Access key ID,Secret access key\nAKIA{_r(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')},{sec}\n", sec)
    pw = _pw()
    add("markdown table password column", f"| host | user | password |\n|---|---|---|\n| db1 | app | {pw} |\n", pw)
    auth = _b64(f"deploy:{_pw()}")
    add("npmrc _auth", f"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_auth={auth}\nalways-auth=true", auth)
    tok = f"{_r(8, _HEX)}-{_r(4, _HEX)}-{_r(4, _HEX)}-{_r(4, _HEX)}-{_r(12, _HEX)}"
    add("npmrc legacy _authToken", f"//registry.npmjs.org/:_authToken={tok}\n", tok)
    pw = _b64(_pw())
    add("npmrc _password", f"//npm.corp.example/:username=ci\n//npm.corp.example/:_password={pw}\n", pw)
    pw = "correct" + "horse" + "battery" + "staple"
    add("pypirc plain word password", f"[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = alice\npassword = {pw}\n", pw)
    pw = _pw()
    add("pypirc testpypi password", f"[testpypi]\nrepository = https://test.pypi.org/legacy/\nusername = bob\npassword = {pw}\n", pw)
    pw = _pw()
    add("netrc multi-line", f"machine api.heroku.com\n  login me@example.com\n  password {pw}\n", pw)
    pw = _pw()
    add("netrc one line", f"machine ftp.example.org login anon password {pw}", pw)
    pw = _pw()
    add("pgpass", f"db.internal:5432:app:appuser:{pw}\n", pw)
    pw = _pw()
    add("pgpass wildcard", f"*:*:*:replicator:{pw}\n", pw)
    auth = _b64(f"robot$ci:{_pw()}")
    add("docker config auths", '{\n  "auths": {\n    "registry.example.com": {\n      "auth": "' + auth + '"\n    }\n  }\n}', auth)
    tok = _r(60, _ALNUM + "-_.")
    add("docker identitytoken", '{"auths": {"x.azurecr.io": {"identitytoken": "' + tok + '"}}}', tok)
    kid = _r(40, _HEX)
    add("gcp private_key_id", '{\n  "type": "service_account",\n  "project_id": "acme",\n  "private_key_id": "' + kid + '",', kid)
    body = "".join(_pem_lines(4, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"))
    add("gcp private_key json", '"private_key": "-----BEGIN PRIVATE KEY-----\\n' + body[:64] + "\\n" + body[64:128]
        + '\\n-----END PRIVATE KEY-----\\n",', body[:64])
    key = _r(86, _B64) + "=="
    add("azure AccountKey", f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={key};EndpointSuffix=core.windows.net", key)
    key = _r(43, _B64) + "="
    add("azure SharedAccessKey", f"Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={key}", key)
    pw = _pw()
    add("spring properties", f"spring.datasource.url=jdbc:postgresql://db/app\nspring.datasource.password={pw}\n", pw)
    sec = _r(32, _ALNUM)
    add("s3cfg secret_key", f"[default]\naccess_key = AKIA{_r(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}\nsecret_key = {sec}\n", sec)
    tok = _r(40, _ALNUM)
    add("gh hosts.yml", f"github.com:\n    oauth_token: gho_{tok}\n    user: alice\n", tok)
    sec = _r(50, _ALNUM + "-_")
    add("django settings", f"SECRET_KEY = 'django-insecure-{sec}'", sec)
    sec = _r(34, _ALNUM + "~.")
    add("terraform tfvars", f'client_secret = "{sec}"\ntenant_id = "{_r(8, _HEX)}"', sec)
    # --- secret-named values in many languages
    langs = [
        ("rust let", 'let secret_token: &str = "{v}";'),
        ("java setter", 'client.setApiToken("{v}");'),
        ("java builder", 'Auth.builder().withClientSecret("{v}").build();'),
        ("typescript object", 'const cfg = {{ apiKey: "{v}", region: "eu" }};'),
        ("kotlin val", 'val clientSecret = "{v}"'),
        ("php variable", "$password = '{v}';"),
        ("perl my", "my $db_pass = '{v}';"),
        ("go short var", 'SECRET := "{v}"'),
        ("go const", 'const apiToken = "{v}"'),
        ("swift let", 'let authToken: String = "{v}"'),
        ("csharp const", 'private const string ApiKey = "{v}";'),
        ("ruby hash rocket", ':api_key => "{v}",'),
        ("elixir keyword", 'secret_key_base: "{v}",'),
        ("c define", '#define API_KEY "{v}"'),
        ("scala val", 'val accessToken: String = "{v}"'),
        ("dart final", "final String apiKey = '{v}';"),
        ("r assign", 'api_key <- "{v}"'),
        ("lua local", 'local secret = "{v}"'),
        ("sql create user", "CREATE USER app WITH PASSWORD '{v}';"),
        ("xml element", "<password>{v}</password>"),
        ("cpp initializer", '{{"authToken", "{v}"}},'),
        ("php define", "define('DB_PASSWORD', '{v}');"),
        ("powershell env", '$env:API_TOKEN = "{v}"'),
        ("yaml key", "webhookSecret: {v}"),
        ("toml key", 'api_token = "{v}"'),
        ("python kwarg", 'client = Client(api_key="{v}")'),
        ("java map put", 'props.put("secret", "{v}");'),
        ("js set call", 'config.set("accessToken", "{v}")'),
        ("haskell binding", 'apiToken = "{v}"'),
        ("groovy def", "def signingKey = '{v}'"),
    ]
    for name, template in langs:
        value = _r(_RNG.randint(20, 32), _ALNUM + "_-") if name != "php variable" else _r(18, _ALNUM + "!#%")
        add(f"named value: {name}", template.format(v=value), value)
    # --- vendors' tokens
    sk = "SK" + _r(32, _HEX)
    add("twilio api key", f"using key {sk} for the SMS worker", sk)
    tok = _r(32, _HEX)
    add("twilio auth token after sid", f'client = Client("AC{_r(32, _HEX)}", "{tok}")', tok)
    key = "key-" + _r(32, _HEX)
    add("mailgun key", f"mailgun: {key}", key)
    key = f"{_r(32, _HEX)}-{_r(8, _HEX)}-{_r(8, _HEX)}"
    add("mailgun private key", f"MAILGUN_API_KEY={key}", key)
    uid = _b64(str(_RNG.randint(10 ** 17, 10 ** 18))).rstrip("=")
    tok = f"{uid}.{_r(6, _ALNUM + '-_')}.{_r(38, _ALNUM + '-_')}"
    add("discord bot token", f"bot.run('{tok}')", tok)
    tok = f"SG.{_r(22, _ALNUM + '-_')}.{_r(43, _ALNUM + '-_')}"
    add("sendgrid key", f"sendgrid key is {tok}", tok)
    tok = f"{_r(32, _HEX)}-us{_RNG.randint(1, 20)}"
    add("mailchimp key", f"mc = MailchimpMarketing('{tok}')", tok)
    tok = "sq0atp-" + _r(22, _ALNUM + "-_")
    add("square token", f"SQUARE={tok}", tok)
    tok = "EAA" + _r(100, _ALNUM)
    add("facebook token", f"graph token {tok}", tok)
    tok = f"{_r(3, _ALNUM)}8Q~{_r(34, _ALNUM + '_~.-')}"
    add("azure ad client secret", f"secret value {tok} expires 2027", tok)
    tok = "LTAI" + _r(20, _ALNUM)
    add("alibaba key", f"accessKeyId {tok}", tok)
    tok = "ATBB" + _r(32, _ALNUM)
    add("bitbucket app password", f"git clone https://x-token-auth:{tok}@bitbucket.org/a/b.git", tok)
    tok = f"{_r(14, _ALNUM)}.atlasv1.{_r(67, _ALNUM)}"
    add("terraform cloud token", f'credentials "app.terraform.io" {{ token = "{tok}" }}', tok)
    tok = "CFPAT-" + _r(43, _ALNUM)
    add("contentful token", f"CONTENTFUL_MANAGEMENT={tok}", tok)
    tok = "pnu_" + _r(36, _ALNUM)
    add("prefect key", f"prefect cloud login -k {tok}", tok)
    tok = "rubygems_" + _r(48, _HEX)
    add("rubygems key", f":rubygems_api_key: {tok}", tok)
    tok = "sqp_" + _r(40, _HEX)
    add("sonar token", f"sonar-scanner -Dsonar.login={tok}", tok)
    # --- encoded
    gh = "ghp_" + _r(36, _ALNUM)
    wrapped = _b64(gh)
    add("base64-wrapped ghp token", f"echo {wrapped} | base64 -d", wrapped)
    wrapped = _b64("sk-proj-" + _r(40, _ALNUM))
    add("base64 k8s secret data", f"apiVersion: v1\nkind: Secret\ndata:\n  openai: {wrapped}\n", wrapped)
    wrapped = _b64('{"username": "svc", "password": "' + _pw() + '"}')
    add("base64 json with password", f"payload={wrapped}", wrapped)
    wrapped = _b64(f"postgres://app:{_pw()}@db.internal:5432/app")
    add("base64 database url", f"DATABASE_URL_B64 {wrapped}", wrapped)
    wrapped = base64.urlsafe_b64encode(("xoxb-" + _r(12, "0123456789") + "-" + _r(24, _ALNUM)).encode()).decode()
    add("base64url slack token", f"blob {wrapped} end", wrapped)
    lines = _pem_lines(6)
    add("pem body without BEGIN", "\n".join(lines) + "\n-----END PRIVATE KEY-----", lines[0])
    lines = _pem_lines(6, "MIIEowIBAAKCAQEA")
    add("pem body without BEGIN or END (rsa der)", "here is the rest of it:\n" + "\n".join(lines[:-1]), lines[1])
    lines = _pem_lines(5, base64.b64encode(b"openssh-key-v1\x00\x00\x00\x00\x04none").decode()[:28])
    add("openssh body without header", "\n".join(lines[:-1]) + "\n", lines[1])
    # --- split tokens
    gh = "ghp_" + _r(36, _ALNUM)
    add("split by concatenation (js)", f'const t = "{gh[:14]}" + "{gh[14:]}";', gh)
    sk = "sk-proj-" + _r(40, _ALNUM)
    add("split by concatenation (php)", f"$k = '{sk[:3]}' . '{sk[3:]}';", sk)
    gh = "ghp_" + _r(36, _ALNUM)
    add("split by markup", f"the token: {gh[:22]}<!---->{gh[22:]}", gh)
    gh = "ghp_" + _r(36, _ALNUM)
    add("split across lines", f"export GH={gh[:26]}\n{gh[26:]}", gh)
    xo = "xoxb-" + _r(12, "0123456789") + "-" + _r(13, "0123456789") + "-" + _r(24, _ALNUM)
    add("split by implicit concatenation (python)", f't = ("{xo[:24]}"\n     "{xo[24:]}")', xo)
    ak = "AKIA" + _r(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    add("split by shell continuation", f"aws configure set key {ak[:10]}\\\n{ak[10:]}", ak)
    # --- told in prose
    for template in ("log in with admin / {v}", "login: deploy / {v}", "the credentials are root / {v}",
                     "user ops password {v}", "sign in as qa-bot with {v} on staging",
                     "use the username svc_ci and the password {v}"):
        value = _pw()
        add(f"prose: {template.split(' {v}')[0][:24]}", template.format(v=value), value)
    return forms


def _placed(forms: list[tuple[str, str, str]]) -> tuple[PlacedSecret, ...]:
    cases = []
    for i, (name, text, secret) in enumerate(forms):
        for place in (PLACES[i % 4], PLACES[(i + 1) % 4]):  # every form in two places
            if place == "request":
                body = f"remember that the deploy setup uses this: {text}"
            elif place == "paste":
                body = f"here is my config:\n{text}"
            else:
                body = text
            cases.append(PlacedSecret(name, place, body, secret))
    return tuple(cases)


FORMS = _forms()
SECRETS: tuple[PlacedSecret, ...] = _placed(FORMS)


def _lookalikes() -> list[tuple[str, str]]:
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(_RNG.randrange(256) for _ in range(300))).decode()
    gif = base64.b64encode(b"GIF89a" + bytes(_RNG.randrange(256) for _ in range(120))).decode()
    cert = base64.b64encode(b"0\x82\x03\x000\x82\x01\xe8\xa0\x03\x02\x01\x02" + bytes(_RNG.randrange(256) for _ in range(400))).decode()
    cert_lines = "\n".join(cert[i:i + 64] for i in range(0, len(cert), 64))
    img_lines = "\n".join(png[i:i + 76] for i in range(0, len(png), 76))
    sha = _r(40, _HEX)
    return [
        ("git sha", f"commit {sha}"),
        ("short sha", f"HEAD is now at {sha[:7]} fix the build"),
        ("git log oneline", f"{_r(40, _HEX)} Merge pull request #42 from acme/feature"),
        ("git range", f"git diff {_r(12, _HEX)}..{_r(12, _HEX)}"),
        ("uuid", f"session {_r(8, _HEX)}-{_r(4, _HEX)}-4{_r(3, _HEX)}-a{_r(3, _HEX)}-{_r(12, _HEX)} started"),
        ("uuid upper", f"Request-Id: {_r(8, _HEX).upper()}-{_r(4, _HEX).upper()}-{_r(4, _HEX).upper()}-{_r(4, _HEX).upper()}-{_r(12, _HEX).upper()}"),
        ("sha256sum", f"{_r(64, _HEX)}  dist/omp-1.2.0.tar.gz"),
        ("sha512sum", f"{_r(128, _HEX)}  dist/omp-1.2.0-py3-none-any.whl"),
        ("md5sum", f"{_r(32, _HEX)}  README.md"),
        ("sha1sum", f"{_r(40, _HEX)} *setup.py"),
        ("npm integrity", f'"integrity": "sha512-{_r(86, _B64)}=="'),
        ("npm sha1 integrity", f'"integrity": "sha1-{_r(27, _B64)}="'),
        ("sri script", f'<script src="x.js" integrity="sha384-{_r(64, _B64)}" crossorigin="anonymous"></script>'),
        ("docker digest", f"ghcr.io/acme/app@sha256:{_r(64, _HEX)}"),
        ("docker pull output", f"Digest: sha256:{_r(64, _HEX)}\nStatus: Downloaded newer image"),
        ("docker image id", f"Successfully built {_r(12, _HEX)}"),
        ("pip hash", f"requests==2.32.3 --hash=sha256:{_r(64, _HEX)}"),
        ("go.sum", f"golang.org/x/text v0.14.0 h1:{_r(43, _B64)}="),
        ("cargo checksum", f'checksum = "{_r(64, _HEX)}"'),
        ("base64 png", f'<img src="data:image/png;base64,{png}">'),
        ("base64 png lines", img_lines),
        ("base64 gif", f"gif: {gif}"),
        ("certificate body", f"-----BEGIN CERTIFICATE-----\n{cert_lines}\n-----END CERTIFICATE-----"),
        ("client-certificate-data", f"    client-certificate-data: {_b64('-----BEGIN CERTIFICATE-----' + _r(60))}"),
        ("certificate-authority-data", f"    certificate-authority-data: {_b64('-----BEGIN CERTIFICATE-----' + _r(60))}"),
        ("ssh public key", f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_r(43, _B64)} alice@laptop"),
        ("twilio account sid alone", f"account AC{_r(32, _HEX)} (see console)"),
        ("hex colour", "color: #1a2b3c; background: #FFEEDD;"),
        ("version string", "omp 1.2.3-beta.4+build.5678 (python 3.11.7)"),
        ("semver range", '"typescript": "^5.4.5"'),
        ("etag", f'ETag: W/"{_r(32, _HEX)}"'),
        ("aws arn", "arn:aws:iam::123456789012:role/service-role/DeployRole-2024"),
        ("aws request id", f"RequestId: {_r(8, _HEX)}-{_r(4, _HEX)}-{_r(4, _HEX)}-{_r(4, _HEX)}-{_r(12, _HEX)}"),
        ("token count", "token_count = 4096\nmax_tokens: 8000"),
        ("secret name ref", "secretKeyRef:\n  name: db-credentials\n  key: password"),
        ("public key field", '"publicKey": "' + _r(44, _B64) + '"'),
        ("cache key", f'cache_key = "{_r(32, _HEX)}"'),
        ("password from env", 'password = os.environ["DB_PASSWORD"]'),
        ("token from call", "token = get_token(scope=\"repo\")"),
        ("long identifier path", "src/omp/safety/credential_files.py::test_the_table_finder_reads_every_row"),
        ("prose about login", "log in with your SSO account, then reset the password from the profile page"),
        ("base64 of plain text", f"echo {_b64('hello world, this is just a note about the build')} | base64 -d"),
        ("minified css", ".a{margin:0 auto;padding:4px 8px}.btn-primary-lg{color:#0d6efd}"),
        ("k8s uid", f"uid: {_r(8, _HEX)}-{_r(4, _HEX)}-{_r(4, _HEX)}-{_r(4, _HEX)}-{_r(12, _HEX)}"),
        ("csv without secrets", "name,email,role\nalice,alice@example.com,admin\nbob,bob@example.com,dev"),
        ("time stamps", "12:30:45 INFO 2024-05-01T10:00:00Z job:5432:started"),
    ]


LOOKALIKES: tuple[tuple[str, str], ...] = tuple(_lookalikes())
