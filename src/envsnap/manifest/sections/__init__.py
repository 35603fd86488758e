"""Typed models of the manifest's sections, one module per section."""

from envsnap.manifest.sections.base import Model, Section
from envsnap.manifest.sections.code import CodeSection
from envsnap.manifest.sections.cuda_stack import CudaStackSection
from envsnap.manifest.sections.data import DataSection
from envsnap.manifest.sections.env import EnvSection
from envsnap.manifest.sections.gpu import GpuSection
from envsnap.manifest.sections.packages import PackagesSection
from envsnap.manifest.sections.parallel import ParallelSection
from envsnap.manifest.sections.placement import PlacementSection
from envsnap.manifest.sections.precision import PrecisionSection
from envsnap.manifest.sections.probe import ProbeSection
from envsnap.manifest.sections.python import PythonSection
from envsnap.manifest.sections.seeds import SeedsSection
from envsnap.manifest.sections.system import SystemSection
from envsnap.manifest.sections.templates import TemplatesSection
from envsnap.manifest.sections.tokenizer import TokenizerSection
from envsnap.manifest.sections.torch_runtime import TorchSection

# Manifest field name -> section model. Order is the order sections appear in `envsnap show`.
SECTION_MODELS: dict[str, type[Section]] = {
    "code": CodeSection,
    "python": PythonSection,
    "packages": PackagesSection,
    "system": SystemSection,
    "env": EnvSection,
    "gpu": GpuSection,
    "cuda_stack": CudaStackSection,
    "torch": TorchSection,
    "precision": PrecisionSection,
    "parallel": ParallelSection,
    "data": DataSection,
    "tokenizer": TokenizerSection,
    "templates": TemplatesSection,
    "seeds": SeedsSection,
    "placement": PlacementSection,
    "probe": ProbeSection,
}

__all__ = [
    "SECTION_MODELS",
    "CodeSection",
    "CudaStackSection",
    "DataSection",
    "EnvSection",
    "GpuSection",
    "Model",
    "PackagesSection",
    "ParallelSection",
    "PlacementSection",
    "PrecisionSection",
    "ProbeSection",
    "PythonSection",
    "Section",
    "SeedsSection",
    "SystemSection",
    "TemplatesSection",
    "TokenizerSection",
    "TorchSection",
]
