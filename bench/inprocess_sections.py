"""In-process cost of the model/optimizer/dataloader sections for a ~100M-parameter model.

Builds a ~100M-parameter MLP stack on CPU with AdamW (after one step, so the optimizer state
exists: 2 extra tensors per parameter), a LambdaLR scheduler and a DataLoader, then times the
`precision` and `parallel` collectors alone (median of N runs after one warm-up), and checks
that capture allocates no tensor memory (the dtype histograms read metadata only).

    python bench/inprocess_sections.py [--runs 10]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

import torch

from envsnap.capturing.collectors.base import CaptureContext


def build() -> dict[str, object]:
    layers = [torch.nn.Linear(4096, 4096) for _ in range(6)]  # 6 x 16.8M = ~100.7M params
    model = torch.nn.Sequential(*layers)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0)
    model(torch.randn(2, 4096)).sum().backward()
    optimizer.step()
    scheduler.step()
    dataset = torch.utils.data.TensorDataset(torch.randn(64, 4096))
    loader = torch.utils.data.DataLoader(dataset, batch_size=8, num_workers=2, shuffle=True)
    return {"model": model, "optimizer": optimizer, "scheduler": scheduler, "dataloader": loader}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    from envsnap.capturing.collectors import COLLECTORS

    inputs = build()
    model = inputs["model"]
    assert isinstance(model, torch.nn.Module)
    params = sum(p.numel() for p in model.parameters())
    context = CaptureContext.from_process(inputs=inputs, deadline=time.monotonic() + 600)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"model: {params / 1e6:.1f}M parameters; runs={args.runs} (median after a warm-up)")
    for name in ("precision", "parallel"):
        collect = COLLECTORS[name].collect
        collect(context)
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            collect(context)
            times.append(time.perf_counter() - started)
        print(f"{name:>10}: {statistics.median(times) * 1000:.2f} ms")
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
    weights = params * 4 / 2**20
    print(
        f"peak RSS growth during capture: {grown:.1f} MiB (the weights alone are {weights:.0f} MiB)"
    )


if __name__ == "__main__":
    main()
