"""`envsnap show`: a one-screen summary of a manifest."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from envsnap.manifest.effective import CPU_OPS, OpPrecision, op_precision
from envsnap.manifest.lean import LeanManifest
from envsnap.manifest.model import Manifest
from envsnap.manifest.sections import SECTION_MODELS
from envsnap.render.console import render_to_text
from envsnap.render.escape import terminal_text

_REDUCED = ("bf16", "tf32")


def _v(value: object) -> str:
    """A recorded value as text; a value the manifest does not know reads '?', never 'None'."""
    return "?" if value is None else str(value)


def _section_line(name: str, section: Any, installed: int | None = None, system: Any = None) -> str:
    """One line of the most telling facts per section; unknown sections show their size.
    `installed` counts the packages when the section's own map was left empty (a lean read);
    `system` is the system section, whose CPU decides the torch line's CPU precision."""
    if name == "torch":
        return _torch(section, system)
    if name == "code":
        state = {True: "dirty", False: "clean", None: "dirty state unknown"}[section.dirty]
        where = section.branch or "detached HEAD"
        commit = (section.commit or "?")[:12]
        return f"{commit} on {where}, {state}, {_v(section.untracked_count)} untracked"
    if name == "python":
        return (
            f"{_v(section.implementation)} {_v(section.version)} ({_v(section.environment)}) "
            f"{_v(section.executable)}"
        )
    if name == "packages":
        locks = ", ".join(lock.path for lock in section.lock_files) or "no lock files"
        count = len(section.installed) if installed is None else installed
        return f"{count} distributions; {locks}"
    if name == "system":
        cpu = section.cpu
        return (
            f"{_v(section.os_release or section.os)} kernel {_v(section.kernel)}, "
            f"{section.libc or 'libc ?'}; {_v(cpu.model or cpu.architecture)} "
            f"({_v(cpu.usable_cores)}/{_v(cpu.logical_cores)} cores, "
            f"{', '.join(cpu.isa_flags[:6]) or 'no ISA flags'})"
        )
    if name == "env":
        shown = ", ".join(f"{k}={v}" for k, v in list(section.variables.items())[:4])
        more = len(section.variables) - 4
        return (shown or "no result-relevant variables set") + (
            f" (+{more} more)" if more > 0 else ""
        )
    summarize = _RUN_SECTIONS.get(name)
    if summarize is not None:
        return summarize(section)
    fields = section.model_dump(exclude={"unknown"})
    return f"{len(fields)} fields recorded"


def _gpu(section: Any) -> str:
    names = [
        f"{d.name or '?'} (sm {d.compute_capability or '?'})" for d in section.devices.values()
    ]
    return f"{', '.join(names) or 'no GPU'}; driver {section.driver_version or '?'}"


def _cuda_stack(section: Any) -> str:
    libraries = ", ".join(
        f"{name} {library.version}"
        for name, library in section.libraries.items()
        if library.version
    )
    return f"{_torch_build(section)}; {libraries or 'no CUDA libraries'}"


def _torch_build(section: Any) -> str:
    if section.torch_version is None:
        # The collector records why there is no version: not installed, or unreadable.
        return str(section.unknown.get("torch_version") or "torch version not recorded")
    return f"torch {section.torch_version} ({_v(section.torch_build)})"


def _torch(section: Any, system: Any = None) -> str:
    return (
        f"cudnn deterministic={_v(section.cudnn.deterministic)} "
        f"benchmark={_v(section.cudnn.benchmark)}; "
        f"deterministic algorithms={_v(section.deterministic.algorithms)}; "
        f"fp32 matmul as TF32: {_v(section.effective.matmul_fp32.tf32)}; "
        f"{_cpu_fp32(section, system)}"
    )


def _cpu_fp32(section: Any, system: Any) -> str:
    """'fp32 on cpu: matmul bf16 (mkldnn), conv ieee (mkldnn)', from `op_precision`, the fact
    the differ, the audit and bisect read. A mode asked for but not run says why."""
    doc = {
        "torch": section.model_dump(mode="json"),
        "system": None if system is None else system.model_dump(mode="json"),
    }
    answers = [op_precision(doc, "cpu", op) for op in CPU_OPS]
    shown = [
        _op_fp32(answer) for answer in answers if answer.op != "rnn" or answer.requested in _REDUCED
    ]
    return "fp32 on cpu: " + ", ".join(shown)


