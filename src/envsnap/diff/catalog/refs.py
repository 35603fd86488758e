"""Reference prefixes and path prefixes shared by the catalog modules."""

NUM = "envsnap numerics catalog"  # prefix of references into the project's numerics notes
CUDA_MD = "pytorch/pytorch:docs/source/notes/cuda.md"
RANDOMNESS_MD = "pytorch/pytorch:docs/source/notes/randomness.md"
ACCURACY_MD = "pytorch/pytorch:docs/source/notes/numerical_accuracy.md"
CUDNN_REPRO = "https://docs.nvidia.com/deeplearning/cudnn/latest/developer/misc.html"
CUBLAS_REPRO = "https://docs.nvidia.com/cuda/cublas/ (Results reproducibility)"
PKG = "packages.installed"
ENV = "env.variables"
