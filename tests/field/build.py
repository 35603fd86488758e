"""Build a field case's manifest pair the most realistic way the facts allow.

A side whose collect_env report the thread posted is imported with envsnap's own importer; the
other side starts from the same report (the same kind of record of the other machine) or, when
no report was posted, from the project's real-capture fixture. The facts the thread states for
each side are then written in through the manifest model (GPUs this machine cannot have, a
seed, torch flags), and the noise two real machines have (host, paths, times) is added. Both
sides are validated as manifests.

GPU facts (compute capability, architecture, SM count) come from `gpus.json`, each row with
its source.
"""

from __future__ import annotations

import copy
import json
import shlex
from pathlib import Path
from typing import Any

from envsnap.errors import ManifestError
from envsnap.interop.importers import import_record
from envsnap.manifest.effective import Device, resolve
from envsnap.manifest.gpu_table import capabilities
from envsnap.manifest.model import manifest_from_document
from envsnap.manifest.records import plain
from tests.scenarios.cases import package

HERE = Path(__file__).parent
FIXTURE = HERE.parent / "fixtures" / "manifests" / "full.json"
GPUS: dict[str, dict[str, Any]] = json.loads((HERE / "gpus.json").read_text(encoding="utf-8"))
Doc = dict[str, Any]
_DELETE = None


def template() -> Doc:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def _section(doc: Doc, name: str) -> dict[str, Any]:
    """The section, taken from the real-capture fixture when the record lacks it; an in-job
    section starts from the fixture's structure with its run-specific values cleared."""
    if not isinstance(doc.get(name), dict):
        doc[name] = copy.deepcopy(template()[name])
        doc.setdefault("collectors", {})[name] = template()["collectors"][name]
        if name == "seeds":
            doc[name].update(master_seed=None, seeded=[], derived={}, level=None)
        if name == "torch" and doc.get("imported_from"):
            _imported_torch(doc, doc[name])
    return doc[name]  # type: ignore[no-any-return]


# What a collect_env report never states about the torch runtime: the flags of the running
# process. The fixture's values only fill the model's fields; they are listed as unknown, as
# envsnap's importer lists what a record does not state, until the thread states one.
_UNSTATED_TORCH = (
    "cudnn.enabled",
    "cudnn.benchmark",
    "cudnn.deterministic",
    "cudnn.allow_tf32",
    "cudnn.version",
    "matmul.allow_tf32",
    "matmul.float32_matmul_precision",
    "matmul.allow_fp16_reduced_precision_reduction",
    "matmul.allow_bf16_reduced_precision_reduction",
    "matmul.allow_fp16_accumulation",
    "fp32_precision",
    "deterministic",
    "sdpa",
    "compile",
    "default_dtype",
    "num_threads",
    "num_interop_threads",
    "cpu_capability",
    "build",
    "git_version",
    "nccl_version",
)


def _imported_torch(doc: Doc, torch: dict[str, Any]) -> None:
    """A torch section added to an imported record to hold a stated fact: the versions come
    from the record, every runtime flag is unknown."""
    stated = (doc.get("extra") or {}).get("imported_sections", {}).get("torch", {})
    torch.update(
        version=stated.get("version", torch["version"]),
        cuda=stated.get("cuda"),
        cuda_available=stated.get("cuda_available"),
    )
    torch["unknown"] = {path: "not stated in collect_env report" for path in _UNSTATED_TORCH}


def put(doc: Doc, dotted: str, value: Any) -> None:
    """Set a value (None deletes a dict key for env variables), clearing 'unknown' for it."""
    head, *rest = dotted.split(".")
    node = _section(doc, head) if rest else doc
    unknown = node.get("unknown") if rest else None
    if isinstance(unknown, dict):
        for key in [k for k in unknown if ".".join(rest).startswith(k)]:
            del unknown[key]
    for part in rest[:-1]:
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    key = rest[-1] if rest else head
    if value is _DELETE and head == "env":
        node.pop(key, None)
    else:
        node[key] = value


def _gpu(doc: Doc, names: list[str]) -> None:
    section = _section(doc, "gpu")
    base = (
        next(iter(section.get("devices", {}).values()), None) or template()["gpu"]["devices"]["0"]
    )
    devices: dict[str, Any] = {}
    for index, name in enumerate(names):
        device = copy.deepcopy(base)
        device.update(index=index, name=name, **_gpu_facts(name))
        devices[str(index)] = device
    section["devices"] = devices
    section["device_count"] = len(names)
    unknown = section.get("unknown", {})
    for key in [k for k in unknown if k.startswith("devices.")]:
        del unknown[key]


