"""What the scheduler backends' tests share: a job spec around a trivial script."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from jubex.schedulers.base import JobSpec


@pytest.fixture
def spec(tmp_path: Path) -> Callable[..., JobSpec]:
    """Builds the spec of a job named ``wp-1`` whose script does nothing; fields as given."""
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/sh\ntrue\n")

    def build(**fields: object) -> JobSpec:
        return JobSpec(
            name="wp-1",
            script=script,
            workdir=tmp_path,
            stdout=tmp_path / "o",
            stderr=tmp_path / "e",
            **fields,  # type: ignore[arg-type]
        )

    return build
