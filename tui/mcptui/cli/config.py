"""`mcptui config [--path | --init]`: where the configuration file is, what it sets and where
each setting comes from (the file, the environment, the palette's remembered choice, or the
default); header values never shown. A file that cannot be used is explained here (exit 2)."""

from __future__ import annotations

import argparse
import os
import sys

from mcptui.cli.common import Commands, refuse_line
from mcptui.model.redaction import redact_url
from mcptui.model.textsafe import visible

EXAMPLE = """\
# mcptui's settings (`mcptui config` shows what applies and where each comes from).
# The command line wins over this file; OPENAI_BASE_URL wins over base_url.

# The Textual theme (the command palette, ctrl+p, lists them: e.g. nord, dracula, gruvbox).
# theme = "nord"

# The Responses API's base URL for `run`, `attach` and `open`.
# base_url = "http://127.0.0.1:8787/v1"

# Headers `probe` and `tools` send to every MCP server: each names the ENVIRONMENT VARIABLE
# holding the value (read when they run), never the value itself.
# [headers]
# Authorization = "MCP_TOKEN"

# Any command's options, by their long name (without --): they become its defaults.
# [replay]
# speed = 4
#
# [run]
# record-dir = "~/mcp-recordings"
#
# [inspect]
# strict = true
"""


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "config",
        help="show the configuration file's path and the settings it gives",
        description="Show where the configuration file is (config.toml in $MCPTUI_CONFIG_DIR, "
        "else $XDG_CONFIG_HOME/mcptui, else ~/.config/mcptui), whether it exists, and each "
        "setting with where it comes from: the file, the environment, the default. Header "
        "values are never shown. Exit 2 when the file cannot be used, saying the line and "
        "the key.",
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--path", action="store_true", help="print the file's path alone")
    which.add_argument(
        "--init",
        action="store_true",
        help="write a commented example file there (an existing file is kept)",
    )
    parser.set_defaults(run=run_config)


def run_config(args: argparse.Namespace) -> int:
    from mcptui.io.config import config_path

    path = config_path()
    if args.path:
        print(path)
        return 0
    if args.init:
        return write_example(path)
    return show(path)


def write_example(path: os.PathLike[str]) -> int:
    from pathlib import Path

    target = Path(path)
    if target.exists():
        return refuse_line(f"{target} exists: kept as it is (`mcptui config` shows it)")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("x", encoding="utf-8") as out:
            out.write(EXAMPLE)
    except OSError as exc:
        return refuse_line(f"cannot write {target}: {exc.strerror or exc}")
    print(f"mcptui: wrote an example to {target} (every line commented out)", file=sys.stderr)
    return 0


def show(path: os.PathLike[str]) -> int:
    from pathlib import Path

    from mcptui.cli.defaults import check_all, setting_lines, value_text
    from mcptui.cli.main import COMMANDS, build_parser
    from mcptui.io.config import ConfigError, load

    target = Path(path)
    exists = target.is_file()
    print(f"file      {visible(str(target))} ({'exists' if exists else 'none: defaults apply'})")
    try:
        config = load(COMMANDS, target)
        parser = build_parser()
        check_all(parser, config)
        theme_problem = unknown_theme(config.theme.value if config.theme else None)
        if theme_problem is not None and config.theme is not None:
            raise ConfigError(target, config.theme.line, "theme", theme_problem)
    except ConfigError as exc:
        print(f"mcptui: {visible(str(exc))}", file=sys.stderr)
        return 2
    rows: list[tuple[str, str, str]] = []
    rows.append(("theme", *theme_row(config.theme)))
    environment = os.environ.get("OPENAI_BASE_URL")
    if environment:
        shown_url = redact_url(environment, strict=True)
        came = "environment (OPENAI_BASE_URL)"
        if config.base_url is not None:
            came += f"; the file's (line {config.base_url.line}) is not used"
        rows.append(("base_url", shown_url, came))
    elif config.base_url is not None:
        rows.append(
            ("base_url", redact_url(config.base_url.value, strict=True), from_file(config.base_url))
        )
    else:
        rows.append(("base_url", "the OpenAI API", "default"))
    for name, setting in config.headers.items():
        state = "set" if os.environ.get(setting.value, "").strip() else "NOT SET"
        rows.append(
            (f"header {name}", f"${setting.value} ({state}; value hidden)", from_file(setting))
        )
    for label, setting in setting_lines(config, parser):
        rows.append((label, value_text(setting.value), from_file(setting)))
    width = max(len(label) for label, _, _ in rows)
    value_width = max(len(value) for _, value, _ in rows)
    for label, value, came in rows:
        print(f"{label.ljust(width)}  {visible(value).ljust(value_width)}  {came}")
    if not exists:
        print("\nmcptui config --init writes a commented example there", file=sys.stderr)
    return 0


def theme_row(setting: object) -> tuple[str, str]:
    from mcptui.io.config import Setting
    from mcptui.io.settings import remembered

    if isinstance(setting, Setting):
        return str(setting.value), from_file(setting)
    saved = remembered("theme")
    if isinstance(saved, str):
        return saved, "remembered (chosen in the command palette)"
    return "textual-dark", "default"


def unknown_theme(name: str | None) -> str | None:
    """Why `name` is no theme (the app would refuse it), or None."""
    if name is None:
        return None
    from mcptui.ui.theme_colours import theme_problem

    return theme_problem(name)


def from_file(setting: object) -> str:
    line = getattr(setting, "line", None)
    return f"file, line {line}" if line else "file"
