"""Rules for what is optimized: data, batch, loss, hyperparameters."""

from __future__ import annotations

from envsnap.diff.catalog.refs import ENV, NUM
from envsnap.diff.rules import Rule

RULES: tuple[Rule, ...] = (
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
        merge="batch",
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
    Rule(
        id="semantics.eval-loader",
        # Claims the named non-training loaders before semantics.batch (whose `**` patterns
        # reach them too): those batch fields change what is scored, not what is trained.
        match=("parallel.dataloaders.*", "parallel.dataloaders.*.**"),
        category="semantics",
        severity=("high", "high", "medium"),
        title="evaluation data loader changed",
        why="drop_last leaves the last partial batch unscored, a DistributedSampler pads the "
        "split with repeated samples, and another batch size changes padding and per-batch "
        "averaging: the same model scores differently.",
        fix="Evaluate with drop_last=False and no padding (or deduplicate padded samples), and "
        "pin the evaluation loader's settings next to the training loader's.",
        refs=(f"{NUM} F3", "torch/utils/data/distributed.py (DistributedSampler padding)"),
        specificity=1,
    ),
)
