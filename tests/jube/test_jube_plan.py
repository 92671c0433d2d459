"""What JUBE 2.7.1 plans for constructs that choose steps and sets (each expectation is what
``jube run --debug`` plans for the same file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.api import dry_run, resolve
from jubex.cli.main import main
from jubex.space.plan import SHARED


def planned(tmp_path: Path, text: str, *tags: str) -> list[tuple[str, dict[str, str]]]:
    """Each workpackage's step and values (as text) of a dry run of a JUBE file."""
    path = tmp_path / "bench.xml"
    path.write_text(f'<jube><benchmark name="b" outpath="runs">{text}</benchmark></jube>')
    return [
        (item.rendered.wp.step, {k: str(v) for k, v in item.rendered.wp.point.items()})
        for item in dry_run(resolve(path, tags=list(tags)))
        if item.rendered.wp.kind != SHARED
    ]


SHARED_STEP = """
<parameterset name="p"><parameter name="x">1,2</parameter></parameterset>
<step name="a" shared="sh"><use>p</use><do>echo $x</do><do shared="true">echo all</do></step>
"""


def test_info_counts_no_shared_operation_as_a_workpackage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bench.xml"
    path.write_text(f'<jube><benchmark name="b" outpath="runs">{SHARED_STEP}</benchmark></jube>')
    assert main(["info", str(path)]) == 0
    assert "step a: 2 workpackage(s)" in capsys.readouterr().out
