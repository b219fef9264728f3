"""bfcl_lab sections 7b and 7c: the stand-in for both APIs, and the readers of their event streams.

No test leaves 127.0.0.1. One StandIn serves each test class. The requests are written by hand from
the vendors' API references (Anthropic Messages; OpenAI Chat Completions), and so are the words each
refusal must hold: the vendor's own where the lab copies the vendor's rule, the coupling rule's
(interfaces.coupling_problems) for the pairing of calls and results. Expected answers come from the
lecture's nine questions and model A's hand-written replies, token counts from count_tokens' rule by
hand. Retries are watched with an injected sleep, so nothing here waits.
"""
import http.client
import io
import json
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bfcl_lab  # noqa: E402
from tool_core import Turn  # noqa: E402
import interfaces  # noqa: E402
import tool_core  # noqa: E402
from bfcl_lab import (AnthropicBackend, Conversation, LLMError, OpenAIBackend, StandIn,  # noqa: E402
                      read_anthropic_stream, read_openai_stream)

KEY = "sk-standin-Q9DISTINCTIVEkey7xC0DE"  # distinctive, so a leak anywhere is found by a plain search
ADD_SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}
ANTHROPIC_ADD = {"name": "add", "description": "Add two integers.", "input_schema": ADD_SCHEMA}
OPENAI_ADD = {"type": "function", "function": {"name": "add", "description": "Add two integers.", "parameters": ADD_SCHEMA}}
CONVERT = ("convert_temperature", {"value": 100, "from_unit": "fahrenheit", "to_unit": "celsius"})


def anthropic_body(**fields) -> dict:
    """A valid Messages request (one user turn, the add tool), with fields replaced (None: left out)."""
    body = {"model": "claude-test", "max_tokens": 64, "messages": [{"role": "user", "content": "What is 2 + 3?"}],
            "tools": [ANTHROPIC_ADD]} | fields
    return {k: v for k, v in body.items() if v is not None}


def openai_body(**fields) -> dict:
    """A valid Chat Completions request (one user turn, the add tool), with fields replaced (None: left out)."""
    body = {"model": "gpt-test", "messages": [{"role": "user", "content": "What is 2 + 3?"}], "tools": [OPENAI_ADD]} | fields
    return {k: v for k, v in body.items() if v is not None}


def post(server: StandIn, path: str, body, headers: dict | None = None) -> tuple[int, dict, dict]:
    """POST a body (JSON, or raw bytes) to the stand-in; return (status, headers, decoded JSON answer)."""
    port = int(server.url.rsplit(":", 1)[1])
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    connection.request("POST", path, data, {"content-type": "application/json"} | (headers or {}))
    response = connection.getresponse()
    answer = response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, json.loads(answer)


ANTHROPIC_HEADERS = {"x-api-key": KEY, "anthropic-version": "2023-06-01"}
OPENAI_HEADERS = {"authorization": f"Bearer {KEY}"}


def tool_use(call_id: str, name: str = "add", arguments: dict | None = None) -> dict:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments or {"a": 2, "b": 3}}


def tool_result(call_id: str, text: str = "5") -> dict:
    return {"type": "tool_result", "tool_use_id": call_id, "content": text}


def openai_call(call_id: str, arguments='{"a": 2, "b": 3}') -> dict:
    return {"id": call_id, "type": "function", "function": {"name": "add", "arguments": arguments}}


def events_of(stream: str) -> list[str]:
    """Cut an event stream into its events, each with its blank line (the test's own reading of SSE)."""
    return [e + "\n\n" for e in stream.split("\n\n") if e]


def turns(server: StandIn, policy, body: dict, path: str, headers: dict) -> tuple[dict, dict]:
    """Ask the same request unstreamed and streamed; return (the JSON answer, the streamed request's log entry)."""
    server.policy = policy
    status, _, answer = post(server, path, body, headers)
    assert status == 200, answer
    streamed = body | {"stream": True} | ({"stream_options": {"include_usage": True}} if "chat" in path else {})
    post_stream(server, path, streamed, headers)
    return answer, server.log[-1]


def post_stream(server: StandIn, path: str, body: dict, headers: dict) -> str:
    port = int(server.url.rsplit(":", 1)[1])
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.request("POST", path, json.dumps(body).encode(), {"content-type": "application/json"} | headers)
    response = connection.getresponse()
    text = response.read().decode()
    connection.close()
    assert response.status == 200 and response.getheader("content-type") == "text/event-stream", text
    return text


# The four turns of the stream tests: text only, one call, two parallel calls, text and then a call.
TURNS = {
    "text only": Turn("The sum of 2 and 3 is 5, as the add tool would say."),
    "one call": Turn("", [CONVERT]),
    "two parallel calls": Turn("", [("add", {"a": 2, "b": 3}), ("add", {"a": 4, "b": 5})]),
    "text, then a call": Turn("Let me convert that for you.", [CONVERT]),
}
CONVERT_TOOL = {"name": "convert_temperature", "description": "Convert a temperature.",
                "input_schema": {"type": "object", "properties": {"value": {"type": "number"},
                                                                  "from_unit": {"type": "string"},
                                                                  "to_unit": {"type": "string"}}}}


# ---------------------------------------------------------------------------------------------

class WithStandIn(unittest.TestCase):
    """One stand-in per class, answering "ok", with a key: the checks' tests send it requests it must refuse."""

    @classmethod
    def setUpClass(cls):
        cls.server = StandIn(lambda conversation: Turn("ok"), key=KEY).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()


