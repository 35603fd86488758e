"""The rule catalog, as data. Severities follow docs/reference numerics entries (cited in refs).

Severity tuples are (bitwise, close, conclusion). The mapping from the numerics catalog's
High/Med/Low/None is: High -> high, Med -> medium, Low/None -> low; `critical` is kept for
differences that change what is optimized (data, batch, loss, hyperparameters) and for known
silent-correctness bug windows; `info` is kept for noise. A path several rules match gets the
most severe one, so the order below only breaks exact ties (and orders equal-rank findings).
"""

from __future__ import annotations

from envsnap.diff.rules import Rule

NUM = "envsnap numerics catalog"  # prefix of references into the project's numerics notes
CUDA_MD = "pytorch/pytorch:docs/source/notes/cuda.md"
RANDOMNESS_MD = "pytorch/pytorch:docs/source/notes/randomness.md"
ACCURACY_MD = "pytorch/pytorch:docs/source/notes/numerical_accuracy.md"
CUDNN_REPRO = "https://docs.nvidia.com/deeplearning/cudnn/latest/developer/misc.html"
CUBLAS_REPRO = "https://docs.nvidia.com/cuda/cublas/ (Results reproducibility)"

PKG = "packages.installed"
ENV = "env.variables"

CATALOG: tuple[Rule, ...] = (
    # ---- derived rules: they read both manifests at once (see derived.py) -----------------
    Rule(
        id="semantics.global-batch",
        match=("parallel.**",),
        category="semantics",
        severity=("critical", "critical", "critical"),
        title="global batch changed",
        why="micro-batch x data-parallel size x accumulation steps defines the optimization "
        "problem; a different product changes results unless LR and schedule are rescaled.",
        fix="Keep the computed global batch (and the LR schedule) equal, or compare across "
        "seeds as different experiments.",
        refs=(f"{NUM} F1", "https://www.deepspeed.ai/docs/config-json/"),
        derived=True,
    ),
    Rule(
        id="semantics.batch-layout",
        match=("parallel.**",),
        category="semantics",
        severity=("high", "high", "medium"),
        title="same global batch reached with a different layout",
        why="trading data parallelism for accumulation keeps the product but changes summation "
        "order, per-micro-batch statistics and, with mean-reduced losses, the weighting.",
        fix="Keep the layout for bitwise or close comparisons; for conclusions compare "
        "distributions across seeds.",
        refs=(f"{NUM} F1", f"{NUM} E6", "torch/utils/data/distributed.py"),
        derived=True,
    ),
    Rule(
        id="bug.transformers-ga-loss",
        match=(f"{PKG}.transformers.version", "parallel.**"),
        category="semantics",
        severity=("critical", "critical", "critical"),
        title="transformers < 4.46 with gradient accumulation on one side only",
        why="before 4.46 the Trainer averaged per-micro-batch mean losses instead of dividing "
        "by all target tokens of the accumulation window, which changes the objective.",
        fix="Use transformers >= 4.46 on both sides, or accumulation 1, and normalise by total "
        "target tokens.",
        refs=(
            f"{NUM} F2",
            "https://huggingface.co/blog/gradient_accumulation",
            "huggingface/transformers#34191",
        ),
        derived=True,
    ),
    Rule(
        id="bug.torch-2.5.0-cudnn-sdpa-h100",
        match=(f"{PKG}.torch.version", "gpu.devices.*.compute_capability"),
        category="algorithm",
        severity=("high", "high", "critical"),
        title="torch 2.5.0 on an H100-class GPU on one side only (cuDNN SDPA first)",
        why="torch 2.5.0 preferred cuDNN attention on sm90, which produced NaNs and loss "
        "explosions; 2.5.1 made it opt-in.",
        fix="Avoid torch 2.5.0 on Hopper, or disable cuDNN SDPA (sdpa_kernel / "
        "torch.backends.cuda.enable_cudnn_sdp(False)).",
        refs=(f"{NUM} B6", "pytorch/pytorch#138522", "pytorch/pytorch#139298"),
        derived=True,
    ),
    Rule(
        id="bug.tokenizers-0.19.0-llama3",
        match=(f"{PKG}.tokenizers.version", "tokenizer.**"),
        category="data",
        severity=("critical", "critical", "high"),
        title="tokenizers 0.19.0 with a Llama-3 tokenizer on one side only",
        why="tokenizers 0.19.0 -> 0.19.1 changed Llama-3 merges: the same text gets different "
        "token ids, so training and evaluation inputs differ.",
        fix="Use tokenizers >= 0.19.1 for Llama-3, and hash the tokenized data.",
        refs=(f"{NUM} G5", "huggingface/tokenizers#1512"),
        derived=True,
    ),
    Rule(
        id="precision.tf32-arch",
        match=("gpu.devices.*.arch", "torch.effective.*.tf32"),
        category="precision",
        severity=("high", "high", "medium"),
        title="GPU architecture changed while fp32 math may run as TF32",
        why="TF32 keeps 10 mantissa bits (A100 10240^2 matmul: 2.2e-3 relative error vs "
        "3.9e-5 in fp32) and different architectures run different TF32 kernels, so errors "
        "differ by orders of magnitude more than ULP reordering.",
        fix="Pin fp32 precision explicitly (torch.backends.cuda.matmul.fp32_precision='ieee' "
        "or set_float32_matmul_precision('highest')) when comparing across GPUs.",
        refs=(f"{NUM} A1", f"{NUM} B1", CUDA_MD),
        derived=True,
    ),
    Rule(
        id="precision.tf32-effective",
        match=("torch.effective.*.tf32",),
        category="precision",
        severity=("high", "high", "low"),
        title="effective TF32 state of fp32 math changed",
        why="whether fp32 matmuls/convolutions actually run on TF32 tensor cores (flags, "
        "overrides and GPU capability combined) changes error by orders of magnitude.",
        fix="Set fp32 precision explicitly in code and unset NVIDIA_TF32_OVERRIDE / "
        "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE in the launcher.",
        refs=(f"{NUM} B1", f"{NUM} B2", f"{NUM} B4", CUDA_MD),
    ),
    Rule(
        id="algo.determinism-mismatch",
        match=("torch.deterministic.algorithms", "torch.cudnn.*", "seeds.level"),
        category="randomness",
        severity=("high", "low", "low"),
        title="deterministic settings differ or are unknown on one side",
        why="if either run allowed nondeterministic kernels (cudnn.benchmark, atomics), even "
        "identical conditions differ bitwise, so a bitwise comparison is uninformative here.",
        fix="Run both sides with use_deterministic_algorithms(True), cudnn.deterministic=True, "
        "cudnn.benchmark=False and CUBLAS_WORKSPACE_CONFIG set in the launcher.",
        refs=(f"{NUM} C1", f"{NUM} C2", f"{NUM} C3", RANDOMNESS_MD),
        derived=True,
    ),
    Rule(
        id="flip.torch-1.12-tf32",
        match=(f"{PKG}.torch.version",),
        category="precision",
        severity=("high", "high", "low"),
        title="torch crossed 1.12: matmul TF32 default flipped off",
        why="allow_tf32 for CUDA matmuls defaulted to True in 1.7-1.11 and False from 1.12.",
        fix="Set torch.backends.cuda.matmul fp32 precision explicitly on both sides.",
        refs=(f"{NUM} B1", CUDA_MD, "pytorch/pytorch#76509"),
        derived=True,
    ),
    Rule(
        id="flip.torch-2.0-foreach",
        match=(f"{PKG}.torch.version",),
        category="algorithm",
        severity=("high", "low", "low"),
        title="torch crossed 2.0: foreach optimizers and the cuDNN v8 API became default",
        why="optimizers default to the foreach implementation on CUDA and cuDNN picks "
        "algorithms through its v8 API, both changing operation order.",
        fix="Set optimizer foreach/fused explicitly and record TORCH_CUDNN_V8_API_DISABLED.",
        refs=(f"{NUM} B10", f"{NUM} C7", "pytorch/pytorch#92306", "pytorch/pytorch#91117"),
        derived=True,
    ),
    Rule(
        id="flip.torch-2.5-sdpa",
        match=(f"{PKG}.torch.version",),
        category="algorithm",
        severity=("high", "medium", "medium"),
        title="torch crossed 2.5: SDPA math backend upcasts, cuDNN SDPA priority changed",
        why="the SDPA math backend accumulates fp16/bf16 in fp32 from about 2.5, and 2.5.0 "
        "briefly preferred cuDNN attention on H100.",
        fix="Pin the attention backend with sdpa_kernel and record attn_implementation.",
        refs=(f"{NUM} B6", "pytorch/pytorch#128922", "pytorch/pytorch#138522"),
        derived=True,
    ),
    Rule(
        id="flip.torch-2.9-fp32-precision",
        match=(f"{PKG}.torch.version",),
        category="precision",
        severity=("high", "medium", "low"),
        title="torch crossed 2.9: fp32_precision API replaces allow_tf32",
        why="from 2.9 per-backend fp32_precision settings decide TF32; mixing them with the "
        "legacy allow_tf32 flags is not supported, so the same script can resolve differently.",
        fix="Use only the fp32_precision API on torch >= 2.9 and assert the values at start.",
        refs=(f"{NUM} B3", CUDA_MD),
        derived=True,
    ),
    Rule(
        id="flip.transformers-4.46-ga-loss",
        match=(f"{PKG}.transformers.version",),
        category="semantics",
        severity=("high", "high", "medium"),
        title="transformers crossed 4.46: gradient-accumulation loss normalisation fixed",
        why="4.46 divides by all target tokens of the accumulation window; older releases "
        "averaged micro-batch means (matters whenever accumulation > 1).",
        fix="Pin transformers; check gradient_accumulation_steps on both sides.",
        refs=(f"{NUM} F2", "https://huggingface.co/blog/gradient_accumulation"),
        derived=True,
    ),
    Rule(
        id="flip.numpy-2.0-nep50",
        match=(f"{PKG}.numpy.version",),
        category="precision",
        severity=("high", "medium", "low"),
        title="numpy crossed 2.0: NEP 50 scalar promotion",
        why="np.float32(3) + 3.0 is float32 from numpy 2.0 (float64 before), so mixed scalar "
        "arithmetic in preprocessing runs at lower precision.",
        fix="Pin numpy and use explicit dtypes in preprocessing.",
        refs=(f"{NUM} G4", "https://numpy.org/devdocs/numpy_2_0_migration_guide.html"),
        derived=True,
    ),
    Rule(
        id="flip.numpy-1.25-argsort",
        match=(f"{PKG}.numpy.version",),
        category="algorithm",
        severity=("high", "low", "low"),
        title="numpy crossed 1.25: AVX-512 argsort changes tie order",
        why="the SIMD argsort returns ties in a different order on different CPUs and releases.",
        fix="Use kind='stable' sorts in data pipelines.",
        refs=(f"{NUM} G4", "numpy/numpy#24064"),
        derived=True,
    ),
    Rule(
        id="flip.tokenizers-0.19.1",
        match=(f"{PKG}.tokenizers.version",),
        category="data",
        severity=("high", "high", "medium"),
        title="tokenizers crossed 0.19.1: Llama-3 merges changed",
        why="the same text encodes to different token ids for Llama-3 tokenizers.",
        fix="Pin tokenizers and hash the tokenized dataset.",
        refs=(f"{NUM} G5", "huggingface/tokenizers#1512"),
        derived=True,
    ),
    # ---- semantics and data ---------------------------------------------------------------
    Rule(
        id="semantics.loss-normalization",
        match=("**.*loss_norm*", "**.*loss_reduction*"),
        category="semantics",
        severity=("critical", "critical", "critical"),
        title="loss normalisation changed",
        why="per-sample vs per-token normalisation weights sequences differently (means 0.2 "
        "and 1.0 over 10 and 30 tokens give 0.6 vs 0.8): a different objective.",
        fix="Normalise by total target tokens across the accumulation window and ranks on both "
        "sides.",
        refs=(f"{NUM} F2", "https://huggingface.co/blog/gradient_accumulation"),
    ),
    Rule(
        id="semantics.batch",
        match=(
            "parallel.**.*batch*",
            "parallel.**.*accum*",
            "parallel.**.drop_last",
            "parallel.**.*tail*",
        ),
        category="semantics",
        severity=("high", "high", "medium"),
        title="batch composition changed",
        why="micro-batch, accumulation steps, drop_last and tail handling define which samples "
        "form each update and how they are weighted.",
        fix="Diff the computed global batch and the LR schedule, not only the knobs.",
        refs=(f"{NUM} F1", f"{NUM} F3", "https://www.deepspeed.ai/docs/config-json/"),
    ),
    Rule(
        id="semantics.hyperparameters",
        match=(
            "precision.optimizer.class_name",
            "precision.optimizer.param_groups.*",
            "precision.optimizer.param_groups.*.{lr,initial_lr,betas,momentum,eps,weight_decay}",
            "precision.optimizer.param_groups.*.{amsgrad,nesterov,dampening,maximize,alpha,rho}",
            "precision.scheduler",
            "precision.scheduler.**",
        ),
        category="semantics",
        severity=("critical", "critical", "high"),
        title="optimizer or schedule changed",
        why="learning rate, betas, weight decay, optimizer class and schedule define the "
        "optimization itself.",
        fix="Use identical optimizer and scheduler settings, or treat the runs as different "
        "experiments.",
        refs=(f"{NUM} F1", f"{NUM} B8"),
    ),
    Rule(
        id="semantics.model",
        match=(
            "precision.{model_class,trainable_elements}",
            "precision.optimizer.param_groups.*.{num_tensors,num_elements}",
        ),
        category="semantics",
        severity=("critical", "critical", "high"),
        title="model changed",
        why="a different model class or number of trainable elements is a different model.",
        fix="Compare runs of the same model and freezing policy.",
        refs=(f"{NUM} F1",),
    ),
    Rule(
        id="data.content",
        match=("data.**",),
        category="data",
        severity=("critical", "critical", "critical"),
        title="training data changed",
        why="different data content or order changes what is learned; it can flip conclusions.",
        fix="Pin the dataset version and compare runs on identical data digests.",
        refs=(f"{NUM} F3", f"{NUM} F4", "https://dvc.org/doc/command-reference/diff"),
    ),
    Rule(
        id="data.tokenizer",
        match=("tokenizer.**",),
        category="data",
        severity=("critical", "critical", "high"),
        title="tokenizer changed",
        why="different tokenizer files or options map the same text to different token ids, "
        "so training and evaluation inputs differ.",
        fix="Pin the tokenizer files and libraries, and hash the tokenized data.",
        refs=(f"{NUM} G5", "huggingface/transformers#24565", "huggingface/tokenizers#1512"),
    ),
    Rule(
        id="data.template",
        match=("templates.**",),
        category="data",
        severity=("critical", "critical", "high"),
        title="prompt or chat template changed",
        why="the template decides the exact text (and so the tokens) the model is trained or "
        "evaluated on.",
        fix="Version templates with the code and compare runs on identical template digests.",
        refs=(f"{NUM} G5",),
    ),
    Rule(
        id="semantics.parallel",
        match=(
            "parallel.{world_size,local_world_size,node_count,strategy,zero_stage,backend}",
            "parallel.{dp_size,tp_size,pp_size,cp_size,ep_size}",
            "parallel.other.**",
            f"{ENV}.{{WORLD_SIZE,LOCAL_WORLD_SIZE,SLURM_NTASKS,SLURM_NNODES}}",
        ),
        category="semantics",
        severity=("high", "medium", "medium"),
        title="parallel layout changed",
        why="world size and DP/TP/PP/CP/EP degrees change reduction order, per-rank data "
        "assignment and RNG streams; numerics are not expected to match across layouts.",
        fix="Keep the layout for bitwise/close comparisons; compare distributions otherwise.",
        refs=(f"{NUM} E6", "torch/utils/data/distributed.py"),
    ),
    Rule(
        id="randomness.data-order",
        match=(
            "parallel.dataloader.sampler",
            "parallel.dataloader.sampler.{class_name,shuffle,seed,epoch,num_replicas}",
            "parallel.dataloader.sampler.{generator_seed,replacement}",
            "parallel.dataloader.{num_workers,generator_seed,worker_init_fn,persistent_workers}",
        ),
        category="randomness",
        severity=("high", "high", "low"),
        title="data order or worker seeding changed",
        why="the sampler seed, shuffle, epoch and number of workers decide which sample each "
        "step sees and which RNG stream each augmentation uses.",
        fix="Seed the sampler and a DataLoader generator, call set_epoch, keep num_workers fixed.",
        refs=(f"{NUM} F4", f"{NUM} G3", "torch/utils/data/_utils/worker.py"),
    ),
    # ---- precision ------------------------------------------------------------------------
    Rule(
        id="precision.amp",
        match=(
            "precision.amp_dtype",
            "precision.autocast.**",
            "precision.matmul_input_precision",
            "precision.accumulation_dtype",
        ),
        category="precision",
        severity=("high", "high", "medium"),
        title="mixed-precision (autocast) dtype changed",
        why="fp16 (10 mantissa bits, narrow range, needs loss scaling) and bf16 (7 bits) round "
        "every GEMM differently and overflow differently.",
        fix="Never compare fp16 and bf16 runs as the same configuration; pin the AMP dtype.",
        refs=(f"{NUM} B7", "https://docs.pytorch.org/docs/stable/amp.html"),
    ),
    Rule(
        id="precision.dtypes",
        match=(
            "precision.{params,buffers,grads}.**",
            "precision.optimizer.state_dtypes.**",
            "precision.{grad_dtype,optimizer_state_dtype,master_weights_dtype}",
            "precision.fsdp_*",
            "precision.fp8_recipe",
            "torch.default_dtype",
        ),
        category="precision",
        severity=("high", "high", "medium"),
        title="storage, gradient or optimizer-state dtype changed",
        why="low-precision gradients, master weights or optimizer state (and FSDP reduce_dtype) "
        "change accuracy materially.",
        fix="Record and pin param/reduce/buffer dtypes; prefer fp32 reduction for comparisons.",
        refs=(f"{NUM} B9", "allenai/OLMo commit 70a3f4c"),
    ),
    Rule(
        id="precision.grad-scaler",
        match=("precision.scaler", "precision.scaler.**"),
        category="precision",
        severity=("high", "medium", "low"),
        title="GradScaler configuration changed",
        why="loss scaling decides which steps are skipped on overflow; skipped steps shift the "
        "trajectory and the LR schedule.",
        fix="Pin the scaler settings, checkpoint its state and log skipped steps.",
        refs=(f"{NUM} B8", "torch/amp/grad_scaler.py (GradScaler.step)"),
    ),
    Rule(
        id="precision.tf32-matmul",
        match=(
            "torch.matmul.allow_tf32",
            "torch.matmul.float32_matmul_precision",
            "torch.fp32_precision.*",
        ),
        category="precision",
        severity=("high", "high", "low"),
        title="fp32 matmul precision setting changed",
        why="TF32 matmuls keep 10 mantissa bits (A100: 2.2e-3 vs 3.9e-5 relative error); the "
        "setting only acts on GPUs of compute capability 8.0 or newer.",
        fix="Set fp32 precision explicitly in code and log the effective value.",
        refs=(f"{NUM} B1", f"{NUM} B3", CUDA_MD),
    ),
    Rule(
        id="precision.tf32-conv",
        match=("torch.cudnn.allow_tf32",),
        category="precision",
        severity=("high", "high", "low"),
        title="cuDNN TF32 setting changed",
        why="cuDNN convolutions use TF32 by default on Ampere and newer; toggling it changes "
        "conv numerics.",
        fix="Pin torch.backends.cudnn.allow_tf32 (or cudnn.conv.fp32_precision).",
        refs=(f"{NUM} B2", ACCURACY_MD),
    ),
    Rule(
        id="precision.tf32-override",
        match=(
            f"{ENV}.NVIDIA_TF32_OVERRIDE",
            f"{ENV}.TORCH_ALLOW_TF32_CUBLAS_OVERRIDE",
            "torch.effective.overrides.*",
        ),
        category="precision",
        severity=("high", "high", "low"),
        title="TF32 override variable changed",
        why="these variables switch TF32 on or off inside NVIDIA libraries regardless of "
        "PyTorch's flags (NGC images set TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1).",
        fix="Unset or pin both variables in the launcher.",
        refs=(
            f"{NUM} B4",
            "https://docs.pytorch.org/docs/2.15/cuda_environment_variables.html",
            "Project-MONAI/MONAI#6754",
        ),
    ),
    Rule(
        id="precision.reduced-reduction",
        match=("torch.matmul.allow_*reduc*", "torch.matmul.allow_fp16_accumulation"),
        category="precision",
        severity=("high", "medium", "low"),
        title="reduced-precision GEMM reduction setting changed",
        why="cuBLAS may keep split-K partial sums in fp16/bf16, which changes results and can "
        "produce inf in fp16.",
        fix="Pin the flags explicitly (tuple form pins split-K too).",
        refs=(f"{NUM} B5", ACCURACY_MD),
    ),
    Rule(
        id="precision.capabilities",
        match=("gpu.devices.*.capabilities.*",),
        category="precision",
        severity=("high", "medium", "medium"),
        title="GPU precision capabilities changed",
        why="TF32, native bf16, FP8 and flash attention need specific compute capabilities; a "
        "GPU change can switch latent precision settings on or off.",
        fix="Diff the capability-resolved configuration; pin precision explicitly.",
        refs=(f"{NUM} A1", "https://nvidia.github.io/TransformerEngine/support_matrix.html"),
    ),
    # ---- algorithm selection and determinism ----------------------------------------------
    Rule(
        id="algo.sdpa",
        match=(
            "torch.sdpa.*",
            f"{ENV}.TORCH_CUDNN_SDPA_*",
            f"{ENV}.FLASH_ATTENTION_*",
        ),
        category="algorithm",
        severity=("high", "medium", "medium"),
        title="attention (SDPA) backend selection changed",
        why="flash, mem-efficient, math and cuDNN attention accumulate in different orders; "
        "bitwise agreement across backends is not guaranteed and some had silent bugs.",
        fix="Pin the backend with sdpa_kernel and record attn_implementation.",
        refs=(f"{NUM} B6", RANDOMNESS_MD, "pytorch/pytorch#193893"),
    ),
    Rule(
        id="algo.cudnn-benchmark",
        match=("torch.cudnn.benchmark", "seeds.flags.cudnn_benchmark"),
        category="algorithm",
        severity=("high", "medium", "low"),
        title="cudnn.benchmark changed",
        why="benchmark mode times algorithms and keeps the fastest, which can differ between "
        "runs even on one machine.",
        fix="Set cudnn.benchmark=False for reproducibility comparisons.",
        refs=(f"{NUM} C1", RANDOMNESS_MD),
    ),
    Rule(
        id="algo.cudnn-deterministic",
        match=("torch.cudnn.deterministic", "seeds.flags.cudnn_deterministic"),
        category="algorithm",
        severity=("high", "low", "low"),
        title="cudnn.deterministic changed",
        why="without it cuDNN may pick atomics-based algorithms whose summation order varies "
        "from run to run.",
        fix="Set cudnn.deterministic=True on both sides.",
        refs=(f"{NUM} C2", CUDNN_REPRO),
    ),
    Rule(
        id="algo.deterministic-algorithms",
        match=(
            "torch.deterministic.*",
            "seeds.flags.{deterministic_algorithms,warn_only}",
            "seeds.level",
        ),
        category="algorithm",
        severity=("high", "low", "low"),
        title="deterministic-algorithms mode changed",
        why="with the mode on, ops switch to different (deterministic) implementations, so the "
        "two runs execute different algorithms.",
        fix="Use the same use_deterministic_algorithms mode (warn_only=False) on both sides.",
        refs=(
            f"{NUM} C3",
            "https://docs.pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html",
        ),
    ),
    Rule(
        id="algo.cublas-workspace",
        match=(f"{ENV}.CUBLAS_WORKSPACE_CONFIG", "seeds.flags.cublas_workspace_config"),
        category="algorithm",
        severity=("medium", "low", "low"),
        title="CUBLAS_WORKSPACE_CONFIG changed",
        why="with several streams cuBLAS can choose workspaces nondeterministically; the "
        "variable only acts when set before CUDA initialises.",
        fix="Export CUBLAS_WORKSPACE_CONFIG=:4096:8 in the launcher, before Python starts.",
        refs=(f"{NUM} C4", CUBLAS_REPRO, "pytorch/pytorch#161749"),
    ),
    Rule(
        id="algo.cublaslt",
        match=(
            f"{ENV}.CUBLASLT_*",
            f"{ENV}.TORCH_BLAS_PREFER_*",
            f"{ENV}.TORCH_CUBLAS_*",
            f"{ENV}.DISABLE_ADDMM_CUDA_LT",
        ),
        category="algorithm",
        severity=("high", "medium", "low"),
        title="cuBLAS/cuBLASLt routing or workspace changed",
        why="cuBLASLt heuristics depend on the workspace (split-K) and bias epilogues can add "
        "the bias in low precision.",
        fix="Pin preferred_blas_library and the workspace size, or set DISABLE_ADDMM_CUDA_LT=1.",
        refs=(f"{NUM} C5", "pytorch/pytorch#181944", "pytorch/pytorch#180875"),
    ),
    Rule(
        id="algo.cudnn-api",
        match=(f"{ENV}.TORCH_CUDNN_V8_API_*", "torch.cudnn.enabled"),
        category="algorithm",
        severity=("high", "low", "low"),
        title="cuDNN API generation or use changed",
        why="the v7 and v8 cuDNN APIs (or no cuDNN) pick different algorithms.",
        fix="Treat like a cuDNN version change; record the variables.",
        refs=(f"{NUM} C7", "pytorch/pytorch#91117"),
    ),
    Rule(
        id="algo.nccl-algo",
        match=(f"{ENV}.NCCL_ALGO", f"{ENV}.NCCL_NVLS_ENABLE"),
        category="algorithm",
        severity=("high", "medium", "low"),
        title="NCCL algorithm changed",
        why="ring, tree and NVLS all-reduce sum in different orders; NVLS is not "
        "deterministic between calls.",
        fix="Pin NCCL_ALGO (e.g. Ring, or ^NVLS at least) before the first communicator.",
        refs=(f"{NUM} E1", "NVIDIA/nccl#1497", "pytorch/pytorch#156381"),
    ),
    Rule(
        id="algo.nccl-protocol",
        match=(f"{ENV}.NCCL_PROTO", f"{ENV}.NCCL_*CHANNELS*", f"{ENV}.NCCL_*PLUGIN*"),
        category="algorithm",
        severity=("high", "low", "low"),
        title="NCCL protocol, channels or plugin changed",
        why="channels and tuner plugins change which reduction path each offset takes.",
        fix="Pin NCCL_ALGO/NCCL_PROTO and the channel counts for bitwise comparisons.",
        refs=(f"{NUM} E2", f"{NUM} E3", "NVIDIA/nccl#754", "NVIDIA/nccl#1055"),
    ),
    Rule(
        id="algo.compile",
        match=("torch.compile.**", f"{ENV}.TORCHINDUCTOR_*", f"{ENV}.TORCHDYNAMO_*"),
        category="algorithm",
        severity=("high", "medium", "low"),
        title="torch.compile / Inductor settings changed",
        why="Inductor fuses ops, elides downcasts and autotunes kernels; compiled RNG differs "
        "from eager unless fallback_random is set.",
        fix="Compare compiled with compiled; enable Inductor deterministic mode.",
        refs=(f"{NUM} I1", f"{NUM} I2", "pytorch/pytorch#183761", "pytorch/pytorch#163589"),
    ),
    Rule(
        id="algo.ddp-bucket",
        match=("parallel.ddp_*",),
        category="algorithm",
        severity=("high", "low", "low"),
        title="DDP bucketing changed",
        why="fusing gradients into buckets changes each element's offset in the all-reduce and "
        "so its summation order (bucket_cap_mb 20 -> 21 changed gradient hashes).",
        fix="Pin bucket_cap_mb, the wrap policy and the parameter order.",
        refs=(f"{NUM} E5", "pytorch/pytorch#30509"),
    ),
    Rule(
        id="algo.optimizer-impl",
        match=("precision.optimizer.param_groups.*.{foreach,fused,capturable,differentiable}",),
        category="algorithm",
        severity=("high", "low", "low"),
        title="optimizer implementation (for-loop/foreach/fused) changed",
        why="the implementations order operations differently; fused CPU Adam slightly exceeds "
        "default test tolerances.",
        fix="Set foreach/fused explicitly and record them.",
        refs=(f"{NUM} B10", "pytorch/pytorch#92306", "pytorch/pytorch#123074"),
    ),
    # ---- hardware -------------------------------------------------------------------------
    Rule(
        id="hw.gpu-arch",
        match=("gpu.devices.*.{arch,compute_capability}",),
        category="hardware",
        severity=("high", "medium", "low"),
        title="GPU architecture changed",
        why="different architectures run different kernels; no cuDNN or cuBLAS routine is "
        "bitwise reproducible across architectures.",
        fix="Pin the GPU SKU for bitwise comparisons; across architectures compare with "
        "tolerances and pinned precision flags.",
        refs=(f"{NUM} A1", CUDNN_REPRO, CUBLAS_REPRO, "pytorch/pytorch#150700"),
    ),
    Rule(
        id="hw.gpu-sku",
        match=(
            "gpu.devices.*.{name,sm_count,mig_mode}",
            "gpu.devices.*.mig_devices.**",
            "gpu.devices.*",
            "gpu.device_count",
        ),
        category="hardware",
        severity=("high", "low", "low"),
        title="GPU model, SM count or MIG slice changed",
        why="cuBLAS guarantees bitwise results only on GPUs with the same architecture and the "
        "same number of SMs (H100 SXM 132 vs PCIe 114).",
        fix="Record SM count and MIG profile; require an exact match for bitwise comparisons.",
        refs=(f"{NUM} A2", CUBLAS_REPRO, "NVIDIA/cub#108"),
    ),
    Rule(
        id="hw.topology",
        match=(
            "gpu.links.**",
            "gpu.devices.*.nvlink_active_links",
            "gpu.{visible,cuda_visible_devices,cuda_device_order}",
            "gpu.visible.**",
            f"{ENV}.NCCL_TOPO_FILE",
            f"{ENV}.NCCL_GRAPH_FILE",
            f"{ENV}.CUDA_VISIBLE_DEVICES",
            f"{ENV}.CUDA_DEVICE_ORDER",
        ),
        category="hardware",
        severity=("high", "low", "low"),
        title="GPU topology or rank-to-GPU mapping changed",
        why="ring order follows the physical topology; remapping ranks changes the "
        "communication and summation order.",
        fix="Pin the rank mapping and supply NCCL_TOPO_FILE for cross-run bitwise comparisons.",
        refs=(f"{NUM} E4", "NVIDIA/nccl#23", "NVIDIA/nccl#1461"),
    ),
    Rule(
        id="hw.cpu-isa",
        match=(
            "system.cpu.{isa_flags,model,vendor}",
            "torch.cpu_capability",
            f"{ENV}.{{ATEN_CPU_CAPABILITY,MKL_CBWR,MKL_ENABLE_INSTRUCTIONS}}",
            f"{ENV}.{{ONEDNN_MAX_CPU_ISA,DNNL_MAX_CPU_ISA}}",
        ),
        category="hardware",
        severity=("high", "low", "low"),
        title="CPU model or instruction set changed",
        why="ATen, oneDNN and MKL dispatch kernels by ISA, changing reduction order and "
        "blocking; numpy SIMD sorts return different tie orders.",
        fix="Pin MKL_CBWR / ONEDNN_MAX_CPU_ISA / ATEN_CPU_CAPABILITY to a common ISA and use "
        "stable sorts.",
        refs=(
            f"{NUM} A3",
            "https://oneapi-src.github.io/oneDNN/dev_guide_cpu_dispatcher_control.html",
        ),
    ),
    Rule(
        id="hw.cpu-arch",
        match=("system.cpu.architecture",),
        category="hardware",
        severity=("high", "medium", "low"),
        title="CPU architecture changed",
        why="x86 and ARM builds run different kernels and libraries end to end.",
        fix="Compare runs on the same CPU architecture.",
        refs=(f"{NUM} A3",),
    ),
    Rule(
        id="hw.gpu-settings",
        match=(
            "gpu.devices.*.{memory_total_bytes,ecc_enabled,persistence_mode,compute_mode}",
            "gpu.devices.*.{power_limit_w,app_clock_graphics_mhz,app_clock_memory_mhz}",
            "gpu.devices.*.mig_mode_pending",
        ),
        category="hardware",
        severity=("low", "low", "info"),
        title="GPU memory, clocks or mode changed",
        why="these change speed, not arithmetic, except through timing-based autotuning.",
        fix="No action unless cudnn.benchmark or autotuning is on.",
        refs=(f"{NUM} D2",),
    ),
    # ---- software stack -------------------------------------------------------------------
    Rule(
        id="stack.cuda-build",
        match=(
            f"{PKG}.torch.version",
            "cuda_stack.torch_version",
            "torch.version",
        ),
        when=("local",),
        category="stack",
        severity=("high", "medium", "low"),
        title="torch CUDA build changed (local version tag)",
        why="the same torch release built for another CUDA (+cu118 vs +cu121 vs +cpu) vendors "
        "other cuBLAS, cuDNN and NCCL binaries; bitwise results are not guaranteed across "
        "toolkits.",
        fix="Pin the full wheel tag and every nvidia-* package version.",
        refs=(f"{NUM} D1", CUBLAS_REPRO, "pytorch/pytorch#114952"),
    ),
    Rule(
        id="stack.cuda-toolkit",
        match=(
            "cuda_stack.{torch_build,torch_cuda,torch_hip}",
            "torch.{cuda,hip,cuda_built}",
            f"{PKG}.nvidia-cuda-*.version",
            "cuda_stack.libraries.{cuda_runtime,cuda_nvrtc,nvjitlink}.**",
        ),
        category="stack",
        severity=("high", "medium", "low"),
        title="CUDA toolkit changed",
        why="bitwise reproducibility is not guaranteed across CUDA toolkit versions; the "
        "wheel's CUDA variant changes every vendored library.",
        fix="Pin the CUDA variant of torch and log torch.version.cuda.",
        refs=(f"{NUM} D1", CUBLAS_REPRO),
    ),
    Rule(
        id="stack.cudnn",
        match=(
            "cuda_stack.libraries.cudnn.{version,selected}",
            "cuda_stack.libraries.cudnn.selected.{version,source,package}",
            "torch.cudnn.version",
            f"{PKG}.nvidia-cudnn-*.version",
        ),
        category="stack",
        severity=("high", "medium", "low"),
        title="cuDNN version changed",
        why="cuDNN heuristics and kernels change between releases (9.1 surfaced ~2e-4 "
        "mismatches); reproducibility is promised only within a version.",
        fix="Pin the cuDNN wheel and record torch.backends.cudnn.version() at run time.",
        refs=(f"{NUM} C6", CUDNN_REPRO, "pytorch/pytorch#127984"),
    ),
    Rule(
        id="stack.cublas",
        match=(
            "cuda_stack.libraries.{cublas,cublaslt}.{version,selected}",
            "cuda_stack.libraries.{cublas,cublaslt}.selected.{version,source,package}",
            f"{PKG}.nvidia-cublas-*.version",
        ),
        category="stack",
        severity=("high", "medium", "low"),
        title="cuBLAS version changed",
        why="cuBLAS guarantees bitwise results only for the same toolkit version.",
        fix="Pin nvidia-cublas with the torch wheel.",
        refs=(f"{NUM} D1", CUBLAS_REPRO),
    ),
    Rule(
        id="stack.nccl",
        match=(
            "cuda_stack.libraries.nccl.{version,selected}",
            "cuda_stack.libraries.nccl.selected.{version,source,package}",
            "torch.nccl_version",
            f"{PKG}.nvidia-nccl-*.version",
        ),
        category="stack",
        severity=("high", "low", "low"),
        title="NCCL version changed",
        why="NCCL's tuning model and available algorithms change between versions, changing "
        "reduction order.",
        fix="Pin NCCL, or pin NCCL_ALGO/NCCL_PROTO so tuners cannot choose.",
        refs=(f"{NUM} E3", "aws/aws-ofi-nccl#1394"),
    ),
    Rule(
        id="stack.torch",
        match=(
            f"{PKG}.torch.version",
            "cuda_stack.torch_version",
            "torch.{version,git_version}",
            "cuda_stack.torch_git_version",
            f"{PKG}.{{torchvision,torchaudio,triton,pytorch-triton}}.version",
            "cuda_stack.libraries.triton.**",
        ),
        category="stack",
        severity=("high", "medium", "low"),
        title="torch version changed",
        why="PyTorch does not promise reproducible results across releases; defaults and "
        "kernels change (see the version flips reported with it).",
        fix="Pin the exact torch version and CUDA variant.",
        refs=(f"{NUM} J1", RANDOMNESS_MD, "pytorch/pytorch#157274"),
    ),
    Rule(
        id="stack.framework",
        match=(
            f"{PKG}.{{transformers,tokenizers,accelerate,deepspeed,trl,peft}}.version",
            f"{PKG}.{{sentencepiece,datasets,megatron-core,flash-attn,xformers}}.version",
            f"{PKG}.{{transformer-engine,apex,diffusers,timm,lightning}}.version",
            f"{PKG}.pytorch-lightning.version",
            "tokenizer.{tokenizers_version,transformers_version}",
        ),
        category="stack",
        severity=("high", "high", "medium"),
        title="training-framework version changed",
        why="framework releases change loss computation, tokenization, attention choice and "
        "determinism helpers.",
        fix="Pin framework versions and record resolved trainer arguments.",
        refs=(f"{NUM} J2", f"{NUM} G5"),
    ),
    Rule(
        id="stack.numpy",
        match=(f"{PKG}.numpy.version",),
        category="stack",
        severity=("high", "medium", "low"),
        title="numpy version changed",
        why="numpy releases change type promotion, RNG streams (Generator) and sort tie order.",
        fix="Pin numpy (and its BLAS).",
        refs=(f"{NUM} G4", "https://numpy.org/devdocs/reference/random/compatibility.html"),
    ),
    Rule(
        id="stack.cuda-library",
        match=(
            "cuda_stack.libraries.*.{version,selected}",
            "cuda_stack.libraries.*.selected.{version,source,package}",
            "cuda_stack.libraries.*",
            f"{PKG}.nvidia-*.version",
            f"{PKG}.nvidia-*",
        ),
        category="stack",
        severity=("high", "low", "low"),
        title="CUDA library changed",
        why="vendored CUDA libraries (cuFFT, cuSPARSE, cuRAND...) change kernels between releases.",
        fix="Pin every nvidia-* package with the torch wheel.",
        refs=(f"{NUM} D1",),
    ),
    Rule(
        id="stack.library-path",
        match=(f"{ENV}.LD_LIBRARY_PATH", f"{ENV}.LD_PRELOAD", "cuda_stack.search_dirs"),
        category="stack",
        severity=("high", "medium", "low"),
        title="library search path changed",
        why="a system CUDA on LD_LIBRARY_PATH can shadow the cuDNN inside the torch wheel.",
        fix="Check which cuDNN torch loads (cuda_stack.libraries.cudnn.selected).",
        refs=(f"{NUM} C6", "huggingface/transformers#48163"),
    ),
    Rule(
        id="stack.python",
        match=("python.{version,implementation,gil_disabled}",),
        category="stack",
        severity=("high", "low", "low"),
        title="Python interpreter changed",
        why="a different interpreter can change hashing, float formatting and library builds.",
        fix="Pin the Python version.",
        refs=(f"{NUM} G1",),
    ),
    Rule(
        id="stack.driver",
        match=("gpu.{driver_version,cuda_driver_version,nvml_version}",),
        category="stack",
        severity=("medium", "low", "low"),
        title="NVIDIA driver changed",
        why="no NVIDIA reproducibility statement names the driver; it matters only for NVLS "
        "all-reduce, PTX JIT of kernels newer than the wheel, or timing-based autotuning.",
        fix="Record it; raise it only when NVLS, PTX-JIT or autotuning are in use.",
        refs=(f"{NUM} D2", "NVIDIA/nccl#1497"),
    ),
    Rule(
        id="stack.package-major",
        match=(f"{PKG}.*.version",),
        when=("major",),
        category="stack",
        severity=("medium", "low", "low"),
        title="package major version changed",
        why="a major release of an unrelated package rarely touches numerics but may change "
        "defaults used by the job.",
        fix="Pin it if the job calls it in the training or data path.",
        refs=(f"{NUM} J2",),
    ),
    Rule(
        id="stack.package",
        match=(f"{PKG}.*.version", f"{PKG}.*", "packages.conda.**"),
        category="stack",
        severity=("low", "low", "low"),
        title="package changed",
        why="an unrelated package's minor or patch release is unlikely to change results.",
        fix="Pin it in the lock file to keep environments identical.",
        refs=(f"{NUM} J2",),
    ),
    Rule(
        id="stack.package-source",
        match=(f"{PKG}.*.{{source,url,vcs,commit,shadowed}}", f"{PKG}.*.shadowed.**"),
        category="stack",
        severity=("medium", "low", "low"),
        title="package installed from a different source",
        why="an editable, VCS or shadowed copy may not be the code the version string names.",
        fix="Install from the index, or record the commit.",
        refs=(f"{NUM} J2",),
    ),
    # ---- randomness -----------------------------------------------------------------------
    Rule(
        id="randomness.seed",
        match=(
            "seeds.{master_seed,rank,torch_initial_seed,seeded}",
            "seeds.{derived,cuda_initial_seeds,state_digests}.*",
        ),
        category="randomness",
        severity=("high", "high", "low"),
        title="seed or RNG state changed",
        why="seeds drive initialisation, dropout, sampling and augmentation; a different seed "
        "is a different sample of the training distribution.",
        fix="Use the same master seed, or compare distributions over several seeds.",
        refs=(f"{NUM} G2", RANDOMNESS_MD),
    ),
    Rule(
        id="randomness.pythonhashseed",
        match=(f"{ENV}.PYTHONHASHSEED", "seeds.pythonhashseed", "python.hash_randomization"),
        category="randomness",
        severity=("high", "high", "low"),
        title="PYTHONHASHSEED changed",
        why="str hashing is salted per process unless PYTHONHASHSEED is fixed, which changes "
        "set iteration order in data pipelines.",
        fix="Set PYTHONHASHSEED in the launcher (too late inside the script); sort sets before "
        "iterating.",
        refs=(f"{NUM} G1", "NVIDIA/framework-reproducibility doc/d9m/README.md"),
    ),
    # ---- environment ----------------------------------------------------------------------
    Rule(
        id="env.threads",
        match=(
            "torch.{num_threads,num_interop_threads}",
            f"{ENV}.{{OMP_NUM_THREADS,MKL_NUM_THREADS,OPENBLAS_NUM_THREADS}}",
            f"{ENV}.{{OMP_DYNAMIC,MKL_DYNAMIC}}",
            "system.cpu.{logical_cores,physical_cores,usable_cores}",
            "system.container.cpu_limit",
        ),
        category="environment",
        severity=("high", "low", "low"),
        title="CPU thread count changed",
        why="parallel CPU reductions split work by thread count, so summation order changes "
        "(nn.Linear differs at ~6e-8 between 1 and 6 threads).",
        fix="Pin OMP/MKL thread counts and disable dynamic threading.",
        refs=(f"{NUM} H1", "pytorch/pytorch#2201", "pytorch/pytorch#88718"),
    ),
    Rule(
        id="env.os",
        match=("system.{os,os_release,kernel,libc}",),
        category="environment",
        severity=("low", "low", "low"),
        title="operating system changed",
        why="the OS rarely changes arithmetic; libc's math library can change CPU results in "
        "the last bits.",
        fix="Use the same container image on both sides.",
        refs=(f"{NUM} A3",),
    ),
    Rule(
        id="code.commit",
        match=("code.commit", "code.submodules.**"),
        category="code",
        severity=("high", "high", "medium"),
        title="code commit changed",
        why="different code can change anything.",
        fix="Compare runs of the same commit, or review the diff between the commits.",
        refs=(f"{NUM} J2",),
    ),
    Rule(
        id="code.dirty",
        match=("code.{dirty,diff_sha256,diff_bytes,untracked_count,untracked_digest}",),
        category="code",
        severity=("high", "high", "medium"),
        title="uncommitted changes differ",
        why="with a dirty tree the commit alone no longer identifies the code that ran.",
        fix="Commit before running, or attach the patch (diff_sha256) to the run record.",
        refs=(f"{NUM} J2",),
    ),
    Rule(
        id="code.argv",
        match=("run.argv",),
        derived=True,
        category="code",
        severity=("high", "high", "medium"),
        title="command line changed",
        why="the training command line often carries hyperparameters and data paths (an "
        "`envsnap capture` command line is bookkeeping and is not reported).",
        fix="Compare runs launched with the same arguments.",
        refs=(f"{NUM} J2",),
    ),
    Rule(
        id="code.extra",
        match=("extra.**",),
        category="code",
        severity=("medium", "medium", "low"),
        title="job-attached value changed",
        why="values the job attached to the manifest are often configuration.",
        fix="Check whether the value feeds the training run.",
        refs=(f"{NUM} J2",),
    ),
    Rule(
        id="code.branch",
        match=("code.{branch,detached}", "code.remotes.**", "code.remotes"),
        category="code",
        severity=("info", "info", "info"),
        title="branch or remote changed",
        why="the branch name and remotes do not identify code; the commit does.",
        fix="None needed.",
        refs=(f"{NUM} J2",),
    ),
    # ---- noise ----------------------------------------------------------------------------
    Rule(
        id="noise.host",
        match=(
            "system.{hostname,memory_total_bytes}",
            "system.container.{runtime,cgroup_version,memory_limit_bytes}",
            "gpu.devices.*.{uuid_hash,pci_bus_id}",
            "gpu.devices.*.mig_devices.*.uuid_hash",
            "parallel.{rank,local_rank,initialized}",
            "parallel.sources.*",
            "parallel.dataloader.{pin_memory,prefetch_factor,timeout}",
            "parallel.dataloader.sampler.rank",
            f"{ENV}.{{RANK,LOCAL_RANK,GROUP_RANK,ROLE_RANK,NODE_RANK,MASTER_ADDR,MASTER_PORT}}",
            f"{ENV}.{{TORCHELASTIC_RUN_ID,SLURM_JOB_ID,SLURM_PROCID}}",
        ),
        category="noise",
        severity=("info", "info", "info"),
        title="host identity differs",
        why="host names, board ids, free or total memory and job ids identify the machine, "
        "not the computation.",
        fix="None needed.",
        refs=(),
    ),
    Rule(
        id="noise.run",
        match=(
            "created_at",
            "run.{pid,cwd,label,argv}",
            "collectors.**",
            "tool.**",
            "imported_from.**",
            "imported_from",
            "schema_version",
        ),
        category="noise",
        severity=("info", "info", "info"),
        title="capture bookkeeping differs",
        why="timestamps, pids, durations and tool bookkeeping cannot change results.",
        fix="None needed.",
        refs=(),
    ),
    Rule(
        id="noise.paths",
        match=(
            "python.{executable,prefix,base_prefix,environment,in_venv,conda_env,compiler}",
            "code.repo_root",
            "packages.project_root",
            "packages.installed.*.installer",
            "cuda_stack.torch_path",
            "cuda_stack.libraries.*.{reason,copies}",
            "cuda_stack.libraries.*.selected.path",
            "cuda_stack.libraries.*.copies.**",
            "torch.{imported_by,cuda_initialized,cuda_available,cuda_device_count}",
            "torch.effective.*.reason",
            "torch.effective.devices",
            "env.{prefixes,names,redacted}",
            "seeds.{declared_by,warnings,torch_imported,cuda_initialized}",
            "precision.sources.*",
            "data.items.*.{resolved,mode,error}",
            "data.items.*.files.*.{mtime_ns,error}",
            "data.{hash_algorithm,sample_block_bytes}",
            "tokenizer.{path,source,error}",
            "templates.templates.*.{path,kind,error}",
        ),
        category="noise",
        severity=("info", "info", "info"),
        title="install location or capture context differs",
        why="where things are installed and what the capture could see do not change results "
        "by themselves (the versions are compared separately).",
        fix="None needed.",
        refs=(),
    ),
    # ---- catch-alls -----------------------------------------------------------------------
    Rule(
        id="uncaptured",
        match=("**",),
        category="environment",
        severity=("high", "medium", "low"),
        title="cannot compare: not captured on one side",
        why="a value missing on one side could hide any difference its section records; it "
        "counts as a difference for bitwise comparisons and is flagged for the others.",
        fix="Capture the same collectors on both sides (see the collectors records).",
        refs=(f"{NUM} rule 9",),
        derived=True,
    ),
    Rule(
        id="fallback",
        match=("**",),
        category="environment",
        severity=("low", "low", "low"),
        title="other difference",
        why="no catalog rule covers this field; it is reported so nothing is dropped.",
        fix="Check whether it matters for this job; a rule can be added to the catalog.",
        refs=(),
        derived=True,
    ),
)

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in CATALOG}
