"""`env`: the environment variables that can change results, with secrets redacted."""

from __future__ import annotations

from envsnap.collectors.base import CaptureContext, Collector
from envsnap.redact import REDACTED
from envsnap.sections.env import EnvSection


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
        if clean != value and REDACTED in clean:
            redacted.append(name)
        variables[name] = clean
    return EnvSection(
        variables=dict(sorted(variables.items())),
        prefixes=list(prefixes),
        names=sorted(names),
        redacted=sorted(redacted),
    )


COLLECTOR = Collector(name="env", collect=collect, timeout_s=2.0, description="env variables")
