"""`mcptui export`: a recorded request as a command anyone can run to reproduce it.

A recording keeps its request redacted: MCP headers, OAuth tokens and secrets in server URLs
are `<redacted>`. An export turns each redacted value into an environment variable with a
name that says where it goes (`${FILES_AUTHORIZATION}`, `${FILES_URL_SECRET}`), the API key into
`$OPENAI_API_KEY`, and the endpoint into `${OPENAI_BASE_URL:-<recorded base>}`, so the person
who has the credentials sets them and runs it. Three forms: a bash script with curl, a Python
snippet with the openai SDK, and a request file for `mcptui run` (which expands `${NAME}`).

A request file (what `mcptui run` sends) is exported too: its own `${NAME}` references are
kept, and every literal secret in it is redacted first, so a real key never reaches the output.
Pure: no Textual.
"""

from __future__ import annotations

import functools
import inspect
import json
import re
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from mcptui.io.formats import load_bytes
from mcptui.io.reading import MAX_BYTES, InputError
from mcptui.model.providers import AZURE, differs, stream_provider
from mcptui.model.redaction import REDACTED, redact
from mcptui.model.textsafe import json_safe, shown_path, visible
from mcptui.share.export_template import (
    Template,
    Text,
    Variable,
    build_template,
    listed,
    merged,
    reference,
    request_file_template,
)
from mcptui.sources.request_file import (
    VARIABLE,
    RequestFileError,
    parse_request,
    read_request_or_dump,
    streams,
)

FORMATS = ("curl", "python", "request")
FORMAT_BY_SUFFIX = {".py": "python", ".json": "request"}
"""The format `-o OUT` asks for by its extension (anything else, `.sh` or none: curl)."""
API_KEY_VARIABLE = "OPENAI_API_KEY"
AZURE_KEY_VARIABLE = "AZURE_OPENAI_API_KEY"
BASE_URL_VARIABLE = "OPENAI_BASE_URL"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DOLLAR_VARIABLE = "MCPTUI_DOLLAR"
"""In the request format, a literal `${X}` is written `${MCPTUI_DOLLAR:-$}{X}`: `mcptui run`
expands variables in every string and has no other escape."""

_COMMENT_UNSAFE = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")


class ExportError(ValueError):
    """The file cannot be exported: one line saying why."""


@dataclass(slots=True)
class Exportable:
    """What a file gives to export: the request template, where it went, what it is."""

    template: Template
    endpoint: str | None
    source: str
    provider: str | None = None
    """Who served it (tui/mcptui/model/providers.py): Azure's key is signed otherwise."""


# -- public API -----------------------------------------------------------------------------------


def export_texts(
    request: dict[str, Any], endpoint: str | None, *, source: str | None = None
) -> dict[str, str]:
    """Every export format of an (already redacted) request: {"curl", "python", "request"}.

    `endpoint` is the recorded URL (`…/v1/responses`) and `source` a few words for the
    comments (the recording's path and response id). Redacted again here, so a request that
    was not is still safe to print."""
    return _texts(build_template(redact(request)), endpoint, source)


def header_texts(header: dict[str, Any], *, source: str | None = None) -> dict[str, str] | None:
    """`export_texts` for a recording's header: the request as it was sent (`mcptui run`
    always streams), or None when the header holds no request (`attach`, a tap)."""
    exported = header_export(header, source=source)
    return None if exported is None else exported[0]


def header_export(
    header: dict[str, Any], *, source: str | None = None
) -> tuple[dict[str, str], list[str]] | None:
    """`header_texts`, and the variables the export needs set (the API key first): what to
    tell a user who just exported it. None when the header holds no request."""
    template = _header_template(header)
    if template is None:
        return None
    provider = stream_provider(header)
    return (
        _texts(template, _endpoint(header), source, provider),
        [key_variable(provider), *(v.name for v in template.variables if v.default is None)],
    )


def _header_template(header: dict[str, Any]) -> Template | None:
    """The template of the request a recording's header holds, as it was sent, redacted."""
    request = header.get("request")
    if not isinstance(request, dict):
        return None
    return build_template(redact(request_as_sent(request, _kind(header))))


def _texts(
    template: Template, endpoint: str | None, source: str | None, provider: str | None = None
) -> dict[str, str]:
    return {fmt: render(template, fmt, endpoint, source, provider) for fmt in FORMATS}


