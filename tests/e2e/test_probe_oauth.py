"""`mcptui probe` against an OAuth-protected MCP server built with the `mcp` SDK's own auth.

Without a token the probe says what the server wants: its authorization server, its scopes and
where its protected-resource metadata is, and the two ways on (`--oauth`, `--header`). With
`--oauth` it runs the authorization-code flow with PKCE and dynamic registration: the test plays
the browser, fetching the authorization URL the command prints and following the authorization
server's redirect to the command's loopback listener; the command then lists the tools with the
token. No token, code or client secret ever reaches its output.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from _cli_fork import forked_cli
from _e2e_support import Servers
from _oauth_servers import SCOPE, Protected, authorized, protected_server
from mcptui.probe.probing import evidence_of, list_tools

URL_WAIT = 60.0
"""Seconds to wait for the command to print the authorization URL (a loaded machine)."""


@pytest.fixture(scope="module")
def guarded() -> Iterator[Protected]:
    with protected_server() as served:
        yield served


@pytest.fixture(scope="module")
def denying() -> Iterator[Protected]:
    with protected_server(deny=True) as served:
        yield served


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.pop("DISPLAY", None)  # never a browser from a test
    env.pop("WAYLAND_DISPLAY", None)
    return env


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = forked_cli(["probe", *args], tmp_path, clean_env(), timeout=60)
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    return done


class Running:
    """`mcptui COMMAND … --oauth` as a process whose stderr is read line by line as it comes,
    so the test can act when the authorization URL appears."""

    def __init__(self, tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mcptui", *args],
            cwd=tmp_path,
            env=env or clean_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.put(line)
        self.lines.put(None)

    def authorization_url(self) -> str:
        """The URL printed under "open this URL in a browser", once it comes."""
        while True:
            line = self.lines.get(timeout=URL_WAIT)
            if line is None:
                raise AssertionError("ended before printing a URL:\n" + "".join(self.seen))
            self.seen.append(line)
            if line.startswith("  http"):
                return line.strip()

    def finish(self) -> tuple[int, str, str]:
        """Exit code, stdout, all of stderr."""
        assert self.process.stdout is not None
        out = self.process.stdout.read()  # the reader thread has stderr
        code = self.process.wait(timeout=60)
        while (line := self.lines.get(timeout=URL_WAIT)) is not None:
            self.seen.append(line)
        return code, out, "".join(self.seen)


def play_browser(url: str) -> httpx2.Response:
    """What a browser does: open the authorization URL and follow the redirects (the
    authorization server's to the command's loopback listener)."""
    return httpx2.get(url, follow_redirects=True, timeout=30)


def causes_of(found: object, key: str) -> list[dict]:
    """Every likely cause `key` anywhere in `inspect --json`'s output."""
    if isinstance(found, dict):
        own = [found] if found.get("cause") == key and "evidence" in found else []
        return own + [c for v in found.values() for c in causes_of(v, key)]
    if isinstance(found, list):
        return [c for v in found for c in causes_of(v, key)]
    return []


def no_secrets(served: Protected, *texts: str) -> None:
    for secret in served.issuer.secrets():
        for text in texts:
            assert secret not in text


# -- without a token: what it needs ----------------------------------------------------------------


def test_probe_without_a_token_says_what_the_server_needs(tmp_path: Path, guarded: Protected):
    done = run(tmp_path, guarded.mcp)
    assert done.returncode == 1, done.stdout + done.stderr
    origin = guarded.mcp.removesuffix("/mcp")
    assert (
        f"✗ needs OAuth: authorization server {guarded.issuer_url}/, scopes {SCOPE} "
        f"(resource metadata at {origin}/.well-known/oauth-protected-resource/mcp)"
    ) in done.stdout
    assert "the server said: invalid_token: Authentication required" in done.stdout
    assert "dynamic client registration offered, PKCE S256 offered" in done.stdout
    assert (
        "probe again with --oauth (the authorization-code flow in a browser), or pass "
        "--header 'Authorization=Bearer ${TOKEN}'"
    ) in done.stdout


def test_a_refused_token_is_said_as_such(tmp_path: Path, guarded: Protected):
    done = run(tmp_path, guarded.mcp, "--header", "Authorization=Bearer not-a-real-token")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "✗ the token sent was refused: needs OAuth: authorization server" in done.stdout
    assert "probe again with a fresh token (--oauth gets one)" in done.stdout
    assert "not-a-real-token" not in done.stdout + done.stderr


