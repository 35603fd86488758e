"""Cost per training step of envsnap's TraceRecorder, by digest option, for a ~10M-parameter model.

The peer is the bare training step (forward, backward, AdamW step, scheduler step). Every step is
timed, then each recorder variant records that same update, in an order rotated every step, and
each `record()` call is timed on its own. Timing the calls one by one, interleaved, keeps drift
in machine load from favouring one variant. Prints the median bare step, the median cost of each
variant's `record()`, and the ratio (step + record) / step.

    python bench/trace_cost.py [--steps 30] [--threads 2]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import torch

from envsnap.training.trace import TraceRecorder

VARIANTS: dict[str, tuple[str, ...]] = {
    "none": (),
    "samples": ("samples",),
    "rng": ("rng",),
    "sched": ("sched",),
    "params": ("params",),
    "optim": ("optim",),
    "all (default)": ("samples", "params", "optim", "sched", "rng"),
}


def build() -> tuple[torch.nn.Module, torch.optim.Optimizer, torch.optim.lr_scheduler.LRScheduler]:
    torch.manual_seed(0)
    width = 1600  # 4 x (1600*1600 + 1600) = 10.25M parameters
    model = torch.nn.Sequential(*[torch.nn.Linear(width, width) for _ in range(4)])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=100)
    return model, optimizer, scheduler


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    model, optimizer, scheduler = build()
    count = sum(p.numel() for p in model.parameters())
    batch = torch.randn(8, 1600)
    ids = list(range(8))
    step_times: list[float] = []
    costs: dict[str, list[float]] = {name: [] for name in VARIANTS}
    with tempfile.TemporaryDirectory() as folder:
        recorders = [
            (name, TraceRecorder(Path(folder) / f"{i}.jsonl", digests=digests))
            for i, (name, digests) in enumerate(VARIANTS.items())
        ]
        for update in range(1, args.steps + 2):  # update 1 warms up and is dropped
            started = time.perf_counter()
            optimizer.zero_grad()
            loss = model(batch).pow(2).mean()
            loss.backward()
            optimizer.step()
            scheduler.step()
            elapsed = time.perf_counter() - started
            turn = update % len(recorders)
            for name, recorder in recorders[turn:] + recorders[:turn]:
                started = time.perf_counter()
                recorder.record(
                    update=update,
                    loss=loss,
                    model=model,
                    optimizer=optimizer,
                    scheduler=scheduler,
                    sample_ids=ids,
                )
                if update > 1:
                    costs[name].append(time.perf_counter() - started)
            if update > 1:
                step_times.append(elapsed)
        for _, recorder in recorders:
            recorder.close()
    base = statistics.median(step_times)
    print(
        f"model: {count / 1e6:.2f}M parameters (fp32), AdamW; torch {torch.__version__}, "
        f"{args.threads} threads; {args.steps} steps"
    )
    print(f"bare training step (peer): median {base * 1e3:.1f} ms")
    print(f"{'digests':<16}{'record() ms':>12}{'ratio':>8}")
    for name, samples in costs.items():
        cost = statistics.median(samples)
        print(f"{name:<16}{cost * 1e3:>12.2f}{(base + cost) / base:>8.3f}")


if __name__ == "__main__":
    main()
