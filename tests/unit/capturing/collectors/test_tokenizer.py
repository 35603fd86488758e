"""The tokenizer section from a real BPE tokenizer trained offline on text the test writes."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import pytest

from envsnap.capturing.collectors.base import CaptureContext, CollectorUnavailable
from envsnap.capturing.collectors.tokenizer import collect
from envsnap.capturing.config import CaptureConfig

tokenizers = pytest.importorskip("tokenizers")

CHAT_TEMPLATE = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}"
TEXT = "the quick brown fox jumps over the lazy dog\n" * 50 + "pack my box with five dozen jugs\n"


def _train(tmp_path: Path, lowercase: bool = False) -> Any:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT)
    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    if lowercase:
        tokenizer.normalizer = normalizers.Lowercase()
    trainer = trainers.BpeTrainer(vocab_size=60, special_tokens=["<unk>", "<s>", "</s>"])
    tokenizer.train([str(corpus)], trainer)
    tokenizer.add_tokens(["<|user|>"])
    return tokenizer


def _save(tmp_path: Path, tokenizer: Any, name: str = "tok") -> Path:
    directory = tmp_path / name
    directory.mkdir()
    tokenizer.save(str(directory / "tokenizer.json"))
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "<s>",
        "eos_token": {"content": "</s>", "special": True},
        "padding_side": "left",
        "truncation_side": "right",
        "model_max_length": 512,
        "chat_template": CHAT_TEMPLATE,
    }
    (directory / "tokenizer_config.json").write_text(json.dumps(config))
    return directory


def _context(tmp_path: Path, path: str | None = None, **inputs: Any) -> CaptureContext:
    declared = {"tokenizer": {"path": path}} if path else {}
    return CaptureContext(
        env={},
        cwd=tmp_path,
        config=CaptureConfig(declared=declared),
        inputs=inputs,
        deadline=time.monotonic() + 30,
    )


def test_directory_facts(tmp_path: Path) -> None:
    tokenizer = _train(tmp_path)
    directory = _save(tmp_path, tokenizer)
    section = collect(_context(tmp_path, "tok"))
    assert section.error is None and section.source == "directory"
    assert section.model_type == "BPE"
    assert section.vocab_size == tokenizer.get_vocab_size(with_added_tokens=True)
    assert section.added_tokens["<|user|>"].special is False
    assert section.added_tokens["<s>"].special is True
    assert section.special_tokens == {"bos_token": "<s>", "eos_token": "</s>"}
    assert (section.padding_side, section.truncation_side) == ("left", "right")
    assert section.model_max_length == 512
    assert section.class_name == "PreTrainedTokenizerFast"
    expected = hashlib.sha256(CHAT_TEMPLATE.encode()).hexdigest()
    assert section.chat_template_digest == f"sha256:{expected}"
    file_digest = hashlib.sha256((directory / "tokenizer.json").read_bytes()).hexdigest()
    assert section.files["tokenizer.json"] == f"sha256:{file_digest}"
    assert section.tokenizers_version == tokenizers.__version__


def test_object_and_directory_agree_and_a_normalizer_change_shows(tmp_path: Path) -> None:
    tokenizer = _train(tmp_path)
    from_object = collect(_context(tmp_path, tokenizer=tokenizer))
    assert from_object.source == "object"
    assert from_object.class_name == "tokenizers.Tokenizer"
    _save(tmp_path, tokenizer)
    from_dir = collect(_context(tmp_path, "tok"))
    for field in ("model_digest", "pre_tokenizer_digest", "normalizer_digest", "vocab_size"):
        assert getattr(from_object, field) == getattr(from_dir, field)
    lowered = collect(_context(tmp_path, tokenizer=_train(tmp_path, lowercase=True)))
    assert lowered.normalizer_digest != from_object.normalizer_digest
    assert lowered.pre_tokenizer_digest == from_object.pre_tokenizer_digest


def test_bad_inputs_are_recorded_on_the_section(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "README.md").write_text("no tokenizer here")
    assert "no tokenizer files" in (collect(_context(tmp_path, "empty")).error or "")
    assert collect(_context(tmp_path, "missing")).error == "no such directory"
    wrong = collect(_context(tmp_path, tokenizer=3.5))
    assert wrong.error is not None and "got float" in wrong.error
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "tokenizer.json").write_text("{not json")
    assert collect(_context(tmp_path, "broken")).error is not None
    with pytest.raises(CollectorUnavailable):
        collect(_context(tmp_path))


def test_an_oversized_chat_template_is_an_error_on_the_section_not_read(tmp_path: Path) -> None:
    directory = _save(tmp_path, _train(tmp_path))
    with open(directory / "chat_template.jinja", "wb") as template:
        template.truncate(4 * 1024 * 1024 + 1)  # sparse: one byte over the cap
    section = collect(_context(tmp_path, "tok"))
    assert section.error is not None and "chat template" in section.error, section.error
    assert section.chat_template_digest is not None  # the config's template was still read


def test_a_chat_template_file_is_digested_byte_for_byte(tmp_path: Path) -> None:
    directory = _save(tmp_path, _train(tmp_path))
    raw = b"{% for m in messages %}{{ m.content }}\r\n{% endfor %}"
    (directory / "chat_template.jinja").write_bytes(raw)
    section = collect(_context(tmp_path, "tok"))
    assert section.chat_template_digest == "sha256:" + hashlib.sha256(raw).hexdigest()
