"""Size of a cluster manifest for 64 simulated ranks (from files) vs the 64 single manifests.

Run: python bench/cluster_size.py [RANKS]
Each simulated rank is a real capture of this machine with its own pid, host (8 ranks per
host), RANK and timestamps; rank 5 also has a different OMP_NUM_THREADS.
"""

from __future__ import annotations

import copy
import sys
import tempfile
import time
from pathlib import Path

from envsnap.capturing.api import capture
from envsnap.diff.cluster import assemble_files
from envsnap.manifest.canonical import digest_of, pretty_text


def main(ranks: int) -> None:
    base = capture(only=["python", "packages", "system", "env"]).to_document()
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for rank in range(ranks):
            document = copy.deepcopy(base)
            document["run"]["pid"] = 20_000 + rank
            document["created_at"] = f"2025-01-01T00:00:{rank % 60:02d}.{rank:06d}Z"
            document["system"]["hostname"] = f"node-{rank // 8:02d}"
            document["env"]["variables"].update(RANK=str(rank), LOCAL_RANK=str(rank % 8))
            if rank == 5:
                document["env"]["variables"]["OMP_NUM_THREADS"] = "16"
            document["digest"] = digest_of(document)
            path = Path(tmp) / f"rank{rank:03d}.json"
            path.write_text(pretty_text(document), encoding="utf-8")
            paths.append(path)
        singles = sum(path.stat().st_size for path in paths)
        started = time.perf_counter()
        cluster = assemble_files(paths)
        elapsed = time.perf_counter() - started
    text = cluster.to_json()
    print(f"ranks: {ranks}")
    print(f"one single manifest: {paths and singles // ranks} bytes")
    print(f"{ranks} single manifests: {singles} bytes")
    print(
        f"cluster manifest: {len(text.encode())} bytes ({singles / len(text.encode()):.1f}x smaller)"
    )
    print(f"assembled in {elapsed:.2f} s; findings: {[f.title for f in cluster.findings]}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 64)
