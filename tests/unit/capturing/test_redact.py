"""Secret redaction: names, token formats, URLs, argv, and properties that must always hold."""

from __future__ import annotations

import random
import string
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envsnap.capturing.redact import REDACTED, Redactor

R = Redactor()
_RNG = random.Random(20240601)


def _rand(alphabet: str, count: int) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(count))


ALNUM = string.ascii_letters + string.digits
B64URL = ALNUM + "_-"

# Built at run time so the repository holds no realistic-looking credentials.
TOKENS = {
    "huggingface": "hf_" + _rand(ALNUM, 34),
    "huggingface_org": "api_org_" + _rand(ALNUM, 30),
    "github_classic": "ghp_" + _rand(ALNUM, 36),
    "github_oauth": "gho_" + _rand(ALNUM, 36),
    "github_app": "ghs_" + _rand(ALNUM, 36),
    "github_fine": "github_pat_" + _rand(ALNUM, 22) + "_" + _rand(ALNUM, 59),
    "gitlab": "glpat-" + _rand(B64URL, 20),
    "openai": "sk-" + _rand(ALNUM, 48),
    "openai_project": "sk-proj-" + _rand(B64URL, 40),
    "anthropic": "sk-ant-api03-" + _rand(B64URL, 40),
    "aws_access_key": "AKIA" + _rand(string.ascii_uppercase + string.digits, 16),
    "aws_session_key": "ASIA" + _rand(string.ascii_uppercase + string.digits, 16),
    "slack_bot": "xoxb-" + _rand(string.digits, 12) + "-" + _rand(ALNUM, 24),
    "slack_user": "xoxp-" + _rand(string.digits, 12) + "-" + _rand(ALNUM, 24),
    "google": "AIza" + _rand(B64URL, 35),
    "npm": "npm_" + _rand(ALNUM, 36),
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx" + _rand(B64URL, 12) + "." + _rand(B64URL, 43),
}


@pytest.mark.parametrize("kind", sorted(TOKENS))
@pytest.mark.parametrize(
    "template", ["{}", "token={} ", "Authorization: token {}", "'{}'", "url?x={}&y=1"]
)
def test_known_token_formats_are_redacted_anywhere_in_text(kind: str, template: str) -> None:
    text = template.format(TOKENS[kind])
    out = R.redact_text(text)
    assert TOKENS[kind] not in out
    assert REDACTED in out


@pytest.mark.parametrize("kind", sorted(TOKENS))
def test_token_formats_are_redacted_under_harmless_names(kind: str) -> None:
    assert TOKENS[kind] not in R.redact_value("OMP_PLACES", f"cores {TOKENS[kind]}")


def test_pem_private_key_block_is_removed_whole() -> None:
    body = _rand(ALNUM, 64)
    text = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\nafter"
    assert R.redact_text(text) == f"{REDACTED}\nafter"
    assert body not in R.redact_text(f"-----BEGIN PRIVATE KEY-----\n{body}")


@pytest.mark.parametrize(
    "name",
    [
        "HF_TOKEN",
        "HUGGING_FACE_HUB_TOKEN",
        "GITHUB_TOKEN",
        "WANDB_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "AWSSECRETACCESSKEY",
        "DB_PASSWORD",
        "DB_PASSWD",
        "SMTP_PASS",
        "MY_SECRET",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "PROXY_AUTH",
        "SESSION_COOKIE",
        "SENTRY_DSN",
        "SSH_PRIVATE_KEY",
        "HFTOKEN",
        "OPENAI_APIKEY",
        "--hf-token",
        "--api_key",
        "--password",
        "api.key",
    ],
)
def test_secret_like_names(name: str) -> None:
    assert R.is_secret_name(name)
    assert R.redact_value(name, "plain-value-123") == REDACTED


