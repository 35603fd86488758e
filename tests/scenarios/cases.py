"""Labelled manifest pairs: A is the real-capture fixture, B is A with one cause changed.

Every B also carries noise (timestamp, pid, host name, collector durations), which must never
outrank the cause. GPU values are NVIDIA's published figures: compute capabilities from
https://developer.nvidia.com/cuda-gpus (V100 7.0, A100 8.0, H100 9.0); SM counts from the
Volta (80 SMs on V100), Ampere (108 on A100) and Hopper (132 on H100 SXM5) architecture
whitepapers on https://www.nvidia.com/en-us/data-center/resources/ .
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.helpers import FIXTURES

FULL = FIXTURES / "manifests" / "full.json"
Doc = dict[str, Any]
Edit = Callable[[Doc], None]


def base() -> Doc:
    return json.loads(FULL.read_text(encoding="utf-8"))


def put(doc: Doc, path: str, value: Any) -> None:
    """Set a value at a dotted path (keys with dots are given as a list of keys)."""
    parts = path.split(".")
    node = doc
    for part in parts[:-1]:
        node = node[part]
    if value is DELETE:
        node.pop(parts[-1], None)
    else:
        node[parts[-1]] = value


DELETE = object()


def edits(*pairs: tuple[str, Any]) -> Edit:
    def apply(doc: Doc) -> None:
        for path, value in pairs:
            put(doc, path, value)

    return apply


def gpu(name: str, cc: str, arch: str, sms: int, mem: int, tf32: bool) -> Edit:
    def apply(doc: Doc) -> None:
        for device in doc["gpu"]["devices"].values():
            device.update(name=name, compute_capability=cc, arch=arch, sm_count=sms)
            device["memory_total_bytes"] = mem
            device["capabilities"] = {
                "tf32": tf32,
                "bf16": tf32,
                "fp8": cc >= "8.9",
                "flash_sdpa": tf32,
            }
        if not tf32:
            doc["torch"]["effective"]["conv_fp32"]["tf32"] = "no"
            doc["torch"]["effective"]["matmul_fp32"]["tf32"] = "no"

    return apply


V100 = gpu("Tesla V100-SXM2-32GB", "7.0", "Volta", 80, 34359738368, False)
H100 = gpu("NVIDIA H100 80GB HBM3", "9.0", "Hopper", 132, 85899345920, True)
TF32_ON = edits(
    ("torch.matmul.allow_tf32", True),
    ("torch.matmul.float32_matmul_precision", "high"),
    ("torch.effective.matmul_fp32.tf32", "yes"),
)


PROBE = FIXTURES / "probe" / "cpu_avx2_torch2.13.json"


def with_probe(doc: Doc) -> None:
    """The numerics probe as envsnap.probe.run_probe(["cpu"]) recorded it on an AVX2 CPU
    (torch 2.13.0+cpu); a pair's other edits leave it as it is on both sides."""
    doc["probe"] = {"unknown": {}, **json.loads(PROBE.read_text(encoding="utf-8"))}


def torch_version(version: str, cudnn: int | None = None) -> Edit:
    def apply(doc: Doc) -> None:
        doc["packages"]["installed"]["torch"]["version"] = version
        doc["torch"]["version"] = version
        doc["cuda_stack"]["torch_version"] = version
        doc["cuda_stack"]["torch_build"] = version.split("+")[1] if "+" in version else None

    return apply


def package(name: str, version: str) -> Edit:
    def apply(doc: Doc) -> None:
        entry = doc["packages"]["installed"].setdefault(
            name,
            {
                "name": name,
                "installer": "pip",
                "source": "index",
                "url": None,
                "vcs": None,
                "commit": None,
                "shadowed": [],
            },
        )
        entry["version"] = version

    return apply


def chain(*steps: Edit) -> Edit:
    def apply(doc: Doc) -> None:
        for step in steps:
            step(doc)

    return apply


