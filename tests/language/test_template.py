import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.errors import ExpressionError, Loc
from jubex.language.template import Template, shell_lookalikes
from jubex.language.values import parse_value

ENV = {"nodes": 4, "ppn": parse_value("8"), "transfer": parse_value("1m"), "api": "POSIX"}


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        ("ior -t $transfer -a $api", "ior -t 1m -a POSIX"),
        ("${nodes}x${ppn}", "4x8"),
        ("$nodes_x", "$nodes_x"),
        ("${nodes}_x", "4_x"),
        ("${nodes * ppn} tasks", "32 tasks"),
        ("${ nodes * ppn }", "32"),
        ("cost $$5 and $$HOME", "cost $5 and $HOME"),
        ("$$$nodes", "$4"),
        ("echo $1 $? $(hostname) $", "echo $1 $? $(hostname) $"),
        ("$HOME/$api/${HOME}", "$HOME/POSIX/${HOME}"),
        ("${VAR:-default} ${#arr[@]} ${PWD%/*}", "${VAR:-default} ${#arr[@]} ${PWD%/*}"),
        ("${'}'.join(['a', 'b'])}", "a}b"),
        ("${ {'x': 1}['x'] }", "1"),
        ("${x:-it's}", "${x:-it's}"),
        ("unclosed ${x", "unclosed ${x"),
        ("awk '{print $1}' {} $api", "awk '{print $1}' {} POSIX"),
        ("${'{0}'.format(nodes)}{}", "4{}"),
        ("", ""),
    ],
)
def test_shell_mode_substitutes_known_names_and_leaves_the_rest(text: str, rendered: str) -> None:
    assert Template(text).render(ENV) == rendered


def test_names_include_names_inside_expressions() -> None:
    assert Template("srun -n ${nodes * ppn} $exe $HOME").names == {"nodes", "ppn", "exe", "HOME"}
    assert Template("${VAR:-x} $$HOME").names == frozenset()


def test_render_value_keeps_the_type_of_a_single_substitution() -> None:
    assert Template("${nodes * ppn}").render_value(ENV) == 32
    assert Template("$transfer").render_value(ENV) is ENV["transfer"]
    assert Template("${nodes}x").render_value(ENV) == "4x"
    assert Template("$HOME").render_value(ENV) == "$HOME"


def test_literal_texts_are_recognised() -> None:
    assert Template("plain text, cost $5").is_literal
    assert not Template("cost $$5").is_literal
    assert not Template("$x").is_literal
    assert Template("$x").is_single and not Template("a$x").is_single


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$unknown", "unknown name '$unknown'"),
        ("${unknown}", "unknown name '${unknown}'"),
        ("${VAR:-default}", "not a valid expression"),
        ("value ${x", "without a closing"),
    ],
)
def test_outside_the_shell_unknown_names_are_errors(text: str, expected: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        Template(text, Loc("input.in", 3), shell=False).render(ENV)
    assert expected in caught.value.message
    assert caught.value.loc == Loc("input.in", 3)


def test_unknown_name_suggests_the_parameter() -> None:
    with pytest.raises(ExpressionError) as caught:
        Template("$nodse", shell=False).render(ENV)
    assert caught.value.hint == "did you mean 'nodes'?"


def test_an_expression_with_an_unknown_name_is_an_error_even_in_shell_mode() -> None:
    with pytest.raises(ExpressionError) as caught:
        Template("echo ${arr[0]}", Loc("b.yaml", 9)).render(ENV)
    assert "unknown name 'arr'" in caught.value.message
    assert "$${" in caught.value.hint
    assert caught.value.loc == Loc("b.yaml", 9)


def test_refused_expressions_fail_when_the_template_is_made() -> None:
    with pytest.raises(ExpressionError) as caught:
        Template("echo ${nodes.__class__}", Loc("b.yaml", 2))
    assert caught.value.loc == Loc("b.yaml", 2)


def test_shell_lookalikes_flag_probable_misspellings() -> None:
    template = Template("ior -t $tranfser -N $NODES -o $HOME/$SLURM_JOB_ID ${nodes}")
    assert shell_lookalikes(template, ENV) == [("tranfser", "transfer"), ("NODES", "nodes")]
    assert shell_lookalikes(Template("$transfer $HOME"), ENV) == []


LITERAL = st.text(alphabet=st.characters(blacklist_characters="$"), max_size=8)


@given(LITERAL)
def test_text_without_dollar_renders_to_itself(text: str) -> None:
    template = Template(text, shell=False)
    assert template.is_literal and template.render({}) == text


@given(st.lists(st.tuples(LITERAL, st.sampled_from(sorted(ENV))), max_size=5), LITERAL)
def test_rendering_is_concatenation_of_pieces_and_values(
    pieces: list[tuple[str, str]], tail: str
) -> None:
    text = "".join(f"{literal}${{{name}}}" for literal, name in pieces) + tail
    expected = "".join(f"{literal}{ENV[name]}" for literal, name in pieces) + tail
    assert Template(text, shell=False).render(ENV) == expected
    assert Template(text, shell=False).names == {name for _, name in pieces}
