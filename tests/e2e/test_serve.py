"""`mcptui serve` as a user runs it: the installed command serving a recording on a port, the
unmodified openai SDK as the app. The SDK must get what the recording holds: the same events
(streamed), the same final Response (not streamed), the same HTTP error."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from _cli_fork import forked_cli
from _ports import free_port

ROOT = Path(__file__).resolve().parents[2]
MCPTUI = Path(sys.executable).parent / "mcptui"
BROKEN_SCHEMA = ROOT / "recordings" / "mcp-424-broken-schema.jsonl"
SUCCESS = ROOT / "recordings" / "mcp-success.jsonl"
RATE_LIMITED = ROOT / "tests" / "fixtures" / "serve" / "http-429.jsonl"
"""Made with `mcptui run --record` against `mcptui emulate`, `metadata.mcptui_fault: http_429`."""


def recorded(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """A recording's header, its events and its notes, as written."""
    header, *lines = [json.loads(line) for line in path.read_text().splitlines()]
    return (
        header,
        [line["event"] for line in lines if "event" in line],
        [line["note"] for line in lines if "note" in line],
    )


def serve(*args: str) -> Iterator[str]:
    """`mcptui serve ARGS --port N` in its own process; the base URL it prints, once it
    prints it (the socket listens before the banner is written)."""
    port = free_port()
    process = subprocess.Popen(
        [str(MCPTUI), "serve", *args, "--port", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        url = f"http://127.0.0.1:{port}/v1"
        assert f"export OPENAI_BASE_URL={url}" in banner, banner + process.stderr.read()
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def broken_schema() -> Iterator[str]:
    yield from serve(str(BROKEN_SCHEMA), "--instant")


@pytest.fixture
def rate_limited() -> Iterator[str]:
    yield from serve(str(RATE_LIMITED), "--instant")


def client(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=url, api_key="sk-app-under-test", max_retries=0)


def test_a_stream_gets_the_recorded_events_with_the_424(broken_schema: str):
    """Every event as the SDK parsed it (`exclude_unset`: the fields the wire held) equals
    the recorded one, payloads included."""
    header, events, _ = recorded(BROKEN_SCHEMA)
    stream = client(broken_schema).responses.create(
        model="gpt-5-mini", input=header["request"]["input"], stream=True
    )
    got = [event.model_dump(mode="json", exclude_unset=True) for event in stream]
    assert [event["type"] for event in got] == [event["type"] for event in events]
    assert got == events
    failed = [
        event["item"]
        for event in got
        if event["type"] == "response.output_item.done" and event["item"]["type"] == "mcp_call"
    ]
    assert failed[0]["status"] == "failed"
    assert failed[0]["error"]["code"] == 424


def test_not_streamed_gets_the_recorded_final_response(broken_schema: str):
    _, events, _ = recorded(BROKEN_SCHEMA)
    response = client(broken_schema).responses.create(model="gpt-5-mini", input="anything")
    assert response.model_dump(mode="json", exclude_unset=True) == events[-1]["response"]
    assert response.status == "completed"


def test_a_recorded_429_is_answered_with_its_status_and_body(rate_limited: str):
    _, _, notes = recorded(RATE_LIMITED)
    with pytest.raises(openai.RateLimitError) as raised:
        client(rate_limited).responses.create(model="gpt-5-mini", input="hi", stream=True)
    assert raised.value.status_code == 429
    assert raised.value.response.json() == notes[0]["body"]
    assert raised.value.response.headers["retry-after"] == "1"


def test_the_sdks_retries_of_a_recorded_429_get_the_429_again(rate_limited: str):
    """After the last recorded response the first comes again: an SDK retrying a 429 sees the
    recorded error each time, not a made-up one."""
    retrying = openai.OpenAI(base_url=rate_limited, api_key="sk-app-under-test", max_retries=2)
    with pytest.raises(openai.RateLimitError):
        retrying.with_options(timeout=20).responses.create(model="gpt-5-mini", input="other")


def test_a_post_gets_the_response_recorded_for_its_input_else_the_next_in_order(tmp_path: Path):
    served = serve(str(BROKEN_SCHEMA), str(SUCCESS), "--instant")
    url = next(served)
    try:
        app = client(url)
        header_ok, events_ok, _ = recorded(SUCCESS)
        _, events_424, _ = recorded(BROKEN_SCHEMA)
        by_input = app.responses.create(model="gpt-5-mini", input=header_ok["request"]["input"])
        assert by_input.id == events_ok[-1]["response"]["id"]
        in_order = [
            app.responses.create(model="gpt-5-mini", input="unrecorded").id for _ in range(3)
        ]
        assert in_order == [
            events_424[-1]["response"]["id"],
            events_ok[-1]["response"]["id"],
            events_424[-1]["response"]["id"],  # after the last, the first again
        ]
    finally:
        served.close()


def test_background_is_retrieved_and_resumed_as_recorded(broken_schema: str):
    _, events, _ = recorded(BROKEN_SCHEMA)
    app = client(broken_schema)
    created = app.responses.create(model="gpt-5-mini", input="hi", background=True)
    assert created.id == events[0]["response"]["id"]
    resumed = app.responses.retrieve(created.id, stream=True, starting_after=40)
    got = [event.model_dump(mode="json", exclude_unset=True) for event in resumed]
    assert got == events[41:]
    retrieved = app.responses.retrieve(created.id)
    assert retrieved.model_dump(mode="json", exclude_unset=True) == events[-1]["response"]


def test_a_background_response_playing_is_cancelled():
    """Played ten times slower than recorded (about 50 s), so it is still going when the
    cancel comes."""
    served = serve(str(BROKEN_SCHEMA), "--speed", "0.1")
    url = next(served)
    try:
        app = client(url)
        created = app.responses.create(model="gpt-5-mini", input="hi", background=True)
        assert created.status == "in_progress"
        assert app.responses.cancel(created.id).status == "cancelled"
        assert app.responses.retrieve(created.id).status == "cancelled"
    finally:
        served.close()


@pytest.mark.parametrize(
    ("content", "said"),
    [
        pytest.param(None, "nothing to serve in missing.jsonl: no such file", id="missing"),
        pytest.param("{}\n", "nothing to serve in given.jsonl: ", id="no-response"),
    ],
)
def test_a_recording_with_nothing_to_serve_is_one_line_and_exit_2(
    tmp_path: Path, content: str | None, said: str
):
    name = "missing.jsonl" if content is None else "given.jsonl"
    if content is not None:
        (tmp_path / name).write_text(content)
    done = forked_cli(["serve", name], tmp_path, timeout=30)
    assert done.returncode == 2
    assert done.stderr.startswith(f"mcptui: {said}")
    assert done.stderr.count("\n") == 1
    assert done.stdout == ""


def test_a_busy_port_is_one_line_and_exit_2(tmp_path: Path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = forked_cli(["serve", str(BROKEN_SCHEMA), "--port", str(port)], tmp_path, timeout=30)
    assert done.returncode == 2
    assert done.stderr == (
        f"mcptui: port {port} is in use: pass --port, or --port 0 for a free one\n"
    )


ARCHIVE = ROOT / "tests" / "fixtures" / "archives" / "test-proxy.json"
"""Three creates: a stream with the 424, a create not streamed, a create refused with HTTP 424."""


def test_an_archive_serves_its_responses_one_per_post():
    from mcptui.io.formats import load_path

    loaded = load_path(str(ARCHIVE))
    streamed = [event.raw for event in loaded.events if not event.is_note]
    plain = next(
        event.raw["response"]
        for event in loaded.events
        if event.is_note and "response" in event.raw
    )
    served = serve(str(ARCHIVE), "--instant")
    url = next(served)
    try:
        app = client(url)
        first = app.responses.create(model="gpt-5-mini", input="unrecorded", stream=True)
        assert [event.model_dump(mode="json", exclude_unset=True) for event in first] == streamed
        second = list(app.responses.create(model="gpt-5-mini", input="unrecorded", stream=True))
        assert [event.type for event in second] == [
            "response.created",
            "response.in_progress",
            *["response.output_item.added", "response.output_item.done"] * len(plain["output"]),
            "response.completed",
        ]
        assert second[-1].model_dump(mode="json", exclude_unset=True)["response"] == plain
        with pytest.raises(openai.APIStatusError) as raised:
            app.responses.create(model="gpt-5-mini", input="unrecorded")
        assert raised.value.status_code == 424
        assert raised.value.body == {
            "message": "Error retrieving tool list from MCP server: 'demo'. "
            "Http status code: 424 (Failed Dependency)",
            "type": "external_connector_error",
            "param": "tools",
            "code": "http_error",
        }
    finally:
        served.close()


def test_a_recorded_stream_cut_short_is_cut_at_the_same_event(tmp_path: Path):
    """No terminal event recorded (the connection dropped): the app gets the events there are,
    then the connection closes mid-body, as it did."""
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(BROKEN_SCHEMA.read_text().splitlines(keepends=True)[:20]))
    _, events, _ = recorded(cut)
    served = serve(str(cut), "--instant")
    url = next(served)
    got: list[dict[str, Any]] = []
    try:
        stream = client(url).responses.create(model="gpt-5-mini", input="hi", stream=True)
        with pytest.raises(openai.APIConnectionError):
            for event in stream:
                got.append(event.model_dump(mode="json", exclude_unset=True))
    finally:
        served.close()
    assert got == events


NODE_SDK_CLIENT = """
const { default: OpenAI } = require(process.argv[1] + "/openai");
const client = new OpenAI({ baseURL: process.argv[2], apiKey: "sk-node-app", maxRetries: 0 });
(async () => {
  const request = { model: "gpt-5-mini", input: process.argv[3] };
  const stream = await client.responses.create({ ...request, stream: true });
  for await (const event of stream) console.log(JSON.stringify(event));
  const response = await client.responses.create(request);
  console.log(JSON.stringify({ nonStreamed: response }));
})().catch((error) => { console.error(String(error)); process.exit(1); });
"""
"""The openai Node SDK (tests/package.json), unmodified: each streamed event as it parsed it,
then the Response of a create that is not streamed."""


def test_the_node_sdk_gets_the_recorded_events_and_response(broken_schema: str):
    header, events, _ = recorded(BROKEN_SCHEMA)
    done = subprocess.run(
        [
            "node",
            "-e",
            NODE_SDK_CLIENT,
            str(ROOT / "tests" / "node_modules"),
            broken_schema,
            header["request"]["input"],
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    *streamed, last = [json.loads(line) for line in done.stdout.splitlines()]
    assert streamed == events
    response = last["nonStreamed"]
    assert response.pop("output_text") == "".join(  # the Node SDK's own convenience field
        part["text"]
        for item in response["output"]
        if item["type"] == "message"
        for part in item["content"]
        if part["type"] == "output_text"
    )
    assert last == {"nonStreamed": events[-1]["response"]}
    failed = [o for o in last["nonStreamed"]["output"] if o["type"] == "mcp_call"]
    assert failed[0]["error"]["code"] == 424


def test_secrets_an_archive_holds_are_never_served(tmp_path: Path):
    """An archive holds what crossed the wire: the app's API key (its `authorization`), echoed
    by the API in a message, and an MCP server's header values in the response's tools. Served,
    none of it reaches the app, streamed, not streamed or refused."""
    key = "sk-proj-ServeLeakCheck0123456789abcdefXYZ"
    mcp_token = "mcp-token-ServeLeak-9f8e7d6c5b4a"
    har = json.loads((ROOT / "tests" / "fixtures" / "archives" / "app.har").read_text())
    for entry in har["log"]["entries"]:
        for header in entry["request"]["headers"]:
            if header["name"] == "authorization":
                header["value"] = f"Bearer {key}"
        content = entry["response"]["content"]
        content["text"] = (
            content.get("text", "")
            .replace('"instructions": null', f'"instructions": "the key was {key}"')
            .replace('"headers": null', json.dumps({"headers": {"Authorization": mcp_token}})[1:-1])
            .replace("Error retrieving tool list", f"Bad key {key}: error retrieving tool list")
        )
    archive = tmp_path / "leaky.har"
    archive.write_text(json.dumps(har))
    assert archive.read_text().count(key) > 3 and mcp_token in archive.read_text()
    served = serve(str(archive), "--instant")
    url = next(served)
    bodies: list[str] = []
    try:
        app = {"authorization": "Bearer sk-app-under-test"}
        with httpx2.Client(base_url=url, headers=app, timeout=30) as http:
            for stream in (True, False, False):
                answer = http.post(
                    "/responses", json={"model": "gpt-5-mini", "input": "x", "stream": stream}
                )
                bodies.append(answer.text)
        assert "response.completed" in bodies[0]
        assert '"object":"response"' in bodies[1].replace(" ", "")
        assert "error retrieving tool list" in bodies[2]
    finally:
        served.close()
    served_text = "".join(bodies)
    assert "the key was" in served_text and "Authorization" in served_text
    assert key not in served_text and key[-12:] not in served_text
    assert mcp_token not in served_text


def test_ctrl_c_stops_it_with_one_line_and_no_traceback():
    import signal

    port = free_port()
    process = subprocess.Popen(
        [str(MCPTUI), "serve", str(BROKEN_SCHEMA), "--port", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # As from a terminal: a suite started in the background may hand its processes Ctrl+C
        # ignored (a clean-clone CI run did), and uvicorn then ends with no KeyboardInterrupt.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stdout is not None
    assert "export OPENAI_BASE_URL=" in process.stdout.readline()  # bound, not yet serving
    answered = httpx2.get(f"http://127.0.0.1:{port}/v1/responses/resp_none", timeout=30)
    assert answered.status_code in (401, 404)  # serving: where a person presses Ctrl+C
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert "Traceback" not in out + err, err
    assert err.rstrip().endswith("mcptui: interrupted")
    assert process.returncode == 130
