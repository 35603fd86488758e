"""`python -m tests.field.capture [--jobs N] [--draws N] [--force] [CASE...]`: capture every
capture and nvml case of the corpus, every draw, both sides, into tests/field/captured/.

A draw whose stored captures already carry the case's current digest is skipped (a case, its
noise, the job and the stand-in are what the digest covers), so after editing one case only
that case is captured again. `--force` captures everything anew. A failing job prints its
stderr and makes the command exit 1; the other captures are still written.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.field.format import problems
from tests.field.noise import DRAWS
from tests.field.pairs import CAPTURED_DIR, captured_path, load_cases, read_captured, write_captured
from tests.field.routes.capture import capture_side, digest

Case = dict[str, Any]


def stored_digest(path: Path) -> str | None:
    if not path.is_file():
        return None
    extra = read_captured(path).get("extra") or {}
    value = (extra.get("field_capture") or {}).get("digest")
    return value if isinstance(value, str) else None


def current(case: Case, draw_index: int, root: Path = CAPTURED_DIR) -> bool:
    """Both sides of the draw are captured from the case as it is now."""
    wanted = digest(case, draw_index)
    return all(
        stored_digest(captured_path(case["id"], draw_index, side, root)) == wanted
        for side in ("a", "b")
    )


def _capture_one(case: Case, draw_index: int, side: str, root: Path) -> tuple[str, float]:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="field-capture-") as workdir:
        document = capture_side(case, side, draw_index, Path(workdir))
    write_captured(captured_path(case["id"], draw_index, side, root), document)
    return f"{case['id']} draw {draw_index} {side}", time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.field.capture")
    parser.add_argument("cases", nargs="*", help="case ids (default: every capture/nvml case)")
    parser.add_argument("--jobs", type=int, default=1, help="captures run at once")
    parser.add_argument("--draws", type=int, default=DRAWS, help="draws per case")
    parser.add_argument("--force", action="store_true", help="capture even current draws")
    args = parser.parse_args(argv)
    everything = load_cases()
    cases = []
    for case in everything:
        if case.get("route") not in ("capture", "nvml"):
            continue
        found = problems(case, case.get("id"))
        if found:
            print(f"skipped {case.get('id')}: {'; '.join(found)}", file=sys.stderr)
            continue
        cases.append(case)
    if args.cases:
        unknown = set(args.cases) - {case["id"] for case in cases}
        if unknown:
            parser.error(f"not a capture or nvml case: {', '.join(sorted(unknown))}")
        cases = [case for case in cases if case["id"] in args.cases]
    else:
        # Captures of cases that are gone, or no longer captured, would only mislead.
        wanted = {c.get("id") for c in everything if c.get("route") in ("capture", "nvml")}
        for stale in sorted(p for p in CAPTURED_DIR.glob("*") if p.name not in wanted):
            if stale.is_dir():
                shutil.rmtree(stale)
    tasks = [
        (case, draw_index, side)
        for case in cases
        for draw_index in range(args.draws)
        if args.force or not current(case, draw_index)
        for side in ("a", "b")
    ]
    print(f"{len(tasks)} captures to run ({len(cases)} cases, {args.draws} draws)", flush=True)
    failed = 0
    durations: list[float] = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(_capture_one, c, d, s, CAPTURED_DIR) for c, d, s in tasks]
        for future in futures:
            try:
                name, seconds = future.result()
            except Exception as exc:
                failed += 1
                print(f"FAILED: {exc}", file=sys.stderr, flush=True)
                continue
            durations.append(seconds)
            print(f"{name}: {seconds:.1f} s", flush=True)
    if durations:
        mean = sum(durations) / len(durations)
        print(f"{len(durations)} captured, {mean:.1f} s per side on average", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
