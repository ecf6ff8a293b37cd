"""`mcptui export`: placeholder names, quoting that survives bash and Python, no secret out.

The curl script is run through real bash with `curl` replaced by a function that prints its
arguments, so what the server would receive is checked byte for byte; the Python snippet's
request literal is evaluated with a fake `os.environ`; the request format is expanded as
`mcptui run` expands it.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from mcptui.cli.export import run as run_export
from mcptui.share.export import (
    SDK_PARAMETERS,
    base_url,
    export_texts,
    header_texts,
    render,
    sdk_create_parameters,
)
from mcptui.share.export_template import (
    Template,
    Text,
    Variable,
    build_template,
    listed,
    request_file_template,
)
from mcptui.sources.request_file import expand

REPO = Path(__file__).resolve().parents[2]
RECORDING = REPO / "recordings" / "mcp-424-broken-schema.jsonl"
TRICKY = (
    'it\'s a "$HOME" `date` $(exit 3) \\n back\\slash {braces} ${HOME} ${X:-y} '
    "'quoted' '\\'' é 中文 🙂\nnew line\ttab\u2028end %s %% !! \\u0041 </script>"
)
"""Everything bash, JSON, Python and `mcptui run` treat specially, in one value."""


def tool(label: str = "files", **fields: Any) -> dict[str, Any]:
    return {
        "type": "mcp",
        "server_label": label,
        "server_url": "https://files.example.com/mcp",
        "require_approval": "never",
        **fields,
    }


def names(text: Any) -> list[str]:
    assert isinstance(text, Text), text
    return [part.name for part in text.parts if isinstance(part, Variable)]


def substituted(value: Any, env: dict[str, str]) -> Any:
    """The template as a run with `env` sends it (independent of the module's renderers)."""
    if isinstance(value, dict):
        return {key: substituted(item, env) for key, item in value.items()}
    if isinstance(value, list):
        return [substituted(item, env) for item in value]
    if isinstance(value, Text):
        return "".join(
            part
            if isinstance(part, str)
            else env[part.name]
            if part.name in env or part.default is None
            else part.default
            for part in value.parts
        )
    return value


def curl_arguments(
    script: str, env: dict[str, str], tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    """Run the exported script with bash, `curl` a function that prints its arguments."""
    path = tmp_path / "export.sh"
    path.write_text(script, encoding="utf-8")
    fake = 'curl() { printf "%s\\0" "$@"; }; . "$1"'
    return subprocess.run(
        ["bash", "-c", fake, "bash", str(path)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=10,
        env={"PATH": os.environ["PATH"], **env},
    )


def curl_body(script: str, env: dict[str, str], tmp_path: Path) -> tuple[list[str], Any]:
    done = curl_arguments(script, env, tmp_path)
    assert done.returncode == 0, done.stderr
    arguments = done.stdout.split("\0")[:-1]
    return arguments, json.loads(arguments[arguments.index("--data-binary") + 1])


def python_request(snippet: str, env: dict[str, str]) -> dict[str, Any]:
    """The request the snippet sends: its `request` (and `extra_body`) literals evaluated
    with `env` as `os.environ`; the whole snippet must compile."""
    compile(snippet, "export.py", "exec")
    fake_os = SimpleNamespace(environ=env)
    values: dict[str, Any] = {}
    for node in ast.parse(snippet).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else None
        if isinstance(target, ast.Name) and target.id in ("request", "extra_body"):
            expression = compile(ast.Expression(node.value), "export.py", "eval")
            values[target.id] = eval(expression, {"os": fake_os})
    return {**values["request"], **values.get("extra_body", {})}


def export_args(
    file: Path | str, fmt: str | None = None, output: Path | str | None = None
) -> argparse.Namespace:
    """What the parser gives: `--format` is None unless given."""
    return argparse.Namespace(
        file=str(file), format=fmt, output=None if output is None else str(output)
    )


def run_snippet(
    snippet: str, env: dict[str, str], tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    """Run the exported Python snippet with this interpreter and only `env`."""
    path = tmp_path / "export.py"
    path.write_text(snippet, encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=30,
        stdin=subprocess.DEVNULL,
        env={"PATH": os.environ["PATH"], **env},
    )


# -- placeholder names ----------------------------------------------------------------------------


def test_each_redacted_place_is_named_after_where_it_is():
    request = {
        "model": "m",
        "input": "x",
        "user": "<redacted>",
        "metadata": {"api_key": "<redacted>"},
        "tools": [
            tool(
                headers={"Authorization": "<redacted>", "X-Api-Key": "<redacted>"},
                authorization="<redacted>",
                server_url="https://x.example/s/<redacted>/mcp?api_key=<redacted>",
            ),
            tool(
                "my-db 2!",
                authorization="<redacted>",
                server_url="https://db.example/mcp?token=<redacted>",
            ),
            tool("openai", headers={"Api-Key": "<redacted>"}),
            {"type": "mcp", "server_url": "https://n.example/mcp", "authorization": "<redacted>"},
        ],
    }
    template = build_template(request)
    files, db, openai, unlabelled = template.request["tools"]
    assert names(files["headers"]["Authorization"]) == ["FILES_AUTHORIZATION"]
    assert names(files["headers"]["X-Api-Key"]) == ["FILES_X_API_KEY"]
    assert names(files["authorization"]) == ["FILES_AUTHORIZATION_2"]  # the header has it
    assert names(files["server_url"]) == ["FILES_URL_SECRET_1", "FILES_URL_SECRET_2"]
    assert files["server_url"].parts[0] == "https://x.example/s/"
    assert names(db["authorization"]) == ["MY_DB_2_AUTHORIZATION"]
    assert names(db["server_url"]) == ["MY_DB_2_URL_SECRET"]
    assert names(openai["headers"]["Api-Key"]) == ["MCP_OPENAI_API_KEY"]  # not the SDK's
    assert names(unlabelled["authorization"]) == ["TOOL_3_AUTHORIZATION"]
    assert names(template.request["metadata"]["api_key"]) == ["METADATA_API_KEY"]
    assert names(template.request["user"]) == ["REQUEST_USER"]  # not the shell's $USER
    assert build_template(request) == template  # the same place, the same name, every time

    meanings = {var.name: var for var in listed(template.variables)}
    assert meanings["FILES_AUTHORIZATION"].meaning == (  # people forget the `Bearer `
        "the full Authorization header value for the files server, e.g. `Bearer <token>`"
    )
    assert meanings["FILES_X_API_KEY"].meaning == "the X-Api-Key header for the files server"
    assert (
        meanings["FILES_URL_SECRET_1"].where
        == "https://x.example/s/${FILES_URL_SECRET_1}/mcp?api_key=${FILES_URL_SECRET_2}"
    )
    assert "OAuth access token for the files server" in meanings["FILES_AUTHORIZATION_2"].meaning
    partial = build_template(
        {"model": "m", "tools": [tool(headers={"Authorization": "Bearer <redacted>"})]}
    ).variables[0]
    assert partial.meaning == "the Authorization header for the files server"  # not the whole


def test_a_request_file_keeps_its_own_variables_and_hides_its_literal_secrets():
    raw = {
        "model": "m",
        "input": "x ${TOPIC:-retries}",
        "tools": [
            tool(
                headers={"Authorization": "Bearer ${TOKEN}", "X-Key": "literal-secret-value"},
                authorization="${OAUTH:-sk-defaultsecret1234567}",
                server_url="${HOST:-https://h.example}/s/${PATH_TOKEN}/mcp?api_key=${KEY}&v=2",
            )
        ],
    }
    template = request_file_template(raw)
    files = template.request["tools"][0]
    assert files["headers"]["Authorization"] == Text(
        (
            "Bearer ",
            Variable("TOKEN", "a variable of the request file (at tools[0].headers.Authorization)"),
        )
    )
    assert names(files["headers"]["X-Key"]) == ["FILES_X_KEY"]
    assert names(files["server_url"]) == ["HOST", "PATH_TOKEN", "KEY"]
    assert files["server_url"].parts[0].default == "https://h.example"
    oauth = files["authorization"].parts[0]
    assert (oauth.name, oauth.default) == ("OAUTH", None)  # a secret default is not kept
    assert template.request["input"].parts[1].default == "retries"
    every = json.dumps([export_texts(raw, None), render_all(template)])
    assert "literal-secret-value" not in every and "sk-defaultsecret" not in every


def render_all(template: Template) -> dict[str, str]:
    return {fmt: render(template, fmt, None, "t") for fmt in ("curl", "python", "request")}


# -- quoting: what reaches the server is what was recorded ----------------------------------------


def tricky_request() -> dict[str, Any]:
    return {
        "model": "gpt-5-mini",
        "input": [{"role": "user", "content": TRICKY}],
        "instructions": "x<redacted>y ${NOT_A_VARIABLE} <redacted>",
        "tools": [
            tool(
                "files'\"$`\\ {}",
                headers={"Authorization": "<redacted>"},
                server_url="https://x.example/s/<redacted>/mcp?q=it's&api_key=<redacted>",
            )
        ],
        "metadata": {"note": TRICKY, TRICKY: "key"},
        "temperature": 0.5,
        "top_p": 1,
        "store": False,
        "previous_response_id": None,
        "stream": True,
    }


def test_the_curl_body_reaches_the_server_byte_identical(tmp_path: Path):
    template = build_template(tricky_request())
    env = {
        var.name: f"value of {var.name} é 🙂 $HOME `x` 'q' {{}}"
        for var in listed(template.variables)
    }
    env["OPENAI_API_KEY"] = "sk-test"
    script = export_texts(tricky_request(), "https://api.example.com/v1/responses")["curl"]
    arguments, body = curl_body(script, env, tmp_path)
    assert body == substituted(template.request, env)
    assert body["input"][0]["content"] == TRICKY and body["metadata"][TRICKY] == "key"
    # an HTTP error (401, 424) makes curl exit non-zero, its body still printed
    assert arguments[:4] == [
        "-sS",
        "-N",
        "--fail-with-body",
        "https://api.example.com/v1/responses",
    ]
    assert "Authorization: Bearer sk-test" in arguments
    env["OPENAI_BASE_URL"] = "http://127.0.0.1:9/v1"
    assert curl_body(script, env, tmp_path)[0][3] == "http://127.0.0.1:9/v1/responses"


def test_the_curl_script_names_every_variable_that_is_not_set(tmp_path: Path):
    template = build_template(tricky_request())
    env = {var.name: "set" for var in listed(template.variables)}
    del env["FILES_AUTHORIZATION"]
    env["FILES_URL_SECRET_2"] = ""  # empty is as good as unset
    script = export_texts(tricky_request(), None)["curl"]
    done = curl_arguments(script, env, tmp_path)  # no OPENAI_API_KEY either
    assert done.returncode == 2 and done.stdout == "", done.stdout  # curl never ran
    lines = done.stderr.splitlines()
    assert lines[:3] == [
        "set OPENAI_API_KEY: your OpenAI API key",
        "set FILES_URL_SECRET_2: the secret in the URL of the files'\"$`\\ {} server",
        "set FILES_AUTHORIZATION: the full Authorization header value for the files'\"$`\\ {} "
        "server, e.g. `Bearer <token>`",
    ], lines
    assert "FILES_URL_SECRET_1" not in done.stderr and "export NAME=value" in lines[-1]


def test_the_python_snippet_names_every_variable_that_is_not_set(tmp_path: Path):
    template = build_template(tricky_request())
    env = {var.name: "set" for var in listed(template.variables)}
    del env["FILES_AUTHORIZATION"]
    env["FILES_URL_SECRET_2"] = ""
    done = run_snippet(export_texts(tricky_request(), None)["python"], env, tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert "Traceback" not in done.stderr and "KeyError" not in done.stderr
    assert done.stderr == (
        "set these first: OPENAI_API_KEY (your OpenAI API key), FILES_URL_SECRET_2 (the secret "
        "in the URL of the files'\"$`\\ {} server), FILES_AUTHORIZATION (the full "
        "Authorization header value for the files'\"$`\\ {} server, e.g. `Bearer <token>`)\n"
    )
    secret_base = export_texts(
        {"model": "m", "input": "x"}, "https://gw.example/<redacted>/v1/responses"
    )["python"]
    done = run_snippet(secret_base, {"OPENAI_API_KEY": "sk-test"}, tmp_path)
    assert done.stderr == "set these first: OPENAI_BASE_URL (the API base URL)\n"


def test_the_python_snippet_sends_the_same_request():
    template = build_template(tricky_request())
    env = {var.name: f"{var.name}\"'\\{{}}" for var in listed(template.variables)}
    snippet = export_texts(tricky_request(), None)["python"]
    assert python_request(snippet, env) == substituted(template.request, env)
    assert "stream = client.responses.create(**request)" in snippet
    assert 'os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")' in snippet
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff:  # pyflakes and syntax rules only: a snippet's long lines are fine
        done = subprocess.run(
            [
                ruff,
                "check",
                "--isolated",
                "--select",
                "E9,F,B",
                "--stdin-filename",
                "export.py",
                "-",
            ],
            input=snippet,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode == 0, done.stdout


def test_the_request_format_expands_back_to_the_request():
    template = build_template(tricky_request())
    env = {var.name: f"v-{var.name}" for var in listed(template.variables)}
    text = export_texts(tricky_request(), None)["request"]
    assert expand(json.loads(text), env) == substituted(template.request, env)
    assert '"Authorization": "${FILES_AUTHORIZATION}"' in text


def test_non_streaming_requests_and_parameters_the_sdk_does_not_know():
    request = {
        "model": "m",
        "input": "x",
        "background": True,
        "stream": False,
        "future_option": {"a": 1},
    }
    texts = export_texts(request, None)
    assert " -N " not in texts["curl"] and "curl -sS " in texts["curl"]
    assert "response = client.responses.create(**request, extra_body=extra_body)" in texts["python"]
    assert python_request(texts["python"], {}) == request
    assert sdk_create_parameters().issuperset(SDK_PARAMETERS)  # the fast path is right


def test_the_base_url_comes_from_the_recorded_endpoint(tmp_path: Path):
    assert base_url("https://api.openai.com/v1/responses") == "https://api.openai.com/v1"
    assert (
        base_url("http://127.0.0.1:8787/v1/responses/resp_1?stream=true")
        == "http://127.0.0.1:8787/v1"
    )
    assert base_url(None) == "https://api.openai.com/v1"
    texts = export_texts({"model": "m", "input": "x"}, "https://gw.example/<redacted>/v1/responses")
    done = curl_arguments(texts["curl"], {"OPENAI_API_KEY": "sk-test"}, tmp_path)
    assert (done.returncode, done.stderr.splitlines()[0]) == (
        2,
        "set OPENAI_BASE_URL: the API base URL",
    )
    assert 'OpenAI(base_url=os.environ["OPENAI_BASE_URL"])' in texts["python"]


def test_a_live_recording_exports_the_stream_it_asked_for():
    header = {
        "source": {"kind": "live"},
        "request": {"model": "m", "input": "x"},
        "endpoint": "https://api.openai.com/v1/responses",
    }
    texts = header_texts(header)
    assert texts is not None and '"stream": true' in texts["request"]
    proxy = header_texts({**header, "source": {"kind": "proxy"}})
    assert proxy is not None and '"stream"' not in proxy["request"]
    assert header_texts({"source": {"kind": "live"}}) is None  # attach: no request


# -- no secret ever, clear refusals ---------------------------------------------------------------

SECRETS = (
    "sk-proj-abcdefghijklmnop1234",
    "tok_9f8e7d6c5b4a",
    "Zx9k2LmQ8vR4tY7w",
    "qwerty12345",
    "oauth-secret-value",
)


def test_a_request_file_with_real_secrets_exports_none_of_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    request = {
        "model": "m",
        "input": f"my key is {SECRETS[0]}",
        "tools": [
            tool(
                headers={"Authorization": f"Bearer {SECRETS[1]}"},
                authorization=SECRETS[4],
                server_url=f"https://x.example/s/{SECRETS[2]}/mcp?api_key={SECRETS[3]}",
            )
        ],
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    for fmt in ("curl", "python", "request"):
        assert run_export(export_args(path, fmt)) == 0
        out, err = capsys.readouterr()
        assert not [secret for secret in SECRETS if secret in out + err], fmt
    assert '"${INPUT}"' not in out and "my key is ${INPUT}" in out
    assert "https://x.example/s/${FILES_URL_SECRET_1}/mcp?api_key=${FILES_URL_SECRET_2}" in out


def test_the_shipped_recording_exports_to_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    out = tmp_path / "repro.sh"
    assert run_export(export_args(RECORDING, "curl", out)) == 0
    assert capsys.readouterr().err == f"mcptui: wrote {out}\n"
    script = out.read_text()
    assert os.access(out, os.X_OK)
    assert "resp_68adc9c2cfd681936c1dee1a67f6caf4de178eff81531c8056" in script
    assert '"Authorization": "\'"${FILES_AUTHORIZATION}"\'"' in script
    assert (
        "FILES_AUTHORIZATION  the full Authorization header value for the files server, "
        "e.g. `Bearer <token>`" in script
    )


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("repro.py", "python"),
        ("REPRO.JSON", "request"),
        ("repro.sh", "curl"),
        ("repro", "curl"),
        ("repro.txt", "curl"),
    ],
)
def test_the_format_comes_from_the_output_extension(
    name: str, fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    out = tmp_path / name
    assert run_export(export_args(RECORDING, None, out)) == 0
    assert capsys.readouterr().err.startswith(f"mcptui: wrote {out}")
    text = out.read_text()
    if fmt == "python":
        compile(text, name, "exec")
        assert "from openai import OpenAI" in text
    elif fmt == "request":
        assert json.loads(text)["model"] == "gpt-5-mini"
    else:
        assert text.startswith("#!/usr/bin/env bash\n") and os.access(out, os.X_OK)
    # --format wins over the extension
    assert run_export(export_args(RECORDING, "request", out)) == 0
    assert json.loads(out.read_text())["model"] == "gpt-5-mini"


@pytest.mark.parametrize("output", [None, "-"])
def test_without_output_or_with_dash_it_prints_curl(
    output: str | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
):
    monkeypatch.chdir(tmp_path)
    assert run_export(export_args(RECORDING, None, output)) == 0
    out, err = capsys.readouterr()
    assert out.startswith("#!/usr/bin/env bash\n") and "curl -sS -N --fail-with-body" in out
    assert err == "" and list(tmp_path.iterdir()) == []  # no file named `-`
    assert run_export(export_args(RECORDING, "python", output)) == 0
    assert "from openai import OpenAI" in capsys.readouterr().out


def test_the_output_is_never_the_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.chdir(tmp_path)
    recording = tmp_path / "rec.jsonl"
    shutil.copy(RECORDING, recording)
    (tmp_path / "link.json").symlink_to(recording)
    request = tmp_path / "req.json"
    request.write_text('{"model": "m", "input": "x"}')
    before = recording.read_bytes(), request.read_bytes()
    for file, output in [
        ("rec.jsonl", "rec.jsonl"),
        (str(recording), "./rec.jsonl"),
        ("rec.jsonl", "link.json"),
        ("req.json", "req.json"),
    ]:
        assert run_export(export_args(file, None, output)) == 2, output
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1, err
        assert err.startswith(f"mcptui: -o {output} is FILE itself: "), err
    assert (recording.read_bytes(), request.read_bytes()) == before
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "link.json",
        "rec.jsonl",
        "req.json",
    ]


def test_the_request_format_names_the_recorded_base_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    recorded = RECORDING.read_text()
    assert '"https://api.openai.com/v1/responses"' in recorded
    local = tmp_path / "local.jsonl"
    local.write_text(
        recorded.replace(
            "https://api.openai.com/v1/responses", "http://127.0.0.1:8787/v1/responses"
        )
    )
    out = tmp_path / "my req.json"
    assert run_export(export_args(local, None, out)) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "export FILES_AUTHORIZATION (the full Authorization header value" in err
    assert f"mcptui run '{out}' --base-url http://127.0.0.1:8787/v1" in err
    assert run_export(export_args(local, "request")) == 0  # printed: no file name to give
    assert "--base-url http://127.0.0.1:8787/v1" in capsys.readouterr().err

    assert run_export(export_args(RECORDING, "request", tmp_path / "default.json")) == 0
    err = capsys.readouterr().err  # the OpenAI default: `mcptui run` goes there anyway
    assert "before `mcptui run`" in err and "--base-url" not in err

    secret = tmp_path / "gateway.jsonl"
    secret.write_text(
        recorded.replace(
            "https://api.openai.com/v1/responses", "https://gw.example/<redacted>/v1/responses"
        )
    )
    assert run_export(export_args(secret, None, tmp_path / "gw.json")) == 0
    err = capsys.readouterr().err
    assert (
        "--base-url URL, URL the recorded https://gw.example/<redacted>/v1 with its "
        "secret filled in" in err
    )


@pytest.mark.parametrize("name", ["openai-mcp-tool.1.chunks.txt", "missing.jsonl"])
def test_a_file_without_a_request_is_refused_in_one_line(
    name: str, upstream_dir: Path, capsys: pytest.CaptureFixture[str]
):
    assert run_export(export_args(upstream_dir / name)) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("mcptui: ") and err.count("\n") == 1, err
    if name.startswith("openai"):
        assert "holds no request" in err and "mcptui run" in err and "request file" in err
    else:
        assert "no such file" in err