def test_the_json_report_holds_what_the_server_needs(tmp_path: Path, guarded: Protected):
    done = run(tmp_path, guarded.mcp, "--json")
    (server,) = json.loads(done.stdout)["servers"]
    assert server["kind"] == "http_401"
    assert server["oauth"]["authorization_server"] == f"{guarded.issuer_url}/"
    assert server["oauth"]["scopes"] == [SCOPE]
    assert server["oauth"]["registration"] is True
    assert server["oauth"]["pkce_s256"] is True
    assert [c["code"] for c in server["checks"]] == ["needs_oauth"]


def test_what_it_needs_is_the_likely_cause_s_evidence(guarded: Protected):
    """The app's probe of a failed call hands this to the likely-cause rules: their fix then
    names the authorization server and the scopes."""
    entry = {"type": "mcp", "server_label": "guarded", "server_url": guarded.mcp}
    evidence = evidence_of(asyncio.run(list_tools(entry)))
    assert evidence is not None and evidence.kind == "http_401"
    assert evidence.wants is not None
    assert evidence.wants.startswith(
        f"needs OAuth: authorization server {guarded.issuer_url}/, scopes {SCOPE}"
    )


# -- --oauth: the flow, then the tools ------------------------------------------------------------


def test_oauth_completes_the_flow_and_lists_the_tools(tmp_path: Path, guarded: Protected):
    running = Running(tmp_path, "probe", guarded.mcp, "--oauth")
    url = running.authorization_url()
    assert url.startswith(f"{guarded.issuer_url}/authorize?")
    assert "code_challenge_method=S256" in url
    page = play_browser(url)
    assert page.status_code == 200
    assert "authorization received" in page.text
    code, out, err = running.finish()
    assert code == 0, out + err
    assert f"needs OAuth: authorization server {guarded.issuer_url}/, scopes {SCOPE}" in err
    assert f"authorized (scope {SCOPE}): the token is used for this run only" in err
    assert "headers sent (values hidden): Authorization" in out
    assert (
        f"i token from --oauth (value hidden): authorization server {guarded.issuer_url}/, "
        f"scope {SCOPE}"
    ) in out
    assert "echo, whoami" in out
    assert "everything checks out (exit 0)" in out
    no_secrets(guarded, out, err)


def test_a_forged_callback_is_refused_and_the_flow_goes_on(tmp_path: Path, guarded: Protected):
    """Any local process can reach the loopback listener: a redirect with another `state`
    gets a 400, and the real one still completes the flow."""
    from urllib.parse import parse_qs, urlsplit

    running = Running(tmp_path, "probe", guarded.mcp, "--oauth")
    url = running.authorization_url()
    (callback,) = parse_qs(urlsplit(url).query)["redirect_uri"]
    forged = httpx2.get(callback, params={"code": "abc", "state": "forged"}, timeout=30)
    assert forged.status_code == 400
    assert "not for the sign-in mcptui waits for" in forged.text
    assert "authorization received" in play_browser(url).text
    code, out, err = running.finish()
    assert code == 0, out + err
    assert "echo, whoami" in out and "mismatch" not in err


def test_a_refused_authorization_exits_2_with_the_reason(tmp_path: Path, denying: Protected):
    running = Running(tmp_path, "probe", denying.mcp, "--oauth")
    page = play_browser(running.authorization_url())
    assert "the authorization was refused" in page.text
    code, out, err = running.finish()
    assert code == 2, out + err
    assert out == ""
    assert (
        "the authorization server refused the authorization: access_denied (the user said no)"
    ) in err


def test_no_redirect_in_time_exits_2(tmp_path: Path, guarded: Protected):
    done = run(tmp_path, guarded.mcp, "--oauth", "--oauth-timeout", "1")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "no authorization arrived at http://127.0.0.1:" in done.stderr
    assert "/callback within 1 s" in done.stderr
    assert done.stdout == ""


def test_oauth_at_a_server_without_oauth_metadata_says_so(tmp_path: Path, servers: Servers):
    done = run(tmp_path, f"{servers.mcp_token}/mcp", "--oauth")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "needs credentials: HTTP 401" in done.stderr
    assert "--oauth needs the server's protected-resource metadata (RFC 9728)" in done.stderr


def test_oauth_at_an_open_server_probes_without_a_token(tmp_path: Path, servers: Servers):
    done = run(tmp_path, f"{servers.mcp}/mcp", "--oauth", "--tool", "search", "--args", "{}")
    assert "asks for no token: going on without one" in done.stderr
    assert "headers sent" not in done.stdout


def test_oauth_and_an_authorization_header_are_refused_together(tmp_path: Path):
    done = run(tmp_path, "http://127.0.0.1:9/mcp", "--oauth", "--header", "Authorization=x")
    assert done.returncode == 2
    assert "--oauth and --header Authorization both supply the token" in done.stderr


