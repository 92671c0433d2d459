"""A platform: one system's scheduler, partitions, launcher, defaults, limits and job script.

The engine asks a platform three things per workpackage: :meth:`Platform.resolve` turns the
step's requested resources into typed values and refuses what the system cannot run
*before* anything is submitted; :meth:`Platform.launcher_command` and
:meth:`Platform.job_script` render its Jinja2 texts. Platforms are plain data, so a run can
freeze the one it used (``platform.json``) and read it back years later.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import field, replace
from pathlib import Path

from jubex.definition.darshan import Darshan
from jubex.errors import DefinitionError, JubexError, Loc, did_you_mean
from jubex.language.confine import control_character
from jubex.language.values import Bool, Duration, Size, parse_value
from jubex.plain import dataclass

#: Resources that are whole numbers of at least one.
COUNTS = ("nodes", "tasks_per_node", "tasks", "threads")
#: scheduler_options read by the engine's polling policy; all others configure the backend.
ENGINE_OPTIONS = frozenset(
    {"max_queued", "poll_interval", "poll_max_interval", "array", "dependencies", "pack"}
)


#: environment variables that configure an MPI library (Open MPI, PRRTE, PMIx, MPICH, Intel)
MPI_PREFIXES = ("OMPI_", "PRTE_", "PMIX_", "MPICH_", "I_MPI_", "MV2_")


@dataclass
class Partition:
    """A partition (a queue on PBS) and the limits a job in it must respect."""

    name: str
    max_nodes: int | None = None
    #: fewest nodes a job may ask for (a routing queue such as Polaris' prod starts at 10)
    min_nodes: int | None = None
    max_time: str | None = None
    cores_per_node: int | None = None
    gpus_per_node: int | None = None
    default: bool = False
    description: str = ""
    loc: Loc | None = None


@dataclass
class FileSystem:
    """A file system a benchmark may write to, as the centre publishes it."""

    name: str
    #: shell text the job expands (``$SCRATCH``, ``/scratch/$SLURM_JOB_ACCOUNT``)
    path: str
    kind: str = ""
    #: published peaks, each a number with a unit as written (``10TB/s``)
    bandwidth: str = ""
    read_bandwidth: str = ""
    write_bandwidth: str = ""
    capacity: str = ""
    default: bool = False
    description: str = ""

    def facts(self) -> dict[str, str]:
        """What a run's provenance keeps of it: every field that is set."""
        fields = ("name", "path", "kind", "bandwidth", "read_bandwidth", "write_bandwidth")
        return {key: str(getattr(self, key)) for key in (*fields, "capacity") if getattr(self, key)}


