import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.errors import DefinitionError, Loc
from jubex.language.values import (
    Bool,
    Duration,
    Float,
    Int,
    Size,
    coerce,
    format_size,
    parse_value,
)

KIB, MIB, GIB = 1024, 1024**2, 1024**3


@pytest.mark.parametrize(
    ("text", "kind", "number"),
    [
        ("16", int, 16),
        ("007", Int, 7),
        ("+5", Int, 5),
        ("-3", int, -3),
        ("2.5", float, 2.5),
        ("1.50", Float, 1.5),
        ("1e3", Float, 1000.0),
        ("true", Bool, 1),
        ("FALSE", Bool, 0),
        ("4KiB", Size, 4 * KIB),
        ("1.5MiB", Size, 1536 * KIB),
        ("4kB", Size, 4000),
        ("2GB", Size, 2 * 10**9),
        ("1m", Size, MIB),
        ("30m", Size, 30 * MIB),
        ("4K", Size, 4 * KIB),
        ("1Ti", Size, 1024**4),
        ("512B", Size, 512),
        ("hello", str, None),
        ("4b", str, None),
        ("3d", str, None),
        ("", str, None),
    ],
)
def test_auto_types_keep_the_written_text(text: str, kind: type, number: object) -> None:
    value = parse_value(text)
    assert type(value) is kind
    assert str(value) == text
    if number is not None:
        assert value == number


def test_arithmetic_on_typed_values_gives_plain_numbers() -> None:
    block, transfer = parse_value("4MiB"), parse_value("1m")
    assert block % transfer == 0
    assert type(block // transfer) is int and block // transfer == 4
    assert type(parse_value("007") + 1) is int
    assert f"{parse_value('4KiB')}" == "4KiB"
    assert f"{parse_value('4KiB'):d}" == "4096"
    assert hash(parse_value("007")) == hash(7)


def test_typed_values_survive_pickling() -> None:
    for value in (parse_value("4KiB"), parse_value("007"), parse_value("30m", "duration")):
        copy = pickle.loads(pickle.dumps(value))
        assert copy == value and str(copy) == str(value) and type(copy) is type(value)


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("4096", "size", 4096),
        ("4 KiB", "size", 4096),
        ("1.5k", "size", 1536),
        ("12", "int", 12),
        (" 12 ", "int", 12),
        ("3", "float", 3.0),
        ("inf", "float", float("inf")),
        ("yes", "bool", True),
        ("off", "bool", False),
        ("1", "bool", True),
        ("4KiB", "str", "4KiB"),
    ],
)
def test_declared_types(text: str, kind: str, expected: object) -> None:
    value = parse_value(text, kind)
    assert value == expected
    assert str(value) == text


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90", 90),
        ("90s", 90),
        ("30m", 1800),
        ("30min", 1800),
        ("2h", 7200),
        ("1d", 86400),
        ("1.5h", 5400),
        ("1h30m", 5400),
        ("1:30:00", 5400),
        ("30:00", 1800),
        ("1-12:00:00", 129600),
        ("2-06", 2 * 86400 + 6 * 3600),
        ("1-00:30", 86400 + 1800),
    ],
)
def test_durations(text: str, seconds: int) -> None:
    value = parse_value(text, "duration")
    assert isinstance(value, Duration)
    assert value == seconds and str(value) == text


def test_duration_formats_for_schedulers() -> None:
    assert parse_value("1-12:00:00", "duration").slurm == "1-12:00:00"
    assert parse_value("1-12:00:00", "duration").hms == "36:00:00"
    assert parse_value("90", "duration").slurm == "00:01:30"
    assert parse_value("90.2", "duration").seconds == 91
    assert parse_value("61s", "duration").minutes == 2


def test_thirty_m_is_a_size_unless_typed_as_duration() -> None:
    size, duration = parse_value("30m"), parse_value("30m", "duration")
    assert isinstance(size, Size) and size == 30 * 2**20 and str(size) == "30m"
    assert isinstance(duration, Duration) and duration == 1800 and str(duration) == "30m"


@pytest.mark.parametrize("text", ["4KB", "4mb", "4Mb", "4gB", "1kb"])
def test_ambiguous_sizes_are_refused_with_both_spellings(text: str) -> None:
    with pytest.raises(DefinitionError) as caught:
        parse_value(text, loc=Loc("bench.yaml", 3, 5))
    assert "ambiguous" in caught.value.message
    assert "iB" in caught.value.hint and "B for 1000-based" in caught.value.hint
    assert caught.value.loc == Loc("bench.yaml", 3, 5)


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("1.3k", "size", "whole number of bytes"),
        ("0.5", "size", "whole number of bytes"),
        ("lots", "size", "not a size"),
        ("4KiB", "int", "not an integer"),
        ("x", "float", "not a number"),
        ("maybe", "bool", "not a boolean"),
        ("1:70", "duration", "clock time"),
        ("1-25:00", "duration", "clock time"),
        ("5 weeks", "duration", "not a duration"),
        ("1", "complex", "unknown value type"),
    ],
)
def test_bad_values_say_what_was_expected(text: str, kind: str, expected: str) -> None:
    with pytest.raises(DefinitionError) as caught:
        parse_value(text, kind)
    assert expected in caught.value.message


@pytest.mark.parametrize(
    ("nbytes", "style", "text"),
    [
        (4096, "iec", "4KiB"),
        (4096, "ior", "4k"),
        (4000, "si", "4kB"),
        (3 * GIB, "iec", "3GiB"),
        (1536 * KIB, "iec", "1536KiB"),
        (1000, "iec", "1000B"),
        (1000, "ior", "1000"),
        (0, "iec", "0B"),
    ],
)
def test_format_size_uses_the_largest_exact_unit(nbytes: int, style: str, text: str) -> None:
    assert format_size(nbytes, style) == text


def test_format_size_refuses_unknown_styles() -> None:
    with pytest.raises(DefinitionError):
        format_size(1, "metric")


@given(st.integers(min_value=0, max_value=2**62), st.sampled_from(["iec", "ior", "si"]))
def test_size_text_round_trips(nbytes: int, style: str) -> None:
    assert parse_value(format_size(nbytes, style), "size") == nbytes


@given(st.text(max_size=12))
def test_auto_value_prints_exactly_as_written(text: str) -> None:
    try:
        value = parse_value(text)
    except DefinitionError:
        return
    assert str(value) == text


@given(
    st.one_of(
        st.integers(-(10**6), 10**6).map(str),
        st.floats(allow_nan=False, allow_infinity=False).map(str),
        st.tuples(st.integers(0, 9999), st.sampled_from(["KiB", "k", "MB", "G", "B"])).map(
            lambda t: f"{t[0]}{t[1]}"
        ),
    )
)
def test_numbers_and_sizes_print_as_written(text: str) -> None:
    assert str(parse_value(text)) == text


def test_coerce_applies_a_declared_type_to_computed_values() -> None:
    assert str(coerce(8192, "size")) == "8192" and isinstance(coerce(8192, "size"), Size)
    assert coerce(4.0, "int") == 4 and type(coerce(4.0, "int")) is int
    assert str(coerce(3, "float")) == "3" and coerce(3, "float") == 3.0
    assert coerce(90, "duration").slurm == "00:01:30"
    assert coerce(parse_value("4KiB"), "int") == 4096
    assert coerce(5, "str") == "5"
    assert coerce([1], "auto") == [1]
    with pytest.raises(DefinitionError):
        coerce(2.5, "int")
