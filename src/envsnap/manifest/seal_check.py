"""What reading does with a sealed document whose digest does not match its content.

Every command reads manifests through `model.read_document`, which calls `check_seal`: under
`envsnap --strict` (or ENVSNAP_STRICT=1) a document edited after capture is refused at once
(exit 2); otherwise the mismatch is noted, and the validator that accepts the document
(`manifest_from_document`, `check_document`, `cluster_from_document`) prints one warning line
on stderr. A document that fails validation gets only the validation error, not a warning as
well. `envsnap verify` reads without this check and reports the mismatch itself (exit 1). A
document without a digest (an import, a foreign JSON file) is not sealed and is not checked.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from envsnap.errors import ManifestError

STRICT_ENV = "ENVSNAP_STRICT"
_refuse = {"set": False}
# Sources read with a mismatching digest whose warning waits for their validation.
_pending: set[str] = set()


def refuse_mismatches(refuse: bool = True) -> None:
    """Make a digest mismatch an error rather than a warning (the CLI's `--strict`)."""
    _refuse["set"] = refuse


def refusing() -> bool:
    return _refuse["set"] or os.environ.get(STRICT_ENV, "") not in ("", "0")


def check_seal(document: dict[str, Any], source: str) -> None:
    """Refuse (strict) or note a sealed document whose content no longer matches its digest."""
    recorded = document.get("digest")
    if not isinstance(recorded, str) or "schema_version" not in document:
        return
    from envsnap.manifest.sealed import verify_document

    if verify_document(document)[0]:
        _pending.discard(source)
        return
    if refusing():
        raise ManifestError(
            f"{source}: its digest does not match its content (edited after capture); "
            "refused under --strict"
        )
    _pending.add(source)


def announce(source: str) -> None:
    """Print the noted mismatch of `source`, once, now that it validated."""
    if source not in _pending:
        return
    _pending.discard(source)
    from envsnap.render.escape import terminal_text

    sys.stderr.write(
        f"envsnap: warning: {terminal_text(source)}: its digest does not match its content "
        "(edited after capture); `envsnap verify` says more, `envsnap --strict` refuses it\n"
    )
