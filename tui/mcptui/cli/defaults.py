"""The configuration file (mcptui/io/config.py) as the parsers' defaults: what the file says
a command's option is becomes that option's default, so anything typed on the command line
still wins. Each table is checked against the command's own parser, so a key is an option the
command really has, with a value its option accepts (the option's own type converts it).

Precedence, for every setting: the command line, then the environment (OPENAI_BASE_URL), then
the file, then mcptui's default. `[headers]` become `--header NAME=${VARIABLE}` defaults of the
commands that send headers to MCP servers (`probe`, `tools`): the value is read from the
environment when they run, as a `--header` is, and never printed.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from mcptui.io.config import Config, Setting, kind
from mcptui.model.redaction import redact_text

current: Config | None = None
"""The configuration this run applied (read by `run_app` for the theme); None: none."""

NOT_FROM_FILE = {"header": "put headers in [headers], each naming an environment variable"}
"""Options a file may not set, and why: a header's value is a secret (`[headers]` names the
variable that holds it instead)."""


def sub_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The command parsers `parser` holds, by name."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def options_of(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """A command's options by their `dest` (what a file's key names, `-` or `_` alike). Of a
    pair that share one (`--follow` / `--no-follow`), the first: `follow = true` is
    `--follow`, not "--no-follow true"."""
    found: dict[str, argparse.Action] = {}
    for action in parser._actions:
        if action.option_strings and not isinstance(
            action, argparse._HelpAction | argparse._VersionAction
        ):
            found.setdefault(action.dest, action)
    return found


def command_defaults(
    config: Config, command: str, parser: argparse.ArgumentParser
) -> dict[str, Any]:
    """The defaults `[command]` and the top-level settings give `command`'s options; raises
    ConfigError for a key the command has not or a value its option refuses."""
    options = options_of(parser)
    found: dict[str, Any] = {}
    if (
        config.base_url is not None
        and "base_url" in options
        and not os.environ.get("OPENAI_BASE_URL")
    ):
        found["base_url"] = config.base_url.value
    if config.headers and "header" in options:
        config.header_values(os.environ)  # an unset variable: said now, naming the file
        found["header"] = [f"{name}=${{{s.value}}}" for name, s in config.headers.items()]
    for key, setting in config.commands.get(command, {}).items():
        dest = key.replace("-", "_")
        action = options.get(dest)
        if dest in NOT_FROM_FILE and action is not None:
            raise config.error(key, NOT_FROM_FILE[dest], table=command)
        if action is None:
            names = ", ".join(
                sorted(
                    max(a.option_strings, key=len)
                    for d, a in options.items()
                    if d not in NOT_FROM_FILE
                )
            )
            raise config.error(
                key,
                f"`mcptui {command}` has no option --{key.replace('_', '-')}"
                + (f" (its options: {names})" if names else " (it has none)"),
                table=command,
            )
        try:
            found[dest] = converted(action, setting.value)
        except ValueError as exc:
            raise config.error(key, str(exc), table=command) from None
    return found


def converted(action: argparse.Action, value: Any) -> Any:
    """`value` (from TOML) as the option would have parsed it; ValueError says what it must be."""
    flag = max(action.option_strings, key=len)
    if isinstance(action, argparse._StoreTrueAction | argparse._StoreFalseAction):
        if not isinstance(value, bool):
            raise ValueError(f"{flag} is on or off: write true or false, not {kind(value)}")
        return value
    if isinstance(action, argparse._CountAction):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{flag} is counted: write a whole number, not {kind(value)}")
        return value
    many = isinstance(action, argparse._AppendAction) or action.nargs in ("*", "+")
    if many:
        items = value if isinstance(value, list) else [value]
        return [_one(action, flag, item) for item in items]
    if isinstance(value, list):
        raise ValueError(f"{flag} takes one value, not an array")
    return _one(action, flag, value)


def _one(action: argparse.Action, flag: str, value: Any) -> Any:
    if isinstance(value, bool | dict | list):
        raise ValueError(f"{flag} takes {what_it_takes(action)}, not {kind(value)}")
    convert = action.type
    if convert is None:
        if not isinstance(value, str):
            raise ValueError(f"{flag} takes {what_it_takes(action)}, not {kind(value)}")
        result: Any = value
    else:
        if not callable(convert):
            raise ValueError(f"{flag} cannot be set from a file")
        try:
            result = convert(str(value))
        except (TypeError, ValueError, argparse.ArgumentTypeError) as exc:
            detail = str(exc) if isinstance(exc, argparse.ArgumentTypeError) else ""
            raise ValueError(
                f"{flag} takes {what_it_takes(action)}, not {redact_text(repr(value))}"
                + (f" ({detail})" if detail else "")
            ) from None
    if action.choices is not None and result not in action.choices:
        choices = ", ".join(str(c) for c in action.choices)
        raise ValueError(f"{flag} is one of {choices}, not {redact_text(repr(value))}")
    return result


def what_it_takes(action: argparse.Action) -> str:
    convert = action.type
    if convert is int:
        return "a whole number"
    if convert is float:
        return "a number"
    if convert is None:
        return "a string"
    return f"a {action.metavar or 'value'}"


def apply(parser: argparse.ArgumentParser, command: str | None, config: Config) -> None:
    """Set `command`'s defaults from `config` (raises mcptui.io.config.ConfigError)."""
    global current
    if command is None:
        return
    sub = sub_parsers(parser).get(command)
    if sub is None:
        return
    found = command_defaults(config, command, sub)
    sub.set_defaults(**found)
    options = options_of(sub)
    for dest, value in found.items():  # `--help` says the default is the file's now
        action = options[dest]
        if action.help and dest != "header":
            shown = value_text(value).replace("%", "%%")  # (argparse formats help with %)
            action.help += f" [{config.path.name}: {shown}]"
    current = config


def value_text(value: Any) -> str:
    """A value as the file writes it, for `--help` and `mcptui config`; a URL's token or a
    key-like string redacted, as everywhere."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return redact_text(str(value), strict_urls=True)


def forget() -> None:
    """The run is over: no configuration applies any more."""
    global current
    current = None


def check_all(parser: argparse.ArgumentParser, config: Config) -> None:
    """Every command's table checked (`mcptui config`), as if each command ran."""
    for command, sub in sub_parsers(parser).items():
        if command in config.commands:
            command_defaults(config, command, sub)


def setting_lines(config: Config, parser: argparse.ArgumentParser) -> list[tuple[str, Setting]]:
    """`[command] key = value` of the file, as `--flag value` lines for `mcptui config`."""
    lines: list[tuple[str, Setting]] = []
    subs = sub_parsers(parser)
    for command, table in config.commands.items():
        options = options_of(subs[command]) if command in subs else {}
        for key, setting in table.items():
            action = options.get(key.replace("-", "_"))
            flag = max(action.option_strings, key=len) if action else f"--{key}"
            lines.append((f"{command} {flag}", setting))
    return lines
