"""Node's `util.inspect` text read back as data: what Node printed is kept, what it cut is left
out and counted, and nothing that is not its output is taken for it."""

from __future__ import annotations

import pytest
from mcptui.io.node_inspect import NotInspected, read_inspected


def read(text: str) -> tuple[object, int]:
    got = read_inspected(text, text.index("{"), len(text))
    return got.value, got.cuts


def test_the_literals_node_prints() -> None:
    text = (
        "{\n  type: 'response.output_text.delta',\n  'x-id': \"it's\",\n  n: -1.5e3,\n"
        "  big: 12n,\n  none: null,\n  gone: undefined,\n  yes: true,\n"
        '  at: 2025-08-26T14:50:42.000Z,\n  both: `it\'s "x"`,\n'
        "  esc: 'a\\nb\\x41\\u00e9\\'',\n  empty: {},\n  list: [ 1, 'two' ]\n}"
    )
    assert read(text) == (
        {
            "type": "response.output_text.delta",
            "x-id": "it's",
            "n": -1500.0,
            "big": 12,
            "none": None,
            "gone": None,
            "yes": True,
            "at": "2025-08-26T14:50:42.000Z",
            "both": 'it\'s "x"',
            "esc": "a\nbAé'",
            "empty": {},
            "list": [1, "two"],
        },
        0,
    )


def test_what_node_cut_is_left_out_and_counted() -> None:
    text = (
        "<ref *1> {\n  response: {\n    tools: [ [Object], [Object] ],\n"
        "    text: { format: [Object], verbosity: 'medium' },\n"
        "    output: [\n      1, 2,\n      ... 98 more items\n    ],\n"
        "    self: [Circular *1],\n    fn: [Function: f],\n    keep: 'x'\n  },\n"
        "  delta: 'aaaa'... 9996 more characters\n}"
    )
    value, cuts = read(text)
    assert value == {"response": {"text": {"verbosity": "medium"}, "keep": "x"}, "delta": "aaaa"}
    assert cuts == 7


def test_old_node_joins_long_strings_with_plus() -> None:
    assert read("{ text: 'first half ' +\n    'second half' }") == (
        {"text": "first half second half"},
        0,
    )


@pytest.mark.parametrize(
    "text",
    [
        "{ type: 'x'",  # cut off
        "{ a b }",  # no ':'
        "{ type: 'unterminated }",
        "{ a: 1 b: 2 }",  # no ','
        "{ a: 'cut at an escape\\",
        "{" * 500 + "a: 1" + "}" * 500,  # deeper than JSON allows
    ],
)
def test_what_is_not_node_output_is_refused(text: str) -> None:
    with pytest.raises(NotInspected):
        read_inspected(text, 0, len(text))
