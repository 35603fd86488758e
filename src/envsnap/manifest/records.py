"""Plain records of the manifest's models, for the capture path. GENERATED: do not edit.

Regenerate with `python tools/gen_records.py` after changing a model in envsnap.manifest. Each
class has the fields, types, defaults and field order of the pydantic model of the same name;
building one costs a few attribute stores, and defining them all costs nothing worth measuring,
so a capture never imports pydantic. What a capture writes is validated when it is read.
"""

from __future__ import annotations

from typing import Any, Literal

from envsnap.manifest.record_base import JsonValue, Record, Section, as_float, plain

DeclaredBy = Literal["argument", "process"]
DeterminismLevel = Literal["off", "seeded", "deterministic"]
EnvironmentKind = Literal["system", "venv", "uv", "conda", "virtualenv"]
HashMode = Literal["full", "sample", "stat"]
ImageDefaultSetBy = Literal["image", "changed", "unknown"]
ItemKind = Literal["file", "directory", "dataset", "declared", "missing", "invalid"]
LibrarySource = Literal["torch_lib", "wheel", "conda", "system"]
PackageSource = Literal["index", "editable", "vcs", "url", "local"]
YesNoUnknown = Literal["yes", "no", "unknown"]


class ToolInfo(Record):
    FIELDS = (
        "name",
        "version",
        "collectors_requested",
        "collectors_run",
    )
    __slots__ = FIELDS

    name: Literal["envsnap"]
    version: str
    collectors_requested: list[str]
    collectors_run: list[str]

    def __init__(
        self,
        *,
        name: Literal["envsnap"] = "envsnap",
        version: str,
        collectors_requested: list[str],
        collectors_run: list[str],
    ) -> None:
        self.name = name
        self.version = version
        self.collectors_requested = collectors_requested
        self.collectors_run = collectors_run


class RunInfo(Record):
    FIELDS = (
        "argv",
        "cwd",
        "label",
        "pid",
    )
    __slots__ = FIELDS

    argv: list[str]
    cwd: str | None
    label: str | None
    pid: int | None

    def __init__(
        self,
        *,
        argv: list[str],
        cwd: str | None,
        label: str | None = None,
        pid: int | None,
    ) -> None:
        self.argv = argv
        self.cwd = cwd
        self.label = label
        self.pid = pid


class Submodule(Record):
    FIELDS = (
        "path",
        "commit",
        "state",
    )
    __slots__ = FIELDS

    path: str
    commit: str
    state: str

    def __init__(
        self,
        *,
        path: str,
        commit: str,
        state: str,
    ) -> None:
        self.path = path
        self.commit = commit
        self.state = state


class Remote(Record):
    FIELDS = (
        "name",
        "url",
    )
    __slots__ = FIELDS

    name: str
    url: str

    def __init__(
        self,
        *,
        name: str,
        url: str,
    ) -> None:
        self.name = name
        self.url = url


class CodeSection(Section):
    FIELDS = (
        "unknown",
        "repo_root",
        "commit",
        "branch",
        "detached",
        "dirty",
        "diff_sha256",
        "diff_bytes",
        "patch",
        "untracked_count",
        "untracked_digest",
        "untracked_python",
        "submodules",
        "remotes",
    )
    __slots__ = FIELDS

    unknown: dict[str, str]
    repo_root: str | None
    commit: str
    branch: str | None
    detached: bool | None
    dirty: bool | None
    diff_sha256: str | None
    diff_bytes: int | None
    patch: str | None
    untracked_count: int | None
    untracked_digest: str | None
    untracked_python: int | None
    submodules: list[Submodule]
    remotes: list[Remote]

    def __init__(
        self,
        *,
        unknown: dict[str, str] | None = None,
        repo_root: str | None,
        commit: str,
        branch: str | None,
        detached: bool | None,
        dirty: bool | None,
        diff_sha256: str | None,
        diff_bytes: int | None,
        patch: str | None = None,
        untracked_count: int | None,
        untracked_digest: str | None,
        untracked_python: int | None = None,
        submodules: list[Submodule] | None = None,
        remotes: list[Remote] | None = None,
    ) -> None:
        self.unknown = {} if unknown is None else unknown
        self.repo_root = repo_root
        self.commit = commit
        self.branch = branch
        self.detached = detached
        self.dirty = dirty
        self.diff_sha256 = diff_sha256
        self.diff_bytes = diff_bytes
        self.patch = patch
        self.untracked_count = untracked_count
        self.untracked_digest = untracked_digest
        self.untracked_python = untracked_python
        self.submodules = [] if submodules is None else submodules
        self.remotes = [] if remotes is None else remotes


class PythonSection(Section):
    FIELDS = (
        "unknown",
        "version",
        "implementation",
        "compiler",
        "executable",
        "prefix",
        "base_prefix",
        "environment",
        "in_venv",
        "conda_env",
        "hash_randomization",
        "gil_disabled",
    )
    __slots__ = FIELDS

    unknown: dict[str, str]
    version: str
    implementation: str | None
    compiler: str | None
    executable: str | None
    prefix: str | None
    base_prefix: str | None
    environment: EnvironmentKind | None
    in_venv: bool | None
    conda_env: str | None
    hash_randomization: bool | None
    gil_disabled: bool | None

    def __init__(
        self,
        *,
        unknown: dict[str, str] | None = None,
        version: str,
        implementation: str | None,
        compiler: str | None,
        executable: str | None,
        prefix: str | None,
        base_prefix: str | None,
        environment: EnvironmentKind | None,
        in_venv: bool | None,
        conda_env: str | None,
        hash_randomization: bool | None,
        gil_disabled: bool | None,
    ) -> None:
        self.unknown = {} if unknown is None else unknown
        self.version = version
        self.implementation = implementation
        self.compiler = compiler
        self.executable = executable
        self.prefix = prefix
        self.base_prefix = base_prefix
        self.environment = environment
        self.in_venv = in_venv
        self.conda_env = conda_env
        self.hash_randomization = hash_randomization
        self.gil_disabled = gil_disabled


class Package(Record):
    FIELDS = (
        "name",
        "version",
        "installer",
        "source",
        "url",
        "vcs",
        "commit",
        "hashes",
        "shadowed",
        "imported",
    )
    __slots__ = FIELDS

    name: str
    version: str | None
    installer: str | None
    source: PackageSource | None
    url: str | None
    vcs: str | None
    commit: str | None
    hashes: dict[str, str]
    shadowed: list[str]
    imported: bool | None

    def __init__(
        self,
        *,
        name: str,
        version: str | None,
        installer: str | None,
        source: PackageSource | None,
        url: str | None = None,
        vcs: str | None = None,
        commit: str | None = None,
        hashes: dict[str, str] | None = None,
        shadowed: list[str] | None = None,
        imported: bool | None = None,
    ) -> None:
        self.name = name
        self.version = version
        self.installer = installer
        self.source = source
        self.url = url
        self.vcs = vcs
        self.commit = commit
        self.hashes = {} if hashes is None else hashes
        self.shadowed = [] if shadowed is None else shadowed
        self.imported = imported


class LockFile(Record):
    FIELDS = (
        "path",
        "sha256",
        "bytes",
    )
    __slots__ = FIELDS

    path: str
    sha256: str | None
    bytes: int | None

    def __init__(
        self,
        *,
        path: str,
        sha256: str | None,
        bytes: int | None,
    ) -> None:
        self.path = path
        self.sha256 = sha256
        self.bytes = bytes


class CondaPackage(Record):
    FIELDS = (
        "version",
        "build",
        "channel",
    )
    __slots__ = FIELDS

    version: str
    build: str
    channel: str | None

    def __init__(
        self,
        *,
        version: str,
        build: str,
        channel: str | None = None,
    ) -> None:
        self.version = version
        self.build = build
        self.channel = channel


class PackagesSection(Section):
    FIELDS = (
        "unknown",
        "installed",
        "project_root",
        "lock_files",
        "conda",
    )
    __slots__ = FIELDS

    unknown: dict[str, str]
    installed: dict[str, Package]
    project_root: str | None
    lock_files: list[LockFile]
    conda: dict[str, CondaPackage] | None

    def __init__(
        self,
        *,
        unknown: dict[str, str] | None = None,
        installed: dict[str, Package],
        project_root: str | None,
        lock_files: list[LockFile] | None = None,
        conda: dict[str, CondaPackage] | None = None,
    ) -> None:
        self.unknown = {} if unknown is None else unknown
        self.installed = installed
        self.project_root = project_root
        self.lock_files = [] if lock_files is None else lock_files
        self.conda = conda


class Cpu(Record):
    FIELDS = (
        "vendor",
        "model",
        "architecture",
        "isa_flags",
        "logical_cores",
        "physical_cores",
        "usable_cores",
    )
    __slots__ = FIELDS

    vendor: str | None
    model: str | None
    architecture: str | None
    isa_flags: list[str]
    logical_cores: int | None
    physical_cores: int | None
    usable_cores: int | None

    def __init__(
        self,
        *,
        vendor: str | None,
        model: str | None,
        architecture: str | None,
        isa_flags: list[str],
        logical_cores: int | None,
        physical_cores: int | None,
        usable_cores: int | None,
    ) -> None:
        self.vendor = vendor
        self.model = model
        self.architecture = architecture
        self.isa_flags = isa_flags
        self.logical_cores = logical_cores
        self.physical_cores = physical_cores
        self.usable_cores = usable_cores


