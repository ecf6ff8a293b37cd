"""A request as the editor shows it (`e`): every secret a `${NAME}` the editor never reveals,
its value kept here from the request as sent, and put back only when the edit is sent. A
recording's request has its secrets redacted already: those names have no value kept
(`missing`), and are read from the environment when sent.

The names are the ones `mcptui export` gives (tui/mcptui/share/export_template.py): an MCP
tool's header is `${FILES_AUTHORIZATION}`, a token in its URL `${FILES_URL_SECRET}`. Header
values are hidden whatever they hold. A `${NAME}` the person types is read from the environment
when sent, as in a request file; a kept name wins over the environment's (it is the value the
original request was sent with). Text that looked like `${NAME}` in the request as sent stays
that text.
"""

from __future__ import annotations

import os
from collections import ChainMap
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcptui.model.redaction import REDACTED
from mcptui.share.export import request_text
from mcptui.share.export_template import (
    Text,
    Variable,
    align,
    map_strings,
    request_file_template,
)
from mcptui.sources.request_file import VARIABLE, expand


class UnsetVariable(ValueError):
    """A `${NAME}` of the edited request is neither kept nor in the environment."""


@dataclass(frozen=True, slots=True)
class EditableRequest:
    text: str
    """The request as JSON text, secrets as `${NAME}`."""
    kept: dict[str, str] = field(repr=False)
    """Each hidden name's value in the request as sent. Never shown or written."""
    meanings: dict[str, str]
    """What each hidden name stands for, in a few words (shown beside the editor)."""

    @property
    def missing(self) -> list[str]:
        """Hidden names with no value kept: a recording's request had them redacted, so they
        come from the environment (or the person types a value, or drops the header)."""
        return [name for name in self.meanings if name not in self.kept]


def editable_request(sent: dict[str, Any]) -> EditableRequest:
    """The request as sent (secrets literal), ready to edit."""
    literal = _literal_references(sent)
    template = request_file_template(sent)
    kept: dict[str, str] = {}
    _collect(template.request, sent, kept)
    # A recording's request holds `<redacted>` where the value was: nothing to keep.
    kept = {name: value for name, value in kept.items() if REDACTED not in value}
    kept.update(literal)  # `${X}` text of the request as sent stays that text
    meanings = {
        variable.name: variable.meaning
        for variable in template.variables
        if variable.name not in literal
    }
    return EditableRequest(request_text(template), kept, meanings)


def request_to_send(
    edited: dict[str, Any], kept: Mapping[str, str], env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The edited request with every `${NAME}` filled in: kept values first, then `env`
    (the process's environment by default). Raises UnsetVariable naming the first missing."""
    values = ChainMap(dict(kept), dict(os.environ if env is None else env))
    try:
        result = expand(edited, values)
    except KeyError as exc:
        name, where = exc.args
        raise UnsetVariable(
            f"${{{name}}} (in {where}) is not set: export it before starting mcptui, "
            f"or write ${{{name}:-default}}"
        ) from None
    assert isinstance(result, dict)
    return result


def _literal_references(sent: Any) -> dict[str, str]:
    """`${NAME}` text already in the request as sent (not a placeholder): name → that text."""
    found: dict[str, str] = {}

    def collect(text: str) -> str:
        for match in VARIABLE.finditer(text):
            found.setdefault(match.group(1), match.group(0))
        return text

    map_strings(sent, collect)
    return found


def _collect(template: Any, sent: Any, kept: dict[str, str]) -> None:
    """Each variable's value: the text at its place in `sent`, between the literal parts."""
    if isinstance(template, Text):
        if not isinstance(sent, str):
            return
        pieces = [""]  # the literal text between the variables (as `align` takes it)
        names: list[str] = []
        for part in template.parts:
            if isinstance(part, Variable):
                names.append(part.name)
                pieces.append("")
            else:
                pieces[-1] += part
        for name, value in zip(names, align(pieces, sent) or (), strict=False):
            kept.setdefault(name, value)
    elif isinstance(template, dict) and isinstance(sent, dict):
        for key, value in template.items():
            if key in sent:
                _collect(value, sent[key], kept)
    elif isinstance(template, list) and isinstance(sent, list):
        for value, original in zip(template, sent, strict=False):
            _collect(value, original, kept)
