"""Shell completion scripts for bash, zsh and fish, written from a description of the command
line (`Spec`, which mcptui/cli/completion.py makes from the real argparse parser).

Static scripts, not a Python call per Tab (as argcomplete makes): a Tab answers at once, with
no ~0.2 s start of Python, and the script works wherever it is copied. What they cannot know
is what changes after they are generated: a new command or option needs the script written
again (README says how), which `mcptui completion SHELL` does from the installed parser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["none", "file", "dir", "words"]
"""What an option's value or a positional completes to."""


@dataclass(frozen=True)
class Value:
    kind: Kind = "none"
    words: tuple[str, ...] = ()
    """The choices (`words`), or the sample names offered beside the files (`file`)."""
    name: str = "value"
    """What the value is (the option's metavar), for zsh's message."""


@dataclass(frozen=True)
class Option:
    flags: tuple[str, ...]
    help: str
    value: Value | None
    """None: a flag that takes no value."""
    repeat: bool = False


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    options: tuple[Option, ...]
    positional: Value | None
    """What the command's positionals complete to (None: it has none)."""
    many: bool = False
    """More than one positional (`inspect FILE...`, `diff A B`)."""


@dataclass(frozen=True)
class Spec:
    program: str
    version: str
    top_options: tuple[Option, ...]
    commands: tuple[Command, ...]
    shorthand: Value
    """What a first word that is no command completes to (`mcptui FILE` replays it)."""


def short_help(text: str) -> str:
    """The first clause of a help text, plain, for a menu line."""
    text = " ".join(text.replace("`", "").split())
    text = re.split(r"(?<=[a-z)])[.;(]\s", text + " ")[0].strip().rstrip(".;")
    return text[:70].rstrip() + ("…" if len(text) > 70 else "")


# -- bash --------------------------------------------------------------------------------------


def _bash_words(words: tuple[str, ...] | list[str]) -> str:
    return " ".join(words).replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")


def _bash_value(value: Value, indent: str) -> list[str]:
    if value.kind == "file":
        lines = [f"{indent}_mcptui_files"]
        if value.words:
            lines.append(f'{indent}_mcptui_words "{_bash_words(value.words)}"')
        return lines
    if value.kind == "dir":
        return [f"{indent}_mcptui_dirs"]
    if value.kind == "words":
        return [f'{indent}_mcptui_words "{_bash_words(value.words)}"']
    return [f"{indent}:"]


def bash(spec: Spec) -> str:
    """A script to source in bash: `complete -F _mcptui mcptui`."""
    p = spec.program
    out = [
        f"# {p} completion for bash, written by `{p} completion bash` ({p} {spec.version}).",
        f"# Install: {p} completion bash > ~/.local/share/bash-completion/completions/{p}",
        "",
        "_mcptui_words() {",
        '    local word; while IFS= read -r word; do COMPREPLY+=("$word"); done '
        '< <(compgen -W "$1" -- "$cur")',
        "}",
        "_mcptui_files() {",
        "    compopt -o filenames 2>/dev/null",
        '    local word; while IFS= read -r word; do COMPREPLY+=("$word"); done '
        '< <(compgen -f -- "$cur")',
        "}",
        "_mcptui_dirs() {",
        "    compopt -o filenames 2>/dev/null",
        '    local word; while IFS= read -r word; do COMPREPLY+=("$word"); done '
        '< <(compgen -d -- "$cur")',
        "}",
        "_mcptui() {",
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    local cmd="" i',
        "    COMPREPLY=()",
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        case "${COMP_WORDS[i]}" in -*) ;; *) cmd="${COMP_WORDS[i]}"; break ;; esac',
        "    done",
        '    case "$cmd" in',
        '    "")',
        '        if [[ "$cur" == -* ]]; then',
        f'            _mcptui_words "{_bash_words(_flags(spec.top_options))}"',
        "        else",
        f'            _mcptui_words "{_bash_words([c.name for c in spec.commands])}"',
        *_bash_value(spec.shorthand, "            "),
        "        fi",
        "        ;;",
    ]
    for command in spec.commands:
        out.append(f"    {command.name})")
        valued = [o for o in command.options if o.value is not None]
        if valued:
            out.append('        case "$prev" in')
            for option in valued:
                assert option.value is not None
                out.append(f"        {'|'.join(option.flags)})")
                out += _bash_value(option.value, "            ")
                out.append("            return 0 ;;")
            out.append("        esac")
        out.append('        if [[ "$cur" == -* ]]; then')
        out.append(f'            _mcptui_words "{_bash_words(_flags(command.options))}"')
        if command.positional is not None:
            out.append("        else")
            out += _bash_value(command.positional, "            ")
        out.append("        fi")
        out.append("        ;;")
    out += ["    esac", "    return 0", "}", f"complete -F _mcptui {p}", ""]
    return "\n".join(out)


def _flags(options: tuple[Option, ...]) -> list[str]:
    return [flag for option in options for flag in option.flags]


# -- zsh ---------------------------------------------------------------------------------------


def _zsh_quote(text: str) -> str:
    """A word inside single quotes, its own quotes closed and reopened."""
    return text.replace("'", "'\\''")


