"""The field corpus's development / evaluation split, drawn before the differ v3 work began.

`SPLIT_SEED` was drawn once from `os.urandom(16)` on 2026-12-02, before any v3 case was built
or run, and committed before any fix. A case's half is the parity of the first byte of
sha256(seed + case id), so the split is fixed for every case, old and new, and nobody picks
which half a case lands in: fixes are made against the development half only, and the
evaluation half is scored at the end.
"""

from __future__ import annotations

import hashlib
from typing import Literal

Half = Literal["dev", "eval"]
SPLIT_SEED = "d2ba4d0741922aeba008a3f65dbcce7c"


def half(case_id: str) -> Half:
    """The half a case belongs to."""
    digest = hashlib.sha256(f"{SPLIT_SEED}:{case_id}".encode()).digest()
    return "dev" if digest[0] % 2 == 0 else "eval"