@pytest.mark.parametrize(
    "name",
    [
        "TOKENIZERS_PARALLELISM",
        "HF_HUB_DISABLE_IMPLICIT_TOKEN",
        "KEYBOARD_LAYOUT",
        "PWD",
        "OLDPWD",
        "MAX_NEW_TOKENS",
        "--max-tokens",
        "pad_token_id",
        "NUM_TOKENS_PER_BATCH",
        "CUDA_VISIBLE_DEVICES",
        "CUBLAS_WORKSPACE_CONFIG",
        "NCCL_IB_PKEY",
        "OMP_NUM_THREADS",
    ],
)
def test_lookalike_names_are_not_secret(name: str) -> None:
    assert not R.is_secret_name(name)
    assert R.redact_value(name, "false") == "false"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://alice:pw123@github.com/o/r.git", "https://<redacted>@github.com/o/r.git"),
        ("https://oauth2:abc@gitlab.com/o/r.git", "https://<redacted>@gitlab.com/o/r.git"),
        ("ssh://git@github.com/o/r.git", "ssh://git@github.com/o/r.git"),
        ("git@github.com:o/r.git", "git@github.com:o/r.git"),
        ("bob:pw123@host:o/r.git", "<redacted>@host:o/r.git"),
        (
            "https://host/r.git?access_token=abc&x=1",
            "https://host/r.git?access_token=<redacted>&x=1",
        ),
        ("https://github.com/o/r.git", "https://github.com/o/r.git"),
        # A registry image reference with credentials, as W&B records a Docker image.
        ("bob:pw123@registry.example.com/t/img:1.0", "<redacted>@registry.example.com/t/img:1.0"),
        # An image pinned by digest is no credential; neither is a dot-less a:b@c/d.
        (
            "nvcr.io/nvidia/pytorch:24.09-py3@sha256:" + "a" * 64,
            "nvcr.io/nvidia/pytorch:24.09-py3@sha256:" + "a" * 64,
        ),
        ("see a:b@c/d", "see a:b@c/d"),
    ],
)
def test_url_credentials(url: str, expected: str) -> None:
    assert R.redact_url(url) == expected


def test_token_used_as_url_user_is_redacted() -> None:
    token = TOKENS["github_classic"]
    assert R.redact_url(f"https://{token}@github.com/o/r.git") == (
        "https://<redacted>@github.com/o/r.git"
    )
    long_user = _rand(string.ascii_lowercase + string.digits, 40)
    assert long_user not in R.redact_url(f"https://{long_user}@example.com/x")


def test_argv_forms() -> None:
    argv = [
        "train.py",
        "--hf-token",
        "plainA1",
        "--password=plainB2",
        "API_KEY=plainC3",
        "--env=HF_TOKEN=plainD4",
        "--header",
        "Authorization: Bearer plainE5xyz",
        "--data",
        "s3://k:plainF6@bucket/x",
        "--max-tokens",
        "512",
        "--lr=0.1",
    ]
    out = R.redact_argv(argv)
    joined = " ".join(out)
    for secret in ("plainA1", "plainB2", "plainC3", "plainD4", "plainE5xyz", "plainF6"):
        assert secret not in joined
    assert out[0] == "train.py"
    assert out[-3:] == ["--max-tokens", "512", "--lr=0.1"]


def test_plain_text_is_left_alone() -> None:
    for text in ["basic training run", "task-0123456789abcdefghij", "lr=3e-4 batch=32", "sk-"]:
        assert R.redact_text(text) == text


def test_extra_patterns_from_config() -> None:
    custom = Redactor(extra_patterns=(r"corp-[0-9]{6}",))
    assert custom.redact_text("id corp-123456 end") == f"id {REDACTED} end"
    assert R.redact_text("id corp-123456 end") == "id corp-123456 end"


def test_redact_json_by_name_and_by_format() -> None:
    value = {
        "api_key": "plainZ9",
        "nested": [{"url": "https://u:p@h/x"}, 3, None, True],
        "pad_token": "<pad>",
    }
    by_name = R.redact_json(value)
    assert by_name["api_key"] == REDACTED
    assert by_name["nested"] == [{"url": "https://<redacted>@h/x"}, 3, None, True]
    by_format = R.redact_json(value, by_name=False)
    assert by_format["api_key"] == "plainZ9"  # names are not judged in this mode
    assert by_format["pad_token"] == "<pad>"
    assert by_format["nested"][0]["url"] == "https://<redacted>@h/x"


