"""`envsnap show` options and `envsnap export requirements|conda`, on real manifests."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml
from packaging.requirements import Requirement

from envsnap.capturing.collectors.packages import _source, conda_packages
from envsnap.capturing.redact import Redactor
from envsnap.interop.export.conda import to_environment_yml
from envsnap.interop.export.requirements import to_requirements
from envsnap.manifest.model import Manifest, load
from envsnap.manifest.sections.packages import Package

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
FULL = FIXTURES / "manifests" / "full.json"
A_COLLECT_ENV_REPORT = FIXTURES / "collect_env" / "04_2020_torch1.7_rocm_na_fields.txt"


def _with_packages(manifest: Manifest, packages: list[Package]) -> Manifest:
    assert manifest.packages is not None
    installed = {p.name.lower(): p for p in packages}
    section = manifest.packages.model_copy(update={"installed": installed})
    return manifest.model_copy(update={"packages": section})


def _package(name: str, version: str | None = "1.0", **fields: Any) -> Package:
    return Package(**{"installer": "pip", "source": "index", **fields}, name=name, version=version)


def _write(manifest: Manifest, path: Path) -> Path:
    path.write_text(manifest.sealed().to_json(), encoding="utf-8")
    return path


def test_show_section_selects_rows_and_rejects_unknown_names(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    result = run_cli("show", str(FULL), "--section", "code", "-s", "gpu,python")
    assert result.code == 0
    rows = [line.split("│")[1].strip() for line in result.out.splitlines() if "│" in line]
    assert rows == ["code", "gpu", "python"]
    bad = run_cli("show", str(FULL), "--section", "gpus")
    assert bad.code == 2
    assert bad.err.count("\n") == 1 and "no section gpus" in bad.err


def test_show_packages_lists_every_distribution(run_cli: Callable[..., Any]) -> None:
    manifest = load(FULL)
    assert manifest.packages is not None
    result = run_cli("show", str(FULL), "-s", "packages", "--packages")
    assert result.code == 0
    listed = {line.split("│")[1].strip() for line in result.out.splitlines() if "│" in line}
    names = {p.name for p in manifest.packages.installed.values()}
    assert names <= listed


def test_markdown_of_an_imported_record_never_says_none(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    imported = tmp_path / "imported.json"
    assert (
        run_cli("import", "collect-env", str(A_COLLECT_ENV_REPORT), "-o", str(imported)).code == 0
    )
    result = run_cli("show", str(imported), "-f", "markdown")
    assert result.code == 0
    assert "None" not in result.out
    assert result.out.startswith("### Environment (envsnap manifest)")
    assert "| imported |" in result.out


def test_markdown_is_complete_secret_free_and_inert(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    manifest = load(FULL)
    assert manifest.env is not None
    hostile = {
        **manifest.env.variables,
        "NCCL_DEBUG": "https://bob:hunter2@example.com/x\n```",
    }
    env = manifest.env.model_copy(update={"variables": hostile})
    run = manifest.run.model_copy(update={"label": "a|<script>x</script>"})
    path = _write(manifest.model_copy(update={"env": env, "run": run}), tmp_path / "m.json")
    text = run_cli("show", str(path), "-f", "markdown").out
    assert "hunter2" not in text
    label_row = next(line for line in text.splitlines() if line.startswith("| label |"))
    assert label_row == "| label | a\\|&lt;script&gt;x&lt;/script&gt; |"
    assert "\n```\n```" not in text  # the value cannot close the fenced block early
    section_rows = [
        line for line in text.splitlines() if line.startswith("| ") and "| ok |" in line
    ]
    recorded = [name for name in json.loads(FULL.read_text()) if name in {"code", "gpu", "seeds"}]
    assert len(section_rows) >= len(recorded)
    assert manifest.packages is not None
    assert f"Installed distributions ({len(manifest.packages.installed)})" in text


def test_requirements_pin_fetch_again_or_say_why_not(tmp_path: Path) -> None:
    packages = [
        _package("numpy", "2.1.0"),
        _package("torch", "2.13.0+cpu"),
        _package(
            "wheelish",
            "0.3",
            source="url",
            url="https://files.example.org/wheelish-0.3-py3-none-any.whl",
            hashes={"sha256": "ab" * 32},
        ),
        _package(
            "fromgit",
            "0.1",
            source="vcs",
            vcs="git",
            url="https://github.com/example/fromgit",
            commit="0123456789abcdef0123456789abcdef01234567",
        ),
        _package("mine", "0.0.1", source="editable", url="file:///src/mine"),
        _package("dirpkg", "2.0", source="local", url="file:///src/dirpkg"),
        _package("evil\n--index-url https://evil.example", "1.0"),
    ]
    text = to_requirements(_with_packages(load(FULL), packages))
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert lines[0] == "--extra-index-url https://download.pytorch.org/whl/cpu"
    requirements = {Requirement(line).name: Requirement(line) for line in lines[1:]}
    assert set(requirements) == {"numpy", "torch", "wheelish", "fromgit"}
    assert str(requirements["numpy"].specifier) == "==2.1.0"
    assert str(requirements["torch"].specifier) == "==2.13.0+cpu"
    assert requirements["wheelish"].url == (
        "https://files.example.org/wheelish-0.3-py3-none-any.whl#sha256=" + "ab" * 32
    )
    assert requirements["fromgit"].url == (
        "git+https://github.com/example/fromgit@0123456789abcdef0123456789abcdef01234567"
    )
    comments = [line for line in text.splitlines() if line.startswith("#")]
    assert any("mine==0.0.1: editable install from file:///src/mine" in c for c in comments)
    assert any("dirpkg==2.0: installed from the local directory" in c for c in comments)
    assert not any(line.startswith("--index-url") for line in text.splitlines())


def test_requirements_from_the_cli_round_trip_a_real_capture(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    out = tmp_path / "requirements.txt"
    assert run_cli("export", "requirements", str(FULL), "-o", str(out)).code == 0
    manifest = load(FULL)
    assert manifest.packages is not None
    pinned = {
        Requirement(line).name.lower(): str(Requirement(line).specifier)
        for line in out.read_text().splitlines()
        if line and not line.startswith(("#", "--"))
    }
    for key, package in manifest.packages.installed.items():
        if package.source == "index":
            assert pinned[package.name.lower()] == f"=={package.version}", key


def test_conda_export_uses_the_recorded_channels_and_pip_for_the_rest(tmp_path: Path) -> None:
    meta = tmp_path / "conda-meta"
    meta.mkdir()
    channels = {
        "python-3.11.9-hab00c5b_0": "https://conda.anaconda.org/conda-forge/linux-64",
        "pytorch-2.3.0-py3.11_cuda12.1_cudnn8.9.2_0": "https://conda.anaconda.org/t/tk-123/pytorch/linux-64",
        "libzlib-1.3.1-h4ab18f5_1": "",
    }
    for stem, channel in channels.items():
        body: dict[str, Any] = {"arch": "x86_64", "build": stem.rsplit("-", 1)[1]}
        if channel:
            body["channel"] = channel
        body["files"] = ["lib/x"] * 100
        (meta / f"{stem}.json").write_text(json.dumps(body, sort_keys=True, indent=2))
    records = conda_packages(tmp_path)
    assert records is not None
    assert {k: v.channel for k, v in records.items()} == {
        "python": "conda-forge",
        "pytorch": "pytorch",
        "libzlib": None,
    }
    manifest = load(FULL)
    assert manifest.packages is not None
    packages = manifest.packages.model_copy(
        update={
            "conda": records,
            "installed": {
                "torch": Package(name="torch", version="2.3.0", installer="conda", source="index"),
                "rich": _package("rich", "13.7.1"),
            },
        }
    )
    text = to_environment_yml(manifest.model_copy(update={"packages": packages}))
    document = yaml.safe_load(text)
    assert document["channels"] == ["conda-forge", "pytorch"]
    assert "python=3.11.9=hab00c5b_0" in document["dependencies"]
    assert "pytorch=2.3.0=py3.11_cuda12.1_cudnn8.9.2_0" in document["dependencies"]
    assert document["dependencies"][-1] == {"pip": ["rich==13.7.1"]}
    assert "tk-123" not in text


def test_conda_export_without_conda_records_pins_the_interpreter(
    run_cli: Callable[..., Any],
) -> None:
    result = run_cli("export", "conda", str(FULL))
    assert result.code == 0
    document = yaml.safe_load(result.out)
    manifest = load(FULL)
    assert manifest.python is not None
    assert f"python={manifest.python.version}" in document["dependencies"]
    assert "channels" not in document
    assert "# channels were not recorded" in result.out


def test_archive_hashes_are_read_from_direct_url_json(tmp_path: Path) -> None:
    dist_info = tmp_path / "wheelish-0.3.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: wheelish\nVersion: 0.3\n")
    archive = {"hashes": {"sha256": "cd" * 32}}
    url = "https://files.example.org/wheelish-0.3.whl"
    (dist_info / "direct_url.json").write_text(json.dumps({"url": url, "archive_info": archive}))
    found = _source(metadata.PathDistribution(dist_info), Redactor())
    assert found == {"source": "url", "url": url, "hashes": {"sha256": "cd" * 32}}
    (dist_info / "direct_url.json").write_text(
        json.dumps({"url": url, "archive_info": {"hash": "sha256=" + "ef" * 32}})
    )
    assert _source(metadata.PathDistribution(dist_info), Redactor())["hashes"] == {
        "sha256": "ef" * 32
    }


def _manifest_with_entries(tmp_path: Path, *packages: Package) -> Path:
    """A hand-edited manifest: each package under its own key, however its name normalizes."""
    manifest = load(FULL)
    assert manifest.packages is not None
    installed = {f"entry{index}": package for index, package in enumerate(packages)}
    section = manifest.packages.model_copy(update={"installed": installed})
    return _write(manifest.model_copy(update={"packages": section}), tmp_path / "edited.json")


def test_export_refuses_two_different_pins_of_one_distribution(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    path = _manifest_with_entries(
        tmp_path, _package("Foo_Bar", "1.0"), _package("rich", "13.7.1"), _package("foo.bar", "2.0")
    )
    for kind in ("requirements", "conda"):
        result = run_cli("export", kind, str(path))
        assert result.code == 2, (kind, result.out)
        assert result.out == ""
        assert result.err.count("\n") == 1, result.err
        assert "foo-bar" in result.err and "1.0" in result.err and "2.0" in result.err
        assert "Traceback" not in result.err


def test_export_pins_a_repeated_identical_entry_once(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    path = _manifest_with_entries(tmp_path, _package("Foo_Bar", "1.0"), _package("foo-bar", "1.0"))
    result = run_cli("export", "requirements", str(path))
    assert result.code == 0, result.err
    pins = [line for line in result.out.splitlines() if line and not line.startswith(("#", "--"))]
    assert [Requirement(line).name.lower().replace("_", "-") for line in pins] == ["foo-bar"]
    conda = yaml.safe_load(run_cli("export", "conda", str(path)).out)
    assert len(conda["dependencies"][-1]["pip"]) == 1