def key_variable(provider: str | None) -> str:
    """The variable an export reads the API key from: Azure's own, as openai-python reads it."""
    return AZURE_KEY_VARIABLE if provider == AZURE else API_KEY_VARIABLE


def _key_row(provider: str | None) -> tuple[str, str]:
    if provider == AZURE:
        return AZURE_KEY_VARIABLE, "your Azure OpenAI API key"
    return API_KEY_VARIABLE, "your OpenAI API key"


def recorded_query(endpoint: str | None) -> str:
    """The query a recorded endpoint's requests carried (`api-version=preview`), to send
    again after the path; none when a value of it was redacted."""
    query = (endpoint or "").partition("?")[2].partition("#")[0]
    return "" if REDACTED in query or not query else query


def _kind(header: dict[str, Any]) -> str | None:
    """Who made the recording: `live` (`mcptui run`, `demo`), `proxy`, `archive`…"""
    source = header.get("source")
    kind = source.get("kind") if isinstance(source, dict) else None
    return kind if isinstance(kind, str) else None


def _endpoint(header: dict[str, Any]) -> str | None:
    endpoint = header.get("endpoint")
    return endpoint if isinstance(endpoint, str) else None


def request_as_sent(request: dict[str, Any], kind: str | None) -> dict[str, Any]:
    """`mcptui run` (and demo) send `stream: true` unless a background run asked to poll; the
    header keeps the request as given. A proxy's or archive's request is already as sent."""
    if kind in ("live", "request file") and streams(request) and request.get("stream") is not True:
        return {**request, "stream": True}
    return request


def export_format(given: str | None, output: str | None) -> str:
    """`--format` if given, else what OUT's extension says (`.py`, `.json`), else curl."""
    if given:
        return given
    if output:
        return FORMAT_BY_SUFFIX.get(Path(output).suffix.lower(), "curl")
    return "curl"


def _after_note(exportable: Exportable, fmt: str, output: str | None) -> str:
    """What to do next, on stderr: a request file cannot list its variables, nor carry the
    endpoint it was recorded against."""
    wrote = f"wrote {shown_path(output)}" if output else ""
    if fmt != "request":
        return wrote
    needed = [
        f"{var.name} ({var.meaning})"
        for var in listed(exportable.template.variables)
        if var.default is None
    ]
    base = base_url(exportable.endpoint)
    known = _base_known(base)
    if (query := recorded_query(exportable.endpoint)) and known:
        base = shlex.quote(f"{base}?{query}")  # Azure's api-version goes on every request
    named = f" --provider {exportable.provider}" if differs(exportable.provider) else ""
    if base == DEFAULT_BASE_URL:
        todo = f"export {', '.join(needed)} before `mcptui run`" if needed else ""
    else:
        shown = base if known else f"URL, URL the recorded {base} with its secret filled in"
        request = shlex.quote(output) if output else "REQUEST.json"
        run = f"mcptui run {request}{named} --base-url {shown}"
        todo = f"export {', '.join(needed)}, then: {run}" if needed else f"run it with: {run}"
        todo += " (a request file cannot carry the endpoint)"
    return "; ".join(part for part in (wrote, _comment(todo)) if part)


# -- reading a file -------------------------------------------------------------------------------


def load_exportable(path: str, max_bytes: int = MAX_BYTES) -> Exportable:
    """The request of a recording (its header's) or of a request file, ready to render."""
    try:
        read = read_request_or_dump(path, max_bytes, what="a recording or a request file")
    except InputError as exc:
        raise ExportError(str(exc)) from None
    source, text, whole = read.source, read.text, read.whole
    if read.is_request:
        request = request_as_sent(whole, "request file")
        return Exportable(request_file_template(request), None, source)
    loaded = load_bytes(read.data, source=source, max_bytes=max_bytes)
    header = loaded.header or {}
    template = _header_template(header)
    if template is not None:
        response = _recorded_response(loaded.events)
        return Exportable(
            template,
            _endpoint(header),
            f"{source}, {response}" if response else source,
            stream_provider(header),
        )
    if whole is None and text.lstrip().startswith("{") and not loaded.usable:
        _raise_json_error(text, source)
    why = (
        f"{source}: {loaded.problems[0].message.split('; ')[0]}"
        if loaded.problems and not loaded.usable
        else f"{source} holds no request to export (a stream dump has only the answer)"
    )
    raise ExportError(
        f"{why}: export needs a recording made by `mcptui run`, `mcptui proxy` "
        "or `mcptui demo`, or a request file"
    )


