"""Load checkpoints without ever running code from them.

PyTorch files go through `torch.load(weights_only=True)`, whose unpickler only rebuilds tensors,
containers and primitive values. Before that, the file's pickle is scanned statically
(`torch.serialization.get_unsafe_globals_in_checkpoint`) so a file that needs anything else is
refused with the names of the callables it wants, before a single object is built. safetensors
files are plain JSON headers plus raw bytes: only the header is read.
"""

from __future__ import annotations

import io
import os
import pickle
import re
import struct
from dataclasses import dataclass
from typing import Any

from envsnap.errors import EnvsnapError
from envsnap.files.reader import open_input, parse_json
from envsnap.training.checkpoint.confine import check_zip

MISSING_TORCH_MESSAGE = (
    "reading PyTorch checkpoints needs torch; install it with `pip install envsnap-ml[torch]`"
)
# numpy arrays (e.g. numpy RNG states) are data, not code: their reconstructor only builds an
# array from bytes, and object arrays' items still pass through the restricted unpickler.
NUMPY_SAFE_NAMES = ("numpy.dtype", "numpy.ndarray", "numpy._core.multiarray._reconstruct")
SAFETENSORS_MAX_HEADER = 100 * 1024 * 1024


class UnsafeCheckpointError(EnvsnapError):
    """The checkpoint needs arbitrary unpickling; envsnap refuses to load it."""


def _refusal(name: str, wanted: list[str]) -> UnsafeCheckpointError:
    listed = ", ".join(wanted[:5]) + (" ..." if len(wanted) > 5 else "")
    return UnsafeCheckpointError(
        f"{name}: refused: loading it needs arbitrary unpickling ({listed}), which can run code "
        "from the file; envsnap only loads checkpoints with torch.load(weights_only=True) or "
        "safetensors. If you trust the file, re-save it with only state_dicts, tensors and "
        "plain values"
    )


def _numpy_safe_globals() -> list[Any]:
    try:
        import numpy
        from numpy._core.multiarray import _reconstruct
    except ImportError:
        return []
    dtype_classes = [type(numpy.dtype(code)) for code in "?bBhHiIlLqQefdgFD"]
    return [numpy.ndarray, numpy.dtype, _reconstruct, *dtype_classes]


def _allowed(name: str) -> bool:
    return name in NUMPY_SAFE_NAMES or name.startswith("numpy.dtypes.")


def load_torch_safely(source: str | os.PathLike[str] | bytes, *, name: str | None = None) -> Any:
    """Load a `torch.save` file (path or bytes) with the weights-only unpickler, or refuse."""
    try:
        import torch
    except ImportError:
        raise EnvsnapError(MISSING_TORCH_MESSAGE) from None
    label = name or (os.fspath(source) if not isinstance(source, bytes) else "checkpoint")

    def opened() -> Any:
        if isinstance(source, bytes):
            return io.BytesIO(source)
        return open_input(source, "a checkpoint file")  # regular files only: never a pipe

    with opened() as handle:
        check_zip(handle, label)  # before torch inflates anything
    try:
        with opened() as handle:
            wanted = torch.serialization.get_unsafe_globals_in_checkpoint(handle)
    except (OSError, FileNotFoundError) as exc:
        raise EnvsnapError(f"{label}: cannot read ({exc.strerror or exc})") from None
    except Exception:
        wanted = []  # not a zip checkpoint: the weights-only unpickler below still guards it
    refused = [item for item in wanted if not _allowed(item)]
    if refused:
        raise _refusal(label, refused)
    try:
        with opened() as handle, torch.serialization.safe_globals(_numpy_safe_globals()):
            return torch.load(handle, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        found = re.findall(r"GLOBAL ([\w.]+)", str(exc))
        if found or "Weights only load failed" in str(exc):
            raise _refusal(label, found or ["an unsupported global"]) from None
        raise EnvsnapError(f"{label}: not a readable PyTorch checkpoint ({exc})") from None
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise EnvsnapError(
            f"{label}: not a readable PyTorch checkpoint ({type(exc).__name__}: {first})"
        ) from None


@dataclass(frozen=True)
class TensorInfo:
    """A tensor known from a header only (dtype and shape, no data)."""

    dtype: str
    shape: tuple[int, ...]


def read_safetensors(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The tensors of a safetensors file, as `TensorInfo`, read from its header only.

    Format: an 8-byte little-endian header length, a JSON header, then the raw tensor bytes.
    """
    label = os.fspath(path)
    try:
        with open_input(path, "a safetensors file") as handle:
            size = os.fstat(handle.fileno()).st_size
            prefix = handle.read(8)
            if len(prefix) < 8:
                raise EnvsnapError(f"{label}: not a safetensors file (shorter than its header)")
            (length,) = struct.unpack("<Q", prefix)
            if length > min(SAFETENSORS_MAX_HEADER, size - 8):
                raise EnvsnapError(f"{label}: not a safetensors file (bad header length)")
            header = parse_json(handle.read(length), label, "a safetensors header")
    except OSError as exc:
        raise EnvsnapError(f"{label}: cannot read ({exc.strerror or exc})") from None
    if not isinstance(header, dict):
        raise EnvsnapError(f"{label}: not a safetensors file (header is not an object)")
    document: dict[str, Any] = {}
    data_size = size - 8 - length
    for key, entry in header.items():
        if key == "__metadata__":
            continue  # free-form strings, not state
        try:
            start, end = entry["data_offsets"]
            info = TensorInfo(
                dtype=str(entry["dtype"]), shape=tuple(int(n) for n in entry["shape"])
            )
        except (KeyError, TypeError, ValueError):
            raise EnvsnapError(f"{label}: safetensors entry {key!r} is malformed") from None
        if not 0 <= start <= end <= data_size:
            raise EnvsnapError(
                f"{label}: truncated: tensor {key!r} ends at byte {end} of a {data_size}-byte "
                "data section"
            )
        document[key] = info
    return document
