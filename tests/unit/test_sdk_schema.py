"""The derived schema (model/sdkschema.py) gives the same findings as the SDK's models.

The conformance check vouches for an event from a JSON Schema derived once per SDK version,
instead of importing the SDK (~1.3 s a start). These tests hold it to the SDK: over every event
of the shipped and fixture streams, and over mutations of each (a field dropped, a value of
another JSON type, one level down too), a validator reading the derived schema reports exactly
what the one reading the SDK reports, and it vouches for every event of the real streams.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcptui.io import sdk_schema_cache
from mcptui.io.formats import load_path
from mcptui.model import conformance, sdkschema
from mcptui.model.sdktypes import event_models
from pydantic import ValidationError

REPO = Path(__file__).resolve().parents[2]
CORPUS = [
    *sorted((REPO / "recordings").glob("*.jsonl")),
    *sorted((REPO / "tests/fixtures/upstream").glob("*.chunks.txt")),
    *sorted((REPO / "tests/fixtures/archives").glob("*.*[!py]")),
    REPO / "tests/fixtures/share/hostile.jsonl",
    *sorted((REPO / "tests/causes").glob("*/*.jsonl")),
]
SAMPLES: list[Any] = [None, -1, 2**70, 1.5, True, "x", [1], {"type": "x"}]
"""A value of every JSON type, and the Python classes strictness tells apart (bool, int)."""
NESTED_SAMPLES: list[Any] = [None, 1, True, "x", {}]
"""Fewer one level down, where an object has many fields (a Response has ~30)."""


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return sdkschema.derive()


def _skeleton(value: Any, key: str = "") -> Any:
    """What validity can depend on: the structure, the classes, and the `type`/`status`/`role`
    literals; two events with one skeleton mutate alike, so one of them stands for both."""
    if isinstance(value, dict):
        return {k: _skeleton(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_skeleton(v) for v in value[:2]]
    if isinstance(value, str) and key not in ("type", "status", "role"):
        return "s"
    if type(value) in (int, float):
        return type(value)(0)
    return value


@pytest.fixture(scope="module")
def corpus() -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for path in CORPUS:
        for event in load_path(str(path)).events:
            if isinstance(event.raw, dict) and not event.is_note:
                seen.setdefault(json.dumps(_skeleton(event.raw), sort_keys=True), event.raw)
    assert len(seen) > 60, f"the corpus shrank to {len(seen)} distinct shapes of event"
    return list(seen.values())


def _validators(schema: dict[str, Any]) -> tuple[Any, Any]:
    """A validator over the derived schema and one over the SDK's models."""
    sdkschema.provide(lambda: schema)
    try:
        quick = conformance._Validator()
    finally:
        sdkschema.provide(None)
    sdk = conformance._Validator()
    assert quick._quick is not None and sdk._quick is None
    return quick, sdk


def _mutations(raw: dict[str, Any], depth: int = 2) -> Iterator[dict[str, Any]]:
    """`raw` with one field dropped or replaced by each sample, at each place `depth` levels
    down (through objects and the first element of lists)."""
    for key, value in raw.items():
        if key != "type":
            dropped = dict(raw)
            del dropped[key]
            yield dropped
        for sample in SAMPLES if depth > 1 else NESTED_SAMPLES:
            if type(sample) is not type(value) or sample != value:
                yield {**raw, key: copy.deepcopy(sample)}
        inner = value[0] if isinstance(value, list) and value else value
        if depth > 1 and isinstance(inner, dict):
            for changed in _mutations(inner, depth - 1):
                if isinstance(value, list):
                    yield {**raw, key: [changed, *value[1:]]}
                else:
                    yield {**raw, key: changed}


def _sdk_valid(raw: dict[str, Any]) -> bool:
    model = event_models().get(raw.get("type"))  # type: ignore[arg-type]
    if model is None:
        return False
    try:
        model.model_validate(conformance._first_elements(raw), strict=True)
    except ValidationError:
        return False
    return True