def _raise_json_error(text: str, source: str) -> None:
    """A request file that is not JSON: say where it breaks, as `mcptui run` says it."""
    try:
        parse_request(text, source)
    except RequestFileError as exc:
        raise ExportError(str(exc)) from None


def _recorded_response(events: list[Any]) -> str:
    """`response resp_… (model)` of the first response the recording holds, for comments."""
    for event in events:
        raw = event.raw
        response = raw.get("response") if isinstance(raw, dict) else None
        if isinstance(response, dict) and isinstance(response.get("id"), str):
            model = response.get("model")
            return f"response {response['id']}" + (f" ({model})" if isinstance(model, str) else "")
    return ""


# -- rendering ------------------------------------------------------------------------------------


def render(
    template: Template,
    fmt: str,
    endpoint: str | None,
    source: str | None,
    provider: str | None = None,
) -> str:
    """One format of the template: "curl", "python" or "request" (`provider`: who served
    the recording; Azure's key goes in an `api-key` header)."""
    if fmt == "curl":
        return curl_text(template, endpoint, source, provider)
    if fmt == "python":
        return python_text(template, endpoint, source, provider)
    if fmt == "request":
        return request_text(template)
    raise ValueError(f"unknown export format {fmt!r}")


def base_url(endpoint: str | None) -> str:
    """The API base of a recorded endpoint: `…/v1/responses[/id][?…]` → `…/v1`."""
    if not endpoint:
        return DEFAULT_BASE_URL
    found = re.match(r"(.*?)/responses(?:[/?#].*)?$", endpoint.strip(), re.DOTALL)
    return (found.group(1) if found else endpoint.strip()).rstrip("/") or DEFAULT_BASE_URL


def _base_known(base: str) -> bool:
    """A recorded base that can be a default: no redacted part, nothing a shell expands."""
    return (
        REDACTED not in base
        and re.fullmatch(r"[A-Za-z0-9:/?#\[\]@!&()*+,;=._~%-]+", base) is not None
    )


def _comment(text: str) -> str:
    """One line of comment text (a label or path may hold line breaks or lone surrogates),
    inert on a terminal: a C1 control (CSI, U+009B) or bidi override (U+202E) is written as
    a visible `\\x9b` / `\\u202e`, for a reviewer to see and no terminal to act on."""
    return visible(_COMMENT_UNSAFE.sub(" ", text).encode("utf-8", "replace").decode("utf-8"))


def _header_lines(
    template: Template,
    endpoint: str | None,
    source: str | None,
    what: str,
    *,
    python: bool,
    provider: str | None = None,
) -> list[str]:
    """The leading comment: what this reproduces, where it goes, what to set first."""
    base = base_url(endpoint)
    lines = (
        [f"Made by mcptui export: {what} that sends the request of", f"  {source}"]
        if source
        else [f"Made by mcptui export: {what} that sends a recorded request."]
    )
    if _base_known(base):
        lines.append(f"It goes to {base} unless {BASE_URL_VARIABLE} points elsewhere.")
    else:
        lines.append(f"The recorded API base had a secret in it ({base}): set {BASE_URL_VARIABLE}.")
    previous = template.request.get("previous_response_id")
    if isinstance(previous, str):
        lines.append(f"It continues {previous}: that response must exist for this API key.")
    saved = "out.jsonl" if python else "out.sse"
    lines.append(f"Save what it prints (> {saved}) and open it: mcptui inspect {saved}")
    lines += ["", "Set these first (export NAME=value):"]
    rows = [_key_row(provider)]
    if not _base_known(base):
        rows.append((BASE_URL_VARIABLE, "the API base URL (…/v1)"))
    first_of: dict[str, str] = {}  # a URL with many secrets is shown once, at its first
    for var in listed(template.variables):
        if var.where in first_of:
            text = f"{var.meaning}: see {first_of[var.where]}"
        else:
            text = var.meaning + (f": {var.where}" if var.where else "")
            if var.where:
                first_of[var.where] = var.name
        if var.default is not None:
            text = f"optional (default {var.default}): {text}"
        rows.append((var.name, text))
    width = max(len(name) for name, _ in rows)
    lines += [f"  {name.ljust(width)}  {text}" for name, text in rows]
    return [_comment(f"# {line}".rstrip()) for line in lines]