def noise(doc: Doc) -> None:
    """What differs between any two captures: none of it can change results."""
    doc["created_at"] = "2031-01-01T00:00:00Z"
    doc["run"]["pid"] = doc["run"]["pid"] + 1
    doc["system"]["hostname"] = "train-node-17"
    for record in doc["collectors"].values():
        record["duration_ms"] = record["duration_ms"] + 3.5


def ngc_image(release: str, **libraries: str) -> Edit:
    """The placement section states an NGC PyTorch image of `release` shipping `libraries`
    (the fixture's own versions); the env section holds the variables it read them from."""

    variables = {"cudnn": "CUDNN_VERSION", "nccl": "NCCL_VERSION", "cuda": "CUDA_VERSION"}

    def apply(doc: Doc) -> None:
        image = doc["placement"]["image"]
        image["product"] = {"value": "PyTorch", "source": "env:NVIDIA_PRODUCT_NAME"}
        image["release"] = {"value": release, "source": "env:NVIDIA_PYTORCH_VERSION"}
        doc["env"]["variables"]["NVIDIA_PYTORCH_VERSION"] = release
        for name, version in libraries.items():
            image["libraries"][name] = {"value": version, "source": f"env:{variables[name]}"}
            doc["env"]["variables"][variables[name]] = version

    return apply


def affinity(cpus: str, count: int) -> Edit:
    """The task is bound to `count` CPUs and OMP_NUM_THREADS is unset: one thread per CPU,
    as torch reports it."""

    def apply(doc: Doc) -> None:
        doc["torch"]["num_threads"] = count
        doc["env"]["variables"].pop("OMP_NUM_THREADS", None)
        doc["placement"]["cpu"].update(
            cpus=cpus,
            count=count,
            numa_cpus={"0": cpus},
            default_threads=count,
            default_threads_source="affinity",
        )

    return apply


@dataclass(frozen=True)
class Case:
    """One labelled pair: `a` edits the fixture into side A, `b` into side B."""

    id: str
    doc: str
    expected: str
    b: Edit
    a: Edit = field(default=lambda doc: None)

    def pair(self) -> tuple[Doc, Doc]:
        doc_a = base()
        self.a(doc_a)
        doc_b = copy.deepcopy(doc_a)
        self.b(doc_b)
        noise(doc_b)
        return doc_a, doc_b