class AnthropicChecks(WithStandIn):
    """POST /v1/messages: each check refuses the malformed request it exists for, in Anthropic's error shape."""

    def test_each_rule_refuses_its_request(self):
        unanswered = [{"role": "user", "content": "What is 2 + 3?"},
                      {"role": "assistant", "content": [tool_use("toolu_1")]},
                      {"role": "user", "content": "thanks"}]
        stray = [{"role": "user", "content": [tool_result("toolu_9")]}]
        text_first = [{"role": "user", "content": "What is 2 + 3?"},
                      {"role": "assistant", "content": [tool_use("toolu_1")]},
                      {"role": "user", "content": [{"type": "text", "text": "here:"}, tool_result("toolu_1")]}]
        bfcl_doc = {"name": "convert", "input_schema": {"type": "dict", "properties": {}}}
        nested = {"name": "convert", "input_schema": {"type": "object", "properties": {"value": {"type": "float"}}}}
        table = [  # (what is wrong, body, headers, status, error type, words the message must hold)
            ("no model", anthropic_body(model=None), {}, 400, "invalid_request_error", ["model: Field required"]),
            ("no max_tokens", anthropic_body(max_tokens=None), {}, 400, "invalid_request_error",
             ["max_tokens: Field required"]),
            ("max_tokens true", anthropic_body(max_tokens=True), {}, 400, "invalid_request_error",
             ["max_tokens", "positive integer", "true"]),
            ("no messages", anthropic_body(messages=[]), {}, 400, "invalid_request_error", ["messages", "non-empty"]),
            ("assistant first", anthropic_body(messages=[{"role": "assistant", "content": "Hi"},
                                                         {"role": "user", "content": "Hi"}]), {}, 400,
             "invalid_request_error", ["first message must use the user role"]),
            ("two user turns", anthropic_body(messages=[{"role": "user", "content": "a"},
                                                        {"role": "user", "content": "b"}]), {}, 400,
             "invalid_request_error", ["messages.1.role", "alternate", "both user"]),
            ("a role of another API", anthropic_body(messages=[{"role": "system", "content": "Be brief."},
                                                               {"role": "user", "content": "Hi"}]), {}, 400,
             "invalid_request_error", ["messages[0] has role \"system\"", "Anthropic takes user, assistant"]),
            ("a tool_use left unanswered", anthropic_body(messages=unanswered), {}, 400, "invalid_request_error",
             ["messages[1] calls toolu_1", "messages[2] holds no result for it"]),
            ("a tool_result with no tool_use", anthropic_body(messages=stray), {}, 400, "invalid_request_error",
             ["toolu_9", "no reply before made that call"]),
            ("text before the results", anthropic_body(messages=text_first), {}, 400, "invalid_request_error",
             ["messages[2] has text before its tool_result blocks (toolu_1)"]),
            ("a tool_use input as a JSON string", anthropic_body(messages=[
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": [tool_use("toolu_1") | {"input": '{"a": 2}'}]},
                {"role": "user", "content": [tool_result("toolu_1")]}]), {}, 400, "invalid_request_error",
             ["messages.1.content.0.input", "valid dictionary", "string"]),
            ("an empty message", anthropic_body(messages=[{"role": "user", "content": ""}]), {}, 400,
             "invalid_request_error", ["non-empty content"]),
            ("an empty text block", anthropic_body(messages=[{"role": "user", "content": [{"type": "text", "text": ""}]}]),
             {}, 400, "invalid_request_error", ["messages.0.content.0.text", "non-empty"]),
            ("a block type of another API", anthropic_body(messages=[{"role": "user", "content": [
                {"type": "input_text", "text": "Hi"}]}]), {}, 400, "invalid_request_error",
             ["messages.0.content.0.type", "unknown content block type \"input_text\""]),
            ("a forced tool that was not sent", anthropic_body(tool_choice={"type": "tool", "name": "mult"}), {}, 400,
             "invalid_request_error", ["tool_choice.name", "\"mult\" is not among the tools sent (add)"]),
            ("tool_choice without tools", anthropic_body(tools=None, tool_choice={"type": "any"}), {}, 400,
             "invalid_request_error", ["tool_choice may only be specified while providing tools"]),
            ("OpenAI's tool_choice", anthropic_body(tool_choice="required"), {}, 400, "invalid_request_error",
             ["tool_choice", "type one of auto, any, tool, none", "\"required\""]),
            ("a BFCL document as it is", anthropic_body(tools=[bfcl_doc]), {}, 400, "invalid_request_error",
             ["tools.0.input_schema.type", "must be \"object\"", "\"dict\""]),
            ("a BFCL type inside", anthropic_body(tools=[nested]), {}, 400, "invalid_request_error",
             ["tools.0.input_schema.properties.value.type", "got \"float\""]),
            ("no input_schema", anthropic_body(tools=[{"name": "add"}]), {}, 400, "invalid_request_error",
             ["tools.0.input_schema: Field required"]),
            ("a tool name with a space", anthropic_body(tools=[ANTHROPIC_ADD | {"name": "add numbers"}]), {}, 400,
             "invalid_request_error", ["tools.0.name", "^[a-zA-Z0-9_-]{1,64}$", "\"add numbers\""]),
            ("two tools of one name", anthropic_body(tools=[ANTHROPIC_ADD, ANTHROPIC_ADD]), {}, 400,
             "invalid_request_error", ["Tool names must be unique", "add"]),
            ("OpenAI's stop field", anthropic_body(stop=["<tool_result"]), {}, 400, "invalid_request_error",
             ["stop: Extra inputs are not permitted"]),
            ("a stream flag that is no boolean", anthropic_body(stream="yes"), {}, 400, "invalid_request_error",
             ["stream: expected a boolean"]),
            ("no anthropic-version", anthropic_body(), {"anthropic-version": ""}, 400, "invalid_request_error",
             ["anthropic-version: header is required"]),
            ("a body that is not JSON", b"{model: claude", {}, 400, "invalid_request_error", ["not valid JSON"]),
            ("no key", anthropic_body(), {"x-api-key": ""}, 401, "authentication_error", ["x-api-key header is required"]),
            ("a wrong key", anthropic_body(), {"x-api-key": "sk-wrong-key-123"}, 401, "authentication_error",
             ["invalid x-api-key"]),
        ]
        for what, body, headers, status, kind, words in table:
            with self.subTest(what):
                headers = {k: v for k, v in (ANTHROPIC_HEADERS | headers).items() if v}
                got, _, answer = post(self.server, "/v1/messages", body, headers)
                self.assertEqual(got, status, answer)
                self.assertEqual(set(answer), {"type", "error"})
                self.assertEqual(answer["type"], "error")
                self.assertEqual(answer["error"]["type"], kind)
                for word in words:
                    self.assertIn(word, answer["error"]["message"])
                self.assertNotIn("sk-wrong-key-123", json.dumps(answer))  # a key sent is never repeated

    def test_a_valid_exchange_with_parallel_results_is_taken_and_read_for_the_policy(self):
        seen = []
        self.server.policy = lambda conversation: seen.append(conversation) or Turn("2 + 3 = 5 and 4 + 5 = 9.")
        dialect = interfaces.Anthropic()
        calls = [tool_core.ToolCall("add", {"a": 2, "b": 3}, id="toolu_a"),
                 tool_core.ToolCall("add", {"a": 4, "b": 5}, id="toolu_b")]
        results = dialect.results([(calls[1], tool_core.ToolResult(True, 9)),  # any order: the ids match them
                                   (calls[0], tool_core.ToolResult(False, error_kind="execution_error", message="busy"))])
        results["content"].append({"type": "text", "text": "Go on."})
        messages = [{"role": "user", "content": "What are (2 + 3) and (4 + 5)?"},
                    dialect.calls(calls, "I'll add both."), results]
        body = anthropic_body(system="Be brief.", messages=messages, tool_choice={"type": "auto"},
                              stop_sequences=["<tool_result"])
        status, _, answer = post(self.server, "/v1/messages", body, ANTHROPIC_HEADERS)
        self.assertEqual(status, 200, answer)
        self.assertEqual((answer["type"], answer["role"], answer["stop_reason"], answer["stop_sequence"]),
                         ("message", "assistant", "end_turn", None))
        self.assertEqual(answer["content"], [{"type": "text", "text": "2 + 3 = 5 and 4 + 5 = 9."}])
        # count_tokens by hand: 2 + 3 = 5 and 4 + 5 = 9 . -> 11 one-character runs and "and": 12
        self.assertEqual(answer["usage"]["output_tokens"], 12)
        expected = [{"role": "system", "content": "Be brief."},
                    {"role": "user", "content": "What are (2 + 3) and (4 + 5)?"},
                    {"role": "assistant", "content": "I'll add both.", "calls": calls},
                    {"role": "tool", "id": "toolu_b", "name": "add", "content": "9", "error": False},
                    {"role": "tool", "id": "toolu_a", "name": "add", "content": "busy", "error": True},
                    {"role": "user", "content": "Go on."}]
        self.assertEqual(seen[0].messages, expected)
        self.assertEqual((seen[0].api, seen[0].model, seen[0].tool_choice, seen[0].parallel, seen[0].max_tokens,
                          seen[0].stop), ("anthropic", "claude-test", "auto", True, 64, ["<tool_result"]))
        self.assertEqual(seen[0].tools, [{"name": "add", "description": "Add two integers.", "parameters": ADD_SCHEMA}])

    def test_the_log_keeps_each_request_and_answer_with_the_key_redacted(self):
        self.server.policy = lambda conversation: "ok"
        post(self.server, "/v1/messages", anthropic_body(), ANTHROPIC_HEADERS)
        entry = self.server.log[-1]
        self.assertEqual((entry.api, entry.path, entry.status, entry.request), ("anthropic", "/v1/messages", 200,
                                                                                anthropic_body()))
        self.assertEqual(entry.headers["x-api-key"], "[redacted]")
        self.assertEqual(entry.response["content"], [{"type": "text", "text": "ok"}])
        self.assertNotIn(KEY, repr(self.server.log) + repr(self.server))


