"""Secret redaction for everything envsnap writes: env values, argv, URLs and free text.

Two independent tests decide that something is secret, and either one is enough:
- the *name* (an env var, a command-line flag, a `name=value` pair or a URL query parameter) has
  a word such as TOKEN, KEY or PASSWORD;
- the *value* matches a known credential format (Hugging Face, GitHub, OpenAI, AWS, Slack,
  JWT, PEM...), is an `Authorization` credential, or is a URL with credentials in it.
A name-flagged value is replaced whole. A format match replaces only the matching part, so
`--model-url https://u:p@host/x` still shows the host.

A netrc entry (`machine h login u password p`) loses the word after `password`, and a URL
query hides more names than free text does (`code`, `otp`, `hmac`). Percent escapes hide
nothing: a token right after one (`%22AIza...`) is still a token, and an escaped name
(`pass%77ord=`, `password%3D...`) is decoded before it is judged.

A third test covers keys with no format: a value that looks random (32+ hex or base64
characters, see random_value.py) is replaced when it stands alone where the user writes free
text (an env value, an argv entry, a `name=value` pair), unless its name says it is a commit or
a digest. Commit hashes and digests that envsnap records itself sit in their own fields, as
whole values with no name in front, and are never tested this way.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from envsnap.capturing.random_value import BASE64_RUN, looks_random
from envsnap.capturing.secret_formats import KEYED, WHOLE

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
        "PASSCODE",
        "PASS",
        "PWD",
        "PW",
        "PSWD",
        "CREDENTIAL",
        "CREDENTIALS",
        "CREDS",
        # AUTH and CREDENTIAL(S) name the secret itself (PROXY_AUTH, GOOGLE_APPLICATION_
        # CREDENTIALS), so they count anywhere in a name. LOGIN counts only as the last word,
        # below: see _LOGIN.
        "AUTH",
        "AUTHORIZATION",
        "COOKIE",
        "SESSION",
        "PRIVATE",
        "SIGNATURE",
        "SIG",
        "PAT",
        "BEARER",
        "CERT",
        "DSN",
    }
)
# In ML code TOKEN(S) usually means text tokens (max_new_tokens, pad_token_id): a name whose
# only secret word is TOKEN(S) and that also has one of these words is a setting, not a secret.
_TEXT_TOKEN_WORDS = frozenset(
    {
        "MAX",
        "MIN",
        "NUM",
        "PAD",
        "EOS",
        "BOS",
        "UNK",
        "SEP",
        "CLS",
        "MASK",
        "ID",
        "IDS",
        "SPECIAL",
        "COUNT",
        "LEN",
        "LENGTH",
        "TOTAL",
        "VOCAB",
        "PER",
        "BATCH",
        "STOP",
    }
)
# A name that ends in one of these after its secret word names a setting about the secret
# (--key-size 256, --token-budget 1000), not the secret.
_SETTING_WORDS = frozenset({"SIZE", "BITS", "BUDGET", "LENGTH", "LEN", "COUNT", "LIMIT"})
# A name that ends in one of these says where the secret is kept (--token-file, SSH_KEY_PATH,
# DB_PASSWORD_FILE): the path tells a reader where to look, so it is hidden like the secret.
# Also glued (--ssl-keyfile, HF_TOKENPATH).
_LOCATION_WORDS = ("FILE", "FILES", "PATH", "PATHS", "DIR", "LOCATION")
# ...except where the file itself is public or is data: a certificate, a file of text tokens.
_PUBLIC_FILE_WORDS = frozenset({"CERT", "TOKENS"})
# Glued forms such as APIKEY, HFTOKEN, DBPASSWORD, AWSSECRETACCESSKEY.
_GLUED_CONTAINS = ("SECRET", "PASSWORD", "PASSWD", "CREDENTIAL")
_GLUED_ENDS = (
    "TOKEN",
    "APIKEY",
    "ACCESSKEY",
    "PRIVATEKEY",
    "AUTH",
    "ACCOUNTKEY",
    "SHAREDACCESSKEY",
    "APIKEYS",
    "AUTHKEY",
    "PRIVKEY",
    "SSHKEY",
    "SIGNINGKEY",
    "ENCRYPTIONKEY",
    "MASTERKEY",
)
# Names that say a random-looking value is a commit, a revision or a digest: a fact to keep.
# Matched on each word of the name, glued forms included (GITCOMMIT, imageDigest, sha256sum).
_FACT_NAME_WORD = re.compile(
    r".*(?:COMMIT|DIGEST|CHECKSUM|REVISION|INTEGRITY|VERSION).*"
    r"|(?:SHA[0-9]*|MD5|BLAKE[0-9][BS]?)(?:SUMS?)?|REV|OID|ETAG|HEAD|REF"
)
# A name that ends in LOGIN (HF_LOGIN, DOCKER_LOGIN, --login) holds the login: a user name
# often, a password or a token as often, and no variable's account says anything about how a
# run computes, so the whole value goes. LOGIN before another word names a setting about
# logging in (LOGIN_URL, LOGIN_TIMEOUT) and is kept; a name such as LOGIN_PASSWORD is secret
# by its other word.
_LOGIN = "LOGIN"
# In a URL query or fragment these names carry a one-time secret: an OAuth authorization code
# (RFC 6749 section 4.1.2), a one-time password, a request HMAC (Shopify-style `hmac=`). In free
# text `code` is far too common (exit_code, --code-dir), so they count only after `?`, `&`, `;`
# or `#`. `hash=` is not among them: it is as often a content hash, so only a random-looking
# value goes (the test every innocent name gets).
_QUERY_SECRET_WORDS = frozenset({"OTP", "TOTP", "HOTP", "HMAC"})
_QUERY_SECRET_NAMES = frozenset({"CODE"})
_QUERY_STARTS = "?&;#"
# Names that contain a secret word but are known not to hold secrets. PWD is the shell's cwd.
NOT_SECRET_NAMES = frozenset({"PWD", "OLDPWD", "HF_HUB_DISABLE_IMPLICIT_TOKEN"})

# Every prefix must start a word, so highs_..., pushf_... or task-... are not tokens.
_WORD_START = r"(?<![A-Za-z0-9])"
_TOKEN_PATTERNS: tuple[str, ...] = tuple(
    _WORD_START + pattern
    for pattern in (
        r"hf_[A-Za-z0-9]{20,}",  # Hugging Face user access tokens
        r"api_org_[A-Za-z0-9]{20,}",  # Hugging Face organisation tokens
        r"gh[pousr]_[A-Za-z0-9]{20,}",  # GitHub classic and app tokens
        r"github_pat_[A-Za-z0-9_]{20,}",  # GitHub fine-grained tokens
        r"glpat-[A-Za-z0-9_\-]{16,}",  # GitLab personal tokens
        # OpenAI / Anthropic keys: sk- and random letters and digits, or sk-proj-, sk-ant-...
        # and a random body. A body with no capital or digit, or one that goes on with
        # -lowercase words, is a name such as the branch sk-fix-tokenizer-padding.
        r"sk-(?:(?=[a-z]*[A-Z0-9])[A-Za-z0-9]{20,}(?![A-Za-z0-9_]|-[a-z])"
        r"|(?:proj|ant|svcacct|admin)-(?=[a-z_\-]*[A-Z0-9])[A-Za-z0-9_\-]{20,})",
        r"(?:AKIA|ASIA)[0-9A-Z]{16}",  # AWS access key ids
        r"xox[abposr]-[A-Za-z0-9\-]{10,}",  # Slack tokens
        r"AIza[0-9A-Za-z_\-]{35}",  # Google API keys
        r"npm_[A-Za-z0-9]{30,}",  # npm tokens
        r"eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*",  # JWTs
    )
)
# PEM private keys: the whole block, or to the end of the text when it was cut short. The one
# format that spans spaces and lines, so it is applied to whole texts that contain its header.
_PEM_HEADER = "-----BEGIN"
_PEM = re.compile(
    _WORD_START
    + r"(?s:-----BEGIN [A-Z ]*PRIVATE KEY-----(?:.*?-----END [A-Z ]*PRIVATE KEY-----|.*))"
)
# Every other value format matches within one "word": a run of characters none of these
# separators break, at least as long as the shortest format's shortest match (a test checks both
# for every format). Matching word by word gives the same matches as matching the whole text
# (the separators are neither letters nor digits, so word-boundary and look-around tests at a
# word's ends read the same), and it is what keeps a long text linear: tried at every position
# of a 100 kB patch, the eighty-odd alternatives took about 90 ms.
SHORTEST_TOKEN = 15
_TOKEN_WORD = re.compile(r"[^\s\"'`<>,;()\[\]{}]{" + str(SHORTEST_TOKEN) + ",}")
# scheme://user:password@ in any URL. The password runs to the last `@` of the word, so one
# with an unescaped `/` or `@` in it is still caught (over-redacting a port is the lesser harm).
# Bounded and anchored by a lookbehind so that a long unbroken string is scanned in linear time
# (an open-ended scheme made redaction quadratic: seconds for a 40 kB argument).
_SCHEME = r"(?P<scheme>(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,31}://)"
_URL_PASSWORD = re.compile(
    _SCHEME + r"(?P<user>[^/@:\s]{0,256}):(?P<password>[^\s@]{0,1024}(?:@[^\s@]{0,1024})*?)@"
    r"(?=[^\s@]*(?:\s|$))"
)
_PORT_AND_PATH = re.compile(r"[0-9]{1,5}(?:/.*)?")
# scheme://userinfo@ without a colon: a token used as the user name.
_URL_USERINFO = re.compile(_SCHEME + r"(?P<userinfo>[^/@\s]{1,512})@")
# A bare user name in a URL (ssh://git@host) is kept; anything else before `@` is redacted.
_PLAIN_USER = re.compile(r"[a-z_][a-z0-9_.\-]{0,19}")
# Scheme-less user:password@host, alone or inside free text: scp-style remotes
# (user:password@host:path) and registry image references (user:password@registry.io/image,
# as W&B records a Docker image), whose host must then have a dot.
_SCP_USERINFO = re.compile(
    r"(?<![\w/:@.\-])(?P<userinfo>[\w.\-]{1,256}:[^@/\s:]{1,1024})@"
    r"(?=[\w.\-]{1,256}:|[\w\-]{1,63}(?:\.[\w\-]{1,63}){1,8}/)"
)
# Authorization credentials. After `Authorization:` any value is a credential (a Basic token
# of letters only is still base64 of user:password); elsewhere the value must look random (a
# digit or base64 punctuation), so prose such as "Bearer authentication" is left alone.
_AUTH_HEADER = re.compile(
    r"(?P<scheme>(?:(?<=-H)|\b)(?i:authorization\b)[\"']?\s*[:=]\s*[\"']?(?:[A-Za-z][A-Za-z0-9_\-]{0,31}\s+)?)"
    r"[A-Za-z0-9._~+/=\-]{4,}"
)
_AUTH_SCHEME = re.compile(
    r"(?P<scheme>\b(?:[Bb]earer|BEARER|[Bb]asic|BASIC|[Tt]oken)\s+)"
    r"(?=[A-Za-z0-9._~+/=\-]*[0-9+/=])[A-Za-z0-9._~+/=\-]{8,}"
)
# Percent escapes. Those of a character that ends a name or a value (space " # & ' , / : ; = ?)
# separate, as the character would; the others may sit inside a name (`pass%77ord`, and `%25`,
# an escaped `%`, in a name escaped twice).
_ESCAPE = r"%[0-9A-Fa-f]{2}"
_ENDING_ESCAPE = r"%(?:2[0236-7CcFf]|3[AaBbDdFf])"
_ESCAPE_SPLIT = re.compile(f"({_ESCAPE})")
_ESCAPED_CHAR = re.compile(_ESCAPE)
_NAME_ESCAPE = f"(?!{_ENDING_ESCAPE}){_ESCAPE}"
# `name=` in free text, argv values and URL query strings (`--name=` too), with spaces around
# `=` as INI files, shell and source code write them (`aws_secret_access_key = ...`), or with
# `=` escaped (`%3D`) in a URL inside a URL; `==`, `=>` and `=~` compare. The value runs to a
# separator. Every repetition is bounded and the name anchored, so the scan stays linear.
_ASSIGNED_NAME = re.compile(
    rf"(?:(?<![A-Za-z0-9_.\-])|(?<={_ENDING_ESCAPE}))-{{0,2}}"
    rf"(?P<name>(?:[A-Za-z_]|{_NAME_ESCAPE})(?:[A-Za-z0-9_.\-]|{_NAME_ESCAPE}){{0,127}})"
    r"(?P<op>[ \t]{0,16}=(?![=>~])[ \t]{0,16}|%3[Dd])"
)
# In source code a secret's name is often given a reference, not a value: a call or an index
# (`api_key = os.environ[...]`, `token = get_token()`), a language constant, or a variable of the
# same name (`self.token = token`, `token = args.token`). Those are code, kept.
_CODE_CALL = re.compile(r"(?:[A-Za-z_]\w{0,127}\.){0,8}[A-Za-z_]\w{0,127}[(\[]")
_DOTTED_NAME = re.compile(r"(?:[A-Za-z_]\w{0,127}\.){0,8}(?P<last>[A-Za-z_]\w{0,127})")
_CODE_CONSTANTS = frozenset({"None", "True", "False", "null", "true", "false", "nil"})
# A netrc entry: `machine HOST` or `default`, then `login`, `password`, `account` and a word
# each, on one line or several (https://www.gnu.org/software/inetutils/manual/html_node/The-_002enetrc-file.html).
# The word after `password`/`passwd` is the password, and `account` is "an additional account
# password" by that manual. An entry counts as netrc when it has a `login` or its host has a dot,
# so prose ("a machine learning password") is left alone; it is read up to the next entry, at
# most _NETRC_SPAN characters.
_NETRC_ENTRY = re.compile(r"(?<![\w.])(?:machine\s{1,64}(?P<host>\S{1,255})|default)(?=\s)")
_NETRC_LOGIN = re.compile(r"(?<![\w.])login\s")
_NETRC_SECRET_KEY = re.compile(r"(?<![\w.])(?:password|passwd|account)\s{1,64}")
_NETRC_VALUE = re.compile(r"\S{1,1024}")
_NETRC_SPAN = 2048
# `--name value` inside one text (a shell line in a patch, a command line kept whole). The value
# must hold something other than lower-case letters, so prose ("--private may...") is left be.
_SPACED_OPTION = re.compile(
    r"(?<![A-Za-z0-9_.\-])--?(?P<name>[A-Za-z][A-Za-z0-9_.\-]{0,127})[ \t]+"
    r"(?P<value>(?=[a-z]{0,4095}[^a-z\s\"'`<>|&;])[^\s\-\"'`<>|&;][^\s\"'`<>|&;]{0,4095})"
)
# `"name": "value"` and `name: value` inside JSON or YAML text.
_QUOTED_NAME = re.compile(
    r"""(?P<lead>["']?(?P<name>[A-Za-z_][A-Za-z0-9_.\-]{0,127})["']?\s*:\s*["']?)"""
    r"""(?P<value>[^"'\s,}]{1,4096})"""
)
# A quoted string given to a name in source code, JSON or YAML: `key = "v"`, `f(key="v")`,
# `key: str = "v"`, `"key": "v"`. Only up to the opening quote: the value is found by
# `_quoted_string_end`, so a name that is not secret consumes nothing. Every repetition is
# bounded and the name anchored by a lookbehind, so the scan stays linear.
_CODE_ASSIGNMENT = re.compile(
    r"""(?<![A-Za-z0-9_.\-])(?P<name>[A-Za-z_][A-Za-z0-9_.\-]{0,127})["']?[ \t]*"""
    r"""(?:=|:(?:[ \t]*[A-Za-z_][\w.\[\]|, ]{0,64}?[ \t]*=)?)[ \t]*(?P<quote>["'])"""
)
_MAX_QUOTED = 4096
_ANNOTATION_END = re.compile(r"[ \t]*=")
_WHITESPACE = re.compile(r"\s")
_VALUE_END = re.compile(r"[\s&;,'\"]")
# After an escaped `=` the value is escaped too, and ends at an escaped separator as well.
_ESCAPED_VALUE_END = re.compile(r"[\s&;,'\"]|%(?:2[02367Cc]|3[Bb])")
# The words of an upper-cased name: split at `_`, `-`, `.`, what an escape decodes to, and the
# `#` or `?` of `pkg.whl#sha256` or `a/b?rev`.
_NAME_PARTS = re.compile(r"[^A-Z0-9]+")


@functools.cache
def _value_pattern() -> re.Pattern[str]:
    """Every whole-value format but PEM in one pattern, compiled on first use (a few ms)."""
    patterns = (*_TOKEN_PATTERNS, *(fmt.pattern for fmt in WHOLE))
    return re.compile("|".join(f"(?:{p})" for p in patterns))


@functools.cache
def _user_pattern(extra_patterns: tuple[str, ...]) -> re.Pattern[str]:
    """The config's own patterns, which may span anything: applied to whole texts."""
    return re.compile("|".join(f"(?:{p})" for p in extra_patterns))


def _redact_word(match: re.Match[str]) -> str:
    word = match.group()
    if "%" not in word:
        return _value_pattern().sub(REDACTED, word)
    # A percent escape stands for a character, most often a separator (`%22`, `%3D`, `%2F`):
    # a token right after one starts there, though a digit or letter of the escape precedes it.
    parts = _ESCAPE_SPLIT.split(word)
    return "".join(
        part if index % 2 or len(part) < SHORTEST_TOKEN else _value_pattern().sub(REDACTED, part)
        for index, part in enumerate(parts)
    )


@functools.cache
def _keyed_pattern() -> re.Pattern[str]:
    """Formats that need a key in front; only the value (each pattern's one group) is replaced."""
    return re.compile("|".join(f"(?:{fmt.pattern})" for fmt in KEYED))


@dataclass(frozen=True)
class Redactor:
    """Applies the secret rules. `extra_patterns` are user regexes (from the config file)."""

    extra_patterns: tuple[str, ...] = ()

    def _redact_formats(self, text: str) -> str:
        """Replace every match of a value format (and of the config's patterns)."""
        if self.extra_patterns:  # first: they can only take more away
            text = _user_pattern(self.extra_patterns).sub(REDACTED, text)
        if len(text) < SHORTEST_TOKEN:
            return text
        if _PEM_HEADER in text:
            text = _PEM.sub(REDACTED, text)
        return _TOKEN_WORD.sub(_redact_word, text)

    def is_secret_name(self, name: str) -> bool:
        """True when a variable or flag name suggests its value is a secret."""
        upper = _unescape(name).strip().lstrip("-").upper()
        if upper in NOT_SECRET_NAMES:
            return False
        words = _name_words(upper)
        if words and words[-1] in _SETTING_WORDS:
            return False
        if words and words[-1] == _LOGIN:
            return True
        secret_words = {word for word in words if word in SECRET_NAME_WORDS}
        located = bool(words) and words[-1] in _LOCATION_WORDS
        if located and secret_words and secret_words <= _PUBLIC_FILE_WORDS:
            return False  # --cert-file, --train-tokens-path
        if secret_words:
            text_tokens = secret_words <= {"TOKEN", "TOKENS"} and bool(
                _TEXT_TOKEN_WORDS.intersection(words)
            )
            return not text_tokens
        return any(
            word.endswith(_GLUED_ENDS) or any(part in word for part in _GLUED_CONTAINS)
            for word in words
        )

    def redact_text(self, text: str) -> str:
        """Replace credentials in free text: URL user-info, token formats, auth headers and
        `name=value` pairs whose name is secret-like."""
        if "@" in text:
            text = _URL_PASSWORD.sub(self._password, text)
            text = _URL_USERINFO.sub(self._userinfo, text)
            text = _SCP_USERINFO.sub(f"{REDACTED}@", text)
        text = self._redact_formats(text)
        text = _keyed_pattern().sub(_keyed_value, text)
        if "machine" in text or "default" in text:
            text = _redact_netrc(text)
        text = _AUTH_HEADER.sub(lambda m: m.group("scheme") + REDACTED, text)
        text = _AUTH_SCHEME.sub(lambda m: m.group("scheme") + REDACTED, text)
        if "'" in text or '"' in text:
            text = self._redact_quoted_assignments(text)
        if ":" in text:
            text = _QUOTED_NAME.sub(self._quoted_value, text)
        if "-" in text:
            text = _SPACED_OPTION.sub(self._option_value, text)
        if "=" in text or "%3" in text:
            return self._redact_assignments(text)
        return text

    def hides(self, name: str, value: str) -> bool:
        """True when `value`, given to `name` in free text, is a secret: the name says so, or
        the value looks random and the name does not say it is a commit or a digest."""
        if value == REDACTED:
            return False
        return self.is_secret_name(name) or (looks_random(value) and not names_a_fact(name))

    def _option_value(self, match: re.Match[str]) -> str:
        if not self.is_secret_name(match.group("name")) or match.group("value") == REDACTED:
            return match.group(0)
        return match.group(0)[: match.start("value") - match.start()] + REDACTED

    def _quoted_value(self, match: re.Match[str]) -> str:
        if not self.hides(match.group("name"), match.group("value")):
            return match.group(0)
        if _is_code_reference(match.group("name"), match.group("value")):
            return match.group(0)  # `token: Optional[str]`, `password: None`
        if _ANNOTATION_END.match(match.string, match.end()):
            return match.group(0)  # `secret_key: str = ...`: a type, not the value
        return match.group("lead") + REDACTED

    @staticmethod
    def _password(match: re.Match[str]) -> str:
        password = match.group("password")
        if password in {"", REDACTED} or _PORT_AND_PATH.fullmatch(password):
            return match.group(0)  # host:port/path@..., not a password
        return f"{match.group('scheme')}{REDACTED}@"

    def _userinfo(self, match: re.Match[str]) -> str:
        userinfo = match.group("userinfo")
        keep = _PLAIN_USER.fullmatch(userinfo) is not None or userinfo == REDACTED
        return f"{match.group('scheme')}{userinfo if keep else REDACTED}@"

    def _redact_quoted_assignments(self, text: str) -> str:
        parts: list[str] = []
        done = 0
        for match in _CODE_ASSIGNMENT.finditer(text):
            if match.start() < done:
                continue
            stop = _quoted_string_end(text, match.end(), match.group("quote"))
            if stop > match.end() and self.hides(match.group("name"), text[match.end() : stop]):
                parts += [text[done : match.end()], REDACTED]
                done = stop
        return "".join([*parts, text[done:]])

    def _redact_assignments(self, text: str) -> str:
        # Names are matched without consuming their values, so `--env=HF_TOKEN=x` still finds
        # HF_TOKEN after the harmless `env=`.
        parts: list[str] = []
        done = 0
        for match in _ASSIGNED_NAME.finditer(text):
            if match.start() < done:
                continue
            stop = self._assigned_value_end(match)
            if stop > match.end():
                parts += [text[done : match.end()], REDACTED]
                done = stop
        return "".join([*parts, text[done:]])

    def _assigned_value_end(self, match: re.Match[str]) -> int:
        """Where the value after `name=` ends when it is a secret, else where it starts."""
        text, start, name = match.string, match.end(), match.group("name")
        value_end = _ESCAPED_VALUE_END if match.group("op").startswith("%") else _VALUE_END
        if self.is_secret_name(name) or (
            _in_query(text, match.start()) and _is_query_secret_name(name)
        ):
            end = value_end.search(text, start)
            stop = end.start() if end else len(text)
            return start if _is_code_reference(name, text[start:stop]) else stop
        # Only a whole run of base64 characters can look random: matched from `start`, it stops
        # at the first other character, so a text of many short pairs is read once.
        run = BASE64_RUN.match(text, start)
        if run is None or names_a_fact(name):
            return start
        whole = run.end() == len(text) or value_end.match(text, run.end()) is not None
        return run.end() if whole and looks_random(run.group()) else start

    def redact_value(self, name: str, value: str) -> str:
        """Redact `value` of the variable `name`: whole when the name is secret-like or the
        value looks random (unless the name says it is a commit or a digest)."""
        if value and self.hides(name, value.strip()):
            return REDACTED
        return self.redact_text(value)

    def redact_env(self, env: Iterable[tuple[str, str]]) -> dict[str, str]:
        return {name: self.redact_value(name, value) for name, value in env}

    def redact_argv(self, argv: Sequence[str]) -> list[str]:
        """Redact secrets in a command line: `--token X`, `--token=X`, `KEY=X`, token formats,
        and random-looking values (`--service-id <40 hex>`, a bare key) unless their option
        says they are a commit or a digest (`--revision <sha>`)."""
        out: list[str] = []
        option = ""  # the option just before, whose value this argument may be
        for arg in argv:
            # A switch such as --private may take no value: a following option is not its value.
            is_option = arg.startswith("-") and len(arg) > 1
            name, equals, value = arg.partition("=")
            if not is_option and self.hides(option, arg):
                out.append(REDACTED)
            elif equals and value and self.hides(name, value):
                # The flag or name itself goes through redact_text too: it may be a token.
                out.append(f"{self.redact_text(name)}={REDACTED}")
            else:
                out.append(self.redact_text(arg))
            option = arg if is_option and not equals else ""
        return out

    def redact_url(self, url: str) -> str:
        """Strip credentials from a URL (git remotes, index URLs), scp-style remotes included."""
        return self.redact_text(url.strip())

    def redact_json(self, value: Any, *, key: str = "", by_name: bool = True) -> Any:
        """Redact every string in a JSON-like value.

        With `by_name`, a value under a secret-like key is replaced whole (job-supplied
        `extra` values). Without it only value formats count: that is the final pass over a
        whole manifest, whose own field names (pad_token, key...) say nothing about secrets.
        """
        if isinstance(value, dict):
            # Keys are text too (a job may key a dict by a token); they become strings.
            out: dict[str, Any] = {}
            for k, v in value.items():
                name = distinct_key(self.redact_text(str(k)), out)
                out[name] = self.redact_json(v, key=str(k), by_name=by_name)
            return out
        if isinstance(value, (list, tuple)):
            return [self.redact_json(v, key=key, by_name=by_name) for v in value]
        if isinstance(value, str):
            return self.redact_value(key, value) if by_name and key else self.redact_text(value)
        if isinstance(value, float) and not math.isfinite(value):
            return repr(value)  # JSON has no NaN or infinity; keep the fact as text
        if value is None or isinstance(value, (bool, int, float)):
            return value
        return self.redact_text(repr(value))


def _unescape(name: str) -> str:
    """`pass%77ord` -> `password`; twice-escaped names (`%2577`) too, a few levels deep."""
    for _ in range(3):
        if "%" not in name:
            break
        name = _ESCAPED_CHAR.sub(lambda m: chr(int(m.group()[1:], 16)), name)
    return name


def _in_query(text: str, start: int) -> bool:
    """True when the name at `start` follows `?`, `&`, `;` or `#` (or one of them escaped)."""
    if start > 0 and text[start - 1] in _QUERY_STARTS:
        return True
    return start >= 3 and _unescape(text[start - 3 : start]) in tuple(_QUERY_STARTS)


def _is_query_secret_name(name: str) -> bool:
    words = _name_words(_unescape(name).upper())
    whole_name = len(words) == 1 and words[0] in _QUERY_SECRET_NAMES
    return whole_name or bool(_QUERY_SECRET_WORDS.intersection(words))


def _is_code_reference(name: str, value: str) -> bool:
    """True when `value`, given to `name`, is source code that refers to the secret: a call or
    an index, a constant, or a variable named like the secret."""
    if value in _CODE_CONSTANTS or _CODE_CALL.match(value):
        return True
    dotted = _DOTTED_NAME.fullmatch(value)
    own = _DOTTED_NAME.fullmatch(name.strip().lstrip("-"))
    if dotted is None or own is None:
        return False
    return dotted.group("last").lower() == own.group("last").lower()


def _redact_netrc(text: str) -> str:
    """Replace the word after `password`, `passwd` or `account` in each netrc entry."""
    entries = list(_NETRC_ENTRY.finditer(text))
    if not entries:
        return text
    parts: list[str] = []
    done = 0
    for entry, following in zip(entries, [*entries[1:], None], strict=True):
        stop = min(following.start() if following else len(text), entry.start() + _NETRC_SPAN)
        host = entry.group("host") or ""
        if "." not in host and not _NETRC_LOGIN.search(text, entry.end(), stop):
            continue
        for key in _NETRC_SECRET_KEY.finditer(text, entry.end(), stop):
            value = _NETRC_VALUE.match(text, key.end())
            if value and key.end() >= done and value.group() != REDACTED:
                parts += [text[done : key.end()], REDACTED]
                done = value.end()
    return "".join([*parts, text[done:]]) if parts else text


def _name_words(upper: str) -> list[str]:
    """The words of an upper-case name, a glued location suffix split off (KEYFILE: KEY, FILE)."""
    words = [w for w in _NAME_PARTS.split(upper) if w]
    last = words[-1] if words else ""
    for suffix in _LOCATION_WORDS:
        if last.endswith(suffix) and len(last) > len(suffix):
            return [*words[:-1], last[: -len(suffix)], suffix]
    return words


def names_a_fact(name: str) -> bool:
    """True when a name says its value is a commit, a revision or a digest (GIT_COMMIT,
    --revision, sha256, imageDigest)."""
    return any(_FACT_NAME_WORD.fullmatch(word) for word in _NAME_PARTS.split(name.upper()))


def _quoted_string_end(text: str, start: int, quote: str) -> int:
    """Where the string opened just before `start` closes; for one left open (a cut-off line),
    where its first word ends."""
    line_end = text.find("\n", start, start + _MAX_QUOTED)
    limit = line_end if line_end >= 0 else min(len(text), start + _MAX_QUOTED)
    close = text.find(quote, start, limit)
    if close >= 0:
        return close
    space = _WHITESPACE.search(text, start, limit)
    return space.start() if space else limit


def _keyed_value(match: re.Match[str]) -> str:
    group = match.lastindex or 0
    start, end = match.span(group)
    whole_start = match.start()
    text = match.group(0)
    return text[: start - whole_start] + REDACTED + text[end - whole_start :]


def distinct_key(name: str, taken: dict[str, Any]) -> str:
    """`name`, or `name (2)`, `name (3)`...: two keys that redact alike stay two entries."""
    if name not in taken:
        return name
    count = 2
    while f"{name} ({count})" in taken:
        count += 1
    return f"{name} ({count})"


DEFAULT_REDACTOR = Redactor()