class Container(Record):
    FIELDS = (
        "runtime",
        "cgroup_version",
        "cpu_limit",
        "memory_limit_bytes",
    )
    __slots__ = FIELDS

    runtime: str | None
    cgroup_version: int | None
    cpu_limit: float | None
    memory_limit_bytes: int | None

    def __init__(
        self,
        *,
        runtime: str | None,
        cgroup_version: int | None,
        cpu_limit: float | None,
        memory_limit_bytes: int | None,
    ) -> None:
        self.runtime = runtime
        self.cgroup_version = cgroup_version
        self.cpu_limit = as_float(cpu_limit)
        self.memory_limit_bytes = memory_limit_bytes


class SystemSection(Section):
    FIELDS = (
        "unknown",
        "os",
        "os_release",
        "kernel",
        "libc",
        "hostname",
        "cpu",
        "memory_total_bytes",
        "container",
    )
    __slots__ = FIELDS

    unknown: dict[str, str]
    os: str
    os_release: str | None
    kernel: str | None
    libc: str | None
    hostname: str | None
    cpu: Cpu
    memory_total_bytes: int | None
    container: Container

    def __init__(
        self,
        *,
        unknown: dict[str, str] | None = None,
        os: str,
        os_release: str | None,
        kernel: str | None,
        libc: str | None,
        hostname: str | None,
        cpu: Cpu,
        memory_total_bytes: int | None,
        container: Container,
    ) -> None:
        self.unknown = {} if unknown is None else unknown
        self.os = os
        self.os_release = os_release
        self.kernel = kernel
        self.libc = libc
        self.hostname = hostname
        self.cpu = cpu
        self.memory_total_bytes = memory_total_bytes
        self.container = container


class EnvSection(Section):
    FIELDS = (
        "unknown",
        "variables",
        "prefixes",
        "names",
        "redacted",
    )
    __slots__ = FIELDS

    unknown: dict[str, str]
    variables: dict[str, str]
    prefixes: list[str]
    names: list[str]
    redacted: list[str]

    def __init__(
        self,
        *,
        unknown: dict[str, str] | None = None,
        variables: dict[str, str],
        prefixes: list[str],
        names: list[str],
        redacted: list[str] | None = None,
    ) -> None:
        self.unknown = {} if unknown is None else unknown
        self.variables = variables
        self.prefixes = prefixes
        self.names = names
        self.redacted = [] if redacted is None else redacted


class GpuCapabilities(Record):
    FIELDS = (
        "tf32",
        "bf16",
        "fp8",
        "flash_sdpa",
    )
    __slots__ = FIELDS

    tf32: bool
    bf16: bool
    fp8: bool
    flash_sdpa: bool

    def __init__(
        self,
        *,
        tf32: bool,
        bf16: bool,
        fp8: bool,
        flash_sdpa: bool,
    ) -> None:
        self.tf32 = tf32
        self.bf16 = bf16
        self.fp8 = fp8
        self.flash_sdpa = flash_sdpa


class MigDevice(Record):
    FIELDS = (
        "index",
        "profile",
        "uuid_hash",
        "gpu_instance_id",
        "compute_instance_id",
        "memory_total_bytes",
        "sm_count",
    )
    __slots__ = FIELDS

    index: int
    profile: str | None
    uuid_hash: str | None
    gpu_instance_id: int | None
    compute_instance_id: int | None
    memory_total_bytes: int | None
    sm_count: int | None

    def __init__(
        self,
        *,
        index: int,
        profile: str | None,
        uuid_hash: str | None,
        gpu_instance_id: int | None,
        compute_instance_id: int | None,
        memory_total_bytes: int | None,
        sm_count: int | None,
    ) -> None:
        self.index = index
        self.profile = profile
        self.uuid_hash = uuid_hash
        self.gpu_instance_id = gpu_instance_id
        self.compute_instance_id = compute_instance_id
        self.memory_total_bytes = memory_total_bytes
        self.sm_count = sm_count


class GpuDevice(Record):
    FIELDS = (
        "index",
        "name",
        "uuid_hash",
        "pci_bus_id",
        "compute_capability",
        "arch",
        "capabilities",
        "memory_total_bytes",
        "sm_count",
        "mig_mode",
        "mig_mode_pending",
        "mig_devices",
        "ecc_enabled",
        "persistence_mode",
        "compute_mode",
        "power_limit_w",
        "app_clock_graphics_mhz",
        "app_clock_memory_mhz",
        "nvlink_active_links",
    )
    __slots__ = FIELDS

    index: int
    name: str | None
    uuid_hash: str | None
    pci_bus_id: str | None
    compute_capability: str | None
    arch: str | None
    capabilities: GpuCapabilities | None
    memory_total_bytes: int | None
    sm_count: int | None
    mig_mode: bool | None
    mig_mode_pending: bool | None
    mig_devices: list[MigDevice]
    ecc_enabled: bool | None
    persistence_mode: bool | None
    compute_mode: str | None
    power_limit_w: float | None
    app_clock_graphics_mhz: int | None
    app_clock_memory_mhz: int | None
    nvlink_active_links: int | None

    def __init__(
        self,
        *,
        index: int,
        name: str | None,
        uuid_hash: str | None,
        pci_bus_id: str | None,
        compute_capability: str | None,
        arch: str | None,
        capabilities: GpuCapabilities | None,
        memory_total_bytes: int | None,
        sm_count: int | None,
        mig_mode: bool | None,
        mig_mode_pending: bool | None,
        mig_devices: list[MigDevice] | None = None,
        ecc_enabled: bool | None,
        persistence_mode: bool | None,
        compute_mode: str | None,
        power_limit_w: float | None,
        app_clock_graphics_mhz: int | None,
        app_clock_memory_mhz: int | None,
        nvlink_active_links: int | None,
    ) -> None:
        self.index = index
        self.name = name
        self.uuid_hash = uuid_hash
        self.pci_bus_id = pci_bus_id
        self.compute_capability = compute_capability
        self.arch = arch
        self.capabilities = capabilities
        self.memory_total_bytes = memory_total_bytes
        self.sm_count = sm_count
        self.mig_mode = mig_mode
        self.mig_mode_pending = mig_mode_pending
        self.mig_devices = [] if mig_devices is None else mig_devices
        self.ecc_enabled = ecc_enabled
        self.persistence_mode = persistence_mode
        self.compute_mode = compute_mode
        self.power_limit_w = as_float(power_limit_w)
        self.app_clock_graphics_mhz = app_clock_graphics_mhz
        self.app_clock_memory_mhz = app_clock_memory_mhz
        self.nvlink_active_links = nvlink_active_links


class GpuLink(Record):
    FIELDS = (
        "topology",
        "nvlink",
    )
    __slots__ = FIELDS

    topology: str | None
    nvlink: bool | None

    def __init__(
        self,
        *,
        topology: str | None,
        nvlink: bool | None,
    ) -> None:
        self.topology = topology
        self.nvlink = nvlink


class VisibleDevice(Record):
    FIELDS = (
        "cuda_index",
        "selector",
        "gpu_index",
        "mig_index",
    )
    __slots__ = FIELDS

    cuda_index: int
    selector: str
    gpu_index: int | None
    mig_index: int | None

    def __init__(
        self,
        *,
        cuda_index: int,
        selector: str,
        gpu_index: int | None,
        mig_index: int | None = None,
    ) -> None:
        self.cuda_index = cuda_index
        self.selector = selector
        self.gpu_index = gpu_index
        self.mig_index = mig_index


class GpuSection(Section):
    FIELDS = (
        "unknown",
        "driver_version",
        "cuda_driver_version",
        "nvml_version",
        "device_count",
        "devices",
        "links",
        "cuda_visible_devices",
        "cuda_device_order",
        "visible",
    )
    __slots__ = FIELDS

    unknown: dict[str, str]
    driver_version: str | None
    cuda_driver_version: str | None
    nvml_version: str | None
    device_count: int | None
    devices: dict[str, GpuDevice]
    links: dict[str, GpuLink]
    cuda_visible_devices: str | None
    cuda_device_order: str | None
    visible: list[VisibleDevice]

    def __init__(
        self,
        *,
        unknown: dict[str, str] | None = None,
        driver_version: str | None,
        cuda_driver_version: str | None,
        nvml_version: str | None,
        device_count: int | None,
        devices: dict[str, GpuDevice],
        links: dict[str, GpuLink] | None = None,
        cuda_visible_devices: str | None,
        cuda_device_order: str | None,
        visible: list[VisibleDevice],
    ) -> None:
        self.unknown = {} if unknown is None else unknown
        self.driver_version = driver_version
        self.cuda_driver_version = cuda_driver_version
        self.nvml_version = nvml_version
        self.device_count = device_count
        self.devices = devices
        self.links = {} if links is None else links
        self.cuda_visible_devices = cuda_visible_devices
        self.cuda_device_order = cuda_device_order
        self.visible = visible


