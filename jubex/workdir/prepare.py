"""Work directories: files copied, linked, prepared and substituted, and the job script.

A workpackage lives in ``<run>/<id>_<step>/``: its commands run in ``work/`` (where they find
their files, the links to their parents' work directories named after the parent steps, and
write ``stdout``/``stderr``); jubex's own files (scripts, claim, exit status) sit beside it.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from jubex.definition.darshan import Darshan
from jubex.definition.model import Benchmark, FileOp, Step, SubstituteSet
from jubex.definition.order import set_names
from jubex.errors import DefinitionError, DefinitionWarning, JubexError, Loc, warn
from jubex.language.confine import escapes, too_long
from jubex.language.template import Template, template
from jubex.space.conditions import Condition, condition
from jubex.space.expand import CYCLE, PER_CYCLE, Space
from jubex.workdir.darshan import darshan_lines
from jubex.workdir.do_log import log_path, write_do_log
from jubex.workdir.script import BODY, DO, ENVIRONMENT, Command, admin_dir, wrapper
from jubex.workdir.writer import Confine, Writer


@dataclass
class Prepared:
    """What preparing a workpackage made: where its commands run, its wrapper, what it runs."""

    workdir: Path
    body: Path
    #: the rendered commands of each cycle
    cycles: list[list[Command]]
    #: the environment the wrapper exports
    environment: dict[str, str]
    #: values of the parameters its cycles evaluated again, as the last cycle left them:
    #: what JUBE keeps for the workpackage, and so what its tables show
    updated: dict[str, object] = field(default_factory=dict)
    #: the lines that run its commands under Darshan (none: it runs without)
    darshan: list[str] = field(default_factory=list)


def set_aside(wp_dir: Path) -> Path | None:
    """Keep an earlier attempt's work directory as ``work.1``, ``work.2``, ... and return it.

    A workpackage run again starts in a fresh one, so that its outputs (appended to by the
    commands) and the analysis of them are the new attempt's alone; the old ones stay.
    """
    work = wp_dir / "work"
    if not (work.exists() or work.is_symlink()):
        return None
    number = 1
    while (wp_dir / f"work.{number}").exists() or (wp_dir / f"work.{number}").is_symlink():
        number += 1
    target = wp_dir / f"work.{number}"
    work.rename(target)
    return target


class StepPreparer:
    """Compiled once per step, applied to each of its workpackages.

    ``space_of`` gives the step's parameter space as it was planned; it is asked only when
    the step uses parameters evaluated again in every cycle (``update_mode`` cycle, always).
    """

    def __init__(
        self,
        benchmark: Benchmark,
        step: Step,
        *,
        home: Path,
        shared: bool = False,
        space_of: Callable[[Step], Space] | None = None,
    ) -> None:
        """``home``: the definition's directory, where relative sources and work_dirs start."""
        self.benchmark = benchmark
        self.step = step
        self.shared = shared
        self.per_cycle = (
            space_of(step).per_cycle()
            if space_of is not None and not shared and _updated_per_cycle(benchmark, step)
            else []
        )
        self.home = home
        dos = [d for d in step.do if d.shared == shared]
        self.dos = [(d, Template(d.command, d.loc), Condition(d.active, d.loc)) for d in dos]
        self.env = [
            (k, Template(v, step.loc))
            for k, v in {**benchmark.environment, **step.environment}.items()
        ]
        self.exported = [
            p.name
            for s in benchmark.parametersets.values()
            for p in s.parameters.values()
            if p.export
        ]
        names = [*(step.use or ()), *getattr(step, "use_files", ())]
        self.filesets = [benchmark.filesets[n] for n in names if n in benchmark.filesets]
        self.subsets = [benchmark.substitutesets[n] for n in names if n in benchmark.substitutesets]
        self.work_dir = Template(step.work_dir, step.loc) if step.work_dir else None
        #: the link to the shared folder, named as JUBE names it (``shared="$folder"``)
        self.link = Template(step.shared or "shared", step.loc, shell=False)
        #: the environment a do log lists under the workpackage's own (taken once: JUBE's too)
        self.start_environment = dict(os.environ) if step.do_log_file else {}

    def _link_name(self, env: Mapping[str, object]) -> str:
        """The shared folder's link in a work directory: one name, in the directory."""
        name = self.link.render(env)
        if not name or "/" in name or name in (".", ".."):
            raise DefinitionError(
                f"step '{self.step.name}': its shared folder's name {name!r} is no name of "
                "one entry in the work directory",
                self.step.loc,
                "a shared folder is linked into each work directory under this name",
            )
        return name

    def prepare(
        self,
        wp_id: int,
        wp_dir: Path,
        env: Mapping[str, object],
        parents: Sequence[tuple[str, Path]],
        writer: Writer,
        *,
        time_limit_s: float | None = None,
        shared_dir: Path | None = None,
        platform_environment: Mapping[str, str] | None = None,
        local: bool = False,
        darshan: Darshan | None = None,
    ) -> Prepared:
        """Make the work directory (files, links, substitutions) and the wrapper script;
        with ``darshan`` its commands run under Darshan."""
        cycles = self.cycles(env)
        env = cycles[0]
        workdir = wp_dir / "work"
        if self.work_dir is not None:
            # as JUBE: relative to the definition's directory
            workdir = self.home / _expanded(self.work_dir.render(env))
            _fits(workdir, "work_dir", self.step.loc)
            workdir = workdir.resolve()
        if self.shared and shared_dir is not None:
            workdir = shared_dir
        admin = admin_dir(wp_dir)
        try:
            writer.make_dirs(admin, workdir)
            if workdir != wp_dir / "work" and not self.shared:
                # the workpackage's own work/ leads there: analysis, status and children
                # find the outputs where they look for every workpackage's
                writer.symlink(workdir, wp_dir / "work")
            for parent_step, parent_work in parents:
                writer.symlink(parent_work, workdir / parent_step)
            if shared_dir is not None and not self.shared:
                writer.make_dirs(shared_dir)
                writer.symlink(shared_dir, workdir / self._link_name(env))
            for fileset in self.filesets:
                for op in fileset.ops:
                    self._file_op(op, workdir, env, writer)
            for subset in self.subsets:
                self._substitute(subset, workdir, env, writer)
        except OSError as exc:
            raise JubexError(f"cannot prepare the work directory {workdir}: {exc}") from None
        per_cycle = [self._commands(values, workdir) for values in cycles]
        commands = [command for cycle in per_cycle for command in cycle]
        setup = darshan_lines(darshan, workdir, commands) if darshan else []
        environment = dict(platform_environment or {})
        environment.update({k: t.render(env) for k, t in self.env})
        environment.update({n: str(env[n]) for n in self.exported if n in env})
        if self.step.do_log_file:
            path = log_path(self.step.do_log_file, wp_dir, env, self.step.loc)
            write_do_log(
                writer,
                path,
                {**self.start_environment, **environment},
                per_cycle,
                workdir,
                shared=self.shared,
                fresh=path.parent == wp_dir,
            )
        inherit = [
            work.parent / ENVIRONMENT
            for parent_step, work in parents
            if self.benchmark.steps.get(parent_step) and self.benchmark.steps[parent_step].export
        ]
        text, do_script = wrapper(
            wp_id=wp_id,
            step=self.step.name,
            workdir=workdir,
            admin=admin,
            commands=commands,
            environment=environment,
            time_limit_s=time_limit_s,
            inherit=inherit,
            export=self.step.export,
            local=local,
            setup=setup,
        )
        body = admin / BODY
        writer.write(body, text)
        if do_script is not None:
            writer.write(admin / DO, do_script)
        last = cycles[-1]
        return Prepared(
            workdir, body, per_cycle, environment, {n: last[n] for n, _ in self.per_cycle}, setup
        )

    def cycles(self, env: Mapping[str, object]) -> list[dict[str, object]]:
        """Each cycle's values: its number, and the parameters evaluated again for it, each
        after those it reads (as JUBE, also for the first cycle). Files, exported values and
        the work directory take the first cycle's, since JUBE prepares them only then."""
        found = []
        for cycle in range(max(1, self.step.cycles)):
            values = {**env, CYCLE: cycle}
            for name, evaluate in self.per_cycle:
                values[name] = evaluate(values)
            found.append(values)
        return found

    def _commands(self, env: Mapping[str, object], workdir: Path) -> list[Command]:
        """One cycle's active commands, rendered, with their marker files made absolute."""
        found = []
        for do, command, active in self.dos:
            if not active.holds(env):
                continue
            where = (
                workdir / _expanded(template(do.work_dir, do.loc).render(env))
                if do.work_dir
                else workdir
            )
            _fits(where, "work_dir of a command", do.loc)
            marker = partial(_marker, where=where, env=env, loc=do.loc)
            found.append(
                Command(
                    command.render(env),
                    do.stdout,
                    do.stderr,
                    str(where) if do.work_dir else None,
                    marker(do.done_file),
                    marker(do.error_file),
                    marker(do.break_file),
                )
            )
        return found

    def _file_op(
        self, op: FileOp, workdir: Path, env: Mapping[str, object], writer: Writer
    ) -> None:
        if not condition(op.active, op.loc).holds(env):
            return
        source = template(op.source, op.loc).render(env)
        if op.kind == "prepare":
            where = (
                workdir / template(op.directory, op.loc).render(env) if op.directory else workdir
            )
            out, err = (
                _output(name, default, workdir, env, op.loc)
                for name, default in ((op.stdout, "stdout"), (op.stderr, "stderr"))
            )
            for path, what in ((where, "work_dir"), (out, "stdout"), (err, "stderr")):
                _fits(path, what, op.loc)
            writer.run_prepare(source, where, out, err, op)
            return
        base = workdir if op.rel_path_ref in ("internal", "workdir") else self.home
        # ``directory`` is the older name of ``source_dir`` (JUBE's too); source_dir wins
        source_dir = op.source_dir or op.directory
        if source_dir:
            base = base / template(source_dir, op.loc).render(env)
        pattern = source if os.path.isabs(source) else str(base / source)
        _fits(pattern, f"{op.kind} source", op.loc)
        matches = sorted(glob.glob(pattern)) or ([pattern] if op.kind == "link" else [])
        if not matches:
            writer.missing(DefinitionError(f"{op.kind}: no file matches '{pattern}'", op.loc))
            return
        subdir = (
            os.path.join(template(op.target_dir, op.loc).render(env), "") if op.target_dir else ""
        )
        target_dir = workdir / subdir
        names = [
            template(op.target, op.loc).render(env) if op.target else Path(match).name
            for match in matches
        ]
        confines = [
            self._confine(os.path.join(subdir, name), workdir, op.loc, op.kind, op.outside)
            for name in names
        ]
        writer.make_dirs(target_dir, within=confines[0])
        for match, name, within in zip(matches, names, confines, strict=True):
            target = target_dir / name
            _fits(target, f"{op.kind} target", op.loc)
            if op.kind == "link":
                writer.symlink(Path(match).resolve(), target, within=within)
            else:
                writer.copy(Path(match), target, within=within)

    def _substitute(
        self, subset: SubstituteSet, workdir: Path, env: Mapping[str, object], writer: Writer
    ) -> None:
        """Replace placeholders in template files: text mode literally, regex mode by pattern."""
        replace = [
            (s.source, template(s.dest, s.loc).render(env), s.mode == "regex") for s in subset.subs
        ]
        for iofile in subset.iofiles:
            source = workdir / template(iofile.source, iofile.loc).render(env)
            name = template(iofile.target, iofile.loc).render(env)
            _fits(source, "substitution source", iofile.loc)
            _fits(workdir / name, "substitution target", iofile.loc)
            within = self._confine(name, workdir, iofile.loc, "substitution", iofile.outside)
            try:
                writer.substitute(source, workdir / name, replace, iofile.out_mode, within=within)
            except JubexError as exc:
                raise exc.at(iofile.loc) from None

    def _confine(
        self, relative: str, workdir: Path, loc: Loc | None, what: str, outside: bool
    ) -> Confine | None:
        """How a path relative to the work directory is held in it, before anything is written.

        A path that leads out by its text (``..``, absolute) is refused, unless the entry says
        ``outside: true``; a JUBE file, which writes wherever it is told, gets a warning
        instead. A path that stays in by its text is checked again as it is written, so that
        a symbolic link in the work directory cannot lead it out.
        """
        if outside:
            return None
        strict = self.benchmark.dialect == "jubex"
        reason = escapes(relative)
        target = os.path.normpath(workdir / relative)
        if reason is None or _under(target, workdir):  # an absolute path into it stays in
            return Confine(workdir, loc, strict)
        message = (
            f"the {what} target '{relative}' {reason}: it would write {target}, "
            f"outside the work directory {workdir}"
        )
        if strict:
            raise DefinitionError(message, loc, "set outside: true on the entry to allow it")
        warn(DefinitionWarning(message, loc))
        return None


