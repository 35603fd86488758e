"""Two real processes joined by torch.distributed (gloo) each capture their own layout."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("torch")

JOB = textwrap.dedent(
    """
    import sys
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

    import envsnap

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model = DistributedDataParallel(
        torch.nn.Linear(4, 2), bucket_cap_mb=10, find_unused_parameters=True
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    dataset = TensorDataset(torch.randn(20, 4))
    sampler = DistributedSampler(dataset, shuffle=True, seed=5)
    loader = DataLoader(dataset, batch_size=4, sampler=sampler, num_workers=2, drop_last=True)
    for (batch,) in loader:  # one real step through the workers
        model(batch).sum().backward()
        optimizer.step()
        break
    envsnap.capture(
        sys.argv[1],
        model=model,
        optimizer=optimizer,
        dataloader=loader,
        parallel={"grad_accum_steps": 2, "loss_normalization": "per_token_mean"},
        only=["precision", "parallel"],
    )
    dist.barrier()
    dist.destroy_process_group()
    """
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.slow
def test_two_gloo_ranks_record_layout_ddp_knobs_and_global_batch(tmp_path: Path) -> None:
    script = tmp_path / "job.py"
    script.write_text(JOB)
    port = _free_port()
    procs = []
    for rank in range(2):
        env = {
            **os.environ,
            "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": str(port),
            "WORLD_SIZE": "2",
            "RANK": str(rank),
            "LOCAL_RANK": str(rank),
            "LOCAL_WORLD_SIZE": "2",
            "OMP_NUM_THREADS": "1",
        }
        procs.append(
            subprocess.Popen(
                [sys.executable, str(script), str(tmp_path / f"rank{rank}.json")],
                cwd=tmp_path,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
        )
    for proc in procs:
        out, _ = proc.communicate(timeout=240)
        assert proc.returncode == 0, out
    for rank in range(2):
        manifest = json.loads((tmp_path / f"rank{rank}.json").read_text())
        parallel = manifest["parallel"]
        assert parallel["initialized"] is True and parallel["backend"] == "gloo"
        assert (parallel["world_size"], parallel["rank"]) == (2, rank)
        assert parallel["sources"]["world_size"] == "torch.distributed"
        assert parallel["node_count"] == 1
        assert parallel["strategy"] == "ddp"
        assert parallel["ddp_bucket_cap_mb"] == 10.0
        assert parallel["ddp_find_unused_parameters"] is True
        assert parallel["global_batch"] == 4 * 2 * 2
        assert parallel["global_batch_formula"] == "4 x 2 x 2 = 16"
        sampler = parallel["dataloader"]["sampler"]
        assert (sampler["rank"], sampler["num_replicas"], sampler["seed"]) == (rank, 2, 5)
        assert parallel["dataloader"]["num_workers"] == 2
        precision = manifest["precision"]
        assert precision["optimizer"]["steps"] == 1
        assert precision["params"]["float32"]["elements"] == 4 * 2 + 2