class LibraryCopy(Record):
    FIELDS = (
        "source",
        "version",
        "package",
        "path",
    )
    __slots__ = FIELDS

    source: LibrarySource
    version: str | None
    package: str | None
    path: str | None

    def __init__(
        self,
        *,
        source: LibrarySource,
        version: str | None,
        package: str | None,
        path: str | None,
    ) -> None:
        self.source = source
        self.version = version
        self.package = package
        self.path = path


class Library(Record):
    FIELDS = (
        "version",
        "selected",
        "reason",
        "copies",
    )
    __slots__ = FIELDS

    version: str | None
    selected: LibraryCopy | None
    reason: str
    copies: list[LibraryCopy]

    def __init__(
        self,
        *,
        version: str | None,
        selected: LibraryCopy | None,
        reason: str,
        copies: list[LibraryCopy] | None = None,
    ) -> None:
        self.version = version
        self.selected = selected
        self.reason = reason
        self.copies = [] if copies is None else copies


class CudaStackSection(Section):
    FIELDS = (
        "unknown",
        "torch_version",
        "torch_build",
        "torch_path",
        "torch_cuda",
        "torch_hip",
        "torch_git_version",
        "libraries",
        "search_dirs",
    )
    __slots__ = FIELDS

    unknown: dict[str, str]
    torch_version: str | None
    torch_build: str | None
    torch_path: str | None
    torch_cuda: str | None
    torch_hip: str | None
    torch_git_version: str | None
    libraries: dict[str, Library]
    search_dirs: list[str]

    def __init__(
        self,
        *,
        unknown: dict[str, str] | None = None,
        torch_version: str | None,
        torch_build: str | None,
        torch_path: str | None,
        torch_cuda: str | None,
        torch_hip: str | None,
        torch_git_version: str | None,
        libraries: dict[str, Library],
        search_dirs: list[str] | None = None,
    ) -> None:
        self.unknown = {} if unknown is None else unknown
        self.torch_version = torch_version
        self.torch_build = torch_build
        self.torch_path = torch_path
        self.torch_cuda = torch_cuda
        self.torch_hip = torch_hip
        self.torch_git_version = torch_git_version
        self.libraries = libraries
        self.search_dirs = [] if search_dirs is None else search_dirs


class CudnnFlags(Record):
    FIELDS = (
        "enabled",
        "benchmark",
        "deterministic",
        "allow_tf32",
        "available",
        "version",
    )
    __slots__ = FIELDS

    enabled: bool | None
    benchmark: bool | None
    deterministic: bool | None
    allow_tf32: bool | None
    available: bool | None
    version: int | None

    def __init__(
        self,
        *,
        enabled: bool | None,
        benchmark: bool | None,
        deterministic: bool | None,
        allow_tf32: bool | None,
        available: bool | None,
        version: int | None,
    ) -> None:
        self.enabled = enabled
        self.benchmark = benchmark
        self.deterministic = deterministic
        self.allow_tf32 = allow_tf32
        self.available = available
        self.version = version


class MatmulFlags(Record):
    FIELDS = (
        "allow_tf32",
        "allow_fp16_reduced_precision_reduction",
        "allow_bf16_reduced_precision_reduction",
        "allow_fp16_accumulation",
        "float32_matmul_precision",
    )
    __slots__ = FIELDS

    allow_tf32: bool | None
    allow_fp16_reduced_precision_reduction: str | None
    allow_bf16_reduced_precision_reduction: str | None
    allow_fp16_accumulation: bool | None
    float32_matmul_precision: str | None

    def __init__(
        self,
        *,
        allow_tf32: bool | None,
        allow_fp16_reduced_precision_reduction: str | None,
        allow_bf16_reduced_precision_reduction: str | None,
        allow_fp16_accumulation: bool | None,
        float32_matmul_precision: str | None,
    ) -> None:
        self.allow_tf32 = allow_tf32
        self.allow_fp16_reduced_precision_reduction = allow_fp16_reduced_precision_reduction
        self.allow_bf16_reduced_precision_reduction = allow_bf16_reduced_precision_reduction
        self.allow_fp16_accumulation = allow_fp16_accumulation
        self.float32_matmul_precision = float32_matmul_precision


class SdpaFlags(Record):
    FIELDS = (
        "flash",
        "mem_efficient",
        "math",
        "cudnn",
        "fp16_bf16_reduction_math",
    )
    __slots__ = FIELDS

    flash: bool | None
    mem_efficient: bool | None
    math: bool | None
    cudnn: bool | None
    fp16_bf16_reduction_math: bool | None

    def __init__(
        self,
        *,
        flash: bool | None,
        mem_efficient: bool | None,
        math: bool | None,
        cudnn: bool | None,
        fp16_bf16_reduction_math: bool | None,
    ) -> None:
        self.flash = flash
        self.mem_efficient = mem_efficient
        self.math = math
        self.cudnn = cudnn
        self.fp16_bf16_reduction_math = fp16_bf16_reduction_math


class Determinism(Record):
    FIELDS = (
        "algorithms",
        "warn_only",
        "debug_mode",
        "fill_uninitialized_memory",
    )
    __slots__ = FIELDS

    algorithms: bool | None
    warn_only: bool | None
    debug_mode: int | None
    fill_uninitialized_memory: bool | None

    def __init__(
        self,
        *,
        algorithms: bool | None,
        warn_only: bool | None,
        debug_mode: int | None,
        fill_uninitialized_memory: bool | None,
    ) -> None:
        self.algorithms = algorithms
        self.warn_only = warn_only
        self.debug_mode = debug_mode
        self.fill_uninitialized_memory = fill_uninitialized_memory


class CpuKernels(Record):
    FIELDS = (
        "mkldnn_enabled",
        "bf16",
        "amx_fp16",
        "features",
    )
    __slots__ = FIELDS

    mkldnn_enabled: bool | None
    bf16: bool | None
    amx_fp16: bool | None
    features: list[str]

    def __init__(
        self,
        *,
        mkldnn_enabled: bool | None = None,
        bf16: bool | None = None,
        amx_fp16: bool | None = None,
        features: list[str] | None = None,
    ) -> None:
        self.mkldnn_enabled = mkldnn_enabled
        self.bf16 = bf16
        self.amx_fp16 = amx_fp16
        self.features = [] if features is None else features


class TorchBuild(Record):
    FIELDS = (
        "blas",
        "lapack",
        "onednn",
        "openmp",
        "mkl",
        "mkldnn",
        "cuda_arch_list",
        "settings",
    )
    __slots__ = FIELDS

    blas: str | None
    lapack: str | None
    onednn: str | None
    openmp: str | None
    mkl: bool | None
    mkldnn: bool | None
    cuda_arch_list: list[str]
    settings: dict[str, str]

    def __init__(
        self,
        *,
        blas: str | None,
        lapack: str | None,
        onednn: str | None,
        openmp: str | None,
        mkl: bool | None,
        mkldnn: bool | None,
        cuda_arch_list: list[str] | None = None,
        settings: dict[str, str] | None = None,
    ) -> None:
        self.blas = blas
        self.lapack = lapack
        self.onednn = onednn
        self.openmp = openmp
        self.mkl = mkl
        self.mkldnn = mkldnn
        self.cuda_arch_list = [] if cuda_arch_list is None else cuda_arch_list
        self.settings = {} if settings is None else settings


class CompileSettings(Record):
    FIELDS = (
        "fallback_random",
        "deterministic",
        "emulate_precision_casts",
        "max_autotune",
        "max_autotune_gemm",
        "coordinate_descent_tuning",
        "force_disable_caches",
    )
    __slots__ = FIELDS

    fallback_random: bool | None
    deterministic: bool | None
    emulate_precision_casts: bool | None
    max_autotune: bool | None
    max_autotune_gemm: bool | None
    coordinate_descent_tuning: bool | None
    force_disable_caches: bool | None

    def __init__(
        self,
        *,
        fallback_random: bool | None,
        deterministic: bool | None,
        emulate_precision_casts: bool | None,
        max_autotune: bool | None,
        max_autotune_gemm: bool | None,
        coordinate_descent_tuning: bool | None,
        force_disable_caches: bool | None,
    ) -> None:
        self.fallback_random = fallback_random
        self.deterministic = deterministic
        self.emulate_precision_casts = emulate_precision_casts
        self.max_autotune = max_autotune
        self.max_autotune_gemm = max_autotune_gemm
        self.coordinate_descent_tuning = coordinate_descent_tuning
        self.force_disable_caches = force_disable_caches


class EffectiveTf32(Record):
    FIELDS = (
        "tf32",
        "internal_precision",
        "reason",
    )
    __slots__ = FIELDS

    tf32: YesNoUnknown
    internal_precision: str | None
    reason: str

    def __init__(
        self,
        *,
        tf32: YesNoUnknown,
        internal_precision: str | None,
        reason: str,
    ) -> None:
        self.tf32 = tf32
        self.internal_precision = internal_precision
        self.reason = reason


