"""The workpackage value and its directory name, apart from the planner that makes it.

The run store, the tables and the analysers hold workpackages without planning any:
reading a run imports this value alone, not the planner and the expression language it
compiles with (:mod:`jubex.space.plan` re-exports these names).
"""

from __future__ import annotations

from jubex.plain import dataclass

SHARED = "shared"
#: the state of an iteration beyond a repetition target's minimum: run only if its point
#: still needs it (see :mod:`jubex.results.repetitions.repeat`)
HELD = "held"


def wp_dir_name(wp_id: int, step: str, suffix: str = "") -> str:
    """``<id>_<step><suffix>``: JUBE's name of a workpackage directory."""
    return f"{wp_id:06d}_{step}{suffix}"


@dataclass(slots=True)
class Workpackage:
    """One workpackage, the same value from the plan to the job script and the tables.

    ``point`` holds its parameter values typed (a size stays a size); ``dir_name`` is fixed
    when it is planned. The last four fields are where it stands, kept by the run store.
    """

    id: int
    step: str
    iteration: int
    point: dict[str, object]
    parents: tuple[int, ...] = ()
    kind: str = "wp"
    dir_name: str = ""
    state: str = "planned"
    job_id: str | None = None
    exit_code: int | None = None
    reason: str = ""

    def __post_init__(self) -> None:
        if not self.dir_name:
            self.dir_name = wp_dir_name(self.id, self.step)
