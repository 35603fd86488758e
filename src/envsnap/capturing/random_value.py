"""Values shaped like a key with no known format: long runs of random hex or base64.

A key that carries no vendor prefix (a 40-hex service key, a base64 HMAC secret) is recognised
only by its shape. Commit hashes and digests share that shape, so this test alone never
decides: the redactor also asks where the value sits and what its name says (see redact.py).

Measured on 20,000 random values of each kind: every hex key of 32+ characters is recognised;
of base64 keys, about 1 in 100 at 32 characters, 1 in 300 at 40 and 1 in 2,000 at 64 is missed
(mostly keys with no digit, which a CamelCase name cannot be told from).

A key with no digit is still caught when it holds a `+` or `/`: no identifier has those, so
the value is random when it also mixes its character classes as random text does, unless it
has a path's shape (rooted at `/`, or words between several `/`). Of such keys, 1 in 11 at 32
characters and 1 in 25 at 64 is missed; a key of letters only, or with only `-` and `_` besides
(a third of digit-free keys at 32 characters, a tenth at 64), is told from a name by nothing and
kept.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter

SHORTEST_RANDOM = 32
_HEX = re.compile(r"[0-9a-fA-F]{32,}")
BASE64_RUN = re.compile(r"[A-Za-z0-9+/_\-]{32,}={0,2}")
_ALNUM_RUN = re.compile(r"[A-Za-z0-9]{16,}")
_SEPARATORS = re.compile(r"[+/_\-]")
# A segment between separators that reads as a word or a number: `datasets/imagenet/Train2024`,
# `GPU-8a3b1c2d-1234-...`, `run_2024_05_01` are names and paths, not keys. Shorter segments
# (`abc`, `12`) are common between the separators of random base64.
_WORD_SEGMENT = re.compile(r"[A-Z]?[a-z]{4,}|[0-9]{3,}")
# `sha256:...`, `sha512-...` (npm integrity), `md5=...`: the value names its own algorithm.
_ALGORITHM_PREFIX = re.compile(r"(?i:sha(?:1|224|256|384|512)|md5|blake2[bs]|blake3)[:=\-]")
# Bits per character below which a value repeats too much to be random. Measured on 2,000
# samples each of 32-64 random characters: hex never fell under 3.1, base64 under 3.9.
_MIN_HEX_ENTROPY = 3.0
_MIN_BASE64_ENTROPY = 3.5
# Share of neighbouring characters that change class (upper, lower, digit, symbol): 0.64 on
# average for random base64 (0.3 is four standard deviations below, at 32 characters), about
# 0.25 for names made of long words such as EleutherAIgptneox20bDedupedCheckpoint. CamelCase
# names of short words reach 0.45: those are redacted, the lesser harm.
_MIN_CLASS_CHANGES = 0.3
# A digit-free value longer than this is data, not a key (and the path test reads it piece by
# piece).
_LONGEST_NO_DIGIT = 128
_BASE64_PUNCTUATION = re.compile(r"[+/]")
# A lower-case letter with no lower-case neighbour (`Qx`, `aB`): words almost never have one,
# random letters about one in eight. Measured on 20,000 names of 2-6 words from Python sources
# joined by `+` or `/` (32-128 characters): 1 in 200 reaches both thresholds; of random keys of
# letters, `+` and `/`, about 1 in 20 at 32 characters and 1 in 45 at 64 does not.
_LONE_LOWER = re.compile(r"(?<![a-z])[a-z](?![a-z])")
_MIN_LONE_LOWERS = 2
_MIN_LONE_LOWER_SHARE = 0.05
# A name made of words: lower-case or Capitalised words, an upper-case run glued in front
# (`HTTPServer`) or at the end (`GPU`, `GPUs`). Each lower-case run is taken whole (the
# look-ahead), so a name has one reading and is read once.
_WORDS = re.compile(r"(?:[A-Z]*[a-z]{2,}(?![a-z]))*(?:[A-Z]+s?)?")


def looks_random(value: str) -> bool:
    """True for a whole value of 32+ characters of random-looking hex or base64."""
    if len(value) < SHORTEST_RANDOM or _ALGORITHM_PREFIX.match(value):
        return False
    if _HEX.fullmatch(value):
        has_both = not value.isdigit() and any(c.isdigit() for c in value)
        return has_both and _entropy(value) >= _MIN_HEX_ENTROPY
    if not BASE64_RUN.fullmatch(value):
        return False
    body = value.rstrip("=")
    if not _ALNUM_RUN.search(body) and not _few_separators_no_words(body):
        return False
    cased = any(c.isupper() for c in body) and any(c.islower() for c in body)
    if not cased or _entropy(body) < _MIN_BASE64_ENTROPY:
        return False
    if not any(c.isdigit() for c in body):
        return _random_without_digits(body)
    return _class_changes(body) >= _MIN_CLASS_CHANGES


def _random_without_digits(body: str) -> bool:
    """A digit-free value is random when it has base64 punctuation, no path's shape, and mixes
    its character classes and breaks up its lower-case runs as random text does."""
    if len(body) > _LONGEST_NO_DIGIT or not _BASE64_PUNCTUATION.search(body):
        return False  # letters, `-` and `_` only: an identifier's alphabet
    if _path_shaped(body) or _class_changes(body) < _MIN_CLASS_CHANGES:
        return False
    lone = len(_LONE_LOWER.findall(body))
    return lone >= _MIN_LONE_LOWERS and lone >= _MIN_LONE_LOWER_SHARE * len(body)


def _path_shaped(body: str) -> bool:
    """`/ckpt/RunFinal`, `data/imagenet/TrainSplit`: rooted, or several `/` between words.
    (`./` and `~/` paths hold a character base64 has not, and never get here.)"""
    if body.startswith("/"):
        return True
    pieces = body.split("/")
    return len(pieces) >= 3 and all(
        _WORDS.fullmatch(name) for piece in pieces for name in _SEPARATORS.split(piece)
    )


def _few_separators_no_words(text: str) -> bool:
    """Base64 has a `+`, `/`, `-` or `_` about once in 32 characters, between random runs."""
    segments = _SEPARATORS.split(text)
    if len(segments) - 1 > len(text) // 8:
        return False
    return not any(_WORD_SEGMENT.fullmatch(segment) for segment in segments)


def _entropy(text: str) -> float:
    """Shannon entropy of the characters of `text`, in bits per character."""
    size = len(text)
    return -sum(n / size * math.log2(n / size) for n in Counter(text).values())


def _char_class(char: str) -> int:
    if char.isupper():
        return 0
    if char.islower():
        return 1
    return 2 if char.isdigit() else 3


def _class_changes(text: str) -> float:
    classes = [_char_class(char) for char in text]
    changes = sum(a != b for a, b in itertools.pairwise(classes))
    return changes / max(1, len(classes) - 1)
