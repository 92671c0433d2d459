"""Schema errors: one sentence each, naming the dotted key, what was expected, and the line."""

from __future__ import annotations

import json

from jsonschema import Draft202012Validator

from jubex.definition.schema_check import check_tree, schema
from jubex.definition.yaml_tree import read_yaml


def problems(text: str, *, fragment: bool = False) -> list[str]:
    tree, errors = read_yaml(text, "d.yaml")
    assert errors == []
    return [str(e) for e in check_tree(tree, fragment=fragment)]


def test_the_schema_is_a_valid_draft_2020_12_schema_with_help_on_every_key() -> None:
    Draft202012Validator.check_schema(schema())
    undocumented = []

    def walk(node: object, path: str) -> None:
        if isinstance(node, dict):
            for key, sub in node.get("properties", {}).items():
                if (
                    isinstance(sub, dict)
                    and "description" not in sub
                    and sub.get("$ref") != "#/$defs/tag"
                ):
                    undocumented.append(f"{path}.{key}")
            for key, sub in node.items():
                walk(sub, f"{path}/{key}")
        elif isinstance(node, list):
            for item in node:
                walk(item, path)

    walk(schema(), "")
    assert undocumented == []
    assert json.dumps(schema())  # plain JSON, as editors read it


def test_wrong_type_names_the_key_the_expectation_and_the_value() -> None:
    assert problems("name: x\nsteps:\n  run:\n    iterations: three\n") == [
        "d.yaml:4:17: error: steps.run.iterations: expected a positive integer, "
        "or {min, max, until}, got 'three'"
    ]


def test_unknown_key_points_at_the_key_with_a_suggestion() -> None:
    assert problems("name: x\nsteps:\n  run:\n    iteratons: 3\n") == [
        "d.yaml:4:5: error: steps.run.iteratons: unknown key 'iteratons' "
        "(did you mean 'iterations'?)"
    ]


def test_keys_are_case_sensitive() -> None:
    assert problems("Name: x\n") == [
        "d.yaml:1:1: error: Name: unknown key 'Name' (did you mean 'name'?)",
        "d.yaml:1:1: error: the file: missing key 'name'",
    ]


def test_misspelt_parameter_option_is_reported_once_as_unknown_key() -> None:
    assert problems("name: x\nparameters:\n  a: {valuse: [1, 2]}\n") == [
        "d.yaml:3:7: error: parameters.a.valuse: unknown key 'valuse' (did you mean 'values'?)"
    ]


def test_two_value_sources_are_refused() -> None:
    assert problems("name: x\nparameters:\n  a: {values: [1], expr: 'b + 1'}\n") == [
        "d.yaml:3:6: error: parameters.a: expected exactly one of the keys values, range, "
        "expr, python, shell, env or zip, got values and expr"
    ]


def test_enum_lists_the_choices_and_suggests_one() -> None:
    assert problems("name: x\nparameters:\n  a: {values: [1], type: integer}\n") == [
        "d.yaml:3:26: error: parameters.a.type: expected one of auto, int, float, str, bool, "
        "size, duration, got 'integer' (did you mean 'int'?)"
    ]


def test_parameter_names_must_be_usable_in_expressions() -> None:
    assert problems("name: x\nparameters:\n  block-size: 1\n") == [
        "d.yaml:3:3: error: parameters.block-size: 'block-size' is not a name usable in "
        "expressions (letters, digits and '_', not starting with a digit)"
    ]


def test_a_list_item_of_the_wrong_kind_is_explained_by_its_alternatives() -> None:
    assert problems("name: x\nsteps:\n  run:\n    do: [echo, {cmd: x, shared: maybe}]\n") == [
        "d.yaml:4:33: error: steps.run.do[1].shared: expected true or false, got 'maybe'"
    ]


def test_every_problem_is_reported_not_only_the_first() -> None:
    found = problems('name: "1\\tx"\noutpath: [a]\nsteps: {run: {cycles: 0, procs: -1}}\n')
    assert len(found) == 4
    assert [f.split(": ")[2] for f in found] == [
        "name",
        "outpath",
        "steps.run.cycles",
        "steps.run.procs",
    ]


def test_an_included_fragment_needs_no_name() -> None:
    assert problems("parametersets: {sizes: {a: 1}}\n", fragment=True) == []
    assert problems("parametersets: {sizes: {a: 1}}\n") == [
        "d.yaml:1:1: error: the file: missing key 'name'"
    ]