class EffectivePrecision(Record):
    FIELDS = (
        "matmul_fp32",
        "conv_fp32",
        "devices",
        "overrides",
    )
    __slots__ = FIELDS

    matmul_fp32: EffectiveTf32
    conv_fp32: EffectiveTf32
    devices: list[str]
    overrides: dict[str, str]

    def __init__(
        self,
        *,
        matmul_fp32: EffectiveTf32,
        conv_fp32: EffectiveTf32,
        devices: list[str] | None = None,
        overrides: dict[str, str] | None = None,
    ) -> None:
        self.matmul_fp32 = matmul_fp32
        self.conv_fp32 = conv_fp32
        self.devices = [] if devices is None else devices
        self.overrides = {} if overrides is None else overrides


class TorchSection(Section):
    FIELDS = (
        "unknown",
        "version",
        "cuda",
        "hip",
        "git_version",
        "imported_by",
        "cuda_built",
        "cuda_initialized",
        "cuda_available",
        "cuda_device_count",
        "nccl_version",
        "cudnn",
        "matmul",
        "fp32_precision",
        "sdpa",
        "deterministic",
        "num_threads",
        "num_interop_threads",
        "default_dtype",
        "cpu_capability",
        "cpu",
        "build",
        "compile",
        "compiled",
        "effective",
    )
    __slots__ = FIELDS

    unknown: dict[str, str]
    version: str
    cuda: str | None
    hip: str | None
    git_version: str | None
    imported_by: Literal["job", "envsnap"]
    cuda_built: bool
    cuda_initialized: bool
    cuda_available: bool | None
    cuda_device_count: int | None
    nccl_version: str | None
    cudnn: CudnnFlags
    matmul: MatmulFlags
    fp32_precision: dict[str, str]
    sdpa: SdpaFlags
    deterministic: Determinism
    num_threads: int | None
    num_interop_threads: int | None
    default_dtype: str | None
    cpu_capability: str | None
    cpu: CpuKernels | None
    build: TorchBuild
    compile: CompileSettings | None
    compiled: bool | None
    effective: EffectivePrecision

    def __init__(
        self,
        *,
        unknown: dict[str, str] | None = None,
        version: str,
        cuda: str | None,
        hip: str | None,
        git_version: str | None,
        imported_by: Literal["job", "envsnap"],
        cuda_built: bool,
        cuda_initialized: bool,
        cuda_available: bool | None,
        cuda_device_count: int | None,
        nccl_version: str | None,
        cudnn: CudnnFlags,
        matmul: MatmulFlags,
        fp32_precision: dict[str, str] | None = None,
        sdpa: SdpaFlags,
        deterministic: Determinism,
        num_threads: int | None,
        num_interop_threads: int | None,
        default_dtype: str | None,
        cpu_capability: str | None,
        cpu: CpuKernels | None = None,
        build: TorchBuild,
        compile: CompileSettings | None,
        compiled: bool | None = None,
        effective: EffectivePrecision,
    ) -> None:
        self.unknown = {} if unknown is None else unknown
        self.version = version
        self.cuda = cuda
        self.hip = hip
        self.git_version = git_version
        self.imported_by = imported_by
        self.cuda_built = cuda_built
        self.cuda_initialized = cuda_initialized
        self.cuda_available = cuda_available
        self.cuda_device_count = cuda_device_count
        self.nccl_version = nccl_version
        self.cudnn = cudnn
        self.matmul = matmul
        self.fp32_precision = {} if fp32_precision is None else fp32_precision
        self.sdpa = sdpa
        self.deterministic = deterministic
        self.num_threads = num_threads
        self.num_interop_threads = num_interop_threads
        self.default_dtype = default_dtype
        self.cpu_capability = cpu_capability
        self.cpu = cpu
        self.build = build
        self.compile = compile
        self.compiled = compiled
        self.effective = effective


class DtypeStats(Record):
    FIELDS = (
        "tensors",
        "elements",
        "bytes",
    )
    __slots__ = FIELDS

    tensors: int
    elements: int
    bytes: int

    def __init__(
        self,
        *,
        tensors: int,
        elements: int,
        bytes: int,
    ) -> None:
        self.tensors = tensors
        self.elements = elements
        self.bytes = bytes


class AutocastState(Record):
    FIELDS = (
        "enabled",
        "dtype",
    )
    __slots__ = FIELDS

    enabled: bool
    dtype: str | None

    def __init__(
        self,
        *,
        enabled: bool,
        dtype: str | None = None,
    ) -> None:
        self.enabled = enabled
        self.dtype = dtype


class ScalerState(Record):
    FIELDS = (
        "class_name",
        "enabled",
        "device",
        "scale",
        "growth_factor",
        "backoff_factor",
        "growth_interval",
    )
    __slots__ = FIELDS

    class_name: str
    enabled: bool
    device: str | None
    scale: float | None
    growth_factor: float | None
    backoff_factor: float | None
    growth_interval: int | None

    def __init__(
        self,
        *,
        class_name: str,
        enabled: bool,
        device: str | None = None,
        scale: float | None = None,
        growth_factor: float | None = None,
        backoff_factor: float | None = None,
        growth_interval: int | None = None,
    ) -> None:
        self.class_name = class_name
        self.enabled = enabled
        self.device = device
        self.scale = as_float(scale)
        self.growth_factor = as_float(growth_factor)
        self.backoff_factor = as_float(backoff_factor)
        self.growth_interval = growth_interval


class OptimizerInfo(Record):
    FIELDS = (
        "class_name",
        "param_groups",
        "state_dtypes",
        "steps",
    )
    __slots__ = FIELDS

    class_name: str
    param_groups: dict[str, dict[str, JsonValue]]
    state_dtypes: dict[str, dict[str, int]]
    steps: int | None

    def __init__(
        self,
        *,
        class_name: str,
        param_groups: dict[str, dict[str, JsonValue]],
        state_dtypes: dict[str, dict[str, int]] | None = None,
        steps: int | None = None,
    ) -> None:
        self.class_name = class_name
        self.param_groups = param_groups
        self.state_dtypes = {} if state_dtypes is None else state_dtypes
        self.steps = steps


class SchedulerInfo(Record):
    FIELDS = (
        "class_name",
        "state",
        "last_lr",
    )
    __slots__ = FIELDS

    class_name: str
    state: dict[str, JsonValue]
    last_lr: list[float] | None

    def __init__(
        self,
        *,
        class_name: str,
        state: dict[str, JsonValue],
        last_lr: list[float] | None = None,
    ) -> None:
        self.class_name = class_name
        self.state = state
        self.last_lr = last_lr


class PrecisionSection(Section):
    FIELDS = (
        "unknown",
        "amp_dtype",
        "matmul_input_precision",
        "accumulation_dtype",
        "grad_dtype",
        "optimizer_state_dtype",
        "master_weights_dtype",
        "fsdp_param_dtype",
        "fsdp_reduce_dtype",
        "fsdp_buffer_dtype",
        "fp8_recipe",
        "device",
        "other",
        "params",
        "buffers",
        "grads",
        "trainable_elements",
        "model_class",
        "params_device",
        "autocast",
        "scaler",
        "optimizer",
        "scheduler",
        "sources",
    )
    __slots__ = FIELDS

    unknown: dict[str, str]
    amp_dtype: str | None
    matmul_input_precision: str | None
    accumulation_dtype: str | None
    grad_dtype: str | None
    optimizer_state_dtype: str | None
    master_weights_dtype: str | None
    fsdp_param_dtype: str | None
    fsdp_reduce_dtype: str | None
    fsdp_buffer_dtype: str | None
    fp8_recipe: str | None
    device: str | None
    other: dict[str, JsonValue]
    params: dict[str, DtypeStats]
    buffers: dict[str, DtypeStats]
    grads: dict[str, DtypeStats]
    trainable_elements: int | None
    model_class: str | None
    params_device: str | None
    autocast: dict[str, AutocastState]
    scaler: ScalerState | None
    optimizer: OptimizerInfo | None
    scheduler: SchedulerInfo | None
    sources: dict[str, str]

    def __init__(
        self,
        *,
        unknown: dict[str, str] | None = None,
        amp_dtype: str | None = None,
        matmul_input_precision: str | None = None,
        accumulation_dtype: str | None = None,
        grad_dtype: str | None = None,
        optimizer_state_dtype: str | None = None,
        master_weights_dtype: str | None = None,
        fsdp_param_dtype: str | None = None,
        fsdp_reduce_dtype: str | None = None,
        fsdp_buffer_dtype: str | None = None,
        fp8_recipe: str | None = None,
        device: str | None = None,
        other: dict[str, JsonValue] | None = None,
        params: dict[str, DtypeStats] | None = None,
        buffers: dict[str, DtypeStats] | None = None,
        grads: dict[str, DtypeStats] | None = None,
        trainable_elements: int | None = None,
        model_class: str | None = None,
        params_device: str | None = None,
        autocast: dict[str, AutocastState] | None = None,
        scaler: ScalerState | None = None,
        optimizer: OptimizerInfo | None = None,
        scheduler: SchedulerInfo | None = None,
        sources: dict[str, str] | None = None,
    ) -> None:
        self.unknown = {} if unknown is None else unknown
        self.amp_dtype = amp_dtype
        self.matmul_input_precision = matmul_input_precision
        self.accumulation_dtype = accumulation_dtype
        self.grad_dtype = grad_dtype
        self.optimizer_state_dtype = optimizer_state_dtype
        self.master_weights_dtype = master_weights_dtype
        self.fsdp_param_dtype = fsdp_param_dtype
        self.fsdp_reduce_dtype = fsdp_reduce_dtype
        self.fsdp_buffer_dtype = fsdp_buffer_dtype
        self.fp8_recipe = fp8_recipe
        self.device = device
        self.other = {} if other is None else other
        self.params = {} if params is None else params
        self.buffers = {} if buffers is None else buffers
        self.grads = {} if grads is None else grads
        self.trainable_elements = trainable_elements
        self.model_class = model_class
        self.params_device = params_device
        self.autocast = {} if autocast is None else autocast
        self.scaler = scaler
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.sources = {} if sources is None else sources


