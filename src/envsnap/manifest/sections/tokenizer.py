"""The `tokenizer` section: which tokenizer turned text into ids, as digests and facts."""

from __future__ import annotations

from pydantic import Field

from envsnap.manifest.sections.base import Model, Section


class AddedToken(Model):
    """A token added on top of the model vocabulary."""

    id: int = Field(description="Token id.")
    special: bool = Field(default=False, description="Whether it is a special token.")


class TokenizerSection(Section):
    """Tokenizer class, vocabulary, pipeline digests, special tokens, files and versions."""

    source: str | None = Field(
        default=None, description="'directory' or 'object': where the facts were read from."
    )
    path: str | None = Field(default=None, description="Directory as declared, or name_or_path.")
    class_name: str | None = Field(
        default=None, description="Tokenizer class (object's class, or tokenizer_class)."
    )
    model_type: str | None = Field(
        default=None, description="Tokenization model: BPE, WordPiece, Unigram, WordLevel..."
    )
    vocab_size: int | None = Field(
        default=None, description="Number of distinct token ids, added tokens included."
    )
    model_digest: str | None = Field(
        default=None, description="sha256 of the canonical JSON of the model (vocab, merges)."
    )
    normalizer_digest: str | None = Field(
        default=None, description="sha256 of the canonical JSON of the normalizer config."
    )
    pre_tokenizer_digest: str | None = Field(
        default=None, description="sha256 of the canonical JSON of the pre-tokenizer config."
    )
    post_processor_digest: str | None = Field(
        default=None, description="sha256 of the canonical JSON of the post-processor config."
    )
    decoder_digest: str | None = Field(
        default=None, description="sha256 of the canonical JSON of the decoder config."
    )
    special_tokens: dict[str, str] = Field(
        default_factory=dict, description="Role (bos_token, eos_token, pad_token...) -> token."
    )
    added_tokens: dict[str, AddedToken] = Field(
        default_factory=dict, description="Added tokens keyed by their text."
    )
    padding_side: str | None = Field(default=None, description="left or right.")
    truncation_side: str | None = Field(default=None, description="left or right.")
    model_max_length: int | None = Field(default=None, description="Maximum sequence length.")
    chat_template_digest: str | None = Field(
        default=None, description="sha256 of the chat template text (canonical JSON if several)."
    )
    files: dict[str, str] = Field(
        default_factory=dict,
        description="Tokenizer file name -> 'sha256:<hex>' (tokenizer.json, vocab/merges, "
        "sentencepiece model, tokenizer_config.json...).",
    )
    tokenizers_version: str | None = Field(
        default=None, description="Installed `tokenizers` version."
    )
    transformers_version: str | None = Field(
        default=None, description="Installed `transformers` version."
    )
    error: str | None = Field(default=None, description="Why the tokenizer could not be read.")
