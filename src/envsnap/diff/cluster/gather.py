"""`capture_distributed`: every rank captures, rank 0 writes one cluster manifest.

The transport is torch.distributed itself: a gloo group made for the gather (so it works
whatever the job's backend, and with a time limit of its own) and `gather_object`.

Why it cannot hang the job: a collective only completes when every rank enters it, so each
rank's own capture runs in a daemon thread bounded by the capture budget. A rank whose capture
raises, runs past the budget or produces too large a manifest sends a failure record instead,
and still enters the gather on time. A rank that never arrives (crashed, stuck elsewhere) makes
the gather time out; rank 0 then writes what it has and every other rank is recorded as failed.
Nothing here raises into the training script.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from datetime import timedelta
from typing import Any

from envsnap.diff.cluster.build import RankCapture, build_cluster
from envsnap.diff.cluster.model import ClusterManifest, GatherInfo
from envsnap.diff.report import Target
from envsnap.manifest.model import Manifest

logger = logging.getLogger("envsnap")

# Rank manifests are tens to hundreds of KiB; 8 MiB leaves room for huge package sets while
# keeping rank 0's memory bounded at world_size x 8 MiB in the worst case.
DEFAULT_MAX_MANIFEST_BYTES = 8 * 1024 * 1024
# Time beyond the collectors' budget to assemble and seal the manifest: half the budget,
# between 1 and 5 seconds.
MAX_CAPTURE_GRACE_S = 5.0
# Time beyond the capture limit that the gather waits for late ranks.
GATHER_SLACK_S = 30.0


def _capture_local(**kwargs: Any) -> Manifest:
    """This rank's capture through the in-job API (a seam the tests wrap)."""
    from envsnap.capturing.api import capture

    return capture(None, **kwargs)


def _budget(budget_s: float | None, inputs: dict[str, Any]) -> float:
    """This rank's capture budget, data included, as the capture itself will apply it."""
    from envsnap.capturing.collectors.base import working_directory
    from envsnap.capturing.config import CaptureConfig, discover_config
    from envsnap.capturing.run import capture_budget_s

    try:
        config = discover_config(working_directory())
    except Exception:
        config = CaptureConfig()
    if budget_s is not None:
        config = config.with_overrides(budget_s=float(budget_s))
    try:
        return capture_budget_s(config, inputs)
    except Exception:
        return config.budget_s


