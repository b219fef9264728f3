"""bfcl_lab section 7 and scripts/07_real_llm.py: the nine questions through a model's HTTP API, no SDK.

No test leaves 127.0.0.1. FakeAPI below is a small HTTP server that imitates both APIs the way
their documentation writes them:
  POST /v1/messages          Anthropic Messages: content blocks of type "text" and "tool_use"
                             (input an object), stop_reason end_turn / stop_sequence / tool_use /
                             max_tokens; errors {"type": "error", "error": {"type", "message"}}.
  POST /v1/chat/completions  OpenAI Chat Completions: choices[0].message.content, tool_calls whose
                             function.arguments is a JSON *string*, finish_reason stop / tool_calls
                             / length; errors {"error": {"message", "type", ...}}.
It records every request (path, headers, JSON body) so a test can check what went out, and it
answers as a fake model (by default a perfect one: each question's gold call, written by hand
below from the lecture's nine questions) or with the scripted steps a test queues (429, 500,
400, a stall, a body cut short...). Every expected value is read off the API formats, the
lecture's questions or hand computation; retries are timed with an injected sleep, so nothing
here waits on a back-off.
"""
import argparse
import email.utils
import io
import json
import os
import socket
import sys
import threading
import time
import unittest
from contextlib import redirect_stderr, redirect_stdout
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "07_real_llm.py"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # for script_runs, however the tests are started

import bfcl_lab  # noqa: E402
import interfaces  # noqa: E402
import script_runs  # noqa: E402
import tool_core  # noqa: E402
from bfcl_lab import AnthropicBackend, LLMError, OpenAIBackend  # noqa: E402

script_runs.prefetch("07_real_llm.py")  # the table's runs of script 07 start now, in the background
KEY = "sk-test-Zq7DISTINCTIVEkey0xBEEF1234"  # distinctive, so a leak anywhere is found by a plain search

# --- The fake model: each of the nine questions with its gold answer, by hand from the lecture ---

PERFECT = {  # the user turn -> the calls a perfect model makes (name, arguments), or its plain-text answer
    "What is 2 + 3?": [("add", {"a": 2, "b": 3})],  # simple_0 and multiple_0 ask the same
    "Convert 100 degrees Fahrenheit to Celsius.": [("convert_temperature", {"value": 100.0, "from_unit": "fahrenheit",
                                                                            "to_unit": "celsius"})],
    "What's the weather in San Francisco?": [("get_weather", {"city": "San Francisco"})],
    "What is 6 times 7?": [("mult", {"a": 6, "b": 7})],
    "What are (2 + 3) and (4 + 5)?": [("add", {"a": 2, "b": 3}), ("add", {"a": 4, "b": 5})],
    "What is 2 + 3, and what is 4 times 5?": [("add", {"a": 2, "b": 3}), ("mult", {"a": 4, "b": 5})],
    "What is 2 x 3?": "I can only add with these tools, and 2 x 3 is a multiplication.",
    "Will it rain in Paris tomorrow?": "None of these tools gives a forecast, so I cannot tell.",
}
QUESTION_TEXTS = ["What is 2 + 3?", "Convert 100 degrees Fahrenheit to Celsius.", "What's the weather in San Francisco?",
                  "What is 2 + 3?", "What is 6 times 7?", "What are (2 + 3) and (4 + 5)?",
                  "What is 2 + 3, and what is 4 times 5?", "What is 2 x 3?", "Will it rain in Paris tomorrow?"]
# A call cut off at max_tokens: the opening tag and half its JSON, no closing tag.
CUT_CALL = '<tool_call>{"name": "convert_temperature", "arguments": {"value": 100, "from_unit": "fahr'

# The tools block the model must be shown for add (bfcl_schema's translation, by hand: BFCL's
# "dict" is JSON Schema's "object"; every property keeps its description).
ADD_SPEC = {"name": "add", "description": "Add two integers.",
            "parameters": {"type": "object", "properties": {"a": {"type": "integer", "description": "the first number"},
                                                            "b": {"type": "integer", "description": "the second number"}},
                           "required": ["a", "b"]}}
MULT_SPEC = {"name": "mult", "description": "Multiply two integers.",
             "parameters": {"type": "object", "properties": {"a": {"type": "integer", "description": "the first factor"},
                                                             "b": {"type": "integer", "description": "the second factor"}},
                            "required": ["a", "b"]}}


def call_text(name: str, arguments: dict) -> str:
    """Write one call in the text protocol, as the system prompt's call format asks."""
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def perfect(question: str, native: bool) -> tuple[str, list, str]:
    """Answer as the perfect model: (text, native calls, why it stopped: 'end', 'calls' or 'max')."""
    answer = PERFECT[question]
    if isinstance(answer, str):
        return answer, [], "end"
    if native:
        return "", answer, "calls"
    return "\n".join(call_text(n, a) for n, a in answer), [], "end"


def model_saying(replies: dict[str, tuple[str, list, str]]):
    """A fake model that answers some questions as given and the rest perfectly."""
    return lambda question, native: replies.get(question) or perfect(question, native)


# --- The fake server: both APIs on 127.0.0.1 ---

STOPS = {"/v1/messages": {"end": "end_turn", "calls": "tool_use", "max": "max_tokens"},
         "/v1/chat/completions": {"end": "stop", "calls": "tool_calls", "max": "length"}}


def anthropic_reply(model: str, text: str, calls: list, stop: str) -> dict:
    """Write a Messages API response: text and tool_use content blocks."""
    blocks = [{"type": "text", "text": text}] if text else []
    blocks += [{"type": "tool_use", "id": f"toolu_{i:02d}", "name": n, "input": a} for i, (n, a) in enumerate(calls)]
    return {"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": blocks,
            "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 10}}


def openai_reply(model: str, text: str, calls: list, stop: str) -> dict:
    """Write a Chat Completions response: arguments go out as a JSON string, content null when only calls."""
    message = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [{"id": f"call_{i}", "type": "function",
                                  "function": {"name": n, "arguments": json.dumps(a)}} for i, (n, a) in enumerate(calls)]
    return {"id": "chatcmpl-fake", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": stop}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}}


def error_body(path: str, message: str, kind: str = "invalid_request_error") -> dict:
    """Write an error body in the format of the API at this path."""
    if path == "/v1/messages":
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


class Handler(BaseHTTPRequestHandler):
    """Record the request; answer with the next scripted step, or else as the fake model in the path's format."""

    def log_message(self, *args):  # keep the test run quiet
        pass

    def do_POST(self):
        api = self.server.api
        raw = self.rfile.read(int(self.headers.get("content-length", 0)))
        request = {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                   "body": json.loads(raw)}
        api.requests.append(request)
        if self.path not in STOPS:
            return self.send_json(404, error_body(self.path, f"no route {self.path}", "not_found_error"))
        step = api.steps.pop(0) if api.steps else None
        if step is not None:
            return step(self, request)
        messages = request["body"]["messages"]
        question = next(m["content"] for m in reversed(messages) if m["role"] == "user")
        text, calls, stop = api.model(question, "tools" in request["body"])
        write = anthropic_reply if self.path == "/v1/messages" else openai_reply
        self.send_json(200, write(request["body"]["model"], text, calls, STOPS[self.path][stop]))

    def send_json(self, status: int, payload, headers: dict | None = None):
        self.send_raw(status, json.dumps(payload).encode(), headers)

    def send_raw(self, status: int, data: bytes, headers: dict | None = None, length: int | None = None):
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data) if length is None else length))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)