def _zsh_help(text: str) -> str:
    """A description inside an _arguments spec's brackets: no brackets or colons in it."""
    text = text.replace("[", "(").replace("]", ")").replace(":", " -").replace("\\", "/")
    return _zsh_quote(text)


def _zsh_action(value: Value) -> str:
    if value.kind == "file":
        return "_mcptui_files_or_samples" if value.words else "_files"
    if value.kind == "dir":
        return "_files -/"
    if value.kind == "words":
        return "(" + " ".join(_zsh_quote(w).replace(" ", "\\ ") for w in value.words) + ")"
    return " "


def _zsh_option(option: Option) -> list[str]:
    specs = []
    for flag in option.flags:
        start = "*" if option.repeat else ""
        spec = f"{start}{flag}[{_zsh_help(option.help)}]"
        if option.value is not None:
            spec += f":{_zsh_help(option.value.name)}:{_zsh_action(option.value)}"
        specs.append(f"'{spec}'")
    return specs


def zsh(spec: Spec) -> str:
    """A `_mcptui` completion function for zsh's compsys (`#compdef mcptui`)."""
    p = spec.program
    samples = next((c.positional.words for c in spec.commands if c.positional), ())
    out = [
        f"#compdef {p}",
        f"# {p} completion for zsh, written by `{p} completion zsh` ({p} {spec.version}).",
        f"# Install: {p} completion zsh > ~/.zfunc/_{p}  (with fpath=(~/.zfunc $fpath) and",
        "# autoload -Uz compinit && compinit in ~/.zshrc, before compinit)",
        "",
        "_mcptui_files_or_samples() {",
        "    _alternative 'files:file:_files' "
        f"'samples:shipped sample:({' '.join(_zsh_quote(s) for s in samples)})'",
        "}",
        "",
        "_mcptui() {",
        '    local curcontext="$curcontext" state line',
        "    typeset -A opt_args",
        "    local -a commands",
        "    commands=(",
        *(f"        '{c.name}:{_zsh_help(c.help)}'" for c in spec.commands),
        "    )",
        "    _arguments -C \\",
        *(f"        {s} \\" for o in spec.top_options for s in _zsh_option(o)),
        "        '1: :->command' \\",
        "        '*:: :->args' && return 0",
        "    case $state in",
        "    command)",
        "        _describe -t commands 'mcptui command' commands",
        f"        {_zsh_action(spec.shorthand)}",
        "        ;;",
        "    args)",
        "        case $line[1] in",
    ]
    for command in spec.commands:
        specs = [s for o in command.options for s in _zsh_option(o)]
        if command.positional is not None:
            head = "*" if command.many else ""
            specs.append(f"'{head}:{command.name} argument:{_zsh_action(command.positional)}'")
        out.append(f"        {command.name})")
        out.append("            _arguments \\")
        out += [f"                {s} \\" for s in specs[:-1]]
        out.append(f"                {specs[-1]}" if specs else "                '--help[help]'")
        out.append("            ;;")
    out += ["        esac", "        ;;", "    esac", "}", "", '_mcptui "$@"', ""]
    return "\n".join(out)


# -- fish --------------------------------------------------------------------------------------


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish_option(program: str, condition: str, option: Option) -> str:
    parts = [f"complete -c {program} -n {_fish_quote(condition)}"]
    for flag in option.flags:
        parts.append(f"-l {flag[2:]}" if flag.startswith("--") else f"-s {flag[1:]}")
    value = option.value
    if value is not None:
        if value.kind == "file":
            parts.append("-r -F")
        elif value.kind == "dir":
            parts.append("-x -a '(__fish_complete_directories)'")
        elif value.kind == "words":
            parts.append(f"-x -a {_fish_quote(' '.join(value.words))}")
        else:
            parts.append("-x")
    parts.append(f"-d {_fish_quote(option.help)}")
    return " ".join(parts)


def fish(spec: Spec) -> str:
    """`complete` lines for fish."""
    p = spec.program
    names = " ".join(c.name for c in spec.commands)
    out = [
        f"# {p} completion for fish, written by `{p} completion fish` ({p} {spec.version}).",
        f"# Install: {p} completion fish > ~/.config/fish/completions/{p}.fish",
        "",
        f"complete -c {p} -f",
    ]
    first = "__fish_use_subcommand"
    out += [_fish_option(p, first, o) for o in spec.top_options]
    for command in spec.commands:
        out.append(f"complete -c {p} -n {first} -a {command.name} -d {_fish_quote(command.help)}")
    if spec.shorthand.kind == "file":
        out.append(f"complete -c {p} -n {_fish_quote(first)} -F")
    for command in spec.commands:
        condition = f"__fish_seen_subcommand_from {command.name}"
        out.append("")
        out += [_fish_option(p, condition, o) for o in command.options]
        value = command.positional
        if value is None:
            continue
        if value.kind == "file":
            out.append(f"complete -c {p} -n {_fish_quote(condition)} -F")
        if value.words:
            words = _fish_quote(" ".join(value.words))
            out.append(f"complete -c {p} -n {_fish_quote(condition)} -a {words}")
    out.append(f"# commands: {names}")
    out.append("")
    return "\n".join(out)


SCRIPTS = {"bash": bash, "zsh": zsh, "fish": fish}
