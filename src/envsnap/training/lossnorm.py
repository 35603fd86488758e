"""Loss normalisation modes, and what each does to the same micro-batch losses.

With gradient accumulation on variable-length data the normaliser changes the objective: two
micro-batches with mean losses 0.2 and 1.0 over 10 and 30 target tokens give 0.6 averaged per
micro-batch but 0.8 averaged per token. `combine` makes that computable for any recorded mode.
"""

from __future__ import annotations

from collections.abc import Sequence

from envsnap.manifest.sections.parallel import LOSS_NORMALIZATION_MODES


def combine(mean_losses: Sequence[float], token_counts: Sequence[int], mode: str) -> float:
    """The loss an update optimises, given each micro-batch's mean loss and token count.

    per_microbatch_mean: the mean of the micro-batch means.
    per_token_mean: total loss over total tokens (each token weighs the same).
    sum: the total loss over all tokens.
    per_sample_mean needs per-sample losses; pass one entry per sample with its token count.
    """
    if len(mean_losses) != len(token_counts) or not mean_losses:
        raise ValueError("need one token count per mean loss, and at least one")
    totals = [loss * count for loss, count in zip(mean_losses, token_counts, strict=True)]
    if mode in ("per_microbatch_mean", "per_sample_mean"):
        return sum(mean_losses) / len(mean_losses)
    if mode == "per_token_mean":
        return sum(totals) / sum(token_counts)
    if mode == "sum":
        return sum(totals)
    raise ValueError(f"unknown mode {mode!r} (known: {', '.join(LOSS_NORMALIZATION_MODES)})")
