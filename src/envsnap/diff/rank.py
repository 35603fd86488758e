"""Changes + rules (+ both manifests, for derived facts) -> hits -> findings, ranked.

Every change becomes a hit: an unmatched one falls back to a low-severity rule, and a value one
side could not capture is ranked by what could hide there. Hits are grouped into one finding
per cause (`grouping.py`), a common cause's tail past `FOLD_AFTER` folded into one finding,
and ordered on evidence (`ordering.py`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from envsnap.audit.diffhook import advisory_hits
from envsnap.diff.catalog import CATALOG, RULES_BY_ID
from envsnap.diff.catalog.aliases import names_of
from envsnap.diff.changes import Change, compute_changes
from envsnap.diff.code_edits import join_code_edits, set_by_edit
from envsnap.diff.consequences import join_gpu_consequences, through_it
from envsnap.diff.cpu_arch import join_platform_move
from envsnap.diff.derived import Hit, derived_hits
from envsnap.diff.dtype_titles import dtype_title
from envsnap.diff.env_meaning import cannot_act
from envsnap.diff.findings import make_finding, make_report
from envsnap.diff.fingerprints import fingerprint_title
from envsnap.diff.gates import apply_gates
from envsnap.diff.grouping import (
    FOLD_AFTER,
    Group,
    evidence,
    group_basis,
    group_hits,
    hit_severity,
    is_active,
    is_primary,
    lead_hit,
    primary_hit,
    title_of,
)
from envsnap.diff.ordering import EFFECT, STRICTER, Standing, basis_group
from envsnap.diff.parallel_batch import join_layout_batch
from envsnap.diff.placement import fold_image_moves
from envsnap.diff.probe_evidence import apply_probe, is_probe_result
from envsnap.diff.release_mechanisms import join_release_mechanisms
from envsnap.diff.report import (
    CATEGORY_WEIGHT,
    SEVERITIES,
    SEVERITY_RANK,
    TARGETS,
    Category,
    Evidence,
    Finding,
    Report,
    Severity,
    Target,
)
from envsnap.diff.rules import Rule, RuleIndex, aspects
from envsnap.diff.sides import DIFF_SIDES, Side, Sides, where
from envsnap.diff.toolkit_libraries import join_toolkit_libraries
from envsnap.diff.torch_companions import companions_alone
from envsnap.diff.torch_wheel import join_wheel_consequences
from envsnap.diff.versions import STEP_SIZE

INDEX = RuleIndex(CATALOG)
VALUE_WIDTH = 48


def _step_down(severity: Severity, floor: Severity = "low") -> Severity:
    lowered = SEVERITIES[min(SEVERITIES.index(severity) + 1, len(SEVERITIES) - 1)]
    return lowered if SEVERITY_RANK[lowered] >= SEVERITY_RANK[floor] else floor


def _cap(severity: Severity, cap: Severity = "high") -> Severity:
    return cap if SEVERITY_RANK[severity] > SEVERITY_RANK[cap] else severity


@cache
def _section_rules(section: str) -> tuple[Rule, ...]:
    """Rules that can fire inside a top-level section (what could hide if it is missing)."""
    return tuple(
        rule
        for rule in CATALOG
        if rule.category != "noise"
        and any(pattern.split(".", 1)[0] == section for pattern in rule.match)
    )


def _uncaptured_hit(change: Change) -> Hit:
    """Rank a value one side lacks by the most severe rule that could fire there: counted as a
    difference for bitwise (capped at high), one step lower for close and conclusion."""
    if len(change.path) == 1:
        rules: Sequence[Rule] = _section_rules(change.path[0])
    else:
        probe = Change(change.path, "changed", change.a, change.b)
        rules = INDEX.matching(probe)
    severity: list[Severity] = []
    for index, target in enumerate(TARGETS):
        worst: Severity = "low"
        for rule in rules:
            if SEVERITY_RANK[rule.severity[index]] > SEVERITY_RANK[worst]:
                worst = rule.severity[index]
        worst = _cap(worst)
        if change.record_gap and target != "bitwise":
            # What a collect_env report, W&B or MLflow run cannot state is listed, not ranked:
            # the record's format is the cause, and no capture setting would fill it.
            worst = "low" if SEVERITY_RANK[worst] > SEVERITY_RANK["low"] else worst
        severity.append(worst if target == "bitwise" else _step_down(worst))
    side: Side = "a" if change.side == "a" else "b"
    why = f" ({change.reason})" if change.reason else ""
    a, b = change.a, change.b
    known = ""
    if len(change.path) == 1:  # a whole section: say which side has it, not its content
        a, b = ("captured" if a is not None else None), ("captured" if b is not None else None)
    elif (shown := _plain_value(b if side == "a" else a)) is not None:
        # The value the other side records: the one fact to check on the side that lacks it.
        known = f"; {_short(shown)} {where('b' if side == 'a' else 'a', 'in')}"
    return Hit(
        "uncaptured",
        change.dotted,
        a,
        b,
        title=f"cannot compare {change.dotted}: not captured {where(side, 'in')}{why}{known}",
        severity=(severity[0], severity[1], severity[2]),
        # One note per section: what one side did not record is one gap, however many facts.
        component=_section_of(change.dotted),
        basis="unknown",
        gap=(side, change.reason),
    )


def _plain_value(value: Any) -> str | int | float | bool | None:
    """A scalar, or a list of scalars (CPU flags) joined with commas; None for anything else."""
    if isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list) and value and all(isinstance(v, str | int | float) for v in value):
        return ", ".join(map(str, value))
    return None


def _section_of(path: str) -> str:
    return path.split(".", 1)[0].split("[", 1)[0]


def _gap_title(hits: Sequence[Hit]) -> str:
    """'cannot compare torch: 53 facts not recorded on A (reason)' for a section's notes."""
    by_side: dict[Side, int] = {}
    reasons: dict[str, int] = {}
    for hit in hits:
        side, reason = hit.gap or ("a", None)
        by_side[side] = by_side.get(side, 0) + 1
        if reason:
            reasons[reason] = reasons.get(reason, 0) + 1
    sides = ", ".join(
        f"{count} {'facts' if count != 1 else 'fact'} not recorded {where(side, 'on')}"
        if index == 0
        else f"{count} {where(side, 'on')}"
        for index, (side, count) in enumerate(sorted(by_side.items()))
    )
    ranked = sorted(reasons.items(), key=lambda item: (-item[1], item[0]))
    if len(ranked) == 1:
        why = f" ({ranked[0][0]})"
    elif ranked:
        named = "; ".join(f"{count}: {reason}" for reason, count in ranked[:2])
        rest = sum(count for _, count in ranked[2:])
        why = f" ({named}{f'; {rest} for other reasons' if rest else ''})"
    else:
        why = ""
    return f"cannot compare {_section_of(hits[0].path)}: {sides}{why}"