class SamplerInfo(Record):
    FIELDS = (
        "class_name",
        "shuffle",
        "seed",
        "epoch",
        "num_replicas",
        "rank",
        "drop_last",
        "generator_seed",
        "split_batches",
        "replacement",
    )
    __slots__ = FIELDS

    class_name: str
    shuffle: bool | None
    seed: int | None
    epoch: int | None
    num_replicas: int | None
    rank: int | None
    drop_last: bool | None
    generator_seed: int | None
    split_batches: bool | None
    replacement: bool | None

    def __init__(
        self,
        *,
        class_name: str,
        shuffle: bool | None = None,
        seed: int | None = None,
        epoch: int | None = None,
        num_replicas: int | None = None,
        rank: int | None = None,
        drop_last: bool | None = None,
        generator_seed: int | None = None,
        split_batches: bool | None = None,
        replacement: bool | None = None,
    ) -> None:
        self.class_name = class_name
        self.shuffle = shuffle
        self.seed = seed
        self.epoch = epoch
        self.num_replicas = num_replicas
        self.rank = rank
        self.drop_last = drop_last
        self.generator_seed = generator_seed
        self.split_batches = split_batches
        self.replacement = replacement


class DataLoaderInfo(Record):
    FIELDS = (
        "class_name",
        "batch_size",
        "drop_last",
        "num_workers",
        "persistent_workers",
        "pin_memory",
        "prefetch_factor",
        "timeout",
        "sampler",
        "batch_sampler_class",
        "generator_seed",
        "worker_init_fn",
        "collate_fn",
        "dataset_class",
        "dataset_length",
        "batches_per_epoch",
    )
    __slots__ = FIELDS

    class_name: str
    batch_size: int | None
    drop_last: bool | None
    num_workers: int | None
    persistent_workers: bool | None
    pin_memory: bool | None
    prefetch_factor: int | None
    timeout: float | None
    sampler: SamplerInfo | None
    batch_sampler_class: str | None
    generator_seed: int | None
    worker_init_fn: str | None
    collate_fn: str | None
    dataset_class: str | None
    dataset_length: int | None
    batches_per_epoch: int | None

    def __init__(
        self,
        *,
        class_name: str,
        batch_size: int | None = None,
        drop_last: bool | None = None,
        num_workers: int | None = None,
        persistent_workers: bool | None = None,
        pin_memory: bool | None = None,
        prefetch_factor: int | None = None,
        timeout: float | None = None,
        sampler: SamplerInfo | None = None,
        batch_sampler_class: str | None = None,
        generator_seed: int | None = None,
        worker_init_fn: str | None = None,
        collate_fn: str | None = None,
        dataset_class: str | None = None,
        dataset_length: int | None = None,
        batches_per_epoch: int | None = None,
    ) -> None:
        self.class_name = class_name
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.num_workers = num_workers
        self.persistent_workers = persistent_workers
        self.pin_memory = pin_memory
        self.prefetch_factor = prefetch_factor
        self.timeout = as_float(timeout)
        self.sampler = sampler
        self.batch_sampler_class = batch_sampler_class
        self.generator_seed = generator_seed
        self.worker_init_fn = worker_init_fn
        self.collate_fn = collate_fn
        self.dataset_class = dataset_class
        self.dataset_length = dataset_length
        self.batches_per_epoch = batches_per_epoch


class ParallelSection(Section):
    FIELDS = (
        "unknown",
        "strategy",
        "zero_stage",
        "dp_size",
        "tp_size",
        "pp_size",
        "cp_size",
        "ep_size",
        "micro_batch_size",
        "grad_accum_steps",
        "global_batch_declared",
        "drop_last",
        "loss_normalization",
        "ddp_bucket_cap_mb",
        "ddp_find_unused_parameters",
        "ddp_broadcast_buffers",
        "ddp_gradient_as_bucket_view",
        "ddp_static_graph",
        "node_count",
        "other",
        "initialized",
        "backend",
        "world_size",
        "rank",
        "local_rank",
        "local_world_size",
        "global_batch",
        "global_batch_formula",
        "global_batch_consistent",
        "dataloader",
        "dataloaders",
        "model_wrappers",
        "sources",
    )
    __slots__ = FIELDS

    unknown: dict[str, str]
    strategy: str | None
    zero_stage: int | None
    dp_size: int | None
    tp_size: int | None
    pp_size: int | None
    cp_size: int | None
    ep_size: int | None
    micro_batch_size: int | None
    grad_accum_steps: int | None
    global_batch_declared: int | None
    drop_last: bool | None
    loss_normalization: str | None
    ddp_bucket_cap_mb: float | None
    ddp_find_unused_parameters: bool | None
    ddp_broadcast_buffers: bool | None
    ddp_gradient_as_bucket_view: bool | None
    ddp_static_graph: bool | None
    node_count: int | None
    other: dict[str, JsonValue]
    initialized: bool
    backend: str | None
    world_size: int | None
    rank: int | None
    local_rank: int | None
    local_world_size: int | None
    global_batch: int | None
    global_batch_formula: str | None
    global_batch_consistent: bool | None
    dataloader: DataLoaderInfo | None
    dataloaders: dict[str, DataLoaderInfo]
    model_wrappers: list[str]
    sources: dict[str, str]

    def __init__(
        self,
        *,
        unknown: dict[str, str] | None = None,
        strategy: str | None = None,
        zero_stage: int | None = None,
        dp_size: int | None = None,
        tp_size: int | None = None,
        pp_size: int | None = None,
        cp_size: int | None = None,
        ep_size: int | None = None,
        micro_batch_size: int | None = None,
        grad_accum_steps: int | None = None,
        global_batch_declared: int | None = None,
        drop_last: bool | None = None,
        loss_normalization: str | None = None,
        ddp_bucket_cap_mb: float | None = None,
        ddp_find_unused_parameters: bool | None = None,
        ddp_broadcast_buffers: bool | None = None,
        ddp_gradient_as_bucket_view: bool | None = None,
        ddp_static_graph: bool | None = None,
        node_count: int | None = None,
        other: dict[str, JsonValue] | None = None,
        initialized: bool = False,
        backend: str | None = None,
        world_size: int | None = None,
        rank: int | None = None,
        local_rank: int | None = None,
        local_world_size: int | None = None,
        global_batch: int | None = None,
        global_batch_formula: str | None = None,
        global_batch_consistent: bool | None = None,
        dataloader: DataLoaderInfo | None = None,
        dataloaders: dict[str, DataLoaderInfo] | None = None,
        model_wrappers: list[str] | None = None,
        sources: dict[str, str] | None = None,
    ) -> None:
        self.unknown = {} if unknown is None else unknown
        self.strategy = strategy
        self.zero_stage = zero_stage
        self.dp_size = dp_size
        self.tp_size = tp_size
        self.pp_size = pp_size
        self.cp_size = cp_size
        self.ep_size = ep_size
        self.micro_batch_size = micro_batch_size
        self.grad_accum_steps = grad_accum_steps
        self.global_batch_declared = global_batch_declared
        self.drop_last = drop_last
        self.loss_normalization = loss_normalization
        self.ddp_bucket_cap_mb = as_float(ddp_bucket_cap_mb)
        self.ddp_find_unused_parameters = ddp_find_unused_parameters
        self.ddp_broadcast_buffers = ddp_broadcast_buffers
        self.ddp_gradient_as_bucket_view = ddp_gradient_as_bucket_view
        self.ddp_static_graph = ddp_static_graph
        self.node_count = node_count
        self.other = {} if other is None else other
        self.initialized = initialized
        self.backend = backend
        self.world_size = world_size
        self.rank = rank
        self.local_rank = local_rank
        self.local_world_size = local_world_size
        self.global_batch = global_batch
        self.global_batch_formula = global_batch_formula
        self.global_batch_consistent = global_batch_consistent
        self.dataloader = dataloader
        self.dataloaders = {} if dataloaders is None else dataloaders
        self.model_wrappers = [] if model_wrappers is None else model_wrappers
        self.sources = {} if sources is None else sources


class FileEntry(Record):
    FIELDS = (
        "size",
        "digest",
        "mtime_ns",
        "error",
        "unstable",
    )
    __slots__ = FIELDS

    size: int | None
    digest: str | None
    mtime_ns: int | None
    error: str | None
    unstable: bool

    def __init__(
        self,
        *,
        size: int | None = None,
        digest: str | None = None,
        mtime_ns: int | None = None,
        error: str | None = None,
        unstable: bool = False,
    ) -> None:
        self.size = size
        self.digest = digest
        self.mtime_ns = mtime_ns
        self.error = error
        self.unstable = unstable


