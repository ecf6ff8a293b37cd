"""HTTP archives (HAR, VCR cassettes, test-proxy records) read as what the app's clients got.

The fixtures are real traffic with the emulator and the demo MCP server
(tests/fixtures/archives/make_archives.py); `expected.json` holds what the clients received.
The edge cases are derived from them here.
"""

from __future__ import annotations

import base64
import copy
import gzip
import json
import zlib
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcptui.cli.main import main
from mcptui.io.archives import read_archive, responses_call
from mcptui.io.formats import ACCEPTED_FORMATS, load_path, load_text
from mcptui.io.recording import Loaded
from mcptui.probe.targets import file_servers
from mcptui.share.inspect_output import Inspection

ARCHIVES = Path(__file__).resolve().parents[1] / "fixtures" / "archives"
EXPECTED = json.loads((ARCHIVES / "expected.json").read_text(encoding="utf-8"))
SECRETS: list[str] = EXPECTED["secrets"]
HAR, CASSETTE, TEST_PROXY = "app.har", "openai-sdk.yaml", "test-proxy.json"


@pytest.fixture(autouse=True)
def plain_wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """No colour forced from the environment, and lines wide enough not to wrap."""
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "NO_COLOR", "LINES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "400")


def load(name: str) -> Loaded:
    return load_path(str(ARCHIVES / name))


def raw_har() -> dict[str, Any]:
    return json.loads((ARCHIVES / HAR).read_text(encoding="utf-8"))


def raw_cassette() -> dict[str, Any]:
    return yaml.safe_load((ARCHIVES / CASSETTE).read_text(encoding="utf-8"))


def streamed(loaded: Loaded) -> list[list[Any]]:
    """[type, sequence_number] of every event (not note), as `expected.json` lists them."""
    return [[e.type, e.sequence_number] for e in loaded.events if not e.is_note]


def notes(loaded: Loaded) -> list[dict[str, Any]]:
    return [e.raw for e in loaded.events if e.is_note]


def problems(loaded: Loaded) -> list[str]:
    return [str(p) for p in loaded.problems]


def failures(loaded: Loaded) -> list[tuple[str, str | None, str]]:
    return [(f.type, f.name, f.error) for f in Inspection.of(loaded).failures]


def har_text(har: dict[str, Any]) -> str:
    return json.dumps(har)


# -- HAR ---------------------------------------------------------------------------------------


def test_har_gives_the_events_the_client_received_and_its_failures():
    loaded = load(HAR)
    inspection = Inspection.of(loaded)

    assert loaded.format == "HAR archive (4 Responses calls of 5 entries)"
    assert streamed(loaded) == EXPECTED["har"]["streamed"]
    # Each create is a root of its own, as its entry: the refused one too (no id, as a live
    # run shows a refused request); the GET joins the response it names.
    assert [(r.id, r.status, len(r.items)) for r in inspection.timeline.state.responses] == [
        (EXPECTED["har"]["created"], "completed", 3),
        (EXPECTED["har"]["plain"], "completed", 3),
        (None, None, 0),
    ]
    assert [f.response_id for f in inspection.failures] == [EXPECTED["har"]["created"], None]
    assert failures(loaded) == [
        (
            "mcp_call",
            "broken_schema",
            "http_error 424: unhandled errors in a TaskGroup (1 sub-exception)",
        ),
        (
            "http_error",
            None,
            "POST /v1/responses: HTTP 424: external_connector_error http_error: Error retrieving "
            "tool list from MCP server: 'demo'. Http status code: 424 (Failed Dependency)",
        ),
    ]
    assert problems(loaded) == ["1 entry skipped (not Responses API calls): GET /v1/models ×1"]


