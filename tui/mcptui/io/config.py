"""The user's configuration file, `config.toml`, beside `state.json` (io/settings.py's folder).

What it may hold: `theme`, `base_url`, `[headers]` (a header's name mapped to the NAME of an
environment variable whose value is sent: a secret never lives in the file), and one table per
command whose keys are that command's options (`[replay] speed = 4`), applied as the parser's
defaults by the CLI (mcptui/cli/config_defaults.py), so the command line still wins.

This module reads and checks the file's shape; it knows no command's options (nothing here
imports the CLI), so the CLI hands it the command names and checks each table against the
command's parser. Every problem is a `ConfigError` naming the file, the line and the key; a
header's value is never quoted in one (someone may have written a literal token there).
tomllib tells the line of a syntax error only: the line of a key is found in the text
(`key_line`), the way a person would look for it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path
from typing import Any

from mcptui.io.settings import config_dir
from mcptui.model.redaction import looks_random

CONFIG = "config.toml"
TOP_LEVEL = ("theme", "base_url", "headers")
"""The keys that are no command's table."""
ENV_NAME = re.compile(r"\$?\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
"""An environment variable's name, also written `$NAME` or `${NAME}`."""
HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
"""An HTTP header name (RFC 9110 token), as `--header` takes it (probe/targets.py)."""


def config_path() -> Path:
    """Where the configuration file is, whether or not it exists."""
    return config_dir() / CONFIG


class ConfigError(Exception):
    """A configuration that cannot be used: `path:line: key: what is wrong` (exit 2)."""

    def __init__(self, path: Path, line: int | None, key: str | None, message: str) -> None:
        self.path, self.line, self.key, self.message = path, line, key, message
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {key}: {message}" if key else f"{where}: {message}")


@dataclass(frozen=True)
class Setting:
    """A value the file sets, and the line it is on (for messages and `mcptui config`)."""

    value: Any
    line: int | None


@dataclass(frozen=True)
class Config:
    """The file's settings, shape checked; empty when there is no file."""

    path: Path
    exists: bool
    theme: Setting | None = None
    base_url: Setting | None = None
    headers: dict[str, Setting] = field(default_factory=dict)
    """Header name → Setting(the environment variable's NAME)."""
    commands: dict[str, dict[str, Setting]] = field(default_factory=dict)
    """Command → its option (as written, e.g. `speed`, `record-dir`) → Setting."""

    def error(self, key: str, message: str, table: str | None = None) -> ConfigError:
        """A problem with `key` (in `[table]`), found after reading (a command's option)."""
        line = None
        if self.exists:
            try:
                line = key_line(self.path.read_text(encoding="utf-8"), table, key)
            except (OSError, UnicodeDecodeError):
                line = None
        return ConfigError(self.path, line, f"{table}.{key}" if table else key, message)

    def header_values(self, env: Mapping[str, str]) -> list[tuple[str, str]]:
        """The headers to send, as (name, value) from the environment: a variable that is
        not set (or empty) is refused, naming the variable, never a value."""
        found: list[tuple[str, str]] = []
        for name, setting in self.headers.items():
            value = env.get(setting.value, "")
            if not value.strip():
                raise ConfigError(
                    self.path,
                    setting.line,
                    f"headers.{name}",
                    f"the environment variable {setting.value} is "
                    + ("empty" if setting.value in env else "not set")
                    + ": export it, or remove the header",
                )
            if any(c in value for c in "\r\n\x00"):
                raise ConfigError(
                    self.path,
                    setting.line,
                    f"headers.{name}",
                    f"${setting.value} holds a line break or NUL, which no HTTP header can carry",
                )
            found.append((name, value.strip()))
        return found


def load(commands: Collection[str], path: Path | None = None) -> Config:
    """The configuration at `path` (default `config_path()`), its tables checked against
    `commands` (the CLI's command names). No file: an empty Config. Raises ConfigError."""
    path = path if path is not None else config_path()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config(path, exists=False)
    except IsADirectoryError:
        raise ConfigError(path, None, None, "is a folder, not a file") from None
    except OSError as exc:
        raise ConfigError(path, None, None, f"cannot be read: {exc.strerror or exc}") from None
    import tomllib  # here: ~3.5 ms of every command's start when there is no file

    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError:
        raise ConfigError(path, None, None, "is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise _syntax_error(path, text, exc) from None
    return _checked(path, text, data, commands)


def _checked(path: Path, text: str, data: dict[str, Any], commands: Collection[str]) -> Config:
    def fail(table: str | None, key: str, message: str) -> ConfigError:
        return ConfigError(
            path, key_line(text, table, key), f"{table}.{key}" if table else key, message
        )

    theme = base_url = None
    headers: dict[str, Setting] = {}
    tables: dict[str, dict[str, Setting]] = {}
    for key, value in data.items():
        if key in ("theme", "base_url"):
            if not isinstance(value, str) or not value.strip():
                raise fail(None, key, f"must be a non-empty string, not {kind(value)}")
            setting = Setting(value.strip(), key_line(text, None, key))
            if key == "theme":
                theme = setting
            else:
                if not value.strip().startswith(("http://", "https://")):
                    raise fail(None, key, "must be an http:// or https:// URL")
                base_url = setting
        elif key == "headers":
            headers = _headers(value, fail, text)
        elif key in commands:
            if not isinstance(value, dict):
                raise fail(
                    None, key, f"must be a table ([{key}]) of its options, not {kind(value)}"
                )
            tables[key] = {
                option: Setting(option_value, key_line(text, key, option))
                for option, option_value in value.items()
            }
        else:
            known = [*TOP_LEVEL, *commands]
            close = get_close_matches(key, known, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise fail(None, key, f"unknown key{hint}; known: {', '.join(TOP_LEVEL)}, or a command")
    return Config(path, True, theme, base_url, headers, tables)


def _syntax_error(path: Path, text: str, exc: ValueError) -> ConfigError:
    """tomllib's message says `(at line 3, column 9)` or `(at end of document)`: the line is
    put where every other message has it."""
    # tomllib names a table as a tuple of its keys: ('replay',) is [replay] in the file
    message = re.sub(
        r"\(((?:'[^']*',? ?)+)\)",
        lambda m: "[" + ".".join(re.findall(r"'([^']*)'", m[1])) + "]",
        str(exc),
    )
    found = re.search(r" \(at line (\d+), column \d+\)$", message)
    if found:
        return ConfigError(path, int(found[1]), None, f"not valid TOML: {message[: found.start()]}")
    if message.endswith(" (at end of document)"):
        last = len(text.rstrip("\n").splitlines()) or 1
        reason = message.removesuffix(" (at end of document)")
        return ConfigError(path, last, None, f"not valid TOML: {reason} (at the end of the file)")
    return ConfigError(path, None, None, f"not valid TOML: {message}")


def _headers(
    value: Any, fail: Callable[[str | None, str, str], ConfigError], text: str
) -> dict[str, Setting]:
    if not isinstance(value, dict):
        raise fail(None, "headers", f"must be a table ([headers]), not {kind(value)}")
    found: dict[str, Setting] = {}
    for name, variable in value.items():
        if not HEADER_NAME.fullmatch(name):
            raise fail("headers", name, "is not a valid header name")
        matched = ENV_NAME.fullmatch(variable) if isinstance(variable, str) else None
        if matched is None or looks_random(matched.group(1)):
            # Possibly a token written in the file: never repeated, not even its type's text.
            raise fail(
                "headers",
                name,
                "give the NAME of an environment variable that holds the value "
                '(e.g. Authorization = "MY_API_TOKEN"), not the value itself; '
                "the value written is not shown",
            )
        found[name] = Setting(matched.group(1), key_line(text, "headers", name))
    return found


def kind(value: Any) -> str:
    """A TOML value's type, as a person writing the file would name it."""
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}
    names.update({list: "an array", dict: "a table"})
    return names.get(type(value), type(value).__name__)


_TABLE = re.compile(r"\s*\[\s*([^\]\[]+?)\s*\]\s*(?:#.*)?$")
_KEY = re.compile(r"""\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_.\-]+))\s*=""")


def key_line(text: str, table: str | None, key: str) -> int | None:
    """The line (from 1) on which `key` of `[table]` (None: the top level) is set, also as a
    dotted key (`replay.speed = 4`); None when it cannot be found."""
    current: str | None = None
    wanted = f"{table}.{key}" if table else key
    for number, line in enumerate(text.splitlines(), start=1):
        header = _TABLE.match(line)
        if header:
            current = header.group(1).strip().strip("\"'")
            if table is None and current == key:
                return number  # a table at the top level: its header
            continue
        found = _KEY.match(line)
        if not found:
            continue
        name = next(group for group in found.groups() if group is not None)
        full = f"{current}.{name}" if current else name
        if full == wanted:
            return number
    return None


def environment_base_url() -> str | None:
    """The environment's base URL (OPENAI_BASE_URL), which wins over the file's."""
    return os.environ.get("OPENAI_BASE_URL") or None