# Property tests: whatever surrounds a token, it never survives, and redaction is stable.
_noise = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40
).map(lambda s: s.replace("\x00", ""))
_separator = st.sampled_from([" ", "\n", "=", ":", "'", '"', ",", "/", "(", "\t", "@"])


@settings(max_examples=150, deadline=None)
@given(
    prefix=_noise,
    sep1=_separator,
    kind=st.sampled_from(sorted(TOKENS)),
    sep2=_separator,
    suffix=_noise,
)
def test_property_embedded_token_never_survives(
    prefix: str, sep1: str, kind: str, sep2: str, suffix: str
) -> None:
    text = f"{prefix}{sep1}{TOKENS[kind]}{sep2}{suffix}"
    assert TOKENS[kind] not in R.redact_text(text)
    assert TOKENS[kind] not in " ".join(R.redact_argv(text.split()))


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=80))
def test_property_redaction_is_idempotent(text: str) -> None:
    once = R.redact_text(text)
    assert R.redact_text(once) == once


@settings(max_examples=100, deadline=None)
@given(
    user=st.text(alphabet=ALNUM + "._-", min_size=1, max_size=12),
    password=st.text(alphabet=ALNUM + "!$*+-._~", min_size=1, max_size=24),
    host=st.sampled_from(["github.com", "gitlab.example.org", "hub.io"]),
)
def test_property_url_password_never_survives(user: str, password: str, host: str) -> None:
    url = f"https://{user}:{password}@{host}/repo.git"
    out = R.redact_url(url)
    assert f":{password}@" not in out
    assert out.endswith(f"@{host}/repo.git")


@settings(max_examples=100, deadline=None)
@given(words=st.lists(st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=8), max_size=8))
def test_property_ordinary_words_pass_unchanged(words: list[str]) -> None:
    text = " ".join(words)
    assert R.redact_text(text) == text


@pytest.mark.parametrize(
    "arg",
    [
        '--config={"wandb_api_key": "0123456789abcdef0123"}',
        '{"hf_token":"secretvalue123"}',
        "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=abcDEF123==;EndpointSuffix=core",
    ],
)
def test_secrets_inside_json_and_connection_strings_are_redacted(arg: str) -> None:
    out = Redactor().redact_argv([arg])[0]
    assert REDACTED in out
    for secret in ("0123456789abcdef0123", "secretvalue123", "abcDEF123=="):
        assert secret not in out


def test_redaction_of_a_huge_unbroken_argument_finishes() -> None:
    """An open-ended pattern once made this quadratic (tens of seconds inside the job)."""
    result: list[str] = []
    worker = threading.Thread(target=lambda: result.extend(Redactor().redact_argv(["a" * 200_000])))
    worker.start()
    worker.join(60)
    assert result == ["a" * 200_000]


@pytest.mark.parametrize(
    "unit", ['api_key = "', "key: str", "key:", "k='a ", "a=", "--token ", 'x="', "k: v "]
)
def test_redaction_of_huge_code_shaped_text_finishes(unit: str) -> None:
    """Names, annotations and open quotes repeated: each must be scanned a bounded number of times."""
    text = unit * (200_000 // len(unit))
    result: list[str] = []
    worker = threading.Thread(target=lambda: result.append(Redactor().redact_text(text)))
    worker.start()
    worker.join(60)
    assert len(result) == 1


# Source code as it appears in a recorded git patch: spaces around `=`, keyword arguments,
# single quotes and type annotations.
@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('openai.api_key = "myS3cretValue1234567"', f'openai.api_key = "{REDACTED}"'),
        (
            'client = Client(api_key="abcDEF1234567890xyz")',
            f'client = Client(api_key="{REDACTED}")',
        ),
        ("DB_PASSWORD = 'hunter2hunter2'", f"DB_PASSWORD = '{REDACTED}'"),
        ('    secret_key: str = "s3cr3t value"', f'    secret_key: str = "{REDACTED}"'),
        ('+AUTH: Optional[str] = "zzTop99"  # x', f'+AUTH: Optional[str] = "{REDACTED}"  # x'),
        ('{"hf_token": "two words"}', f'{{"hf_token": "{REDACTED}"}}'),
        ("password:'a b'", f"password:'{REDACTED}'"),
    ],
)
def test_quoted_secrets_assigned_in_code_are_redacted(line: str, expected: str) -> None:
    assert R.redact_text(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        'model_name: str = "gpt2"',
        'tokenizer = AutoTokenizer.from_pretrained("bert-base")',
        "api_key = os.environ['OPENAI_API_KEY']",
        'max_tokens: int = 512  # "quoted"',
    ],
)
def test_code_without_a_quoted_secret_is_left_alone(line: str) -> None:
    assert R.redact_text(line) == line


