"""`env`: the environment variables that can change results, with secrets redacted."""

from __future__ import annotations

from envsnap.capturing.collectors.base import CaptureContext, Collector
from envsnap.capturing.collectors.gpu import uuid_hash
from envsnap.capturing.redact import REDACTED
from envsnap.manifest.records import EnvSection

# Device selectors that may name boards by UUID; the manifest keeps only a short hash of those.
DEVICE_SELECTORS = frozenset(
    {
        "CUDA_VISIBLE_DEVICES",
        "NVIDIA_VISIBLE_DEVICES",
        "ROCR_VISIBLE_DEVICES",
        "HIP_VISIBLE_DEVICES",
    }
)


def hide_device_uuids(value: str) -> str:
    """`GPU-8a3b...,0` -> `GPU-#<hash>,0`: the same board still compares equal across runs."""
    entries = []
    for entry in value.split(","):
        stripped = entry.strip()
        if stripped.upper().startswith(("GPU-", "MIG-")):
            entries.append(f"{stripped.split('-', 1)[0]}-#{uuid_hash(stripped)}")
        else:
            entries.append(entry)
    return ",".join(entries)


def collect(context: CaptureContext) -> EnvSection:
    config = context.config
    prefixes = tuple(sorted(set(config.env_prefixes)))
    names = frozenset(config.env_names)
    excluded = frozenset(config.env_exclude)
    variables: dict[str, str] = {}
    redacted: list[str] = []
    for name, value in context.env.items():
        if name in excluded or not (name in names or name.startswith(prefixes)):
            continue
        clean = context.redactor.redact_value(name, value)
        if name in DEVICE_SELECTORS:
            clean = hide_device_uuids(clean)
        if clean != value and REDACTED in clean:
            redacted.append(name)
        variables[name] = clean
    return EnvSection(
        variables=dict(sorted(variables.items())),
        prefixes=list(prefixes),
        names=sorted(names - excluded),  # an excluded name was not looked at
        redacted=sorted(redacted),
    )


COLLECTOR = Collector(name="env", collect=collect, timeout_s=2.0, description="env variables")
