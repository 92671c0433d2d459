"""Checks through the space: expressions compile, spaces are not empty, names look right."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from jubex.api import validate
from jubex.definition.shell_names import expanded_names, set_names
from jubex.errors import DefinitionWarning

Write = Callable[[str, str], Path]


def problems(write: Write, text: str, tags: tuple[str, ...] = ()) -> list[str]:
    path = write("d.yaml", "name: d\n" + text)
    return [str(p).replace(str(path), "d.yaml") for p in validate([path], tags)]


def test_an_expression_that_does_not_compile_is_an_error_at_its_line(write: Write) -> None:
    found = problems(write, "parameters: {a: [1, 2]}\nwhere:\n  - 'a >'\n")
    assert len(found) == 1
    assert found[0].startswith("d.yaml:4:5: error: where: ")


def test_names_in_constraints_and_active_must_be_parameters(write: Write) -> None:
    found = problems(
        write,
        "parameters: {nodes: [1, 2]}\nwhere: ['node > 1']\n"
        "steps: {run: {active: 'nodes > 1 and sqrt(nodes) < 4', "
        "do: [{cmd: x, active: 'nodez == 2'}]}}\n",
    )
    assert found == [
        "d.yaml:3:9: error: where: 'node' is not a parameter (did you mean 'nodes'?)",
        "d.yaml:4:61: error: step 'run' do active: 'nodez' is not a parameter "
        "(did you mean 'nodes'?)",
    ]


def test_constraints_that_leave_no_point_are_an_error(write: Write) -> None:
    found = problems(write, "parameters: {a: [1, 2], b: [3, 4]}\nwhere: ['a > b']\n")
    assert found == [
        "d.yaml:3:9: error: the constraints leave none of the 4 points: 'a > b' "
        "(check the where clauses against the parameter values)"
    ]


def test_tagged_constraint_counts_only_with_its_tag(write: Write) -> None:
    text = "tags: [none]\nparameters: {a: [1, 2]}\nwhere: [{expr: 'a > 5', tag: none}]\n"
    assert problems(write, text) == []
    assert len(problems(write, text, ("none",))) == 1


def test_zip_groups_of_unequal_length_are_reported(write: Write) -> None:
    found = problems(write, "parameters:\n  g: {zip: {a: [1, 2], b: [1, 2, 3]}}\n")
    assert len(found) == 1
    assert "error" in found[0] and "zip" in found[0]


def test_derived_template_errors_are_reported(write: Write) -> None:
    found = problems(write, "parameters: {a: 1, b: '${a +}'}\n")
    assert len(found) == 1 and found[0].startswith("d.yaml:2:20: error: parameter 'b'")


def test_misspelt_shell_name_in_do_is_an_error_with_a_suggestion(write: Write) -> None:
    path = write(
        "d.yaml",
        "name: d\nparameters: {transfer: [1, 2]}\n"
        "steps: {run: {do: 'ior -t $transfr -o $HOME/x'}}\n",
    )
    (error,) = validate([path])
    assert error.exit_code == 2
    assert str(error) == (
        f"{path}:3:19: error: step 'run': $transfr is neither a parameter nor set by a "
        "command, so the shell would expand it to an empty text (did you mean 'transfer'?)"
    )


def test_misspelt_environment_name_in_do_is_a_warning(write: Write) -> None:
    path = write(
        "d.yaml",
        "name: d\nparameters: {TRANSFER: [1, 2]}\nsteps: {run: {do: 'ior -t $TRANSFR'}}\n",
    )
    (warning,) = validate([path])
    assert isinstance(warning, DefinitionWarning) and warning.exit_code == 0
    assert str(warning) == (
        f"{path}:3:19: warning: step 'run': $TRANSFR is no parameter; a shell variable of that "
        "name is used (did you mean $TRANSFER?)"
    )


def test_shell_and_env_parameters_are_not_run_by_validation(write: Write, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    text = f"parameters: {{a: {{shell: 'touch {marker}'}}, b: {{env: NO_SUCH_VARIABLE_HERE}}}}\n"
    assert "NO_SUCH_VARIABLE_HERE" not in os.environ
    assert problems(write, text) == []
    assert not marker.exists()


def test_the_names_a_shell_expands_and_those_commands_set() -> None:
    text = (
        "for f in a b; do echo $f $g; done\n"
        "x=1; echo \"$x ${y:-3} $$z '$q'\" '$w' $HOME ${v} \\$esc $(date) ${#arr[@]}\n"
        "read -r line; echo $line\ncat <<'EOF'\n$inner\nEOF\nexport A b=2\n"
    )
    assert list(expanded_names(text)) == ["f", "g", "x", "q", "HOME", "v", "line"]
    assert set_names(text) == {"f", "x", "line", "A", "b"}


@given(st.text(alphabet="ab_$'\"\\{}:-\n <EOF", max_size=60))
def test_every_expanded_name_is_written_with_a_dollar(text: str) -> None:
    for name in expanded_names(text):
        assert f"${name}" in text or f"${{{name}" in text
    assert set_names(text) <= set(re.findall(r"[A-Za-z_]\w*", text))
