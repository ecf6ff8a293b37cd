"""The editor's quick toggles (`e`): the experiments people try first on a failed MCP run,
each one switch on the request being edited.

- `background`, and `stream` for a background run (off, it is polled; a foreground run
  always streams);
- per MCP tool entry: `require_approval` never (on) or always (off: the API's default);
- per tool its server listed (or the request names): allowed or not (`allowed_tools`);
- per header of the entry: sent or not. A header switched off is remembered with its hidden
  value (its `${NAME}`), so switching it on again restores it as it was.

Pure: a toggle reads a request and `flip` returns a changed copy; the text of the editor is
re-made from it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Toggle:
    key: str
    """What `flip` is given: `background`, `stream`, `approval:<i>`, `tool:<i>:<name>`,
    `header:<i>:<name>` (`<i>`: the entry's place in `tools`)."""
    label: str
    on: bool


def _entries(request: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    tools = request.get("tools")
    if not isinstance(tools, list):
        return []
    return [
        (index, tool)
        for index, tool in enumerate(tools)
        if isinstance(tool, dict) and tool.get("type") == "mcp"
    ]


def allowed_names(entry: dict[str, Any]) -> list[str] | None:
    """The entry's allowed tool names; None when every tool is allowed."""
    allowed = entry.get("allowed_tools")
    if isinstance(allowed, dict):
        allowed = allowed.get("tool_names")
    if not isinstance(allowed, list):
        return None
    return [str(name) for name in allowed]


def toggles(
    request: dict[str, Any],
    listed: Mapping[str, Sequence[str]],
    original: dict[str, Any] | None = None,
) -> list[Toggle]:
    """The switches for `request`: `listed` names each server label's known tools (its
    `mcp_list_tools`, its calls); `original` (the request edited from) names the headers that
    can be switched back on."""
    out = [Toggle("background", "background", bool(request.get("background")))]
    if request.get("background"):  # a foreground run always streams (`mcptui run`)
        out.append(
            Toggle("stream", "stream (off: polled)", request.get("stream", True) is not False)
        )
    originals = dict(_entries(original)) if original is not None else {}
    for index, entry in _entries(request):
        label = str(entry.get("server_label", f"tools[{index}]"))
        out.append(
            Toggle(
                f"approval:{index}",
                f"{label}: require_approval never",
                entry.get("require_approval") == "never",
            )
        )
        allowed = allowed_names(entry)
        names = list(dict.fromkeys([*listed.get(label, ()), *(allowed or ())]))
        for name in names:
            out.append(
                Toggle(
                    f"tool:{index}:{name}",
                    f"{label}: allow {name}",
                    allowed is None or name in allowed,
                )
            )
        found = entry.get("headers")
        headers: dict[str, Any] = found if isinstance(found, dict) else {}
        before = originals.get(index, {}).get("headers")
        known = [*(before if isinstance(before, dict) else {}), *headers]
        for name in dict.fromkeys(known):
            out.append(Toggle(f"header:{index}:{name}", f"{label}: header {name}", name in headers))
    return out


def flip(
    request: dict[str, Any],
    key: str,
    listed: Mapping[str, Sequence[str]],
    original: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """`request` with the toggle `key` switched; unchanged for a key it does not have."""
    changed = copy.deepcopy(request)
    if key == "background":
        changed["background"] = not request.get("background")
        return changed
    if key == "stream":
        changed["stream"] = request.get("stream", True) is False
        return changed
    kind, _, rest = key.partition(":")
    place, _, name = rest.partition(":")
    entries = dict(_entries(changed))
    if not place.isdigit() or int(place) not in entries:
        return request
    entry = entries[int(place)]
    label = str(entry.get("server_label", ""))
    if kind == "approval":
        entry["require_approval"] = (
            "always" if entry.get("require_approval") == "never" else "never"
        )
    elif kind == "tool":
        _flip_tool(entry, name, listed.get(label, ()))
    elif kind == "header":
        _flip_header(entry, name, dict(_entries(original)).get(int(place)) if original else None)
    return changed


def _flip_tool(entry: dict[str, Any], name: str, listed: Sequence[str]) -> None:
    allowed = allowed_names(entry)
    every = list(dict.fromkeys([*listed, *(allowed or ())]))
    current = every if allowed is None else allowed
    wanted = [n for n in current if n != name] if name in current else [*current, name]
    wanted = [n for n in every if n in wanted] + [n for n in wanted if n not in every]
    if isinstance(entry.get("allowed_tools"), dict):
        entry["allowed_tools"]["tool_names"] = wanted
    else:
        entry["allowed_tools"] = wanted


def _flip_header(entry: dict[str, Any], name: str, original: dict[str, Any] | None) -> None:
    headers = entry.get("headers")
    if isinstance(headers, dict) and name in headers:
        del headers[name]
        if not headers:
            del entry["headers"]
        return
    before = original.get("headers") if original else None
    if isinstance(before, dict) and name in before:
        if not isinstance(headers, dict):
            headers = entry["headers"] = {}
        headers[name] = before[name]