@dataclass
class Platform:
    """One system, as its platform file (and the files it extends) describe it."""

    name: str
    scheduler: str = "local"
    launcher: str = ""
    description: str = ""
    #: the centre or system a study's results name (several platforms of one site agree)
    site: str = ""
    account: str | None = None
    partitions: dict[str, Partition] = field(default_factory=dict)
    filesystems: dict[str, FileSystem] = field(default_factory=dict)
    resources: dict[str, object] = field(default_factory=dict)
    modules: list[str] = field(default_factory=list)
    #: how jobs here run under Darshan, and whether every study's does
    darshan: Darshan | None = None
    environment: dict[str, str] = field(default_factory=dict)
    parameters: dict[str, object] = field(default_factory=dict)
    hardware: dict[str, object] = field(default_factory=dict)
    #: what the hardware can deliver at most (``storage_bandwidth: 350GB/s``), as written
    peaks: dict[str, str] = field(default_factory=dict)
    scheduler_options: dict[str, object] = field(default_factory=dict)
    template: str = ""
    #: whether JUBE files' python snippets may run as real Python on this platform
    python: bool = True
    extends: str | None = None
    file: str = ""
    loc: Loc | None = None
    #: where each key was written ("resources.time" -> file:line), for errors
    locs: dict[str, Loc] = field(default_factory=dict, repr=False)

    def where(self, key: str) -> Loc | None:
        """The place of a (dotted) key, or of the nearest enclosing one, or of the platform."""
        parts = key.split(".")
        for end in range(len(parts), 0, -1):
            loc = self.locs.get(".".join(parts[:end]))
            if loc:
                return loc
        return self.loc

    @property
    def target_filesystem(self) -> FileSystem | None:
        """The file system benchmarks write to: the one marked default, if any."""
        return next((fs for fs in self.filesystems.values() if fs.default), None)

    def with_target(self, name: str) -> Platform:
        """This platform with file system ``name`` as the default (``-p jubex_fs=NAME``)."""
        if name not in self.filesystems:
            known = list(self.filesystems)
            raise DefinitionError(
                f"platform '{self.name}' has no file system '{name}'; "
                + (f"its file systems: {', '.join(known)}" if known else "it names none"),
                self.where("filesystems"),
                did_you_mean(name, known) or "add it under filesystems: in the platform file",
            )
        filesystems = {
            key: replace(fs, default=key == name) for key, fs in self.filesystems.items()
        }
        return replace(self, filesystems=filesystems)

    @property
    def default_partition(self) -> str | None:
        return next((p.name for p in self.partitions.values() if p.default), None)

    def resolve(self, requested: Mapping[str, object]) -> dict[str, object]:
        """Defaults merged with a step's (substituted) resources, typed and checked against limits.

        Returns nodes, tasks_per_node, tasks, threads (int), time (seconds, a Duration, or
        None), walltime (``hh:mm:ss``), partition, account, memory (text) and memory_mb,
        cores_per_node and gpus_per_node where known, plus any extra resource as given.
        """
        given = {k: v for k, v in requested.items() if v is not None and str(v).strip() != ""}
        merged = {**{k: v for k, v in self.resources.items() if v is not None}, **given}
        resolved: dict[str, object] = dict(merged)

        def origin(key: str) -> Loc | None:
            return None if key in given else self.where(f"resources.{key}")

        counts = {key: _count(key, merged[key], origin(key)) for key in COUNTS if key in merged}
        nodes, threads = counts.get("nodes", 1), counts.get("threads", 1)
        per_node = counts.get("tasks_per_node")
        if "tasks" in counts and "tasks_per_node" not in given:
            per_node = math.ceil(counts["tasks"] / nodes)
        per_node = per_node or 1
        tasks = counts.get("tasks", nodes * per_node)
        if tasks > nodes * per_node:
            raise DefinitionError(
                f"{tasks} tasks do not fit on {nodes} node(s) with {per_node} task(s) per node",
                origin("tasks"),
                "raise nodes or tasks_per_node, or leave tasks out to get nodes*tasks_per_node",
            )
        resolved.update(nodes=nodes, tasks_per_node=per_node, tasks=tasks, threads=threads)
        time = merged.get("time")
        seconds = None if time is None else duration(time, origin("time"), "time")
        resolved.update(time=seconds, walltime=None if seconds is None else seconds.hms)
        resolved.update(self._memory(merged.get("memory"), origin("memory")))
        resolved["account"] = merged.get("account", self.account)
        partition = self._partition(merged.get("partition"), origin("partition"))
        resolved["partition"] = partition.name if partition else merged.get("partition")
        if partition:
            self._check_limits(partition, nodes, seconds)
        for key in ("cores_per_node", "gpus_per_node"):
            value = getattr(partition, key, None) or self.hardware.get(key)
            if value is not None:
                resolved.setdefault(key, value)
        return resolved

    def mpi_settings(self) -> str | None:
        """The MPI library settings the platform exports into every job (the local one lets
        Open MPI run as root and start more ranks than cores), said rather than silent."""
        found = [f"{k}={v}" for k, v in self.environment.items() if k.startswith(MPI_PREFIXES)]
        if not found:
            return None
        return f"platform '{self.name}' sets MPI settings in every job: {', '.join(found)}"

    def oversubscribed(self, resolved: Mapping[str, object]) -> str | None:
        """Why these resources ask one node for more processes than it has cores, if they
        do: the processes then share cores and measure each other, not the machine. A
        local platform's node is this machine (its cores as ``os.cpu_count`` says)."""
        cores = resolved.get("cores_per_node")
        if cores is None and self.scheduler == "local":
            cores = os.cpu_count()
        if not isinstance(cores, int) or cores < 1:
            return None
        per_node, threads = resolved.get("tasks_per_node", 1), resolved.get("threads", 1)
        assert isinstance(per_node, int) and isinstance(threads, int)
        if per_node * threads <= cores:
            return None
        asked = f"{per_node} task(s)" + (f" x {threads} thread(s)" if threads > 1 else "")
        return (
            f"warning: {asked} per node on platform '{self.name}', whose nodes have {cores} "
            "core(s): the processes share cores, and what they measure is each other as much "
            "as the machine (lower tasks_per_node, or run where there are more cores)"
        )

    def launcher_command(self, resolved: Mapping[str, object]) -> str:
        """The launcher text rendered for one workpackage (``srun -N 2 -n 8``)."""
        from jubex.platform.render import render

        return render(self, "launcher", self.launcher, self._context(resolved)).strip()

    def job_script(
        self,
        *,
        name: str,
        body: str,
        resolved: Mapping[str, object],
        workdir: Path,
        stdout: Path,
        stderr: Path,
        array: int = 0,
    ) -> str:
        """The job script for the scheduler: the template rendered around the engine's body."""
        from jubex.platform.render import render

        context = self._context(resolved)
        context.update(
            name=name,
            body=body,
            workdir=str(workdir),
            stdout=str(stdout),
            stderr=str(stderr),
            array=array,
            array_last=array - 1,
            launcher=self.launcher_command(resolved),
        )
        self._check_one_line(context)
        return render(self, "template", self.template, context)

    def _check_one_line(self, context: Mapping[str, object]) -> None:
        """Refuse a value that would break a line of the job script.

        A directive value (``#SBATCH --partition=...``) is a comment to the shell and cannot
        be quoted, so a newline in any value the template may place there would start a line
        the shell runs. The body is the engine's own text and is left as it is.
        """
        for key, value in context.items():
            items = value.items() if isinstance(value, Mapping) else [("", value)]
            if isinstance(value, list):
                items = [(str(i), v) for i, v in enumerate(value)]
            for sub, item in items:
                what = control_character(item) if isinstance(item, str) and key != "body" else None
                if what:
                    name = f"{key}.{sub}" if sub else key
                    raise DefinitionError(
                        f"'{name}' would put {what} into the job script of platform "
                        f"'{self.name}': {item!r}",
                        self.where("template"),
                        "a directive value cannot be quoted; it must be one line of printable text",
                    )

    def backend_options(self) -> dict[str, object]:
        """The scheduler_options meant for the backend (the rest are the engine's)."""
        return {k: v for k, v in self.scheduler_options.items() if k not in ENGINE_OPTIONS}

    def environment_for(self, resolved: Mapping[str, object]) -> dict[str, str]:
        """The platform's environment lines, rendered for these resources."""
        return self._environment(self._base_context(resolved))

    def _base_context(self, resolved: Mapping[str, object]) -> dict[str, object]:
        return {
            **resolved,
            "platform": self.name,
            "modules": list(self.modules),
            "parameters": dict(self.parameters),
            "hardware": dict(self.hardware),
        }

    def _environment(self, context: Mapping[str, object]) -> dict[str, str]:
        from jubex.platform.render import render

        return {
            key: render(self, f"environment.{key}", str(value), context)
            for key, value in self.environment.items()
        }

    def _context(self, resolved: Mapping[str, object]) -> dict[str, object]:
        context = self._base_context(resolved)
        context["environment"] = self._environment(context)
        return context

    def _memory(self, value: object, loc: Loc | None) -> dict[str, object]:
        if value is None:
            return {"memory": None, "memory_mb": None}
        nbytes = _typed(str(value), "size", loc, "memory")
        return {"memory": str(value), "memory_mb": math.ceil(int(nbytes) / 2**20)}

    def _partition(self, name: object, loc: Loc | None) -> Partition | None:
        if name is None:
            default = self.default_partition
            return self.partitions[default] if default else None
        if not self.partitions or str(name) in self.partitions:
            return self.partitions.get(str(name))
        known = ", ".join(sorted(self.partitions))
        raise DefinitionError(
            f"platform '{self.name}' has no partition '{name}'; its partitions are {known}",
            loc,
            did_you_mean(str(name), self.partitions),
        )

    def _check_limits(self, partition: Partition, nodes: int, seconds: Duration | None) -> None:
        """Refuse a job the partition would reject, naming the partition, limit and value."""
        where = partition.loc or self.where(f"partitions.{partition.name}")
        if partition.max_nodes is not None and nodes > partition.max_nodes:
            raise DefinitionError(
                f"{nodes} nodes requested, but partition '{partition.name}' of platform "
                f"'{self.name}' allows at most {partition.max_nodes} (max_nodes)",
                where,
                "ask for fewer nodes or choose another partition",
            )
        if partition.min_nodes is not None and nodes < partition.min_nodes:
            raise DefinitionError(
                f"{nodes} nodes requested, but partition '{partition.name}' of platform "
                f"'{self.name}' needs at least {partition.min_nodes} (min_nodes)",
                where,
                "ask for more nodes or choose another partition",
            )
        if partition.max_time is not None and seconds is not None:
            limit = duration(partition.max_time, where, f"partitions.{partition.name}.max_time")
            if seconds > limit:
                raise DefinitionError(
                    f"time {seconds} ({seconds.hms}) requested, but partition "
                    f"'{partition.name}' of platform '{self.name}' allows at most "
                    f"{partition.max_time} ({limit.hms}) (max_time)",
                    where,
                    "ask for less time or choose another partition",
                )


def duration(value: object, loc: Loc | None, what: str) -> Duration:
    """Seconds from a duration (or its text: ``30m``, ``1:30:00``), or an error naming the key."""
    if isinstance(value, Duration):
        return value
    seconds = _typed(str(value), "duration", loc, what)
    assert isinstance(seconds, Duration)
    return seconds


def _typed(text: str, type_: str, loc: Loc | None, what: str) -> Duration | Size:
    try:
        value = parse_value(text, type_, loc)
    except JubexError as exc:
        raise DefinitionError(f"'{what}': {exc.message}", exc.loc or loc, exc.hint) from None
    assert isinstance(value, (Duration, Size))
    return value


def _count(key: str, value: object, loc: Loc | None) -> int:
    if isinstance(value, int) and not isinstance(value, (bool, Bool)) and value >= 1:
        return int(value)
    text = str(value).strip()
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise DefinitionError(
            f"resource '{key}' must be a whole number of at least 1, not '{value}'", loc
        )
    return int(text)