def test_unclosed_quoted_secret_is_still_redacted() -> None:
    out = R.redact_text('api_key = "abcDEF1234567890xyz')
    assert "abcDEF1234567890xyz" not in out


@pytest.mark.parametrize(
    "text",
    [
        "sk-fix-tokenizer-padding",
        "git checkout sk-ant-fix-tokenizer-padding-issue",
        "sk-proj-rename-the-data-loader-module",
        "/data/highs_abcdefghijklmnopqrstuvwxyz/x",
        "/runs/wrights_abcdefghijklmnopqrstuvwxyz0123",
        "pushf_abcdefghijklmnopqrstuvwxyz",
        "task-0123456789abcdefghijklmnop",
        "DISK-0123456789abcdefghijklmnop",
    ],
)
def test_prefix_lookalikes_inside_words_or_branch_names_are_left_alone(text: str) -> None:
    assert R.redact_text(text) == text


@pytest.mark.parametrize("kind", ["openai", "openai_project", "anthropic", "huggingface"])
@pytest.mark.parametrize("template", ["branch/{}", "-{}-", "x_{}", "({})"])
def test_key_shaped_tokens_after_a_separator_are_still_redacted(kind: str, template: str) -> None:
    out = R.redact_text(template.format(TOKENS[kind]))
    assert TOKENS[kind] not in out
    assert REDACTED in out


def test_secret_switch_without_a_value_does_not_hide_the_next_option() -> None:
    argv = ["t.py", "--private", "--lr", "0.1", "--token", "plainZ9", "--auth", "-v"]
    assert R.redact_argv(argv) == [
        "t.py",
        "--private",
        "--lr",
        "0.1",
        "--token",
        REDACTED,
        "--auth",
        "-v",
    ]


@pytest.mark.parametrize(
    "name",
    [
        "--key-size",
        "--token-budget",
        "--token-limit",
        "KEY_LENGTH",
        "--secret-len",
        "--cert-dir",
        "--ssl-certfile",
        "--train-tokens-path",
        "AUTH_TOKEN_COUNT",
        "--key-bits",
    ],
)
def test_secret_word_followed_by_a_setting_word_is_a_setting(name: str) -> None:
    assert not R.is_secret_name(name)
    assert R.redact_argv(["t.py", name, "256"]) == ["t.py", name, "256"]


@pytest.mark.parametrize("name", ["--size-key", "FILE_TOKEN", "AWS_ACCESS_KEY_ID", "--path-secret"])
def test_setting_word_before_the_secret_word_keeps_it_secret(name: str) -> None:
    assert R.is_secret_name(name)


HEX_KEY = _rand("0123456789abcdef", 40)
BASE64_KEY = _rand(ALNUM + "+/", 43) + "="
SHA256 = _rand("0123456789abcdef", 64)


@pytest.mark.parametrize(
    "name",
    [
        "--token-file",
        "--api-key-path",
        "--password-file",
        "--credentials-file",
        "--auth-file",
        "--secret-dir",
        "--ssl-keyfile",
        "HF_TOKEN_PATH",
        "SSH_KEY_PATH",
        "DB_PASSWORD_FILE",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "--tokenfile",
        "APIKEYFILE",
    ],
)
def test_where_a_secret_is_kept_is_hidden_like_the_secret(name: str) -> None:
    assert R.is_secret_name(name)
    assert R.redact_argv(["t.py", f"{name}=/run/secrets/x"]) == ["t.py", f"{name}={REDACTED}"]
    if name.startswith("--"):
        assert R.redact_argv(["t.py", name, "/run/secrets/x"]) == ["t.py", name, REDACTED]