def test_har_first_request_is_the_header_and_later_calls_are_notes_as_live_runs_record():
    loaded = load(HAR)
    entries = raw_har()["log"]["entries"]
    sent = json.loads(entries[0]["request"]["postData"]["text"])
    header = loaded.header or {}

    assert header["source"] == {
        "kind": "archive",
        "format": "HAR",
        "user_agent": "archive-maker/1.0 (httpx2)",
    }
    assert header["request"]["model"] == "gpt-5-mini"
    assert header["request"]["tools"][0]["server_url"] == sent["tools"][0]["server_url"]
    assert header["request"]["tools"][0]["headers"] == {"Authorization": "<redacted>"}
    assert header["endpoint"] == entries[0]["request"]["url"]
    first_answer = {h["name"]: h["value"] for h in entries[0]["response"]["headers"]}
    assert header["http"] == {
        "status": 200,
        "headers": {
            name: first_answer[name]
            for name in ("x-request-id", "openai-processing-ms", "openai-version", "content-type")
        },
    }
    plain = EXPECTED["har"]["plain"]
    assert [(n["kind"], n["message"]) for n in notes(loaded)] == [
        ("request", "POST /v1/responses: HTTP 200"),
        ("response", f"POST /v1/responses: {plain} is completed"),
        ("request", f"GET /v1/responses/{plain}: HTTP 200"),
        ("response", f"GET /v1/responses/{plain}: completed"),
        ("request", "POST /v1/responses: HTTP 424"),
        (
            "http_error",
            "POST /v1/responses: HTTP 424: external_connector_error http_error: "
            "Error retrieving tool list from MCP server: 'demo'. Http status code: "
            "424 (Failed Dependency)",
        ),
    ]
    refused = notes(loaded)[-1]
    assert (refused["level"], refused["status"], refused["request_id"]) == (
        "error",
        424,
        EXPECTED["har"]["refused_request_id"],
    )
    assert refused["body"]["error"]["code"] == "http_error"
    assert notes(loaded)[0]["request"]["input"].endswith('call search {"query": "archives"}')


def test_har_times_put_each_answer_between_its_first_byte_and_its_end():
    loaded = load(HAR)
    entries = raw_har()["log"]["entries"]
    first, last = entries[0]["timings"]["wait"] / 1000, entries[0]["time"] / 1000
    times = [e.t for e in loaded.events if not e.is_note]

    assert times[0] == pytest.approx(first)  # blocked, dns, connect, ssl are -1: not counted
    assert times[-1] == pytest.approx(last)
    steps = [b - a for a, b in pairwise(times)]
    assert steps == pytest.approx([(last - first) / (len(times) - 1)] * len(steps))
    started = [e["startedDateTime"] for e in entries]
    assert started == sorted(started)
    request_note = next(e for e in loaded.events if e.is_note and e.raw["kind"] == "request")
    assert request_note.t is not None and request_note.t > last  # entry 2 starts after 1 ends


def test_har_timings_count_ssl_once_since_connect_includes_it():
    har = raw_har()
    entry = har["log"]["entries"][0]
    entry["timings"] = {
        "blocked": 1,
        "dns": 2,
        "connect": 30,
        "ssl": 20,
        "send": 1,
        "wait": 100,
        "receive": 46,
    }
    entry["time"] = 180
    har["log"]["entries"] = [entry]

    times = [e.t for e in load_text(har_text(har)).events]

    assert times[0] == pytest.approx(0.134) and times[-1] == pytest.approx(0.180)


def test_har_base64_body_reads_like_text_and_a_broken_one_is_named():
    har = raw_har()
    content = har["log"]["entries"][0]["response"]["content"]
    content["text"] = base64.b64encode(content["text"].encode()).decode()
    content["encoding"] = "base64"
    assert streamed(load_text(har_text(har))) == EXPECTED["har"]["streamed"]

    content["text"] = "not base64 at all!"
    broken = load_text(har_text(har))
    assert "entry 1: response body is base64 but does not decode" in problems(broken)
    assert streamed(broken) == []


def test_har_skipped_entries_are_not_decoded_and_their_token_paths_stay_hidden():
    har = raw_har()
    models = har["log"]["entries"][3]
    models["response"]["content"] = {
        "size": 1,
        "mimeType": "text/plain",
        "encoding": "base64",
        "text": "not base64 at all!",
    }
    mcp = copy.deepcopy(models)
    mcp["request"]["method"] = "POST"
    mcp["request"]["url"] = "https://mcp.example.com/s/Zx9k2LmQ8vR4tY7wP3/mcp?api_key=k"
    har["log"]["entries"].append(mcp)

    loaded = load_text(har_text(har))

    assert problems(loaded) == [
        "2 entries skipped (not Responses API calls): GET /v1/models ×1, POST /s/<redacted>/mcp ×1"
    ]


