"""What a job can declare without code: the [tool.envsnap] tables of the in-job sections.

Each table is validated by a strict model, so a typo is one clear error instead of a value
silently ignored. Config tables, `--set` and the API's keyword dicts all go through here. The
models (envsnap.capturing.declared_models) are imported on the first table there is to check:
a capture that declares nothing never builds them.
"""

from __future__ import annotations

from typing import Any

from envsnap.errors import ConfigError

DEFAULT_DATA_BUDGET_S = 600.0

# In-job sections a config table, --set or the API can declare values for (the keys of
# declared_models.DECLARED_MODELS, in its order).
DECLARED_SECTIONS: tuple[str, ...] = ("precision", "parallel", "data", "tokenizer", "templates")

# Short spellings accepted in config and --set, mapped to the manifest field names.
ALIASES: dict[str, dict[str, str]] = {
    "parallel": {
        "global_batch": "global_batch_declared",
        "grad_accum": "grad_accum_steps",
        "gradient_accumulation_steps": "grad_accum_steps",
        "micro_batch": "micro_batch_size",
        "bucket_cap_mb": "ddp_bucket_cap_mb",
        "find_unused_parameters": "ddp_find_unused_parameters",
    },
}


def normalize(section: str, table: dict[str, Any], source: str) -> dict[str, Any]:
    """Validate a declared table; return it with aliases resolved (only the keys given)."""
    if not table:
        return {}
    from envsnap.capturing.declared_models import DECLARED_MODELS
    from envsnap.manifest.validation import validate_one_line

    model = DECLARED_MODELS[section]
    aliases = ALIASES.get(section, {})
    renamed = {aliases.get(key, key): value for key, value in table.items()}
    validated = validate_one_line(model, renamed, error=ConfigError, context=source, loc=(section,))
    return validated.model_dump(mode="json", include=set(renamed))


def parse(section: str, table: dict[str, Any], source: str) -> Any:
    """The validated model of a declared table (defaults filled in)."""
    from envsnap.capturing.declared_models import DECLARED_MODELS

    return DECLARED_MODELS[section].model_validate(normalize(section, table, source))