def _category_of(hit: Hit, target: Target) -> Category:
    if hit.rule != "uncaptured":
        return RULES_BY_ID[hit.rule].category
    rules = _section_rules(_section_of(hit.path))
    if not rules:
        return "environment"
    index = TARGETS.index(target)
    best = max(rules, key=lambda r: (SEVERITY_RANK[r.severity[index]], CATEGORY_WEIGHT[r.category]))
    return best.category


def hits_for(changes: Iterable[Change], target: Target) -> list[Hit]:
    """One hit per change: the most severe matching rule, or the fallback."""
    hits: list[Hit] = []
    for change in changes:
        if change.kind == "uncaptured":
            hits.append(_uncaptured_hit(change))
            continue
        if change.path[:2] == ("env", "variables") and cannot_act(change.path[-1]):
            hits.append(Hit("noise.env", change.dotted, change.a, change.b))
            continue
        kinds = aspects(change)
        rule = INDEX.claiming(change, kinds, target)
        hits.append(
            Hit(
                rule.id if rule else "fallback",
                change.dotted,
                change.a,
                change.b,
                magnitude=max((STEP_SIZE.get(kind, 0) for kind in kinds), default=0),
            )
        )
    return hits


def without_covered(hits: Iterable[Hit], derived: Iterable[Hit]) -> list[Hit]:
    """The hits, less fallbacks and bookkeeping at a path a derived finding already reports
    (the device a derived rule normalises from 'cuda:0' is that finding's evidence, not another
    difference; the system toolkit a job outside torch loads is not an install location)."""
    covered = {path for hit in derived for path in (hit.path, *(p for p, _, _ in hit.extra))}
    return [
        hit
        for hit in hits
        if not (
            hit.path in covered
            and (hit.rule == "fallback" or RULES_BY_ID[hit.rule].category == "noise")
        )
    ]


