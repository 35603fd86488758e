"""TensorFlow's numerics variables are recorded by name; Terraform's TF_ variables are not.
numpy's CPU dispatch variables are recorded by name; its other NPY_ switches are not."""

from __future__ import annotations

from pathlib import Path

from envsnap.capturing.collectors.env import collect
from tests.helpers import capture_context

TERRAFORM = {
    "TF_CLI_CONFIG_FILE": "/home/me/.terraformrc",
    "TF_VAR_region": "eu-west-1",
    "TF_LOG": "DEBUG",
    "TF_WORKSPACE": "staging",
    "TF_IN_AUTOMATION": "1",
}
TENSORFLOW = {
    "TF_ENABLE_ONEDNN_OPTS": "0",
    "TF_DETERMINISTIC_OPS": "1",
    "TF_CUDNN_DETERMINISTIC": "1",
    "TF_CUDNN_USE_AUTOTUNE": "0",
    "TF_XLA_FLAGS": "--tf_xla_auto_jit=2",
}


def test_terraform_variables_are_not_recorded_tensorflow_knobs_are() -> None:
    section = collect(capture_context(Path.cwd(), env={**TERRAFORM, **TENSORFLOW}))
    assert set(section.variables) == set(TENSORFLOW)
    assert "TF_" not in section.prefixes


def test_mxnet_and_jax_numerics_variables_are_recorded_by_prefix() -> None:
    planted = {
        "MXNET_ENFORCE_DETERMINISM": "1",
        "MXNET_CUDNN_AUTOTUNE_DEFAULT": "0",
        "JAX_ENABLE_X64": "1",
        "JAX_DEFAULT_MATMUL_PRECISION": "highest",
        "JAXLIB_UNRELATED": "1",
    }
    section = collect(capture_context(Path.cwd(), env=planted))
    assert set(section.variables) == set(planted) - {"JAXLIB_UNRELATED"}
    assert {"MXNET_", "JAX_"} <= set(section.prefixes)


def test_numpys_cpu_dispatch_variables_are_recorded_by_name() -> None:
    planted = {
        "NPY_DISABLE_CPU_FEATURES": "AVX512_SKX",
        "NPY_ENABLE_CPU_FEATURES": "SSE42 AVX2",
        "NPY_NUM_BUILD_JOBS": "8",  # a build switch: not recorded
        "OPENBLAS_CORETYPE": "Haswell",
    }
    section = collect(capture_context(Path.cwd(), env=planted))
    assert set(section.variables) == set(planted) - {"NPY_NUM_BUILD_JOBS"}
