"""Typed models of the manifest's sections, one module per section."""

from envsnap.sections.base import Model, Section
from envsnap.sections.code import CodeSection
from envsnap.sections.cuda_stack import CudaStackSection
from envsnap.sections.data import DataSection
from envsnap.sections.env import EnvSection
from envsnap.sections.gpu import GpuSection
from envsnap.sections.packages import PackagesSection
from envsnap.sections.parallel import ParallelSection
from envsnap.sections.precision import PrecisionSection
from envsnap.sections.python import PythonSection
from envsnap.sections.seeds import SeedsSection
from envsnap.sections.system import SystemSection
from envsnap.sections.templates import TemplatesSection
from envsnap.sections.tokenizer import TokenizerSection
from envsnap.sections.torch_runtime import TorchSection

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
    "PrecisionSection",
    "PythonSection",
    "Section",
    "SeedsSection",
    "SystemSection",
    "TemplatesSection",
    "TokenizerSection",
    "TorchSection",
]
