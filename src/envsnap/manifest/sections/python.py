"""The `python` section: the interpreter that runs the job."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from envsnap.manifest.sections.base import Section

EnvironmentKind = Literal["system", "venv", "uv", "conda", "virtualenv"]


class PythonSection(Section):
    version: str = Field(description="Full version, e.g. 3.11.7.")
    implementation: str | None = Field(description="Implementation name, e.g. CPython or PyPy.")
    compiler: str | None = Field(description="Compiler the interpreter was built with.")
    executable: str | None = Field(description="Path of the interpreter binary.")
    prefix: str | None = Field(description="sys.prefix.")
    base_prefix: str | None = Field(
        description="sys.base_prefix (differs from prefix inside a venv)."
    )
    environment: EnvironmentKind | None = Field(
        description="Kind of environment: a plain venv, one made by uv, a virtualenv, a conda "
        "environment, or the system interpreter."
    )
    in_venv: bool | None = Field(description="True when running inside a virtual environment.")
    conda_env: str | None = Field(description="Name or path of the active conda environment.")
    hash_randomization: bool | None = Field(
        description="sys.flags.hash_randomization: set ordering of str varies between runs "
        "unless PYTHONHASHSEED is fixed."
    )
    gil_disabled: bool | None = Field(
        description="True on a free-threaded build running without the GIL (3.13+)."
    )
