"""The v3 case format: what a case file must hold, checked one problem per line.

`problems(case, name)` lists everything wrong with one case; an empty list means the builder
can turn it into a pair through its route. The format itself is described in docs/field.md.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.field.drivers import CUDA_BY_BRANCH, branch_of
from tests.field.edits import SETTING_LINES
from tests.field.reports import CPU_KEYS, FACT_KEYS, RELEASES

HERE = Path(__file__).parent
REPORTS_DIR = HERE / "collect_env"
GPUS_DIR = HERE / "gpus"

TOP_KEYS = frozenset(
    {"id", "source", "title", "cause", "how_established", "label", "route", "notes", "a", "b"}
)
LABEL_KEYS = frozenset({"mechanism", "category", "rules", "written"})
CATEGORIES = ("hardware", "cuda-stack", "software", "job")
ROUTES = ("imported", "capture", "nvml")
CAPTURE_KEYS = frozenset({"env", "job", "packages", "repo", "data", "torch"})
NVML_KEYS = CAPTURE_KEYS | {"gpus", "driver", "cuda_driver", "cuda_libs", "device"}
# job key -> the types its value may have (None: null allowed).
JOB_TYPES: dict[str, tuple[type | None, ...]] = {
    "threads": (int,),
    "interop_threads": (int,),
    "seed": (int, None),
    "deterministic": (bool,),
    "cudnn_benchmark": (bool,),
    "cudnn_deterministic": (bool,),
    "cudnn_enabled": (bool,),
    "allow_tf32": (bool,),
    "cudnn_allow_tf32": (bool,),
    "float32_matmul_precision": (str,),
    "sdpa": (dict,),
    "mkldnn_fp32_precision": (str,),
    "default_dtype": (str,),
    "amp_dtype": (str, None),
    "model_dtype": (str,),
    "loaders": (dict,),
    "grad_accum": (int,),
    "world_size": (int,),
    "loss_normalization": (str,),
    "compile": (bool,),
    "argv": (list,),
    "imports": (list,),
}
LOADER_TYPES: dict[str, tuple[type | None, ...]] = {
    "batch_size": (int,),
    "num_workers": (int,),
    "shuffle": (bool,),
    "drop_last": (bool,),
    "worker_init_fn": (bool,),
    "generator_seed": (int, None),
}
SDPA_BACKENDS = frozenset({"flash", "mem_efficient", "math", "cudnn"})
LOADER_NAMES = frozenset({"train", "eval"})
_TORCH_RELEASE = re.compile(r"\d+\.\d+\.\d+(?:\+[a-z0-9.]+)?")
DTYPES = frozenset({"float16", "bfloat16", "float32", "float64"})
MATMUL_PRECISIONS = frozenset({"highest", "high", "medium"})
# Distributions the job itself imports: a planted copy would state a version the job never ran.
JOB_IMPORTS = frozenset({"torch", "numpy"})
# What torch loads in every job (at import, or when the job's optimizer or capture runs), or
# probes for by importing it (triton): a planted module under such a name would stand in for it.
TORCH_LOADS = JOB_IMPORTS | {"typing-extensions", "sympy", "triton"}
# What torch loads only to compile: a planted module may stand in for the incident's own import
# in a job that never compiles.
COMPILE_LOADS = frozenset({"networkx", "jinja2", "filelock", "fsspec", "setuptools"})
_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*-\d+-[a-z0-9-]+$")
_SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
_FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_NVIDIA_WHEEL = re.compile(r"^nvidia-[a-z0-9]+(-[a-z0-9]+)*$")


def _typed(value: Any, types: tuple[type | None, ...]) -> bool:
    if value is None:
        return None in types
    if isinstance(value, bool):
        return bool in types
    return any(t is not None and t is not bool and isinstance(value, t) for t in types)


def _dirty_sets(repo: dict[str, Any], job: Any) -> list[str]:
    """`dirty_sets` names job settings the uncommitted edit itself applies (`SETTING_LINES`)."""
    keys = repo.get("dirty_sets")
    if keys is None:
        return []
    if not isinstance(keys, list) or not keys or not repo.get("dirty"):
        return ["repo.dirty_sets is a non-empty list of job settings, on a dirty side"]
    job = job if isinstance(job, dict) else {}
    bad = sorted(str(key) for key in keys if key not in SETTING_LINES or key not in job)
    if bad:
        return [
            f"repo.dirty_sets: {', '.join(bad)} is not a job setting of this side that an edit can set"
        ]
    return []


def problems(case: Any, name: str | None = None) -> list[str]:
    """Everything wrong with one case; `name` is its file name without `.json`."""
    if not isinstance(case, dict):
        return ["not a JSON object"]
    found: list[str] = []
    missing = sorted(TOP_KEYS - set(case))
    extra = sorted(set(case) - TOP_KEYS)
    if missing:
        found.append(f"missing keys: {', '.join(missing)}")
    if extra:
        found.append(f"unknown keys: {', '.join(extra)}")
    case_id = case.get("id")
    if not isinstance(case_id, str) or not _ID.match(case_id):
        found.append(f"id {case_id!r} is not <project>-<issue>-<slug>")
    elif name is not None and case_id != name:
        found.append(f"id {case_id!r} differs from the file name {name!r}")
    source = case.get("source")
    if not isinstance(source, str) or not source.startswith("https://github.com/"):
        found.append("source is not a https://github.com/ thread")
    for key in ("title", "cause", "how_established", "notes"):
        if key in case and not (isinstance(case[key], str) and case[key].strip()):
            found.append(f"{key} is empty")
    found += _label(case.get("label"))
    route = case.get("route")
    if route not in ROUTES:
        found.append(f"route {route!r} is not one of {', '.join(ROUTES)}")
        return found
    sides = [(side, case.get(side)) for side in ("a", "b")]
    for side, spec in sides:
        if not isinstance(spec, dict):
            found.append(f"{side}: not an object")
            continue
        check = {"imported": _imported, "capture": _capture, "nvml": _nvml}[route]
        found += [f"{side}: {problem}" for problem in check(spec)]
    if route == "nvml" and all(isinstance(spec, dict) for _, spec in sides):
        stated = [("driver" in spec) for _, spec in sides]
        if stated[0] != stated[1]:
            found.append("driver: state it on both sides or on neither")
    found += _route_can_name(route, case.get("label"))
    return found


# Rules about sections the field job never passes to capture: it hands its files over as data
# (`data`), so a tokenizer or chat template file is a data item in the record.
_NOT_CAPTURED = frozenset({"data.tokenizer", "data.template"})


def _route_can_name(route: str, label: Any) -> list[str]:
    """A capture or nvml label needs a rule whose facts the route's record can hold."""
    rules = label.get("rules") if isinstance(label, dict) else None
    if route == "imported" or not isinstance(rules, list) or not rules:
        return []
    if set(rules) <= _NOT_CAPTURED:
        return [
            f"label.rules: the {route} route records no tokenizer or template section; a "
            "file the job reads is a data item (data.content)"
        ]
    return []