CASES: tuple[Case, ...] = (
    # hardware
    Case(
        "a100-v100",
        "A100 -> V100: conv TF32 can no longer run, kernels change",
        "precision.tf32-arch",
        V100,
    ),
    Case(
        "h100-a100-tf32",
        "A100 -> H100 with TF32 allowed, unseeded job: TF32 kernels differ by arch",
        "precision.tf32-arch",
        H100,
        a=chain(TF32_ON, edits(("seeds.master_seed", None), ("seeds.seeded", []))),
    ),
    Case(
        "sm-count",
        "same architecture, fewer SMs, seeded job: CUDA random streams differ",
        "randomness.cuda-rng-sm-count",
        edits(("gpu.devices.0.sm_count", 98), ("gpu.devices.1.sm_count", 98)),
    ),
    Case(
        "gpu-vs-cpu",
        "the model ran on the GPU in A and on the CPU in B: conv TF32 on A only",
        "precision.tf32-effective",
        edits(("precision.device", "cpu")),
        a=edits(("precision.device", "cuda")),
    ),
    Case(
        "gpu-sku",
        "A100 80GB -> A100 40GB, same architecture and SMs",
        "hw.gpu-sku",
        edits(("gpu.devices.0.name", "NVIDIA A100-SXM4-40GB")),
    ),
    Case(
        "gpu-settings",
        "power limit lowered",
        "hw.gpu-settings",
        edits(("gpu.devices.0.power_limit_w", 300.0)),
    ),
    Case(
        "topology",
        "NVLink lost between the two GPUs",
        "hw.topology",
        edits(("gpu.links.0-1.nvlink", False)),
    ),
    Case(
        "cpu-isa",
        "AVX-512 host instead of AVX2",
        "hw.cpu-isa",
        edits(("torch.cpu_capability", "AVX512")),
    ),
    Case(
        "cpu-kernels",
        "AVX-512 host instead of AVX2, the model's math on the CPU on both sides",
        "hw.cpu-kernels",
        edits(("torch.cpu_capability", "AVX512"), ("precision.device", "cpu")),
        a=edits(("precision.device", "cpu")),
    ),
    Case(
        "cpu-arch",
        "x86_64 -> aarch64",
        "hw.cpu-arch",
        edits(("system.cpu.architecture", "aarch64")),
    ),
    # determinism and precision flags
    Case(
        "cudnn-deterministic",
        "cudnn.deterministic True -> False",
        "algo.cudnn-deterministic",
        edits(("torch.cudnn.deterministic", False)),
    ),
    Case(
        "cudnn-benchmark",
        "cudnn.benchmark False -> True",
        "algo.cudnn-benchmark",
        edits(("torch.cudnn.benchmark", True)),
    ),
    Case(
        "tf32-flip",
        "matmul allow_tf32 False -> True on A100",
        "precision.tf32-effective",
        edits(("torch.matmul.allow_tf32", True), ("torch.effective.matmul_fp32.tf32", "yes")),
    ),
    Case(
        "matmul-precision",
        "float32_matmul_precision highest -> high on A100",
        "precision.tf32-effective",
        edits(
            ("torch.matmul.float32_matmul_precision", "high"),
            ("torch.effective.matmul_fp32.tf32", "yes"),
        ),
    ),
    Case(
        "conv-tf32",
        "cudnn.allow_tf32 True -> False on A100",
        "precision.tf32-effective",
        edits(("torch.cudnn.allow_tf32", False), ("torch.effective.conv_fp32.tf32", "no")),
    ),
    Case(
        "deterministic-algorithms",
        "use_deterministic_algorithms on -> off",
        "algo.deterministic-algorithms",
        edits(("torch.deterministic.algorithms", False), ("seeds.level", "seeded")),
    ),
    Case(
        "tf32-override",
        "NVIDIA_TF32_OVERRIDE=0 set in the launcher",
        "precision.tf32-override",
        edits(("env.variables.NVIDIA_TF32_OVERRIDE", "0")),
    ),
    Case("sdpa", "flash attention disabled", "algo.sdpa", edits(("torch.sdpa.flash", False))),
    Case(
        "reduced-reduction",
        "fp16 reduced-precision reduction disabled",
        "precision.reduced-reduction",
        edits(("torch.matmul.allow_fp16_reduced_precision_reduction", "False")),
    ),
    Case(
        "compile",
        "Inductor max-autotune enabled",
        "algo.compile",
        edits(("env.variables.TORCHINDUCTOR_MAX_AUTOTUNE", "1")),
    ),
    Case(
        "cublaslt",
        "cuBLASLt workspace enlarged",
        "algo.cublaslt",
        edits(("env.variables.CUBLASLT_WORKSPACE_SIZE", "32768")),
    ),
    Case(
        "cudnn-v8",
        "cuDNN v8 API disabled",
        "algo.cudnn-api",
        edits(("env.variables.TORCH_CUDNN_V8_API_DISABLED", "1")),
    ),
    # stack
    Case(
        "torch-2.3-2.4",
        "torch 2.3.1 -> 2.4.1 (same CUDA build)",
        "stack.torch",
        torch_version("2.4.1+cu121"),
    ),
    Case(
        "cu118-cu121",
        "torch 2.3.1+cu118 -> +cu121",
        "stack.cuda-build",
        chain(torch_version("2.3.1+cu121"), edits(("cuda_stack.torch_cuda", "12.1"))),
        a=chain(torch_version("2.3.1+cu118"), edits(("cuda_stack.torch_cuda", "11.8"))),
    ),
    Case(
        "cu126-cu128-tf32",
        "fp32 job, TF32 allowed: torch 2.7.0+cu126 -> +cu128, B's cuDNN not recorded",
        "precision.tf32-library",
        chain(
            torch_version("2.7.0+cu128"),
            edits(
                ("cuda_stack.torch_cuda", "12.8"),
                ("torch.cudnn.version", None),
                ("torch.unknown", {"cudnn.version": "not recorded"}),
                ("cuda_stack.libraries.cudnn.version", None),
                ("cuda_stack.libraries.cudnn.selected", None),
                ("cuda_stack.unknown", {"libraries.cudnn.version": "not recorded"}),
                ("packages.installed.nvidia-cudnn-cu12", DELETE),
            ),
        ),
        a=chain(
            torch_version("2.7.0+cu126"),
            edits(("cuda_stack.torch_cuda", "12.6"), ("precision.amp_dtype", None)),
        ),
    ),
    Case(
        "cudnn-8.9-9.1",
        "cuDNN 8.9 -> 9.1",
        "stack.cudnn",
        edits(
            ("cuda_stack.libraries.cudnn.version", "9.1.0.70"),
            ("cuda_stack.libraries.cudnn.selected.version", "9.1.0.70"),
            ("torch.cudnn.version", 90100),
        ),
    ),
    Case(
        "triton-2.3-3.0",
        "triton 2.3.1 -> 3.0.0 under the same torch",
        "stack.triton",
        package("triton", "3.0.0"),
    ),
    Case(
        "nccl-algo",
        "NCCL_ALGO unset -> Ring",
        "algo.nccl-algo",
        edits(("env.variables.NCCL_ALGO", "Ring")),
        a=edits(("env.variables.NCCL_ALGO", DELETE)),
    ),
    Case(
        "nccl-proto",
        "NCCL_PROTO Simple -> LL128",
        "algo.nccl-protocol",
        edits(("env.variables.NCCL_PROTO", "LL128")),
    ),
    Case(
        "nccl-version",
        "NCCL 2.20.5 -> 2.21.5",
        "stack.nccl",
        edits(("torch.nccl_version", "2.21.5")),
    ),
    Case(
        "cublas-version",
        "cuBLAS 12.1.3.1 -> 12.4.5.8",
        "stack.cublas",
        package("nvidia-cublas-cu12", "12.4.5.8"),
    ),
    Case(
        "cuda-runtime",
        "CUDA runtime library 12.1 -> 12.4",
        "stack.cuda-toolkit",
        edits(("cuda_stack.libraries.cuda_runtime.version", "12.4.127")),
    ),
    Case(
        "cufft",
        "another CUDA library version",
        "stack.cuda-library",
        package("nvidia-cufft-cu12", "11.0.2.54"),
    ),
    Case(
        "ld-library-path",
        "a system CUDA put on LD_LIBRARY_PATH",
        "stack.library-path",
        edits(("env.variables.LD_LIBRARY_PATH", "/usr/lib/cuda-12.4/lib64")),
    ),
    Case(
        "python-minor", "Python 3.11 -> 3.12", "stack.python", edits(("python.version", "3.12.4"))
    ),
    Case(
        "torch-1.11-1.12",
        "torch 1.11 -> 1.12: matmul TF32 default flips off",
        "flip.torch-1.12-tf32",
        torch_version("1.12.1+cu113"),
        a=torch_version("1.11.0+cu113"),
    ),
    Case(
        "torch-1.13-2.0",
        "torch 1.13 -> 2.0 (foreach default flip reported below it)",
        "stack.torch",
        torch_version("2.0.1+cu117"),
        a=torch_version("1.13.1+cu117"),
    ),
    Case(
        "torch-2.8-2.9",
        "torch 2.8 -> 2.9: fp32_precision API",
        "flip.torch-2.9-fp32-precision",
        torch_version("2.9.0+cu128"),
        a=torch_version("2.8.0+cu128"),
    ),
    Case(
        "torch-2.5.0-h100",
        "torch 2.4.1 -> 2.5.0 on H100: cuDNN SDPA bug window",
        "bug.torch-2.5.0-cudnn-sdpa-h100",
        torch_version("2.5.0+cu121"),
        a=chain(H100, torch_version("2.4.1+cu121")),
    ),
    Case(
        "pillow-7",
        "Pillow 6.2 -> 7.0: resize resampling default changed",
        "stack.preprocessing",
        package("pillow", "7.0.0"),
        a=package("pillow", "6.2.2"),
    ),
    Case(
        "torch-2.5.1-a100",
        "torch 2.4.1 -> 2.5.1 on A100: SDPA defaults flipped",
        "flip.torch-2.5-sdpa",
        torch_version("2.5.1+cu121"),
        a=torch_version("2.4.1+cu121"),
    ),
    Case(
        "driver-only",
        "driver branch 550 -> 560 (550.54.15 -> 560.35.03), nothing else",
        "stack.driver",
        edits(
            ("gpu.driver_version", "560.35.03"),
            ("gpu.nvml_version", "12.560.35.03"),
            ("gpu.cuda_driver_version", "12.6"),
        ),
    ),
    # layout and semantics
    Case(
        "world-8-4-accum",
        "world size 8 -> 4 with accumulation 1 -> 2 (same global batch)",
        "semantics.batch-layout",
        edits(
            ("parallel.world_size", 4),
            ("parallel.dp_size", 4),
            ("parallel.grad_accum_steps", 2),
            ("env.variables.WORLD_SIZE", "4"),
        ),
        a=package("transformers", "4.46.0"),
    ),
    Case(
        "loss-norm",
        "loss normalisation per-sample -> per-token",
        "semantics.loss-normalization",
        edits(("parallel.loss_normalization", "per_token")),
    ),
    Case(
        "micro-batch",
        "micro-batch 8 -> 16: global batch 64 -> 128",
        "semantics.global-batch",
        edits(
            ("parallel.micro_batch_size", 16),
            ("parallel.global_batch", 128),
            ("parallel.dataloader.batch_size", 16),
        ),
    ),
    Case(
        "tp-degree",
        "tensor parallel 1 -> 2 with the same global batch",
        "semantics.batch-layout",
        edits(("parallel.tp_size", 2)),
    ),
    Case(
        "backend", "NCCL -> gloo backend", "semantics.parallel", edits(("parallel.backend", "gloo"))
    ),
    Case(
        "ddp-bucket",
        "DDP bucket_cap_mb 25 -> 50",
        "algo.ddp-bucket",
        edits(("parallel.ddp_bucket_cap_mb", 50.0)),
    ),
    Case(
        "sampler-seed",
        "DistributedSampler seed changed",
        "randomness.data-order",
        edits(("parallel.dataloader.sampler.seed", 99)),
    ),
    Case(
        "lr",
        "learning rate 3e-4 -> 6e-4",
        "semantics.hyperparameters",
        edits(("precision.optimizer.param_groups.0.lr", 0.0006)),
    ),
    Case(
        "model",
        "a different model class",
        "semantics.model",
        edits(("precision.model_class", "transformers.LlamaForCausalLM")),
    ),
    # inputs
    Case(
        "data-digest",
        "one training file's content changed",
        "data.content",
        lambda d: d["data"]["items"]["train"]["files"]["part-0001.jsonl"].update(
            digest="sha256:" + "9" * 64
        ),
    ),
    Case(
        "tokenizer-digest",
        "tokenizer.json changed",
        "data.tokenizer",
        lambda d: d["tokenizer"]["files"].update({"tokenizer.json": "sha256:" + "8" * 64}),
    ),
    Case(
        "chat-template",
        "chat template changed",
        "data.template",
        edits(("templates.templates.chat.digest", "sha256:" + "7" * 64)),
    ),
    Case(
        "seed",
        "master seed 1234 -> 42",
        "randomness.seed",
        edits(("seeds.master_seed", 42), ("seeds.derived.torch", 9)),
    ),
    Case(
        "tokenizers-llama3",
        "tokenizers 0.19.0 -> 0.19.1 with a Llama-3 tokenizer",
        "bug.tokenizers-0.19.0-llama3",
        package("tokenizers", "0.19.1"),
        a=chain(
            package("tokenizers", "0.19.0"), edits(("tokenizer.path", "meta-llama/Meta-Llama-3-8B"))
        ),
    ),
    # environment
    Case(
        "pythonhashseed",
        "PYTHONHASHSEED 0 -> unset",
        "randomness.pythonhashseed",
        edits(("env.variables.PYTHONHASHSEED", DELETE), ("seeds.pythonhashseed", None)),
    ),
    Case(
        "omp-threads",
        "OMP_NUM_THREADS 8 -> 16",
        "env.threads",
        edits(("env.variables.OMP_NUM_THREADS", "16")),
    ),
    Case(
        "cublas-workspace",
        "CUBLAS_WORKSPACE_CONFIG unset",
        "algo.cublas-workspace",
        edits(("env.variables.CUBLAS_WORKSPACE_CONFIG", DELETE)),
    ),
    Case(
        "numpy-2",
        "numpy 1.26 -> 2.0: NEP 50 promotion",
        "flip.numpy-2.0-nep50",
        package("numpy", "2.0.1"),
    ),
    Case(
        "numpy-1.25",
        "numpy 1.24 -> 1.25: the SIMD argsort flip is more specific than the version change",
        "flip.numpy-1.25-argsort",
        package("numpy", "1.25.2"),
        a=package("numpy", "1.24.4"),
    ),
    Case(
        "transformers-ga",
        "transformers 4.45 -> 4.46 with accumulation 4",
        "bug.transformers-ga-loss",
        package("transformers", "4.46.0"),
        a=edits(("parallel.micro_batch_size", 2), ("parallel.grad_accum_steps", 4)),
    ),
    Case(
        "transformers-4.46",
        "transformers 4.45 -> 4.46 without accumulation",
        "flip.transformers-4.46-ga-loss",
        package("transformers", "4.46.0"),
    ),
    Case(
        "framework",
        "accelerate patch release",
        "stack.framework",
        package("accelerate", "0.34.2"),
        a=package("accelerate", "0.34.0"),
    ),
    Case("os", "kernel upgraded", "env.os", edits(("system.kernel", "6.1.0-21-amd64"))),
    Case(
        "os-family",
        "Linux -> Windows: another C runtime",
        "env.os",
        edits(("system.os", "Windows")),
    ),
    # code
    Case(
        "dirty",
        "clean tree -> uncommitted edits",
        "code.dirty",
        edits(("code.dirty", True), ("code.diff_sha256", "9" * 64), ("code.diff_bytes", 120)),
    ),
    Case(
        "untracked",
        "clean tree -> untracked files only",
        "code.untracked",
        edits(("code.untracked_count", 2), ("code.untracked_digest", "7" * 64)),
    ),
    Case("commit", "another commit", "code.commit", edits(("code.commit", "1" * 40))),
    Case(
        "argv",
        "the training command line changed",
        "code.argv",
        edits(("run.argv", ["/opt/venv/bin/python", "train.py", "--config", "b.yaml"])),
    ),
    Case(
        "branch", "branch renamed, same commit", "code.branch", edits(("code.branch", "experiment"))
    ),
    Case("extra", "a job-attached value changed", "code.extra", edits(("extra.note", "v2"))),
    # precision
    Case(
        "amp-fp16-bf16",
        "AMP float16 -> bfloat16",
        "precision.amp",
        edits(("precision.amp_dtype", "bfloat16")),
        a=edits(("precision.amp_dtype", "float16")),
    ),
    Case(
        "grad-scaler",
        "GradScaler on -> off",
        "precision.grad-scaler",
        edits(("precision.scaler.enabled", False)),
    ),
    Case(
        "foreach-fused",
        "AdamW foreach -> fused",
        "algo.optimizer-impl",
        edits(
            ("precision.optimizer.param_groups.0.foreach", None),
            ("precision.optimizer.param_groups.0.fused", True),
        ),
    ),
    Case(
        "param-dtype",
        "parameters stored in bfloat16",
        "precision.dtypes",
        lambda d: d["precision"].update(
            params={"bfloat16": d["precision"]["params"].pop("float32")}
        ),
    ),
    Case(
        "capabilities",
        "capability table says no flash SDPA",
        "precision.capabilities",
        edits(("gpu.devices.0.capabilities.flash_sdpa", False)),
    ),
    # what could hide
    Case(
        "gpu-missing",
        "gpu section not captured in B",
        "uncaptured",
        edits(
            ("gpu", None),
            ("collectors.gpu", {"status": "skipped", "reason": "no NVML", "duration_ms": 1.0}),
        ),
    ),
    # what both sides leave random (nothing recorded differs about it)
    Case(
        "shared-hash-seed",
        "PYTHONHASHSEED unset on both sides",
        "shared.hash-seed",
        edits(),
        a=edits(("env.variables.PYTHONHASHSEED", DELETE), ("seeds.pythonhashseed", None)),
    ),
    Case(
        "shared-no-seed",
        "no seed declared on either side (a job without torch)",
        "shared.no-seed",
        edits(),
        a=edits(
            ("seeds.master_seed", None),
            ("seeds.seeded", []),
            ("seeds.derived", {}),
            ("seeds.torch_imported", False),
            ("seeds.torch_initial_seed", None),
        ),
    ),
    Case(
        "shared-nondeterministic",
        "nondeterministic algorithms allowed on both sides, on GPUs",
        "shared.nondeterministic",
        edits(),
        a=edits(("torch.deterministic.algorithms", False), ("torch.cudnn.deterministic", False)),
    ),
    # must rank low
    Case("hostname-only", "only the host name differs (noise)", "noise.host", edits()),
    Case(
        "dev-tool",
        "mypy bumped: a type checker never runs in the job",
        "noise.dev-tool",
        package("mypy", "1.11.2"),
    ),
    Case(
        "python-patch",
        "Python 3.11.7 -> 3.11.9",
        "noise.python-patch",
        edits(("python.version", "3.11.9")),
    ),
    Case(
        "unrelated-patch",
        "an unrelated package's patch release",
        "stack.package",
        package("pygments", "99.0.1"),
        a=package("pygments", "99.0.0"),
    ),
    Case(
        "tool-package",
        "a progress bar's release, which the job (torch itself) imports",
        "noise.tool-package",
        package("tqdm", "4.66.5"),
        a=package("tqdm", "4.66.1"),
    ),
    Case(
        "unrelated-major",
        "an unrelated package's major release",
        "stack.package-major",
        package("pygments", "100.0.0"),
        a=package("pygments", "99.0.0"),
    ),
    Case(
        "package-source",
        "a package installed editable",
        "stack.package-source",
        edits(("packages.installed.numpy.source", "editable")),
    ),
    Case(
        "output-dir",
        "only the output directory on the command line differs",
        "noise.argv",
        edits(
            (
                "run.argv",
                [
                    "/opt/venv/bin/python",
                    "train.py",
                    "--config",
                    "configs/gpt2.yaml",
                    "--out",
                    "runs/a2",
                ],
            )
        ),
        a=edits(
            (
                "run.argv",
                [
                    "/opt/venv/bin/python",
                    "train.py",
                    "--config",
                    "configs/gpt2.yaml",
                    "--out",
                    "runs/a",
                ],
            )
        ),
    ),
    Case(
        "inductor-cache-dir",
        "a different Inductor cache directory (a location torch may set itself)",
        "noise.env",
        edits(("env.variables.TORCHINDUCTOR_CACHE_DIR", "/tmp/torchinductor_b")),
    ),
    Case(
        "lock-file-one-side",
        "a lock file present on one side only, the packages the same",
        "noise.lock-file",
        lambda doc: doc["packages"]["lock_files"].append(
            {"bytes": 32, "path": "uv.lock", "sha256": "0" * 64}
        ),
    ),
    Case(
        "install-path",
        "a different venv location only",
        "noise.paths",
        edits(("python.executable", "/srv/venv/bin/python")),
    ),
    Case(
        "unknown-field",
        "a field nothing in the catalog knows",
        "fallback",
        edits(("env.variables.HF_HUB_OFFLINE", "1")),
    ),
    Case(
        "ngc-release",
        "NGC PyTorch 24.10 -> 24.11: the image moves cuDNN, NCCL and CUDA",
        "placement.image",
        ngc_image("24.11", cudnn="9.5.1.17", nccl="2.23.4", cuda="12.6.3.001"),
        a=ngc_image("24.10", cudnn="9.5.0.50", nccl="2.22.3", cuda="12.6.2.004"),
    ),
    Case(
        "image-default-origin",
        "the image declares TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1; the launcher set 0 on both sides",
        "noise.image-default",
        edits(
            (
                "placement.image.defaults",
                {
                    "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE": {
                        "value": "0",
                        "image_value": "1",
                        "set_by": "changed",
                        "source": "file:/.singularity.d/env/10-docker2singularity.sh",
                    }
                },
            ),
        ),
    ),
    Case(
        "container-runtime",
        "the same image run by podman instead of docker",
        "placement.runtime",
        edits(("placement.container.runtime", "podman")),
    ),
    Case(
        "slurm-allocation",
        "4 CPUs per task instead of 16 on the same partition",
        "placement.allocation",
        edits(("placement.slurm.cpus_per_task", 4)),
    ),
    Case(
        "cpu-affinity",
        "a binding to 8 CPUs instead of 16, OMP_NUM_THREADS unset: 8 threads instead of 16",
        "env.threads",
        affinity("0-7", 8),
        a=affinity("0-15", 16),
    ),
    Case(
        "slurm-bookkeeping",
        "another job id, node and requeue count",
        "noise.placement",
        edits(
            ("placement.slurm.job_id", "5151"),
            ("placement.slurm.node_name", "train-node-03"),
            ("placement.slurm.restart_count", 2),
        ),
    ),
    # what the numerics probe measured: both sides hold the real CPU probe of PROBE
    Case(
        "probe-unexplained",
        "fp32 matmul computes other bits on the CPU and no recorded difference explains it",
        "probe.numerics",
        edits(("probe.devices.cpu.ops.matmul_fp32_square.digest", "0" * 16)),
        a=with_probe,
    ),
    Case(
        "probe-confirms-threads",
        "another thread count, and the probe's multi-threaded reduction computes other bits",
        "env.threads",
        edits(
            ("torch.num_threads", 16),
            ("probe.devices.cpu.threads", 16),
            ("probe.devices.cpu.ops.sum_threads_n.digest", "0" * 16),
        ),
        a=with_probe,
    ),
    Case(
        "probe-bookkeeping",
        "the probe took longer",
        "noise.probe",
        edits(("probe.elapsed_ms", 912.0), ("probe.devices.cpu.elapsed_ms", 910.0)),
        a=with_probe,
    ),
    Case(
        "probe-other-suite",
        "a probe of another suite version: its digests cannot be compared",
        "probe.incomparable",
        edits(("probe.suite", "envsnap-probe/0")),
        a=with_probe,
    ),
    Case(
        "eval-loader-drop-last",
        "the evaluation loader drops its last partial batch",
        "semantics.eval-loader",
        edits(("parallel.dataloaders.eval.drop_last", True)),
    ),
    Case(
        "xla-flags",
        "XLA's deterministic-ops flag removed",
        "env.framework-numerics",
        edits(("env.variables.XLA_FLAGS", DELETE)),
    ),
    Case(
        "torch-build-onednn",
        "the same torch release built against another oneDNN",
        "stack.torch-build",
        edits(("torch.build.onednn", "3.7.1")),
    ),
)
