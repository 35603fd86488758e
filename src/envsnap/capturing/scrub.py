"""The last pass before a manifest is sealed, for captures and imported records alike.

Collectors and importers redact what they know to be sensitive; this pass catches what slipped
through: every string is checked for credential formats, and the values of free-form maps
(`extra`, `precision.other`, `data.other`, `parallel.other`...) are also redacted by key name,
since a job may put `hf_token` there. The manifest's own field names say nothing about secrets,
so outside those maps only value formats count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envsnap.capturing.redact import Redactor
from envsnap.files.reader import MAX_DEPTH
from envsnap.manifest.freeform import replace_at
from envsnap.manifest.records import FREE_FORM_PATHS

if TYPE_CHECKING:
    from envsnap.manifest.model import Manifest


def scrub_document(document: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    """Redact credential formats everywhere, and secret-named keys inside free-form maps."""
    for path in FREE_FORM_PATHS:
        document = replace_at(document, path, lambda v: redactor.redact_json(v, by_name=True))
    clean: dict[str, Any] = redactor.redact_json(document, by_name=False)
    return clean


def clean_document(document: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    """A document (JSON form, as records give it) with text UTF-8 can carry and no
    credentials."""
    return scrub_document(utf8_safe(document), redactor)


def scrubbed(manifest: Manifest, redactor: Redactor) -> Manifest:
    """The manifest with text UTF-8 can carry and no credentials (unchanged when clean)."""
    from envsnap.manifest.model import Manifest

    # Python mode first: the JSON-mode dump turns such characters in dict keys into U+FFFD.
    native = manifest.to_native()  # model_dump() would build the whole tree's serializer
    encodable = utf8_safe(native)
    if encodable != native:
        manifest = Manifest.model_validate(encodable)
    document = manifest.to_document()
    clean = scrub_document(document, redactor)
    return manifest if clean == document else Manifest.model_validate(clean)


def utf8_safe(value: Any) -> Any:
    """Replace what UTF-8 cannot encode (undecodable bytes in env values, paths or argv, which
    Python keeps as lone surrogates) with backslash escapes such as `\\xff`."""
    if isinstance(value, str):
        if value.isascii():
            return value
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            try:
                raw = value.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:  # a surrogate that did not come from a byte
                return value.encode("utf-8", "backslashreplace").decode("utf-8")
            return raw.decode("utf-8", "backslashreplace")
        return value
    if isinstance(value, dict):
        return {utf8_safe(k): utf8_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [utf8_safe(item) for item in value]
    return value


# What a job may attach as `extra`: the reader's depth and integer bounds, and a total size.
MAX_EXTRA_ITEMS = 100_000


def extra_problem(value: Any) -> str | None:
    """Why a job's `extra` cannot be recorded (too deep, self-referential, too large, an
    integer too long), or None. Checked without recursion, so no value can crash the check."""
    stack: list[tuple[Any, int, frozenset[int]]] = [(value, 1, frozenset())]
    items = 0
    while stack:
        item, depth, above = stack.pop()
        items += 1
        if items > MAX_EXTRA_ITEMS:
            return f"more than {MAX_EXTRA_ITEMS} values"
        if isinstance(item, bool) or not isinstance(item, (int, dict, list, tuple)):
            continue
        if isinstance(item, int):
            if item.bit_length() > 64:
                return "an integer longer than 64 bits"
            continue
        if depth > MAX_DEPTH:
            return f"nested deeper than {MAX_DEPTH} levels"
        if id(item) in above:
            return "it contains itself"
        children = list(item.values()) if isinstance(item, dict) else list(item)
        inner = above | {id(item)}
        stack.extend((child, depth + 1, inner) for child in children)
    return None


def recordable_extra(extra: dict[str, Any] | None, redactor: Redactor) -> dict[str, Any]:
    """The job's `extra`, redacted; or, when it cannot be recorded, one `error` entry saying
    why. A bad `extra` costs only `extra`, never the rest of the manifest."""
    if not extra:
        return {}
    problem = extra_problem(extra)
    if problem is not None:
        return {"error": f"extra not recorded: {problem}"}
    try:
        clean: dict[str, Any] = redactor.redact_json(extra)
    except (RecursionError, ValueError, TypeError) as exc:  # a value whose repr fails...
        return {"error": f"extra not recorded: {type(exc).__name__}"}
    return clean