def test_har_stream_cut_off_mid_event_keeps_what_arrived_and_says_it_never_finished():
    har = raw_har()
    content = har["log"]["entries"][0]["response"]["content"]
    text = content["text"]
    block = text.index("event: response.mcp_call.failed")
    content["text"] = text[: block + 48]  # the block's `event:` line and `data: {"type": "`
    har["log"]["entries"] = har["log"]["entries"][:1]

    loaded = load_text(har_text(har))
    cut_line = text.count("\n", 0, block) + 1

    got = streamed(loaded)
    assert got == EXPECTED["har"]["streamed"][: len(got)]
    assert got[-1][0] == "response.mcp_call_arguments.done"
    assert problems(loaded) == [
        f"entry 1: body line {cut_line}: data is not JSON "
        "(Unterminated string starting at column 10)"
    ]
    assert [f[0] for f in failures(loaded)] == ["unfinished"]


def test_har_entry_without_an_answer_is_a_connection_failure():
    har = raw_har()
    entry = har["log"]["entries"][0]
    entry["response"].update(status=0, statusText="", _error="net::ERR_CONNECTION_RESET")
    entry["response"]["content"] = {"size": 0, "mimeType": "x-unknown"}
    har["log"]["entries"] = [entry]

    loaded = load_text(har_text(har))

    assert failures(loaded) == [
        (
            "connection_error",
            None,
            "POST /v1/responses: the archive holds no answer (net::ERR_CONNECTION_RESET)",
        )
    ]


def test_har_answer_without_its_body_says_so():
    har = raw_har()
    entry = har["log"]["entries"][0]
    del entry["response"]["content"]["text"]  # DevTools often saves no body for a stream
    har["log"]["entries"] = [entry]

    loaded = load_text(har_text(har))

    assert not loaded.usable
    assert problems(loaded) == [
        "entry 1: POST /v1/responses (HTTP 200): the archive holds no "
        "body for this answer (some tools leave streamed bodies out)"
    ]


# -- VCR cassettes -------------------------------------------------------------------------------


def test_cassette_of_the_openai_sdk_gives_what_the_sdk_received():
    loaded = load(CASSETTE)
    inspection = Inspection.of(loaded)

    assert loaded.format == "VCR cassette (2 Responses calls of 7 interactions)"
    assert streamed(loaded) == EXPECTED["vcr"]["streamed"]
    assert all(e.t is None for e in loaded.events)  # a cassette holds no times
    assert [(r.id, r.status) for r in inspection.timeline.state.responses] == [
        (EXPECTED["vcr"]["created"], EXPECTED["vcr"]["retrieved_status"])
    ]
    assert [(f[0], f[1]) for f in failures(loaded)] == [("mcp_call", "broken_schema")]
    assert problems(loaded) == [
        "5 interactions skipped (not Responses API calls): POST /mcp ×4, DELETE /mcp ×1"
    ]
    header = loaded.header or {}
    assert header["source"]["user_agent"].startswith("OpenAI/Python ")
    assert header["request"]["tools"][0]["server_label"] == "demo"


def with_stream_body(cassette: dict[str, Any], body: Any, encoding: str) -> str:
    """The cassette with its streamed answer's body replaced, as YAML (bytes: `!!binary`)."""
    interaction = next(
        i for i in cassette["interactions"] if i["request"]["uri"].endswith("/v1/responses")
    )
    interaction["response"]["body"]["string"] = body
    interaction["response"]["headers"]["Content-Encoding"] = [encoding]
    return yaml.safe_dump(cassette)


def test_cassette_gzip_binary_body_is_decompressed():
    cassette = raw_cassette()
    stream = next(
        i for i in cassette["interactions"] if i["request"]["uri"].endswith("/v1/responses")
    )["response"]["body"]["string"]
    text = with_stream_body(cassette, gzip.compress(stream.encode()), "gzip")

    assert "!!binary" in text
    assert streamed(load_text(text)) == EXPECTED["vcr"]["streamed"]


