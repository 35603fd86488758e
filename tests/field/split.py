"""The field corpus's development / evaluation split, drawn before the differ v3 work began.

`SPLIT_SEED` was drawn once from `os.urandom(16)` on 2026-12-02, before any v3 case was built
or run, and committed before any fix. A case's half is the parity of the first byte of
sha256(seed + case id), so the split is fixed for every case, old and new, and nobody picks
which half a case lands in: fixes are made against the development half only, and the
evaluation half is scored at the end.
"""

from __future__ import annotations

import hashlib
from typing import Literal

Half = Literal["dev", "eval"]
SPLIT_SEED = "d2ba4d0741922aeba008a3f65dbcce7c"


def half(case_id: str) -> Half:
    """The half a case belongs to."""
    digest = hashlib.sha256(f"{SPLIT_SEED}:{case_id}".encode()).digest()
    return "dev" if digest[0] % 2 == 0 else "eval"


# Cases added in one batch, each written from its thread and committed with its label before
# any was captured or scored: the evaluation ones among them are cases nobody read while
# fixing (`python -m tests.field --fresh [BATCH]`). 2026-12-04: 6631b83; the later batches (2026-12-06
# to 2026-12-07k): the commit that added them, before the first capture.
BATCHES: dict[str, frozenset[str]] = {
    "2026-12-04": frozenset(
        {
            "bert-score-147-roberta-prefix-space-transformers-417",
            "detectron2-5348-cudnn-tf32-volta-to-ampere-ci",
            "hf-datasets-4889-torchaudio012-mp3-ffmpeg-decoding",
            "horizonnet-4-worker-numpy-seed-augmentation",
            "language-recognition-5-librosa-06-spectrogram",
            "llama-cpp-3772-driver-545-multi-gpu-garbage",
            "mar-69-autocast-fp16-nan-bf16",
            "nccl-1055-ring-allreduce-precision-a800",
            "nccl-2198-rma-subwindow-offset-corruption",
            "opennmt-py-2418-torch20-nucleus-sampling-outputs",
            "opennmt-py-526-ga-token-normalization-fix",
            "paddle-models-1758-cudnn7-bn-moving-stats",
            "patchtst-7-test-drop-last",
            "pt-176584-philox-grid-rtx4090d-vs-h20",
            "pt-194676-cuda-rng-t4-vs-l4",
            "pt-196613-cuda-rng-sm-count-a10g-vs-h100-pcie",
            "pt-69449-fp16-nan-gtx1660s-cu113-vs-cu102",
            "scio-51-torch212-fp16-rng-expected-tensors",
            "te-2186-cudnn-sdpa-bwd-workspace-hopper",
            "te-2236-cudnn-914-fp8-current-scaling-attention",
            "te-3173-cudnn-9232-mxfp8-attention-nan",
            "te-3249-cudnn-926-thd-sink-grad-h100",
            "video-prediction-13-cudnn-731-worse-training-loss",
            "vivarium-442-pythonhashseed-set-order",
            "xformers-96-favor-fp16-attention-overflow",
        }
    ),
    "2026-12-06": frozenset(
        {
            "flash-attn-498-cuda114-bwd-headdim160-a100",
            "inctrl-40-seed-change-performance-drop",
            "indexnet-matting-17-worker-numpy-seed",
            "monorec-38-tf32-rtx3090-vs-p100-eval",
            "mystic-214-python312-sum-compensated",
            "pt-100061-compile-elu-backward-decomp",
            "pt-10979-dataloader-shuffle-torch041",
            "pt-33047-grid-sample-align-corners-default-14",
            "pt-55781-nnpack-conv2d-arm-vs-x86",
            "sklearn-14055-scipy13-pinvh-ard-accuracy",
        }
    ),
    "2026-12-06b": frozenset(
        {
            "handson-ml-274-reber-set-order-hash",
            "nccl-133-gdrdma-driver-390-allreduce-nan",
            "nccl-831-forced-ll128-socket-transport-corruption",
            "pt-157274-torch28-rc-cudnn-tf32-conv-a10",
            "pt-75391-cusolver-syevd-cuda116-eigh",
            "sd-webui-1098-prompt-padding-commit",
            "seargesdxl-13-bugfix-commit-changes-images",
            "tpot-1215-sklearn-024-kneighbors-known-score",
            "trl-5138-fp32-load-under-bf16-autocast",
        }
    ),
    "2026-12-06c": frozenset(
        {
            "flashinfer-3792-cudnn-919-fp8-moe-grouped-mm-sm120",
            "hf-28316-gptneox-rotary-dtype-436",
            "ollama-6556-cuda12-runner-driver-525-degraded",
            "openblas-6021-zen4-gemm-blocking-vs-intel",
            "pt-122697-eval-loader-advances-global-rng",
            "pt-137597-inductor-argmax-sve-neoverse-v1",
            "pytorch-3dunet-32-workers-share-dataset-random-state",
            "vmaf-409-sklearn-022-extra-trees-n-estimators",
        }
    ),
    "2026-12-06d": frozenset(
        {
            "accelerate-2208-seedable-sampler-025",
            "diffusers-11227-sd3-img2img-fp16-t4-vs-a100",
            "diffusers-3609-unidiffuser-fp16-v100-vs-a100",
            "finetrainers-182-cogvideox-fp16-nan-bf16",
            "gensim-1715-dictionary-token2id-hash-order",
            "hf-35696-mimi-test-values-t4-vs-a100",
            "hf-41190-smolvlm-vision-embeddings-4551",
            "pt-132301-compile-bf16-scale-upcast-triton",
            "pt-63152-cufft-103-bluestein-plan-reuse-cu111",
            "pyskl-26-ctrgcn-4-gpus-global-batch",
            "sklearn-19990-kmeans-init-rng-024",
            "sklearn-27991-gmm-kmeanspp-weighted-init-13",
            "vllm-22103-cascade-attn-a100-vs-h100",
        }
    ),
    "2026-12-06e": frozenset(
        {
            "albumentations-2340-randomfog-single-layer-blend",
            "cudnn-frontend-304-sm80-sdpa-bwd-stats-strides-cudnn-926",
            "cudnn-frontend-414-fp8-sdpa-split-kv-bf16-zeros-cudnn-924",
            "espnet-1923-sentencepiece-0190-vocab",
            "hf-29905-gemma-expected-texts-t4-vs-a10g",
            "hf-39605-voxtral-values-h100-vs-a10g",
            "ipex-llm-6308-eval-loader-shuffle-target-mismatch",
            "mlcommons-training-130-gnmt-seed-epochs-to-target",
            "mxnet-11919-twice-the-gpus-global-batch",
            "mxnet-14310-cudnn-74-dgrad-fft-tiling-strided-conv",
            "mxnet-16391-cudnn-764-birnn-dgrad-stream-sync",
            "nltk-2245-bleu-34-no-ngram-backoff",
            "pt-102029-sdpa-vjp-xfail-a100-vs-h100",
            "rethinking-nas-17-train-loader-shuffle-off",
            "spacy-10903-md-vectors-pruned-clusters",
        }
    ),
    "2026-12-07": frozenset(
        {
            "bert-score-86-transformers-4-fast-tokenizer",
            "careamics-258-dataloader-params-drop-shuffle",
            "fb-triton-2767-cublaslt-splitk-k-tail-12-vs-13",
            "hf-39165-expected-values-t4-to-a10-switch",
            "internevo-278-fp16-load-nan-bf16",
            "openprescribing-3222-pandas-13-groupby-sum",
            "pt-140305-gru-cpu-vs-cuda-tolerance-a10g-vs-l4",
            "scanpy-1562-pandas-12-tie-order",
            "scikit-fda-551-scipy-111-simpson",
            "te-2344-cudnn-9140-swa-noncausal-nan",
            "xformers-517-sm86-smem-dispatch-zero-grads",
        }
    ),
    "2026-12-07b": frozenset(
        {
            "acts-5903-onnx-tf32-t4-vs-a4000",
            "arrayfire-2869-cuda100-batched-matmul-zeros",
            "cupy-2922-cufft-101u2-pascal-irfftn-accuracy",
            "deepmd-kit-4499-matmul-precision-high-dp-test",
            "diffusers-7966-pixart-sigma-fp16-v100-vs-t4",
            "gptq-1-opt-ppl-a100-vs-a6000",
            "jax-25091-ptxas-1262-hopper-gather-wrong",
            "librosa-1691-onset-fmax-nyquist-09",
            "maskrcnn-benchmark-633-eval-batch-padding-map",
            "pixeltable-yolox-26-opencv-414-resize-drift",
            "resampy-101-filters-revised-030",
            "xclim-317-sklearn-022-kmeans-tests",
            "yolov3-271-rect-inference-batch-padding",
        }
    ),
    "2026-12-07c": frozenset(
        {
            "cryodrgn-45-apex-amp-fp16-nan-loss",
            "dytox-2-ddp-per-gpu-batch-one-vs-two-gpus",
            "ncnn-4578-avx512-packing-scale-retinaface",
            "np-20891-exp-underflow-avx512-xeon-gold",
            "paddleclas-1825-eval-loss-depends-on-gpu-count",
            "pt-54590-upsample-nearest-channels-last-nightly-windows",
            "pt-62237-interpolate-nearest-torch19-scale-near-one",
            "tensorpack-246-nr-gpu-hardcoded-global-batch",
        }
    ),
    "2026-12-07d": frozenset(
        {
            "nccl-tests-37-allgather-4g-32bit-offset-nccl-2-5",
            "pt-188288-cudnn-9231-conv-nondeterminism-a10g",
            "pt-195483-cudnn-9231-bn-grad-accuracy-h100",
            "pytorch-61063-libcuda-11-3-graph-replay-corruption",
            "transformers-32250-jamba-logits-rtx4090-vs-t4",
        }
    ),
    "2026-12-07e": frozenset(
        {
            "pt-118735-compile-rng-stream-vs-eager",
            "pt-120642-cudnn-8977-tf32-conv-sm86-inductor",
            "pt-149254-cu126-cudnn-98-rnn-gru-float32-tests",
            "pt-183761-inductor-fp16-cast-elision-cpu",
            "pt-193061-mix-order-reduction-torch210-grads",
            "pt-51992-cuda112-foreach-optimizer-bad-values",
        }
    ),
    "2026-12-07f": frozenset(
        {
            "hf-23096-clip-image-processor-rescale-428",
            "hf-38612-internvl-expected-outputs-a10-vs-t4",
            "opennmt-py-318-translate-batch-size-padding-bleu",
            "pt-59624-test-nn-tf32-a100-vs-v100",
            "pytorch-fid-103-scipy-1112-sqrtm-imaginary",
            "super-gradients-416-train-loader-default-no-shuffle",
            "t-zero-29-eval-batch-size-pad-between-input-target",
            "torchmetrics-1908-map-pycocotools-box-format-100",
        }
    ),
    "2026-12-07g": frozenset(
        {
            "cupy-3822-cuda110-cub-spmv-corrupt",
            "cupy-5022-cufft-111-plan-reuse-second-call",
            "cupy-7309-cuda120-potrf-devinfo-unset",
            "cupy-7669-cuda1211-lobpcg-result-change",
            "finetuner-253-unseeded-overfit-test",
            "ginkgo-1322-cusparse-strided-vector-cuda116",
            "gpu4pyscf-521-ecp-kernels-wrong-on-blackwell",
            "hf-4245-squad-do-lower-case-flag",
            "introml-124-sklearn-022-logreg-lbfgs-default",
            "jax-16138-cudnn-below-88-wrong-rnn-output",
            "ltx-video-211-a100-vs-h100-generation",
            "onnxruntime-24027-a100-vs-h100-hidden-states",
            "photutils-1136-scipy-160-ndimage-zoom",
            "pt-15170-num-workers-worker-seed-stream",
            "pt-62003-cusolver-syevjbatched-before-cuda-1131",
            "pt-75784-cusparse-spmm-broadcast-cuda116u1",
            "simcse-63-seed-change-unsup-bert",
            "skyrl-90-token-mean-loss-reduction",
            "tensorflow-3925-gtx1080-cudnn4-mnist-no-converge",
            "tensorflow-60192-cudnn81-masked-rnn-corrupt",
            "tensorrt-2062-cuda114-r470-mismatch-rtx3090",
            "tf-32877-cuda100-cublas-dim-over-2pow16",
        }
    ),
    "2026-12-07h": frozenset(
        {
            "big-sleep-129-conda-cu113-vs-pip-cu115-black-images",
            "kpconv-15-cuda10-rtx2080ti-matmul-nan",
            "onnxruntime-16275-conv-algorithm-arm64-vs-amd-x86",
            "onnxruntime-19288-tf32-ada-vs-p4000-output-mismatch",
            "tensorflow-31022-cuda100-einsum-invalid-fixed-cuda101",
            "tensorflow-4968-driver-352-k40m-silent-wrong-results",
            "ultralytics-280-amp-nan-gtx1650-vs-rtx3090",
            "yolov5-7908-gtx1660ti-amp-nan-vs-rtx2070",
        }
    ),
    "2026-12-07i": frozenset(
        {
            "bitsandbytes-1828-avx512-4bit-dequant-large-blocksize",
            "earth2studio-1086-cudnn-benchmark-toggle-samudrace",
            "featuretools-1492-pandas-130-concat-dtype",
            "gfpgan-50-model-half-stylegan2-clean",
            "hf-45252-matmul-precision-high-batching-equivalence",
            "jax-469-xla-cpu-fast-math-exp-overflow",
            "leaspy-504-mcmc-saem-intel-vs-apple-silicon",
            "lightgbm-1487-boost-from-average-212",
            "mmpose-1280-xtcocotools-110-apm",
            "nccl-2001-nccl-2273-wrong-transfers-gh200-slingshot",
            "nccl-2053-gh200-ll128-p2c-inter-node-corruption",
            "oneflow-10265-lbfgs-tf32-rtx3090-vs-rtx2080ti",
            "onnxruntime-19205-tf32-a10-vs-t4-model-tests",
            "onnxruntime-19541-tf32-a10-vs-t4-java-provider-test",
            "open-instruct-75-mmlu-eval-batch-size-left-padding",
            "paddle-75041-default-tf32-matmul-nvidia-tf32-override",
            "phonometry-656-avx512-numpy-kernels-filter-design",
            "pinn-fp64-2-tf32-lbfgs-convection-stall",
            "pocket-tts-264-cudnn-sdpa-bf16-backward-nan",
            "pt-58724-cufft-103-bluestein-plan-cache-reuse",
            "pyclaw-555-scipy-0181-dblquad",
            "pyrokinetics-210-scipy-111-spline",
            "pytential-254-scipy-115-interp-decomp-seed",
            "rf-detr-1507-ddp-eval-sampler-padding-duplicates",
            "scipy-4388-pillow-27-imresize",
            "sd-webui-4407-gtx16xx-fp16-black-images",
            "synthetic-7-rmultinom-long-double-x86-vs-arm64",
            "torchmetrics-2365-meanmetric-float32-state-default-float64",
            "trl-7181-no-cudnn-flag-dpo-nan",
            "ultralytics-18701-albumentations-1421-seed",
            "vecoli-443-avx512-sherlock-nodes",
            "vllm-40923-marlin-moe-sm12x-ptx-jit-gb10",
        }
    ),
    "2026-12-07j": frozenset(
        {
            "pt-192483-cusolver-11712-eigh-batched-workspace",
            "pt-196886-cudnn-924-batch-vs-single-a10g-torch214",
            "pt-47844-cuda110-build-tutorial-loss-vs-cuda102",
            "pt-62034-cudnn-821-bn-backward-imprecise-fixed-831",
            "rocm-libraries-5706-hipblaslt-gfx1201-matmul-zeros",
            "yolov5-4075-conda-cudatoolkit-111-vs-102-gtx1660super",
            "yolov5-4839-pip-cu111-to-cu102-fixes-training",
        }
    ),
    "2026-12-07k": frozenset(
        {
            "catboost-236-model-evaluation-bug-06",
            "contho-8-torch181-vs-1101-training-results",
            "cupy-9862-cusparse-spmm-griddim-zeros",
            "detr-239-dc5-eval-batch-padding",
            "easybuild-easyblocks-4217-low-omp-threads-test-mismatch",
            "fairscale-921-fsdp-a100-tf32",
            "imageio-982-png16-int32-2280",
            "marin-2376-rl-per-example-loss-normalization",
            "numba-10519-fastmath-umap-062-regression",
            "openbackdoor-16-config-seed-ignored-unseeded-runs",
            "par-neurips21-5-mixed-extension-code",
            "pt-103973-gfx906-black-images-rocm542-vs-rocm52",
            "pt-114109-compile-inductor-loss-nan",
            "pt-148699-cuda126-vs-124-inductor-vision-accuracy",
            "pt-161662-b200-cudnn-tf32-conv",
            "pt-167024-cudnn-9102-tf32-conv3d-broken",
            "pt-181737-torch211-cublaslt-routing-diffusion-image",
            "pt-191037-cuda132-vs-130-bert-inductor-accuracy",
            "pt-66072-cholesky-solve-batched-wheel-191-vs-190",
            "pt-77081-dropout2d-3d-input-torch111",
            "pyserini-823-ance-prf-bugfix-commit",
            "scikit-image-4249-frangi-border-016",
            "scikit-image-7403-frangi-output-020",
            "sentence-transformers-1453-batch-encoding-kernels",
            "te-2765-cublas-132-grouped-wgrad-empty-groups",
            "te-3440-l40-cublaslt-splitk-bf16",
            "te-3475-cublas-137-grouped-gemm-b300",
            "tf-60550-h100-tf32-conv-remapper",
            "torchio-991-val-loader-iter-advances-rng",
            "torchtune-1875-grad-accum-per-batch-token-mean",
            "xgboost-9606-hist-default-tree-method-20",
        }
    ),
    "2026-12-07l": frozenset(
        {
            "cupy-3763-cufft-c2r-overwrites-input-cuda11",
            "cupy-3775-cuda110-multigpu-cufft-device-order",
            "pt-16610-convtranspose2d-cudnn-nan-torch100",
        }
    ),
    "2026-12-07m": frozenset(
        {
            "diffusers-480-vae-tests-generator-on-model-device-cpu-vs-gpu",
            "jax-18183-logsumexp-sum-order-x86-vs-arm",
            "np-25269-power-avx512-svml-epyc-9534",
            "np-31776-openblas-vortexm4-ssyrk-macos-arm64-vs-linux-x86",
            "pt-136746-int-mm-amd-cpu-no-avx512-vnni",
            "pt-183535-mps-matmul-m1-m2-k-overread",
            "rocm-libraries-7024-miopen-winograd-fp16-cu-count-gfx90a-vs-gfx942",
            "sharp-4445-image-bytes-arm64-mac-vs-x64-ci",
            "tensorflow-61510-onednn-273-avx512-vnni-matmul-wrong",
        }
    ),
    "2026-12-07p": frozenset(
        {
            "framework-reproducibility-28-pascal-vs-turing-deterministic",
            "functorch-1050-vmap-conv-transpose-a100-tf32",
            "jax-12008-tests-fail-a100-tf32-default",
            "onnxruntime-13980-attention-tests-a100-tf32-gemm",
            "tf-42350-tests-fail-tf32-on-ampere",
            "tf-58839-tf32-2x2-matmul-not-tf32-on-a16",
        }
    ),
    "2026-12-07n": frozenset(
        {
            "bigbio-746-euadr-listdir-order-windows",
            "gmt-956-qsort-unstable-macos-vs-linux",
            "mask-rcnn-2551-listdir-order-windows-linux",
            "np-27946-int-times-int32-windows-c-long",
            "np-30136-dot-accelerate-vs-openblas-macos",
            "openmc-1214-glibc-228-libm-ubuntu-1810",
            "orion-212-astype-int-int32-windows-f1",
            "pillow-5263-qsort-unstable-windows-vs-wsl",
            "sklearn-13511-liblinear-rand-max-windows",
        }
    ),
    "2026-12-07o": frozenset(
        {
            "bert-classification-tutorial-6-label-map-set-eval",
            "ctranslate2-693-cpu-batch-padding-output",
            "detectron2-2121-seed-minus-one-data-order",
            "efficientvit-110-fp16-nan-after-cast-removal",
            "gpytorch-534-float32-posterior-degradation",
            "graph2tac-154-tensorflow-210-init-change",
            "lartpc-mlreco3d-27-model-rng-before-sampler",
            "ms-g3d-54-half-training-vs-test",
            "patchtst-25-test-drop-last-batch-size",
            "prottrans-37-set-tag2id-reload",
            "pygat-51-set-label-encoding-saved-model",
        }
    ),
    "2026-12-07q": frozenset(
        {
            "diffusers-5469-slow-tests-torch21-expected-slices",
            "flashinfer-4486-trtllm-nvfp4-moe-nan-0617-b300",
            "hf-22826-top-k-sampling-test-cpu-vs-gpu",
            "hf-30797-gemma-expected-texts-mi300-vs-h100",
            "hf-30989-mpt-expected-outputs-torch23-cu121",
            "hf-37569-granite-expected-logits-xpu-vs-t4",
            "hf-48164-qwen25-omni-sm86-torch210-docker",
            "hf-48750-daily-ci-torch214-expected-outputs",
            "sd-webui-5082-sd2-support-commit-images-differ",
            "trl-2262-accelerate-config-bf16-autocast-vs-torchrun",
            "vllm-52308-nvfp4-moe-trtllm-backend-b200-vs-sm120",
            "vllm-backport-97-driver-59591-custom-allreduce-degenerate",
        }
    ),
    "2026-12-07r": frozenset(
        {
            "mujoco-2659-avx512-vm-toggle-rl-rewards",
            "paddle-15226-mkl-avx512-path-seq-pool-accuracy",
            "psi4-1906-mkl-2020-cbwr-unset-run-to-run",
            "pt-103646-onednn-qconfig-saturation-no-avx512-vnni",
            "pt-130919-mkldnn-matmul-bf16-downconvert-aarch64-bf16",
            "sklearn-18790-orthogonal-mp-openblas-threads",
            "triqs-maxent-24-openblas-skylakex-svd-coretype",
        }
    ),
    "2026-12-07s": frozenset(
        {
            "cupy-6539-eigh-zero-matrix-nan-cudatoolkit-116",
            "tf-31166-matmul-wrong-cuda100-cublas",
        }
    ),
    "2026-12-07t": frozenset(
        {
            "ddsp-253-v014-pretrained-model-quality-drop",
            "dice-embeddings-429-sorted-vocabulary-commits",
            "e2e-sae-68-grad-accum-loss-division-removed",
            "gpt-sovits-750-double-sharded-bucket-sampler",
            "instructlab-training-465-fsdp-mixed-precision-upcast",
            "mlcommons-training-83-ncf-worker-numpy-negatives",
            "openchat-182-per-sequence-loss-weighting",
            "rsmtool-103-sklearn-019-pca-explained-variance",
            "tensor2tensor-529-v130-training-divergence",
            "tensor2tensor-555-noam-warmup-default-143",
            "tf-62876-onednn-opts-remapper-test-tolerance",
        }
    ),
    "2026-12-07u": frozenset(
        {
            "hf-47976-gemma-a10g-torch28-to-29-docker",
            "onednn-431-mkldnn-xeon-8124m-conda-101-vs-source-build",
            "pt-132004-rocm-mem-efficient-sdpa-sd3-torch240",
            "pt-189849-gfx1151-sdpa-hdim512-torch214-nightly",
            "runner-images-14380-mpsgraph-macos26-vs-macos15",
        }
    ),
    "2026-12-07v": frozenset(
        {
            "fairseq-979-update-freq-12-effective-batch",
            "fast-reid-54-bn-per-gpu-batch-two-gpus",
            "llamafactory-1256-llama2-eval-batch-size-accuracy",
            "mlx-lm-1855-evaluate-batch-size-padding-logprob",
            "mmdet-3621-imgs-per-gpu-bn-batch-1-vs-4-gpus",
            "mmselfsup-82-byol-amp-config-missing-fp16-optimizer",
            "sd-webui-3967-xformers-flag-nondeterministic-images",
            "stability-lm-eval-102-jsquad-llama2-batch-size-padding",
            "vision-7644-deeplabv3-eval-4-gpus-vs-1-iou",
            "yolox-735-batch-64-vs-128-ema-decay",
        }
    ),
    "2026-12-07w": frozenset(
        {
            "axolotl-1265-stale-prepared-dataset-cache",
            "dl-4-tsc-29-ucr-archive-version-fordb",
            "flair-1102-conll03-german-misc-annotations",
            "hf-31901-llava-image-token-id-442",
            "hf-45488-v5-llama-tokenizer-metaspace-deepseek",
            "hf-7632-stale-cached-features-same-tokenizer-class",
            "instruct-eval-3-llama-tokenizer-transformers-4281",
            "paddleclas-2795-pillow-83-vs-9-eval-top1",
            "rscir-3-dataset-version-category-existence",
            "torchsig-133-v030-wideband-dataset-generation",
            "vision-3482-torchvision-08-val-images-pixel-shift",
        }
    ),
    "2026-12-07x": frozenset(
        {
            "pyannote-1370-tf32-ampere-cuda116-vs-cuda117-diarization",
        }
    ),
    "2026-12-07y": frozenset(
        {
            "accelerate-2304-023-deepspeed-lr-scheduler-regression",
            "cfpnet-1-timm-1015-vs-054-eval-metrics",
            "geneblocks-7-networkx-26-dag-longest-path",
            "indra-1442-networkx-3-cycle-basis-order",
            "lightgbm-974-missing-value-handling-after-204",
            "nncf-749-networkx-26-node-iteration-order",
            "peft-1568-peft-070-fp16-lora-loss-zero",
            "peft-2043-transformers-429-vs-4442-prompt-tuning-loss",
            "synth-opt-adders-99-networkx-28-behaviour-change",
        }
    ),
    "2026-12-07z": frozenset(
        {
            "anemoi-core-560-hipblaslt-default-rocm-torch27",
            "captum-10-unseeded-attribution-tests",
            "clear-lewm-3-h200-vs-rtx4090-fp32-gemm-success-rate",
            "cnngesturerecognizer-8-listdir-order-ubuntu",
            "compression-155-tf32-tests-colab-t4-vs-a100",
            "cupy-4229-cuda92-cusolver-syevd-nan",
            "cupy-6296-cuda1151-cusparse-spmm-test-failures",
            "fairseq-427-generate-batch-size-unmasked-padding",
            "librosa-1241-mp3-coreaudio-macos-vs-ffmpeg-linux",
            "llamafactory-950-baichuan2-fp16-loss-zero-bf16",
            "lm-evaluation-harness-2798-max-gen-toks-truncated-cot",
            "mmdet-2034-cascade-dcn-seed-deterministic-atomic-backward",
            "mmdet-8157-test-samples-per-gpu-padding",
            "nanogpt-145-single-gpu-grad-accum-global-batch",
            "np-27036-windows-openblas-threading-matmul",
            "np-8433-trace-int32-windows-c-long",
            "openblas-2923-power-switch-ratio-thread-split",
            "openblas-3318-haswell-kernel-svd-nan",
            "openmeeg-872-openblas-0320-cooperlake-dsymm",
            "pagmo2-259-std-distributions-windows-vs-linux",
            "pillow-3833-jpeglib-62-windows-vs-90-linux",
            "pt-150516-olmo-evals-triton-33-torch27",
            "pt-161022-flexattention-tf32-default-torch29-nightly",
            "pt-3297-topk-max-ties-cpu-vs-cuda",
            "pyg-859-sagpool-benchmark-aggregation-nondeterminism",
            "pyg-92-qm9-nnconv-scatter-gpu-nondeterminism",
            "pygcn-41-set-label-order-hash-seed",
            "python-chebai-111-a100-vs-h100-nodes-deterministic",
            "pytorch-gaussian-yolov3-31-upsample-backward-nondeterminism",
            "sklearn-7921-ridge-openblas-coretype-prescott",
            "te-975-cudnn-91-92-thd-attention-numerics",
            "torchtitan-2156-cuda-vs-rocm-loss-a10g-vs-mi300x",
            "vision-1058-fasterrcnn-roialign-atomicadd-backward",
            "xgboost-310-c-rand-colsample-osx-vs-linux",
            "yolov5-5168-val-batch-size-rect-padding",
        }
    ),
    "2026-12-07z2": frozenset(
        {
            "anomalib-528-stfpm-deterministic-false-cuda-ops",
            "climacore-1240-v100-vs-p100-cuda113-field-sum",
            "exllama-153-q4-matmul-atomicadd",
            "exllamav2-143-wave64-gibberish-mi100-vs-rx6800xt",
            "flash-attn-384-fa2-backward-atomic-eval-loss",
            "flash-attn-414-fa2-varlen-dq-atomic-adds",
            "gudhi-1031-sklearn-14-kmeans-n-init-auto",
            "hf-16209-torch111-randomsampler-resume",
            "legacy-rocm-build-4606-miopen-conv2d-bwd-fp32-rocm640-vs-rocm642",
            "llm-compressor-1727-transformers-454-qwen25vl-image-processor",
            "numpyro-1959-jax-050-threefry-partitionable",
            "pt-191552-mi200-fp16-alt-impl-denormal-gfx90a-vs-gfx942",
            "pyg-2788-torch-scatter-cuda-atomic-aggregation",
            "pytorch-forecasting-340-debug-loader-iteration-rng",
            "qwen3-695-vllm-gptq-exllamav2-atomics",
            "scipy-23161-lbfgsb-c-rewrite-115",
            "sd-webui-9734-mps-cpu-noise-vs-cuda-noise",
            "sglang-23671-bpreshuffle-fp8-hipcc-miscompile-rocm70-gfx950",
            "sglang-28685-bpreshuffle-fp8-gfx950-vs-gfx942",
            "sglang-29918-ck-blockscale-fp8-nan-rocm70-vs-rocm72-gfx950",
            "sklearn-18316-lightgbm-30-multiclass-objective",
            "vision-2520-torchvision-07-flip-torch-rand",
            "vllm-7779-online-batching-awq-marlin-logprobs",
            "xgboost-6350-predictor-fp-order-13",
            "yolov5-9545-ddp-generator-same-seed-per-rank",
        }
    ),
    "2026-12-07z3": frozenset(
        {
            "alignment-handbook-139-lora-torch-dtype-float16-loss-zero",
            "fairseq-417-single-gpu-update-freq-1-small-batch",
            "lm-evaluation-harness-3055-boolq-batch-size-padding",
            "nanodet-392-eight-gpus-global-batch-lr-unchanged",
            "nanogpt-167-float16-autocast-nan-float32-ok",
            "pt-153700-conv-transpose2d-fp16-overflow-spr-vs-epyc",
            "santacoder-finetuning-3-fp16-nan-loss-no-fp16",
            "sd-webui-7307-colab-cuda-vs-mac-mps-noise",
        }
    ),
    "2026-12-07z4": frozenset(
        {
            "autogptq-201-030-desc-act-group-size-gibberish",
            "bitsandbytes-121-adam8bit-0360-roberta-3090",
            "bitsandbytes-1775-048-int8-prequantized-generation-t4",
            "bitsandbytes-663-0411-qlora-8bit-adam-divergence",
            "deepspeed-2251-062-gpt2-kernel-inject-output",
            "deepspeed-3611-094-zero3-inference-eval-score",
            "numba-8030-numpy122-svml-npy-disable-avx512skx",
            "open-assistant-2298-deepspeed-083-sft-regression",
            "openblas-2986-skylakex-dynamic-arch-coretype-haswell",
            "openfast-29-mkl-omp-threads-subdyn-summary",
            "pyro2-174-numpy124-svml-npy-disable-avx512skx",
        }
    ),
    "2026-12-07z5": frozenset(
        {
            "deepspeed-5242-0124-multi-rank-bucket-allreduce-nan",
            "deepspeed-7837-zero0-bf16-grad-norm",
            "megatron-906-cp-loss-scaling-dp2cp4-vs-dp8",
            "nccl-1906-nvls-allgather-permuted-visible-devices",
            "pt-106395-fsdp-bf16-reduce-unstable-384-gpus",
            "pt-154888-fsdp-hybrid-shard-n1-mesh-no-grad-sync",
            "torchtitan-3280-tp2-cp2-loss-halved",
            "vision-3913-encode-jpeg-pillow-libjpeg-turbo-windows",
            "vision-6589-fasterrcnn-autocast-windows-cu113-to-cu116",
            "vision-6655-fasterrcnn-autocast-linux-cu102-to-cu116",
        }
    ),
    "2026-12-07z6": frozenset(
        {
            "chainercv-710-python2-integer-division-cityscapes-eval",
            "diffusers-7188-sdxl-vae-fp16-encode-nan",
            "geoutils-533-scipy-113-interpn",
            "hf-45248-cudnn-conv-tf32-batching-equivalence",
            "inflation-144-numpy2-nep50-uint8-scalar-subtract",
            "metpy-975-scipy-12-cubic-interpolation-fix",
            "nibabel-1234-numpy125-avx512-argsort-parrec",
            "np-26344-dot-int32-windows-c-long",
            "np-7163-percentile-midpoint-fix-112-dev",
            "opensauce-29-scipy-10-signal-resample",
            "prismaquant-92-python311-vs-312-sum-golden",
            "probfit-64-python3-random-module-blinding",
            "pt-138556-flexattention-compile-matmul-precision-high",
            "pynucastro-710-python312-sum-notebook-outputs",
            "pyramid-flow-25-fp16-nan-latents-bf16",
            "pyro-653-python2-integer-division-air-accuracy",
            "qutip-1299-scipy-15-eigh-lwork-eigenvectors",
            "scikit-bio-1497-python36-counter-order-power",
            "sd-scripts-2322-sdxl-inpaint-sample-fp16-autocast-nan",
            "simhash-py-28-python34-builtin-hash-change",
            "unsloth-zoo-600-gemma4-grpo-fp16-overflow-b200",
        }
    ),
    "2026-12-07z7": frozenset(
        {
            "pytorch-cpu-feedstock-180-conda-forge-generic-blas-complex-dot-zero",
            "pytorch-scatter-256-segment-csr-cu111-vs-cu102-windows",
        }
    ),
    "2026-12-07z8": frozenset(
        {
            "aihwkit-766-cudnn-tf32-ampere-conv3d-rnn-tests",
            "alphafold3-59-cc7x-xla-custom-fusion-bad-structures",
            "chainer-7695-cudnn50-vs-75-convolution-nd-backward",
            "cudanative-58-gtx-titan-driver-378-int64-arithmetic",
            "cutlass-32-basic-gemm-wrong-on-maxwell-m40-vs-p4",
            "gemma-cpp-23-avx3-zen4-vs-avx2-bf16-answer",
            "hf-39978-rocm-expectations-a10g-vs-mi325",
            "hipace-659-cufft-111-zero-output-above-1024",
            "llama-cpp-28211-rdna35-host-access-gfx1150-vs-gfx1151",
            "lmdeploy-1676-w4a16-awq-v100-vs-a100",
            "lmdeploy-2699-awq-internvl2-v100-vs-h800-051",
            "nnabla-759-cudnn8-rnn-gru-lstm-tolerance",
            "np-24903-numpy123-matmul-sapphire-rapids",
            "numba-10571-numpy124-svml-sincos-avx512skx-runners",
            "pt-137978-cudnn-951-tinynet-a-expected-accuracy",
            "pt-180201-mps-broadcast-matmul-grad-macos262-vs-macos264",
            "pt-2976-dropout-seeded-cpu-vs-cuda-rng",
            "pt-47347-distributions-rsample-cpu-vs-cuda-seed",
            "raft-491-cusolver-116-syevdx-trailing-eigenvalues",
            "rocm-bitsandbytes-94-hipblaslt-int8-colmajor-gfx950",
            "rocm-libraries-9055-hipblaslt-splitk-bf16-nan-rocm713-vs-rocm72",
            "triton-3643-blocksparse-fp16-tolerance-mi200-vs-mi300",
            "xgboost-3264-gpu-hist-cub-race-k80-vs-pascal",
        }
    ),
    "2026-12-07z9": frozenset(
        {
            "aprender-3105-avx2-q4k-kernels-core-ultra-vs-avx512-ci",
            "arrayfire-2580-half-gemm-compute-type-cc61",
            "botorch-944-tf32-matmul-ampere-test-failures",
            "dgl-4213-tf32-test-csrmm-ampere",
            "easybuild-easyconfigs-14059-jax-tests-tf32-a100",
            "gpunufft-95-cuda112-while-loop-convolution-wrong-output",
            "gpytorch-1960-tf32-rtx3080-gpu-vs-cpu-predictions",
            "invokeai-981-m1-mps-cpu-noise-vs-windows-cuda-noise",
            "jax-17568-testdotgeneral-a100-nightly-tf32",
            "jaxion-5-float32-reference-cpu-vs-t4-gpu",
            "kaolin-429-tests-tf32-conv-matmul-ampere",
            "keops-224-tf32-a10-vs-rtx2080-ci-tests",
            "manticoresearch-1727-arm64-fmadd-vs-x86-64-float-expr",
            "mujoco-playground-86-jax-tf32-rtx4080-vs-t4",
            "mulensmodel-216-binarylens-macos-arm64-vs-ubuntu-x86",
            "nequip-610-openequivariance-hip-warp-barrier-mi250x-vs-nvidia",
            "onednn-1268-cudnn-default-math-tf32-a100-conv",
            "openms-6918-appleclang-fma-apple-silicon-vs-x86",
            "paddle-28732-tf32-cublas-default-on-a100-unit-tests",
            "pt-193183-triton-371-stride3-slice-scatter-torch213",
            "pt-197635-avx512-grid-sample-mask-gather-zeros",
            "pt-97466-vec512-neq-nan-ordered-compare",
            "tensorrt-3969-trt10-gemv-fusion-bs1-rtx3090",
            "tensorrt-llm-278-turing-2080ti-default-build-no-sm75",
            "tf-57701-tftrt-batch-matmul-tf32-ampere",
            "torchtitan-3858-triton-38-flex-attention-loss-nightly",
        }
    ),
    "2026-12-07z10": frozenset(
        {
            "cupy-6347-cusolver-116-eigh-eigenvectors",
            "jax-17653-cudnn-lstm-tf32-ampere-hopper",
            "jax-24438-ptxas-sm90-sph-harm-abs-index",
            "llama-cpp-12946-v100s-cublas-fp16-overflow-vs-p40",
            "llama-cpp-24699-sve-vec-dot-f32-inactive-lanes",
            "mamba-997-mamba3-siso-fwd-blackwell-num-stages",
            "numba-6127-reduction-warp-race-volta",
            "te-1776-cudnn-kv-cache-sm89-numerics",
            "te-2589-fp8-blockwise-e8-scale-swizzle-blackwell",
            "te-3281-nvfp4-stochastic-rounding-zeros-sm121",
            "te-650-cudnn-v9-sdpa-bwd-nan-frontend-102",
        }
    ),
}
FRESH = frozenset().union(*BATCHES.values())
