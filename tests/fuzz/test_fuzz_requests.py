"""Hostile requests and schemas through the fix loop's pure parts (issue 38): the check as
you type, the toggles, the hidden secrets, the tool form. Each shipped request (and each
recording's header request), mutated as the fuzz corpus mutates files, one JSON line each:
no exception escapes, and what can be sent round-trips."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from corpus import flip, nest, shuffle, truncate, wrong_type
from mcptui.model.jsonsafe import loads
from mcptui.model.request_check import check_request_text
from mcptui.model.request_toggles import flip as flip_toggle
from mcptui.model.request_toggles import toggles
from mcptui.model.schema_form import arguments_of, fields_of, schema_problems, text_of
from mcptui.share.editable_request import UnsetVariable, editable_request, request_to_send

REPO = Path(__file__).resolve().parents[2]
MUTATIONS = [truncate, flip, shuffle, wrong_type, nest]
SCHEMA = {
    "type": "object",
    "properties": {
        "query": {"type": "string"},
        "limit": {"type": "integer", "minimum": 1},
        "mode": {"enum": ["a", 1, None]},
        "filters": {"type": "array", "items": {"type": "object"}},
        "flag": {"type": "boolean"},
    },
    "required": ["query"],
}


def requests() -> list[bytes]:
    found = [path.read_bytes() for path in sorted((REPO / "requests").glob("*.json"))]
    for path in sorted((REPO / "recordings").glob("*.jsonl")):
        header = json.loads(path.read_text().splitlines()[0])
        found.append(json.dumps(header["request"]).encode())
    return [json.dumps(json.loads(data)).encode() for data in found]  # one line each


def mutated(count: int, seed: int) -> list[tuple[str, bytes]]:
    rng = random.Random(seed)
    seeds = requests()
    out = []
    for number in range(count):
        data = seeds[number % len(seeds)]
        steps = rng.sample(MUTATIONS, rng.randint(1, 2))
        for step in steps:
            if data:
                data = step(rng, data)
        out.append((f"{number:03d}-{'+'.join(s.__name__ for s in steps)}", data))
    return out


@pytest.mark.parametrize("case", mutated(120, 2027), ids=lambda c: c[0])
def test_a_hostile_request_is_checked_toggled_and_sent_without_escaping(case):
    _, data = case
    text = data.decode("utf-8", errors="replace")
    check = check_request_text(text)
    request = check.request
    if request is None:
        assert check.problems  # it says why
        return
    for problem in check.problems:
        assert problem.text()
    listed = {"demo": ["search", "broken_schema"], "files": ["search_files"]}
    for toggle in toggles(request, listed, request):
        changed = flip_toggle(request, toggle.key, listed, request)
        assert isinstance(changed, dict)
    editable = editable_request(request)
    shown = json.loads(editable.text)
    try:
        sent = request_to_send(shown, editable.kept, env={})
    except UnsetVariable:
        return  # a redacted value (a recording's): the editor names it
    if "${" not in text:  # (text like a placeholder in the request stays as it was)
        assert sent == request


@pytest.mark.parametrize("seed", range(40))
def test_a_hostile_schema_makes_a_form_or_goes_to_raw_json(seed: int):
    rng = random.Random(seed)
    data = json.dumps(SCHEMA).encode()
    for step in rng.sample(MUTATIONS, rng.randint(1, 3)):
        data = step(rng, data)
    try:
        schema = loads(data)  # (as the probe reads a server's answer: at most 100 levels)
    except ValueError:
        schema = data.decode("utf-8", errors="replace")
    fields = fields_of(schema)
    if fields is None:
        return
    texts = {field.name: text_of(field, rng.choice(["x", 3, [1], None, True])) for field in fields}
    arguments, problems = arguments_of(fields, texts)
    assert isinstance(arguments, dict) and all(isinstance(p, str) for p in problems)
    assert all(isinstance(p, str) for p in schema_problems(schema, arguments))