@pytest.mark.parametrize(
    "name", ["DB_PASSWD", "DB_PWD", "OPENAI_APIKEY", "GH_PAT", "SSH_PRIVATE_KEY", "SMTP_PW"]
)
def test_secret_suffixes_of_other_spellings(name: str) -> None:
    assert R.redact_value(name, "plainvalue") == REDACTED


@pytest.mark.parametrize("value", [HEX_KEY, BASE64_KEY, HEX_KEY.upper()])
@pytest.mark.parametrize("name", ["MY_SERVICE_ID", "REQUEST_SIG", "UPLOAD_HASH", "x"])
def test_a_random_value_under_an_innocent_name_is_redacted(name: str, value: str) -> None:
    assert R.redact_value(name, value) == REDACTED
    assert R.redact_argv(["t.py", f"{name}={value}"]) == ["t.py", f"{name}={REDACTED}"]
    assert R.redact_argv(["t.py", f"--{name}", value]) == ["t.py", f"--{name}", REDACTED]
    assert R.redact_argv(["t.py", value]) == ["t.py", REDACTED]
    for line in (f'{name} = "{value}"', f"{name}: {value}", f"export {name}={value}"):
        assert value not in R.redact_text(line)


@pytest.mark.parametrize(
    "name",
    ["GIT_COMMIT", "CI_COMMIT_SHA", "--revision", "HF_HUB_REVISION", "sha256", "imageDigest"],
)
def test_commits_and_digests_named_as_such_are_kept(name: str) -> None:
    for value in (HEX_KEY, SHA256):
        assert R.redact_value(name, value) == value
        assert R.redact_argv(["t.py", f"{name}={value}"]) == ["t.py", f"{name}={value}"]
        assert R.redact_text(f'{name} = "{value}"') == f'{name} = "{value}"'


@pytest.mark.parametrize(
    "text",
    [
        SHA256,  # a whole value with no name: the manifest's own digest fields
        f"Subproject commit {HEX_KEY}",
        f"index {HEX_KEY[:7]}..{SHA256[:7]} 100644",
        f'hash = "sha256:{SHA256}"',
        f"pkg.whl#sha256={SHA256}",
        f"--hash=sha256:{SHA256}",
        f"/root/.cache/huggingface/hub/models--gpt2/snapshots/{HEX_KEY}/config.json",
    ],
)
def test_digests_in_free_text_are_kept(text: str) -> None:
    assert R.redact_text(text) == text
    if text != SHA256:  # alone on a command line, a random value may be anything
        assert R.redact_argv(["t.py", text]) == ["t.py", text]


@pytest.mark.parametrize(
    "value",
    [
        "GPU-8a3b1c2d-1234-5678-9abc-def012345678",
        "8a3b1c2d-1234-5678-9abc-def012345678",
        "/checkpoints/ResNet50/Run2024A/Epoch10Final",
        "meta-llama/Meta-Llama-3.1-70B-Instruct",
        "my_experiment_run_2024_05_01_lr3e4_bs256",
        "EleutherAIgptneox20bDedupedCheckpoint2024",
        "/usr/local/cuda-12.4/lib64:/usr/lib/x86_64-linux-gnu",
        "0" * 40,
    ],
)
def test_names_paths_and_uuids_are_not_random(value: str) -> None:
    assert R.redact_value("MY_SETTING", value) == value


def test_random_keys_are_recognised_nearly_always() -> None:
    rng = random.Random(7)
    hexes = ["".join(rng.choice("0123456789abcdef") for _ in range(40)) for _ in range(500)]
    keys = ["".join(rng.choice(ALNUM + "+/") for _ in range(44)) for _ in range(500)]
    kept = [v for v in hexes + keys if R.redact_value("MY_ID", v) != REDACTED]
    assert len(kept) <= 5, kept  # letters-only keys are the known miss (about 1 in 300)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("python t.py --token-file /run/s --lr 1", f"python t.py --token-file {REDACTED} --lr 1"),
        ("--password Letmein1 --x", f"--password {REDACTED} --x"),
        ("a --private may take no value", "a --private may take no value"),
        ("--key-size 256 --tokens-file a.bin", "--key-size 256 --tokens-file a.bin"),
        (
            'curl -H"Authorization: Bearer abcdefgh"',
            f'curl -H"Authorization: {REDACTED} {REDACTED}"',
        ),
    ],
)
def test_options_and_headers_inside_one_text(text: str, expected: str) -> None:
    assert R.redact_text(text) == expected


