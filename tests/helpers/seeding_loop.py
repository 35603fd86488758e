"""A small, real training loop for the seeding tests: dropout, a shuffled DataLoader with two
workers whose dataset draws from python, numpy and torch RNGs, and SGD with momentum.

Run as a module to split one run across processes:
    python -m tests.helpers.seeding_loop full  --seed S --epochs E --out result.json
    python -m tests.helpers.seeding_loop first --seed S --epochs K --checkpoint ck.pt
    python -m tests.helpers.seeding_loop rest  --checkpoint ck.pt --epochs E --out result.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

from envsnap.training.seeding import SeedManager

SAMPLES = 32
BATCH = 8
WORKERS = 2


class NoisyDataset(Dataset[tuple[torch.Tensor, torch.Tensor]]):
    """Fixed inputs plus augmentation noise drawn in the worker from all three libraries."""

    def __init__(self) -> None:
        grid = torch.arange(SAMPLES * 8, dtype=torch.float32).reshape(SAMPLES, 8)
        self.x = torch.sin(grid / 7.0)
        self.y = self.x.sum(dim=1, keepdim=True).cos()

    def __len__(self) -> int:
        return SAMPLES

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        jitter = 0.01 * random.random() + 0.01 * float(np.random.rand())
        return self.x[index] + 0.1 * torch.randn(8) + jitter, self.y[index]


@dataclass
class Run:
    """Everything a run produced, exactly: per-step losses (as hex floats) and sample order."""

    losses: list[str] = field(default_factory=list)
    batches: list[list[float]] = field(default_factory=list)
    params_sha256: str = ""


def build(manager: SeedManager) -> tuple[nn.Module, torch.optim.Optimizer, DataLoader[Any], Any]:
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(0.3), nn.Linear(16, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    generator = manager.generator()
    loader = DataLoader(
        NoisyDataset(),
        batch_size=BATCH,
        shuffle=True,
        num_workers=WORKERS,
        generator=generator,
        worker_init_fn=manager.worker_init_fn(),
    )
    return model, optimizer, loader, generator


def train_epochs(
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    loader: DataLoader[Any],
    epochs: range,
    run: Run,
) -> None:
    model.train()
    for _ in epochs:
        for inputs, targets in loader:
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(inputs), targets)
            loss.backward()
            optimizer.step()
            run.losses.append(float(loss.item()).hex())
            run.batches.append([float(v).hex() for v in inputs[:, 0].tolist()])


def params_digest(model: nn.Module) -> str:
    digest = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().contiguous().numpy().tobytes())
    return digest.hexdigest()


def train(seed: int, epochs: int) -> Run:
    """An uninterrupted seeded run."""
    manager = SeedManager(seed)
    manager.apply("seeded")
    model, optimizer, loader, _ = build(manager)
    run = Run()
    train_epochs(model, optimizer, loader, range(epochs), run)
    run.params_sha256 = params_digest(model)
    return run


def train_first(seed: int, epochs: int) -> tuple[Run, dict[str, Any]]:
    """The first `epochs` of a run, and a checkpoint with the RNG state."""
    manager = SeedManager(seed)
    manager.apply("seeded")
    model, optimizer, loader, generator = build(manager)
    run = Run()
    train_epochs(model, optimizer, loader, range(epochs), run)
    checkpoint = {
        "seed": seed,
        "epochs_done": epochs,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "rng": manager.state(generators={"loader": generator}),
        "losses": run.losses,
        "batches": run.batches,
    }
    return run, checkpoint


def train_rest(checkpoint: dict[str, Any], epochs: int) -> Run:
    """Continue a checkpoint up to `epochs` in total, as a fresh process would."""
    manager = SeedManager(int(checkpoint["seed"]))
    model, optimizer, loader, generator = build(manager)  # consumes RNG; restore overrides it
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    manager.restore(checkpoint["rng"], generators={"loader": generator})
    run = Run(losses=list(checkpoint["losses"]), batches=list(checkpoint["batches"]))
    train_epochs(model, optimizer, loader, range(int(checkpoint["epochs_done"]), epochs), run)
    run.params_sha256 = params_digest(model)
    return run


def _write(run: Run, path: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(run.__dict__, handle)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="seeding_loop")
    parser.add_argument("phase", choices=["full", "first", "rest"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--epochs", type=int, required=True)
    parser.add_argument("--checkpoint")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    if args.phase == "full":
        _write(train(args.seed, args.epochs), args.out)
    elif args.phase == "first":
        _, checkpoint = train_first(args.seed, args.epochs)
        torch.save(checkpoint, args.checkpoint)
    else:
        checkpoint = torch.load(args.checkpoint, weights_only=True)
        _write(train_rest(checkpoint, args.epochs), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
