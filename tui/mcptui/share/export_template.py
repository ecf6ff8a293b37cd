"""The request of an export as a template: each redacted value a named variable.

A recording keeps `<redacted>` where a credential was. Each such place becomes a `Variable`
named after where it is (an MCP tool's header → `FILES_AUTHORIZATION`, a secret in its URL →
`FILES_URL_SECRET`, anything else its JSON path), the same name for the same place every time,
never one the shell or the openai SDK reads. A request file's own `${NAME}` references stay
as they are, and its literal secrets are redacted first (`request_file_template`). The
renderers (tui/mcptui/share/export.py) only turn the template into text. Pure: no Textual.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcptui.model.redaction import REDACTED, redact, redact_text
from mcptui.sources.request_file import VARIABLE

RESERVED = frozenset(
    {
        "PATH",
        "HOME",
        "USER",
        "SHELL",
        "PWD",
        "OLDPWD",
        "LANG",
        "TERM",
        "TMPDIR",
        "HOSTNAME",
        "IFS",
        "PS1",
        "PS2",
        "PS4",
        "LOGNAME",
        "UID",
        "EUID",
        "PPID",
        "RANDOM",
        "SECONDS",
        "LINENO",
        "HISTFILE",
        "MAIL",
        "ENV",
        "CDPATH",
        "OPTARG",
        "OPTIND",
        "GROUPS",
        "DISPLAY",
        "EDITOR",
        "PAGER",
        "PYTHONPATH",
        "PYTHONHOME",
        "VIRTUAL_ENV",
        "CURL_HOME",
        "SSL_CERT_FILE",
    }
)
"""Names a redacted value must not take: the shell and tools already use them."""
RESERVED_PREFIXES = ("OPENAI_", "BASH", "LC_", "MCPTUI_")
"""Prefixes read by the openai SDK, bash and locales (a server labelled `openai` must not make
`OPENAI_API_KEY` the name of its header)."""

_KIND_ORDER = {"header": 0, "url": 1, "authorization": 2, "other": 3}
"""Which redacted places name themselves first: an MCP header keeps `FILES_AUTHORIZATION`
when the tool's `authorization` field would want it too."""
_SAFE_GLUE = re.compile(r"(?:Bearer|Basic|Token|Bot)?[\s:/@._-]*", re.IGNORECASE)
"""What may surround a request file's variables in a secret value and still be kept as
written (`Bearer ${TOKEN}`): nothing that could itself be a secret."""
SHELL_UNSAFE = re.compile(r"[$`\\\"'{}\x00-\x1f\x7f]")
"""Characters that change meaning inside `"${NAME:-word}"` in bash (it parses quotes there)."""


@dataclass(frozen=True, slots=True)
class Variable:
    """An environment variable the exported command reads."""

    name: str
    meaning: str
    """What to set it to, in a few words (shown in the script's comments and error)."""
    default: str | None = None
    """Used when the variable is not set (a request file's `${NAME:-default}`)."""
    where: str = ""
    """More detail for the comments: the URL it completes."""


@dataclass(frozen=True, slots=True)
class Text:
    """A string value of the request made of literal text and variables."""

    parts: tuple[str | Variable, ...]


@dataclass(slots=True)
class Template:
    """The request with `Text` wherever a string reads a variable, and those variables."""

    request: dict[str, Any]
    variables: list[Variable]


class _Parts(list[Any]):
    """A string being built: literal text, `Variable`s and `_Hole`s (unlike a JSON array)."""


@dataclass(slots=True)
class _Hole:
    """A redacted part of a string: where it is decides its variable's name."""

    path: tuple[str | int, ...]
    kind: str
    label: str
    ordinal: int
    count: int
    parts: list[Any]
    """The parts of the string it is in (to show a URL with its variables)."""
    variable: Variable | None = None