class DatasetInfo(Record):
    FIELDS = (
        "class_name",
        "fingerprint",
        "num_rows",
        "split",
        "features_digest",
        "features",
        "builder_name",
        "config_name",
        "version",
    )
    __slots__ = FIELDS

    class_name: str
    fingerprint: str | None
    num_rows: int | None
    split: str | None
    features_digest: str | None
    features: dict[str, str]
    builder_name: str | None
    config_name: str | None
    version: str | None

    def __init__(
        self,
        *,
        class_name: str,
        fingerprint: str | None = None,
        num_rows: int | None = None,
        split: str | None = None,
        features_digest: str | None = None,
        features: dict[str, str] | None = None,
        builder_name: str | None = None,
        config_name: str | None = None,
        version: str | None = None,
    ) -> None:
        self.class_name = class_name
        self.fingerprint = fingerprint
        self.num_rows = num_rows
        self.split = split
        self.features_digest = features_digest
        self.features = {} if features is None else features
        self.builder_name = builder_name
        self.config_name = config_name
        self.version = version


class DataItem(Record):
    FIELDS = (
        "kind",
        "path",
        "resolved",
        "mode",
        "file_count",
        "total_bytes",
        "root",
        "files",
        "dirs",
        "files_truncated",
        "unstable",
        "versions",
        "dataset",
        "error",
    )
    __slots__ = FIELDS

    kind: ItemKind
    path: str | None
    resolved: str | None
    mode: HashMode | None
    file_count: int
    total_bytes: int
    root: str | None
    files: dict[str, FileEntry]
    dirs: dict[str, str]
    files_truncated: bool
    unstable: bool
    versions: dict[str, str]
    dataset: DatasetInfo | None
    error: str | None

    def __init__(
        self,
        *,
        kind: ItemKind,
        path: str | None = None,
        resolved: str | None = None,
        mode: HashMode | None = None,
        file_count: int = 0,
        total_bytes: int = 0,
        root: str | None = None,
        files: dict[str, FileEntry] | None = None,
        dirs: dict[str, str] | None = None,
        files_truncated: bool = False,
        unstable: bool = False,
        versions: dict[str, str] | None = None,
        dataset: DatasetInfo | None = None,
        error: str | None = None,
    ) -> None:
        self.kind = kind
        self.path = path
        self.resolved = resolved
        self.mode = mode
        self.file_count = file_count
        self.total_bytes = total_bytes
        self.root = root
        self.files = {} if files is None else files
        self.dirs = {} if dirs is None else dirs
        self.files_truncated = files_truncated
        self.unstable = unstable
        self.versions = {} if versions is None else versions
        self.dataset = dataset
        self.error = error


class DataSection(Section):
    FIELDS = (
        "unknown",
        "items",
        "hash_algorithm",
        "sample_block_bytes",
        "other",
    )
    __slots__ = FIELDS

    unknown: dict[str, str]
    items: dict[str, DataItem]
    hash_algorithm: str
    sample_block_bytes: int | None
    other: dict[str, JsonValue]

    def __init__(
        self,
        *,
        unknown: dict[str, str] | None = None,
        items: dict[str, DataItem] | None = None,
        hash_algorithm: str = "sha256",
        sample_block_bytes: int | None = None,
        other: dict[str, JsonValue] | None = None,
    ) -> None:
        self.unknown = {} if unknown is None else unknown
        self.items = {} if items is None else items
        self.hash_algorithm = hash_algorithm
        self.sample_block_bytes = sample_block_bytes
        self.other = {} if other is None else other


class AddedToken(Record):
    FIELDS = (
        "id",
        "special",
    )
    __slots__ = FIELDS

    id: int
    special: bool

    def __init__(
        self,
        *,
        id: int,
        special: bool = False,
    ) -> None:
        self.id = id
        self.special = special


class TokenizerSection(Section):
    FIELDS = (
        "unknown",
        "source",
        "path",
        "class_name",
        "model_type",
        "vocab_size",
        "model_digest",
        "normalizer_digest",
        "pre_tokenizer_digest",
        "post_processor_digest",
        "decoder_digest",
        "special_tokens",
        "added_tokens",
        "padding_side",
        "truncation_side",
        "model_max_length",
        "chat_template_digest",
        "files",
        "tokenizers_version",
        "transformers_version",
        "error",
    )
    __slots__ = FIELDS

    unknown: dict[str, str]
    source: str | None
    path: str | None
    class_name: str | None
    model_type: str | None
    vocab_size: int | None
    model_digest: str | None
    normalizer_digest: str | None
    pre_tokenizer_digest: str | None
    post_processor_digest: str | None
    decoder_digest: str | None
    special_tokens: dict[str, str]
    added_tokens: dict[str, AddedToken]
    padding_side: str | None
    truncation_side: str | None
    model_max_length: int | None
    chat_template_digest: str | None
    files: dict[str, str]
    tokenizers_version: str | None
    transformers_version: str | None
    error: str | None

    def __init__(
        self,
        *,
        unknown: dict[str, str] | None = None,
        source: str | None = None,
        path: str | None = None,
        class_name: str | None = None,
        model_type: str | None = None,
        vocab_size: int | None = None,
        model_digest: str | None = None,
        normalizer_digest: str | None = None,
        pre_tokenizer_digest: str | None = None,
        post_processor_digest: str | None = None,
        decoder_digest: str | None = None,
        special_tokens: dict[str, str] | None = None,
        added_tokens: dict[str, AddedToken] | None = None,
        padding_side: str | None = None,
        truncation_side: str | None = None,
        model_max_length: int | None = None,
        chat_template_digest: str | None = None,
        files: dict[str, str] | None = None,
        tokenizers_version: str | None = None,
        transformers_version: str | None = None,
        error: str | None = None,
    ) -> None:
        self.unknown = {} if unknown is None else unknown
        self.source = source
        self.path = path
        self.class_name = class_name
        self.model_type = model_type
        self.vocab_size = vocab_size
        self.model_digest = model_digest
        self.normalizer_digest = normalizer_digest
        self.pre_tokenizer_digest = pre_tokenizer_digest
        self.post_processor_digest = post_processor_digest
        self.decoder_digest = decoder_digest
        self.special_tokens = {} if special_tokens is None else special_tokens
        self.added_tokens = {} if added_tokens is None else added_tokens
        self.padding_side = padding_side
        self.truncation_side = truncation_side
        self.model_max_length = model_max_length
        self.chat_template_digest = chat_template_digest
        self.files = {} if files is None else files
        self.tokenizers_version = tokenizers_version
        self.transformers_version = transformers_version
        self.error = error


class TemplateEntry(Record):
    FIELDS = (
        "kind",
        "path",
        "digest",
        "bytes",
        "error",
    )
    __slots__ = FIELDS

    kind: Literal["file", "text"]
    path: str | None
    digest: str | None
    bytes: int | None
    error: str | None

    def __init__(
        self,
        *,
        kind: Literal["file", "text"],
        path: str | None = None,
        digest: str | None = None,
        bytes: int | None = None,
        error: str | None = None,
    ) -> None:
        self.kind = kind
        self.path = path
        self.digest = digest
        self.bytes = bytes
        self.error = error


class TemplatesSection(Section):
    FIELDS = (
        "unknown",
        "templates",
    )
    __slots__ = FIELDS

    unknown: dict[str, str]
    templates: dict[str, TemplateEntry]

    def __init__(
        self,
        *,
        unknown: dict[str, str] | None = None,
        templates: dict[str, TemplateEntry] | None = None,
    ) -> None:
        self.unknown = {} if unknown is None else unknown
        self.templates = {} if templates is None else templates


class DeterminismFlags(Record):
    FIELDS = (
        "cudnn_deterministic",
        "cudnn_benchmark",
        "deterministic_algorithms",
        "warn_only",
        "cublas_workspace_config",
        "cuda_initialized_before",
    )
    __slots__ = FIELDS

    cudnn_deterministic: bool | None
    cudnn_benchmark: bool | None
    deterministic_algorithms: bool | None
    warn_only: bool | None
    cublas_workspace_config: str | None
    cuda_initialized_before: bool | None

    def __init__(
        self,
        *,
        cudnn_deterministic: bool | None = None,
        cudnn_benchmark: bool | None = None,
        deterministic_algorithms: bool | None = None,
        warn_only: bool | None = None,
        cublas_workspace_config: str | None = None,
        cuda_initialized_before: bool | None = None,
    ) -> None:
        self.cudnn_deterministic = cudnn_deterministic
        self.cudnn_benchmark = cudnn_benchmark
        self.deterministic_algorithms = deterministic_algorithms
        self.warn_only = warn_only
        self.cublas_workspace_config = cublas_workspace_config
        self.cuda_initialized_before = cuda_initialized_before


