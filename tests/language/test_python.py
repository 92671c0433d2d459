"""The separate Python interpreter for JUBE snippets: real subprocess, time limit, switch."""

from pathlib import Path

import pytest

from jubex.errors import ExpressionError, Loc, UsageError
from jubex.language import python
from jubex.language.python import INTERPRETER, PythonExpr
from jubex.language.values import parse_value

LOC = Loc("bench.xml", 7)


@pytest.fixture(autouse=True)
def _allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JUBEX_NO_PYTHON", raising=False)
    monkeypatch.delenv("JUBEX_PYTHON_TIMEOUT", raising=False)
    python.set_allowed(None)


def test_an_import_through_exec_runs_as_in_python() -> None:
    expr = PythonExpr('exec("from fractions import Fraction") or str(Fraction(n, 6))', LOC)
    assert expr.names == {"n", "Fraction"}
    assert expr.evaluate({"n": parse_value("4")}) == "2/3"


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("(lambda x: x * k)(v)", {"k", "v"}),
        ("[y for y in xs if y > k]", {"xs", "k"}),
        ("len(str(n)) + max(m, 1)", {"n", "m"}),
        ("{a: b for a, b in pairs}", {"pairs"}),
    ],
)
def test_the_names_read_are_free_names_without_builtins(text: str, names: set[str]) -> None:
    assert PythonExpr(text).names == names


def test_values_arrive_typed_and_results_come_back_typed() -> None:
    env = {"n": parse_value("4"), "x": parse_value("1.5"), "s": "a,b", "xs": [1, "2"]}
    assert PythonExpr("n * x").evaluate(env) == 6.0
    assert PythonExpr("s.split(',')").evaluate(env) == "['a', 'b']"
    assert PythonExpr("len(xs) + n").evaluate(env) == 6
    assert PythonExpr("n > 3").evaluate(env) == "True"


def test_many_evaluations_share_one_interpreter() -> None:
    expr = PythonExpr("(lambda k: k * k)(i)")
    before = INTERPRETER.started
    assert [expr.evaluate({"i": i}) for i in range(2000)] == [i * i for i in range(2000)]
    assert INTERPRETER.started - before <= 1


def test_a_python_error_names_the_snippet_and_its_place() -> None:
    with pytest.raises(ExpressionError) as caught:
        PythonExpr("1 // n", LOC).evaluate({"n": 0})
    assert "'1 // n'" in caught.value.message
    assert "ZeroDivisionError" in caught.value.message
    assert caught.value.loc == LOC


def test_a_hang_is_stopped_at_the_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUBEX_PYTHON_TIMEOUT", "0.5")
    with pytest.raises(ExpressionError) as caught:
        PythonExpr("exec('while True: pass')", LOC).evaluate({})
    assert "longer than 0.5 s" in caught.value.message and caught.value.loc == LOC
    # the next evaluation starts a new interpreter, which a loaded machine may take longer than
    # the tiny limit to start: it is judged under the default limit
    monkeypatch.delenv("JUBEX_PYTHON_TIMEOUT")
    assert PythonExpr("1 + 1").evaluate({}) == 2


def test_a_crash_is_a_clear_error_and_the_next_evaluation_works() -> None:
    with pytest.raises(ExpressionError) as caught:
        PythonExpr("__import__('os')._exit(3)", LOC).evaluate({})
    assert "exited (status 3)" in caught.value.message and caught.value.loc == LOC
    assert PythonExpr("2 + 2").evaluate({}) == 4


def test_printing_does_not_disturb_the_answers() -> None:
    assert PythonExpr("print('noise') or 5").evaluate({}) == 5


@pytest.mark.parametrize("setting", ["1", "true", "yes"])
def test_the_environment_switch_refuses_real_python(
    monkeypatch: pytest.MonkeyPatch, setting: str
) -> None:
    monkeypatch.setenv("JUBEX_NO_PYTHON", setting)
    with pytest.raises(ExpressionError) as caught:
        PythonExpr("1 + 1", LOC).evaluate({})
    assert "which JUBEX_NO_PYTHON refuses" in caught.value.message and caught.value.loc == LOC


def test_the_command_line_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUBEX_NO_PYTHON", "1")
    python.set_allowed(True)
    assert PythonExpr("1 + 1").evaluate({}) == 2
    monkeypatch.delenv("JUBEX_NO_PYTHON")
    python.set_allowed(False)
    assert not python.allowed()
    python.set_allowed(None)
    assert python.allowed()


def test_a_syntax_error_is_refused_when_compiled() -> None:
    with pytest.raises(ExpressionError) as caught:
        PythonExpr("1 +", LOC)
    assert "not a valid Python expression" in caught.value.message


def test_the_user_config_refuses_real_python(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    config = tmp_path / "jubex" / "config.yaml"
    config.parent.mkdir()
    python.config_allows.cache_clear()
    assert python.allowed()
    config.write_text("python: false\n")
    python.config_allows.cache_clear()
    assert python.refused_by() == f"{config} (python: false)"
    config.write_text("python: maybe\n")
    python.config_allows.cache_clear()
    with pytest.raises(UsageError, match="python: true or python: false"):
        python.allowed()
    python.config_allows.cache_clear()


def test_a_platform_refuses_until_another_is_chosen() -> None:
    python.refuse_for_platform("strict")
    assert python.refused_by() == "platform 'strict' (python: false)"
    python.refuse_for_platform(None)
    assert python.allowed()