def _label(label: Any) -> list[str]:
    from envsnap.diff.catalog import RULES_BY_ID

    if not isinstance(label, dict):
        return ["label is not an object"]
    found: list[str] = []
    missing = sorted(LABEL_KEYS - set(label))
    if missing:
        found.append(f"label: missing {', '.join(missing)}")
    if sorted(set(label) - LABEL_KEYS):
        found.append(f"label: unknown keys {', '.join(sorted(set(label) - LABEL_KEYS))}")
    mechanism = label.get("mechanism")
    if not isinstance(mechanism, str) or not _SNAKE.match(mechanism):
        found.append(f"label.mechanism {mechanism!r} is not snake_case")
    if label.get("category") not in CATEGORIES:
        found.append(f"label.category {label.get('category')!r} is not one of {CATEGORIES}")
    rules = label.get("rules")
    if not isinstance(rules, list) or not rules:
        found.append("label.rules is not a non-empty list")
    else:
        unknown = [rule for rule in rules if rule not in RULES_BY_ID]
        if unknown:
            found.append(f"label.rules: unknown rule ids {', '.join(map(str, unknown))}")
    if label.get("written") != "before-run":
        found.append("label.written is not 'before-run'")
    return found


def _imported(spec: dict[str, Any]) -> list[str]:
    if "report" in spec:
        if set(spec) != {"report"}:
            return ["a posted report side holds only 'report'"]
        report = spec["report"]
        if not isinstance(report, str) or not (REPORTS_DIR / report).is_file():
            return [f"report {report!r} is not a file in tests/field/collect_env/"]
        return []
    if set(spec) != {"release", "facts"}:
        return ["an imported side is {'report': file} or {'release': ..., 'facts': {...}}"]
    found: list[str] = []
    if spec["release"] not in RELEASES:
        found.append(f"release {spec['release']!r} is not one of 0.4 ... 2.13")
    facts = spec["facts"]
    if not isinstance(facts, dict):
        return [*found, "facts is not an object"]
    unknown = sorted(set(facts) - FACT_KEYS)
    if unknown:
        found.append(f"facts: unknown keys {', '.join(unknown)}")
    cpu = facts.get("cpu")
    if cpu is not None and (not isinstance(cpu, dict) or set(cpu) - CPU_KEYS):
        found.append(f"facts.cpu: keys are {', '.join(sorted(CPU_KEYS))}")
    for key in ("pip", "conda"):
        value = facts.get(key)
        if value is not None and not isinstance(value, dict):
            found.append(f"facts.{key} is not an object of name -> version")
    gpus = facts.get("gpus")
    if gpus is not None and not isinstance(gpus, (list, str)):
        found.append("facts.gpus is not a list of GPU names")
    return found