class OpenAIChecks(WithStandIn):
    """POST <base>/chat/completions: each check refuses the malformed request it exists for, in OpenAI's error shape."""

    def test_each_rule_refuses_its_request(self):
        user = {"role": "user", "content": "What is 2 + 3?"}
        unanswered = [user, {"role": "assistant", "content": None, "tool_calls": [openai_call("call_1")]},
                      {"role": "user", "content": "thanks"}]
        stray = [user, {"role": "tool", "tool_call_id": "call_9", "content": "5"}]
        object_arguments = [user, {"role": "assistant", "content": None,
                                   "tool_calls": [openai_call("call_1", {"a": 2, "b": 3})]},
                            {"role": "tool", "tool_call_id": "call_1", "content": "5"}]
        loose = {"type": "function", "function": {"name": "add", "strict": True, "parameters": ADD_SCHEMA}}
        table = [  # (what is wrong, body, headers, status, error type, param, words the message must hold)
            ("no model", openai_body(model=None), {}, 400, "invalid_request_error", "model",
             ["Missing required parameter: 'model'."]),
            ("no messages", openai_body(messages=[]), {}, 400, "invalid_request_error", "messages",
             ["Invalid 'messages'", "non-empty"]),
            ("a role the API does not have", openai_body(messages=[{"role": "bot", "content": "Hi"}]), {}, 400,
             "invalid_request_error", "messages", ["messages[0] has role \"bot\"", "OpenAI takes system"]),
            ("a user message with no content", openai_body(messages=[{"role": "user"}]), {}, 400,
             "invalid_request_error", "messages[0].content", ["Missing required parameter: 'messages[0].content'"]),
            ("a call left unanswered", openai_body(messages=unanswered), {}, 400, "invalid_request_error", "messages",
             ["messages[1] calls call_1", "comes next, not the results"]),
            ("a tool message with no call", openai_body(messages=stray), {}, 400, "invalid_request_error", "messages",
             ["messages[1] answers call_9", "no reply before made that call"]),
            ("arguments as an object", openai_body(messages=object_arguments), {}, 400, "invalid_request_error",
             "messages[1].tool_calls[0].function.arguments", ["expected a string, but got object"]),
            ("a schema with no type", openai_body(tools=[{"type": "function", "function": {
                "name": "add", "parameters": {"properties": {}}}}]), {}, 400, "invalid_request_error",
             "tools[0].function.parameters", ["Invalid schema for function \"add\"", "must be \"object\""]),
            ("a tool name with a dot", openai_body(tools=[{"type": "function", "function": {"name": "math.add"}}]), {},
             400, "invalid_request_error", "tools[0].function.name", ["does not match pattern", "\"math.add\""]),
            ("a strict tool strict mode refuses", openai_body(tools=[loose]), {}, 400, "invalid_request_error",
             "tools[0].function.parameters", ["strict mode needs", "additionalProperties set to false"]),
            ("Anthropic's tool format", openai_body(tools=[ANTHROPIC_ADD]), {}, 400, "invalid_request_error",
             "tools[0]", ["Invalid 'tools[0]'", "\"type\": \"function\""]),
            ("tool_choice without tools", openai_body(tools=None, tool_choice="required"), {}, 400,
             "invalid_request_error", "tool_choice", ["'tool_choice' is only allowed when 'tools' are specified."]),
            ("a forced function that was not sent", openai_body(tool_choice={"type": "function", "function": {
                "name": "mult"}}), {}, 400, "invalid_request_error", "tool_choice", ["'mult' is not among the tools sent"]),
            ("Anthropic's word for required", openai_body(tool_choice="any"), {}, 400, "invalid_request_error",
             "tool_choice", ["expected 'none', 'auto', 'required'", "\"any\""]),
            ("parallel_tool_calls without tools", openai_body(tools=None, parallel_tool_calls=False), {}, 400,
             "invalid_request_error", "parallel_tool_calls", ["'parallel_tool_calls' is only allowed when 'tools'"]),
            ("stream_options without stream", openai_body(stream_options={"include_usage": True}), {}, 400,
             "invalid_request_error", "stream_options",
             ["The 'stream_options' parameter is only allowed when 'stream' is enabled."]),
            ("Anthropic's stop field", openai_body(stop_sequences=["x"]), {}, 400, "invalid_request_error",
             "stop_sequences", ["Unrecognized request argument supplied: stop_sequences"]),
            ("max_tokens 0", openai_body(max_tokens=0), {}, 400, "invalid_request_error", "max_tokens",
             ["Invalid 'max_tokens'", "positive integer"]),
            ("five stop strings", openai_body(stop=["a", "b", "c", "d", "e"]), {}, 400, "invalid_request_error",
             "stop", ["at most 4 strings"]),
            ("no key", openai_body(), {"authorization": ""}, 401, "invalid_request_error", None,
             ["You didn't provide an API key"]),
            ("a wrong key", openai_body(), {"authorization": "Bearer sk-wrong-key-123"}, 401, "invalid_request_error",
             None, ["Incorrect API key provided."]),
        ]
        for what, body, headers, status, kind, param, words in table:
            with self.subTest(what):
                headers = {k: v for k, v in (OPENAI_HEADERS | headers).items() if v}
                got, _, answer = post(self.server, "/v1/chat/completions", body, headers)
                self.assertEqual(got, status, answer)
                self.assertEqual(set(answer), {"error"})
                self.assertEqual(set(answer["error"]), {"message", "type", "param", "code"})
                self.assertEqual((answer["error"]["type"], answer["error"]["param"]), (kind, param))
                for word in words:
                    self.assertIn(word, answer["error"]["message"])
                self.assertNotIn("sk-wrong-key-123", json.dumps(answer))
        wrong = post(self.server, "/v1/chat/completions", openai_body(), {"authorization": "Bearer sk-x"})[2]
        self.assertEqual(wrong["error"]["code"], "invalid_api_key")

    def test_every_problem_is_reported_not_only_the_first(self):
        body = openai_body(model=None, max_tokens=0, stream_options={"include_usage": True})
        message = post(self.server, "/v1/chat/completions", body, OPENAI_HEADERS)[2]["error"]["message"]
        for words in ("'model'", "'max_tokens'", "'stream_options'"):
            self.assertIn(words, message)

    def test_a_valid_exchange_with_results_is_taken_under_any_base(self):
        seen = []
        self.server.policy = lambda conversation: seen.append(conversation) or Turn("5, and 9.")
        dialect = interfaces.OpenAI()
        calls = [tool_core.ToolCall("add", {"a": 2, "b": 3}, id="call_a"),
                 tool_core.ToolCall("add", {"a": 4, "b": 5}, id="call_b")]
        messages = [{"role": "developer", "content": "Be brief."}, {"role": "user", "content": "Add both."},
                    dialect.calls(calls), *dialect.results([(calls[0], tool_core.ToolResult(True, 5)),
                                                           (calls[1], tool_core.ToolResult(False, message="busy",
                                                                                           error_kind="execution_error"))])]
        body = openai_body(messages=messages, tool_choice="auto", parallel_tool_calls=False, max_completion_tokens=50,
                           stop="<tool_result")
        for path in ("/v1/chat/completions", "/v1beta/openai/chat/completions"):
            with self.subTest(path):
                status, _, answer = post(self.server, path, body, OPENAI_HEADERS)
                self.assertEqual(status, 200, answer)
                self.assertEqual(answer["object"], "chat.completion")
                self.assertEqual(answer["choices"], [{"index": 0, "message": {"role": "assistant", "content": "5, and 9.",
                                                                              "refusal": None},
                                                      "logprobs": None, "finish_reason": "stop"}])
                # count_tokens by hand: "5" "," "and" "9" "." -> 5
                self.assertEqual(answer["usage"]["completion_tokens"], 5)
                self.assertEqual(answer["usage"]["total_tokens"], answer["usage"]["prompt_tokens"] + 5)
        self.assertEqual(seen[0].messages, [
            {"role": "system", "content": "Be brief."}, {"role": "user", "content": "Add both."},
            {"role": "assistant", "content": "", "calls": calls},
            {"role": "tool", "id": "call_a", "name": "add", "content": "5", "error": False},
            {"role": "tool", "id": "call_b", "name": "add", "content": "busy", "error": True}])
        self.assertEqual((seen[0].tool_choice, seen[0].parallel, seen[0].max_tokens, seen[0].stop),
                         ("auto", False, 50, ["<tool_result"]))

    def test_input_tokens_are_count_tokens_of_the_messages_as_json(self):
        self.server.policy = lambda conversation: "ok"
        body = {"model": "gpt-test", "messages": [{"role": "user", "content": "Hi"}]}
        usage = post(self.server, "/v1/chat/completions", body, OPENAI_HEADERS)[2]["usage"]
        # '{"messages": [{"role": "user", "content": "Hi"}]}' by count_tokens' rule: {" messages ": [{" role ": "
        # user ", " content ": " Hi "}]} -> 1 1 1 2 1 1 1 1 1 1 1 1 1 1 2 = 17; "ok" is 1
        self.assertEqual(usage, {"prompt_tokens": 17, "completion_tokens": 1, "total_tokens": 18})