def _under(path: str, directory: Path) -> bool:
    """Whether ``path`` (normalised) names ``directory`` or something in it, by its text."""
    return os.path.commonpath([path, os.path.normpath(directory)]) == os.path.normpath(directory)


def _updated_per_cycle(benchmark: Benchmark, step: Step) -> bool:
    return any(
        p.update_mode in PER_CYCLE
        for name in set_names(benchmark, step)
        for p in benchmark.parametersets[name].parameters.values()
    )


def _fits(path: str | Path, what: str, loc: Loc | None) -> None:
    """Refuse a path the system cannot take: one of 100,000 parts would be resolved part by
    part for minutes, only to fail with ENAMETOOLONG."""
    reason = too_long(path)
    if reason is not None:
        raise DefinitionError(
            f"the {what} {str(path)[:60]}... {reason}",
            loc,
            "a path this long cannot be made or opened; a parameter may have made it",
        )


def _marker(
    name: str | None, *, where: Path, env: Mapping[str, object], loc: Loc | None
) -> str | None:
    return str(where / template(name, loc).render(env)) if name else None


def _output(
    name: str | None, default: str, workdir: Path, env: Mapping[str, object], loc: Loc | None
) -> Path:
    """Where a command's output goes: a file named with parameters, ``~`` or ``$VAR``."""
    if not name:
        return workdir / default
    return workdir / _expanded(template(name, loc).render(env))


def _expanded(path: str) -> str:
    """A path with ``~`` and the environment's ``$VAR`` expanded, as JUBE expands a work
    directory or an output file after its parameters (``$SCRATCH/run_$n``)."""
    return os.path.expandvars(os.path.expanduser(path))