def _gpu_facts(name: str) -> dict[str, Any]:
    """What NVML would record for a GPU model; a model the thread does not name is recorded
    with its name only (its capability and SM count unknown)."""
    facts = GPUS.get(name)
    if facts is None:
        return {"compute_capability": None, "arch": None, "sm_count": None, "capabilities": None}
    caps = capabilities(facts["compute_capability"])
    return {
        "compute_capability": facts["compute_capability"],
        "arch": facts["arch"],
        "sm_count": facts["sm_count"],
        "capabilities": {
            "tf32": caps.tf32,
            "bf16": caps.bf16,
            "fp8": caps.fp8,
            "flash_sdpa": caps.flash_sdpa,
        },
    }


def _torch_version(doc: Doc, version: str) -> None:
    if isinstance(doc.get("packages"), dict):
        package("torch", version)(doc)
    put(doc, "cuda_stack.torch_version", version)
    put(doc, "cuda_stack.torch_build", version.split("+", 1)[1] if "+" in version else None)
    if isinstance(doc.get("torch"), dict):
        put(doc, "torch.version", version)


_TORCH_FLAGS = {
    "allow_tf32": "torch.matmul.allow_tf32",
    "cudnn_allow_tf32": "torch.cudnn.allow_tf32",
    "cudnn_benchmark": "torch.cudnn.benchmark",
    "deterministic": "torch.cudnn.deterministic",
    "use_deterministic_algorithms": "torch.deterministic.algorithms",
    "cudnn_enabled": "torch.cudnn.enabled",
    "num_threads": "torch.num_threads",
    "cpu_capability": "torch.cpu_capability",
}
_AMP = {"bf16": "bfloat16", "fp16": "float16", "fp32": None}
_JOB = {
    "seed": "seeds.master_seed",
    "world_size": "parallel.world_size",
    "per_device_batch": "parallel.micro_batch_size",
    "grad_accum": "parallel.grad_accum_steps",
    "num_workers": "parallel.dataloader.num_workers",
    "worker_init_fn": "parallel.dataloader.worker_init_fn",
    "dist_backend": "parallel.backend",
    "device": "precision.device",
}


def _job(doc: Doc, job: dict[str, Any]) -> None:
    for key, value in job.items():
        if key == "argv":
            put(doc, "run.argv", shlex.split(value))
        elif key == "precision":
            put(doc, "precision.amp_dtype", _AMP[value])
        elif key == "torch_compile":
            put(doc, "torch.compile", _compiled() if value == "inductor" else None)
        elif key == "sdpa_backend":
            for backend in ("flash", "mem_efficient", "math", "cudnn"):
                put(doc, f"torch.sdpa.{backend}", value in ("default", backend))
        else:
            put(doc, _JOB[key], value)
    parallel = doc.get("parallel")
    if isinstance(parallel, dict) and {"world_size", "per_device_batch", "grad_accum"} & set(job):
        parallel["dp_size"] = parallel.get("world_size")
        parallel["dataloader"]["batch_size"] = parallel.get("micro_batch_size")
        factors = [parallel.get(k) for k in ("micro_batch_size", "dp_size", "grad_accum_steps")]
        product = 1
        for factor in factors:
            product *= factor if isinstance(factor, int) else 1
        parallel["global_batch"] = product
        parallel["global_batch_formula"] = None


def _compiled() -> dict[str, Any]:
    return {
        "fallback_random": False,
        "deterministic": False,
        "emulate_precision_casts": False,
        "max_autotune": False,
        "max_autotune_gemm": False,
        "coordinate_descent_tuning": False,
        "force_disable_caches": False,
    }


