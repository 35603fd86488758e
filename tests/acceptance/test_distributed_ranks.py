"""capture_distributed over real gloo process groups: 4 ranks via torch.multiprocessing.spawn,
2 ranks via torchrun. Each job runs several scenarios in sequence, one cluster file each."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from envsnap.diff.cluster import ClusterManifest, load_cluster, rank_documents
from tests.helpers import REPO_ROOT

pytestmark = pytest.mark.slow
torch = pytest.importorskip("torch")

LIGHT = ["python", "system", "env"]
# scenario -> (collectors, budget_s)
SCENARIOS: dict[str, tuple[list[str], float]] = {
    "identical": (LIGHT, 10.0),
    "omp": (LIGHT, 10.0),
    "nccl": (LIGHT, 10.0),
    "package": ([*LIGHT, "packages"], 10.0),
    "seed": (LIGHT, 10.0),
    "same-seeds": (LIGHT, 10.0),
    "raise": (LIGHT, 10.0),
    "sleep": (["python", "env"], 1.0),
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _tweak(scenario: str, rank: int, manifest: Any) -> Any:
    """Perturb this rank's manifest before it is gathered (what a different node would show)."""
    from envsnap.manifest.sections.seeds import SeedsSection

    update: dict[str, Any] = {}
    if scenario == "package" and rank == 3 and manifest.packages is not None:
        installed = dict(manifest.packages.installed)
        installed["pygments"] = installed["pygments"].model_copy(update={"version": "1.0.0"})
        update["packages"] = manifest.packages.model_copy(update={"installed": installed})
    if scenario == "seed":
        master = 43 if rank == 1 else 42
        update["seeds"] = SeedsSection(
            master_seed=master, rank=rank, derived={"torch": 1000 * master + rank}
        )
    if scenario == "same-seeds":
        update["seeds"] = SeedsSection(master_seed=42, rank=rank, derived={"torch": 4242})
    return manifest.model_copy(update=update).sealed() if update else manifest


def worker(rank: int, world_size: int, port: int, out: str) -> None:
    import torch.distributed as dist

    import envsnap
    from envsnap.diff.cluster import gather

    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), OMP_NUM_THREADS="1")
    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world_size
    )
    original = gather._capture_local
    for scenario, (only, budget) in SCENARIOS.items():
        env_before = dict(os.environ)
        if scenario == "omp" and rank == 2:
            os.environ["OMP_NUM_THREADS"] = "8"
        if scenario == "nccl" and rank == 1:
            os.environ["NCCL_ALGO"] = "Tree"

        def local(scenario: str = scenario, **kwargs: Any) -> Any:
            if scenario == "raise" and rank == 3:
                raise RuntimeError("collector exploded")
            if scenario == "sleep" and rank == 1:
                time.sleep(60)
            return _tweak(scenario, rank, original(**kwargs))

        gather._capture_local = local
        result = envsnap.capture_distributed(
            f"{out}/{scenario}.json", only=only, budget_s=budget, label=scenario
        )
        assert (result is not None) == (rank == 0)
        os.environ.clear()
        os.environ.update(env_before)
    dist.destroy_process_group()


@pytest.fixture(scope="module")
def four_ranks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ClusterManifest]:
    out = tmp_path_factory.mktemp("four")
    torch.multiprocessing.spawn(worker, args=(4, free_port(), str(out)), nprocs=4, join=True)
    return {name: load_cluster(out / f"{name}.json") for name in SCENARIOS}


def _deviating(cluster: ClusterManifest) -> dict[str, list[int]]:
    return {finding.path: finding.ranks for finding in cluster.findings}


def test_identical_ranks_give_no_findings(four_ranks: dict[str, ClusterManifest]) -> None:
    cluster = four_ranks["identical"]
    assert cluster.world_size == 4
    assert cluster.failed_ranks == []
    assert cluster.findings == []
    assert cluster.hosts == {socket.gethostname(): [0, 1, 2, 3]}
    # RANK and LOCAL_RANK differ on every rank and are kept, but are not heterogeneity.
    assert cluster.ranks[2].deviations["env.variables.RANK"] == "2"


@pytest.mark.parametrize(
    ("scenario", "path", "ranks"),
    [
        ("omp", "env.variables.OMP_NUM_THREADS", [2]),
        ("nccl", "env.variables.NCCL_ALGO", [1]),
        ("package", "packages.installed.pygments.version", [3]),
        ("seed", "seeds.master_seed", [1]),
    ],
)
def test_perturbed_rank_is_flagged_and_named(
    four_ranks: dict[str, ClusterManifest], scenario: str, path: str, ranks: list[int]
) -> None:
    cluster = four_ranks[scenario]
    assert cluster.failed_ranks == []
    assert _deviating(cluster) == {path: ranks}
    finding = cluster.findings[0]
    assert finding.hosts == [socket.gethostname()]
    assert f"rank {ranks[0]} on {socket.gethostname()}" in finding.title


def test_seeds_equal_across_ranks_are_flagged(four_ranks: dict[str, ClusterManifest]) -> None:
    findings = four_ranks["same-seeds"].findings
    assert [(f.rule, f.ranks) for f in findings] == [
        ("cluster.seeds-equal-across-ranks", [0, 1, 2, 3])
    ]


def test_rank_whose_capture_raises_is_failed(four_ranks: dict[str, ClusterManifest]) -> None:
    cluster = four_ranks["raise"]
    assert cluster.failed_ranks == [3]
    assert "collector exploded" in (cluster.ranks[3].reason or "")
    assert sorted(rank_documents(cluster)) == [0, 1, 2]
    assert cluster.findings == []


def test_rank_whose_capture_sleeps_is_failed(four_ranks: dict[str, ClusterManifest]) -> None:
    cluster = four_ranks["sleep"]
    assert cluster.failed_ranks == [1]
    assert "did not finish within" in (cluster.ranks[1].reason or "")
    assert cluster.ranks[0].status == "ok"


TORCHRUN_SCRIPT = """
import sys
import torch.distributed as dist
import envsnap

dist.init_process_group("gloo")
cluster = envsnap.capture_distributed(sys.argv[1], only=["python", "system", "env"])
print("rank", dist.get_rank(), "returned", type(cluster).__name__, flush=True)
dist.destroy_process_group()
"""


def test_torchrun_two_ranks(tmp_path: Path) -> None:
    script = tmp_path / "job.py"
    script.write_text(TORCHRUN_SCRIPT)
    out = tmp_path / "cluster.json"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--nproc-per-node=2",
            "--master-addr=127.0.0.1",
            f"--master-port={free_port()}",
            str(script),
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "rank 0 returned ClusterManifest" in done.stdout
    assert "rank 1 returned NoneType" in done.stdout
    cluster = load_cluster(out)
    assert cluster.gather.backend == "gloo"
    assert cluster.failed_ranks == []
    assert cluster.findings == []
    assert sorted(rank_documents(cluster)) == [0, 1]
