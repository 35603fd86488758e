"""A variable that pins which CPU kernels a library dispatches to is the CPU-ISA cause, for
numpy and OpenBLAS as for ATen, oneDNN and MKL: never the catch-all."""

from __future__ import annotations

import pytest

from envsnap.diff import diff_documents
from tests.helpers.manifests import full_pair


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("NPY_DISABLE_CPU_FEATURES", "AVX512_SKX"),
        ("NPY_ENABLE_CPU_FEATURES", "SSE42 AVX2"),
        ("OPENBLAS_CORETYPE", "Haswell"),
        ("ATEN_CPU_CAPABILITY", "avx2"),
    ],
)
def test_a_kernel_dispatch_variable_set_on_one_side_is_a_cpu_isa_difference(
    name: str, value: str
) -> None:
    a, b = full_pair()
    b["env"]["variables"][name] = value
    findings = diff_documents(a, b).findings
    top = findings[0]
    assert top.rule == "hw.cpu-isa", [(f.rule, f.title) for f in findings[:3]]
    assert top.severity == "low"
    assert f"{name} (absent) → {value}" in top.title