def _capture(spec: dict[str, Any], keys: frozenset[str] = CAPTURE_KEYS) -> list[str]:
    found: list[str] = []
    unknown = sorted(set(spec) - keys)
    if unknown:
        found.append(f"unknown keys for this route: {', '.join(unknown)}")
    env = spec.get("env", {})
    if not isinstance(env, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in env.items()
    ):
        found.append("env is not an object of name -> string")
    found += _job(spec.get("job", {}))
    found += _imports(spec)
    packages = spec.get("packages", {})
    if not isinstance(packages, dict) or not all(isinstance(v, str) for v in packages.values()):
        found.append("packages is not an object of name -> version")
    else:
        imported = sorted(n for n in packages if n.lower() in JOB_IMPORTS)
        if imported:
            found.append(
                f"packages: the job imports {', '.join(imported)}; its version is this "
                "machine's, a planted copy would misstate it"
            )
    repo = spec.get("repo", {})
    if not isinstance(repo, dict) or set(repo) - {"commit", "dirty", "dirty_sets"}:
        found.append("repo holds only 'commit', 'dirty' and 'dirty_sets'")
    else:
        if repo.get("commit", "base") not in ("base", "changed"):
            found.append("repo.commit is 'base' or 'changed'")
        if not isinstance(repo.get("dirty", False), bool):
            found.append("repo.dirty is a boolean")
        found += _dirty_sets(repo, spec.get("job"))
    data = spec.get("data", {})
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and _FILE_NAME.match(k) and isinstance(v, str) for k, v in data.items()
    ):
        found.append("data is an object of file name -> content tag")
    torch = spec.get("torch")
    if torch is not None and not (isinstance(torch, str) and _TORCH_RELEASE.fullmatch(torch)):
        found.append("torch is the torch.__version__ of the venv the side runs in ('2.9.1+cu128')")
    return found


def _imports(spec: dict[str, Any]) -> list[str]:
    """The planted packages the incident's job imported: names of the side's own `packages`,
    never a package torch or the job loads itself (a stub would replace it), nor one
    torch.compile loads in a job that compiles."""
    job = spec.get("job")
    if not isinstance(job, dict) or job.get("imports") is None:
        return []
    imports = job["imports"]
    planted = spec.get("packages")
    packages: dict[str, Any] = planted if isinstance(planted, dict) else {}
    if not isinstance(imports, list) or not all(isinstance(n, str) for n in imports):
        return ["job.imports is a list of the side's package names"]
    compiles = bool(job.get("compile"))
    torch_loads = TORCH_LOADS | COMPILE_LOADS if compiles else TORCH_LOADS
    wrong = [n for n in imports if n not in packages or _normalized(n) in torch_loads]
    if wrong:
        return [f"job.imports: not a planted package the job may import: {', '.join(wrong)}"]
    return []


