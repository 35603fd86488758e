"""What each NGC PyTorch container release ships, where a public source states it.

The differ reads this when a record names an image's release (NVIDIA_PYTORCH_VERSION) but not
the library versions the image ships: what it takes from here is marked inferred, with the
row's source. A field no source states is None, and a release no source covers has no row;
nothing here is interpolated from neighbouring releases.

Sources:
- NVIDIA "PyTorch Release Notes", one page per release ("Contents of the PyTorch container",
  "Driver Requirements", "Key Features"): https://docs.nvidia.com/deeplearning/frameworks/
  pytorch-release-notes/ (rel_19-03.html, rel_19-06.html, rel_19-10.html, rel_20-12.html,
  rel-25-12.html).
- NVIDIA Triton Inference Server "Release Compatibility Matrix": the torch version of each
  trtllm-python-py3 container carries the NGC PyTorch release it was taken from as its
  `.nvYY.MM` suffix (2.5.0a0+e000cf0ad9.nv24.10 is NGC PyTorch 24.10's build):
  https://docs.nvidia.com/deeplearning/triton-inference-server/user-guide/docs/introduction/compatibility.html
  and its 25.30 and 25.40 archives. Those rows state the torch build only.
- The 24.03 image's build history (NVIDIA_PYTORCH_VERSION=24.03 with
  PYTORCH_BUILD_VERSION=2.3.0a0+40ec155e58) as quoted in a public issue; it agrees with the
  Triton matrix.
- NVIDIA TensorRT-LLM's docker/common/install_tensorrt.sh, which pins the cuDNN, cuBLAS and
  NCCL pre-installed in the NGC PyTorch release it builds on (see `_trtllm` below).
- Where no NVIDIA page states a release's libraries, a public file that prints the image's own
  environment: for 23.10, a vLLM environment report run in nvcr.io/nvidia/pytorch:23.10-py3
  (NVIDIA_PYTORCH_VERSION=23.10, CUDA_VERSION, CUBLAS_VERSION, CUDNN_VERSION, NCCL_VERSION,
  PYTORCH_BUILD_VERSION, OS and Python):
  https://github.com/dstackai/benchmarks/blob/6627373196d4128f7e042da16e0efb40e0e27919/nvidia/8xh100/README.md
  For 25.11, an environment check run in an image built FROM nvcr.io/nvidia/pytorch:25.11-py3
  that keeps CUDA, TensorRT and PyTorch from it (its Dockerfile:
  https://github.com/Parker-Lyu/Learn-TensorRT/blob/002b7e718dc6c52903002ebc6143ef8e01db1a62/docker/Dockerfile.dev
  ), printing NVIDIA_PYTORCH_VERSION=25.11, CUDA_VERSION, torch.__version__, TensorRT, the
  os-release and Python:
  https://github.com/Parker-Lyu/Learn-TensorRT/blob/af98d328b1bc7795ef263b6d4577fbc962213b76/reports/10a_end_to_end_validation.md
  Such rows keep the image's own spelling of each version (CUDA_VERSION=12.2.2.009), which is
  what a record captured inside the image states; the torch build drops the `.nvYY.MM` suffix
  as the Triton-sourced rows do. For 24.10's Python, an environment record written inside the
  image (`_EML_2410`).

A row names its main source; a field another source states names that source in `cited`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

_NOTES = "https://docs.nvidia.com/deeplearning/frameworks/pytorch-release-notes"
_TRITON = (
    "https://docs.nvidia.com/deeplearning/triton-inference-server/user-guide/docs/"
    "introduction/compatibility.html"
)
_TRITON_2530 = (
    "https://docs.nvidia.com/deeplearning/triton-inference-server/archives/"
    "triton-inference-server-2530/user-guide/docs/introduction/compatibility.html"
)
_TRITON_2540 = (
    "https://docs.nvidia.com/deeplearning/triton-inference-server/archives/"
    "triton-inference-server-2540/user-guide/docs/introduction/compatibility.html"
)
_DSTACK_2310 = (
    "https://github.com/dstackai/benchmarks/blob/6627373196d4128f7e042da16e0efb40e0e27919/"
    "nvidia/8xh100/README.md"
)
_LEARN_TRT_2511 = (
    "https://github.com/Parker-Lyu/Learn-TensorRT/blob/af98d328b1bc7795ef263b6d4577fbc962213b76/"
    "reports/10a_end_to_end_validation.md"
)

# NVIDIA's TensorRT-LLM build script pins the cuDNN, cuBLAS and NCCL "pre-installed" in the NGC
# PyTorch release it builds on, naming that release's notes in its header. Each row cites one
# copy of the file at a pinned commit (the upstream repository or a fork of it). Taken from it:
# the CUDA release (its comment), and each library the script installs as the image's own; a
# library it says it installs "instead" of the image's is taken only where the comment names
# the image's version, and left empty where it does not.
_TRTLLM_PATH = "docker/common/install_tensorrt.sh"


def _trtllm(repository: str, commit: str) -> str:
    return f"https://github.com/{repository}/blob/{commit}/{_TRTLLM_PATH}"


_TRTLLM_2402 = _trtllm("WhiteD2125/TensorRT-LLM", "6ad7cf1bcc08e31990c62ba929a8e84f35667654")
_TRTLLM_2403 = _trtllm(
    "todalavibra/NVIDIA-TensorRT-LLM", "34e05d6763493d74dbe520fd116e1faa8e5b658a"
)
_TRTLLM_2410 = _trtllm("simon-zy/TensorRT-LLM", "4313ef2da3c590cf781f540b0a157be8b5405794")
_TRTLLM_2501 = _trtllm("arthurrasmusson/TensorRT-LLM", "6d966dc129b5e14507f3fb9e4a11c656d4a2419b")
_TRTLLM_2503 = _trtllm("NVIDIA/TensorRT-LLM", "0237cabd8564e20bf7790db5df17bb631412011c")
_TRTLLM_2504 = _trtllm("VALLIS-NERIA/TensorRT-LLM", "ac9b00c4f8e3ac8218335be98cc2ace8ee9b2833")
_TRTLLM_2505 = _trtllm("deepinfra/TensorRT-LLM", "18a581c46c09df7a424bd72edbfb36d3540aeb92")
_TRTLLM_2506 = _trtllm("ZhanruiSunCh/TensorRT-LLM", "04ab949ba834ae92f87999174b0eade6fc353bbc")
_TRTLLM_2512 = _trtllm("kev-bi/TensorRT-LLM", "9dcfc561cd5f83d6fb09097e12385af6dac40acf")
# An environment record written inside nvcr.io/nvidia/pytorch:24.10-py3: its torch carries the
# `.nv24.10` suffix, with the Python it ran.
_EML_2410 = (
    "https://github.com/AI-Safeter/eml-torch/blob/462246ac050794bee73cf0265800153037b38d46/"
    "research/environment.json"
)


@dataclass(frozen=True)
class NgcRelease:
    """One NGC PyTorch release; None: no source states that field.

    `source` states every field that `cited` does not name; `cited` holds (field, source) for
    fields a second source states (a row can take its torch build from one page and its
    libraries from another).
    """

    release: str
    source: str
    torch: str | None = None
    cuda: str | None = None
    cudnn: str | None = None
    cublas: str | None = None
    nccl: str | None = None
    tensorrt: str | None = None
    ubuntu: str | None = None
    python: str | None = None
    cited: tuple[tuple[str, str], ...] = ()

    def libraries(self) -> dict[str, str]:
        """Field -> value for every stated library (not the release, its sources or the OS)."""
        skipped = {"release", "source", "cited"}
        return {
            f.name: value
            for f in fields(self)
            if f.name not in skipped and (value := getattr(self, f.name)) is not None
        }

    def source_of(self, name: str) -> str:
        """The source that states field `name`."""
        return dict(self.cited).get(name, self.source)

    def sources(self) -> tuple[str, ...]:
        """Every source the row cites, the row's own first."""
        return tuple(dict.fromkeys((self.source, *(source for _, source in self.cited))))


