"""Conformance checks: does a recorded or live stream follow the protocol, and where does it
drift from the installed openai SDK's types?

A real stream can fail the SDK's models for two very different reasons (protocol.md §4,
"Strict validation meets real streams"): the stream is broken (an unknown or misspelt event type,
a missing `item_id`, sequence gaps, events for items never added, deltas that disagree with
their `.done`), or the API and the installed SDK are simply different versions (a field the SDK
now requires that a 2025 stream never sent, a new enum value). The first kind is an `error`, the
second a `warning` naming the SDK version, so `--strict` fails on broken streams only.

Every event is validated against the SDK model looked up by its `type` literal, never through
the `ResponseStreamEvent` union (which tries every member: slow, and hundreds of errors). Pydantic
still reports fields that are themselves unions (`item` of `output_item.added`) once per member;
those are collapsed to the member whose `type` matches the object. Streams run to hundreds of
thousands of `output_text.delta` events, so validation results are cached by event shape (type,
keys, value classes, and the values of fields whose value matters to validation): a delta whose
shape was seen before costs a few tuple operations, and `delta: 5` still has its own shape.
"""

from __future__ import annotations

import difflib
import operator
import types
import typing
from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from itertools import pairwise, repeat
from operator import attrgetter, is_
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec

from mcptui.model.events import TYPE_ALIASES, Event, payloads, written_run
from mcptui.model.fast_read import LITE_FAILURES, TEXT_DELTA, UNSET
from mcptui.model.findings import Finding, Severity, ordered
from mcptui.model.providers import differs, drift_prefix
from mcptui.model.sdkschema import CHECKED_ELEMENTS, QuickChecker, quick_checker, sdk_versions
from mcptui.model.sdktypes import event_models
from mcptui.model.state import TERMINAL_STATUSES, ItemState, ResponseState, SessionState
from mcptui.model.summary import is_excerpt

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic_core import ErrorDetails

ADDED = "response.output_item.added"
DONE = "response.output_item.done"

DOCUMENTED_EXTRAS = frozenset({"obfuscation"})
"""Undeclared in the SDK's models but documented (protocol.md §1): not worth a finding."""
LATER_TOP_LEVEL_FIELDS = frozenset({"logprobs"})
"""Top-level fields the SDK made required after streams without them existed: openai-python
1.97 requires `logprobs` on `output_text.delta`/`.done`, which older streams and compatible
providers omit (openai/openai-python#2489). Missing, they are version drift, not a broken event."""
VERSIONS_DIFFER = ": older and newer API versions differ"
"""Why a stream from OpenAI may drift from the SDK; a named provider's drift is its own."""
SDK_SHAPE_CODES = frozenset(
    {"sdk_drift", "unknown_event_type", "unknown_item_type", "extra_field", "missing_field"}
    | {"wrong_type"}
)
"""Findings that judge an event's shape against the openai SDK's models (not the protocol's
order: sequence numbers, deltas against their `.done`, items never added)."""
SUGGESTION_CUTOFF = 0.75
MAX_LISTED = 6
"""How many missing-field paths one drift message lists before saying "and N more"."""

_IS_NOTE = attrgetter("is_note")
_SEQUENCE_NUMBER = attrgetter("sequence_number")
_SCALARS = (str, int, float, bool, type(None))
_JSON_NAMES = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
    dict: "an object",
    list: "an array",
}


class _Problem(NamedTuple):
    """A finding without its place: what an event's shape alone says is wrong with it."""

    severity: Severity
    code: str
    message: str
    suggestion: str | None = None
    extra: str | None = None
    """For `extra_field`: the field, so each is reported once per response and event type."""


@cache
def sdk_version() -> str:
    """The installed openai SDK's version, which every drift message names (read from its
    version file: importing the SDK costs ~1 s)."""
    return sdk_versions()[0]


def _sdk() -> str:
    return f"the installed SDK (openai {sdk_version()})"


def suggest_type(kind: str) -> str | None:
    """The event type `kind` was probably meant to be: a known drifted spelling first, else the
    closest name the SDK knows."""
    alias = TYPE_ALIASES.get(kind)
    if alias is not None:
        return alias
    close = difflib.get_close_matches(kind, list(event_models()), n=1, cutoff=SUGGESTION_CUTOFF)
    return close[0] if close else None


# -- validating one event ---------------------------------------------------------------------


