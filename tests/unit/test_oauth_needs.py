"""What an OAuth-protected server asks for, read from its WWW-Authenticate and its metadata
(`mcptui.model.oauth`): the real shapes, and hostile ones (junk, missing fields, wrong types,
huge values), each read without raising and said in plain words."""

from __future__ import annotations

import pytest
from mcptui.model.oauth import (
    MAX_CHARS,
    MAX_HEADER,
    MAX_ITEMS,
    metadata_url_of,
    needs_from,
    parse_www_authenticate,
    read_resource_metadata,
    read_server_metadata,
)

SDK_HEADER = (
    'Bearer error="invalid_token", error_description="Authentication required", '
    'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"'
)
NO_AS = "the protected-resource metadata names no authorization server (authorization_servers)"
PRM_OF = "the protected-resource metadata's"
PRM = {
    "resource": "https://mcp.example.com/mcp",
    "authorization_servers": ["https://auth.example.com/"],
    "scopes_supported": ["tools:read", "tools:call"],
    "bearer_methods_supported": ["header"],
}
ASM = {
    "issuer": "https://auth.example.com/",
    "authorization_endpoint": "https://auth.example.com/authorize",
    "token_endpoint": "https://auth.example.com/token",
    "registration_endpoint": "https://auth.example.com/register",
    "scopes_supported": ["tools:read"],
    "code_challenge_methods_supported": ["S256"],
}


# -- WWW-Authenticate ----------------------------------------------------------------------------


def test_the_mcp_sdk_s_challenge_is_read_whole():
    parsed = parse_www_authenticate(SDK_HEADER)
    assert parsed.problem is None
    bearer = parsed.bearer
    assert bearer is not None and bearer.scheme == "Bearer"
    assert bearer.params == {
        "error": "invalid_token",
        "error_description": "Authentication required",
        "resource_metadata": "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
    }
    assert metadata_url_of(SDK_HEADER) == bearer.params["resource_metadata"]


def test_several_challenges_escapes_and_stray_commas():
    parsed = parse_www_authenticate(
        'Basic realm="a \\"quoted\\" realm", , Bearer ,scope="a b",, Realm=x'
    )
    assert parsed.problem is None
    assert [c.scheme for c in parsed.challenges] == ["Basic", "Bearer"]
    assert parsed.challenges[0].params == {"realm": 'a "quoted" realm'}
    assert parsed.bearer is not None
    assert parsed.bearer.params == {"scope": "a b", "realm": "x"}  # names lower-cased


def test_a_token68_challenge_is_not_mistaken_for_parameters():
    parsed = parse_www_authenticate("Negotiate YII=, Bearer")
    assert [(c.scheme, c.token68) for c in parsed.challenges] == [
        ("Negotiate", "YII="),
        ("Bearer", None),
    ]


@pytest.mark.parametrize(
    ("header", "problem"),
    [
        (None, "the 401 carries no WWW-Authenticate header"),
        ("   ", "the 401 carries no WWW-Authenticate header"),
        (
            "@@@ junk",
            "the WWW-Authenticate header is not RFC 9110 syntax from character 1: '@@@ junk'",
        ),
        ('Bearer realm="never ends', "a quoted value in the WWW-Authenticate header never ends"),
        (
            "Bearer realm=@",
            "the WWW-Authenticate header is not RFC 9110 syntax from character 14: '@'",
        ),
    ],
)
def test_junk_is_said_and_never_raises(header: str | None, problem: str):
    assert parse_www_authenticate(header).problem == problem


def test_what_came_before_junk_is_kept():
    parsed = parse_www_authenticate('Bearer scope="x" \x1b[31m')
    assert parsed.bearer is not None and parsed.bearer.params == {"scope": "x"}
    assert parsed.problem is not None
    assert "\x1b" not in parsed.problem  # shown escaped, never acting on a terminal
    assert "\\x1b" in parsed.problem


def test_a_huge_header_is_cut_and_said():
    header = 'Bearer scope="' + "s" * 100_000 + '"'
    parsed = parse_www_authenticate(header)
    assert parsed.problem == (
        f"the WWW-Authenticate header is longer than {MAX_HEADER} characters: cut there"
    )
    assert parsed.bearer is not None
    assert len(parsed.bearer.params.get("scope", "")) <= MAX_CHARS