def _required(template: Template, base: str, provider: str | None = None) -> list[tuple[str, str]]:
    """The variables a script stops without, and what each is: the API key, the base URL
    when the recorded one is not usable, and each variable without a default."""
    required = [_key_row(provider)]
    if not _base_known(base):
        required.append((BASE_URL_VARIABLE, "the API base URL"))
    return required + [
        (var.name, var.meaning) for var in listed(template.variables) if var.default is None
    ]


# curl


def curl_text(
    template: Template, endpoint: str | None, source: str | None, provider: str | None = None
) -> str:
    """A bash script: checks the variables are set, then one curl command (to the recorded
    endpoint's path and query: Azure's `api-version` too)."""
    base = base_url(endpoint)
    required = _required(template, base, provider)
    query = recorded_query(endpoint)
    tail = f"/responses{'?' if query else ''}{query}"
    url = (
        f'"${{{BASE_URL_VARIABLE}:-{base}}}{tail}"'
        if _base_known(base)
        else f'"${BASE_URL_VARIABLE}{tail}"'
    )
    signed = (
        f'  -H "api-key: ${AZURE_KEY_VARIABLE}" \\'
        if provider == AZURE
        else f'  -H "Authorization: Bearer ${API_KEY_VARIABLE}" \\'
    )
    flags = "-sS -N" if _streams(template.request) else "-sS"
    body = _shell_body(json_chunks(template.request, _json_piece, _json_piece))
    lines = [
        "#!/usr/bin/env bash",
        *_header_lines(
            template, endpoint, source, "a curl command", python=False, provider=provider
        ),
        *_shell_checks(required),
        "",
        "# --fail-with-body (curl 7.76+): an HTTP error (401, 424…) prints its body and "
        "exits non-zero",
        f"curl {flags} --fail-with-body {url} \\",
        signed,
        "  -H 'Content-Type: application/json' \\",
        f"  --data-binary {body}",
    ]
    return "\n".join(lines) + "\n"


def _shell_checks(required: list[tuple[str, str]]) -> list[str]:
    """Bash that names every unset (or empty) variable with its meaning, then exits 2."""
    return [
        "mcptui_missing=0",
        "need() {  # NAME MEANING: complain when NAME is not set",
        '  if [ -z "${!1-}" ]; then',
        '    printf \'set %s: %s\\n\' "$1" "$2" >&2',
        "    mcptui_missing=1",
        "  fi",
        "}",
        *(f"need {name} {_shell_quote(_comment(meaning))}" for name, meaning in required),
        'if [ "$mcptui_missing" != 0 ]; then',
        "  echo '(export NAME=value for each, then run this again)' >&2",
        "  exit 2",
        "fi",
    ]


def _shell_quote(text: str) -> str:
    """One single-quoted bash word: nothing inside is expanded."""
    return "'" + text.replace("'", "'\\''") + "'"


def _streams(request: dict[str, Any]) -> bool:
    return request.get("stream") is True


def _shell_body(chunks: list[str | Variable]) -> str:
    """The JSON body as one single-quoted bash word, each variable spliced in as
    `'"${NAME}"'` (its value goes in as it is: the word ends, a double-quoted expansion,
    the word goes on)."""
    out = ["'"]
    for chunk in chunks:
        if isinstance(chunk, Variable):
            default = f":-{chunk.default}" if chunk.default is not None else ""
            out.append(f"'\"${{{chunk.name}{default}}}\"'")
        else:
            out.append(chunk.replace("'", "'\\''"))
    out.append("'")
    return "".join(out)


def _json_piece(text: str) -> str:
    """A string's content as JSON writes it (no quotes): readable unicode, but escapes
    where UTF-8 cannot carry it (a lone surrogate)."""
    dumped = json.dumps(text, ensure_ascii=False)
    try:
        dumped.encode("utf-8")
    except UnicodeEncodeError:
        dumped = json.dumps(text)
    return json_safe(dumped[1:-1])  # C1 and bidi controls as \\u009b: the same JSON, inert


