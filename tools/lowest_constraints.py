"""Print a pip constraints file that pins each dependency in pyproject.toml to its floor.

CI's lowest-versions job (.ci/lowest) installs envsnap with these constraints and runs the test
suite, so every floor the package declares is a version it is tested with. The runtime
dependencies and the optional extras are pinned; the `dev` extra's test tools (pytest, mypy,
...) are not, unless a runtime dependency or an extra names them too.

    python tools/lowest_constraints.py                  # every floor
    python tools/lowest_constraints.py --except torch   # leave torch to the caller
    python tools/lowest_constraints.py --check-installed --except torch
                                    # exit 1 unless this environment holds exactly those floors

A requirement without a floor (`>=`, `~=` or `==`) is an error: an unbounded dependency cannot be
tested at its lowest version.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
# The extra that holds the test tools: their newest versions are fine.
TOOLS_EXTRA = "dev"
FLOOR_OPERATORS = (">=", "~=", "==")


class NoFloorError(ValueError):
    """A requirement that names no lowest version, or whose floors contradict it."""


def declared_requirements(project: dict[str, object]) -> list[Requirement]:
    """The runtime dependencies and every optional extra but the test tools'."""
    texts = list(project.get("dependencies", []))  # type: ignore[call-overload]
    extras: dict[str, list[str]] = project.get("optional-dependencies", {})  # type: ignore[assignment]
    for extra, requirements in extras.items():
        if extra != TOOLS_EXTRA:
            texts.extend(requirements)
    return [Requirement(text) for text in texts]


def floor_of(requirement: Requirement) -> Version:
    """The lowest version a requirement's own specifiers name."""
    floors = [Version(s.version) for s in requirement.specifier if s.operator in FLOOR_OPERATORS]
    if not floors:
        raise NoFloorError(f"{requirement}: no lower bound (>=, ~= or ==) to test")
    return max(floors)


def constraints(requirements: Iterable[Requirement], *, skip: Iterable[str] = ()) -> list[str]:
    """One `name==floor` line per distribution (environment marker kept), sorted by name."""
    skipped = {canonicalize_name(name) for name in skip}
    by_name: dict[str, list[Requirement]] = {}
    for requirement in requirements:
        if canonicalize_name(requirement.name) not in skipped:
            by_name.setdefault(canonicalize_name(requirement.name), []).append(requirement)
    return [pin(name, group) for name, group in sorted(by_name.items())]


def pin(name: str, group: list[Requirement]) -> str:
    """The constraint for a name required in one or more places: the highest of its floors,
    which must satisfy every specifier given for it."""
    floor = max(floor_of(requirement) for requirement in group)
    for requirement in group:
        if not requirement.specifier.contains(floor, prereleases=True):
            raise NoFloorError(f"{requirement}: excludes {floor}, another floor of {name}")
    markers = {str(requirement.marker) for requirement in group}
    # A marker applies only when every occurrence carries the same one.
    marker = "" if len(markers) != 1 or group[0].marker is None else f"; {markers.pop()}"
    return f"{name}=={floor}{marker}"


def applies(requirement: Requirement) -> bool:
    """Whether a requirement's environment marker holds here."""
    return requirement.marker is None or requirement.marker.evaluate()


def not_at_floor(pins: Iterable[str]) -> list[str]:
    """The pins (lines of `constraints`) that this environment does not satisfy exactly.

    pip may meet a constraint by leaving a package out; a pin whose marker applies must be
    installed, at its floor, for the floor to count as tested.
    """
    wrong = []
    for line in pins:
        pin = Requirement(line)
        if not applies(pin):
            continue
        try:
            found = version(pin.name)
        except PackageNotFoundError:
            wrong.append(f"{pin.name}: not installed")
            continue
        if not pin.specifier.contains(found, prereleases=True):
            wrong.append(f"{pin.name}: {found} installed, floor {pin.specifier}")
    return wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pyproject", type=Path, default=PYPROJECT)
    parser.add_argument(
        "--except",
        dest="skip",
        action="append",
        default=[],
        metavar="NAME",
        help="leave this distribution unpinned (repeatable)",
    )
    parser.add_argument(
        "--check-installed",
        action="store_true",
        help="check this environment instead of printing the constraints",
    )
    args = parser.parse_args(argv)
    project = tomllib.loads(args.pyproject.read_text(encoding="utf-8"))["project"]
    try:
        lines = constraints(declared_requirements(project), skip=args.skip)
    except NoFloorError as error:
        print(f"lowest_constraints: {error}", file=sys.stderr)
        return 2
    if args.check_installed:
        wrong = not_at_floor(lines)
        for problem in wrong:
            print(f"lowest_constraints: {problem}", file=sys.stderr)
        if not wrong:
            applicable = [line for line in lines if applies(Requirement(line))]
            print("lowest_constraints: installed at their floors: " + ", ".join(applicable))
        return 1 if wrong else 0
    print(f"# Generated from {args.pyproject.name} by tools/lowest_constraints.py: do not edit.")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