def _cite(source: str, *names: str) -> tuple[tuple[str, str], ...]:
    return tuple((name, source) for name in names)


NGC_PYTORCH_RELEASES: tuple[NgcRelease, ...] = (
    NgcRelease(
        "19.03",
        f"{_NOTES}/rel_19-03.html",
        cuda="10.1.105",
        cublas="10.1.105",
        cudnn="7.5.0",
        nccl="2.4.3",
        tensorrt="5.1.2",
        ubuntu="16.04",
        python="3.6",
    ),
    NgcRelease(
        "19.06",
        f"{_NOTES}/rel_19-06.html",
        cuda="10.1.168",
        cublas="10.2.0.168",
        cudnn="7.6.0",
        nccl="2.4.7",
        tensorrt="5.1.5",
        ubuntu="16.04",
        python="3.6",
    ),
    NgcRelease(
        "19.10",
        f"{_NOTES}/rel_19-10.html",
        cuda="10.1.243",
        cublas="10.2.1.243",
        cudnn="7.6.4",
        nccl="2.4.8",
        tensorrt="6.0.1",
        ubuntu="18.04",
        python="3.6",
    ),
    NgcRelease(
        "20.12",
        f"{_NOTES}/rel_20-12.html",
        cuda="11.1.1",
        cublas="11.3.0",
        cudnn="8.0.5",
        nccl="2.8.3",
        ubuntu="20.04",
        python="3.8",
    ),
    NgcRelease(
        "23.10",
        _DSTACK_2310,
        torch="2.1.0a0+32f93b1",
        cuda="12.2.2.009",
        cudnn="8.9.5.29",
        cublas="12.2.5.6",
        nccl="2.19.3",
        ubuntu="22.04",
        python="3.10",
    ),
    NgcRelease("24.02", _TRTLLM_2402, cuda="12.3", cublas="12.3.4.1"),
    NgcRelease(
        "24.03",
        _TRITON_2530,
        torch="2.3.0a0+40ec155e58",
        cuda="12.4.0",
        cublas="12.4.2.65",
        nccl="2.20.5",
        cited=_cite(_TRTLLM_2403, "cuda", "cublas", "nccl"),
    ),
    NgcRelease("24.05", _TRITON_2530, torch="2.4.0a0+07cecf4168"),
    NgcRelease("24.07", _TRITON_2530, torch="2.4.0a0+3bcc3cddb5"),
    NgcRelease(
        "24.10",
        _TRITON_2530,
        torch="2.5.0a0+e000cf0ad9",
        cuda="12.6.2",
        cudnn="9.5.0.50",
        cublas="12.6.3.3",
        nccl="2.22.3",
        python="3.10.12",
        cited=(*_cite(_TRTLLM_2410, "cuda", "cudnn", "cublas", "nccl"), ("python", _EML_2410)),
    ),
    NgcRelease("24.11", _TRITON_2540, torch="2.6.0a0+df5bbc09d1"),
    NgcRelease(
        "25.01",
        _TRITON_2540,
        torch="2.6.0a0+ecf3bae40a",
        cuda="12.8.0",
        cudnn="9.7.0.66",
        cublas="12.8.3.14",
        nccl="2.25.1",
        cited=_cite(_TRTLLM_2501, "cuda", "cudnn", "cublas", "nccl"),
    ),
    NgcRelease(
        "25.03", _TRTLLM_2503, cuda="12.8.1", cudnn="9.8.0.87", cublas="12.8.4.1", nccl="2.25.1"
    ),
    NgcRelease(
        "25.04",
        _TRITON,
        torch="2.7.0a0+79aa17489c",
        cuda="12.9.0",
        cudnn="9.9.0.52",
        cublas="12.9.0.2",
        nccl="2.26.3",
        cited=_cite(_TRTLLM_2504, "cuda", "cudnn", "cublas", "nccl"),
    ),
    NgcRelease(
        "25.05",
        _TRITON,
        torch="2.8.0a0+5228986c39",
        cuda="12.9.0",
        cudnn="9.10.1.4",
        cited=_cite(_TRTLLM_2505, "cuda", "cudnn"),
    ),
    NgcRelease(
        "25.06",
        _TRITON,
        torch="2.8.0a0+5228986c39",
        cuda="12.9.1",
        cudnn="9.10.2.21",
        cublas="12.9.1.4",
        nccl="2.27.3",
        cited=_cite(_TRTLLM_2506, "cuda", "cudnn", "cublas", "nccl"),
    ),
    NgcRelease("25.10", _TRITON, torch="2.9.0a0+145a3a7bda"),
    NgcRelease(
        "25.11",
        _LEARN_TRT_2511,
        torch="2.10.0a0+b558c986e8",
        cuda="13.0.2.006",
        tensorrt="10.14.1.48",
        ubuntu="24.04",
        python="3.12",
    ),
    NgcRelease(
        "25.12",
        f"{_NOTES}/rel-25-12.html",
        torch="2.10.0a0+b4e4ee81d3",
        cuda="13.1.0",
        cudnn="9.17.0.29",
        cublas="13.2.0.9",
        nccl="2.28.9",
        python="3.12",
        cited=_cite(_TRTLLM_2512, "cudnn", "cublas", "nccl"),
    ),
)

_BY_RELEASE = {row.release: row for row in NGC_PYTORCH_RELEASES}


def ngc_release(release: str | None) -> NgcRelease | None:
    """The row of an NGC PyTorch release ('24.10', or a tag such as '24.10-py3'), or None."""
    if not release:
        return None
    return _BY_RELEASE.get(release.strip().split("-", 1)[0])