def apply(doc: Doc, facts: dict[str, Any]) -> None:
    """Write a side's stated facts into its document."""
    for key, value in facts.items():
        if key == "gpu":
            _gpu(doc, value)
        elif key == "torch":
            _torch_version(doc, value)
        elif key == "cuda":
            put(doc, "cuda_stack.torch_cuda", value)
            if isinstance(doc.get("torch"), dict):
                put(doc, "torch.cuda", value)
        elif key == "cudnn":
            put(doc, "torch.cudnn.version", value)
        elif key == "env":
            for name, text in value.items():
                put(doc, f"env.variables.{name}", text)
        elif key == "packages":
            for name, version in value.items():
                key = name.lower().replace("_", "-")  # names are stored normalised (PEP 503)
                if version is None:  # not installed on this side
                    _section(doc, "packages")["installed"].pop(key, None)
                else:
                    _section(doc, "packages")
                    package(key, version)(doc)
        elif key == "torch_flags":
            for name, flag in value.items():
                put(doc, _TORCH_FLAGS[name], flag)
        elif key == "job":
            _job(doc, value)
        elif key == "set":
            for path, item in value.items():
                put(doc, path, item)
        else:
            raise KeyError(f"unknown fact {key!r}")


def _effective(doc: Doc) -> None:
    """Re-resolve the recorded effective TF32 state with envsnap's own resolver."""
    torch, gpu = doc.get("torch"), doc.get("gpu")
    if not isinstance(torch, dict) or not isinstance(gpu, dict):
        return
    devices = [
        Device(str(d.get("name")), d.get("compute_capability")) for d in gpu["devices"].values()
    ]
    unknown = torch.get("unknown") or {}

    def known(path: str, value: Any) -> Any:
        return None if path in unknown else value  # an unstated flag resolves to 'unknown'

    resolved = resolve(
        fp32_precision=known("fp32_precision", torch.get("fp32_precision")) or {},
        matmul_allow_tf32=known("matmul.allow_tf32", torch["matmul"].get("allow_tf32")),
        cudnn_allow_tf32=known("cudnn.allow_tf32", torch["cudnn"].get("allow_tf32")),
        cudnn_enabled=known("cudnn.enabled", torch["cudnn"].get("enabled")),
        cuda_built=bool(torch.get("cuda_built")),
        devices=devices,
        devices_reason="",
        env=(doc.get("env") or {}).get("variables", {}),
    )
    torch["effective"] = plain(resolved)


def noise(doc: Doc, side: str) -> None:
    """What differs between any two captures of real machines."""
    doc["created_at"] = "2025-03-0{}T10:1{}:00Z".format(
        *(("4", "2") if side == "a" else ("9", "7"))
    )
    run = doc.setdefault("run", {})
    run["pid"] = 4242 if side == "a" else 91817
    if run.get("cwd"):
        run["cwd"] = f"/home/{'alice' if side == 'a' else 'bob'}/project"
    system = doc.get("system")
    if isinstance(system, dict) and "hostname" not in system.get("unknown", {}):
        system["hostname"] = "workstation-a" if side == "a" else "gpu-node-17"
    python = doc.get("python")
    if isinstance(python, dict) and python.get("executable"):
        python["executable"] = f"/home/{'alice' if side == 'a' else 'bob'}/venv/bin/python"
    for record in doc.get("collectors", {}).values():
        if isinstance(record, dict) and isinstance(record.get("duration_ms"), (int, float)):
            record["duration_ms"] = record["duration_ms"] + (0.0 if side == "a" else 7.25)


def importable(name: str) -> bool:
    """Whether envsnap's importer accepts a posted report (some excerpts kept only a block)."""
    try:
        import_record(HERE / "collect_env" / name, "collect-env")
    except ManifestError:
        return False
    return True


def _base(case: dict[str, Any], side: str) -> Doc:
    dumps = case.get("collect_env") or {}
    other = "b" if side == "a" else "a"
    for name in (dumps.get(side), dumps.get(other)):
        if name and importable(name):
            return import_record(HERE / "collect_env" / name, "collect-env").to_document()
    doc = template()
    # The fixture's own job (a seeded GPT-2 run with its data) is not the thread's job: its
    # in-job sections come in only where the thread states facts for them.
    for name in _IN_JOB:
        doc[name] = None
        doc["collectors"][name] = {"status": "skipped", "reason": "not stated", "duration_ms": 0.0}
    return doc


_SHARED_PATHS = frozenset({"python.version", "gpu.driver_version"})
_IN_JOB = ("seeds", "precision", "parallel", "data", "tokenizer", "templates")