@pytest.mark.parametrize(
    ("body", "encoding", "problem"),
    [
        (b"\x1f\x8b\x08\x00broken", "gzip", "interaction 6: gzip body does not decompress"),
        (
            b"\x8b\x02\x80hello",
            "br",
            "interaction 6: body is brotli-compressed (Content-Encoding: "
            "br), which mcptui cannot decompress: record with decode_compressed_response=True, or "
            "send Accept-Encoding: gzip",
        ),
    ],
    ids=["gzip", "brotli"],
)
def test_cassette_body_that_cannot_be_decompressed_is_named(
    body: bytes, encoding: str, problem: str
):
    loaded = load_text(with_stream_body(raw_cassette(), body, encoding))

    assert problem in problems(loaded)
    assert streamed(loaded) == []
    assert loaded.usable  # the retrieve after it still holds the response


def test_cassette_parsed_body_as_pydantic_ai_writes_it():
    cassette = raw_cassette()
    for interaction in cassette["interactions"]:
        for part in ("request", "response"):
            data = interaction[part]
            types = data["headers"].get("content-type", [""])
            body = data.get("body")
            text = body.get("string") if isinstance(body, dict) else body
            if types[0].startswith("application/json") and text:
                data["parsed_body"] = json.loads(text)
                del data["body"]

    loaded = load_text(yaml.safe_dump(cassette))

    assert "parsed_body" in yaml.safe_dump(cassette)
    assert streamed(loaded) == EXPECTED["vcr"]["streamed"]
    assert (loaded.header or {})["request"]["model"] == "gpt-5-mini"
    assert notes(loaded)[-1]["response"]["id"] == EXPECTED["vcr"]["created"]


def test_cassette_with_python_tags_is_refused_without_running_anything():
    text = (
        "interactions:\n- request: !!python/object/apply:os.system ['echo pwned']\n"
        "  response: {}\nversion: 1\n"
    )

    loaded = load_text(text)

    assert not loaded.usable
    assert len(loaded.problems) == 1
    message = problems(loaded)[0]
    assert message.startswith(
        "VCR cassette that does not load: could not determine a "
        "constructor for the tag 'tag:yaml.org,2002:python/object/apply:"
        "os.system' (line 2)"
    )
    assert "safe loader" in message


# -- test-proxy records --------------------------------------------------------------------------


def test_test_proxy_record_reads_like_the_har_it_was_written_from_without_times():
    har, record = load(HAR), load(TEST_PROXY)

    assert record.format == "test-proxy record (4 Responses calls of 5 entries)"
    assert [e.raw for e in record.events] == [e.raw for e in har.events]
    assert all(e.t is None for e in record.events)
    assert failures(record) == failures(har)
    assert (record.header or {})["request"] == (har.header or {})["request"]


def test_test_proxy_json_and_text_bodies():
    record = json.loads((ARCHIVES / TEST_PROXY).read_text(encoding="utf-8"))
    plain = record["Entries"][1]
    assert isinstance(plain["ResponseBody"], dict)  # a JSON body is an object in the record
    gateway = {
        **plain,
        "StatusCode": 502,
        "ResponseBody": "Bad Gateway",
        "ResponseHeaders": {"Content-Type": "text/plain"},
    }
    as_text = {**plain, "ResponseBody": json.dumps(plain["ResponseBody"])}
    record["Entries"] = [plain, as_text, gateway]

    loaded = load_text(json.dumps(record))

    kinds = [(n["kind"], n.get("response", {}).get("id")) for n in notes(loaded)]
    assert kinds == [
        ("response", EXPECTED["har"]["plain"]),
        ("request", None),
        ("response", EXPECTED["har"]["plain"]),
        ("request", None),
        ("http_error", None),
    ]
    assert notes(loaded)[0]["response"] == plain["ResponseBody"]
    assert failures(loaded)[-1] == ("http_error", None, "POST /v1/responses: HTTP 502: Bad Gateway")


