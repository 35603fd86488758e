"""What each determinism level costs on a small conv-net training loop.

Runs the same loop at levels off, seeded and deterministic, interleaved (off, seeded,
deterministic, off, ...) so drift in machine load hits every level alike, and prints the median
time per step of each level and its ratio to `off`.

    python bench/determinism_cost.py                  # CPU
    python bench/determinism_cost.py --device cuda    # a CUDA GPU, if there is one

On CPU the levels change almost nothing: cuDNN and cuBLAS are not involved, and seeding is a
one-off cost outside the timed steps. Expect ratios near 1.00 there; the GPU is where
deterministic kernels cost something.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import torch
from torch import nn

import envsnap

LEVELS = ("off", "seeded", "deterministic")


def make_model(device: str, width: int) -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, width, 3, padding=1),
        nn.BatchNorm2d(width),
        nn.ReLU(),
        nn.Conv2d(width, 2 * width, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(2 * width, 2 * width, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(2 * width, 10),
    ).to(device)


def time_steps(level: str, args: argparse.Namespace) -> float:
    """Median seconds per training step at `level` (warm-up steps excluded)."""
    device = args.device
    with envsnap.deterministic(0, level=level, warn_only=True):  # type: ignore[arg-type]
        if level == "off":
            torch.backends.cudnn.benchmark = True  # the fast default many jobs use
        model = make_model(device, args.width)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        inputs = torch.randn(args.batch, 3, args.size, args.size, device=device)
        targets = torch.randint(0, 10, (args.batch,), device=device)
        times: list[float] = []
        for step in range(args.warmup + args.steps):
            sync(device)
            started = time.perf_counter()
            optimizer.zero_grad(set_to_none=True)
            loss = nn.functional.cross_entropy(model(inputs), targets)
            loss.backward()
            optimizer.step()
            sync(device)
            if step >= args.warmup:
                times.append(time.perf_counter() - started)
    return statistics.median(times)


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--runs", type=int, default=5, help="interleaved runs per level")
    parser.add_argument("--steps", type=int, default=20, help="timed steps per run")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--size", type=int, default=16, help="image side in pixels")
    parser.add_argument("--width", type=int, default=16, help="channels of the first conv")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (0: default)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    results: dict[str, list[float]] = {level: [] for level in LEVELS}
    for _ in range(args.runs):
        for level in LEVELS:
            results[level].append(time_steps(level, args))
    describe(args, results)


def describe(args: Any, results: dict[str, list[float]]) -> None:
    where = torch.cuda.get_device_name() if args.device.startswith("cuda") else "CPU"
    print(
        f"device: {where}; torch {torch.__version__}; threads {torch.get_num_threads()}; "
        f"batch {args.batch}x3x{args.size}x{args.size}, width {args.width}; {args.runs} interleaved runs x "
        f"{args.steps} steps"
    )
    base = statistics.median(results["off"])
    print(f"{'level':<14}{'median ms/step':>16}{'ratio to off':>14}{'runs (ms)':>40}")
    for level in LEVELS:
        median = statistics.median(results[level])
        runs = " ".join(f"{t * 1000:.2f}" for t in results[level])
        print(f"{level:<14}{median * 1000:>16.2f}{median / base:>14.3f}    {runs}")


if __name__ == "__main__":
    main()