class SeedsSection(Section):
    FIELDS = (
        "unknown",
        "declared_by",
        "master_seed",
        "rank",
        "derived",
        "seeded",
        "level",
        "flags",
        "warnings",
        "torch_imported",
        "torch_initial_seed",
        "cuda_initialized",
        "cuda_initial_seeds",
        "state_digests",
        "pythonhashseed",
    )
    __slots__ = FIELDS

    unknown: dict[str, str]
    declared_by: DeclaredBy | None
    master_seed: int | None
    rank: int | None
    derived: dict[str, int]
    seeded: list[str]
    level: DeterminismLevel | None
    flags: DeterminismFlags | None
    warnings: list[str]
    torch_imported: bool
    torch_initial_seed: int | None
    cuda_initialized: bool | None
    cuda_initial_seeds: dict[str, int] | None
    state_digests: dict[str, str]
    pythonhashseed: str | None

    def __init__(
        self,
        *,
        unknown: dict[str, str] | None = None,
        declared_by: DeclaredBy | None = None,
        master_seed: int | None = None,
        rank: int | None = None,
        derived: dict[str, int] | None = None,
        seeded: list[str] | None = None,
        level: DeterminismLevel | None = None,
        flags: DeterminismFlags | None = None,
        warnings: list[str] | None = None,
        torch_imported: bool = False,
        torch_initial_seed: int | None = None,
        cuda_initialized: bool | None = None,
        cuda_initial_seeds: dict[str, int] | None = None,
        state_digests: dict[str, str] | None = None,
        pythonhashseed: str | None = None,
    ) -> None:
        self.unknown = {} if unknown is None else unknown
        self.declared_by = declared_by
        self.master_seed = master_seed
        self.rank = rank
        self.derived = {} if derived is None else derived
        self.seeded = [] if seeded is None else seeded
        self.level = level
        self.flags = flags
        self.warnings = [] if warnings is None else warnings
        self.torch_imported = torch_imported
        self.torch_initial_seed = torch_initial_seed
        self.cuda_initialized = cuda_initialized
        self.cuda_initial_seeds = cuda_initial_seeds
        self.state_digests = {} if state_digests is None else state_digests
        self.pythonhashseed = pythonhashseed


class ContainerRuntime(Record):
    FIELDS = (
        "runtime",
        "engine",
        "evidence",
    )
    __slots__ = FIELDS

    runtime: str | None
    engine: str | None
    evidence: list[str]

    def __init__(
        self,
        *,
        runtime: str | None,
        engine: str | None,
        evidence: list[str],
    ) -> None:
        self.runtime = runtime
        self.engine = engine
        self.evidence = evidence


class StatedFact(Record):
    FIELDS = (
        "value",
        "source",
    )
    __slots__ = FIELDS

    value: str
    source: str

    def __init__(
        self,
        *,
        value: str,
        source: str,
    ) -> None:
        self.value = value
        self.source = source


class ImageDefault(Record):
    FIELDS = (
        "value",
        "image_value",
        "set_by",
        "source",
    )
    __slots__ = FIELDS

    value: str | None
    image_value: str | None
    set_by: ImageDefaultSetBy
    source: str

    def __init__(
        self,
        *,
        value: str | None,
        image_value: str | None,
        set_by: ImageDefaultSetBy,
        source: str,
    ) -> None:
        self.value = value
        self.image_value = image_value
        self.set_by = set_by
        self.source = source


class ContainerImage(Record):
    FIELDS = (
        "product",
        "release",
        "tag",
        "image_id",
        "digest",
        "name",
        "path",
        "build_id",
        "requires_cuda",
        "os",
        "libraries",
        "defaults",
    )
    __slots__ = FIELDS

    product: StatedFact | None
    release: StatedFact | None
    tag: StatedFact | None
    image_id: StatedFact | None
    digest: StatedFact | None
    name: StatedFact | None
    path: StatedFact | None
    build_id: StatedFact | None
    requires_cuda: StatedFact | None
    os: dict[str, str]
    libraries: dict[str, StatedFact]
    defaults: dict[str, ImageDefault]

    def __init__(
        self,
        *,
        product: StatedFact | None,
        release: StatedFact | None,
        tag: StatedFact | None,
        image_id: StatedFact | None,
        digest: StatedFact | None,
        name: StatedFact | None,
        path: StatedFact | None,
        build_id: StatedFact | None,
        requires_cuda: StatedFact | None,
        os: dict[str, str] | None = None,
        libraries: dict[str, StatedFact] | None = None,
        defaults: dict[str, ImageDefault] | None = None,
    ) -> None:
        self.product = product
        self.release = release
        self.tag = tag
        self.image_id = image_id
        self.digest = digest
        self.name = name
        self.path = path
        self.build_id = build_id
        self.requires_cuda = requires_cuda
        self.os = {} if os is None else os
        self.libraries = {} if libraries is None else libraries
        self.defaults = {} if defaults is None else defaults


class SlurmAllocation(Record):
    FIELDS = (
        "job_id",
        "step_id",
        "array_job_id",
        "array_task_id",
        "cluster",
        "partition",
        "node_list",
        "node_name",
        "nodes",
        "ntasks",
        "tasks_per_node",
        "cpus_per_task",
        "cpus_on_node",
        "cpu_bind",
        "procid",
        "localid",
        "nodeid",
        "gpus",
        "memory",
        "restart_count",
    )
    __slots__ = FIELDS

    job_id: str | None
    step_id: str | None
    array_job_id: str | None
    array_task_id: str | None
    cluster: str | None
    partition: str | None
    node_list: str | None
    node_name: str | None
    nodes: int | None
    ntasks: int | None
    tasks_per_node: str | None
    cpus_per_task: int | None
    cpus_on_node: int | None
    cpu_bind: str | None
    procid: int | None
    localid: int | None
    nodeid: int | None
    gpus: dict[str, str]
    memory: dict[str, str]
    restart_count: int | None

    def __init__(
        self,
        *,
        job_id: str | None,
        step_id: str | None,
        array_job_id: str | None,
        array_task_id: str | None,
        cluster: str | None,
        partition: str | None,
        node_list: str | None,
        node_name: str | None,
        nodes: int | None,
        ntasks: int | None,
        tasks_per_node: str | None,
        cpus_per_task: int | None,
        cpus_on_node: int | None,
        cpu_bind: str | None,
        procid: int | None,
        localid: int | None,
        nodeid: int | None,
        gpus: dict[str, str] | None = None,
        memory: dict[str, str] | None = None,
        restart_count: int | None,
    ) -> None:
        self.job_id = job_id
        self.step_id = step_id
        self.array_job_id = array_job_id
        self.array_task_id = array_task_id
        self.cluster = cluster
        self.partition = partition
        self.node_list = node_list
        self.node_name = node_name
        self.nodes = nodes
        self.ntasks = ntasks
        self.tasks_per_node = tasks_per_node
        self.cpus_per_task = cpus_per_task
        self.cpus_on_node = cpus_on_node
        self.cpu_bind = cpu_bind
        self.procid = procid
        self.localid = localid
        self.nodeid = nodeid
        self.gpus = {} if gpus is None else gpus
        self.memory = {} if memory is None else memory
        self.restart_count = restart_count


class KubernetesPod(Record):
    FIELDS = (
        "pod",
        "namespace",
        "node",
        "container",
        "resources",
    )
    __slots__ = FIELDS

    pod: StatedFact | None
    namespace: StatedFact | None
    node: StatedFact | None
    container: StatedFact | None
    resources: dict[str, StatedFact]

    def __init__(
        self,
        *,
        pod: StatedFact | None,
        namespace: StatedFact | None,
        node: StatedFact | None,
        container: StatedFact | None,
        resources: dict[str, StatedFact] | None = None,
    ) -> None:
        self.pod = pod
        self.namespace = namespace
        self.node = node
        self.container = container
        self.resources = {} if resources is None else resources


class CpuAffinity(Record):
    FIELDS = (
        "cpus",
        "count",
        "numa_nodes",
        "numa_cpus",
        "default_threads",
        "default_threads_source",
    )
    __slots__ = FIELDS

    cpus: str | None
    count: int | None
    numa_nodes: list[int]
    numa_cpus: dict[str, str]
    default_threads: int | None
    default_threads_source: str | None

    def __init__(
        self,
        *,
        cpus: str | None,
        count: int | None,
        numa_nodes: list[int] | None = None,
        numa_cpus: dict[str, str] | None = None,
        default_threads: int | None,
        default_threads_source: str | None,
    ) -> None:
        self.cpus = cpus
        self.count = count
        self.numa_nodes = [] if numa_nodes is None else numa_nodes
        self.numa_cpus = {} if numa_cpus is None else numa_cpus
        self.default_threads = default_threads
        self.default_threads_source = default_threads_source


class PlacementSection(Section):
    FIELDS = (
        "unknown",
        "container",
        "image",
        "slurm",
        "kubernetes",
        "cpu",
    )
    __slots__ = FIELDS

    unknown: dict[str, str]
    container: ContainerRuntime
    image: ContainerImage
    slurm: SlurmAllocation | None
    kubernetes: KubernetesPod | None
    cpu: CpuAffinity

    def __init__(
        self,
        *,
        unknown: dict[str, str] | None = None,
        container: ContainerRuntime,
        image: ContainerImage,
        slurm: SlurmAllocation | None = None,
        kubernetes: KubernetesPod | None = None,
        cpu: CpuAffinity,
    ) -> None:
        self.unknown = {} if unknown is None else unknown
        self.container = container
        self.image = image
        self.slurm = slurm
        self.kubernetes = kubernetes
        self.cpu = cpu


