"""Secret redaction for everything envsnap writes: env values, argv and URLs.

Two independent tests decide that something is secret, and either one is enough:
- the *name* (an env var or a command-line flag) has a word such as TOKEN, KEY or PASSWORD;
- the *value* matches a known credential format (Hugging Face, GitHub, OpenAI, AWS, Slack,
  JWT...), or is a URL with a password in it.
A name-flagged value is replaced whole. A format match replaces only the matching part, so
`--model-url https://u:p@host/x` still shows the host.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

REDACTED = "<redacted>"

# Words that, as a whole segment of a name split on `_`, `-` or `.`, mark the value as secret.
# Segments rather than substrings, so TOKENIZERS_PARALLELISM or KEYBOARD are not secrets.
SECRET_NAME_WORDS = frozenset(
    {
        "TOKEN",
        "TOKENS",
        "KEY",
        "KEYS",
        "APIKEY",
        "SECRET",
        "SECRETS",
        "PASSWORD",
        "PASSWD",
        "PASSPHRASE",
        "PWD",
        "CREDENTIAL",
        "CREDENTIALS",
        "CREDS",
        "AUTH",
        "AUTHORIZATION",
        "COOKIE",
        "SESSION",
        "PRIVATE",
        "SIGNATURE",
        "PAT",
        "BEARER",
        "CERT",
        "DSN",
    }
)
# Names that contain a secret word but are known not to hold secrets. PWD is the shell's cwd.
NOT_SECRET_NAMES = frozenset({"PWD", "OLDPWD", "HF_HUB_DISABLE_IMPLICIT_TOKEN"})

_TOKEN_PATTERNS: tuple[str, ...] = (
    r"hf_[A-Za-z0-9]{20,}",  # Hugging Face user access tokens
    r"api_org_[A-Za-z0-9]{20,}",  # Hugging Face organisation tokens
    r"gh[pousr]_[A-Za-z0-9]{20,}",  # GitHub classic and app tokens
    r"github_pat_[A-Za-z0-9_]{20,}",  # GitHub fine-grained tokens
    r"glpat-[A-Za-z0-9_\-]{16,}",  # GitLab personal tokens
    r"sk-(?:proj-|ant-)?[A-Za-z0-9_\-]{16,}",  # OpenAI / Anthropic style keys
    r"(?:AKIA|ASIA)[0-9A-Z]{16}",  # AWS access key ids
    r"xox[abposr]-[A-Za-z0-9\-]{10,}",  # Slack tokens
    r"AIza[0-9A-Za-z_\-]{35}",  # Google API keys
    r"npm_[A-Za-z0-9]{30,}",  # npm tokens
    r"eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}",  # JWTs
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----",  # PEM private keys
)
# user:password@ (or a bare token@) in any scheme://authority.
_URL_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<userinfo>[^/@\s]+)@")
_SPLIT_NAME = re.compile(r"[_\-.]+")


@dataclass(frozen=True)
class Redactor:
    """Applies the secret rules. `extra_patterns` are user regexes (from the config file)."""

    extra_patterns: tuple[str, ...] = ()
    _value_re: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        patterns = (*_TOKEN_PATTERNS, *self.extra_patterns)
        object.__setattr__(self, "_value_re", re.compile("|".join(f"(?:{p})" for p in patterns)))

    def is_secret_name(self, name: str) -> bool:
        """True when a variable or flag name suggests its value is a secret."""
        upper = name.strip().lstrip("-").upper()
        if upper in NOT_SECRET_NAMES:
            return False
        words = [w for w in _SPLIT_NAME.split(upper) if w]
        if any(word in SECRET_NAME_WORDS for word in words):
            return True
        # Glued forms such as APIKEY, ACCESSKEY, HFTOKEN, DBPASSWORD.
        return any(
            word.endswith(("TOKEN", "APIKEY", "SECRET", "PASSWORD", "PASSWD")) for word in words
        )

    def redact_text(self, text: str) -> str:
        """Replace credential-shaped substrings and URL user-info in free text."""
        text = _URL_USERINFO.sub(lambda m: f"{m.group('scheme')}{REDACTED}@", text)
        return self._value_re.sub(REDACTED, text)

    def redact_value(self, name: str, value: str) -> str:
        """Redact `value` of the variable `name`: whole when the name is secret-like."""
        if self.is_secret_name(name):
            return REDACTED if value else value
        return self.redact_text(value)

    def redact_env(self, env: Iterable[tuple[str, str]]) -> dict[str, str]:
        return {name: self.redact_value(name, value) for name, value in env}

    def redact_argv(self, argv: Sequence[str]) -> list[str]:
        """Redact secrets in a command line: `--token X`, `--token=X`, `KEY=X` and token formats."""
        out: list[str] = []
        hide_next = False
        for arg in argv:
            if hide_next:
                out.append(REDACTED)
                hide_next = False
                continue
            if arg.startswith("-") and "=" not in arg and self.is_secret_name(arg):
                out.append(arg)
                hide_next = True
                continue
            if "=" in arg:
                name, _, value = arg.partition("=")
                if self.is_secret_name(name) and value:
                    out.append(f"{name}={REDACTED}")
                    continue
            out.append(self.redact_text(arg))
        return out

    def redact_url(self, url: str) -> str:
        """Strip credentials from a URL (git remotes, index URLs)."""
        return self.redact_text(url)


DEFAULT_REDACTOR = Redactor()
