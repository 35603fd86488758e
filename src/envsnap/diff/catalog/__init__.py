"""The rule catalog, as data. Severities follow docs/reference numerics entries (cited in refs).

Severity tuples are (bitwise, close, conclusion). The mapping from the numerics catalog's
High/Med/Low/None is: High -> high, Med -> medium, Low/None -> low; `critical` is kept for
differences that change what is optimized (data, batch, loss, hyperparameters) and for known
silent-correctness bug windows; `info` is kept for noise. A path several rules match gets the
most severe one, so the order of `CATALOG` only breaks exact ties (and orders equal-rank findings).
"""

from __future__ import annotations

from envsnap.diff.catalog import (
    algorithms,
    derived,
    environment,
    fallback,
    hardware,
    noise,
    placement,
    precision,
    probe,
    randomness,
    semantics,
    shared,
    stack,
)
from envsnap.diff.rules import Rule

# Derived rules first and catch-alls last; otherwise the order only breaks ties.
CATALOG: tuple[Rule, ...] = (
    derived.RULES
    + semantics.RULES
    + precision.RULES
    + algorithms.RULES
    + hardware.RULES
    + stack.RULES
    + randomness.RULES
    + environment.RULES
    + placement.RULES
    + probe.RULES
    + noise.RULES
    + shared.RULES
    + derived.ADVISORY_RULES
    + fallback.RULES
)

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in CATALOG}


def cause_name(rule_id: str) -> str:
    """The cause a rule's findings stand for: its merge name (rules describing one fact share
    it, and one finding, titled by the rule of that name when it fired), else its own id."""
    rule = RULES_BY_ID.get(rule_id)
    return (rule.merge or rule.id) if rule is not None else rule_id