# Secret-named pairs written with spaces, as INI files (~/.aws/credentials), shell and source
# code write them. The values are built at run time: no key-shaped literal is committed.
INI_KEY = _rand(ALNUM + "+/", 41)  # one character off the AWS format: only the name marks it


@pytest.mark.parametrize(
    "line",
    [
        f"aws_secret_access_key = {INI_KEY}",
        f"+aws_secret_access_key = {INI_KEY}",
        f"[default]\naws_access_key_id = x\naws_secret_access_key = {INI_KEY}\nregion = eu",
        f"api_key = {INI_KEY}",
        f"secret = {INI_KEY}",
        f"SECRET\t=\t{INI_KEY}",
        f"api_key: {INI_KEY}",
        f"export HF_TOKEN = {INI_KEY}",
    ],
)
def test_secret_named_pairs_with_spaces_are_redacted_in_free_text(line: str) -> None:
    out = R.redact_text(line)
    assert INI_KEY not in out
    assert REDACTED in out


def test_spaced_pairs_keep_the_rest_of_the_text() -> None:
    text = f"[default]\naws_secret_access_key = {INI_KEY}\nregion = eu-west-1\n"
    assert (
        R.redact_text(text)
        == f"[default]\naws_secret_access_key = {REDACTED}\nregion = eu-west-1\n"
    )


@pytest.mark.parametrize(
    "line",
    [
        "self.api_key = api_key",
        "token = args.token",
        "token = None",
        "token = get_token()",
        "secret = config['secret']",
        "if api_key == other_key:",
        "tokens => tokens + 1",
        "lr = 3e-4",
        "token: Optional[str] = None",
    ],
)
def test_code_that_refers_to_a_secret_is_left_alone(line: str) -> None:
    assert R.redact_text(line) == line


@pytest.mark.parametrize(
    "text",
    [
        "machine h login a password {}",
        "machine git.example.com password {} login a",
        "default login anonymous password {}",
        "machine h\n  login a\n  password {}\n",
        "+machine h\n+login a\n+passwd {}\n",
        "machine h login a account {} password {}",
        "machine a.example.com login u password {}\nmachine b.example.com login v password {}",
    ],
)
def test_netrc_passwords_are_redacted(text: str) -> None:
    secret = "HunterTwo" + _rand(ALNUM, 6)
    filled = text.replace("{}", secret)
    for out in (
        R.redact_text(filled),
        R.redact_value("NETRC_LINE", filled),
        " ".join(R.redact_argv(["t.py", filled])),
    ):
        assert secret not in out
    assert R.redact_text("machine h login a password x") == f"machine h login a password {REDACTED}"


@pytest.mark.parametrize(
    "text",
    [
        "a machine learning password policy",
        "the default password length is 12",
        "machine h login a",
    ],
)
def test_prose_and_netrc_entries_without_passwords_are_left_alone(text: str) -> None:
    assert R.redact_text(text) == text


@pytest.mark.parametrize("name", ["code", "otp", "hmac", "totp", "otp_code", "sig", "signature"])
@pytest.mark.parametrize("start", ["?", "&", "#", "%3F", "%26"])
def test_one_time_secrets_in_a_url_query_are_redacted(name: str, start: str) -> None:
    secret = "Zq" + _rand(ALNUM, 10)
    url = f"https://api.example.com/cb?x=1{start}{name}={secret}&state=s1"
    assert secret not in R.redact_url(url)
    assert secret not in R.redact_value("CALLBACK_URL", url)
    assert secret not in R.redact_argv(["t.py", url])[1]
    assert "state=s1" in R.redact_url(url)