def _normalized(name: str) -> str:
    """A distribution name as PEP 503 compares them: 'typing_extensions' -> 'typing-extensions'."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _job(job: Any) -> list[str]:
    if not isinstance(job, dict):
        return ["job is not an object"]
    found: list[str] = []
    for key, value in job.items():
        if key not in JOB_TYPES:
            found.append(f"job: unknown key {key!r}")
        elif not _typed(value, JOB_TYPES[key]):
            found.append(f"job.{key}: {value!r} has the wrong type")
    for key in ("default_dtype", "model_dtype", "amp_dtype"):
        value = job.get(key)
        if isinstance(value, str) and value not in DTYPES:
            found.append(f"job.{key}: {value!r} is not one of {', '.join(sorted(DTYPES))}")
    precision = job.get("float32_matmul_precision")
    if isinstance(precision, str) and precision not in MATMUL_PRECISIONS:
        found.append(f"job.float32_matmul_precision: {precision!r} is not highest/high/medium")
    sdpa = job.get("sdpa")
    if isinstance(sdpa, dict) and not (
        set(sdpa) <= SDPA_BACKENDS and all(isinstance(v, bool) for v in sdpa.values())
    ):
        found.append(
            f"job.sdpa: backend -> true/false, backends {', '.join(sorted(SDPA_BACKENDS))}"
        )
    if isinstance(job.get("argv"), list) and not all(isinstance(a, str) for a in job["argv"]):
        found.append("job.argv is a list of strings")
    loaders = job.get("loaders")
    if isinstance(loaders, dict):
        for name, loader in loaders.items():
            if name not in LOADER_NAMES:
                found.append(f"job.loaders: unknown loader {name!r} (train, eval)")
            elif not isinstance(loader, dict):
                found.append(f"job.loaders.{name} is not an object")
            else:
                for key, value in loader.items():
                    if key not in LOADER_TYPES:
                        found.append(f"job.loaders.{name}: unknown key {key!r}")
                    elif not _typed(value, LOADER_TYPES[key]):
                        found.append(f"job.loaders.{name}.{key}: {value!r} has the wrong type")
    return found


def _nvml(spec: dict[str, Any]) -> list[str]:
    found = _capture(spec, NVML_KEYS)
    gpus = spec.get("gpus", [])
    if not isinstance(gpus, list) or not all(isinstance(g, str) for g in gpus):
        found.append("gpus is a list of GPU file keys")
    else:
        for key in gpus:
            if not (_FILE_NAME.match(key) and (GPUS_DIR / f"{key}.json").is_file()):
                found.append(f"gpus: no file tests/field/gpus/{key}.json")
    driver = spec.get("driver")
    if driver is not None:
        branch = branch_of(driver) if isinstance(driver, str) else None
        if branch is None:
            found.append(f"driver {driver!r} is not a driver version or a branch ('535')")
        elif branch not in CUDA_BY_BRANCH and "cuda_driver" not in spec:
            found.append(f"driver branch {branch} is not in drivers.py: state cuda_driver")
    if "cuda_driver" in spec and not _typed(spec["cuda_driver"], (int,)):
        found.append("cuda_driver is an int (12020 for CUDA 12.2)")
    libs = spec.get("cuda_libs", {})
    if not isinstance(libs, dict) or not all(
        isinstance(k, str) and _NVIDIA_WHEEL.match(k) and isinstance(v, str)
        for k, v in libs.items()
    ):
        found.append("cuda_libs is an object of nvidia-* wheel name -> version")
    else:
        from tests.field.planting import wheel_component

        unknown = [name for name in libs if wheel_component(name) is None]
        if unknown:
            found.append(f"cuda_libs: not a CUDA library wheel: {', '.join(unknown)}")
    if spec.get("device", "cuda") not in ("cuda", "cpu"):
        found.append("device is 'cuda' or 'cpu'")
    return found
