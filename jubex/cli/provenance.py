"""How ``jubex info RUN`` shows a run's provenance: a few lines a person reads at a glance
(the whole record is in ``provenance.json`` and in ``-f json``)."""

from __future__ import annotations

import time
from collections.abc import Mapping

from jubex.store.rundir import JUBE_ROWS

#: the columns of a run's parametrisation that come from the scheduler's accounting
JOB_COLUMNS = ("job", "nodes", "elapsed")


def job_columns(job_id: str | None, jobs: Mapping[str, Mapping[str, str]], host: str) -> list[str]:
    """A workpackage's job id, nodes and elapsed time (on the local platform: the host)."""
    if host:
        return ["", host, ""]
    record = jobs.get(job_id or "", {})
    return [job_id or "", record.get("nodes", ""), record.get("elapsed", "")]


def provenance_lines(facts: Mapping[str, object], meta: Mapping[str, str]) -> list[str]:
    """``key: value`` lines for the definition, the times, the machine, the file system and
    the modules; a fact that was not recorded is left out."""
    lines = []
    definition = _mapping(facts.get("definition"))
    if definition.get("sha256"):
        revision = str(definition.get("git_revision", ""))[:12]
        where = f", git {revision}{' (changed)' if definition.get('git_dirty') else ''}"
        lines.append(
            f"definition: {definition.get('file')} (sha256 {str(definition['sha256'])[:16]}"
            f"{where if revision else ''})"
        )
    for key in ("started", "finished"):
        if meta.get(key):
            stamp = time.localtime(float(meta[key]))
            lines.append(f"{key}: {time.strftime('%Y-%m-%d %H:%M:%S', stamp)}")
    machine = _mapping(facts.get("machine"))
    if machine:
        parts = [
            str(machine.get(k)) for k in ("host", "os", "kernel", "cpu_model") if machine.get(k)
        ]
        parts.append(f"{machine.get('cpus')} cpus")
        if machine.get("memory_bytes"):
            parts.append(_size(machine["memory_bytes"]))
        lines.append(f"machine: {', '.join(parts)}")
    fs = _mapping(facts.get("filesystem"))
    if fs.get("type"):
        size = f", {_size(fs['size_bytes'])}" if fs.get("size_bytes") else ""
        free = f", {_size(fs['free_bytes'])} free" if fs.get("free_bytes") else ""
        where = f"{fs['type']} on {fs.get('source')}{size}{free}"
        lines.append(f"file system: {fs.get('mount')} ({where})")
    target = _mapping(facts.get("platform_filesystem"))
    if target:
        peaks = ", ".join(
            f"{key.replace('_', ' ')} {target[key]}"
            for key in ("bandwidth", "read_bandwidth", "write_bandwidth")
            if target.get(key)
        )
        kind = f"{target['kind']}, " if target.get("kind") else ""
        lines.append(
            f"target file system: {target.get('name')} at {target.get('path')}"
            + (f" ({kind}{peaks})" if kind or peaks else "")
        )
    targets = facts.get("targets")
    for item in targets if isinstance(targets, list) else []:
        lines.append(f"benchmarks write to: {_target_line(_mapping(item))}")
    modules = facts.get("modules")
    if isinstance(modules, list) and modules:
        lines.append(f"modules: {' '.join(str(m) for m in modules)}")
    pipeline = _mapping(facts.get("ci"))
    if pipeline:
        said = ", ".join(
            f"{key} {pipeline[key]}" for key in ("branch", "commit", "runner") if pipeline.get(key)
        )
        where = str(pipeline.get("pipeline_url") or pipeline.get("project") or "")
        lines.append(f"ci: {pipeline.get('system')} pipeline {where} ({said})".replace(" ()", ""))
    return lines


def jube_run(meta: Mapping[str, str]) -> bool:
    """Whether the run was imported from a JUBE run directory (``jubex import-jube``)."""
    return bool(meta.get("imported_from")) and JUBE_ROWS in meta


def jube_origin(meta: Mapping[str, str]) -> str:
    """An imported JUBE run in a few words: ``a JUBE 2.7.1 run imported from DIR``."""
    version = f" {meta['jube_version']}" if meta.get("jube_version") else ""
    return f"a JUBE{version} run imported from {meta.get('imported_from')}"


def jube_origin_lines(meta: Mapping[str, str]) -> list[str]:
    """Where an imported JUBE run ran, as far as JUBE recorded it, and where it was
    imported: the machine that imported it is never named as the one it ran on."""
    version = f" {meta['jube_version']}" if meta.get("jube_version") else ""
    lines = [f"platform: not recorded (a run JUBE{version} made; JUBE records no platform)"]
    if meta.get("jube_directory"):
        said = meta.get("jube_directory_from")
        lines.append(f"ran in: {meta['jube_directory']}" + (f" (JUBE's {said})" if said else ""))
    else:
        lines.append("ran in: not recorded (no run.log, no error file naming it)")
    lines.append("host, user: not recorded by JUBE")
    if meta.get("jube_site"):
        lines.append(f"site: {meta['jube_site']} (given at import; JUBE does not record it)")
    if meta.get("jube_command"):
        lines.append(f"command: {meta['jube_command']} (JUBE's parse.log)")
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(meta.get("imported") or 0)))
    lines.append(
        f"imported: {when} from {meta.get('imported_from')} on {meta.get('imported_on')} by "
        f"{meta.get('imported_by')} (jubex {meta.get('jubex_version')}; outputs not imported)"
    )
    return lines


def _target_line(fs: Mapping[str, object]) -> str:
    """A directory the benchmarks wrote to and the file system it lies on."""
    if not fs.get("type"):
        return f"{fs.get('path')} ({fs.get('unknown') or 'file system unknown'})"
    size = f", {_size(fs['size_bytes'])}" if fs.get("size_bytes") else ""
    return f"{fs.get('path')} ({fs['type']} at {fs.get('mount')} on {fs.get('source')}{size})"


def _mapping(value: object) -> Mapping[str, object]:
    return value if isinstance(value, dict) else {}


def _size(value: object) -> str:
    """Bytes as a person reads them (binary units, as df -h)."""
    size = float(value) if isinstance(value, (int, float)) else 0.0
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
    while size >= 1024 and len(units) > 1:
        size /= 1024
        units.pop(0)
    return f"{size:.0f} B" if units[0] == "B" else f"{size:.1f} {units[0]}"