@pytest.mark.parametrize(
    "text",
    [
        "exit code=3",
        "https://h.example.com/x?error_code=404&country_code=US",
        "https://h.example.com/x?lang=en&code_version=2",
        "https://cdn.example.com/app.js?hash=3f5a9c1e",  # a short content hash
        "python -m code=1",
    ],
)
def test_code_and_hash_names_outside_a_secret_place_are_kept(text: str) -> None:
    assert R.redact_text(text) == text


def test_a_query_hash_is_redacted_only_when_it_looks_random() -> None:
    key = _rand(ALNUM, 40)
    assert key not in R.redact_url(f"https://h.example.com/login?id=7&hash={key}")
    short = "3f5a9c1e"
    assert short in R.redact_url(f"https://h.example.com/app.js?hash={short}")


@pytest.mark.parametrize(
    "query",
    [
        "password%3D={}",
        "pass%77ord={}",
        "%70assword={}",
        "api%5Fkey={}",
        "user%5Bpassword%5D={}",
        "pass%2577ord={}",  # escaped twice
        "next=https%3A%2F%2Fh.example.com%2Fcb%3Ftoken%3D{}%26page%3D2",
    ],
)
def test_percent_escaped_names_are_decoded_before_they_are_judged(query: str) -> None:
    secret = "Zq" + _rand(ALNUM, 10)
    url = "https://h.example.com/x?" + query.replace("{}", secret)
    out = R.redact_url(url)
    assert secret not in out
    assert out.startswith("https://h.example.com/x?")
    if "page" in query:
        assert out.endswith("%26page%3D2")  # an escaped pair after the secret is kept


@pytest.mark.parametrize("kind", sorted(TOKENS))
@pytest.mark.parametrize("template", ["%22{}%22", "q=x%3D{}", "%2F{}", "a%20{}%20b"])
def test_tokens_right_after_a_percent_escape_are_redacted(kind: str, template: str) -> None:
    out = R.redact_text(template.format(TOKENS[kind]))
    assert TOKENS[kind] not in out


@pytest.mark.parametrize("name", ["HF_LOGIN", "DOCKER_LOGIN", "--login", "npm.login"])
def test_a_name_ending_in_login_hides_its_value(name: str) -> None:
    assert R.is_secret_name(name)
    assert R.redact_value(name, "plainsecretvalue") == REDACTED


@pytest.mark.parametrize("name", ["LOGIN_URL", "LOGIN_TIMEOUT", "LOGNAME", "LOGIN_RETRY_COUNT"])
def test_login_followed_by_another_word_is_a_setting(name: str) -> None:
    assert not R.is_secret_name(name)


def test_random_keys_without_a_digit_are_recognised_when_they_have_base64_punctuation() -> None:
    rng = random.Random(11)
    letters = string.ascii_letters + "+/"
    keys = ["".join(rng.choice(letters) for _ in range(rng.randint(32, 64))) for _ in range(2000)]
    keys = [k for k in keys if "+" in k or "/" in k]
    kept = [k for k in keys if R.redact_value("MY_ID", k) != REDACTED]
    assert len(kept) <= len(keys) // 12, len(kept)  # measured: 1 in 11 at 32 chars, 1 in 25 at 64
    for key in keys[:50]:
        if key not in kept:
            assert R.redact_argv(["t.py", key]) == ["t.py", REDACTED]


@pytest.mark.parametrize(
    "value",
    [
        "/checkpoints/ResNet/RunFinal/EpochBestModel",
        "/Users/Shared/Data/ImageNet/TrainSplit",
        "data/imagenet/TrainSplit/ClassNames/Index",
        "BertModel+LinearHead+CrossEntropyLoss",
        "EleutherAI/PythiaDedupedCheckpointFinal",
        "HuggingFaceH/ZephyrBetaInstruct/Tokenizer",
        "flip+crop+normalize+colorjitter+grayscale",
    ],
)
def test_digit_free_paths_and_name_lists_are_not_random(value: str) -> None:
    assert R.redact_value("MY_SETTING", value) == value
    assert R.redact_argv(["t.py", value]) == ["t.py", value]