class Answers(unittest.TestCase):
    """What the stand-in answers: ids, stop reasons, refusals, cuts; streamed and unstreamed the same."""

    @classmethod
    def setUpClass(cls):
        cls.server = StandIn(lambda conversation: "ok", key=KEY).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_streamed_and_unstreamed_answers_carry_the_same_content(self):
        tools_a, tools_o = [ANTHROPIC_ADD, CONVERT_TOOL], [OPENAI_ADD, {"type": "function", "function": {
            "name": "convert_temperature", "parameters": CONVERT_TOOL["input_schema"]}}]
        for name, turn in TURNS.items():
            with self.subTest(name, api="anthropic"):
                answer, logged = turns(self.server, lambda c, t=turn: t, anthropic_body(tools=tools_a), "/v1/messages",
                                       ANTHROPIC_HEADERS)
                self.assertEqual(logged.response, answer)
                self.assertEqual(read_anthropic_stream(io.StringIO(logged.stream)), answer)
            with self.subTest(name, api="openai"):
                answer, logged = turns(self.server, lambda c, t=turn: t, openai_body(tools=tools_o),
                                       "/v1/chat/completions", OPENAI_HEADERS)
                self.assertEqual(logged.response, answer)
                self.assertEqual(read_openai_stream(io.BytesIO(logged.stream.encode())), answer)

    def test_each_turn_is_written_in_each_api_s_own_terms(self):
        convert_tools = [ANTHROPIC_ADD, CONVERT_TOOL]
        table = [  # (turn, Anthropic stop_reason, OpenAI finish_reason, OpenAI content, OpenAI refusal)
            (Turn("5"), "end_turn", "stop", "5", None),
            (Turn("", [("add", {"a": 2, "b": 3})]), "tool_use", "tool_calls", None, None),
            (Turn("I can't help with that.", stop_reason="refusal"), "refusal", "stop", None, "I can't help with that."),
            (Turn("The answer is", stop_reason="max_tokens"), "max_tokens", "length", "The answer is", None),
        ]
        for turn, stop_reason, finish, content, refusal in table:
            with self.subTest(turn=turn):
                self.server.policy = lambda c, t=turn: t
                answer = post(self.server, "/v1/messages", anthropic_body(tools=convert_tools), ANTHROPIC_HEADERS)[2]
                self.assertEqual(answer["stop_reason"], stop_reason)
                answer = post(self.server, "/v1/chat/completions", openai_body(), OPENAI_HEADERS)[2]
                message = answer["choices"][0]["message"]
                self.assertEqual((answer["choices"][0]["finish_reason"], message["content"], message["refusal"]),
                                 (finish, content, refusal))

    def test_a_stop_sequence_cuts_the_text_and_is_reported(self):
        self.server.policy = lambda c: Turn('<tool_call>{"name": "add"}</tool_call>\n<tool_result id="x">5')
        answer = post(self.server, "/v1/messages", anthropic_body(tools=None, stop_sequences=["<tool_result"]),
                      ANTHROPIC_HEADERS)[2]
        self.assertEqual((answer["stop_reason"], answer["stop_sequence"]), ("stop_sequence", "<tool_result"))
        self.assertEqual(answer["content"], [{"type": "text", "text": '<tool_call>{"name": "add"}</tool_call>\n'}])

    def test_call_ids_are_the_api_s_kind_unique_and_the_same_streamed_or_not(self):
        two = Turn("", [("add", {"a": 2, "b": 3}), ("add", {"a": 4, "b": 5})])
        answer, logged = turns(self.server, lambda c: two, anthropic_body(), "/v1/messages", ANTHROPIC_HEADERS)
        ids = [b["id"] for b in answer["content"]]
        self.assertTrue(all(i.startswith("toolu_") for i in ids) and len(set(ids)) == 2, ids)
        self.assertEqual([b["id"] for b in read_anthropic_stream(io.StringIO(logged.stream))["content"]], ids)
        answer = post(self.server, "/v1/chat/completions", openai_body(), OPENAI_HEADERS)[2]
        ids = [c["id"] for c in answer["choices"][0]["message"]["tool_calls"]]
        self.assertTrue(all(i.startswith("call_") for i in ids) and len(set(ids)) == 2, ids)
        # arguments go out as a JSON string, as the API writes them
        self.assertEqual(answer["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"], '{"a": 2, "b": 3}')

    def test_a_turn_is_held_to_tool_choice_and_the_parallel_setting(self):
        both = Turn("Adding.", [("add", {"a": 2, "b": 3}), ("mult", {"a": 4, "b": 5})])
        mult = {"name": "mult", "description": "Multiply.", "input_schema": ADD_SCHEMA}
        table = [  # (tool_choice, the calls the answer keeps, by name)
            ({"type": "auto"}, ["add", "mult"]),
            ({"type": "none"}, []),
            ({"type": "tool", "name": "mult"}, ["mult"]),
            ({"type": "any", "disable_parallel_tool_use": True}, ["add"]),
        ]
        self.server.policy = lambda c: both
        for choice, kept in table:
            with self.subTest(choice=choice):
                answer = post(self.server, "/v1/messages", anthropic_body(tools=[ANTHROPIC_ADD, mult], tool_choice=choice),
                              ANTHROPIC_HEADERS)[2]
                self.assertEqual([b["name"] for b in answer["content"] if b["type"] == "tool_use"], kept)
                self.assertEqual(answer["stop_reason"], "tool_use" if kept else "end_turn")

    def test_a_policy_whose_turn_cannot_answer_is_a_500_saying_why(self):
        table = [  # (policy, body changes, words)
            (lambda c: Turn("no"), {"tool_choice": {"type": "any"}}, "tool_choice is required (any), but the turn makes no call"),
            (lambda c: Turn("", [("mult", {})]), {"tool_choice": {"type": "tool", "name": "add"}},
             "tool_choice forces add, but the turn calls mult"),
            (lambda c: Turn("", [("add", {})]), {"tools": None}, "the request sent no tools"),
            (lambda c: Turn("", ["add"]), {}, "write (name, arguments)"),
            (lambda c: 42, {}, "must return a Turn or a str"),
            (lambda c: 1 / 0, {}, "the policy raised ZeroDivisionError"),
        ]
        for policy, changes, words in table:
            with self.subTest(words):
                self.server.policy = policy
                status, headers, answer = post(self.server, "/v1/messages", anthropic_body(**changes), ANTHROPIC_HEADERS)
                self.assertEqual((status, answer["error"]["type"], headers["x-should-retry"]), (500, "api_error", "false"))
                self.assertIn(words, answer["error"]["message"])

    def test_an_unknown_path_and_a_get_are_refused(self):
        port = int(self.server.url.rsplit(":", 1)[1])
        for method, path, status in (("POST", "/v1/complete", 404), ("GET", "/v1/messages", 405)):
            with self.subTest(path=path, method=method):
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                connection.request(method, path, b"{}" if method == "POST" else None)
                response = connection.getresponse()
                self.assertEqual(response.status, status)
                self.assertIn("error", json.loads(response.read()))
                connection.close()