class FakeAPI:
    """Both APIs on 127.0.0.1:<free port>: scripted steps first, then the fake model; every request recorded."""

    def __init__(self, test: unittest.TestCase | None, model=perfect, steps: list | None = None):
        """Start serving until the test ends (test None: until the module's tests end)."""
        self.reset(model, steps)
        self.release = threading.Event()  # wakes a stalled handler when the test ends
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.api = self
        thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        thread.start()
        cleanup = test.addCleanup if test is not None else unittest.addModuleCleanup
        cleanup(thread.join, 2)
        cleanup(self.server.server_close)
        cleanup(self.server.shutdown)
        cleanup(self.release.set)  # runs first (cleanups are last in, first out)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def reset(self, model=perfect, steps: list | None = None) -> "FakeAPI":
        """Forget the requests; answer with these steps, then this model (one server serves a test's subtests)."""
        self.model, self.steps, self.requests = model, list(steps or []), []
        return self


# Scripted steps: each answers one request, in the format of the API that was asked.

def fail(status: int, message: str, headers: dict | None = None, kind: str = "api_error"):
    """An error status with the API's error body (and headers such as Retry-After)."""
    return lambda h, req: h.send_json(status, error_body(req["path"], message, kind), headers)


def echo_headers(status: int = 400):
    """A server that quotes the request headers back in its error message (as some proxies do)."""
    return lambda h, req: h.send_json(status, error_body(req["path"], f"bad request; you sent {req['headers']}"))


def not_json(h, req):
    """A 200 whose body is an HTML page (a proxy's, say), not JSON."""
    h.send_raw(200, b"<html><body>502 Bad Gateway</body></html>")


def stall(h, req):
    """Answer nothing until long after the client has given up."""
    h.server.api.release.wait(5)  # far past the client's timeout; the test's cleanup wakes it


def cut_short(h, req):
    """Promise 1000 bytes of body, send 20, and hang up."""
    h.send_raw(200, b'{"id": "msg_fake", "t', length=1000)
    h.close_connection = True


def closed_port(test: unittest.TestCase) -> int:
    """Return a port on 127.0.0.1 that refuses connections until the test ends: a socket bound to it and never
    listening stays open for the test, so nothing else can take the port meanwhile (a connection is refused at once)."""
    sock = socket.socket()
    test.addCleanup(sock.close)
    sock.bind(("127.0.0.1", 0))
    return sock.getsockname()[1]


def tools_in(system: str) -> list[dict]:
    """Read the tools block of a system prompt: one JSON object per line between <tools> and </tools>."""
    block = system.split("<tools>\n", 1)[1].split("</tools>", 1)[0]
    return [json.loads(line) for line in block.splitlines()]


def without_tools(system: str) -> str:
    """The system prompt with the tools block emptied (the format and rules around it)."""
    head, rest = system.split("<tools>\n", 1)
    return head + "<tools>\n" + rest[rest.index("</tools>"):]


def row(table: str, qid: str) -> str:
    """The table row of one question in demo_real's output."""
    return next(line for line in table.splitlines() if line.split() and line.split()[0] == qid)


class Sleeps(list):
    """An injected sleep: records each wait instead of waiting."""

    def __call__(self, seconds: float):
        self.append(seconds)


# ---------------------------------------------------------------------------------------------

class SchemaTranslation(unittest.TestCase):
    """bfcl_schema: BFCL's Python type names -> JSON Schema; the tools a model is shown."""

    def test_types(self):
        table = [  # (BFCL parameter document, JSON Schema)
            ({"type": "dict", "properties": {}, "required": []}, {"type": "object", "properties": {}, "required": []}),
            ({"type": "float", "description": "degrees"}, {"type": "number", "description": "degrees"}),
            ({"type": "integer"}, {"type": "integer"}),
            ({"type": "string", "enum": ["c", "f"], "default": "f"}, {"type": "string", "enum": ["c", "f"], "default": "f"}),
            ({"type": "boolean"}, {"type": "boolean"}),
            ({"type": "array", "items": {"type": "float"}}, {"type": "array", "items": {"type": "number"}}),
            ({"type": "tuple", "items": {"type": "integer"}}, {"type": "array", "items": {"type": "integer"}}),
            ({"type": "any", "description": "anything"}, {"description": "anything"}),  # no type: any value
            ({"type": "dict", "properties": {"p": {"type": "dict", "properties": {"x": {"type": "float"}},
                                                   "required": ["x"]}}},
             {"type": "object", "properties": {"p": {"type": "object", "properties": {"x": {"type": "number"}},
                                                     "required": ["x"]}}, "required": []}),
            (bfcl_lab.ADD["parameters"], ADD_SPEC["parameters"]),
        ]
        for bfcl, schema in table:
            with self.subTest(bfcl=bfcl):
                self.assertEqual(bfcl_lab.bfcl_schema(bfcl), schema)

    def test_unknown_type_is_a_value_error(self):
        for bfcl in ({"type": "number"}, {"type": "datetime"}, {"description": "no type at all"},
                     {"type": "dict", "properties": {"when": {"type": "date"}}},
                     {"type": "array", "items": {"type": "object"}}):
            with self.subTest(bfcl=bfcl), self.assertRaises(ValueError):
                bfcl_lab.bfcl_schema(bfcl)

    def test_tools_run_the_registry_functions(self):
        add, mult = bfcl_lab.bfcl_tools([bfcl_lab.ADD, bfcl_lab.MULT])
        self.assertEqual([add.spec(), mult.spec()], [ADD_SPEC, MULT_SPEC])
        self.assertEqual((add.fn(a=2, b=3), mult.fn(a=6, b=7)), (5, 42))


