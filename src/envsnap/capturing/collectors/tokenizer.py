"""`tokenizer`: which tokenizer turned text into ids, from a directory or a live object.

A directory is read as files only (tokenizer.json is plain JSON), so no tokenizer library is
needed. An object is read by duck typing: a `tokenizers.Tokenizer` (its `to_str()` is the same
JSON), or a `transformers` tokenizer (its `backend_tokenizer`, padding and truncation sides,
special tokens and chat template). Versions come from installed metadata, without imports.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from envsnap.capturing.collectors.base import CaptureContext, Collector, CollectorUnavailable
from envsnap.capturing.collectors.injob import json_digest, qualname
from envsnap.errors import EnvsnapError
from envsnap.files.reader import read_input
from envsnap.manifest.hashing import sha256_file
from envsnap.manifest.records import AddedToken, TokenizerSection

# Files that hold the vocabulary or the pipeline, and side files worth a digest.
MODEL_FILES = ("tokenizer.json", "vocab.json", "merges.txt", "vocab.txt", "tokenizer.model")
SIDE_FILES = (
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "chat_template.jinja",
    "chat_template.json",
    "spiece.model",
    "sentencepiece.bpe.model",
)
_SPECIAL_ROLES = (
    "bos_token",
    "eos_token",
    "unk_token",
    "sep_token",
    "pad_token",
    "cls_token",
    "mask_token",
)
_MAX_JSON_BYTES = 512 * 1024 * 1024
# A chat template is a few kB of Jinja; anything near this is not one.
_MAX_TEMPLATE_BYTES = 4 * 1024 * 1024


class _UnreadableFile(EnvsnapError, ValueError):
    """A tokenizer file that is not a readable regular file within its size cap."""


def _version(distribution: str) -> str | None:
    from importlib import metadata  # only when a tokenizer is declared

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _token_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return str(value["content"])
    content = getattr(value, "content", None)
    return content if isinstance(content, str) else None


def apply_pipeline(section: TokenizerSection, document: dict[str, Any]) -> None:
    """Facts from a tokenizer.json document (the `tokenizers` serialisation)."""
    model = document.get("model")
    if not isinstance(model, dict):
        raise ValueError("tokenizer.json has no 'model' object")
    section.model_type = str(model.get("type")) if model.get("type") else None
    ids: set[int] = set()
    vocab = model.get("vocab")
    if isinstance(vocab, dict):
        ids.update(v for v in vocab.values() if isinstance(v, int))
    elif isinstance(vocab, list):  # Unigram: [[piece, score], ...]
        ids.update(range(len(vocab)))
    for token in document.get("added_tokens") or ():
        if isinstance(token, dict) and isinstance(token.get("id"), int):
            section.added_tokens[str(token.get("content"))] = AddedToken(
                id=token["id"], special=bool(token.get("special"))
            )
            ids.add(token["id"])
    section.vocab_size = len(ids)
    section.model_digest = json_digest(model)
    for part in ("normalizer", "pre_tokenizer", "post_processor", "decoder"):
        setattr(section, f"{part}_digest", json_digest(document.get(part)))
    truncation, padding = document.get("truncation"), document.get("padding")
    if isinstance(truncation, dict) and truncation.get("direction"):
        section.truncation_side = str(truncation["direction"]).lower()
    if isinstance(padding, dict) and padding.get("direction"):
        section.padding_side = str(padding["direction"]).lower()


def _chat_digest(template: Any) -> str | None:
    if template is None:
        return None
    if isinstance(template, str):  # the raw text, so `sha256sum` of a .jinja file matches
        return "sha256:" + hashlib.sha256(template.encode("utf-8")).hexdigest()
    return json_digest(template)  # a list of {name, template} or a dict: canonical JSON


def apply_config(section: TokenizerSection, config: dict[str, Any]) -> None:
    """Facts from tokenizer_config.json (the `transformers` side)."""
    for side in ("padding_side", "truncation_side"):
        if isinstance(config.get(side), str):
            setattr(section, side, config[side])
    length = config.get("model_max_length")
    if isinstance(length, int) and length < 2**62:
        section.model_max_length = length
    if isinstance(config.get("tokenizer_class"), str):
        section.class_name = config["tokenizer_class"]
    for role in _SPECIAL_ROLES:
        text = _token_text(config.get(role))
        if text is not None:
            section.special_tokens[role] = text
    if "chat_template" in config:
        section.chat_template_digest = _chat_digest(config["chat_template"])


def _read_json(path: Path) -> dict[str, Any]:
    # The project's one reader: regular files only (a FIFO cannot block the job), size capped.
    data = read_input(path, "a tokenizer file", max_bytes=_MAX_JSON_BYTES, error=_UnreadableFile)
    document = json.loads(data)
    if not isinstance(document, dict):
        raise ValueError(f"{path.name} is not a JSON object")
    return document


def from_directory(section: TokenizerSection, directory: Path) -> None:
    if not directory.is_dir():
        raise ValueError("not a directory" if directory.exists() else "no such directory")
    present = [name for name in (*MODEL_FILES, *SIDE_FILES) if (directory / name).is_file()]
    if not any(name in MODEL_FILES for name in present):
        raise ValueError(
            "no tokenizer files (expected tokenizer.json, vocab.json + merges.txt, vocab.txt "
            "or tokenizer.model)"
        )
    section.source = "directory"
    section.files = {name: "sha256:" + sha256_file(directory / name) for name in sorted(present)}
    if "tokenizer.json" in present:
        apply_pipeline(section, _read_json(directory / "tokenizer.json"))
    if "special_tokens_map.json" in present:
        for role, value in _read_json(directory / "special_tokens_map.json").items():
            text = _token_text(value)
            if role in _SPECIAL_ROLES and text is not None:
                section.special_tokens[role] = text
    if "tokenizer_config.json" in present:
        apply_config(section, _read_json(directory / "tokenizer_config.json"))
    if "chat_template.jinja" in present:
        data = read_input(
            directory / "chat_template.jinja",
            "a chat template",
            max_bytes=_MAX_TEMPLATE_BYTES,
            error=_UnreadableFile,
        )
        text = data.decode("utf-8")
        section.chat_template_digest = _chat_digest(text)


def from_object(section: TokenizerSection, obj: Any) -> None:
    backend = getattr(obj, "backend_tokenizer", None) or obj
    to_str = getattr(backend, "to_str", None)
    is_hf = hasattr(obj, "special_tokens_map") or hasattr(obj, "padding_side")
    if not callable(to_str) and not is_hf:
        raise TypeError(
            "expected a tokenizer directory, a tokenizers.Tokenizer or a transformers "
            f"tokenizer; got {type(obj).__name__}"
        )
    section.source = "object"
    section.class_name = qualname(obj)
    if callable(to_str):
        apply_pipeline(section, json.loads(to_str()))
    if is_hf:
        config = {
            "padding_side": getattr(obj, "padding_side", None),
            "truncation_side": getattr(obj, "truncation_side", None),
            "model_max_length": getattr(obj, "model_max_length", None),
            **{role: getattr(obj, role, None) for role in _SPECIAL_ROLES},
        }
        if getattr(obj, "chat_template", None) is not None:
            config["chat_template"] = obj.chat_template
        apply_config(section, config)
        section.class_name = qualname(obj)
        name = getattr(obj, "name_or_path", None)
        section.path = str(name) if name else None
        vocab_file = getattr(obj, "vocab_file", None)
        if isinstance(vocab_file, str) and os.path.isfile(vocab_file):
            section.files[os.path.basename(vocab_file)] = "sha256:" + sha256_file(vocab_file)
        if section.vocab_size is None and callable(getattr(obj, "__len__", None)):
            section.vocab_size = len(obj)


def collect(context: CaptureContext) -> TokenizerSection:
    # Config tables were validated when the config was loaded.
    declared_path = context.config.declared.get("tokenizer", {}).get("path")
    given = context.inputs.get("tokenizer")
    if given is None and declared_path is None:
        raise CollectorUnavailable("no tokenizer declared (use --tokenizer or tokenizer=)")
    section = TokenizerSection(
        tokenizers_version=_version("tokenizers"), transformers_version=_version("transformers")
    )
    try:
        if given is None or isinstance(given, (str, os.PathLike)):
            path = os.fspath(given) if given is not None else str(declared_path)
            section.path = path
            from_directory(section, Path(context.cwd, path))
        else:
            from_object(section, given)
    except OSError as exc:
        section.error = f"{exc.strerror or type(exc).__name__}: {exc.filename or section.path}"
    except (ValueError, TypeError) as exc:  # includes JSON and UTF-8 decoding errors
        section.error = str(exc)[:300]
    section.special_tokens = dict(sorted(section.special_tokens.items()))
    section.added_tokens = dict(sorted(section.added_tokens.items()))
    return section


COLLECTOR = Collector(
    name="tokenizer",
    collect=collect,
    timeout_s=15.0,
    description="tokenizer class, vocabulary, pipeline digests, special tokens, files",
)
