"""A platform template that would spend unbounded time or memory stops with a clear error
naming the platform file and line: a loop over range(10**9), nested loops, repeated
strings, a namespace doubling a string, a huge power, or an output past the cap (the real
CLI for the example, the renderer with lowered bounds for the rest)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from jubex.errors import DefinitionError, Loc
from jubex.platform import render as render_module
from jubex.platform.render import render

DEFINITION = (
    "name: d\nparameters:\n  n: [1]\nsteps:\n  s:\n    resources: {time: 10}\n    do: echo $n\n"
)


class _Platform:
    name = "p"

    def where(self, key: str) -> Loc | None:
        return Loc("p.yaml", 3)


@pytest.mark.parametrize(
    "body",
    [
        "{% for i in range(10**9) %}x{% endfor %}",
        "{{ 'x' * 10**10 }}",
        "{% set ns = namespace(x='a') %}{% for i in range(64) %}{% set ns.x = ns.x ~ ns.x %}"
        "{% endfor %}{{ ns.x|length }}",
    ],
)
def test_an_unbounded_template_is_a_clear_error_in_the_dry_run(body: str, tmp_path: Path) -> None:
    (tmp_path / "d.yaml").write_text(DEFINITION)
    (tmp_path / "p.yaml").write_text(
        f"name: p\nextends: slurm\ntemplate: |\n  #!/bin/sh\n  {body}\n  {{{{ body }}}}\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "jubex", "run", "--dry-run", "-P", "./p.yaml", "d.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 2, said
    assert "p.yaml:4" in said and "platform 'p'" in said, said
    assert "internal error" not in said and "Traceback" not in said


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
            "ran for more than",
        ),
        ("{% for i in range(100000) %}{{ 'y' * 100 }}{% endfor %}", "renders to more than"),
        ("{{ [0] * 10**8 }}", "repeated"),
        ("{{ 7 ** 10000000 }}", "bits"),
        ("{{ 'a'|center(10**10) }}", "MiB of memory"),
        ("{{ ''.__class__.__mro__ }}", "unsafe"),
    ],
)
def test_each_way_to_spend_is_bounded(text: str, said: str, monkeypatch) -> None:
    monkeypatch.setattr(render_module, "RENDER_SECONDS", 0.5)
    monkeypatch.setattr(render_module, "RENDER_OUTPUT", 2**20)
    with pytest.raises(DefinitionError) as caught:
        render(_Platform(), "template", text, {})
    assert said in str(caught.value) and "p.yaml:3" in str(caught.value)


def test_bounds_leave_ordinary_templates_and_limits_as_they_were() -> None:
    import resource
    import signal

    before = resource.getrlimit(resource.RLIMIT_AS), signal.getsignal(signal.SIGALRM)
    text = "{% for i in range(3) %}{{ i * 2 }}{{ 'ab' * 2 }}{{ 2 ** 10 }}{% endfor %}"
    assert render(_Platform(), "template", text, {}) == "0abab10242abab10244abab1024"
    assert (resource.getrlimit(resource.RLIMIT_AS), signal.getsignal(signal.SIGALRM)) == before