class _Builder:
    """Walks a redacted request beside its raw form (a request file with its `${NAME}`s
    replaced by sentinels) and collects the redacted places."""

    def __init__(
        self, request: dict[str, Any], sentinels: dict[str, tuple[str, str | None]]
    ) -> None:
        self.request = request
        self.sentinels = sentinels
        self.sentinel = re.compile("|".join(map(re.escape, sentinels))) if sentinels else None
        self.holes: list[_Hole] = []

    def build(self, value: Any, raw: Any, path: tuple[str | int, ...]) -> Any:
        if isinstance(value, dict):
            raw_dict = raw if isinstance(raw, dict) else {}
            return {
                key: self.build(item, raw_dict.get(key), (*path, key))
                for key, item in value.items()
            }
        if isinstance(value, list):
            raw_list = raw if isinstance(raw, list) else []
            return [
                self.build(item, raw_list[n] if n < len(raw_list) else None, (*path, n))
                for n, item in enumerate(value)
            ]
        if isinstance(value, str):
            return self.string(value, raw if isinstance(raw, str) else None, path)
        return value

    def string(self, text: str, raw: str | None, path: tuple[str | int, ...]) -> Any:
        if REDACTED not in text and (self.sentinel is None or not self.sentinel.search(text)):
            return text
        pieces = text.split(REDACTED)
        count = len(pieces) - 1
        hidden = align(pieces, raw) if raw is not None else None
        parts = _Parts()
        for ordinal, piece in enumerate(pieces):
            parts += self.literal(piece, path, keep_defaults=True)
            if ordinal < count:
                was = hidden[ordinal] if hidden else None
                if was is not None and self.restorable(was):
                    parts += self.literal(was, path, keep_defaults=False)
                else:
                    parts.append(self.hole(path, ordinal, count, parts))
        return parts

    def literal(self, text: str, path: tuple[str | int, ...], *, keep_defaults: bool) -> list[Any]:
        """`text` with the request file's variables back in place of their sentinels."""
        if self.sentinel is None:
            return [text] if text else []
        out: list[Any] = []
        position = 0
        for found in self.sentinel.finditer(text):
            out.append(text[position : found.start()])
            name, default = self.sentinels[found.group()]
            out.append(_user_variable(name, default if keep_defaults else None, _json_path(path)))
            position = found.end()
        out.append(text[position:])
        return [part for part in out if part != ""]

    def restorable(self, was: str) -> bool:
        """A redacted value that was only the request file's variables (`${TOKEN}`,
        `Bearer ${TOKEN}`): nothing secret was written there, keep it as written."""
        if self.sentinel is None or not self.sentinel.search(was):
            return False
        return _SAFE_GLUE.fullmatch(self.sentinel.sub("", was)) is not None

    def hole(
        self, path: tuple[str | int, ...], ordinal: int, count: int, parts: list[Any]
    ) -> _Hole:
        kind, label = _place(self.request, path)
        if self.sentinel is not None:  # a label written `${LABEL}`: show the reference
            label = self.sentinel.sub(
                lambda found: f"${{{self.sentinels[found.group()][0]}}}", label
            )
        found = _Hole(path, kind, label, ordinal, count, parts)
        self.holes.append(found)
        return found


def build_template(
    request: dict[str, Any],
    *,
    raw: dict[str, Any] | None = None,
    sentinels: dict[str, tuple[str, str | None]] | None = None,
) -> Template:
    """The redacted `request` with each `<redacted>` part a named variable. `raw` and
    `sentinels` (a request file's) say which redacted parts were only variables."""
    builder = _Builder(request, sentinels or {})
    tree = builder.build(request, raw if raw is not None else request, ())
    taken = {name for name, _ in (sentinels or {}).values()}  # the request file's own
    for found in sorted(builder.holes, key=lambda h: _KIND_ORDER[h.kind]):
        prefix = "REQUEST_" if found.kind == "other" else "MCP_"
        found.variable = Variable(_claim(_wanted_name(found), taken, prefix), _meaning(found))
    shown: dict[int, str] = {}  # one text per URL, however many holes it has (id of parts)
    for found in builder.holes:
        assert found.variable is not None
        if found.kind == "url":
            if (where := shown.get(id(found.parts))) is None:
                where = shown[id(found.parts)] = _as_request_text(_resolved(found.parts))
            found.variable = Variable(found.variable.name, found.variable.meaning, where=where)
    variables: list[Variable] = []
    resolved = _resolve(tree, variables)
    return Template(resolved, variables)


def request_file_template(raw: dict[str, Any]) -> Template:
    """A request file's template: its `${NAME}` kept, every literal secret a variable."""
    sentinels = _sentinels(raw)
    by_reference = {ref: token for token, ref in sentinels.items()}

    def swap(found: re.Match[str]) -> str:
        return by_reference[(found.group(1), found.group(2))]

    marked = map_strings(raw, lambda text: VARIABLE.sub(swap, text))
    return build_template(redact(marked), raw=marked, sentinels=sentinels)