# -- the emulator's MCP client and inspect ---------------------------------------------------------


def test_the_emulator_sends_the_token_in_authorization_as_openai_does(
    tmp_path: Path, guarded: Protected, servers: Servers
):
    """The emulator stands in for OpenAI, whose MCP client runs no OAuth flow: it sends the
    tool's `authorization` as `Authorization: Bearer`. Without one the listing fails with the
    API's 424, and `inspect` says what `authorization` must hold; with a token from the flow
    (the one `--oauth` runs) the tools are listed and called."""
    request = {
        "model": "gpt-5-mini",
        "input": 'q\ncall echo {"text": "hello"}',
        "tools": [
            {
                "type": "mcp",
                "server_label": "guarded",
                "server_url": guarded.mcp,
                "require_approval": "never",
            }
        ],
    }
    (tmp_path / "request.json").write_text(json.dumps(request))
    env = {**clean_env(), "OPENAI_API_KEY": "sk-test"}
    run = ["run", "request.json", "--no-tui", "--base-url", servers.emulator, "--record"]
    done = forked_cli([*run, "refused.jsonl"], tmp_path, env, timeout=60)
    assert "Error retrieving tool list from MCP server: 'guarded'" in done.stdout + done.stderr
    shown = forked_cli(["inspect", "refused.jsonl", "--json"], tmp_path, env, timeout=60)
    assert "Traceback" not in shown.stdout + shown.stderr
    # The API's 424 names no status (protocol.md §1): authentication is one candidate, and
    # what the request sent, and what `authorization` must hold, go with it.
    (auth,) = causes_of(json.loads(shown.stdout), "auth")
    assert auth["confidence"] == "possible"
    assert (
        "the request's guarded tool sends no `authorization` and no Authorization header: "
        "OpenAI called the server without a token"
    ) in auth["evidence"]
    assert auth["fix"].startswith(
        "Put the MCP server's access token in the tool's `authorization` field, the token "
        "alone: OpenAI sends it as `Authorization: Bearer <token>`"
    )

    # Probing the recording confirms it, and the fix names the authorization server.
    probed = forked_cli(["probe", "refused.jsonl", "--json"], tmp_path, env, timeout=60)
    (verdict,) = json.loads(probed.stdout)["verdicts"]
    assert verdict["tool"] == "tools/list"
    top = verdict["causes"][0]
    assert (top["cause"], top["confidence"]) == ("auth", "confirmed")
    assert top["fix"].startswith(
        f"The server wants OAuth: authorization server {guarded.issuer_url}/, scopes {SCOPE}"
    )

    # `run --oauth` runs the flow itself and sends the request with the token.
    running = Running(tmp_path, *run, "flowed.jsonl", "--oauth", env=env)
    assert play_browser(running.authorization_url()).status_code == 200
    code, out, err = running.finish()
    assert code == 0, out + err
    assert "guarded authorized (scope tools:read): the token is used for this run only" in err
    flowed = (tmp_path / "flowed.jsonl").read_text()
    assert '"output":"hello"' in flowed.replace(" ", "")
    assert '"Authorization":"<redacted>"' in flowed.replace(" ", "")
    no_secrets(guarded, flowed, out, err)

    request["tools"][0]["authorization"] = asyncio.run(authorized(guarded.mcp)).access_token
    (tmp_path / "request.json").write_text(json.dumps(request))
    done = forked_cli([*run, "worked.jsonl"], tmp_path, env, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    recorded = (tmp_path / "worked.jsonl").read_text()
    assert '"type":"mcp_list_tools"' in recorded.replace(" ", "")
    assert '"output":"hello"' in recorded.replace(" ", "")
    no_secrets(guarded, recorded, done.stdout, done.stderr)


def test_run_refuses_oauth_it_cannot_use_before_sending(tmp_path: Path, servers: Servers):
    (tmp_path / "request.json").write_text(json.dumps({"model": "gpt-5-mini", "input": "q"}))
    env = {**clean_env(), "OPENAI_API_KEY": "sk-test"}
    run = ["run", "request.json", "--no-tui", "--base-url", servers.emulator]
    alone = forked_cli([*run, "--oauth-timeout", "5"], tmp_path, env, timeout=60)
    assert (alone.returncode, alone.stderr.strip()) == (2, "mcptui: --oauth-timeout needs --oauth")
    nothing = forked_cli([*run, "--oauth"], tmp_path, env, timeout=60)
    assert nothing.returncode == 2
    assert "--oauth: the request has no MCP server URL to authorize at" in nothing.stderr
    assert not list(tmp_path.glob("mcptui-recordings/*.jsonl"))  # nothing was sent
