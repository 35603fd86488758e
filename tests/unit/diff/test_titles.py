"""A generic title names the thing that changed: which package, which data item."""

from __future__ import annotations

from envsnap.diff import diff_documents
from tests.helpers.manifests import full_pair


def _titles(a: dict, b: dict) -> dict[str, str]:  # type: ignore[type-arg]
    return {f.path: f.title for f in diff_documents(a, b).findings}


def test_a_package_title_names_the_package() -> None:
    a, b = full_pair()
    b["packages"]["installed"]["pygments"]["version"] = "2.20.1"
    titles = _titles(a, b)
    assert (
        titles["packages.installed.pygments.version"] == "package changed: pygments 2.20.0 → 2.20.1"
    )


def test_a_data_item_title_names_the_item_and_the_field() -> None:
    a, b = full_pair()
    b["data"]["items"]["train"]["file_count"] = 99
    titles = _titles(a, b)
    assert titles["data.items.train.file_count"] == "training data changed: train file_count 2 → 99"


def test_a_catch_all_title_names_its_field() -> None:
    a, b = full_pair()
    b["env"]["variables"]["SOME_UNLISTED_KNOB"] = "1"
    b["system"]["some_new_fact"] = "x"
    titles = _titles(a, b)
    assert titles["env.variables.SOME_UNLISTED_KNOB"] == (
        "other difference: SOME_UNLISTED_KNOB (absent) → 1"
    )
    assert titles["system.some_new_fact"] == "other difference: system.some_new_fact (absent) → x"


def test_another_frameworks_numerics_variable_outranks_the_catch_all() -> None:
    a, b = full_pair()
    for name in ("SOME_UNLISTED_KNOB", "MXNET_ENFORCE_DETERMINISM", "JAX_ENABLE_X64"):
        b["env"]["variables"][name] = "1"
    b["env"]["variables"]["JAX_COMPILATION_CACHE_DIR"] = "/tmp/jax"
    findings = diff_documents(a, b).findings
    rules = {f.path.rsplit(".", 1)[1]: (f.rule, f.rank) for f in findings}
    assert rules["MXNET_ENFORCE_DETERMINISM"][0] == "env.framework-numerics"
    assert rules["JAX_ENABLE_X64"][0] == "env.framework-numerics"
    assert rules["JAX_COMPILATION_CACHE_DIR"][0] == "noise.env"
    assert rules["JAX_ENABLE_X64"][1] < rules["SOME_UNLISTED_KNOB"][1]


def test_a_torch_family_package_is_titled_as_itself_when_torch_did_not_change() -> None:
    a, b = full_pair()
    installed = a["packages"]["installed"]
    base = installed["rich"]
    for side in (a, b):
        side["packages"]["installed"]["torchaudio"] = {**base, "name": "torchaudio"}
    a["packages"]["installed"]["torchaudio"]["version"] = "0.12.1"
    b["packages"]["installed"]["torchaudio"]["version"] = "0.11.0"
    titles = _titles(a, b)
    # Under one torch a companion's own release changes preprocessing (torch_companions.py).
    assert titles["packages.installed.torchaudio.version"] == (
        "image or audio preprocessing library changed: torchaudio 0.12.1 → 0.11.0 "
        "(the same torch on both sides)"
    )
    b["packages"]["installed"]["torch"]["version"] = "9.9.9"
    title = next(f.title for f in diff_documents(a, b).findings if f.rule == "stack.torch")
    # One finding for the family, naming each package that changed beside torch, once.
    assert title.startswith("torch version changed: ")
    assert "; with it: torchaudio 0.12.1 → 0.11.0;" in title
    assert "with it: torch " not in title


def test_an_sdpa_title_names_the_backend() -> None:
    a, b = full_pair()
    b["torch"]["sdpa"]["cudnn"] = not a["torch"]["sdpa"]["cudnn"]
    title = _titles(a, b)["torch.sdpa.cudnn"]
    assert title.startswith("attention (SDPA) backend selection changed: cudnn ")


def test_a_storage_dtype_title_names_the_default_dtype_and_each_sections_dtypes() -> None:
    a, b = full_pair()
    b["torch"]["default_dtype"] = "torch.float64"
    b["precision"]["params"] = {
        "float64": {"bytes": 995518464, "elements": 124439808, "tensors": 148}
    }
    dtype = [f for f in diff_documents(a, b).findings if f.rule == "precision.dtypes"]
    assert [f.title for f in dtype] == [
        "default dtype torch.float32 → torch.float64; parameters stored as float32 (124439808 "
        "elements) → float64 (124439808 elements)"
    ]


def test_a_data_file_fingerprint_title_names_the_file_and_its_item() -> None:
    from envsnap.diff.changes import dotted
    from envsnap.diff.fingerprints import fingerprint_title

    digest_a, digest_b = "sha256:" + "1" * 64, "sha256:" + "2" * 64
    for path, named in (
        (
            ("data", "items", "train", "files", "shard-00.parquet", "digest"),
            "shard-00.parquet (in train)",
        ),
        (("data", "items", "train.parquet", "files", "train.parquet", "digest"), "train.parquet"),
    ):
        title = fingerprint_title("training data changed", dotted(path), digest_a, digest_b)
        assert title == f"training data changed: {named} differs"


def test_a_dtype_added_beside_an_unchanged_one_keeps_the_generic_title() -> None:
    a, b = full_pair()
    b["precision"]["params"]["float16"] = {"bytes": 2, "elements": 1, "tensors": 1}
    (dtype,) = [f for f in diff_documents(a, b).findings if f.rule == "precision.dtypes"]
    assert "none →" not in dtype.title and "stored as" not in dtype.title


def test_a_library_title_does_not_repeat_its_own_wheel() -> None:
    a, b = full_pair()
    library = b["cuda_stack"]["libraries"]["cudnn"]
    for record in (library, library["selected"], *library["copies"]):
        record["version"] = "9.1.0.70"
    base = a["packages"]["installed"]["rich"]
    a["packages"]["installed"]["nvidia-cudnn-cu12"] = {**base, "name": "nvidia-cudnn-cu12",
                                                       "version": "8.9.2.26"}  # fmt: skip
    b["packages"]["installed"]["nvidia-cudnn-cu12"] = {**base, "name": "nvidia-cudnn-cu12",
                                                       "version": "9.1.0.70"}  # fmt: skip
    title = next(f.title for f in diff_documents(a, b).findings if f.rule == "stack.cudnn")
    assert "9.1.0.70" in title and "with it" not in title