def _op_fp32(answer: OpPrecision) -> str:
    if answer.precision is None:
        return f"{answer.op} ? [{answer.reason}]"
    text = f"{answer.op} {answer.precision} ({answer.backend})"
    if answer.requested in _REDUCED and answer.precision != answer.requested:
        return f"{text} [{answer.reason}]"  # asked for, not run: no kernels, oneDNN off
    return text + (f" [inferred from {answer.inferred}]" if answer.inferred else "")


def _precision(section: Any) -> str:
    dtypes = ", ".join(sorted(section.params)) or "no model"
    optimizer = (
        section.optimizer.class_name.rsplit(".", 1)[-1] if section.optimizer else "no optimizer"
    )
    return f"params {dtypes}; {optimizer}; amp {section.amp_dtype or 'not declared'}"


def _parallel(section: Any) -> str:
    batch = section.global_batch_formula or f"global batch {section.global_batch or '?'}"
    return f"world {section.world_size or '?'}; {batch}; loss {section.loss_normalization or '?'}"


def _data(section: Any) -> str:
    return "; ".join(
        f"{name}: {item.file_count} files, root {(item.root or '?')[:19]}"
        for name, item in section.items.items()
    )


def _tokenizer(section: Any) -> str:
    return f"{section.class_name or '?'} ({section.model_type or '?'}), vocab {section.vocab_size or '?'}"


def _templates(section: Any) -> str:
    return f"{len(section.templates)} template(s): {', '.join(sorted(section.templates)) or '-'}"


def _seeds(section: Any) -> str:
    seed = "not declared" if section.master_seed is None else section.master_seed
    return f"master seed {seed}; level {section.level or 'not set'}"


# The in-job and GPU sections: one line of what decides their comparisons.
def _probe(section: Any) -> str:
    """Per device: how many ops ran, and any whose repeat gave other bits."""
    parts = []
    for name, device in section.devices.items():
        if device.status != "ok":
            parts.append(f"{name} {device.status}")
            continue
        ran = sum(op.status == "ok" for op in device.ops.values())
        unstable = [op_name for op_name, op in device.ops.items() if op.repeat_equal is False]
        text = f"{name} {ran}/{len(device.ops)} ops in {_v(device.elapsed_ms)} ms"
        parts.append(text + (f", nondeterministic: {', '.join(unstable)}" if unstable else ""))
    return f"{section.suite}: {'; '.join(parts) or 'no device'}"


_RUN_SECTIONS: dict[str, Callable[[Any], str]] = {
    "gpu": _gpu,
    "cuda_stack": _cuda_stack,
    "precision": _precision,
    "parallel": _parallel,
    "data": _data,
    "tokenizer": _tokenizer,
    "templates": _templates,
    "seeds": _seeds,
    "probe": _probe,
}


def _cell(value: str, style: str = "") -> Any:
    """Manifest text as a literal cell: `[x]` is not rich markup, and control characters
    (terminal escapes from a hostile file) are shown escaped instead of being sent."""
    from rich.text import Text

    return Text(terminal_text(value), style=style)


def section_rows(
    manifest: Manifest | LeanManifest, sections: Sequence[str] | None = None
) -> list[tuple[str, str, str]]:
    """(section, status, one-line summary) for each selected section the manifest mentions.

    A section neither recorded nor run reads 'not recorded' when it was asked for by name."""
    installed = len(manifest.installed) if isinstance(manifest, LeanManifest) else None
    model = manifest.manifest if isinstance(manifest, LeanManifest) else manifest
    rows: list[tuple[str, str, str]] = []
    for name in sections or SECTION_MODELS:
        section = getattr(model, name)
        record = model.collectors.get(name)
        if section is not None:
            summary = _section_line(name, section, installed, model.system)
            if section.unknown:
                summary += f"  [unknown: {', '.join(sorted(section.unknown))}]"
            rows.append((name, "ok", summary))
        elif record is not None:
            rows.append((name, record.status, record.reason or ""))
        elif sections:
            rows.append((name, "absent", "not recorded in this manifest"))
    return rows


