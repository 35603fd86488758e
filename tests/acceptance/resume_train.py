"""A small real training job used by the resume acceptance tests (run as a script).

It trains a tiny MLP with dropout on CPU: 48 fixed samples, micro-batches of 4, 2 micro-batches
per optimizer update, AdamW and a StepLR schedule, a sampler that reshuffles every epoch from an
epoch-seeded generator. Every update is recorded with envsnap's TraceRecorder.

    run     --trace T --updates N [--save-at K --ckpt DIR --ckpt-mid DIR]
    resume  --trace T --updates N --ckpt DIR [--fault none|no-optimizer|data-reset|no-rng|mid-accumulation]
            (--trace, --ckpt and --fault may be repeated: one resume after another)

`run` trains without interruption; with --save-at it also saves after update K (to --ckpt) and
after the first micro-batch of update K+1 (to --ckpt-mid, a save in the middle of gradient
accumulation). Saving only reads state, so the run itself is unchanged. `resume` is a new
process that restores from a save, optionally with one fault injected, and trains to N. Each
resume starts like a fresh job: the generators are seeded again and every object is new.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import torch

from envsnap.training.resume import load_training_state, save_training_state
from envsnap.training.seeding import SeedManager
from envsnap.training.trace import TraceRecorder

SAMPLES, MICRO_BATCH, ACCUMULATION = 48, 4, 2
MICRO_PER_EPOCH = SAMPLES // MICRO_BATCH


def batches(epoch: int, position: int) -> Iterator[tuple[int, int, torch.Tensor]]:
    """(epoch, position, sample ids) from a cursor onwards; each epoch has its own order."""
    while True:
        order = torch.randperm(SAMPLES, generator=torch.Generator().manual_seed(100 + epoch))
        while position < MICRO_PER_EPOCH:
            yield epoch, position, order[position * MICRO_BATCH : (position + 1) * MICRO_BATCH]
            position += 1
        epoch, position = epoch + 1, 0


def train(
    mode: str,
    trace: str,
    updates: int,
    *,
    save_at: int | None = None,
    ckpt: str | None = None,
    ckpt_mid: str | None = None,
    fault: str = "none",
) -> None:
    seeds = SeedManager(42)
    seeds.seed_all()
    data = torch.Generator().manual_seed(1234)
    inputs = torch.randn(SAMPLES, 6, generator=data)
    targets = inputs.sum(dim=1, keepdim=True) + 0.1 * torch.randn(SAMPLES, 1, generator=data)
    model = torch.nn.Sequential(
        torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Dropout(0.2), torch.nn.Linear(16, 1)
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=4, gamma=0.7)

    update, micro, epoch, position = 0, 0, 0, 0
    if mode == "resume":
        assert ckpt is not None
        info = load_training_state(
            ckpt,
            model=model,
            optimizer=None if fault == "no-optimizer" else optimizer,
            scheduler=scheduler,
            seeds=None if fault == "no-rng" else seeds,
            allow_mid_accumulation=fault == "mid-accumulation",
        )
        update, micro = info.update, info.micro_step
        if fault != "data-reset":
            epoch, position = info.data_cursor["epoch"], info.data_cursor["position"]

    loss_sum = 0.0
    with TraceRecorder(trace) as recorder:
        for epoch_now, position_now, ids in batches(epoch, position):
            loss = torch.nn.functional.mse_loss(model(inputs[ids]), targets[ids]) / ACCUMULATION
            loss.backward()
            recorder.micro_step(sample_ids=ids)
            loss_sum += loss.item()
            micro += 1
            cursor = {"epoch": epoch_now, "position": position_now + 1}
            if ckpt_mid and update == save_at and micro == 1:
                save_training_state(
                    ckpt_mid,
                    model=model,
                    optimizer=optimizer,
                    scheduler=scheduler,
                    data_cursor=cursor,
                    seeds=seeds,
                    update=update,
                    micro_step=micro,
                )
            if micro < ACCUMULATION:
                continue
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            update, micro = update + 1, 0
            recorder.record(
                update=update, loss=loss_sum, model=model, optimizer=optimizer, scheduler=scheduler
            )
            loss_sum = 0.0
            if mode == "run" and update == save_at:
                save_training_state(
                    ckpt,
                    model=model,
                    optimizer=optimizer,
                    scheduler=scheduler,
                    data_cursor=cursor,
                    seeds=seeds,
                    update=update,
                    epoch=epoch_now,
                )
            if update == updates:
                return


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["run", "resume"])
    parser.add_argument("--trace", action="append", required=True)
    parser.add_argument("--updates", type=int, required=True)
    parser.add_argument("--save-at", type=int, default=None)
    parser.add_argument("--ckpt", action="append", default=[])
    parser.add_argument("--ckpt-mid", default=None)
    parser.add_argument("--fault", action="append", default=[])
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.mode == "run":
        train(
            "run",
            args.trace[0],
            args.updates,
            save_at=args.save_at,
            ckpt=args.ckpt[0] if args.ckpt else None,
            ckpt_mid=args.ckpt_mid,
        )
        return
    for trace, ckpt, fault in zip(args.trace, args.ckpt, args.fault, strict=True):
        train("resume", trace, args.updates, ckpt=ckpt, fault=fault)


if __name__ == "__main__":
    main()