def test_resumed_stream_adds_each_event_once():
    record = json.loads((ARCHIVES / TEST_PROXY).read_text(encoding="utf-8"))
    first = record["Entries"][0]
    lines: list[str] = first["ResponseBody"]
    cut = next(n for n, line in enumerate(lines) if '"sequence_number": 10,' in line) + 2
    created = EXPECTED["har"]["created"]
    dropped = {**first, "ResponseBody": lines[:cut]}
    again = next(n for n, line in enumerate(lines) if '"sequence_number": 6,' in line) - 1
    resumed = {
        **first,
        "RequestMethod": "GET",
        "RequestBody": None,
        "ResponseBody": lines[again:],
        "RequestUri": first["RequestUri"] + f"/{created}?stream=true&starting_after=5",
    }
    record["Entries"] = [dropped, resumed]

    loaded = load_text(json.dumps(record))

    assert streamed(loaded) == EXPECTED["har"]["streamed"]
    assert problems(loaded) == [
        "entry 2: 5 events read in an earlier entry already (sequence numbers up to 10) left out"
    ]
    assert notes(loaded)[0]["message"] == (
        f"GET /v1/responses/{created}?stream=true&starting_after=5: HTTP 200"
    )


def test_cancel_answer_is_a_cancel_note_with_the_snapshot():
    record = json.loads((ARCHIVES / TEST_PROXY).read_text(encoding="utf-8"))
    plain = record["Entries"][1]
    response_id = plain["ResponseBody"]["id"]
    cancel = {
        **plain,
        "RequestUri": plain["RequestUri"] + f"/{response_id}/cancel",
        "RequestBody": None,
        "ResponseBody": {**plain["ResponseBody"], "status": "cancelled"},
    }
    record["Entries"] = [plain, cancel]

    loaded = load_text(json.dumps(record))
    state = Inspection.of(loaded).timeline.state

    assert notes(loaded)[-1]["kind"] == "cancel"
    assert notes(loaded)[-1]["message"] == f"cancel requested: {response_id} is cancelled"
    assert [(r.id, r.status) for r in state.responses] == [(response_id, "cancelled")]


@pytest.mark.parametrize(
    ("method", "url", "what"),
    [
        ("POST", "https://api.openai.com/v1/responses", "POST /v1/responses"),
        (
            "post",
            "https://r.openai.azure.com/openai/responses?api-version=2025-04-01&api-key=k1",
            "POST /openai/responses?api-version=2025-04-01&api-key=<redacted>",
        ),
        (
            "GET",
            "https://api.openai.com/v1/responses/resp_1?stream=true&starting_after=7",
            "GET /v1/responses/resp_1?stream=true&starting_after=7",
        ),
        (
            "POST",
            "https://api.openai.com/v1/responses/resp_1/cancel",
            "POST /v1/responses/resp_1/cancel",
        ),
        ("POST", "https://api.openai.com/v1/responses/input_tokens", None),
        ("GET", "https://api.openai.com/v1/responses/resp_1/input_items", None),
        ("POST", "https://api.openai.com/v1/chat/completions", None),
        ("GET", "https://api.openai.com/v1/models", None),
    ],
)
def test_which_exchanges_are_responses_calls(method: str, url: str, what: str | None):
    call = responses_call(method, url)

    assert (call.what if call else None) == what


def test_a_cut_off_har_says_so():
    text = (ARCHIVES / HAR).read_text(encoding="utf-8")[:5000]
    line = text.count("\n") + 1

    loaded = load_text(text)

    assert not loaded.usable
    [message] = problems(loaded)
    assert message.startswith("HAR archive that is not valid JSON (Unterminated string ")
    assert message.endswith(f" of line {line}): is it cut off?")


def test_a_log_of_log_objects_is_not_taken_for_a_broken_har():
    text = '{"log": {"level": "info", "msg": "started"}}\n{"log": {"level": "info"}}\n'

    assert read_archive(text) is None
    assert load_text(text).format == "JSON lines"


# -- no Responses call, secrets, the command line ----------------------------------------------


def test_archive_without_a_responses_call_says_what_it_found():
    har = raw_har()
    har["log"]["entries"] = [har["log"]["entries"][3]] * 2

    loaded = load_text(har_text(har))

    assert not loaded.usable
    assert problems(loaded) == [
        "HAR archive with 2 entries, none a Responses API call (POST …/responses or "
        "GET …/responses/{id}); seen: GET /v1/models ×2"
    ]