def json_chunks(
    value: Any, key_piece: Callable[[str], str], value_piece: Callable[[str], str], level: int = 0
) -> list[str | Variable]:
    """Pretty JSON (2 spaces) as literal text and variables; `value_piece` writes the content
    of a string value (the request format escapes `${` there; keys are never expanded)."""
    out: list[str | Variable] = []
    _emit(value, out, key_piece, value_piece, level)
    return merged(out)


def _emit(
    value: Any,
    out: list[str | Variable],
    key_piece: Callable[[str], str],
    value_piece: Callable[[str], str],
    level: int,
) -> None:
    pad, inner = "  " * level, "  " * (level + 1)
    if isinstance(value, dict | list) and not value:
        out.append("{}" if isinstance(value, dict) else "[]")
    elif isinstance(value, dict):
        out.append("{\n")
        for n, (key, item) in enumerate(value.items()):
            out.append(f'{inner}"{key_piece(str(key))}": ')
            _emit(item, out, key_piece, value_piece, level + 1)
            out.append(",\n" if n < len(value) - 1 else "\n")
        out.append(pad + "}")
    elif isinstance(value, list):
        out.append("[\n")
        for n, item in enumerate(value):
            out.append(inner)
            _emit(item, out, key_piece, value_piece, level + 1)
            out.append(",\n" if n < len(value) - 1 else "\n")
        out.append(pad + "]")
    elif isinstance(value, Text):
        out.append('"')
        out += [part if isinstance(part, Variable) else value_piece(part) for part in value.parts]
        out.append('"')
    elif isinstance(value, str):
        out.append(f'"{value_piece(value)}"')
    else:
        out.append(json.dumps(value))


# request


def request_text(template: Template) -> str:
    """The request as a file for `mcptui run`: `${NAME}` where a variable goes."""
    chunks = json_chunks(
        template.request, _json_piece, lambda text: _json_piece(_escape_dollars(text))
    )
    return (
        "".join(reference(chunk) if isinstance(chunk, Variable) else chunk for chunk in chunks)
        + "\n"
    )


def _escape_dollars(text: str) -> str:
    """A literal `${X}` that `mcptui run` would expand, written so it stays literal."""
    return VARIABLE.sub(lambda found: f"${{{DOLLAR_VARIABLE}:-$}}{found.group(0)[1:]}", text)


# python


def python_text(
    template: Template, endpoint: str | None, source: str | None, provider: str | None = None
) -> str:
    """A Python script with the openai SDK: the request as a literal, each variable read
    from `os.environ`; prints each event (or the response) as JSON."""
    base = base_url(endpoint)
    name = _py_str(BASE_URL_VARIABLE)
    base_expr = (
        f"os.environ.get({name}, {_py_str(base)})" if _base_known(base) else f"os.environ[{name}]"
    )
    needed = _required(template, base, provider)
    client_class, client_line = _python_client(base_expr, recorded_query(endpoint), provider)
    known, extra = _split_for_sdk(template.request)
    lines = [
        *_header_lines(
            template,
            endpoint,
            source,
            "a Python script with the openai SDK",
            python=True,
            provider=provider,
        ),
        "import os",
        "import sys",
        "",
        "NEEDED = {  # what each variable is",
        *(f"    {_py_str(name)}: {_py_str(_comment(meaning))}," for name, meaning in needed),
        "}",
        'missing = [f"{name} ({meaning})" for name, meaning in NEEDED.items()',
        "           if not os.environ.get(name)]",
        "if missing:",
        '    sys.exit("set these first: " + ", ".join(missing))',
        "",
        "try:",
        f"    from openai import {client_class}",
        "except ImportError:",
        '    sys.exit("this needs the openai package: pip install openai")',
        "",
        client_line,
        "",
        f"request = {python_literal(known)}",
    ]
    arguments = "**request"
    if extra:
        lines.append(f"extra_body = {python_literal(extra)}  # not parameters of this SDK")
        arguments += ", extra_body=extra_body"
    lines.append("")
    if _streams(template.request):
        lines += [
            f"stream = client.responses.create({arguments})",
            "for event in stream:",
            "    print(event.model_dump_json(), flush=True)",
        ]
    else:
        lines += [
            f"response = client.responses.create({arguments})",
            "print(response.model_dump_json(indent=2))",
        ]
    return "\n".join(lines) + "\n"


