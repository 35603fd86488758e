"""Digests of exact bytes: tensors, nested state dicts, sample ids and RNG states.

Every value is fed to sha256 with a type tag and its length, so `[1, 2]` and `"12"` or a
float32 and a bfloat16 tensor with the same bytes never collide. Floats go in as `float.hex()`
and tensors as their raw memory, so two digests are equal only when the values are bitwise equal
(`0.0` and `-0.0` differ, as do two NaN payloads). Nothing here imports torch or numpy: tensors
and arrays are recognised by duck typing, so the module stays cheap to import.
"""

from __future__ import annotations

import ctypes
import hashlib
from collections.abc import Mapping
from typing import Any

from envsnap.manifest.canonical import DIGEST_PREFIX


def _is_tensor(value: object) -> bool:
    return type(value).__module__.startswith("torch") and hasattr(value, "data_ptr")


def _is_ndarray(value: object) -> bool:
    return type(value).__module__ == "numpy" and hasattr(value, "__array_interface__")


class TreeHasher:
    """Incremental sha256 over nested containers, numbers, strings, tensors and arrays."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256()

    def _tag(self, tag: bytes, text: str = "") -> None:
        self._hash.update(tag + text.encode("utf-8") + b";")

    def add(self, value: Any) -> None:
        """Feed one value (recursively)."""
        if value is None:
            self._tag(b"N")
        elif isinstance(value, bool):
            self._tag(b"B", "1" if value else "0")
        elif isinstance(value, int):
            self._tag(b"I", str(value))
        elif isinstance(value, float):
            self._tag(b"F", value.hex())
        elif isinstance(value, str):
            self._tag(b"S", str(len(value.encode("utf-8"))))
            self._hash.update(value.encode("utf-8"))
        elif isinstance(value, (bytes, bytearray, memoryview)):
            data = bytes(value)
            self._tag(b"Y", str(len(data)))
            self._hash.update(data)
        elif isinstance(value, Mapping):
            # Keys sorted by type then text: optimizer state dicts use int keys, modules str.
            self._tag(b"D", str(len(value)))
            for key in sorted(value, key=lambda k: (type(k).__name__, str(k))):
                self.add(key)
                self.add(value[key])
        elif isinstance(value, (list, tuple)):
            self._tag(b"L", str(len(value)))
            for item in value:
                self.add(item)
        elif _is_tensor(value):
            self._add_tensor(value)
        elif _is_ndarray(value):
            self._add_array(value)
        elif hasattr(value, "dtype") and hasattr(value, "item"):
            # A numpy scalar: its dtype and its value.
            self._tag(b"Z", str(value.dtype))
            self.add(value.item())
        else:
            # Opaque objects contribute their type only: a repr could hold a memory address.
            self._tag(b"O", f"{type(value).__module__}.{type(value).__qualname__}")

    def _add_tensor(self, tensor: Any) -> None:
        t = tensor.detach()
        if str(t.layout) != "torch.strided":
            t = t.to_dense()
        if t.device.type != "cpu":
            t = t.cpu()
        t = t.resolve_conj().resolve_neg().contiguous()
        self._tag(b"T", f"{t.dtype}|{tuple(t.shape)}")
        size = t.numel() * t.element_size()
        if size:
            # Zero-copy view of the tensor's memory; `t` stays referenced until the update ends.
            self._hash.update((ctypes.c_char * size).from_address(t.data_ptr()))

    def _add_array(self, array: Any) -> None:
        import numpy

        contiguous = numpy.ascontiguousarray(array)
        if contiguous.dtype.hasobject:
            self._tag(b"A", f"object|{contiguous.shape}")
            self.add(contiguous.tolist())
            return
        self._tag(b"A", f"{contiguous.dtype.str}|{contiguous.shape}")
        self._hash.update(contiguous.tobytes())

    def hexdigest(self) -> str:
        """The digest so far, prefixed with `sha256:`."""
        return DIGEST_PREFIX + self._hash.hexdigest()


def digest_tree(value: Any) -> str:
    """`sha256:<hex>` of a nested value's exact content."""
    hasher = TreeHasher()
    hasher.add(value)
    return hasher.hexdigest()


def rng_digests() -> dict[str, str | None]:
    """Digests of the python, numpy, torch CPU and CUDA global RNG states.

    A generator that is not in use (numpy never imported, CUDA not initialised) is null: reading
    it would import numpy or initialise CUDA as a side effect of tracing.
    """
    import random
    import sys

    digests: dict[str, str | None] = {"python": digest_tree(random.getstate())}
    numpy = sys.modules.get("numpy")
    digests["numpy"] = digest_tree(numpy.random.get_state(legacy=True)) if numpy else None
    torch = sys.modules.get("torch")
    digests["torch"] = digest_tree(torch.get_rng_state()) if torch else None
    digests["cuda"] = None
    if torch is not None and torch.cuda.is_initialized():
        digests["cuda"] = digest_tree(list(torch.cuda.get_rng_state_all()))
    return digests
