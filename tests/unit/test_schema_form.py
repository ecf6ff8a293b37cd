"""The tool workspace's form (model/schema_form.py): a field per property of the kind its
schema says, the arguments the texts make, and the schema's problems with their paths."""

from __future__ import annotations

from mcptui.model.schema_form import arguments_of, fields_of, schema_problems, text_of

SCHEMA = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What to look for"},
        "limit": {"type": "integer"},
        "ratio": {"type": "number"},
        "exact": {"type": "boolean"},
        "mode": {"enum": ["fast", "deep", 3]},
        "filters": {"type": "array", "items": {"type": "object", "required": ["from"]}},
        "maybe": {"type": ["string", "null"]},
        "any": {},
    },
    "required": ["query", "limit"],
}


def test_each_property_is_a_field_of_its_kind_required_ones_marked():
    fields = fields_of(SCHEMA)
    assert fields is not None
    kinds = {f.name: (f.kind, f.required) for f in fields}
    assert kinds == {
        "query": ("string", True),
        "limit": ("integer", True),
        "ratio": ("number", False),
        "exact": ("boolean", False),
        "mode": ("enum", False),
        "filters": ("json", False),
        "maybe": ("string", False),
        "any": ("json", False),
    }
    assert fields[0].description == "What to look for"


def test_a_schema_a_form_cannot_stand_for_goes_to_raw_json():
    assert fields_of({"type": "object"}) is None
    assert fields_of({"oneOf": [{"type": "object"}]}) is None
    assert fields_of(None) is None


def test_the_texts_make_typed_arguments_and_empty_optional_fields_are_left_out():
    fields = fields_of(SCHEMA)
    assert fields is not None
    texts = {
        "query": "budget",
        "limit": "5",
        "ratio": "0.5",
        "exact": "true",
        "mode": "3",
        "filters": '[{"from": "a"}]',
        "maybe": "",
        "any": "",
    }
    arguments, problems = arguments_of(fields, texts)
    assert problems == []
    assert arguments == {
        "query": "budget",
        "limit": 5,
        "ratio": 0.5,
        "exact": True,
        "mode": 3,
        "filters": [{"from": "a"}],
    }


def test_bad_texts_are_named_by_field():
    fields = fields_of(SCHEMA)
    assert fields is not None
    _, problems = arguments_of(
        fields, {"query": "x", "limit": "", "ratio": "abc", "filters": "[1,"}
    )
    assert problems == [
        "limit: required",
        "ratio: not JSON (Expecting value, column 1)",
        "filters: not JSON (Expecting value, column 4)",
    ]
    _, problems = arguments_of(fields, {"query": "x", "limit": "1.5"})
    assert problems == ["limit: not an integer"]
    _, problems = arguments_of(fields, {"query": "", "limit": "1"})
    assert problems == ["query: required"]  # (the raw JSON mode sends an empty string)


def test_a_call_s_arguments_fill_the_form_back():
    fields = {f.name: f for f in fields_of(SCHEMA) or []}
    assert text_of(fields["query"], "budget") == "budget"
    assert text_of(fields["limit"], 5) == "5"
    assert text_of(fields["mode"], "deep") == "deep"
    assert text_of(fields["filters"], [{"from": "a"}]) == '[{"from": "a"}]'
    assert text_of(fields["query"], None) == ""


def test_schema_problems_carry_their_json_path():
    problems = schema_problems(SCHEMA, {"query": "x", "limit": 1, "filters": [{}]})
    assert problems == ["$.filters[0]: 'from' is a required property"]
    assert schema_problems(SCHEMA, {"query": "x"}) == ["$: 'limit' is a required property"]
    assert schema_problems({"type": "nonsense"}, {}) == []  # a schema it cannot use
