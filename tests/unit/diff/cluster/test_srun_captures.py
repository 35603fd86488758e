"""`srun envsnap capture` on N nodes plus `envsnap cluster`: one cluster manifest without
torch.distributed, each task placed by its SLURM variables; `envsnap fleet` groups by
allocation, not by job ids."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from envsnap.diff.cluster import load_cluster, rank_documents
from tests.helpers import CliResult
from tests.helpers.placement import SLURM_ENV

TASKS = 4
SECTIONS = "system,env,placement,python,parallel"


def _task_env(procid: int, **changes: str) -> dict[str, str]:
    """The variables srun gives task `procid` of a 4-task job, 2 tasks on each of 2 nodes."""
    node = procid // 2
    return {
        "PATH": os.environ.get("PATH", ""),
        **SLURM_ENV,
        "SLURM_NTASKS": str(TASKS),
        "SLURM_PROCID": str(procid),
        "SLURM_LOCALID": str(procid % 2),
        "SLURM_NODEID": str(node),
        "SLURMD_NODENAME": f"gpu0{node + 1}",
        **changes,
    }


def _srun_capture(
    run_cli_process: Callable[..., CliResult], out: Path, procid: int, **changes: str
) -> Path:
    path = out / f"rank-{procid}.json"
    done = run_cli_process(
        "capture", "--only", SECTIONS, "-o", str(path), env=_task_env(procid, **changes)
    )
    assert done.code == 0, done.err
    return path


def test_per_task_captures_merge_into_one_cluster_manifest(
    tmp_path: Path, run_cli_process: Callable[..., CliResult]
) -> None:
    out = tmp_path / "run"
    out.mkdir()
    # Task 2 never wrote its file (its node failed): three of four captures.
    for procid in (3, 0, 1):
        _srun_capture(run_cli_process, out, procid)
    merged = run_cli_process("cluster", str(out), "-o", str(tmp_path / "cluster.json"))
    assert merged.code == 0, merged.err
    cluster = load_cluster(tmp_path / "cluster.json")
    assert cluster.world_size == TASKS
    assert cluster.gather.source == "files"
    assert [entry.status for entry in cluster.ranks] == ["ok", "ok", "failed", "ok"]
    documents = rank_documents(cluster)
    for rank, document in documents.items():
        assert document["placement"]["slurm"]["procid"] == rank
    # A task's own ids and its node are bookkeeping: no rank deviates in anything that counts.
    assert cluster.findings == []
    diffed = run_cli_process("diff", str(tmp_path / "cluster.json"), str(out / "rank-0.json"))
    assert diffed.code == 0, diffed.err


def test_a_fleet_of_tasks_is_grouped_by_allocation_not_job_ids(
    tmp_path: Path, run_cli_process: Callable[..., CliResult]
) -> None:
    out = tmp_path / "runs"
    out.mkdir()
    _srun_capture(run_cli_process, out, 0)
    _srun_capture(run_cli_process, out, 1, SLURM_JOB_ID="9999", SLURM_RESTART_COUNT="3")
    _srun_capture(run_cli_process, out, 2, SLURM_JOB_PARTITION="h100")
    done = run_cli_process("fleet", str(out), "-f", "json")
    report = json.loads(done.out)
    assert [fleet_class["size"] for fleet_class in report["classes"]] == [2, 1]
    odd = report["classes"][1]
    assert odd["members"] == [str(out / "rank-2.json")]
    assert any(f["rule"] == "placement.allocation" for f in odd["differences"])