def _json_name(value: Any) -> str:
    return _JSON_NAMES.get(type(value), type(value).__name__)


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clip(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _dotted(path: Sequence[Any]) -> str:
    return ".".join(str(part) for part in path) or "(event)"


def _value_at(raw: Any, path: Sequence[Any]) -> Any:
    node = raw
    for part in path:
        found = (isinstance(node, dict) and part in node) or (
            isinstance(node, list) and type(part) is int and -len(node) <= part < len(node)
        )
        if not found:
            return None
        node = node[part]
    return node


_Marked = tuple[tuple[Any, bool], ...]
"""A pydantic `loc` with each segment marked True when it names a union member, not data."""


def _mark(loc: Sequence[Any], raw: Any, missing: bool) -> _Marked:
    """Tell union-member names apart from field names and list indexes by walking the data:
    a segment the data does not have is a member name (pydantic adds one per union member),
    except the last segment of a `missing` error, which is the absent field itself."""
    node = raw
    out: list[tuple[Any, bool]] = []
    last = len(loc) - 1
    for n, seg in enumerate(loc):
        if missing and n == last:
            out.append((seg, False))
            continue
        is_data = (isinstance(node, dict) and isinstance(seg, str) and seg in node) or (
            isinstance(node, list) and type(seg) is int and 0 <= seg < len(node)
        )
        if is_data:
            node = node[seg]
        out.append((seg, not is_data))
    return tuple(out)


def _is_other_member(after: _Marked, error: ErrorDetails) -> bool:
    """Whether this error shows the object is not this union member at all: its `type` literal
    does not match (the discriminator), or the value is not even of the member's JSON type."""
    if not after:
        return True
    return (
        len(after) == 1
        and after[0] == ("type", False)
        and error["type"] in ("literal_error", "enum", "missing")
    )


class _Unmatched(NamedTuple):
    """A union-typed value that matches none of the SDK's members."""

    path: tuple[Any, ...]
    members: int


def _collapse(
    errors: list[tuple[_Marked, ErrorDetails]],
) -> tuple[list[tuple[tuple[Any, ...], ErrorDetails]], list[_Unmatched]]:
    """Keep, for each union-typed value, only the errors of the member the value claims to be
    (by its `type`), with the member's name dropped from the path; nested unions likewise."""
    kept: list[tuple[tuple[Any, ...], ErrorDetails]] = []
    unmatched: list[_Unmatched] = []
    groups: dict[tuple[Any, ...], dict[Any, list[tuple[_Marked, ErrorDetails, _Marked]]]] = {}
    for marked, error in errors:
        pos = next((n for n, (_, is_member) in enumerate(marked) if is_member), None)
        if pos is None:
            kept.append((tuple(seg for seg, _ in marked), error))
            continue
        prefix = tuple(seg for seg, _ in marked[:pos])
        member = marked[pos][0]
        groups.setdefault(prefix, {}).setdefault(member, []).append(
            (marked[:pos] + marked[pos + 1 :], error, marked[pos + 1 :])
        )
    for prefix, members in groups.items():
        fitting = [
            errs
            for errs in members.values()
            if not any(_is_other_member(after, error) for _, error, after in errs)
        ]
        if not fitting:
            unmatched.append(_Unmatched(prefix, len(members)))
            continue
        best = min(fitting, key=len)
        sub_kept, sub_unmatched = _collapse([(rest, error) for rest, error, _ in best])
        kept.extend(sub_kept)
        unmatched.extend(sub_unmatched)
    return kept, unmatched


def _what(path: Sequence[Any]) -> str:
    """What a path names, for messages: its last field name (`item`, `content`, `part`)."""
    for part in reversed(path):
        if isinstance(part, str):
            return part
    return "value"


def _unmatched_problem(raw: dict[str, Any], unmatched: _Unmatched) -> _Problem:
    value = _value_at(raw, unmatched.path)
    where = _dotted(unmatched.path)
    what = _what(unmatched.path)
    if not isinstance(value, dict):
        return _Problem(
            "error",
            "wrong_type",
            f"{where} is {_json_name(value)}, which matches none of the "
            f"{unmatched.members} shapes the SDK accepts there",
        )
    kind = value.get("type")
    if not isinstance(kind, str):
        return _Problem(
            "error",
            "missing_field",
            f"{where} has no 'type', so no client can tell which of the SDK's "
            f"{unmatched.members} {what} models it is",
        )
    return _Problem(
        "warning",
        "unknown_item_type",
        f"unknown {what} type {kind!r} at {where}: {_sdk()} has no model for it "
        "(a newer API, or a misspelling); mcptui shows it anyway",
    )


def _nested_error_fields(raw: dict[str, Any], missing: list[str]) -> list[str]:
    """For an `error` event: the required top-level fields it carries inside a nested `error`
    object instead (the shape seen on the wire, protocol.md §2)."""
    nested = raw.get("error")
    if raw.get("type") != "error" or not isinstance(nested, dict):
        return []
    return [name for name in missing if name in nested]


def _first_elements(value: Any, depth: int = 0) -> Any:
    """`value` with each list cut to its first `CHECKED_ELEMENTS` (`value` itself, not a
    copy, when no list is longer)."""
    if depth > 8:
        return value
    if type(value) is dict:
        cut = {key: _first_elements(item, depth + 1) for key, item in value.items()}
        return value if all(cut[key] is item for key, item in value.items()) else cut
    if type(value) is list:
        kept = value[:CHECKED_ELEMENTS]
        items = [_first_elements(item, depth + 1) for item in kept]
        if len(value) <= CHECKED_ELEMENTS and all(map(operator.is_, items, value)):
            return value
        return items
    return value


def _validation_problems(
    raw: dict[str, Any], model: type[BaseModel]
) -> tuple[list[_Problem], bool]:
    """Validate `raw` strictly (no "0" for 0) and turn pydantic's errors into findings; also
    whether this is the nested `error` event (whose `error` key is then no stray extra).
    Long lists are checked on their first `CHECKED_ELEMENTS` elements."""
    from pydantic import ValidationError  # the SDK's path only (sdkschema.py)

    raw = _first_elements(raw)
    try:
        model.model_validate(raw, strict=True)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
    else:
        return [], False
    marked = [(_mark(error["loc"], raw, error["type"] == "missing"), error) for error in errors]
    kept, unmatched = _collapse(marked)
    problems = [_unmatched_problem(raw, u) for u in unmatched]

    missing_top = [
        path[0]
        for path, error in kept
        if error["type"] == "missing" and len(path) == 1 and isinstance(path[0], str)
    ]
    nested = _nested_error_fields(raw, missing_top)
    if nested:
        problems.append(
            _Problem(
                "warning",
                "sdk_drift",
                f"this error event nests its fields in an 'error' object ({', '.join(nested)} "
                f"inside 'error'); the flat ResponseErrorEvent of {_sdk()} expects them at the "
                "top level, and the SDK raises APIError on this shape instead of yielding it",
            )
        )

    drift_missing: list[str] = []
    for path, error in kept:
        etype = error["type"]
        where = _dotted(path)
        if etype == "missing":
            if len(path) == 1 and path[0] in nested:
                continue
            if len(path) == 1 and path[0] not in LATER_TOP_LEVEL_FIELDS:
                problems.append(
                    _Problem("error", "missing_field", f"required field {where!r} is missing")
                )
            else:
                drift_missing.append(where)
        elif etype in ("literal_error", "enum") and isinstance(error.get("input"), str):
            # A string the SDK does not list: a new (or retired) value. Anything else given
            # for a string enum is simply the wrong JSON type, below.
            problems.append(
                _Problem(
                    "warning",
                    "sdk_drift",
                    f"{where} is {_short(error.get('input'))}, a value {_sdk()} does not list "
                    f"({_clip(error['msg'])}){VERSIONS_DIFFER}",
                )
            )
        elif etype == "union_tag_invalid":
            problems.append(
                _Problem(
                    "warning",
                    "unknown_item_type",
                    f"{where}: {_sdk()} has no model for this type ({error['msg']})",
                )
            )
        elif etype == "union_tag_not_found":
            problems.append(
                _Problem("error", "missing_field", f"{where} has no 'type' ({error['msg']})")
            )
        else:
            problems.append(
                _Problem(
                    "error",
                    "wrong_type",
                    f"{where}: {_clip(error['msg'])}, got {_json_name(error.get('input'))}",
                )
            )
    if drift_missing:
        listed = ", ".join(drift_missing[:MAX_LISTED])
        if len(drift_missing) > MAX_LISTED:
            listed += f" and {len(drift_missing) - MAX_LISTED} more"
        problems.append(
            _Problem(
                "warning",
                "sdk_drift",
                f"{_sdk()} expects {listed}, which this stream did not send{VERSIONS_DIFFER}",
            )
        )
    return problems, bool(nested)


@cache
def _declared(model: type[BaseModel]) -> frozenset[str]:
    """The JSON names of the model's fields."""
    from mcptui.model.sdkshape import json_fields

    return frozenset(json_fields(model))


_SIMPLE = frozenset({str, int, float, bool})


@cache
def _free_fields(model: type[BaseModel]) -> frozenset[str]:
    """Fields whose validity depends only on the value's class (`str`, `int`, optional ones,
    unconstrained): the shape cache may key them on the class instead of the value."""
    free = set()
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if typing.get_origin(annotation) in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
        else:
            args = [annotation]
        if args and all(a in _SIMPLE for a in args) and not field.metadata:
            free.add(field.alias or name)
    return frozenset(free)


def event_problems(raw: dict[str, Any]) -> list[_Problem]:
    """Everything one event's content says about it, uncached."""
    kind = raw.get("type")
    if not isinstance(kind, str):
        return [
            _Problem(
                "error",
                "missing_field",
                "the event has no 'type' string, so no client can dispatch it",
            )
        ]
    models = event_models()
    problems: list[_Problem] = []
    model = models.get(kind)
    if model is None:
        canonical = TYPE_ALIASES.get(kind)
        suggestion = suggest_type(kind)
        if canonical is not None:
            message = (
                f"{kind!r} is a drifted spelling (API reference or an older SDK): "
                f"{_sdk()} does not know it and will mis-parse it; the wire sends "
                f"{canonical!r}"
            )
        elif suggestion is not None:
            message = (
                f"{_sdk()} does not know {kind!r} and will mis-parse it; it looks like "
                f"a misspelling of {suggestion!r}"
            )
        else:
            message = f"{_sdk()} does not know event type {kind!r} and will mis-parse it"
        problems.append(_Problem("error", "unknown_event_type", message, suggestion))
        if canonical is None:
            return problems
        # Check the rest of a misspelt argument event as the event it stands for.
        model = models[canonical]
        raw = {**raw, "type": canonical}
    found, nested_error = _validation_problems(raw, model)
    problems.extend(found)
    declared = _declared(model)
    problems.extend(
        _extra_field(key, model.__name__)
        for key in raw
        if not (key in declared or key in DOCUMENTED_EXTRAS or (nested_error and key == "error"))
    )
    return problems


def _extra_field(key: str, model: str) -> _Problem:
    return _Problem(
        "info",
        "extra_field",
        f"{key!r} is not a field of the SDK's {model}; the SDK keeps it in model_extra",
        extra=key,
    )


def _quick_problems(quick: QuickChecker, raw: dict[str, Any]) -> tuple[_Problem, ...]:
    """`event_problems(raw)`, without the SDK when the derived schema vouches for the event
    (sdkschema.py): a valid event's only findings are its undeclared fields."""
    shape = quick.shape(raw["type"]) if quick.valid(raw) else None
    if shape is None:
        return tuple(event_problems(raw))
    return tuple(
        _extra_field(key, shape.model)
        for key in raw
        if key not in shape.declared and key not in DOCUMENTED_EXTRAS
    )


class _Plan(NamedTuple):
    """How to key the shape cache for one (type, key sequence)."""

    fixed: tuple[int, ...]
    """Positions of declared fields whose value (not just its class) decides validity."""
    cache: dict[tuple[Any, ...], tuple[_Problem, ...]]
    annotations: tuple[Any, ...]
    """The SDK's annotation of each field in `fixed` (None where the SDK is not loaded: an
    object or a list there is then checked whole, uncached)."""
    cached: bool = True
    """False when even undeclared fields decide validity: nothing is shared."""


class _Validator:
    """Validates events, caching the result per shape, so that the 200k-th delta of a stream
    costs a dict lookup rather than a pydantic validation. With a derived schema
    (sdkschema.py) the SDK is imported only for an event the schema cannot vouch for."""

    def __init__(self) -> None:
        self._plans: dict[tuple[str, tuple[str, ...]], _Plan] = {}
        self._quick = quick_checker()

    def _plan(self, kind: str, keys: tuple[str, ...]) -> _Plan:
        canonical = TYPE_ALIASES.get(kind, kind)
        if self._quick is not None:
            plan = self._quick_plan(self._quick, canonical, keys)
        else:
            plan = self._sdk_plan(event_models().get(canonical), keys)
        self._plans[(kind, keys)] = plan
        return plan

    @staticmethod
    def _sdk_plan(model: type[BaseModel] | None, keys: tuple[str, ...]) -> _Plan:
        if model is None:  # unknown type: only the keys matter for the type finding itself
            return _Plan((), {}, ())
        from mcptui.model.sdkshape import json_fields

        free, declared = _free_fields(model), _declared(model)
        fixed = tuple(
            n for n, key in enumerate(keys) if key != "type" and key in declared and key not in free
        )
        fields = json_fields(model)
        return _Plan(fixed, {}, tuple(fields[keys[n]] for n in fixed))

    @staticmethod
    def _quick_plan(quick: QuickChecker, kind: str, keys: tuple[str, ...]) -> _Plan:
        shape = quick.shape(kind)
        if shape is None:
            return _Plan((), {}, ())
        fixed = tuple(
            n
            for n, key in enumerate(keys)
            if key != "type" and key in shape.declared and key not in shape.free
        )
        return _Plan(fixed, {}, (None,) * len(fixed), not shape.closed)

    def _problems(self, raw: dict[str, Any]) -> tuple[_Problem, ...]:
        if self._quick is not None:
            return _quick_problems(self._quick, raw)
        return tuple(event_problems(raw))

    def problems(self, raw: dict[str, Any]) -> tuple[_Problem, ...]:
        kind = raw.get("type")
        if type(kind) is not str:
            return tuple(event_problems(raw))
        keys = tuple(raw)
        plan = self._plans.get((kind, keys)) or self._plan(kind, keys)
        if not plan.cached:
            return self._problems(raw)
        values = tuple(raw.values())
        shape: tuple[Any, ...] = tuple(map(type, values))
        nested = False
        if plan.fixed:
            parts = [shape]
            for n, annotation in zip(plan.fixed, plan.annotations, strict=True):
                value = values[n]
                cls = shape[n]
                if cls in _SCALARS:
                    parts.append(value)
                elif cls is list and not value:
                    parts.append(())
                elif annotation is None:  # no SDK to say what the value's validity rests on
                    return self._problems(raw)
                else:  # an object or a list: what its validity depends on (sdkshape.py)
                    from mcptui.model.sdkshape import Uncacheable, shape_of

                    try:
                        parts.append(shape_of(value, annotation))
                    except Uncacheable:
                        return tuple(event_problems(raw))
                    nested = True
            shape = tuple(parts)
        found = plan.cache.get(shape)
        if found is None:
            found = self._problems(raw)
            if not (nested and found):  # a nested value's problems may quote it: not shared
                plan.cache[shape] = found
        return found


class _DeltaShape(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A text delta with only the fields the SDK declares (and `obfuscation`), each of the
    class the model wants: its problems depend only on which of the optional ones it has.
    Anything else does not decode, and goes the way of the dict."""

    type: str
    item_id: str
    delta: str
    sequence_number: int
    output_index: int | msgspec.UnsetType = UNSET
    content_index: int | msgspec.UnsetType = UNSET
    logprobs: list[Any] | msgspec.UnsetType = UNSET
    obfuscation: str | msgspec.UnsetType = UNSET


_decode_delta_shape = msgspec.json.Decoder(_DeltaShape).decode
TEXT_PART = TEXT_DELTA.removesuffix(".delta")
"""What a text delta's deltas are keyed by in `_Check.item` (with its content index)."""


class _DeltaShapeRecord(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A recording's line whose event is read as `_DeltaShape`."""

    t: float | None
    event: _DeltaShape


_decode_delta_shape_record = msgspec.json.Decoder(_DeltaShapeRecord).decode
_decode_delta_shape_lines = msgspec.json.Decoder(_DeltaShape).decode_lines
_decode_delta_shape_record_lines = msgspec.json.Decoder(_DeltaShapeRecord).decode_lines
BULK_RUN = 16
"""Text deltas in a row, read fast, that `_Check.item` reads in one go (`_Check.delta_run`)."""
_LITE = attrgetter("lite")
_WRITTEN = attrgetter("written")
_WRITTEN_BARE = attrgetter("written_bare")
_EVENT = attrgetter("event")
_TYPE = attrgetter("type")
_ITEM_ID = attrgetter("item_id")
_OUTPUT_INDEX = attrgetter("output_index")
_CONTENT_INDEX = attrgetter("content_index")
_LOGPROBS = attrgetter("logprobs")
_OBFUSCATION = attrgetter("obfuscation")
_DELTA = attrgetter("delta")


def _delta_shape(event: Event) -> _DeltaShape | None:
    """A text delta read fast (from a stream's payload, a recording's or a dump's line), decoded as
    `_DeltaShape`, or None (not read fast, extra fields, a value of another class, log
    probabilities to check)."""
    if event.lite is None:
        return None
    try:
        payload = event.payload
        if payload is not None:
            shape = _decode_delta_shape(payload)
        else:
            line = event.written
            if line is None:
                return None
            if event.written_bare:
                shape = _decode_delta_shape(line)
            else:
                shape = _decode_delta_shape_record(line).event
    except LITE_FAILURES:
        return None
    return shape if shape.type == TEXT_DELTA and not shape.logprobs else None


def _delta_run_shapes(run: list[Event]) -> list[_DeltaShape] | None:
    """`_delta_shape` of each of these text deltas read fast, decoded in one call (a stream's
    payloads, or a recording's lines, one a line); None when one of them does not decode so
    (each is then read on its own)."""
    try:
        texts = payloads(run)
        if texts is not None:
            shapes = _decode_delta_shape_lines(b"\n".join(texts))
        else:
            written = written_run(run)
            if written is not None:
                joined, bare = written
            else:
                lines = list(map(_WRITTEN, run))
                if None in lines:
                    return None
                joined, bare = b"".join(lines), all(map(_WRITTEN_BARE, run))
            if bare:  # a dump's lines: each the event itself
                shapes = _decode_delta_shape_lines(joined)
            else:
                shapes = list(map(_EVENT, _decode_delta_shape_record_lines(joined)))
    except LITE_FAILURES:
        return None
    if (
        len(shapes) != len(run)
        or any(map(_LOGPROBS, shapes))
        or set(map(_TYPE, shapes)) != {TEXT_DELTA}
    ):
        return None
    return shapes


# -- the stream-level checks ------------------------------------------------------------------


class _Check:
    """One run of `check_stream`: the findings so far and what dedups them."""

    def __init__(self, events: Sequence[Event]) -> None:
        self.events = events
        self.findings: list[Finding] = []
        self.validator = _Validator()
        self.extras_seen: set[tuple[int, str, str]] = set()
        self.delta_problems: dict[tuple[bool, ...], tuple[_Problem, ...]] = {}
        """Problems of a text delta by which optional fields it has (`validate_delta`)."""

    def add(
        self,
        severity: Severity,
        code: str,
        message: str,
        index: int | None,
        resp: ResponseState,
        item: ItemState | None = None,
        suggestion: str | None = None,
    ) -> None:
        self.findings.append(
            Finding(
                severity,
                code,
                message,
                index,
                resp.key,
                item.key if item is not None else None,
                suggestion,
            )
        )

    def validate(
        self, index: int, raw: dict[str, Any], resp: ResponseState, item_key: int | None
    ) -> None:
        if self.events[index].partial:
            return  # not the wire's event in full (Node's `[Object]`, built from an item)
        problems = self.validator.problems(raw)
        if problems:
            self.report(problems, str(raw.get("type")), index, resp, item_key)

    def validate_delta(
        self, index: int, shape: _DeltaShape, resp: ResponseState, item_key: int | None
    ) -> None:
        """`validate` for a text delta read as `_DeltaShape`: the problems of the first such
        delta with the same optional fields stand for all of them (measured on
        bench/conformance.py: decoding and validating each delta's dict was half the time)."""
        present = (
            shape.output_index is not UNSET,
            shape.content_index is not UNSET,
            shape.logprobs is not UNSET,
            shape.obfuscation is not UNSET,
        )
        problems = self.delta_problems_of(present, index)
        if problems:
            self.report(problems, TEXT_DELTA, index, resp, item_key)

    def delta_problems_of(self, present: tuple[bool, ...], index: int) -> tuple[_Problem, ...]:
        """The problems of a text delta with these optional fields `present`, validated once
        (on event `index`, the first such delta) for all of them."""
        problems = self.delta_problems.get(present)
        if problems is None:
            problems = self.delta_problems[present] = self.validator.problems(
                self.events[index].raw
            )
        return problems

    def delta_run(
        self, run: list[int], resp: ResponseState, item: ItemState
    ) -> tuple[tuple[str, Any, Any], list[str]] | None:
        """For text deltas in a row of one item, read fast: validated as `validate_delta`
        validates each, the part they add to and their texts. None when they differ in what
        `item` reads of each (which fields they have, their item id, output index or content
        index), when one disagrees with the item, or when they do not decode in one go: the
        caller then reads them one by one (measured on bench/conformance.py: a text delta
        read alone was two thirds of this check's time)."""
        events = self.events
        shapes = _delta_run_shapes(list(map(events.__getitem__, run)))
        if shapes is None:
            return None
        ids = set(map(_ITEM_ID, shapes))
        outputs = set(map(_OUTPUT_INDEX, shapes))
        contents = set(map(_CONTENT_INDEX, shapes))
        logprobs = set(map(is_, map(_LOGPROBS, shapes), repeat(UNSET)))
        obfuscations = set(map(is_, map(_OBFUSCATION, shapes), repeat(UNSET)))
        if (
            len(ids) != 1
            or len(outputs) != 1
            or len(contents) != 1
            or len(logprobs) != 1
            or len(obfuscations) != 1
        ):
            return None
        (item_id,), (output,), (content,) = ids, outputs, contents
        if (item.item_id is not None and item_id != item.item_id) or (
            item.output_index is not None and type(output) is int and output != item.output_index
        ):
            return None  # a mismatch: found and reported one by one
        present = (
            output is not UNSET,
            content is not UNSET,
            not logprobs.pop(),
            not obfuscations.pop(),
        )
        problems = self.delta_problems_of(present, run[0])
        for index in run if problems else ():
            self.report(problems, TEXT_DELTA, index, resp, item.key)
        return (TEXT_PART, _index(content), None), list(map(_DELTA, shapes))

    def report(
        self,
        problems: tuple[_Problem, ...],
        kind: str,
        index: int,
        resp: ResponseState,
        item_key: int | None,
    ) -> None:
        for p in problems:
            if p.extra is not None:
                seen = (resp.key, kind, p.extra)
                if seen in self.extras_seen:
                    continue
                self.extras_seen.add(seen)
            self.findings.append(
                Finding(p.severity, p.code, p.message, index, resp.key, item_key, p.suggestion)
            )

    # sequence numbers

    def sequence(self, resp: ResponseState, order: list[int]) -> tuple[int | None, int, int]:
        """Check `sequence_number` over the response's events in timeline order.

        A number seen before is a duplicate; one lower than the previous new number arrives out
        of order; numbers between the lowest and the highest that never arrive are gaps, each
        reported at the event that jumped over them. Judged on the whole response, so one
        stray event makes one finding, not one per event after it, and late events are not
        also counted as missing. Returns the first sequence number, how many events (not
        notes) the response has, and the index of its last one (-1 when none)."""
        events = self.events
        in_order = list(map(events.__getitem__, order))
        if in_order and not any(map(_IS_NOTE, in_order)):
            # Most streams: numbered one by one from the first, which the loop below would
            # find event by event (a third of this check's time on a long stream).
            numbers = list(map(_SEQUENCE_NUMBER, in_order))
            start = numbers[0]
            if type(start) is int and numbers == list(range(start, start + len(numbers))):
                return start, len(numbers), order[-1]
        seen: set[int] = set()
        at: dict[int, int] = {}
        """Sequence number → timeline index, only for numbers that arrived after a jump."""
        prev: int | None = None
        first: int | None = None
        count = 0
        last = -1
        for index in order:
            event = events[index]
            if event.is_note:
                continue
            count += 1
            last = index
            seq = event.sequence_number
            if seq is None:
                continue
            if prev is None:
                first = seq
            elif seq == prev + 1 and seq not in seen:
                seen.add(seq)
                prev = seq
                continue
            if seq in seen:
                self.add(
                    "error",
                    "sequence_duplicate",
                    f"sequence_number {seq} again (after {prev}): a duplicate event",
                    index,
                    resp,
                )
                continue
            if prev is not None and seq < prev:
                self.add(
                    "error",
                    "sequence_out_of_order",
                    f"sequence_number {seq} arrives after {prev}: out of order",
                    index,
                    resp,
                )
            seen.add(seq)
            at[seq] = index
            prev = seq
        if seen and max(seen) - min(seen) + 1 != len(seen):
            numbers = sorted(seen)
            for low, high in pairwise(numbers):
                if high > low + 1:
                    missing = high - low - 1
                    self.add(
                        "error",
                        "sequence_gap",
                        f"sequence jumps from {low} to {high}: {missing} event"
                        f"{'s' if missing != 1 else ''} missing",
                        at.get(high),
                        resp,
                    )
        return first, count, last

    # items

    def item(self, resp: ResponseState, item: ItemState, midway: bool, saw_start: bool) -> None:
        """Validate the item's events and check their order, ids and delta texts.

        `midway`: the response's first event came with a sequence_number above 0 (attached or
        resumed late); `saw_start`: its beginning is known to be here, so an item that never
        had an output_item.added really never had one."""
        events = self.events
        validate = self.validate
        aliases = TYPE_ALIASES
        added_seen = False
        done_seen = False
        before_added: list[int] = []
        after_done: list[int] = []
        id_mismatch: list[tuple[int, Any]] = []
        index_mismatch: list[tuple[int, Any]] = []
        parts: dict[tuple[str, Any, Any], list[str]] = {}
        broken: set[tuple[str, Any, Any]] = set()
        dones: list[tuple[int, tuple[str, Any, Any], str]] = []
        arguments_done: str | None = None
        final_arguments: tuple[int, str] | None = None
        item_id, output_index = item.item_id, item.output_index
        indexes = item.events
        if indexes and indexes[-1] >= len(events):  # a state ahead of `events`: check what is here
            indexes = [i for i in indexes if i < len(events)]
        lites = list(map(_LITE, map(events.__getitem__, indexes)))
        position, count, alone_until = 0, len(indexes), 0
        while position < count:
            if position >= alone_until and lites[position] is not None:
                end = position + 1
                while end < count and lites[end] is not None:
                    end += 1
                alone_until = end  # read one by one from here to `end` if not in one go
                run = indexes[position:end]
                read = self.delta_run(run, resp, item) if len(run) >= BULK_RUN else None
                if read is not None:
                    if done_seen:
                        after_done.extend(run)
                    elif not added_seen:
                        before_added.extend(run)
                    run_key, texts = read
                    parts.setdefault(run_key, []).extend(texts)
                    position = end
                    continue
            index = indexes[position]
            position += 1
            event = events[index]
            if event.is_note:
                continue
            shape = _delta_shape(event)
            key: tuple[str, Any, Any] | None = None
            delta: Any = None
            event_item_id: object  # as the JSON has them: compared below only if well typed
            event_output_index: object
            if shape is not None:  # most of a stream: read from its fields, no dict built
                self.validate_delta(index, shape, resp, item.key)
                kind, event_item_id, event_output_index = (
                    TEXT_DELTA,
                    shape.item_id,
                    shape.output_index,
                )
                key, delta = (TEXT_PART, _index(shape.content_index), None), shape.delta
            else:
                raw = event.raw
                validate(index, raw, resp, item.key)
                raw_kind = raw.get("type")
                if type(raw_kind) is not str:
                    continue
                kind = aliases.get(raw_kind, raw_kind)
                event_item_id, event_output_index = raw.get("item_id"), raw.get("output_index")
                if kind in (ADDED, DONE):
                    obj = raw.get("item")
                    if event_item_id is None and isinstance(obj, dict):
                        event_item_id = obj.get("id")
                    if (
                        kind == DONE
                        and isinstance(obj, dict)
                        and isinstance(obj.get("arguments"), str)
                    ):
                        final_arguments = (index, obj["arguments"])
                elif kind.endswith(".delta"):
                    key = (
                        kind[:-6],
                        _index(raw.get("content_index")),
                        _index(raw.get("summary_index")),
                    )
                    delta = raw.get("delta")
                elif kind.endswith(".done"):
                    text = _done_text(raw)
                    if text is not None:
                        done = (
                            kind[:-5],
                            _index(raw.get("content_index")),
                            _index(raw.get("summary_index")),
                        )
                        dones.append((index, done, text))
                        if done[0].endswith("_arguments") and final_arguments is None:
                            arguments_done = text

            if done_seen:
                after_done.append(index)
            elif kind == ADDED:
                added_seen = True
            elif not added_seen:
                before_added.append(index)
            if kind == DONE:
                done_seen = True
            if type(event_item_id) is str and item_id is not None and event_item_id != item_id:
                id_mismatch.append((index, event_item_id))
            if (
                type(event_output_index) is int
                and output_index is not None  # (UNSET is not)
                and event_output_index != output_index
            ):
                index_mismatch.append((index, event_output_index))
            if key is None:
                continue
            if type(delta) is str:
                texts_so_far = parts.get(key)
                if texts_so_far is None:
                    parts[key] = [delta]
                else:
                    texts_so_far.append(delta)
            else:
                broken.add(key)

        if item.from_snapshot or not indexes:
            return
        # A stream joined (or resumed) mid-way lost the output_item.added of items already
        # under way: their events legitimately come first.
        joined_midway = midway and bool(before_added)
        owner = resp.by_output_index.get(output_index) if output_index is not None else None
        if owner is not None and owner is not item:
            # The reducer made this item because its events' item_id matched no item, while
            # their output_index is another item's: the ids disagree, not the order.
            first = indexes[0]
            self.add(
                "error",
                "item_mismatch",
                f"{events[first].type} says item_id {item_id!r} and output_index "
                f"{output_index}, but output_index {output_index} is "
                f"{_item_name(owner)}",
                first,
                resp,
                item,
            )
        elif before_added and not joined_midway and (added_seen or saw_start):
            first = before_added[0]
            later = (
                "before its output_item.added"
                if added_seen
                else "and no output_item.added ever came"
            )
            self.add(
                "error",
                "event_before_added",
                f"{_count(before_added)} for {_item_name(item)} arrived {later} (first: "
                f"{events[first].type})",
                first,
                resp,
                item,
            )
        if after_done:
            first = after_done[0]
            self.add(
                "error",
                "event_after_done",
                f"{_count(after_done)} for {_item_name(item)} arrived after its "
                f"output_item.done (first: {events[first].type})",
                first,
                resp,
                item,
            )
        for mismatches, field, own in (
            (id_mismatch, "item_id", item_id),
            (index_mismatch, "output_index", output_index),
        ):
            if mismatches:
                first, theirs = mismatches[0]
                more = f" ({_count(mismatches)} like this)" if len(mismatches) > 1 else ""
                self.add(
                    "error",
                    "item_mismatch",
                    f"{events[first].type} says {field} {theirs!r}, but it belongs to "
                    f"{_item_name(item)}, whose {field} is {own!r}{more}",
                    first,
                    resp,
                    item,
                )
        if joined_midway:
            return  # deltas sent before we joined are lost: the texts cannot match
        for index, key, text in dones:
            if key in broken or key not in parts:
                continue
            joined = "".join(parts[key])
            if joined != text:
                self.add(
                    "error",
                    "delta_mismatch",
                    f"the {_delta_name(key)} deltas join to {len(joined)} characters but "
                    f"{key[0]}.done has {len(text)}; {_difference(joined, text)}",
                    index,
                    resp,
                    item,
                )
        if arguments_done is not None and final_arguments is not None:
            index, final = final_arguments
            if final != arguments_done:
                self.add(
                    "error",
                    "delta_mismatch",
                    f"the arguments .done event has {len(arguments_done)} characters but "
                    f"the item's arguments in output_item.done have {len(final)}; "
                    f"{_difference(arguments_done, final)}",
                    index,
                    resp,
                    item,
                )


def _index(value: Any) -> Any:
    return value if type(value) is int else None


def _count(things: Sequence[Any]) -> str:
    return f"{len(things)} event{'s' if len(things) != 1 else ''}"


def _done_text(raw: dict[str, Any]) -> str | None:
    for field in ("text", "arguments", "refusal", "input"):
        value = raw.get(field)
        if isinstance(value, str):
            return value
    return None


def _delta_name(key: tuple[str, Any, Any]) -> str:
    prefix, content_index, summary_index = key
    where = []
    if content_index is not None:
        where.append(f"content_index {content_index}")
    if summary_index is not None:
        where.append(f"summary_index {summary_index}")
    return prefix.removeprefix("response.") + (f" ({', '.join(where)})" if where else "")


def _item_name(item: ItemState) -> str:
    name = f"{item.type} {item.item_id}" if item.item_id else item.type
    return name if item.output_index is None else f"{name} (output_index {item.output_index})"


def _difference(a: str, b: str, context: int = 20) -> str:
    """Where two texts part: the first differing position and a short excerpt of each."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:  # longest common prefix, by halving (C-speed slices, not a char loop)
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    start = max(0, lo - context)
    lead = "…" if start else ""
    return (
        f"they first differ at position {lo}: {lead}{a[start : lo + context]!r} vs "
        f"{lead}{b[start : lo + context]!r}"
    )


def attributed(findings: list[Finding], provider: str | None) -> list[Finding]:
    """Findings of a stream from `provider`: where it is a named server other than OpenAI,
    each judgement of an event's shape against the SDK says it is that server that differs
    (`ollama differs from the openai SDK: …`), not an OpenAI API version."""
    if not differs(provider):
        return findings
    assert provider is not None
    prefix = drift_prefix(provider)
    return [
        replace(f, message=prefix + f.message.removesuffix(VERSIONS_DIFFER))
        if f.code in SDK_SHAPE_CODES
        else f
        for f in findings
    ]


def check_stream(
    events: Sequence[Event],
    state: SessionState,
    *,
    complete: bool = True,
    provider: str | None = None,
) -> list[Finding]:
    """Check every event of a folded stream; `state` is the reducer's state after `events`.

    `complete=False` means the stream is still arriving, so a response without a terminal event
    is not (yet) a fault. Transport notes are not events and are never checked. `provider`:
    who sent the stream (tui/mcptui/model/providers.py), named by SDK-shape findings.
    """
    check = _Check(events)
    total = len(events)
    for resp in state.responses:
        own = [i for i in resp.events if i < total]
        for i in own:
            event = events[i]
            if not event.is_note:
                check.validate(i, event.raw, resp, None)
        order = own + [i for item in resp.items for i in item.events if i < total]
        order.sort()
        first_seq, count, last = check.sequence(resp, order)
        midway = first_seq is not None and first_seq > 0
        saw_start = resp.created_seen or first_seq == 0
        for item in resp.items:
            check.item(resp, item, midway, saw_start)
        if (
            complete
            and count
            and resp.status not in TERMINAL_STATUSES
            and not is_excerpt(resp, events)
        ):
            check.add(
                "error",
                "no_terminal_event",
                f"{resp.name} never reached a terminal event: last status "
                f"{resp.status or 'none'!r} after {count} event{'s' if count != 1 else ''}",
                last,
                resp,
            )
    return attributed(ordered(check.findings), provider)