def _sentinels(raw: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    """A unique letters-only token per distinct `${NAME[:-default]}` of the request file:
    redaction leaves such a token alone (no digits: not token-like)."""
    text = json.dumps(raw, ensure_ascii=False)
    prefix = "mcptuivar"
    while prefix in text:
        prefix += "z"
    references: list[tuple[str, str | None]] = []

    def collect(value: str) -> str:
        for found in VARIABLE.finditer(value):
            if (found.group(1), found.group(2)) not in references:
                references.append((found.group(1), found.group(2)))
        return value

    map_strings(raw, collect)
    return {f"{prefix}{_letters(n)}": ref for n, ref in enumerate(references)}


def _letters(number: int, width: int = 5) -> str:
    out = ""
    for _ in range(width):
        number, digit = divmod(number, 26)
        out = chr(ord("a") + digit) + out
    return out


def map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """`value` with every string in it (at any depth) put through `change`."""
    if isinstance(value, dict):
        return {key: map_strings(item, change) for key, item in value.items()}
    if isinstance(value, list):
        return [map_strings(item, change) for item in value]
    return change(value) if isinstance(value, str) else value


def align(pieces: list[str], raw: str) -> list[str] | None:
    """What each `<redacted>` between `pieces` stood for in `raw`, or None if it cannot
    tell."""
    pattern = "(.*?)".join(re.escape(piece) for piece in pieces)
    found = re.fullmatch(pattern, raw, re.DOTALL)
    return list(found.groups()) if found else None


def _user_variable(name: str, default: str | None, where: str) -> Variable:
    meaning = f"a variable of the request file (at {where})"
    if default is not None and (
        not _plain(default)
        or REDACTED in default
        or redact_text(default, strict_urls=True) != default
    ):
        default = None  # a secret, or text no shell default can hold: it must be set
    return Variable(name, meaning, default)


def _place(request: dict[str, Any], path: tuple[str | int, ...]) -> tuple[str, str]:
    """What a redacted place is (an MCP tool's header, URL or authorization, or other) and
    the label of its tool."""
    tools = request.get("tools")
    if (
        len(path) >= 3
        and path[0] == "tools"
        and isinstance(path[1], int)
        and isinstance(tools, list)
        and isinstance(tools[path[1]], dict)
    ):
        tool = tools[path[1]]
        label = tool.get("server_label")
        label = label if isinstance(label, str) and label.strip() else f"tool {path[1]}"
        if path[2] == "headers" and len(path) >= 4:
            return "header", label
        if path[2] in ("server_url", "authorization") and len(path) == 3:
            return ("url" if path[2] == "server_url" else "authorization"), label
    return "other", ""


def _wanted_name(hole: _Hole) -> str:
    numbered = f"_{hole.ordinal + 1}" if hole.count > 1 else ""
    if hole.kind == "header":
        return _env_name(hole.label, *map(str, hole.path[3:])) + numbered
    if hole.kind == "url":
        return _env_name(hole.label, "URL_SECRET") + numbered
    if hole.kind == "authorization":
        return _env_name(hole.label, "AUTHORIZATION") + numbered
    return _env_name(*map(str, hole.path)) + numbered


def _env_name(*words: str) -> str:
    """`files`, `X-Api-Key` → `FILES_X_API_KEY`: upper case, anything else `_`."""
    name = "_".join(re.sub(r"[^A-Za-z0-9]+", "_", word).strip("_") for word in words)
    name = re.sub(r"_+", "_", name).strip("_").upper() or "VALUE"
    return f"V_{name}" if name[0].isdigit() else name


def _claim(name: str, taken: set[str], prefix: str) -> str:
    """`name`, or a variant no other place, the shell or the SDK uses (`prefix` first)."""
    if name in RESERVED or name.startswith(RESERVED_PREFIXES):
        name = f"{prefix}{name}"
    candidate, number = name, 1
    while candidate in taken:
        number += 1
        candidate = f"{name}_{number}"
    taken.add(candidate)
    return candidate


def _meaning(hole: _Hole) -> str:
    server = f"the {hole.label} server"
    if hole.kind == "header":
        header = ".".join(map(str, hole.path[3:]))
        if header.lower() == "authorization" and len(hole.parts) == 1:  # the whole value
            return f"the full {header} header value for {server}, e.g. `Bearer <token>`"
        return f"the {header} header for {server}"
    if hole.kind == "url":
        return f"the secret in the URL of {server}"
    if hole.kind == "authorization":
        return f"the OAuth access token for {server} (its authorization field)"
    return f"the redacted value at {_json_path(hole.path)}"


def _json_path(path: tuple[str | int, ...]) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out or "the request"


def _resolved(parts: list[Any]) -> list[str | Variable]:
    return [_variable_of(part) if isinstance(part, _Hole) else part for part in parts]


def _variable_of(hole: _Hole) -> Variable:
    assert hole.variable is not None  # `build_template` names every hole before resolving
    return hole.variable


def _resolve(value: Any, variables: list[Variable]) -> Any:
    """The tree with holes named: each string of parts a `Text` (or a plain string)."""
    if isinstance(value, dict):
        return {key: _resolve(item, variables) for key, item in value.items()}
    if isinstance(value, _Parts):
        parts = merged(_resolved(value))
        variables += [part for part in parts if isinstance(part, Variable)]
        return Text(tuple(parts))
    if isinstance(value, list):
        return [_resolve(item, variables) for item in value]
    return value


def merged(parts: list[str | Variable]) -> list[str | Variable]:
    out: list[str | Variable] = []
    for part in parts:
        if isinstance(part, str) and out and isinstance(out[-1], str):
            out[-1] += part
        elif part != "":
            out.append(part)
    return out


def listed(variables: list[Variable]) -> list[Variable]:
    """Each variable once, first place first; required if any place has no default."""
    first: dict[str, Variable] = {}
    required: set[str] = set()
    for var in variables:
        first.setdefault(var.name, var)
        if var.default is None:
            required.add(var.name)
    return [
        Variable(var.name, var.meaning, None, var.where) if var.name in required else var
        for var in first.values()
    ]


def _plain(text: str) -> bool:
    """Text a shell default (`${NAME:-text}` inside double quotes) and a JSON string can both
    hold as it is."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return not SHELL_UNSAFE.search(text)


def reference(var: Variable) -> str:
    return f"${{{var.name}:-{var.default}}}" if var.default is not None else f"${{{var.name}}}"


def _as_request_text(parts: list[str | Variable]) -> str:
    return "".join(reference(part) if isinstance(part, Variable) else part for part in parts)
