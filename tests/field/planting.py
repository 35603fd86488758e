"""Real installed distributions for a job's site directory: a `*.dist-info` with METADATA,
INSTALLER, WHEEL and a RECORD of every file, as pip leaves them (and, for a package the job
imports, a module holding only its `__version__`) (the binary distribution
format, https://packaging.python.org/en/latest/specifications/binary-distribution-format/ and
https://packaging.python.org/en/latest/specifications/recording-installed-packages/).

An NVIDIA CUDA library wheel also gets its shared library where the wheel installs it,
`nvidia/<component>/lib/<stem>.so.<major>` (for example nvidia-cudnn-cu12 9.1.0.70 installs
nvidia/cudnn/lib/libcudnn.so.9), which is where envsnap's cuda_stack collector looks. The
library file is empty: the collector reads names, never contents, and nothing loads it.
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

from envsnap.capturing.collectors.cuda_stack import COMPONENTS

_WHEEL = re.compile(r"^nvidia-(?P<component>[a-z0-9-]+?)(?:-cu\d+)?$")


def dist_info_name(name: str, version: str) -> str:
    """The directory name pip gives a distribution's metadata (names escaped with '_')."""
    return f"{re.sub(r'[-_.]+', '_', name)}-{version}.dist-info"


def wheel_component(name: str) -> str | None:
    """'nvidia-cudnn-cu12' -> 'cudnn'; None for a name that is no CUDA library wheel."""
    match = _WHEEL.match(name.lower())
    if match is None:
        return None
    component = match["component"].replace("-", "_")
    return component if component in COMPONENTS else None


def _record_line(site: Path, path: Path) -> str:
    data = path.read_bytes()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path.relative_to(site).as_posix()},sha256={digest},{len(data)}"


def module_name(name: str) -> str:
    """The import name a planted distribution's module gets: 'scikit-learn' -> 'scikit_learn'.
    Only its RECORD ties it to the distribution, as for any installed module."""
    return re.sub(r"[-_.]+", "_", name).lower()


def plant(site: Path, name: str, version: str, *, importable: bool = False) -> Path:
    """Install `name==version` as metadata (and a CUDA wheel's library file) into `site`;
    `importable` adds a module the job can import (`module_name`), listed in RECORD."""
    info = site / dist_info_name(name, version)
    info.mkdir(parents=True, exist_ok=False)
    files: list[Path] = []
    if importable:
        package = site / module_name(name)
        package.mkdir()
        init = package / "__init__.py"
        init.write_text(f'__version__ = "{version}"\n', encoding="utf-8")
        files.append(init)
    component = wheel_component(name)
    if component is not None:
        lib = site / "nvidia" / component / "lib"
        lib.mkdir(parents=True, exist_ok=True)
        library = lib / f"{COMPONENTS[component]}.so.{version.partition('.')[0]}"
        library.write_bytes(b"")
        files.append(library)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    (info / "INSTALLER").write_text("pip\n", encoding="utf-8")
    (info / "WHEEL").write_text(
        "Wheel-Version: 1.0\nGenerator: bdist_wheel\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        encoding="utf-8",
    )
    files += [info / "METADATA", info / "INSTALLER", info / "WHEEL"]
    record = [_record_line(site, path) for path in files]
    record.append(f"{(info / 'RECORD').relative_to(site).as_posix()},,")
    (info / "RECORD").write_text("\n".join(record) + "\n", encoding="utf-8")
    return info