def test_every_real_event_the_sdk_accepts_is_vouched_for(
    schema: dict[str, Any], corpus: list[dict[str, Any]]
) -> None:
    """On real streams the SDK is never needed for a valid event."""
    checker = sdkschema.QuickChecker(schema)
    valid = [raw for raw in corpus if _sdk_valid(raw)]
    assert len(valid) > 50
    missed = [raw["type"] for raw in valid if not checker.valid(raw)]
    assert missed == []


def test_the_derived_schema_finds_what_the_sdk_finds(
    schema: dict[str, Any], corpus: list[dict[str, Any]]
) -> None:
    quick, sdk = _validators(schema)
    checker = sdkschema.QuickChecker(schema)
    compared = vouched = 0
    shapes: set[str] = set()
    for raw in corpus:
        for event in (raw, *_mutations(raw)):
            shape = json.dumps(_skeleton(event), sort_keys=True)
            if shape in shapes:
                continue
            shapes.add(shape)
            expected = sdk.problems(event)
            assert quick.problems(event) == expected, event
            compared += 1
            if checker.valid(event):
                vouched += 1
                assert _sdk_valid(event), ("vouched for an event the SDK refuses", event)
    assert compared > 5_000
    assert vouched > 1_000, "the schema vouched for almost nothing: every event paid the SDK"


def test_a_schema_construct_it_does_not_know_vouches_for_nothing(
    schema: dict[str, Any],
) -> None:
    changed = copy.deepcopy(schema)
    delta = changed["$defs"]["ResponseTextDeltaEvent"]
    delta["properties"]["delta"]["pattern"] = "^x"  # a keyword the checker does not model
    event = {
        "type": "response.output_text.delta",
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": "hello",
        "logprobs": [],
        "sequence_number": 3,
    }
    assert sdkschema.QuickChecker(schema).valid(event)
    assert not sdkschema.QuickChecker(changed).valid(event)


def test_the_schema_is_derived_once_then_read_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, schema: dict[str, Any]
) -> None:
    monkeypatch.setenv("MCPTUI_CACHE_DIR", str(tmp_path / "cache"))
    derived: list[int] = []
    monkeypatch.setattr(sdkschema, "derive", lambda: derived.append(1) or schema)
    assert sdk_schema_cache.cached_schema() == schema
    (written,) = (tmp_path / "cache").iterdir()
    assert written.name == f"sdk-events-{sdkschema.cache_key()}.json"
    assert sdk_schema_cache.cached_schema() == schema
    assert derived == [1]
    written.write_text('{"key": "half a fi')  # a torn or foreign file: derived again
    assert sdk_schema_cache.cached_schema() == schema
    assert derived == [1, 1]
    assert json.loads(written.read_text())["key"] == sdkschema.cache_key()


def test_a_cache_that_cannot_be_written_still_gives_the_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, schema: dict[str, Any]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("MCPTUI_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setattr(sdkschema, "derive", lambda: schema)
    assert sdk_schema_cache.cached_schema() == schema
    assert blocker.read_text() == "not a folder"


@pytest.mark.parametrize(
    "damage",
    [
        lambda s: s["$defs"].clear(),
        lambda s: s["$defs"].update({k: [] for k in s["$defs"]}),
        lambda s: s["events"].update({k: {"model": "X"} for k in s["events"]}),
        lambda s: s["$defs"]["ResponseTextDeltaEvent"].update(anyOf=5),
    ],
    ids=["no-definitions", "definitions-not-objects", "events-without-refs", "anyOf-not-a-list"],
)
def test_a_damaged_schema_vouches_for_nothing_and_never_raises(
    schema: dict[str, Any], corpus: list[dict[str, Any]], damage: Any
) -> None:
    """A cache file edited by hand or written by another tool: every event goes to the SDK."""
    damaged = copy.deepcopy(schema)
    damage(damaged)
    checker = sdkschema.QuickChecker(damaged)
    deltas = [raw for raw in corpus if raw.get("type") == "response.output_text.delta"]
    assert deltas
    for raw in corpus:
        checker.shape(str(raw.get("type")))
        if raw.get("type") == "response.output_text.delta":
            assert not checker.valid(raw)