def test_cli_exits_2_for_an_archive_without_a_responses_call(tmp_path: Path, capsys):
    har = raw_har()
    har["log"]["entries"] = [har["log"]["entries"][3]]
    path = tmp_path / "models.har"
    path.write_text(har_text(har), encoding="utf-8")
    reason = "HAR archive with 1 entry, none a Responses API call"

    assert main(["inspect", str(path)]) == 2
    inspected = capsys.readouterr()
    assert reason in inspected.out and reason in " ".join(inspected.err.split())
    assert main(["replay", str(path)]) == 2  # refused before the terminal UI starts
    assert reason in capsys.readouterr().err


@pytest.mark.parametrize("name", [HAR, CASSETTE, TEST_PROXY])
def test_cli_exits_1_for_an_archive_with_a_failed_mcp_call(name: str, capsys):
    assert main(["inspect", str(ARCHIVES / name)]) == 1
    out = capsys.readouterr().out
    assert "✗ mcp_call broken_schema  http_error 424: unhandled errors in a TaskGroup" in out


@pytest.mark.parametrize("name", [HAR, CASSETTE, TEST_PROXY])
def test_no_api_key_or_mcp_secret_survives_an_import(name: str, capsys):
    raw = (ARCHIVES / name).read_text(encoding="utf-8")
    assert all(secret in raw for secret in SECRETS)  # the archive does hold them

    shown = repr(load(name))
    main(["inspect", "--json", str(ARCHIVES / name)])
    reported = capsys.readouterr().out

    for secret in SECRETS:
        assert secret not in shown
        assert secret not in reported
    assert json.loads(reported)["files"][0]["format"].endswith(("entries)", "interactions)"))


def test_probe_finds_the_mcp_server_the_archive_request_names():
    loaded = load(HAR)
    sent = json.loads(raw_har()["log"]["entries"][0]["request"]["postData"]["text"])

    servers, echoed = file_servers(loaded)

    assert [s["server_url"] for s in servers] == [sent["tools"][0]["server_url"]]
    assert not echoed


def test_the_accepted_formats_name_the_archives():
    listed = " ".join(ACCEPTED_FORMATS)
    assert all(word in listed for word in ("HAR", "VCR cassette", "test-proxy"))


def test_compressed_bodies_decompress_to_no_more_than_max_bytes_in_all():
    """A compression bomb (or many bodies) stops at the input limit: the archive is refused
    with a problem naming the limit and the flag, as a file too big is."""
    cassette = raw_cassette()
    stream = next(
        i for i in cassette["interactions"] if i["request"]["uri"].endswith("/v1/responses")
    )["response"]["body"]["string"]
    text = with_stream_body(cassette, gzip.compress(stream.encode()), "gzip")

    assert streamed(load_text(text, max_bytes=len(stream))) == EXPECTED["vcr"]["streamed"]
    refused = load_text(text, max_bytes=len(stream) - 1)
    assert problems(refused) == [
        f"the response body of interaction 6 (gzip) decompresses to more than --max-bytes "
        f"{len(stream) - 1:,} ({len(stream) - 1:,} bytes) (a compression bomb?): pass a larger "
        "--max-bytes to read it"
    ]
    assert not refused.events and not refused.usable


@pytest.mark.parametrize(
    "packed",
    [
        lambda data: gzip.compress(data[:100]) + gzip.compress(data[100:]),  # two members
        zlib.compress,  # deflate as the RFC says: zlib framing
        lambda data: zlib.compress(data, wbits=-zlib.MAX_WBITS),  # raw deflate, as some send it
    ],
    ids=["gzip-members", "deflate", "raw-deflate"],
)
def test_every_gzip_member_and_both_deflate_framings_are_read(packed: Any):
    cassette = raw_cassette()
    stream = next(
        i for i in cassette["interactions"] if i["request"]["uri"].endswith("/v1/responses")
    )["response"]["body"]["string"]
    encoding = "gzip" if packed(b"x")[:2] == b"\x1f\x8b" else "deflate"
    text = with_stream_body(cassette, packed(stream.encode()), encoding)

    assert streamed(load_text(text)) == EXPECTED["vcr"]["streamed"]
