"""Which container runtime the job runs in, from the markers its inside really has.

Docker creates /.dockerenv and podman /run/.containerenv in every container; Apptainer and
Singularity set APPTAINER_*/SINGULARITY_* variables and keep /.singularity.d in the image;
Kubernetes sets KUBERNETES_SERVICE_HOST in every container of a pod. The cgroup paths of
/proc/1/cgroup and the overlay layers of /proc/self/mountinfo name the engine where cgroup
namespaces do not hide it. Each marker seen is kept as evidence; none is guessed from another.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from envsnap.capturing.placement import read_text
from envsnap.manifest.records import ContainerRuntime

# (engine, pattern) over /proc/1/cgroup and /proc/self/cgroup.
_CGROUP_ENGINES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("kubernetes", re.compile(r"kubepods")),
    ("containerd", re.compile(r"containerd")),
    ("podman", re.compile(r"libpod")),
    ("docker", re.compile(r"/docker[/-]|docker-[0-9a-f]{12,}\.scope")),
    ("lxc", re.compile(r"/lxc[/.]")),
)
# (engine, pattern) over /proc/self/mountinfo: where the root's layers and the pod's files live.
_MOUNT_ENGINES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("kubernetes", re.compile(r"/var/lib/kubelet/pods/")),
    ("containerd", re.compile(r"/var/lib/containerd/|io\.containerd\.")),
    ("podman", re.compile(r"/var/lib/containers/storage/|/containers/storage/overlay")),
    ("docker", re.compile(r"/var/lib/docker/")),
)
_ENGINES = ("containerd", "podman", "docker")


def _markers(root: Path, env: Mapping[str, str]) -> list[tuple[str, str]]:
    """(engine, evidence) for every marker present."""
    found: list[tuple[str, str]] = []
    for name in ("APPTAINER_CONTAINER", "SINGULARITY_CONTAINER"):
        if env.get(name):
            found.append((name.split("_", 1)[0].lower(), f"env:{name}"))
    if (root / ".singularity.d").is_dir():
        found.append(("singularity", "file:/.singularity.d"))
    if env.get("KUBERNETES_SERVICE_HOST"):
        found.append(("kubernetes", "env:KUBERNETES_SERVICE_HOST"))
    if (root / "run" / ".containerenv").exists():
        found.append(("podman", "file:/run/.containerenv"))
    if (root / ".dockerenv").exists():
        found.append(("docker", "file:/.dockerenv"))
    for relative in ("proc/1/cgroup", "proc/self/cgroup"):
        text = read_text(root, relative) or ""
        for engine, pattern in _CGROUP_ENGINES:
            if pattern.search(text):
                found.append((engine, f"cgroup:/{relative} names {engine}"))
    mounts = read_text(root, "proc/self/mountinfo") or ""
    for engine, pattern in _MOUNT_ENGINES:
        if pattern.search(mounts):
            found.append((engine, f"mountinfo:/proc/self/mountinfo names {engine}"))
    return found


def detect_runtime(root: Path, env: Mapping[str, str]) -> ContainerRuntime:
    """The runtime the markers under `root` and in `env` name, outermost first: Apptainer or
    Singularity, then Kubernetes (with the engine under it), podman, docker, containerd, lxc."""
    markers = _markers(root, env)
    engines = [engine for engine, _ in markers]
    evidence = list(dict.fromkeys(evidence for _, evidence in markers))
    runtime = next(
        (
            name
            for name in ("apptainer", "singularity", "kubernetes", *_ENGINES, "lxc")
            if name in engines
        ),
        None,
    )
    engine = None
    if runtime == "kubernetes":
        engine = next((name for name in _ENGINES if name in engines), None)
    return ContainerRuntime(runtime=runtime, engine=engine, evidence=evidence)