def _python_client(base_expr: str, query: str, provider: str | None) -> tuple[str, str]:
    """The SDK client class and the line that makes it. Azure's dated route (an `api-version`
    in the query) takes openai-python's `AzureOpenAI`, which signs with `api-key`; Azure's v1
    API takes `OpenAI` with Azure's key, as Microsoft's v1 examples do."""
    params = dict(parse_qsl(query, keep_blank_values=True))
    if provider == AZURE:
        key = f"os.environ[{_py_str(AZURE_KEY_VARIABLE)}]"
        version = params.pop("api-version", None)
        extra = f", default_query={python_literal(params)}" if params else ""
        if version is not None:
            return "AzureOpenAI", (
                f"client = AzureOpenAI(base_url={base_expr}, api_version={_py_str(version)}, "
                f"api_key={key}{extra})"
            )
        return "OpenAI", f"client = OpenAI(base_url={base_expr}, api_key={key}{extra})"
    extra = f", default_query={python_literal(params)}" if params else ""
    return "OpenAI", f"client = OpenAI(base_url={base_expr}{extra})"


@functools.cache
def sdk_create_parameters() -> frozenset[str] | None:
    """The keyword arguments `client.responses.create` takes in the installed SDK."""
    try:
        from openai.resources.responses import Responses
    except ImportError:  # pragma: no cover - openai is a dependency
        return None
    return frozenset(inspect.signature(Responses.create).parameters) - {
        "self",
        "extra_headers",
        "extra_query",
        "extra_body",
        "timeout",
    }


SDK_PARAMETERS = frozenset(
    {
        "model",
        "input",
        "instructions",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "stream",
        "store",
        "metadata",
        "temperature",
        "top_p",
        "max_output_tokens",
        "previous_response_id",
        "reasoning",
        "text",
        "truncation",
        "user",
        "include",
        "background",
    }
)
"""Parameters every openai SDK with `responses.create` has: a request with only these needs
no look at the installed SDK (importing it takes a second)."""


def _split_for_sdk(request: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Parameters `create` declares, and the rest (sent as `extra_body`)."""
    if SDK_PARAMETERS.issuperset(request):
        return request, {}
    known = sdk_create_parameters()
    if known is None:
        return request, {}
    return (
        {k: v for k, v in request.items() if k in known},
        {k: v for k, v in request.items() if k not in known},
    )


def python_literal(value: Any, level: int = 0) -> str:
    """Python source for a JSON value: dict/list/str/int/float/bool/None literals, a `Text`
    as a concatenation reading `os.environ`."""
    pad, inner = "    " * level, "    " * (level + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [
            f"{inner}{_py_str(str(key))}: {python_literal(item, level + 1)},"
            for key, item in value.items()
        ]
        return "{\n" + "\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list):
        if not value:
            return "[]"
        items = [f"{inner}{python_literal(item, level + 1)}," for item in value]
        return "[\n" + "\n".join(items) + f"\n{pad}]"
    if isinstance(value, Text):
        return " + ".join(
            _py_variable(part) if isinstance(part, Variable) else _py_str(part)
            for part in value.parts
        )
    if isinstance(value, str):
        return _py_str(value)
    if isinstance(value, float) and value != value:
        return 'float("nan")'
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return f'float("{value}")'
    return repr(value)  # int, float, bool, None


def _py_variable(var: Variable) -> str:
    if var.default is None:
        return f"os.environ[{_py_str(var.name)}]"
    return f"os.environ.get({_py_str(var.name)}, {_py_str(var.default)})"


def _py_str(text: str) -> str:
    """A string literal, double-quoted when that needs no escape."""
    literal = repr(text)
    if literal.startswith("'") and '"' not in text:
        literal = f'"{literal[1:-1]}"'
    return literal


# -- writing --------------------------------------------------------------------------------------


def write_file(path: Path, text: str, *, executable: bool) -> None:
    """Write `text`; a script is made executable where it is readable."""
    try:
        path.write_text(text, encoding="utf-8", errors="backslashreplace", newline="\n")
        if executable:
            mode = path.stat().st_mode
            path.chmod(mode | (mode & 0o444) >> 2)
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from None


def write_stdout(text: str) -> None:
    """UTF-8 whatever the locale: a request holds any text."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(text)
    else:
        sys.stdout.flush()
        buffer.write(text.encode("utf-8", "backslashreplace"))
        buffer.flush()