class StreamReaders(unittest.TestCase):
    """read_anthropic_stream and read_openai_stream on the stand-in's own streams: whole, cut, broken by an error."""

    @classmethod
    def setUpClass(cls):
        cls.server = StandIn(lambda conversation: "ok").start()
        cls.streams = {}  # (api, turn name) -> (the unstreamed answer, the stream)
        for name, turn in TURNS.items():
            answer, logged = turns(cls.server, lambda c, t=turn: t, anthropic_body(tools=[ANTHROPIC_ADD, CONVERT_TOOL]),
                                   "/v1/messages", {"anthropic-version": "2023-06-01"})
            cls.streams["anthropic", name] = answer, logged.stream
            answer, logged = turns(cls.server, lambda c, t=turn: t, openai_body(), "/v1/chat/completions", {})
            cls.streams["openai", name] = answer, logged.stream

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def read(self, api: str, stream, on_event=None) -> dict:
        return (read_anthropic_stream if api == "anthropic" else read_openai_stream)(stream, on_event)

    def test_the_stream_events_are_the_api_s(self):
        _, stream = self.streams["anthropic", "text, then a call"]
        names = [e.split("\n")[0].removeprefix("event: ") for e in events_of(stream)]
        deltas = names.count("content_block_delta")
        self.assertEqual(names, ["message_start", "ping"] + ["content_block_start"] + ["content_block_delta"] * 2
                         + ["content_block_stop", "content_block_start"] + ["content_block_delta"] * (deltas - 2)
                         + ["content_block_stop", "message_delta", "message_stop"])
        # the input's JSON, 63 characters, goes as input_json_delta pieces of 16: 4 of them
        self.assertEqual(deltas - 2, 4)
        _, stream = self.streams["openai", "two parallel calls"]
        last = events_of(stream)[-3:]
        self.assertEqual(json.loads(last[0].removeprefix("data: "))["choices"][0]["finish_reason"], "tool_calls")
        self.assertEqual(json.loads(last[1].removeprefix("data: "))["choices"], [])  # the usage chunk
        self.assertEqual(last[2], "data: [DONE]\n\n")

    def test_every_stream_rebuilds_the_unstreamed_answer_from_lines_or_pieces(self):
        for (api, name), (answer, stream) in self.streams.items():
            with self.subTest(api=api, turn=name):
                self.assertEqual(self.read(api, io.BytesIO(stream.encode())), answer)  # bytes lines, as urllib reads
                crlf = stream.replace("\n", "\r\n").encode()
                self.assertEqual(self.read(api, [crlf[i:i + 7] for i in range(0, len(crlf), 7)]), answer)  # any pieces

    def test_a_stream_cut_at_any_event_is_an_error_naming_what_is_incomplete(self):
        for (api, name), (answer, stream) in self.streams.items():
            events = events_of(stream)
            for k in range(len(events)):
                with self.subTest(api=api, turn=name, events=k):
                    with self.assertRaises(LLMError) as caught:
                        self.read(api, io.StringIO("".join(events[:k])))
                    message = str(caught.exception)
                    end = "message_stop" if api == "anthropic" else "data: [DONE]"
                    self.assertIn(f"before {end}" if k else "before", message)
                    opened = "".join(events[:k])
                    if api == "anthropic" and opened.count("content_block_start") > opened.count("content_block_stop"):
                        self.assertIn("was cut", message)  # the open block is named
                    if api == "openai" and 0 < k < len(events) - 2:  # before the finish_reason
                        self.assertIn("choice 0 has no finish_reason", message)
            with self.subTest(api=api, turn=name, events="all"):
                self.assertEqual(self.read(api, io.StringIO(stream)), answer)
            with self.subTest(api=api, turn=name, events="half of the last"):
                with self.assertRaises(LLMError):
                    self.read(api, io.StringIO(stream[:-len(events[-1]) // 2]))

    def test_a_cut_inside_a_call_s_json_names_the_call(self):
        for api in ("anthropic", "openai"):
            answer, stream = self.streams[api, "one call"]
            events = events_of(stream)
            first_piece = next(i for i, e in enumerate(events) if '{\\"value' in e)
            with self.subTest(api):
                with self.assertRaises(LLMError) as caught:
                    self.read(api, io.StringIO("".join(events[:first_piece + 1])))
                message = str(caught.exception)
                self.assertIn("convert_temperature", message)
                self.assertIn("was cut inside its " + ("input" if api == "anthropic" else "arguments"), message)
                self.assertIn("16 characters", message)  # one piece of the JSON had come

    def test_an_error_event_mid_stream_is_an_error_with_the_api_s_message(self):
        error = {"anthropic": 'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", '
                              '"message": "Overloaded"}}\n\n',
                 "openai": 'data: {"error": {"message": "The server had an error while processing your request.", '
                           '"type": "server_error", "param": null, "code": null}}\n\n'}
        for api, said in (("anthropic", "overloaded_error: Overloaded"),
                          ("openai", "server_error: The server had an error while processing your request.")):
            events = events_of(self.streams[api, "one call"][1])
            with self.subTest(api):
                with self.assertRaises(LLMError) as caught:
                    self.read(api, io.StringIO("".join(events[:3]) + error[api] + "".join(events[3:])))
                self.assertIn(said, str(caught.exception))

    def test_a_call_is_reported_done_before_the_stream_ends(self):
        for api in ("anthropic", "openai"):
            _, stream = self.streams[api, "two parallel calls"]
            lines, seen = stream.splitlines(keepends=True), []

            def fed():
                for n, line in enumerate(lines):
                    seen.append(("line", n))
                    yield line

            with self.subTest(api):
                self.read(api, fed(), lambda kind, info: seen.append((kind, info.get("name"), info.get("arguments"))))
                calls = [e for e in seen if e[0] in ("call_start", "call_done")]
                self.assertEqual(calls, [("call_start", "add", None), ("call_done", "add", {"a": 2, "b": 3}),
                                         ("call_start", "add", None), ("call_done", "add", {"a": 4, "b": 5})])
                first_done = seen.index(calls[1])
                self.assertLess(sum(1 for e in seen[:first_done] if e[0] == "line"), len(lines) - 4)

    def test_demo_6_natively_each_call_is_done_at_the_event_that_closes_it(self):
        message, completion = bfcl_lab.streamed_reply_natively()
        whole = tool_core.parse_tool_calls(tool_core.STREAMED_REPLY).items
        self.assertEqual([(b["name"], b["input"]) for b in message["content"][1:]], [(c.name, c.arguments) for c in whole])
        anthropic = bfcl_lab.anthropic_events(message)
        stops = [n for n, e in enumerate(anthropic, 1) if e.startswith("event: content_block_stop\n")]  # of blocks 0-2
        chunks = bfcl_lab.openai_chunks(completion)
        data = [json.loads(c.removeprefix("data: ")) for c in chunks[:-1]]  # the last is data: [DONE]
        firsts = [n for n, c in enumerate(data, 1) if (c["choices"][0]["delta"].get("tool_calls") or [{}])[0].get("id")]
        finish = next(n for n, c in enumerate(data, 1) if c["choices"][0]["finish_reason"])
        table = [line.split() for line in bfcl_lab.demo_native_streams().splitlines()
                 if line.startswith(("Anthropic ", "OpenAI "))]
        self.assertEqual([row[:6] for row in table],
                         [["Anthropic", str(len(anthropic)), "event", str(stops[1]), "event", str(stops[2])],
                          ["OpenAI", str(len(chunks)), "event", str(firsts[1]), "event", str(finish)]])
        self.assertLess(finish, len(chunks))  # before the stream's end
        self.assertTrue(bfcl_lab.demo_native_streams().endswith("unstreamed: yes."))

    def test_text_arrives_piece_by_piece(self):
        pieces = []
        self.read("anthropic", io.StringIO(self.streams["anthropic", "text only"][1]),
                  lambda kind, info: pieces.append(info["text"]) if kind == "text" else None)
        self.assertEqual("".join(pieces), TURNS["text only"].text)
        self.assertEqual(len(pieces), 4)  # 51 characters in pieces of 16

    def test_arguments_that_are_no_json_stay_as_written(self):
        _, stream = self.streams["openai", "one call"]
        broken = stream.replace('\\"celsius\\"}', '\\"celsius\\"', 1)  # the model left its object open
        call = read_openai_stream(io.StringIO(broken))["choices"][0]["message"]["tool_calls"][0]
        self.assertTrue(call["function"]["arguments"].endswith('"celsius"'))
        text, items = interfaces.OpenAI().read_calls({"role": "assistant", "tool_calls": [call]})
        self.assertEqual(items[0].kind, "invalid_json")  # a malformed call, never "no call"


class Backends(unittest.TestCase):
    """AnthropicBackend and OpenAIBackend against the stand-in: the same Reply streamed or not; the nine questions."""

    @classmethod
    def setUpClass(cls):
        cls.server = StandIn(bfcl_lab.answers_policy(), key=KEY).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def backends(self, stream: bool, sleep=None) -> list:
        options = {"stream": stream} | ({"sleep": sleep} if sleep else {})
        return [AnthropicBackend(KEY, base_url=self.server.url, **options),
                OpenAIBackend(self.server.url + "/v1", KEY, **options)]

    def test_the_same_reply_streamed_or_not(self):
        table = [  # (turn, tools) -> the Reply both backends must give
            (Turn("Hello there."), None),
            (Turn("", [("add", {"a": 2, "b": 3})]), [bfcl_lab.ADD]),
            (Turn("Let me add.", [("add", {"a": 2, "b": 3}), ("add", {"a": 4, "b": 5})]), [bfcl_lab.ADD]),
            (Turn("I won't.", stop_reason="refusal"), None),
            (Turn('<tool_call>{"name": "add", "arguments": {"a": 2', stop_reason="max_tokens"), None),
        ]
        for turn, docs in table:
            self.server.policy = lambda c, t=turn: t
            for plain, streamed, dialect in zip(self.backends(False), self.backends(True),
                                                (interfaces.Anthropic(), interfaces.OpenAI())):
                with self.subTest(turn=turn, backend=type(plain).__name__):
                    tools = [dialect.tool(t) for t in bfcl_lab.bfcl_tools(docs)] if docs else None
                    one = plain.complete("Be brief.", "What is 2 + 3?", tools)
                    self.assertEqual(streamed.complete("Be brief.", "What is 2 + 3?", tools), one)
                    self.assertEqual(one.text, turn.text)
                    self.assertEqual(one.calls, [{n: a} for n, a in turn.calls] if docs else None)
                    self.assertEqual((one.refused, one.truncated), (turn.refused, turn.cut))

    def test_the_nine_questions_as_model_a_answers_them_in_text_and_native_mode(self):
        self.server.policy = bfcl_lab.answers_policy()
        native_a = {  # model A's calls (section 5), by hand, as native calls
            "simple_0": [{"add": {"a": 2, "b": 3}}],
            "simple_1": [{"convert_temperature": {"value": 100, "from_unit": "fahrenheit", "to_unit": "celsius"}}],
            "simple_2": [{"get_weather": {"city": "San Francisco, California"}}],
            "multiple_0": [{"add": {"a": 2, "b": 3}}], "multiple_1": [{"mult": {"a": 6, "b": 7}}],
            "parallel_0": [{"add": {"a": 4, "b": 5}}, {"add": {"a": 2, "b": 3}}],
            "parallel_multiple_0": [{"add": {"a": 2, "b": 3}}, {"mult": {"a": 4, "b": 5}}],
            "irrelevance_0": [], "irrelevance_1": [{"add": {"a": 0, "b": 0}}]}
        # each API in each mode once, streamed in one of the two (the same Reply either way: the test above)
        (anthropic, _), (_, openai) = self.backends(False), self.backends(True)
        (anthropic_streamed, _), (_, openai_plain) = self.backends(True), self.backends(False)
        table = [(anthropic, None), (openai, None), (anthropic_streamed, interfaces.Anthropic()),
                 (openai_plain, interfaces.OpenAI())]
        for backend, dialect in table:
            with self.subTest(backend=type(backend).__name__, stream=backend.stream, native=dialect is not None):
                if dialect is None:
                    answers, notes = bfcl_lab.ask_model(backend)
                else:
                    answers, notes = bfcl_lab.ask_model(backend, dialect, tool_choice="auto", parallel=True)
                self.assertEqual(answers, native_a if dialect else bfcl_lab.MODEL_A)
                self.assertEqual(set(notes.values()), {""})
        # what the request asks is what model A's written calls are held to (script 07's flags, offline)
        for backend, dialect in table[2:]:
            for choice, parallel, expected in (("none", None, {q: [] for q in native_a}),
                                               ("auto", False, {q: calls[:1] for q, calls in native_a.items()})):
                with self.subTest(backend=type(backend).__name__, tool_choice=choice, parallel=parallel):
                    self.assertEqual(bfcl_lab.ask_model(backend, dialect, choice, parallel)[0], expected)

    def test_a_stream_cut_off_is_an_llm_error_naming_what_is_missing_and_is_not_retried(self):
        self.server.policy = lambda c: Turn("", [CONVERT])
        tools = {"anthropic": [interfaces.Anthropic().tool(t) for t in bfcl_lab.bfcl_tools([bfcl_lab.CONVERT])],
                 "openai": [interfaces.OpenAI().tool(t) for t in bfcl_lab.bfcl_tools([bfcl_lab.CONVERT])]}
        sleeps = []
        self.server.cut_after = 4  # Anthropic: start, ping, block start, one JSON piece; OpenAI: role, call, 2 pieces
        try:
            for backend, api, words in zip(self.backends(True, sleeps.append), ("anthropic", "openai"),
                                           ("was cut inside its input", "was cut inside its arguments")):
                with self.subTest(api):
                    before = len(self.server.log)
                    with self.assertRaises(LLMError) as caught:
                        backend.complete("Be brief.", "Convert 100 degrees Fahrenheit to Celsius.", tools[api])
                    self.assertIn(words, str(caught.exception))
                    self.assertIn("convert_temperature", str(caught.exception))
                    self.assertNotIn(KEY, str(caught.exception))
                    self.assertEqual(len(self.server.log), before + 1)
        finally:
            self.server.cut_after = None
        self.assertEqual(sleeps, [])

    def test_a_wrong_key_is_refused_and_never_shown(self):
        for backend in (AnthropicBackend("sk-wrong-" + KEY, base_url=self.server.url, stream=True),
                        OpenAIBackend(self.server.url + "/v1", "sk-wrong-" + KEY)):
            with self.subTest(type(backend).__name__):
                with self.assertRaises(LLMError) as caught:
                    backend.complete("Be brief.", "What is 2 + 3?")
                self.assertIn("HTTP 401", str(caught.exception))
                self.assertNotIn(KEY, str(caught.exception))

    def test_progress_reaches_the_backend_s_caller(self):
        self.server.policy = lambda c: Turn("Adding.", [("add", {"a": 2, "b": 3})])
        seen = []
        backend = OpenAIBackend(self.server.url + "/v1", KEY, stream=True, on_event=lambda kind, info: seen.append(kind))
        backend.complete("Be brief.", "What is 2 + 3?", [interfaces.OpenAI().tool(t) for t in bfcl_lab.bfcl_tools([bfcl_lab.ADD])])
        self.assertEqual(seen, ["text", "call_start", "call_done"])


class Policies(unittest.TestCase):
    """policy_from_lm and answers_policy: the lab's scripted models as the stand-in's model (no server needed)."""

    def test_a_scripted_lm_sees_the_text_protocol_and_its_calls_become_native(self):
        lm = tool_core.ScriptedLM(['Sure. <tool_call>{"name": "add", "arguments": {"a": 2, "b": 3}}</tool_call>'
                                   '<tool_result id="x">5</tool_result>'])
        conversation = Conversation("openai", "m", [
            {"role": "user", "content": "Add."},
            {"role": "assistant", "content": "", "calls": [tool_core.ToolCall("add", {"a": 1, "b": 1}, id="call_1")]},
            {"role": "tool", "id": "call_1", "name": "add", "content": "2", "error": False}],
            tools=[{"name": "add", "description": "Add.", "parameters": ADD_SCHEMA}], stop=["<tool_result"])
        turn = bfcl_lab.policy_from_lm(lm)(conversation)
        self.assertEqual((turn.text, turn.calls, turn.stop_sequence), ("Sure.", [("add", {"a": 2, "b": 3})],
                                                                       "<tool_result"))
        shown = lm.prompts[0]
        self.assertEqual([m["role"] for m in shown], ["system", "user", "assistant", "tool"])
        self.assertIn('{"name": "add", "description": "Add."', shown[0]["content"])  # the tools, in the prompt
        self.assertEqual(shown[2]["content"], '<tool_call>{"name": "add", "arguments": {"a": 1, "b": 1}}</tool_call>')
        self.assertEqual(shown[3]["content"], '<tool_result name="add" id="call_1">2</tool_result>')

    def test_answers_policy_tells_two_questions_of_one_text_apart_by_their_tools(self):
        answers = dict(bfcl_lab.MODEL_A, simple_0="simple", multiple_0="multiple")
        policy = bfcl_lab.answers_policy(answers)
        for names, expected in ((["add"], "simple"), (["add", "mult"], "multiple")):
            with self.subTest(names):
                tools = [{"name": n, "description": "", "parameters": ADD_SCHEMA} for n in names]
                conversation = Conversation("anthropic", "m", [{"role": "user", "content": "What is 2 + 3?"}], tools)
                self.assertEqual(policy(conversation).text, expected)


if __name__ == "__main__":
    unittest.main()