def _shared_job(case: dict[str, Any]) -> dict[str, Any]:
    """A job fact the thread states for one side only describes the job both ran (its command
    line, its seed), not a difference: it is written into both sides."""
    case = copy.deepcopy(case)
    job_a, job_b = case["a"].setdefault("job", {}), case["b"].setdefault("job", {})
    for mine, other in ((job_a, job_b), (job_b, job_a)):
        for key, value in mine.items():
            other.setdefault(key, value)
    # A version, GPU or package the thread names for one side only, and does not list among
    # the differences, is the same on the other side (the thread compares one setup).
    for mine, other in ((case["a"], case["b"]), (case["b"], case["a"])):
        for key in ("torch", "cuda", "gpu"):
            if key in mine:
                other.setdefault(key, mine[key])
        for key in ("packages", "set"):
            for name, value in mine.get(key, {}).items():
                if key == "set" and name not in _SHARED_PATHS:
                    continue
                other.setdefault(key, {}).setdefault(name, value)
    # A variable stated for one side only was not set on the other.
    env_a, env_b = case["a"].setdefault("env", {}), case["b"].setdefault("env", {})
    for mine, other in ((env_a, env_b), (env_b, env_a)):
        for key in mine:
            other.setdefault(key, None)
    for side in ("a", "b"):
        for key in ("job", "env"):
            if not case[side][key]:
                del case[side][key]
    return case


# Library versions that come with a torch build: a pip wheel pins its cuDNN, cuBLAS and NCCL
# per CUDA variant (pytorch/pytorch:.github/scripts/generate_binary_build_matrix.py).
_BUILD_LIBRARIES = ("cudnn", "cublas", "nccl", "cuda_runtime")


def _forget_build_libraries(doc: Doc, facts: dict[str, Any]) -> None:
    """The fixture's library versions belong to the fixture's torch build: a side whose stated
    torch build or CUDA differs records them as unknown (the thread does not state them)."""
    stack = doc.get("cuda_stack")
    if doc.get("imported_from") or not isinstance(stack, dict):
        return
    if (
        facts.get("torch", stack["torch_version"]) == stack["torch_version"]
        and facts.get("cuda", stack["torch_cuda"]) == stack["torch_cuda"]
    ):
        return
    reason = "not stated: the fixture's copy belongs to another torch build"
    for name in _BUILD_LIBRARIES:
        if name in stack.get("libraries", {}):
            stack["libraries"][name].update(version=None, selected=None)
            stack.setdefault("unknown", {})[f"libraries.{name}.version"] = reason
    installed = (doc.get("packages") or {}).get("installed", {})
    for name in [n for n in installed if n.startswith(("nvidia-cudnn", "nvidia-cublas"))]:
        del installed[name]
    for name in [n for n in installed if n.startswith("nvidia-nccl")]:
        del installed[name]
    torch = doc.get("torch")
    if isinstance(torch, dict):
        torch["cudnn"]["version"] = None
        torch["nccl_version"] = None
        torch.setdefault("unknown", {}).update({"cudnn.version": reason, "nccl_version": reason})


def pair(case: dict[str, Any]) -> tuple[Doc, Doc]:
    """The case's two manifest documents, validated."""
    case = _shared_job(case)
    out: list[Doc] = []
    sections = _needed(case)
    for side in ("a", "b"):
        doc = _base(case, side)
        for name in sections:
            _section(doc, name)
        _forget_build_libraries(doc, case[side])
        apply(doc, case[side])
        _effective(doc)
        noise(doc, side)
        doc["digest"] = None
        out.append(manifest_from_document(doc, f"{case['id']}.{side}").sealed().to_document())
    return out[0], out[1]


_HEADS = {
    "torch_flags": "torch",
    "env": "env",
    "packages": "packages",
    "gpu": "gpu",
}


def _needed(case: dict[str, Any]) -> list[str]:
    """Sections either side's facts write into: both sides get them, so a fact stated on one
    side is a difference, not a section captured on one side only."""
    found: set[str] = set()
    for side in ("a", "b"):
        for key, value in case[side].items():
            if key in _HEADS:
                found.add(_HEADS[key])
            elif key == "job":
                found.update(_JOB[k].split(".")[0] for k in value if k in _JOB)
                if "precision" in value:
                    found.add("precision")
                if {"torch_compile", "sdpa_backend"} & set(value):
                    found.add("torch")
            elif key == "set":
                found.update(path.split(".")[0] for path in value)
            elif key == "cudnn":
                found.add("torch")
    return sorted(found - {"run"})