class ProbeOp(Record):
    FIELDS = (
        "family",
        "status",
        "digest",
        "max_rel_error",
        "repeat_equal",
        "reason",
    )
    __slots__ = FIELDS

    family: str
    status: Literal["ok", "unsupported", "error"]
    digest: str | None
    max_rel_error: float | None
    repeat_equal: bool | None
    reason: str | None

    def __init__(
        self,
        *,
        family: str,
        status: Literal["ok", "unsupported", "error"],
        digest: str | None = None,
        max_rel_error: float | None = None,
        repeat_equal: bool | None = None,
        reason: str | None = None,
    ) -> None:
        self.family = family
        self.status = status
        self.digest = digest
        self.max_rel_error = as_float(max_rel_error)
        self.repeat_equal = repeat_equal
        self.reason = reason


class ProbeDevice(Record):
    FIELDS = (
        "status",
        "reason",
        "name",
        "capability",
        "threads",
        "elapsed_ms",
        "ops",
    )
    __slots__ = FIELDS

    status: Literal["ok", "unavailable", "error"]
    reason: str | None
    name: str | None
    capability: str | None
    threads: int | None
    elapsed_ms: float | None
    ops: dict[str, ProbeOp]

    def __init__(
        self,
        *,
        status: Literal["ok", "unavailable", "error"],
        reason: str | None = None,
        name: str | None = None,
        capability: str | None = None,
        threads: int | None = None,
        elapsed_ms: float | None = None,
        ops: dict[str, ProbeOp] | None = None,
    ) -> None:
        self.status = status
        self.reason = reason
        self.name = name
        self.capability = capability
        self.threads = threads
        self.elapsed_ms = as_float(elapsed_ms)
        self.ops = {} if ops is None else ops


class ProbeSection(Section):
    FIELDS = (
        "unknown",
        "suite",
        "torch",
        "elapsed_ms",
        "devices",
    )
    __slots__ = FIELDS

    unknown: dict[str, str]
    suite: str
    torch: str | None
    elapsed_ms: float | None
    devices: dict[str, ProbeDevice]

    def __init__(
        self,
        *,
        unknown: dict[str, str] | None = None,
        suite: str,
        torch: str | None = None,
        elapsed_ms: float | None = None,
        devices: dict[str, ProbeDevice] | None = None,
    ) -> None:
        self.unknown = {} if unknown is None else unknown
        self.suite = suite
        self.torch = torch
        self.elapsed_ms = as_float(elapsed_ms)
        self.devices = {} if devices is None else devices


class CollectorRecord(Record):
    FIELDS = (
        "status",
        "reason",
        "duration_ms",
    )
    __slots__ = FIELDS

    status: Literal["ok", "skipped", "error"]
    reason: str | None
    duration_ms: float

    def __init__(
        self,
        *,
        status: Literal["ok", "skipped", "error"],
        reason: str | None = None,
        duration_ms: float,
    ) -> None:
        self.status = status
        self.reason = reason
        self.duration_ms = float(duration_ms)


class ImportedFrom(Record):
    FIELDS = (
        "format",
        "source",
        "sha256",
        "facts",
        "sections",
    )
    __slots__ = FIELDS

    format: str
    source: str
    sha256: str
    facts: dict[str, Any]
    sections: dict[str, Any]

    def __init__(
        self,
        *,
        format: str,
        source: str,
        sha256: str,
        facts: dict[str, Any] | None = None,
        sections: dict[str, Any] | None = None,
    ) -> None:
        self.format = format
        self.source = source
        self.sha256 = sha256
        self.facts = {} if facts is None else facts
        self.sections = {} if sections is None else sections


class Manifest(Record):
    FIELDS = (
        "digest",
        "schema_version",
        "tool",
        "created_at",
        "run",
        "code",
        "python",
        "packages",
        "system",
        "env",
        "gpu",
        "cuda_stack",
        "torch",
        "precision",
        "parallel",
        "data",
        "tokenizer",
        "templates",
        "seeds",
        "placement",
        "probe",
        "collectors",
        "imported_from",
        "extra",
    )
    __slots__ = FIELDS

    digest: str | None
    schema_version: str
    tool: ToolInfo
    created_at: str
    run: RunInfo
    code: CodeSection | None
    python: PythonSection | None
    packages: PackagesSection | None
    system: SystemSection | None
    env: EnvSection | None
    gpu: GpuSection | None
    cuda_stack: CudaStackSection | None
    torch: TorchSection | None
    precision: PrecisionSection | None
    parallel: ParallelSection | None
    data: DataSection | None
    tokenizer: TokenizerSection | None
    templates: TemplatesSection | None
    seeds: SeedsSection | None
    placement: PlacementSection | None
    probe: ProbeSection | None
    collectors: dict[str, CollectorRecord]
    imported_from: ImportedFrom | None
    extra: dict[str, JsonValue]

    def __init__(
        self,
        *,
        digest: str | None = None,
        schema_version: str = "1.0",
        tool: ToolInfo,
        created_at: str,
        run: RunInfo,
        code: CodeSection | None = None,
        python: PythonSection | None = None,
        packages: PackagesSection | None = None,
        system: SystemSection | None = None,
        env: EnvSection | None = None,
        gpu: GpuSection | None = None,
        cuda_stack: CudaStackSection | None = None,
        torch: TorchSection | None = None,
        precision: PrecisionSection | None = None,
        parallel: ParallelSection | None = None,
        data: DataSection | None = None,
        tokenizer: TokenizerSection | None = None,
        templates: TemplatesSection | None = None,
        seeds: SeedsSection | None = None,
        placement: PlacementSection | None = None,
        probe: ProbeSection | None = None,
        collectors: dict[str, CollectorRecord],
        imported_from: ImportedFrom | None = None,
        extra: dict[str, JsonValue] | None = None,
    ) -> None:
        self.digest = digest
        self.schema_version = schema_version
        self.tool = tool
        self.created_at = created_at
        self.run = run
        self.code = code
        self.python = python
        self.packages = packages
        self.system = system
        self.env = env
        self.gpu = gpu
        self.cuda_stack = cuda_stack
        self.torch = torch
        self.precision = precision
        self.parallel = parallel
        self.data = data
        self.tokenizer = tokenizer
        self.templates = templates
        self.seeds = seeds
        self.placement = placement
        self.probe = probe
        self.collectors = collectors
        self.imported_from = imported_from
        self.extra = {} if extra is None else extra


# Manifest field name -> section record, in the order of SECTION_MODELS.
SECTION_RECORDS: dict[str, type[Section]] = {
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
# Free-form maps (see envsnap.manifest.freeform), redacted by key name as well.
FREE_FORM_PATHS: tuple[tuple[str, ...], ...] = (
    ("precision", "other"),
    ("precision", "optimizer", "param_groups"),
    ("precision", "scheduler", "state"),
    ("parallel", "other"),
    ("data", "other"),
    ("extra",),
)

__all__ = [
    "FREE_FORM_PATHS",
    "SECTION_RECORDS",
    "AddedToken",
    "AutocastState",
    "CodeSection",
    "CollectorRecord",
    "CompileSettings",
    "CondaPackage",
    "Container",
    "ContainerImage",
    "ContainerRuntime",
    "Cpu",
    "CpuAffinity",
    "CpuKernels",
    "CudaStackSection",
    "CudnnFlags",
    "DataItem",
    "DataLoaderInfo",
    "DataSection",
    "DatasetInfo",
    "DeclaredBy",
    "Determinism",
    "DeterminismFlags",
    "DeterminismLevel",
    "DtypeStats",
    "EffectivePrecision",
    "EffectiveTf32",
    "EnvSection",
    "EnvironmentKind",
    "FileEntry",
    "GpuCapabilities",
    "GpuDevice",
    "GpuLink",
    "GpuSection",
    "HashMode",
    "ImageDefault",
    "ImageDefaultSetBy",
    "ImportedFrom",
    "ItemKind",
    "JsonValue",
    "KubernetesPod",
    "Library",
    "LibraryCopy",
    "LibrarySource",
    "LockFile",
    "Manifest",
    "MatmulFlags",
    "MigDevice",
    "OptimizerInfo",
    "Package",
    "PackageSource",
    "PackagesSection",
    "ParallelSection",
    "PlacementSection",
    "PrecisionSection",
    "ProbeDevice",
    "ProbeOp",
    "ProbeSection",
    "PythonSection",
    "Record",
    "Remote",
    "RunInfo",
    "SamplerInfo",
    "ScalerState",
    "SchedulerInfo",
    "SdpaFlags",
    "Section",
    "SeedsSection",
    "SlurmAllocation",
    "StatedFact",
    "Submodule",
    "SystemSection",
    "TemplateEntry",
    "TemplatesSection",
    "TokenizerSection",
    "ToolInfo",
    "TorchBuild",
    "TorchSection",
    "VisibleDevice",
    "YesNoUnknown",
    "plain",
]