class AnthropicRequests(unittest.TestCase):
    """What goes out to /v1/messages, and how the reply is read."""

    def test_text_protocol_request(self):
        api = FakeAPI(self)
        backend = AnthropicBackend(KEY, "claude-test-model", api.base, max_tokens=77)
        bfcl_lab.ask_model(backend)
        self.assertEqual(len(api.requests), 9)
        first = api.requests[0]
        self.assertEqual(first["path"], "/v1/messages")
        self.assertEqual((first["headers"]["x-api-key"], first["headers"]["anthropic-version"],
                          first["headers"]["content-type"]), (KEY, "2023-06-01", "application/json"))
        self.assertNotIn("authorization", first["headers"])
        body = first["body"]
        self.assertEqual(set(body), {"model", "max_tokens", "system", "messages", "stop_sequences"})  # no tools
        self.assertEqual((body["model"], body["max_tokens"], body["stop_sequences"]),
                         ("claude-test-model", 77, ["<tool_result"]))
        self.assertEqual(body["messages"], [{"role": "user", "content": "What is 2 + 3?"}])
        self.assertEqual(without_tools(body["system"]), tool_core.render_tool_prompt([]))
        self.assertEqual(tools_in(body["system"]), [ADD_SPEC])
        for request, text in zip(api.requests, QUESTION_TEXTS):
            with self.subTest(question=text):
                self.assertEqual(request["body"]["messages"][-1]["content"], text)

    def test_tools_block_per_question(self):
        api = FakeAPI(self)
        bfcl_lab.ask_model(AnthropicBackend(KEY, base_url=api.base + "/"))
        table = {0: [ADD_SPEC], 4: [ADD_SPEC, MULT_SPEC], 5: [ADD_SPEC]}  # request index -> the tools it shows
        for i, specs in table.items():
            with self.subTest(question=QUESTION_TEXTS[i]):
                self.assertEqual(tools_in(api.requests[i]["body"]["system"]), specs)

    def test_default_model_is_the_constant(self):
        api = FakeAPI(self)
        AnthropicBackend(KEY, base_url=api.base).complete("s", "What is 2 + 3?")
        self.assertEqual(api.requests[0]["body"]["model"], bfcl_lab.ANTHROPIC_MODEL)
        self.assertEqual(api.requests[0]["body"]["max_tokens"], 512)

    def test_native_request_sends_the_vendor_tools(self):
        api = FakeAPI(self)
        bfcl_lab.ask_model(AnthropicBackend(KEY, base_url=api.base), interfaces.Anthropic())
        tools = api.requests[4]["body"]["tools"]  # multiple_1: add and mult
        self.assertEqual(tools, [{"name": "add", "description": "Add two integers.", "input_schema": ADD_SPEC["parameters"]},
                                 {"name": "mult", "description": "Multiply two integers.",
                                  "input_schema": MULT_SPEC["parameters"]}])
        dialect = interfaces.Anthropic()
        self.assertEqual(tools, [dialect.tool(t) for t in bfcl_lab.bfcl_tools([bfcl_lab.ADD, bfcl_lab.MULT])])

    def test_reading_replies(self):
        table = [  # (content blocks, stop_reason, tools sent?) -> Reply fields (text, calls, stop, truncated)
            ([{"type": "text", "text": "Hi"}], "end_turn", False, ("Hi", None, "end_turn", False)),
            ([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "stop_sequence", False,
             ("ab", None, "stop_sequence", False)),
            ([{"type": "text", "text": CUT_CALL}], "max_tokens", False, (CUT_CALL, None, "max_tokens", True)),
            ([{"type": "text", "text": "Let me add."},
              {"type": "tool_use", "id": "t1", "name": "add", "input": {"a": 2, "b": 3}}], "tool_use", True,
             ("Let me add.", [{"add": {"a": 2, "b": 3}}], "tool_use", False)),
            ([{"type": "text", "text": "No tool fits."}], "end_turn", True, ("No tool fits.", [], "end_turn", False)),
        ]
        api = FakeAPI(self)
        for blocks, stop, native, expected in table:
            with self.subTest(blocks=blocks, stop=stop):
                api.reset(steps=[lambda h, req, b=blocks, s=stop: h.send_json(
                    200, {"type": "message", "role": "assistant", "content": b, "stop_reason": s})])
                tools = [{"name": "add", "description": "", "input_schema": {"type": "object"}}] if native else None
                reply = AnthropicBackend(KEY, base_url=api.base).complete("s", "u", tools)
                self.assertEqual((reply.text, reply.calls, reply.stop_reason, reply.truncated), expected)

    def test_no_key(self):
        for key in ("", None):
            with self.subTest(key=key), self.assertRaises(LLMError) as caught:
                AnthropicBackend(key)
            self.assertIn("ANTHROPIC_API_KEY", str(caught.exception))


class OpenAIRequests(unittest.TestCase):
    """What goes out to /v1/chat/completions, and how the reply is read."""

    def test_the_url_is_the_base_and_chat_completions_as_the_sdks_build_it(self):
        # the official SDKs post to base_url + "/chat/completions": the base holds the version, whatever it is
        table = [("http://h:1/v1", "http://h:1/v1/chat/completions"), ("http://h:1/v1/", "http://h:1/v1/chat/completions"),
                 ("https://generativelanguage.googleapis.com/v1beta/openai/",
                  "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions"),
                 ("https://open.bigmodel.cn/api/paas/v4", "https://open.bigmodel.cn/api/paas/v4/chat/completions"),
                 ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1/chat/completions"),
                 ("http://h:1", "http://h:1/chat/completions")]
        for base, url in table:
            with self.subTest(base=base):
                self.assertEqual(OpenAIBackend(base).url, url)
        self.assertEqual(OpenAIBackend().url, "https://api.openai.com/v1/chat/completions")
        self.assertEqual(AnthropicBackend(KEY).url, "https://api.anthropic.com/v1/messages")
        self.assertEqual(AnthropicBackend(KEY, base_url="http://proxy:8/anthropic/").url, "http://proxy:8/anthropic/v1/messages")

    def test_text_protocol_request(self):
        api = FakeAPI(self)
        bfcl_lab.ask_model(OpenAIBackend(api.base + "/v1", KEY, "local-model", max_tokens=64))
        self.assertEqual(len(api.requests), 9)
        first = api.requests[0]
        self.assertEqual(first["path"], "/v1/chat/completions")
        self.assertEqual(first["headers"]["authorization"], f"Bearer {KEY}")
        self.assertNotIn("x-api-key", first["headers"])
        body = first["body"]
        self.assertEqual(set(body), {"model", "max_tokens", "stop", "messages"})
        self.assertEqual((body["model"], body["max_tokens"], body["stop"]), ("local-model", 64, ["<tool_result"]))
        system, user = body["messages"]
        self.assertEqual((system["role"], user), ("system", {"role": "user", "content": "What is 2 + 3?"}))
        self.assertEqual(without_tools(system["content"]), tool_core.render_tool_prompt([]))
        self.assertEqual(tools_in(system["content"]), [ADD_SPEC])

    def test_no_key_no_authorization_header(self):
        api = FakeAPI(self)
        for key in (None, ""):
            with self.subTest(key=key):
                api.reset()
                OpenAIBackend(api.base + "/v1", key).complete("s", "What is 2 + 3?")
                self.assertNotIn("authorization", api.requests[0]["headers"])
                self.assertEqual(api.requests[0]["body"]["model"], bfcl_lab.OPENAI_MODEL)

    def test_native_request_sends_the_vendor_tools(self):
        api = FakeAPI(self)
        bfcl_lab.ask_model(OpenAIBackend(api.base + "/v1"), interfaces.OpenAI())
        tools = api.requests[6]["body"]["tools"]  # parallel_multiple_0: add and mult
        self.assertEqual(tools, [{"type": "function", "function": {"name": "add", "description": "Add two integers.",
                                                                   "parameters": ADD_SPEC["parameters"]}},
                                 {"type": "function", "function": {"name": "mult", "description": "Multiply two integers.",
                                                                   "parameters": MULT_SPEC["parameters"]}}])
        dialect = interfaces.OpenAI()
        self.assertEqual(tools, [dialect.tool(t) for t in bfcl_lab.bfcl_tools([bfcl_lab.ADD, bfcl_lab.MULT])])

    def test_reading_replies(self):
        table = [  # (message, finish_reason, tools sent?) -> Reply fields (text, calls, stop, truncated)
            ({"role": "assistant", "content": "Hi"}, "stop", False, ("Hi", None, "stop", False)),
            ({"role": "assistant", "content": CUT_CALL}, "length", False, (CUT_CALL, None, "length", True)),
            ({"role": "assistant", "content": None, "tool_calls": [
                {"id": "c0", "type": "function", "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'}}]},
             "tool_calls", True, ("", [{"add": {"a": 2, "b": 3}}], "tool_calls", False)),  # read by interfaces.OpenAI
            ({"role": "assistant", "content": None, "tool_calls": [
                {"id": "c0", "type": "function", "function": {"name": "add", "arguments": ""}}]},
             "tool_calls", True, ("", [{"add": {}}], "tool_calls", False)),  # "" is no arguments, as the SDKs read it
            ({"role": "assistant", "content": "No tool fits.", "tool_calls": None}, "stop", True,
             ("No tool fits.", [], "stop", False)),
        ]
        api = FakeAPI(self)
        for message, stop, native, expected in table:
            with self.subTest(message=message):
                api.reset(steps=[lambda h, req, m=message, s=stop: h.send_json(
                    200, {"object": "chat.completion", "choices": [{"index": 0, "message": m, "finish_reason": s}]})])
                tools = [{"type": "function", "function": {"name": "add", "parameters": {}}}] if native else None
                reply = OpenAIBackend(api.base + "/v1").complete("s", "u", tools)
                self.assertEqual((reply.text, reply.calls, reply.stop_reason, reply.truncated), expected)


class NativeControls(unittest.TestCase):
    """tool_choice and parallel-call control in each vendor's own form; replies no reader expected (issue 21, item 2)."""

    TOOLS = {"anthropic": [{"name": "add", "description": "", "input_schema": {"type": "object"}}],
             "openai": [{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}]}

    def sent(self, vendor: str, **controls) -> dict:
        if not hasattr(self, "api"):
            self.api = FakeAPI(self)  # one server for every subtest: reset() forgets the requests
        api = self.api.reset(steps=[lambda h, req: h.send_json(200, anthropic_reply("m", "ok", [], "end_turn")
                                                               if vendor == "anthropic" else openai_reply("m", "ok", [], "stop"))])
        backend = (AnthropicBackend(KEY, base_url=api.base) if vendor == "anthropic" else OpenAIBackend(api.base + "/v1"))
        backend.complete("s", "u", self.TOOLS[vendor], **controls)
        return {k: v for k, v in api.requests[0]["body"].items() if k in ("tool_choice", "parallel_tool_calls")}

    def test_each_choice_in_each_vendors_form(self):
        # from the vendors' API references: Anthropic's tool_choice is an object {type: auto|any|none|tool, name?,
        # disable_parallel_tool_use?}; OpenAI's a string auto|required|none or {type: function, function: {name}},
        # with parallel_tool_calls beside it
        table = [
            ({}, {}, {}),  # nothing asked for: nothing sent, each API's default (auto, parallel allowed)
            ({"tool_choice": "auto"}, {"tool_choice": {"type": "auto"}}, {"tool_choice": "auto"}),
            ({"tool_choice": "required"}, {"tool_choice": {"type": "any"}}, {"tool_choice": "required"}),
            ({"tool_choice": "any"}, {"tool_choice": {"type": "any"}}, {"tool_choice": "required"}),
            ({"tool_choice": "none"}, {"tool_choice": {"type": "none"}}, {"tool_choice": "none"}),
            ({"tool_choice": {"name": "add"}}, {"tool_choice": {"type": "tool", "name": "add"}},
             {"tool_choice": {"type": "function", "function": {"name": "add"}}}),
            ({"parallel": False}, {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}},
             {"tool_choice": "auto", "parallel_tool_calls": False}),
            ({"tool_choice": "required", "parallel": True},
             {"tool_choice": {"type": "any", "disable_parallel_tool_use": False}},
             {"tool_choice": "required", "parallel_tool_calls": True}),
            ({"tool_choice": "none", "parallel": False}, {"tool_choice": {"type": "none"}},
             {"tool_choice": "none", "parallel_tool_calls": False}),
        ]
        for controls, anthropic, openai in table:
            for vendor, expected in (("anthropic", anthropic), ("openai", openai)):
                with self.subTest(vendor=vendor, **{k: str(v) for k, v in controls.items()}):
                    self.assertEqual(self.sent(vendor, **controls), expected)

    def test_an_unknown_choice_is_a_clear_error_before_anything_is_sent(self):
        for bad in ("sometimes", {"type": "tool"}, {"name": 3}, 7):
            for dialect in (interfaces.Anthropic(), interfaces.OpenAI()):
                with self.subTest(bad=bad, dialect=dialect.name), self.assertRaisesRegex(ValueError, "unknown tool_choice"):
                    dialect.tool_choice(bad)
        with self.assertRaisesRegex(ValueError, "need a dialect"):
            bfcl_lab.ask_model(bfcl_lab.ToyBackend(), None, tool_choice="required")

    def test_a_custom_tool_call_is_a_malformed_call_not_a_crash(self):
        # OpenAI's specification allows {"type": "custom", "custom": {"name", "input"}} among tool_calls
        message = {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "custom", "custom": {"name": "add", "input": "2 + 3"}},
            {"id": "c2", "type": "function", "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'}}]}
        api = FakeAPI(self, steps=[lambda h, req: h.send_json(200, {"choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls"}]})])
        reply = OpenAIBackend(api.base + "/v1").complete("s", "u", self.TOOLS["openai"])
        custom, good = reply.calls
        self.assertIsInstance(custom, tool_core.ParseError)
        self.assertIn("custom tool call", custom.message)
        self.assertEqual(good, {"add": {"a": 2, "b": 3}})
        self.assertEqual(bfcl_lab.decode_result(reply.calls)[0], None)  # graded as a malformed reply, not as no call
        self.assertIn("malformed call (bad_arguments", bfcl_lab.decode_result(reply.calls)[1])

    def test_replies_no_reader_expected_are_llm_errors(self):
        bodies = [{"choices": []}, {"choices": "x"}, {"choices": [3]}, {"id": "x"}]
        for body in bodies:
            with self.subTest(body=body):
                api = FakeAPI(self, steps=[lambda h, req, b=body: h.send_json(200, b)])
                with self.assertRaisesRegex(LLMError, "without a choice"):
                    OpenAIBackend(api.base + "/v1").complete("s", "u", self.TOOLS["openai"])
        api = FakeAPI(self, steps=[lambda h, req: h.send_json(200, {"content": "not blocks", "stop_reason": 5})])
        reply = AnthropicBackend(KEY, base_url=api.base).complete("s", "u")  # a string content is one text block
        self.assertEqual((reply.text, reply.stop_reason), ("not blocks", 5))

    def test_pause_turn_is_said_not_taken_for_a_finished_reply(self):
        api = FakeAPI(self, steps=[lambda h, req: h.send_json(200, anthropic_reply("m", "Searching", [], "pause_turn"))])
        reply = AnthropicBackend(KEY, base_url=api.base).complete("s", "u")
        self.assertTrue(reply.paused)
        self.assertIn("pause_turn", reply.note())
        self.assertIn("stopped a long turn midway", reply.note())


class Failures(unittest.TestCase):
    """HTTPBackend.post: retry 429 and 5xx with back-off (Retry-After honoured), a clear LLMError otherwise."""

    def backends(self, api, sleeps, **options):
        return [AnthropicBackend(KEY, base_url=api.base, sleep=sleeps, **options),
                OpenAIBackend(api.base + "/v1", KEY, sleep=sleeps, **options)]

    def test_retried_then_success(self):
        table = [  # (failures before the answer, sleeps expected: Retry-After, else 0.5 * 2**attempt)
            ([fail(429, "rate limited", {"retry-after": "2"})], [2.0]),
            ([fail(429, "rate limited", {"retry-after": "0.25"})], [0.25]),
            ([fail(429, "rate limited")], [0.5]),
            ([fail(500, "internal error")], [0.5]),
            ([fail(529, "overloaded", kind="overloaded_error")], [0.5]),  # Anthropic's overload status
            ([fail(503, "busy"), fail(502, "bad gateway"), fail(500, "oops")], [0.5, 1.0, 2.0]),
            ([fail(503, "busy", {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})], [0.5]),  # a date: back-off
        ]
        api = FakeAPI(self)
        for steps, waits in table:
            for i in range(2):
                sleeps = Sleeps()
                api.reset(steps=steps)
                backend = self.backends(api, sleeps)[i]
                with self.subTest(api=type(backend).__name__, steps=len(steps), waits=waits):
                    reply = backend.complete("s", "What is 6 times 7?")
                    self.assertEqual(reply.text, call_text("mult", {"a": 6, "b": 7}))
                    self.assertEqual(sleeps, waits)
                    self.assertEqual(len(api.requests), len(steps) + 1)

    def test_failing_every_time(self):
        table = [(500, "internal error", 3, [0.5, 1.0, 2.0]), (429, "slow down", 3, [0.5, 1.0, 2.0]),
                 (503, "busy", 1, [0.5]), (500, "internal error", 0, [])]  # (status, message, retries, sleeps)
        api = FakeAPI(self)
        for status, message, retries, waits in table:
            for i in range(2):
                sleeps = Sleeps()
                api.reset(steps=[fail(status, message)] * (retries + 1))
                backend = self.backends(api, sleeps, retries=retries)[i]
                with self.subTest(api=type(backend).__name__, status=status, retries=retries):
                    with self.assertRaises(LLMError) as caught:
                        backend.complete("s", "What is 2 + 3?")
                    self.assertIn(f"HTTP {status}", str(caught.exception))
                    self.assertIn(message, str(caught.exception))
                    self.assertEqual((len(api.requests), sleeps), (retries + 1, waits))

    def test_client_errors_are_not_retried(self):
        table = [(400, "max_tokens: must be greater than or equal to 1"), (401, "invalid x-api-key"),
                 (404, "model: claude-nope not found"), (413, "request too large")]
        api = FakeAPI(self)
        for status, message in table:
            for i in range(2):
                sleeps = Sleeps()
                api.reset(steps=[fail(status, message, kind="invalid_request_error")])
                backend = self.backends(api, sleeps)[i]
                with self.subTest(api=type(backend).__name__, status=status):
                    with self.assertRaises(LLMError) as caught:
                        backend.complete("s", "What is 2 + 3?")
                    self.assertIn(f"HTTP {status}", str(caught.exception))
                    self.assertIn(message, str(caught.exception))  # the API's own words reach the reader
                    self.assertEqual((len(api.requests), sleeps), (1, []))

    def test_the_api_message_in_each_error_format(self):
        table = [  # (error body as the server writes it, the message the reader must see)
            ({"type": "error", "error": {"type": "invalid_request_error", "message": "messages: field required"}},
             "messages: field required"),  # Anthropic
            ({"error": {"message": "Invalid value for 'stop'", "type": "invalid_request_error", "param": "stop",
                        "code": None}}, "Invalid value for 'stop'"),  # OpenAI
            ({"error": "model 'llama9' not found, try pulling it first"},
             "model 'llama9' not found, try pulling it first"),  # Ollama: the error is a plain string
            ({"object": "error", "message": "max_tokens is too large", "type": "BadRequestError", "code": 400},
             "max_tokens is too large"),  # vLLM: the message at the top level
            (b"Bad Request: malformed JSON", "Bad Request: malformed JSON"),  # a proxy's plain text
        ]
        api = FakeAPI(self)
        for body, message in table:
            with self.subTest(message=message):
                write = (lambda h, req, b=body: h.send_raw(400, b)) if isinstance(body, bytes) else \
                    (lambda h, req, b=body: h.send_json(400, b))
                backend = OpenAIBackend(api.reset(steps=[write]).base + "/v1", sleep=Sleeps())
                with self.assertRaises(LLMError) as caught:
                    backend.complete("s", "u")
                self.assertEqual(str(caught.exception), f"HTTP 400 from {backend.url}: {message}")

    # Was a bug (fixed): HTTPBackend.post retries every status >= 500, 501 Not Implemented included (3 retries, 3.5 s of
    # back-off for an answer that cannot change); tool_core.is_retryable, the project's own rule, says
    # "5xx can (not 501 Not Implemented)", and llama.cpp's server answers 501 for a feature it lacks.
    def test_501_is_not_retried(self):
        sleeps = Sleeps()
        api = FakeAPI(self, steps=[fail(501, "tools are not supported by this server")] * 4)
        with self.assertRaises(LLMError):
            OpenAIBackend(api.base + "/v1", sleep=sleeps).complete("s", "What is 2 + 3?")
        self.assertEqual((len(api.requests), sleeps), (1, []))

    def test_the_key_never_appears_in_an_error(self):
        api = FakeAPI(self)
        for i in range(2):
            api.reset(steps=[echo_headers(400)])
            backend = self.backends(api, Sleeps())[i]
            with self.subTest(api=type(backend).__name__):
                with self.assertRaises(LLMError) as caught:
                    backend.complete("s", "What is 2 + 3?")
                sent = api.requests[0]["headers"]
                self.assertIn(KEY, sent.get("x-api-key", "") + sent.get("authorization", ""))  # the server did see it
                self.assertIn("HTTP 400", str(caught.exception))
                self.assertIn("[redacted]", str(caught.exception))
                self.assertNotIn(KEY, str(caught.exception))
                self.assertNotIn(KEY[:12], str(caught.exception))

    # Was a bug (fixed): HTTPBackend._api_message cuts a non-JSON error body at 300 characters *before* _clean looks for
    # the key, so a key that straddles character 300 is no longer whole and its first part goes out
    # unredacted (here the first 17 of its 34 characters).
    def test_no_part_of_the_key_in_a_cut_plain_text_error(self):
        def plain_echo(h, req):
            h.send_raw(400, ("x-api-key:" + " " * (290 - len(KEY) // 2) + KEY).encode())
        api = FakeAPI(self, steps=[plain_echo])
        with self.assertRaises(LLMError) as caught:
            AnthropicBackend(KEY, base_url=api.base, sleep=Sleeps()).complete("s", "u")
        self.assertNotIn(KEY[:len(KEY) // 2], str(caught.exception))

    def test_a_stalled_server_times_out(self):
        # the timeout lives in HTTPBackend.post, shared by both APIs: one API suffices (and saves the wait)
        sleeps = Sleeps()
        api = FakeAPI(self, steps=[stall, stall])
        backend = OpenAIBackend(api.base + "/v1", KEY, timeout=0.05, retries=1, sleep=sleeps)
        with self.assertRaises(LLMError) as caught:
            backend.complete("s", "What is 2 + 3?")
        self.assertIn(f"could not get an answer from {backend.url}: timed out", str(caught.exception))
        deadline = time.monotonic() + 5  # the server may read the second request after the client gave up on it
        while len(api.requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertEqual((len(api.requests), sleeps), (2, [0.5]))  # a timeout is retried, as the SDKs do

    def test_a_body_that_is_not_json(self):
        api = FakeAPI(self)
        for i in range(2):
            sleeps = Sleeps()
            backend = self.backends(api.reset(steps=[not_json]), sleeps)[i]
            with self.subTest(api=type(backend).__name__):
                with self.assertRaises(LLMError) as caught:
                    backend.complete("s", "What is 2 + 3?")
                self.assertIn(f"{backend.url} answered with something that is not JSON", str(caught.exception))
                self.assertEqual((len(api.requests), sleeps), (1, []))

    def test_connection_refused(self):
        port = closed_port(self)  # a short timeout, should a refusal ever turn into a wait
        for backend in (AnthropicBackend(KEY, base_url=f"http://127.0.0.1:{port}", timeout=2, sleep=Sleeps()),
                        OpenAIBackend(f"http://127.0.0.1:{port}/v1", KEY, timeout=2, sleep=Sleeps())):
            with self.subTest(api=type(backend).__name__):
                with self.assertRaises(LLMError) as caught:
                    backend.complete("s", "u")
                self.assertIn(f"could not get an answer from {backend.url}", str(caught.exception))
                self.assertIn("refused", str(caught.exception))
                self.assertEqual(backend.sleep, [])

    # Was a bug (fixed): a body cut short (Content-Length promised, connection closed) raises http.client.IncompleteRead,
    # an HTTPException and not an OSError, so it escapes post() as a raw exception instead of an LLMError,
    # and scripts/07_real_llm.py prints a traceback.
    def test_a_body_cut_short_is_an_llm_error(self):
        api, sleeps = FakeAPI(self, steps=[cut_short, cut_short]), Sleeps()
        with self.assertRaises(LLMError):
            AnthropicBackend(KEY, base_url=api.base, retries=1, sleep=sleeps).complete("s", "u")
        self.assertEqual((len(api.requests), sleeps), (2, [0.5]))  # a dropped connection is retried, as the SDKs do

    def test_a_body_cut_short_once_is_retried_to_success(self):
        api = FakeAPI(self, steps=[cut_short])
        reply = AnthropicBackend(KEY, base_url=api.base, sleep=Sleeps()).complete("s", "What is 2 + 3?")
        self.assertEqual(len(api.requests), 2)
        self.assertIn("<tool_call>", reply.text)  # the fake model's answer, read whole on the second try

    # Was a bug (fixed): a 200 whose JSON is not an object (a list, a string, null: a misconfigured proxy or server) reaches
    # data.get(...) in complete() and raises AttributeError, not an LLMError; the script prints a traceback.
    def test_json_that_is_not_an_object_is_an_llm_error(self):
        api = FakeAPI(self)
        for payload in ([], "ok", None):
            for path_backend in ("anthropic", "openai"):
                with self.subTest(payload=payload, api=path_backend):
                    api.reset(steps=[lambda h, req, p=payload: h.send_json(200, p)])
                    backend = (AnthropicBackend(KEY, base_url=api.base) if path_backend == "anthropic"
                               else OpenAIBackend(api.base + "/v1"))
                    with self.assertRaises(LLMError):
                        backend.complete("s", "u")


class Grading(unittest.TestCase):
    """demo_real: the answers that come back over HTTP are graded by the same AST and execution graders."""

    def backends(self, api):
        return [AnthropicBackend(KEY, base_url=api.base, sleep=Sleeps()), OpenAIBackend(api.base + "/v1", sleep=Sleeps())]

    def test_a_perfect_model_gets_nine_of_nine(self):
        dialects = {AnthropicBackend: interfaces.Anthropic(), OpenAIBackend: interfaces.OpenAI()}
        api = FakeAPI(self)
        for native in (False, True):
            for i in range(2):
                backend = self.backends(api.reset())[i]
                dialect = dialects[type(backend)] if native else None
                with self.subTest(api=type(backend).__name__, native=native):
                    out = bfcl_lab.demo_real(backend, dialect)
                    self.assertIn("AST 9/9, execution 9/9.", out)
                    mode = "native tool calling" if native else "the text protocol"
                    self.assertEqual(out.splitlines()[0], f"Model: {backend.model}, through {mode}. No SDK to install: a real API "
                                              "is called with plain HTTP (urllib).")  # the handout: pip install
                    self.assertEqual(["tools" in r["body"] for r in api.requests], [native] * 9)
                    # the 'what came back' column: the calls' form, or plain text read as no call
                    how = "function-calling list" if native else "text protocol"
                    self.assertEqual(row(out, "parallel_0").split(), ["parallel_0", "pass", "pass", *how.split()])
                    self.assertTrue(row(out, "irrelevance_0").endswith(
                        "no call (no tool call in the reply)" if native else "no call (plain text)"))

    def test_two_calls_in_one_reply(self):
        """parallel_0 answered with two calls in one reply: text blocks, tool_use blocks, tool_calls."""
        tools = bfcl_lab.bfcl_tools([bfcl_lab.ADD])
        system, truth = tool_core.render_tool_prompt(tools), [{"add": {"a": [2], "b": [3]}}, {"add": {"a": [4], "b": [5]}}]
        api = FakeAPI(self)
        for native in (False, True):
            for i in range(2):
                backend = self.backends(api)[i]
                dialect = (interfaces.Anthropic() if i == 0 else interfaces.OpenAI()) if native else None
                with self.subTest(api=type(backend).__name__, native=native):
                    reply = backend.complete(system, "What are (2 + 3) and (4 + 5)?",
                                             [dialect.tool(t) for t in tools] if native else None)
                    decoded, how = bfcl_lab.decode_result(reply.calls or reply.text)
                    self.assertEqual(decoded, [{"add": {"a": 2, "b": 3}}, {"add": {"a": 4, "b": 5}}])
                    self.assertTrue(bfcl_lab.ast_grade([bfcl_lab.ADD], truth, decoded, "parallel").valid)
                    self.assertTrue(bfcl_lab.exec_grade(truth, decoded, "parallel").valid)

    def test_a_reply_cut_at_max_tokens_is_a_malformed_call(self):
        cut = {"Convert 100 degrees Fahrenheit to Celsius.": (CUT_CALL, [], "max")}
        api = FakeAPI(self, model=model_saying(cut))
        for i in range(2):
            backend = self.backends(api)[i]
            with self.subTest(api=type(backend).__name__):
                out = bfcl_lab.demo_real(backend)
                line = row(out, "simple_1")
                # BFCL's error types ast_decoder:decoder_failed and exec:decoder_failed, shown by their last part
                self.assertEqual(line.split(), ["simple_1", "FAIL", "decoder_failed", "FAIL", "decoder_failed",
                                                "malformed", "call", "(truncated)", "(cut", "at", "max_tokens)"])
                self.assertNotIn("no call", line)
                self.assertIn("AST 8/9, execution 8/9.", out)

    def test_native_replies_graded_like_text(self):
        """A wrong native call fails the same way a wrong text call does: multiple_1 answered with add(35, 7)."""
        wrong = {"What is 6 times 7?": ("", [("add", {"a": 35, "b": 7})], "calls")}
        api = FakeAPI(self, model=model_saying(wrong))
        for dialect in (interfaces.Anthropic(), interfaces.OpenAI()):
            backend = (AnthropicBackend(KEY, base_url=api.base) if isinstance(dialect, interfaces.Anthropic)
                       else OpenAIBackend(api.base + "/v1"))
            with self.subTest(api=dialect.name):
                out = bfcl_lab.demo_real(backend, dialect)
                # AST: add is the wrong function; execution: 35 + 7 = 42 = 6 x 7, a pass by coincidence
                self.assertEqual(row(out, "multiple_1").split()[1:4], ["FAIL", "wrong_func_name", "pass"])
                self.assertIn("AST 8/9, execution 9/9.", out)

    def test_the_toy_is_model_a(self):
        out = bfcl_lab.demo_real(bfcl_lab.ToyBackend())
        # model A (demo 1): simple_2's spelling fails AST only; irrelevance_1's call fails both
        self.assertIn("AST 7/9, execution 8/9.", out)
        self.assertEqual(row(out, "simple_2").split()[1:4], ["FAIL", "string", "pass"])
        self.assertEqual(row(out, "irrelevance_1").split()[1:5], ["FAIL", "decoder_success", "FAIL", "called"])


def load_script():
    """Import scripts/07_real_llm.py as a module (its name starts with a digit), without running main()."""
    return script_runs.load_script("07_real_llm.py")


class ScriptInProcess(unittest.TestCase):
    """The script's choice of back-end, and its Anthropic path (which has no --base-url) against the fake server."""

    def setUp(self):
        self.script = load_script()
        env = mock.patch.dict(os.environ)
        env.start()
        self.addCleanup(env.stop)
        for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"):
            os.environ.pop(name, None)

    def test_backend_for(self):
        local = "http://127.0.0.1:9/v1"
        table = [  # (flags, environment) -> (back-end class, model, url, key sent, timeout, max_tokens)
            ({}, {}, None),  # offline: the script starts the stand-in
            ({"toy": True}, {"ANTHROPIC_API_KEY": KEY}, None),
            ({}, {"ANTHROPIC_API_KEY": ""}, None),
            ({}, {"ANTHROPIC_API_KEY": KEY},
             (AnthropicBackend, bfcl_lab.ANTHROPIC_MODEL, "https://api.anthropic.com/v1/messages", KEY, 60.0, 512)),
            ({"model": "claude-x", "timeout": 5.0, "max_tokens": 10}, {"ANTHROPIC_API_KEY": KEY},
             (AnthropicBackend, "claude-x", "https://api.anthropic.com/v1/messages", KEY, 5.0, 10)),
            ({"base_url": local}, {"ANTHROPIC_API_KEY": KEY},  # --base-url wins, and the Anthropic key stays home
             (OpenAIBackend, bfcl_lab.OPENAI_MODEL, local + "/chat/completions", "", 60.0, 512)),
            ({"base_url": local, "model": "qwen"}, {"OPENAI_API_KEY": KEY},
             (OpenAIBackend, "qwen", local + "/chat/completions", KEY, 60.0, 512)),
            # the SDKs' environment: a key alone points at the vendor's own base; *_BASE_URL moves it
            ({}, {"OPENAI_API_KEY": KEY},
             (OpenAIBackend, bfcl_lab.OPENAI_MODEL, "https://api.openai.com/v1/chat/completions", KEY, 60.0, 512)),
            ({}, {"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"},
             (OpenAIBackend, bfcl_lab.OPENAI_MODEL, "http://127.0.0.1:11434/v1/chat/completions", "", 60.0, 512)),
            ({}, {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9/proxy"},
             (AnthropicBackend, bfcl_lab.ANTHROPIC_MODEL, "http://127.0.0.1:9/proxy/v1/messages", KEY, 60.0, 512)),
            ({"api": "anthropic", "base_url": "http://127.0.0.1:9"}, {"ANTHROPIC_API_KEY": KEY, "OPENAI_API_KEY": "o"},
             (AnthropicBackend, bfcl_lab.ANTHROPIC_MODEL, "http://127.0.0.1:9/v1/messages", KEY, 60.0, 512)),
            ({"api": "openai"}, {"ANTHROPIC_API_KEY": KEY},  # asked for: OpenAI, with no key of its own
             (OpenAIBackend, bfcl_lab.OPENAI_MODEL, "https://api.openai.com/v1/chat/completions", "", 60.0, 512)),
        ]
        for flags, env, expected in table:
            with self.subTest(flags=flags, env=env), mock.patch.dict(os.environ, env):
                args = argparse.Namespace(**({"toy": False, "api": None, "base_url": None, "model": None,
                                              "timeout": 60.0, "max_tokens": 512} | flags))
                backend = self.script.backend_for(args)
                got = backend and (type(backend), backend.model, backend.url, backend.secret, backend.timeout,
                                   backend.max_tokens)
                self.assertEqual(got, expected)

    def test_the_anthropic_path(self):
        api = FakeAPI(self)

        class LocalAnthropic(AnthropicBackend):  # the script's AnthropicBackend, pointed at the fake server
            def __init__(self, key, model=bfcl_lab.ANTHROPIC_MODEL, base_url=None, **options):
                super().__init__(key, model, api.base, **options)

        table = [  # (flags, the mode line, what the requests carry)
            ([], "through the text protocol.", False),
            (["--native"], "through native tool calling.", True),
        ]
        for flags, mode, native in table:
            with self.subTest(flags=flags), mock.patch.object(bfcl_lab, "AnthropicBackend", LocalAnthropic), \
                    mock.patch.dict(os.environ, {"ANTHROPIC_API_KEY": KEY}), \
                    mock.patch.object(sys, "argv", ["07_real_llm.py", "--part", "bfcl", *flags]), redirect_stdout(io.StringIO()) as out:
                api.reset()
                self.assertEqual(self.script.main(), 0)
                self.assertIn(f"Model: {bfcl_lab.ANTHROPIC_MODEL}, {mode}", out.getvalue())
                self.assertIn("AST 9/9, execution 9/9.", out.getvalue())
                self.assertNotIn(KEY, out.getvalue())
                self.assertEqual({r["headers"]["x-api-key"] for r in api.requests}, {KEY})
                self.assertEqual(["tools" in r["body"] for r in api.requests], [native] * 9)
                if native:  # interfaces.Anthropic's format: input_schema
                    self.assertEqual(api.requests[0]["body"]["tools"], [
                        {"name": "add", "description": "Add two integers.", "input_schema": ADD_SPEC["parameters"]}])

    def test_native_through_an_openai_server(self):
        api = FakeAPI(self)
        with mock.patch.dict(os.environ, {"OPENAI_API_KEY": KEY}), redirect_stdout(io.StringIO()) as out, \
                mock.patch.object(sys, "argv", ["07_real_llm.py", "--part", "bfcl", "--base-url", api.base + "/v1", "--native"]):
            self.assertEqual(self.script.main(), 0)
        self.assertIn(f"Model: {bfcl_lab.OPENAI_MODEL}, through native tool calling.", out.getvalue())
        self.assertIn("AST 9/9, execution 9/9.", out.getvalue())
        self.assertNotIn(KEY, out.getvalue())
        first = api.requests[0]
        self.assertEqual((len(api.requests), first["headers"]["authorization"]), (9, f"Bearer {KEY}"))
        self.assertEqual((first["body"]["model"], first["body"]["max_tokens"]), (bfcl_lab.OPENAI_MODEL, 512))
        self.assertEqual(first["body"]["tools"], [{"type": "function", "function": {  # interfaces.OpenAI's format
            "name": "add", "description": "Add two integers.", "parameters": ADD_SPEC["parameters"]}}])

    def test_an_api_error_is_one_line_on_stderr(self):
        api = FakeAPI(self, steps=[echo_headers(401)])
        with mock.patch.dict(os.environ, {"OPENAI_API_KEY": KEY}), \
                mock.patch.object(sys, "argv", ["07_real_llm.py", "--part", "bfcl", "--base-url", api.base + "/v1"]), \
                redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err:
            self.assertEqual(self.script.main(), 2)
        self.assertTrue(err.getvalue().startswith(f"error: HTTP 401 from {api.base}/v1/chat/completions: "))
        self.assertEqual(err.getvalue().count("\n"), 1)
        self.assertIn("Bearer [redacted]", err.getvalue())
        self.assertNotIn(KEY, err.getvalue())
        self.assertEqual(len(api.requests), 1)


class StopsRefusalsAndRetries(unittest.TestCase):
    """How replies end (refusal, content filter, context window), what native mode sends, and the retry policy."""

    def reply_step(self, payload: dict):
        return lambda h, req: h.send_json(200, payload)

    def test_refusals_are_flagged_and_said(self):
        api = FakeAPI(self)
        anthropic = anthropic_reply("m", "I can't help with that.", [], "refusal")
        openai_refusal = openai_reply("m", "", [], "stop")
        openai_refusal["choices"][0]["message"]["refusal"] = "I can't help with that."
        cases = [(AnthropicBackend(KEY, base_url=api.base, sleep=Sleeps()), anthropic, "refusal"),
                 (OpenAIBackend(api.base + "/v1", KEY, sleep=Sleeps()), openai_refusal, "refusal"),
                 (OpenAIBackend(api.base + "/v1", KEY, sleep=Sleeps()), openai_reply("m", "", [], "content_filter"),
                  "content_filter")]
        for backend, payload, stop in cases:
            with self.subTest(api=type(backend).__name__, stop=stop):
                api.reset(steps=[self.reply_step(payload)])
                reply = backend.complete("s", "u")
                self.assertEqual((reply.refused, reply.truncated, reply.stop_reason), (True, False, stop))
                self.assertTrue(reply.note().startswith(f"refused: {stop}"))
        api.reset(steps=[self.reply_step(anthropic)] * 9)
        out = bfcl_lab.demo_real(AnthropicBackend(KEY, base_url=api.base, sleep=Sleeps()))
        self.assertIn("(refused: refusal", row(out, "irrelevance_0"))
        self.assertIn("9 replies were refusals: graded as no call", out)

    def test_the_context_window_is_a_cut(self):
        api = FakeAPI(self, steps=[self.reply_step(anthropic_reply("m", "<tool_call>{", [], "model_context_window_exceeded"))])
        reply = AnthropicBackend(KEY, base_url=api.base, sleep=Sleeps()).complete("s", "u")
        self.assertEqual((reply.truncated, reply.refused, reply.note()), (True, False, "cut: model_context_window_exceeded"))

    def test_a_200_that_is_an_error_is_an_llm_error(self):
        api = FakeAPI(self, steps=[self.reply_step({"error": {"message": "model overloaded", "type": "server_error"}})])
        with self.assertRaisesRegex(LLMError, "answered with an error: model overloaded"):
            OpenAIBackend(api.base + "/v1", KEY, sleep=Sleeps()).complete("s", "u")

    def test_native_mode_sends_no_text_protocol_and_counts_only_native_calls(self):
        def text_protocol(question, native):  # the model writes <tool_call> text even when given native tools
            return tool_core.call_text("add", {"a": 2, "b": 3}), [], "end"
        api = FakeAPI(self, model=text_protocol)
        out = bfcl_lab.demo_real(AnthropicBackend(KEY, base_url=api.base, sleep=Sleeps()), interfaces.Anthropic())
        system = api.requests[0]["body"]["system"]
        self.assertEqual(system, bfcl_lab.NATIVE_SYSTEM)
        self.assertNotIn("<tool_call>", system)
        self.assertTrue(row(out, "simple_0").endswith("no call (no tool call in the reply)"))

    def test_reasoning_models_get_max_completion_tokens_and_no_stop(self):
        api = FakeAPI(self)
        for model, reasoning in (("o3", True), ("o4-mini", True), ("gpt-5-mini", True), ("gpt-4o-mini", False),
                                 ("llama3", False), ("qwen2.5-coder", False)):
            with self.subTest(model=model):
                api.reset()
                OpenAIBackend(api.base + "/v1", KEY, model=model, max_tokens=77, sleep=Sleeps()).complete("s", "What is 2 + 3?")
                body = api.requests[0]["body"]
                self.assertEqual(("max_completion_tokens" in body, "max_tokens" in body, "stop" in body),
                                 (reasoning, not reasoning, not reasoning))
                self.assertEqual(body.get("max_completion_tokens", body.get("max_tokens")), 77)

    def test_empty_arguments_are_no_arguments(self):
        self.assertEqual(bfcl_lab.decode_result([{"f": ""}]), ([{"f": {}}], "function-calling list"))

    def test_the_retry_policy(self):
        from email.message import Message

        def headers(**fields):
            message = Message()
            for name, value in fields.items():
                message[name.replace("_", "-")] = value
            return message
        should = bfcl_lab._should_retry
        self.assertTrue(all(should(code, headers(), {}) for code in (408, 409, 429, 500, 502, 503, 529)))
        self.assertFalse(any(should(code, headers(), {}) for code in (400, 401, 403, 404, 422, 501)))
        self.assertFalse(should(500, headers(x_should_retry="false"), {}))
        self.assertTrue(should(400, headers(x_should_retry="true"), {}))
        quota = {"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "code": "insufficient_quota"}}
        self.assertFalse(should(429, headers(), quota))
        self.assertTrue(should(429, headers(), {"error": {"type": "rate_limit_error", "message": "slow down"}}))
        wait = bfcl_lab._retry_wait
        self.assertEqual([wait(None, n) for n in range(3)], [0.5, 1.0, 2.0])
        self.assertEqual(wait(headers(retry_after="7"), 0), 7.0)
        self.assertEqual(wait(headers(retry_after_ms="250"), 0), 0.25)
        self.assertEqual(wait(headers(retry_after="3600"), 1), 1.0)  # over 60 s: the SDKs' own back-off instead
        self.assertEqual(wait(headers(retry_after="soon"), 0), 0.5)
        soon = email.utils.formatdate(time.time() + 20, usegmt=True)
        self.assertAlmostEqual(wait(headers(retry_after=soon), 0), 20, delta=2)  # an HTTP date

    def test_a_used_up_quota_is_said_at_once(self):
        api = FakeAPI(self, steps=[fail(429, "You exceeded your current quota", kind="insufficient_quota")])
        sleeps = Sleeps()
        with self.assertRaisesRegex(LLMError, "HTTP 429 .*exceeded your current quota"):
            OpenAIBackend(api.base + "/v1", KEY, sleep=sleeps).complete("s", "u")
        self.assertEqual((len(api.requests), sleeps), (1, []))


class Script(unittest.TestCase):
    """scripts/07_real_llm.py as a user runs it (no API key in the environment): offline by default (a run of
    tests/script_runs.py's table, which also checks --help), and in process with --base-url: a server that cuts a
    reply at max_tokens, and a port that refuses the connection."""

    @classmethod
    def setUpClass(cls):
        cls.text_api = FakeAPI(None, model=model_saying({"Convert 100 degrees Fahrenheit to Celsius.": (CUT_CALL, [], "max")}))
        cls.runs = {"default": script_runs.result("07_real_llm.py"),
                    "text": cls.in_process("--part", "bfcl", "--base-url", cls.text_api.base + "/v1", "--model", "fake-7b",
                                           "--max-tokens", "99")}

    @staticmethod
    def in_process(*args: str, env: dict | None = None) -> script_runs.Result:
        """main() with these arguments and no API key but env's; (exit code, stdout, stderr)."""
        keys = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL")
        clean = {k: v for k, v in os.environ.items() if k not in keys}
        with mock.patch.dict(os.environ, clean | (env or {}), clear=True), \
                mock.patch.object(sys, "argv", ["07_real_llm.py", *args]), \
                redirect_stdout(io.StringIO()) as out, redirect_stderr(io.StringIO()) as err:
            code = load_script().main()
        return script_runs.Result(code, out.getvalue(), err.getvalue())

    def test_exit_codes_and_what_they_print(self):
        refused = self.in_process("--part", "bfcl", "--base-url", f"http://127.0.0.1:{closed_port(self)}/v1", "--timeout", "2",
                                  env={"OPENAI_API_KEY": KEY})
        table = [  # (run, exit code, on stdout, on stderr)
            ("default", 0, ["=== Demo 3. The nine BFCL questions, graded ===",
                            "Offline: the stand-in answers with model A's replies of demo 1, written out in advance.",
                            "Model: stand-in (the lab's scripted models), through the text protocol.",
                            "AST 7/9, execution 8/9."], []),  # model A: demo 1's figures
            ("text", 0, ["Model: fake-7b, through the text protocol.", "AST 8/9, execution 8/9.",
                         "malformed call (truncated) (cut at max_tokens)"], []),
            ("refused", 2, [], ["error: could not get an answer from http://127.0.0.1:", "/v1/chat/completions"]),
        ]
        for name, code, out, err in table:
            done = refused if name == "refused" else self.runs[name]
            with self.subTest(run=name):
                self.assertEqual(done.returncode, code, done.stderr)
                for text in out:
                    self.assertIn(text, done.stdout)
                for text in err:
                    self.assertIn(text, done.stderr)
                if code:
                    self.assertTrue(done.stderr.startswith("error: "), done.stderr)
                    self.assertEqual(done.stderr.count("\n"), 1)
                    self.assertEqual(done.stdout.strip(), "=== Demo 3. The nine BFCL questions, graded ===")
                else:
                    self.assertEqual(done.stderr, "")
                self.assertNotIn("Traceback", done.stderr)
                self.assertNotIn(KEY, done.stdout + done.stderr)

    def test_the_truncated_row(self):
        self.assertIn("malformed call (truncated) (cut at max_tokens)", row(self.runs["text"].stdout, "simple_1"))

    def test_what_the_text_run_sent(self):
        requests = self.text_api.requests
        self.assertEqual(len(requests), 9)
        body = requests[0]["body"]
        self.assertEqual((requests[0]["path"], body["model"], body["max_tokens"], body["stop"]),
                         ("/v1/chat/completions", "fake-7b", 99, ["<tool_result"]))
        self.assertNotIn("tools", body)
        self.assertNotIn("authorization", requests[0]["headers"])  # no OPENAI_API_KEY in the environment


if __name__ == "__main__":
    unittest.main()