def _payload(rank: int, limit_s: float, max_bytes: int, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Capture within `limit_s` and return what this rank sends: manifest bytes or a reason."""
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["manifest"] = _capture_local(**kwargs)
        except BaseException as exc:
            box["error"] = f"capture raised {type(exc).__name__}: {exc}"

    thread = threading.Thread(target=work, name="envsnap-rank-capture", daemon=True)
    thread.start()
    thread.join(limit_s)
    out: dict[str, Any] = {"rank": rank, "host": socket.gethostname(), "data": None}
    if thread.is_alive():
        out["reason"] = f"capture did not finish within {limit_s:.1f} s (abandoned)"
    elif "error" in box:
        out["reason"] = str(box["error"])[:500]
    else:
        manifest: Manifest = box["manifest"]
        record = manifest.collectors.get("capture")
        data = manifest.canonical()
        if record is not None and record.status == "error":
            out["reason"] = f"capture failed: {record.reason}"
        elif len(data) > max_bytes:
            out["reason"] = f"manifest of {len(data)} bytes exceeds the {max_bytes}-byte limit"
        else:
            out["data"] = data
    return out


def _decode(item: Any, rank: int) -> RankCapture:
    """Turn a gathered payload into a RankCapture, validating the manifest it carries."""
    from envsnap.errors import ManifestError
    from envsnap.manifest.model import manifest_from_document, parse_document

    if not isinstance(item, dict):
        return RankCapture(rank, None, None, "rank sent no payload")
    host = item.get("host") if isinstance(item.get("host"), str) else None
    data = item.get("data")
    if not isinstance(data, bytes):
        return RankCapture(rank, host, None, str(item.get("reason") or "no manifest"))
    try:
        document = parse_document(data, f"rank {rank}")
        manifest_from_document(document, f"rank {rank}")
    except ManifestError as exc:
        return RankCapture(rank, host, None, str(exc))
    return RankCapture(rank, host, document)


def _gather(
    payload: dict[str, Any], dst: int, timeout_s: float, world_size: int
) -> tuple[list[Any] | None, str | None]:
    """Gather payloads to `dst` over a fresh gloo group; (list on dst, error text or None)."""
    import torch.distributed as dist

    try:
        group = dist.new_group(backend="gloo", timeout=timedelta(seconds=timeout_s))
    except Exception as exc:
        return None, f"could not create the gather group: {type(exc).__name__}: {exc}"
    received: list[Any] | None = [None] * world_size if dist.get_rank() == dst else None
    try:
        dist.gather_object(payload, received, dst=dst, group=group)
    except Exception as exc:
        # A timed-out gloo group is not reused or torn down: destroying it could wait on peers.
        return None, f"gather failed after {timeout_s:.0f} s: {type(exc).__name__}: {exc}"
    try:
        dist.destroy_process_group(group)
    except Exception as exc:
        logger.debug("envsnap: could not destroy the gather group: %s", exc)
    return received, None


def capture_distributed(
    path: str | os.PathLike[str] | None = None,
    *,
    timeout_s: float | None = None,
    max_manifest_bytes: int = DEFAULT_MAX_MANIFEST_BYTES,
    dst: int = 0,
    target: Target = "close",
    per_rank_seeds: bool | None = None,
    budget_s: float | None = None,
    **kwargs: Any,
) -> ClusterManifest | None:
    """Capture every rank and gather the manifests into one cluster manifest on rank `dst`.

    Call on every rank after `torch.distributed.init_process_group` (any backend). Keyword
    arguments are those of `envsnap.capture`. Returns the cluster manifest on `dst` (written
    atomically to `path` when given) and None on the other ranks. Without an initialised
    process group it captures this process as a one-rank cluster. Never raises.
    """
    budget = _budget(budget_s, kwargs)
    limit_s = budget + min(MAX_CAPTURE_GRACE_S, max(1.0, budget / 2))
    timeout = float(timeout_s) if timeout_s is not None else limit_s + GATHER_SLACK_S
    try:
        return _capture_distributed(
            path,
            limit_s,
            timeout,
            max_manifest_bytes,
            dst,
            target,
            per_rank_seeds,
            {**kwargs, "budget_s": budget_s},
        )
    except Exception as exc:
        logger.warning("envsnap: distributed capture failed: %s: %s", type(exc).__name__, exc)
        return None


def _capture_distributed(
    path: str | os.PathLike[str] | None,
    limit_s: float,
    timeout_s: float,
    max_bytes: int,
    dst: int,
    target: Target,
    per_rank_seeds: bool | None,
    kwargs: dict[str, Any],
) -> ClusterManifest | None:
    rank, world_size, backend = 0, 1, None
    try:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            rank, world_size = dist.get_rank(), dist.get_world_size()
            backend = str(dist.get_backend())
    except ImportError:
        pass

    payload = _payload(rank, limit_s, max_bytes, kwargs)
    if world_size == 1:
        received: list[Any] | None = [payload]
    else:
        received, error = _gather(payload, dst, timeout_s, world_size)
        if error is not None:
            logger.warning("envsnap: %s", error)
            if rank != dst:
                return None
            # Only our own manifest is certain; everyone else is recorded with the cause.
            reason = f"not heard from: {error}"[:300]
            received = [payload if r == rank else {"reason": reason} for r in range(world_size)]
    if rank != dst or received is None:
        return None

    captures = [_decode(item, r) for r, item in enumerate(received)]
    cluster = build_cluster(
        captures,
        world_size=world_size,
        gather=GatherInfo(
            source="process_group",
            backend=backend,
            timeout_s=timeout_s if world_size > 1 else None,
            capture_limit_s=limit_s,
            max_manifest_bytes=max_bytes,
        ),
        target=target,
        per_rank_seeds=per_rank_seeds,
    )
    if path is not None:
        try:
            from envsnap.files.atomic import write_atomic

            write_atomic(path, cluster.to_json().encode("utf-8"))
        except OSError as exc:
            logger.warning("envsnap: could not write %s: %s", path, exc)
    return cluster