def _short(value: Any) -> str:
    if value is None:
        return "(absent)"
    if isinstance(value, dict) and isinstance(value.get("version"), str):
        return str(value["version"])  # an added or removed package: its version says enough
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= VALUE_WIDTH else text[: VALUE_WIDTH - 1] + "…"


def _glob(pattern: str) -> re.Pattern[str]:
    return re.compile(
        "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    )


def is_ignored(rule: str, path: str, patterns: Sequence[re.Pattern[str]]) -> bool:
    """`--ignore` matches a rule id (or a former id of it), a path glob, or a path prefix (a
    section, a package)."""
    names = names_of(rule)
    return any(
        any(p.fullmatch(name) for name in names) or p.fullmatch(path) or _prefix(p, path)
        for p in patterns
    )


def _prefix(pattern: re.Pattern[str], path: str) -> bool:
    """True when the pattern matches a whole leading part of the path (`gpu`, `packages.x`)."""
    for end, char in enumerate(path):
        if char in ".[" and end and pattern.fullmatch(path[:end]):
            return True
    return False


def _verdict(findings: Sequence[Finding], target: Target) -> str:
    """The headline: the most likely cause in plain words, then how many others compete. With
    no difference above info, what both sides leave random, else what cannot be compared."""
    if not findings:
        return "identical conditions: nothing differs"
    differences = [f for f in findings if basis_group(f.basis, f.category) == 0]
    top = differences[0] if differences else findings[0]
    if top.severity == "info" or not differences:
        shared = [f for f in findings if f.basis == "shared" and f.severity != "info"]
        if shared:
            return (
                f"no difference expected to change results ({target}); if the runs disagree, "
                f"{len(shared)} shared risk(s), first: {shared[0].title}"
            )
    if not differences and top.basis == "unknown":
        return f"no recorded difference explains a disagreement ({target}); {top.title}"
    medium = SEVERITY_RANK["medium"]
    others = sum(1 for f in findings if f is not top and SEVERITY_RANK[f.severity] >= medium)
    tail = f"; {others} other finding(s) at medium or above" if others else ""
    if top.severity == "info":
        if top.category == "noise":
            return f"no difference expected to change results ({target}); bookkeeping only{tail}"
        return f"no difference expected to change results ({target}); info: {top.title}{tail}"
    if top.severity in ("critical", "high"):
        return f"most likely cause ({target}): {top.title}{tail}"
    if top.severity == "medium":
        return f"results may differ ({target}); most likely cause: {top.title}{tail}"
    return f"no difference expected to change results ({target}); minor: {top.title}{tail}"


@dataclass(frozen=True)
class _Placed:
    """A group of hits with what decides its place, before its finding is written."""

    group: Group
    lead: Hit
    first: Hit
    category: Category
    standing: Standing


def _placed(group: Group, target: Target) -> _Placed:
    lead = lead_hit(group, target)
    first = primary_hit(group, lead)
    category = _category_of(lead, target)

    def most_severe(target: Target) -> Severity:
        return max((hit_severity(hit, target) for hit in group.hits), key=SEVERITY_RANK.__getitem__)

    severity = most_severe(target)
    standing = Standing(
        basis=group_basis(group.hits),
        # The most severe of the cause's hits.
        severity=severity,
        stricter=tuple(most_severe(stricter) for stricter in STRICTER[target]),
        # Bookkeeping cannot act on results: it never outranks a cause of equal severity.
        active=category != "noise" and is_active(group.hits),
        specificity=max(RULES_BY_ID[hit.rule].specificity for hit in group.hits),
        category=category,
        magnitude=max(hit.magnitude for hit in group.hits),
        rule=lead.rule,
        path=first.path,
        target=target,
        measured=_measured(group.hits),
        effect=_effect(group, category, severity, target),
    )
    return _Placed(group, lead, first, category, standing)


def _effect(group: Group, category: Category, severity: Severity, target: Target) -> Category:
    """The largest kind of effect among the ways a cause acts at its own severity: a GPU change
    whose TF32 is as severe as the change itself changes precision, not only kernels."""
    if category == "noise":
        return category
    kinds = [
        _category_of(hit, target) for hit in group.hits if hit_severity(hit, target) == severity
    ]
    return max([category, *kinds], key=lambda kind: EFFECT[target][kind])


def _measured(hits: Sequence[Hit]) -> int:
    """1 when the probe confirms any of a cause's mechanisms, -1 when it rules out every one it
    measured, 0 when it measured none."""
    verdicts = {hit.measured for hit in hits if hit.measured}
    return 1 if 1 in verdicts else -1 if verdicts else 0


def _measured_note(hits: Sequence[Hit]) -> str | None:
    notes = [hit.measured_note for hit in hits if hit.measured_note]
    return notes[0] if notes else None


def _folded(placed: list[_Placed], target: Target) -> list[_Placed]:
    """Past FOLD_AFTER findings of one cause kind (2,000 packages upgraded), the best placed
    stay as they are and the rest become one finding whose evidence lists every one of them:
    the report stays a few screens long whatever the manifests hold."""
    by_kind: dict[str, list[_Placed]] = {}
    for item in placed:
        by_kind.setdefault(item.group.key[0], []).append(item)
    if all(len(members) <= FOLD_AFTER for members in by_kind.values()):
        return placed
    out: list[_Placed] = []
    for kind, members in by_kind.items():
        if len(members) <= FOLD_AFTER:
            out.extend(members)
            continue
        members.sort(key=lambda item: item.standing.key())
        rest = members[FOLD_AFTER:]
        hits = [hit for item in rest for hit in item.group.hits]
        out += [*members[:FOLD_AFTER], _placed(Group((kind, ""), hits, folded=len(rest)), target)]
    return out


def _finding(placed: _Placed, target: Target, sides: Sides) -> Finding:
    group, lead, first, standing = placed.group, placed.lead, placed.first, placed.standing
    rule = RULES_BY_ID[lead.rule]
    proof = evidence(group, first)
    if group.folded:
        title = f"{rule.title}: {group.folded} more like this, each one in the evidence"
        # Values read from two validated manifests: JSON already, checked once on reading.
        proven = [
            Evidence.model_construct(path=path, a=a, b=b, inferred=inferred)
            for path, a, b, inferred in proof
        ]
    else:
        title = (
            _own_title(group, first)
            or title_of(group, lead)
            or fingerprint_title(rule.title, first.path, first.a, first.b)
            or f"{_heading(rule, first)}: {_subject(first.path, rule)}{_short(first.a)} → "
            f"{_short(first.b)}"
        )
        if first.qualifier:
            title += f" ({first.qualifier})"
        title += with_it(group.hits, first) + through_it(group.hits, lead, target)
        title += set_by_edit(group.hits)
        note = _measured_note(group.hits)
        if note:
            title += f" ({note})"
        proven = [
            Evidence(path=path, a=a, b=b, inferred=inferred) for path, a, b, inferred in proof
        ]
    return make_finding(
        rule, first, target, category=placed.category, title=title, sides=sides
    ).model_copy(
        update={
            "severity": standing.severity,
            "evidence": proven,
            "rank_reason": standing.reason(target),
            "basis": standing.basis,
            "rules": list(dict.fromkeys([lead.rule, *(hit.rule for hit in group.hits)])),
        }
    )


_DERIVED = "seeds.derived."
# Collections whose keys name the thing a generic title is about: a package, a data item, a
# template, a file, an environment variable, an attention backend, a CUDA or ROCm library.
_SUBJECTS = re.compile(
    r"(?:packages\.(?:installed|conda)|data\.items|templates\.templates|tokenizer\.files"
    r"|env\.variables|parallel\.dataloaders|torch\.sdpa|cuda_stack\.libraries)\.(?P<key>[^.\[]+)"
)


def _subject(path: str, rule: Rule) -> str:
    """What a generic title is about, with a trailing space: 'scipy ' for
    packages.installed.scipy.version, 'train file_count ' for data.items.train.file_count;
    nothing when the rule's title names it already."""
    found = _SUBJECTS.match(path)
    if found is None:
        # The catch-all names its field: "other difference: 1 -> 2" says nothing.
        return f"{path} " if rule.id == "fallback" else ""
    if re.search(rf"\b{re.escape(found['key'])}\b", rule.title, re.IGNORECASE):
        return ""
    leaf = path[found.end() :].lstrip(".")
    return f"{found['key']} " if leaf in ("", "version") else f"{found['key']} {leaf} "


def with_it(hits: Sequence[Hit], first: Hit) -> str:
    """'; with it: triton 3.2.0 → 3.3.0', naming the other packages of a rule's family that
    changed beside the titled one (torchvision and triton beside torch): one finding, each
    package named."""
    if not RULES_BY_ID[first.rule].component_title:
        return ""  # one package per finding (a library and its own wheel say one thing)
    titled = _SUBJECTS.match(first.path)
    named: dict[str, str] = {}
    for hit in hits:
        found = _SUBJECTS.match(hit.path)
        if (
            hit.rule == first.rule
            and hit.consequence_of is None
            and found is not None
            and hit.path.startswith("packages.")
            and hit.path[found.end() :] == ".version"
            and not is_primary(hit)
            and (titled is None or titled["key"] != found["key"])
        ):
            named.setdefault(found["key"], f"{found['key']} {_short(hit.a)} → {_short(hit.b)}")
    return f"; with it: {', '.join(named.values())}" if named else ""


def _heading(rule: Rule, first: Hit) -> str:
    """The rule's title, or its component title when the titling hit is another component
    than the one the rule is named after."""
    if rule.component_title and _SUBJECTS.match(first.path) and not is_primary(first):
        return rule.component_title
    return rule.title


def _own_title(group: Group, first: Hit) -> str | None:
    """A title the group's shape decides: a section's notes counted as one gap; a storage
    dtype change named by its dtypes; a changed master seed named by its value, the seeds
    derived from it being its evidence."""
    if first.rule == "uncaptured" and len(group.hits) > 1:
        return _gap_title(group.hits)
    if first.rule == "precision.dtypes":
        return dtype_title([hit for hit in group.hits if hit.rule == first.rule])
    if first.rule != "randomness.seed":
        return None
    if first.path == "seeds.master_seed":
        return f"seed {_short(first.a)} → {_short(first.b)}"
    if first.path == "seeds.rank":
        return f"seed rank {_short(first.a)} → {_short(first.b)}: the seeds derived per rank differ"
    derived = [hit.path.rsplit(".", 1)[1] for hit in group.hits if hit.path.startswith(_DERIVED)]
    if first.path.startswith(_DERIVED):
        return f"derived seeds differ ({', '.join(derived)}) under the same master seed"
    return None


def build_report(
    hits: Iterable[Hit],
    *,
    target: Target,
    ignore: Sequence[str] = (),
    label_a: str | None = None,
    label_b: str | None = None,
    sides: Sides = DIFF_SIDES,
) -> Report:
    """Group hits into findings (one per cause, the tail of a very common cause folded into
    one) and rank them on evidence."""
    patterns = [_glob(p) for p in ignore]
    kept = [hit for hit in hits if not (patterns and is_ignored(hit.rule, hit.path, patterns))]
    placed = _folded([_placed(group, target) for group in group_hits(kept)], target)
    placed.sort(key=lambda item: item.standing.key())
    return make_report(
        "diff",
        target,
        (_finding(item, target, sides) for item in placed),
        lambda findings: _verdict(findings, target),
        a=label_a,
        b=label_b,
    )


def diff_documents(
    doc_a: dict[str, Any],
    doc_b: dict[str, Any],
    *,
    target: Target = "close",
    ignore: Sequence[str] = (),
    label_a: str | None = None,
    label_b: str | None = None,
    sides: Sides = DIFF_SIDES,
) -> Report:
    """Compare two manifest documents (their JSON form) and rank every difference; titles
    name the sides as `sides` does (A and B by default)."""
    derived = derived_hits(doc_a, doc_b)
    changes = [change for change in compute_changes(doc_a, doc_b) if not is_probe_result(change)]
    hits = without_covered(hits_for(changes, target), derived)
    hits = apply_gates([*hits, *derived, *advisory_hits(doc_a, doc_b)], doc_a, doc_b)
    hits = companions_alone(hits, doc_a, doc_b)
    # After the gates: a folded version change keeps the severity its gate gave it.
    hits = fold_image_moves(hits)
    hits = join_gpu_consequences(hits, doc_a, doc_b)
    hits = join_platform_move(hits, doc_a, doc_b)
    hits = join_toolkit_libraries(hits, doc_a, doc_b)
    hits = join_wheel_consequences(hits, doc_a, doc_b)
    hits = join_release_mechanisms(hits)
    hits = join_layout_batch(hits, doc_a, doc_b)
    hits = join_code_edits(hits, doc_a, doc_b, target)
    # Last: what the probe measured confirms or rules out the causes as the gates left them.
    hits = apply_probe(hits, doc_a, doc_b)
    return build_report(
        hits, target=target, ignore=ignore, label_a=label_a, label_b=label_b, sides=sides
    )