def package_rows(manifest: Manifest | LeanManifest) -> list[tuple[str, str, str]]:
    """(name, version, where from) for every recorded distribution, in the manifest's order."""
    if isinstance(manifest, LeanManifest):
        entries: Iterable[Mapping[str, Any]] = manifest.installed.values()
    elif manifest.packages is None:
        return []
    else:
        entries = (package.__dict__ for package in manifest.packages.installed.values())
    rows: list[tuple[str, str, str]] = []
    for package in entries:
        origin: str = package.get("source") or "?"
        if package.get("url"):
            origin += f" {package['url']}"
        if package.get("commit"):
            origin += f" @ {package['commit'][:12]}"
        rows.append((package["name"], _v(package.get("version") or None), origin))
    return rows


def render_summary(
    manifest: Manifest | LeanManifest,
    *,
    color: bool | None = None,
    sections: Sequence[str] | None = None,
    packages: bool = False,
) -> str:
    """The `envsnap show` text: header facts, one row per section with its status, and with
    `packages` every installed distribution."""
    from rich.table import Table

    model = manifest.manifest if isinstance(manifest, LeanManifest) else manifest
    header = Table.grid(padding=(0, 2))
    header.add_row("created", model.created_at.isoformat())
    header.add_row("envsnap", _cell(model.tool.version))
    header.add_row("label", _cell(model.run.label or "-"))
    header.add_row("digest", _cell(model.digest or "(none)"))
    if model.imported_from:
        header.add_row(
            "imported",
            _cell(f"{model.imported_from.format} from {model.imported_from.source}"),
        )

    table = Table(title="sections", show_lines=False, expand=False)
    table.add_column("section")
    table.add_column("status")
    table.add_column("summary", overflow="fold")
    for name, status, summary in section_rows(manifest, sections):
        style = {"ok": "green", "skipped": "yellow", "error": "red"}.get(status, "")
        table.add_row(name, _cell(status, style), _cell(summary))
    text = render_to_text(header, table, color=color)
    if packages:
        text += package_listing(package_rows(manifest), color=color)
    return text


PACKAGE_COLUMNS = ("name", "version", "source")


def package_listing(rows: Sequence[tuple[str, str, str]], *, color: bool | None = None) -> str:
    """The 'packages' table, drawn here in rich's default box style: rich lays a table out
    cell by cell, about 0.7 ms a row, minutes for 200k packages. Cells are escaped as
    `_cell` does and never cut; a row wider than the terminal is left long, not folded."""
    from rich.cells import cell_len

    bold = ("\x1b[1m", "\x1b[0m") if (sys.stdout.isatty() if color is None else color) else ("", "")
    cells = [tuple(terminal_text(value) for value in row) for row in rows]
    widths = [
        max([cell_len(name), *(cell_len(row[i]) for row in cells)])
        for i, name in enumerate(PACKAGE_COLUMNS)
    ]

    def rule(left: str, fill: str, middle: str, right: str) -> str:
        return left + middle.join(fill * (width + 2) for width in widths) + right

    def row(values: Sequence[str], edge: str, style: tuple[str, str] = ("", "")) -> str:
        padded = [
            f"{style[0]}{value}{style[1]}" + " " * (width - cell_len(value))
            for value, width in zip(values, widths, strict=True)
        ]
        return f"{edge} " + f" {edge} ".join(padded) + f" {edge}"

    total = sum(widths) + 3 * len(widths) + 1
    lines = [
        " " * ((total - len("packages")) // 2) + "packages",
        rule("┏", "━", "┳", "┓"),
        row(PACKAGE_COLUMNS, "┃", bold),
        rule("┡", "━", "╇", "┩"),
        *(row(values, "│") for values in cells),
        rule("└", "─", "┴", "┘"),
    ]
    return "\n".join(lines) + "\n"
