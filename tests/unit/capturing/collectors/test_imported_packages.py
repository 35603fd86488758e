"""`packages.installed.*.imported`: whether the job had imported a distribution when it called
the in-job API. A real job in a fresh interpreter, with two planted distributions on its path:
one it imports, one it does not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from envsnap.capturing.collectors.packages import (
    Distribution,
    MetadataDirectory,
    mark_imported,
    top_level_modules,
)
from envsnap.manifest.records import Package
from tests.unit.capturing.collectors.test_torch_runtime import REPO, run_python


def _dist(site: Path, name: str, files: dict[str, str]) -> MetadataDirectory:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    for filename, text in files.items():
        (info / filename).write_text(text)
    return MetadataDirectory(str(info))


def test_a_distribution_s_modules_come_from_top_level_then_record_then_its_name(
    tmp_path: Path,
) -> None:
    pillow = _dist(tmp_path, "Pillow", {"top_level.txt": "PIL\n"})
    pyyaml = _dist(tmp_path, "PyYAML", {"RECORD": "yaml/__init__.py,,\n_yaml/x.so,,\n"})
    bare = _dist(tmp_path, "typing-extensions", {})
    assert top_level_modules(pillow, "Pillow") == {"PIL"}
    assert top_level_modules(pyyaml, "PyYAML") == {"yaml", "_yaml"}
    assert top_level_modules(bare, "typing-extensions") == {"typing_extensions"}
    dists: dict[str, Distribution] = {"pillow": pillow, "pyyaml": pyyaml, "typing-extensions": bare}
    names = {"pillow": "Pillow", "pyyaml": "PyYAML", "typing-extensions": "typing-extensions"}

    def marked(job_modules: set[str]) -> dict[str, bool | None]:
        packages = {
            key: Package(name=name, version="1.0", installer=None, source=None)
            for key, name in names.items()
        }
        mark_imported(packages, dists, frozenset(job_modules))
        return {key: package.imported for key, package in packages.items()}

    assert marked({"PIL", "typing_extensions"}) == {
        "pillow": True,
        "pyyaml": False,
        "typing-extensions": True,
    }
    assert marked({"yaml"}) == {"pillow": False, "pyyaml": True, "typing-extensions": False}
    assert marked(set()) == dict.fromkeys(names, False)
    editable = Package(name="mylib", version="0.1", installer="pip", source="editable")
    packages = {"mylib": editable}
    mark_imported(packages, {"mylib": bare}, frozenset({"mylib_core"}))
    assert editable.imported is None  # its modules hide behind a path hook: not known


@pytest.mark.slow
def test_the_job_s_own_imports_are_told_from_the_rest(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _dist(site, "usedpkg", {"top_level.txt": "usedmod\n"})
    _dist(site, "idlepkg", {"top_level.txt": "idlemod\n"})
    (site / "usedmod.py").write_text("VALUE = 1\n")
    (site / "idlemod.py").write_text("VALUE = 2\n")
    data = run_python(
        """
        import json, usedmod, torch
        import envsnap
        m = envsnap.capture(model=torch.nn.Linear(2, 2), only=["packages"])
        installed = m.model_dump(mode="json")["packages"]["installed"]
        print(json.dumps({name: installed[name]["imported"] for name in ("usedpkg", "idlepkg")}))
        """,
        env={"PYTHONPATH": os.pathsep.join([str(site), str(REPO)])},
    )
    assert data == {"usedpkg": True, "idlepkg": False}


def test_a_capture_from_outside_the_job_says_nothing_about_imports() -> None:
    from envsnap.capturing.collectors.base import CaptureContext
    from envsnap.capturing.collectors.packages import collect

    section = collect(CaptureContext.from_process())
    assert all(package.imported is None for package in section.installed.values())