def test_a_metadata_url_that_is_no_http_url_is_not_followed():
    assert metadata_url_of('Bearer resource_metadata="file:///etc/passwd"') is None
    assert metadata_url_of('Bearer resource_metadata="javascript:alert(1)"') is None
    assert metadata_url_of("Basic realm=x") is None


# -- metadata ------------------------------------------------------------------------------------


def test_resource_and_server_metadata_are_read():
    resource = read_resource_metadata(PRM)
    assert resource.problems == ()
    assert resource.authorization_servers == ("https://auth.example.com/",)
    assert resource.scopes_supported == ("tools:read", "tools:call")
    server = read_server_metadata(ASM)
    assert server.problems == ()
    assert server.registration_endpoint == "https://auth.example.com/register"
    assert server.offers_pkce is True


@pytest.mark.parametrize(
    ("data", "problems"),
    [
        ([], ("the protected-resource metadata is not a JSON object",)),
        (
            {"resource": "x"},
            (NO_AS,),
        ),
        (
            {"authorization_servers": "https://a"},
            (
                f"{PRM_OF} authorization_servers is not a list (str)",
                NO_AS,
            ),
        ),
        (
            {"authorization_servers": ["ftp://a", 7], "resource": 5},
            (
                f"{PRM_OF} authorization_servers holds values that are not strings: left out",
                f"{PRM_OF} authorization_servers holds values that are not URLs",
                NO_AS,
                f"{PRM_OF} resource is not a non-empty string (int)",
            ),
        ),
    ],
)
def test_broken_resource_metadata_is_said(data: object, problems: tuple[str, ...]):
    assert read_resource_metadata(data).problems == problems


def test_huge_metadata_lists_and_values_are_bounded():
    data = {
        "authorization_servers": ["https://a/" + "x" * 10_000] * 500,
        "scopes_supported": [f"s{i}" for i in range(5000)],
    }
    resource = read_resource_metadata(data)
    assert len(resource.authorization_servers) == MAX_ITEMS
    assert all(len(s) <= MAX_CHARS for s in resource.authorization_servers)
    assert resource.scopes_supported is not None and len(resource.scopes_supported) == MAX_ITEMS
    assert (
        f"the protected-resource metadata's scopes_supported lists 5000 values: the first "
        f"{MAX_ITEMS} kept"
    ) in resource.problems


def test_server_metadata_without_endpoints_or_s256_is_said():
    server = read_server_metadata(
        {"issuer": "not a url", "code_challenge_methods_supported": ["plain"]}
    )
    assert server.offers_pkce is False
    assert server.problems == (
        "the authorization server's metadata's issuer is not an http(s) URL: 'not a url'",
        "the authorization server's metadata has no authorization_endpoint",
        "the authorization server's metadata has no token_endpoint",
    )
    assert read_server_metadata("junk").problems == (
        "the authorization server's metadata is not a JSON object",
    )


# -- what the server needs -----------------------------------------------------------------------


def test_the_summary_names_the_authorization_server_the_scopes_and_the_metadata():
    needs = needs_from(
        401,
        SDK_HEADER,
        metadata_url="https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
        resource=read_resource_metadata(PRM),
        server=read_server_metadata(ASM),
    )
    assert needs.oauth
    assert needs.summary() == (
        "needs OAuth: authorization server https://auth.example.com/, scopes tools:read "
        "tools:call (resource metadata at "
        "https://mcp.example.com/.well-known/oauth-protected-resource/mcp)"
    )
    assert needs.details() == [
        "the server said: invalid_token: Authentication required",
        "dynamic client registration offered, PKCE S256 offered",
    ]


def test_the_challenge_s_scope_comes_before_the_metadata_s():
    needs = needs_from(
        403,
        'Bearer error="insufficient_scope", scope="tools:call"',
        resource=read_resource_metadata(PRM),
    )
    assert needs.scopes == ("tools:call",)
    assert needs.error == "insufficient_scope"


def test_a_401_without_oauth_metadata_says_what_it_is():
    needs = needs_from(401, 'Basic realm="corp"', problems=("no protected-resource metadata",))
    assert not needs.oauth
    assert needs.summary() == (
        "needs credentials: HTTP 401, it asks for Basic authentication, and no OAuth metadata"
    )
    assert needs.details() == ["no protected-resource metadata"]
    assert needs.as_json()["oauth"] is False


def test_a_401_with_no_header_at_all():
    needs = needs_from(401, None)
    assert needs.summary() == "needs credentials: HTTP 401, and no OAuth metadata"
    assert needs.problems == ("the 401 carries no WWW-Authenticate header",)
