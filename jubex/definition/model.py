"""The typed model every spelling loads into: JUBE's vocabulary, kept one-to-one.

The classes are plain data. Texts are kept as written (templates with ``$name``); they are
typed and substituted by :mod:`jubex.space`, never here. ``loc`` points at the element in
its source file so that every later error can name file and line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field

from jubex.definition.darshan import Darshan
from jubex.errors import Loc
from jubex.language.ranges import Linear
from jubex.plain import dataclass

PARAMETER_TYPES = ("auto", "int", "float", "str", "bool", "size", "duration")
PARAMETER_MODES = ("text", "expr", "shell", "env", "tag", "python")
#: the modes whose one value is worked out (an expression, Python, a command, a variable);
#: a result holding the separator is several values
DERIVED_MODES = ("expr", "python", "shell", "env")
#: the modes of a parameter or pattern that run code to give a value: a shell command,
#: real Python (never run for an imported run, nor by inspection unless allowed)
CODE_MODES = ("shell", "python")
UPDATE_MODES = ("never", "use", "step", "cycle", "always")
DUPLICATE_MODES = ("replace", "concat", "error", "none")
PATTERN_TYPES = ("str", "int", "float", "bool", "size", "duration")
STATISTICS = ("first", "last", "min", "max", "avg", "sum", "cnt", "std")
FILE_OPS = ("copy", "link", "prepare")
SUB_MODES = ("text", "regex")


@dataclass
class Parameter:
    """One parameter: several values span the space, an expression derives it from others.

    ``values`` holds the texts as written. For ``mode="expr"`` there is exactly one value,
    an expression in jubex's safe language; for ``mode="shell"`` one shell command whose
    output is the value; for ``mode="env"`` the name of an environment variable; for
    ``mode="python"`` a Python expression for the separate interpreter (JUBE's python mode).
    """

    name: str
    #: a tuple, or a linear range's texts made as they are read (:class:`ranges.Linear`)
    values: Sequence[str]
    type: str = "auto"
    mode: str = "text"
    separator: str | None = None
    export: bool = False
    unit: str = ""
    update_mode: str = "never"
    duplicate: str = "replace"
    tag: str | None = None
    loc: Loc | None = None
    #: kept even where the platform gives a value of this name (jubex's format only)
    pinned: bool = False

    @property
    def written(self) -> Sequence[str]:
        """The texts as the file writes them, a range's bounds instead of its values: what
        a look for ``$name`` or a misspelt unit reads (a range's values are numbers)."""
        return self.values.bounds if isinstance(self.values, Linear) else self.values


@dataclass
class ParameterSet:
    """Named parameters; ``zips`` lists groups whose members vary together, not crosswise."""

    name: str
    parameters: dict[str, Parameter] = field(default_factory=dict)
    zips: list[tuple[str, ...]] = field(default_factory=list)
    init_with: str | None = None
    duplicate: str = "replace"
    loc: Loc | None = None


@dataclass
class Constraint:
    """A ``where`` clause: points for which the expression is false are dropped."""

    expr: str
    tag: str | None = None
    loc: Loc | None = None


@dataclass
class Do:
    """One shell command of a step, run in the workpackage's work directory."""

    command: str
    active: str = "true"
    shared: bool = False
    done_file: str | None = None
    error_file: str | None = None
    break_file: str | None = None
    work_dir: str | None = None
    stdout: str | None = None
    stderr: str | None = None
    tag: str | None = None
    loc: Loc | None = None


@dataclass
class Resources:
    """What a step asks of the platform; the platform turns it into directives."""

    nodes: str | None = None
    tasks_per_node: str | None = None
    tasks: str | None = None
    threads: str | None = None
    time: str | None = None
    partition: str | None = None
    account: str | None = None
    memory: str | None = None
    extra: dict[str, str] = field(default_factory=dict)


#: what a repetition target measures: the 95 % confidence interval of the mean (half-width)
#: or the coefficient of variation, each relative to the mean
UNTIL_STATISTICS = ("ci95", "cv")


@dataclass
class Until:
    """Repeat each point only until its numbers are tight: at least ``minimum`` iterations,
    at most the step's ``iterations``, fewer when ``stat`` of each of ``metrics`` (relative to
    the mean; no metrics: the headline values of the tables) is at most ``limit``."""

    stat: str
    limit: float
    minimum: int
    metrics: tuple[str, ...] = ()
    text: str = ""
    loc: Loc | None = None


@dataclass
class Step:
    """A named unit of work; one workpackage per parameter point and iteration."""

    name: str
    do: list[Do] = field(default_factory=list)
    depend: tuple[str, ...] = ()
    use: tuple[str, ...] | None = None
    use_files: tuple[str, ...] = ()
    #: names of parametersets chosen per point (``set_$i``), worked out while planning
    chosen: tuple[str, ...] = ()
    #: repetitions of every point (with ``until``: the most a point may get)
    iterations: int = 1
    until: Until | None = None
    cycles: int = 1
    shared: str | None = None
    active: str = "true"
    work_dir: str | None = None
    suffix: str = ""
    max_async: int = 0
    procs: int = 1
    export: bool = False
    #: JUBE's do log: a script of the commands and their environment, written when prepared
    do_log_file: str | None = None
    environment: dict[str, str] = field(default_factory=dict)
    resources: Resources = field(default_factory=Resources)
    analyse: tuple[str, ...] = ()
    time_limit: str | None = None
    array: bool = False
    #: on a local platform, run each workpackage alone: it measures the machine, and a
    #: neighbour would measure it too
    exclusive: bool = False
    #: run up to this many workpackages one after another in one batch job (0, 1: one each)
    pack: int = 0
    #: the time limit of a whole pack (default: each member's time, times their number)
    pack_time: str | None = None
    #: nodes of a whole pack, its members side by side as many as fit (0: one at a time)
    pack_nodes: int = 0
    #: run its workpackages under Darshan (None: as the study and the platform say)
    darshan: Darshan | None = None
    tag: str | None = None
    loc: Loc | None = None
    #: where each key's value, and each item of a list (``analyse[1]``), was written
    locs: dict[str, Loc] = field(default_factory=dict, repr=False, compare=False)


@dataclass
class FileOp:
    """Copy, link or prepare (a command) into the work directory.

    A prepare command's output is appended to ``stdout`` and ``stderr`` of the work
    directory unless it names files of its own, as a ``do``'s is.
    """

    kind: str
    source: str
    target: str | None = None
    directory: str | None = None
    rel_path_ref: str = "definition"
    source_dir: str | None = None
    target_dir: str | None = None
    separator: str | None = None
    active: str = "true"
    stdout: str | None = None
    stderr: str | None = None
    tag: str | None = None
    #: the copy or link may land outside the work directory (``outside: true``)
    outside: bool = False
    loc: Loc | None = None


@dataclass
class FileSet:
    name: str
    ops: list[FileOp] = field(default_factory=list)
    init_with: str | None = None
    loc: Loc | None = None


@dataclass
class IOFile:
    """A template file in, a file with the placeholders replaced out."""

    source: str
    target: str
    out_mode: str = "w"
    loc: Loc | None = None
    #: the result may be written outside the work directory (``outside: true``)
    outside: bool = False


@dataclass
class Sub:
    source: str
    dest: str
    mode: str = "text"
    loc: Loc | None = None


@dataclass
class SubstituteSet:
    name: str
    iofiles: list[IOFile] = field(default_factory=list)
    subs: list[Sub] = field(default_factory=list)
    init_with: str | None = None
    loc: Loc | None = None


@dataclass
class Pattern:
    """A regex (with ``$jube_pat_*`` built-ins) or a derived value: ``mode="expr"`` an
    expression, ``mode="shell"`` the output of a shell command over other values."""

    name: str
    regex: str
    type: str = "str"
    unit: str = ""
    default: str | None = None
    mode: str = "pattern"
    dotall: bool = False
    reduce: tuple[str, ...] = ("first", "last", "min", "max", "avg", "sum", "cnt", "std")
    higher_is_better: bool | None = None
    json_path: str | None = None
    loc: Loc | None = None


@dataclass
class PatternSet:
    name: str
    patterns: dict[str, Pattern] = field(default_factory=dict)
    init_with: str | None = None
    loc: Loc | None = None


@dataclass
class AnalyseFile:
    """A file (name or glob, relative to the work directory) and the extra patternsets for it."""

    path: str
    use: tuple[str, ...] = ()
    loc: Loc | None = None


@dataclass
class Analyser:
    """Binds patternsets (or a built-in analyser such as ``ior``) to files of a step."""

    name: str
    use: tuple[str, ...] = ()
    step: str | None = None
    files: list[AnalyseFile] = field(default_factory=list)
    builtin: str | None = None
    reduce: bool = True
    tag: str | None = None
    loc: Loc | None = None


@dataclass
class Column:
    """A table column: a parameter or analysed value, with statistics over its group."""

    name: str
    title: str | None = None
    format: str | None = None
    stats: tuple[str, ...] = ()
    unit: str | None = None
    expr: str | None = None
    #: an expression over the platform's peaks (and the row's values) this value is shown
    #: as a share of, e.g. ``storage_bandwidth`` or ``memory_bandwidth_per_node * nodes``
    peak: str | None = None
    loc: Loc | None = None


@dataclass
class Syslog:
    """A syslog daemon a table's rows go to, one ``name=value ...`` line each (JUBE's
    ``<syslog>``): a socket ``address`` such as ``/dev/log``, or ``host`` and UDP ``port``."""

    address: str | None = None
    host: str | None = None
    port: int = 514
    format: str = "jube[%(process)s]: %(message)s"


@dataclass
class Table:
    """A result table; ``group_by`` turns repetitions into statistics.

    ``result_dir`` (relative to the definition's directory): ``jubex result`` also writes the
    table to ``<result_dir>/<run id>/<name>.dat``, and a database goes there too (JUBE's
    ``<result result_dir>``). ``syslog``: ``jubex result`` sends the rows there instead.
    """

    name: str
    columns: list[Column] = field(default_factory=list)
    use: tuple[str, ...] = ()
    group_by: tuple[str, ...] = ()
    sort: tuple[str, ...] = ()
    filter: str | None = None
    style: str = "pretty"
    transpose: bool = False
    #: a group_by key whose values become columns side by side (``site``: one set per site)
    pivot: str | None = None
    #: ``flags: {cv: 3%, outliers: 5%}``: when a point is noisy, and the outlier test's level
    #: (0: no outlier test); None keeps the results stage's defaults (5 %, 1 %)
    cv_limit: float | None = None
    outlier_alpha: float | None = None
    separator: str = ","
    database: str | None = None
    primekeys: tuple[str, ...] = ()
    result_dir: str | None = None
    syslog: Syslog | None = None
    tag: str | None = None
    loc: Loc | None = None
    #: where each key's value, and each item of a list (``analyse[1]``), was written
    locs: dict[str, Loc] = field(default_factory=dict, repr=False, compare=False)


#: what a plot draws: lines over a numeric parameter, bars per category, or a heatmap
PLOT_KINDS = ("auto", "line", "bar", "heatmap")
#: the spread a plot's error bars show
PLOT_ERRORS = ("std", "ci95", "none")
#: the statistics a plot may draw of its metric
PLOT_STATS = ("mean", "median", "min", "max")
#: the file formats plots are written in
PLOT_FORMATS = ("svg", "png", "pdf")


@dataclass
class Plot:
    """A plot of a metric's statistic against a parameter, one line (or bar) per ``group``.

    ``rows`` makes it a heatmap: ``x`` across, ``rows`` down, the colour the statistic.
    ``logx`` None: log2 when the x values are sizes or powers of two.
    """

    name: str
    x: str
    y: str
    group: tuple[str, ...] = ()
    kind: str = "auto"
    rows: str | None = None
    stat: str = "mean"
    error: str = "std"
    logx: bool | None = None
    logy: bool = False
    filter: str | None = None
    title: str | None = None
    format: str = "svg"
    tag: str | None = None
    loc: Loc | None = None
    #: where each key's value, and each item of a list (``analyse[1]``), was written
    locs: dict[str, Loc] = field(default_factory=dict, repr=False, compare=False)


@dataclass
class Benchmark:
    """A whole study: the sets, the steps, how to read the outputs, what to tabulate."""

    name: str
    outpath: str = "runs"
    comment: str = ""
    #: workpackage cycles a run may make (None: the default limit, jubex.space.limit)
    max_workpackages: int | None = None
    parametersets: dict[str, ParameterSet] = field(default_factory=dict)
    filesets: dict[str, FileSet] = field(default_factory=dict)
    substitutesets: dict[str, SubstituteSet] = field(default_factory=dict)
    patternsets: dict[str, PatternSet] = field(default_factory=dict)
    analysers: dict[str, Analyser] = field(default_factory=dict)
    steps: dict[str, Step] = field(default_factory=dict)
    tables: dict[str, Table] = field(default_factory=dict)
    plots: dict[str, Plot] = field(default_factory=dict)
    where: list[Constraint] = field(default_factory=list)
    environment: dict[str, str] = field(default_factory=dict)
    #: run every step under Darshan (None: as the platform says)
    darshan: Darshan | None = None
    tags: tuple[str, ...] = ()
    platform: str | None = None
    file: str = ""
    loc: Loc | None = None
    #: the spelling it was written in: "jubex", or "jube" (a JUBE file, read as JUBE reads it)
    dialect: str = "jubex"
    #: what reading a JUBE file passed over as JUBE does (file:line each); ``run`` prints them
    warnings: tuple[str, ...] = ()
    #: the benchmarks of a JUBE file holding several (JUBE runs each, ``jubex run`` each in
    #: turn), this one among them; empty when the file holds one
    file_benchmarks: tuple[str, ...] = ()

    def parameter_types(self) -> dict[str, str]:
        """Each parameter's declared type, by name (how a stored value is read back)."""
        return {p.name: p.type for s in self.parametersets.values() for p in s.parameters.values()}


def place(element: Step | Table | Plot, key: str, item: int | None = None) -> Loc | None:
    """Where an element's ``key`` (its ``item``-th entry) was written, so a problem of it is
    reported at its own line; the element's place when not known (built in code)."""
    found = element.locs.get(f"{key}[{item}]") if item is not None else None
    return found or element.locs.get(key) or element.loc
