"""MCP beyond tools, over the three transports: resources, templates, prompts, completion, logging, progress,
cancellation, content blocks, structured output, sampling, elicitation, ping from the server.

Expected values come from the MCP specification (revisions 2024-11-05 to 2025-11-25: server/resources,
server/prompts, server/utilities/completion and logging, basic/utilities/progress, cancellation and ping,
server/tools (content, outputSchema and structuredContent), client/sampling, client/elicitation,
basic/transports (Streamable HTTP: SSE answers, GET streams, 405/406/409, Last-Event-ID, SEP-1699 priming
events)), JSON-RPC 2.0's error codes, and the texts the official conformance suite's scenarios name, as
tests/conformance_server.py serves them. Every server, client and process a test starts, it stops; all on
127.0.0.1. The core flows run over InProcess, Streamable HTTP and stdio (one subprocess per stdio class).
"""
import base64
import http.client
import json
import os
import re
import sys
import threading
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # for conformance_server, however the tests are started

import conformance_server  # noqa: E402
import interfaces  # noqa: E402
from interfaces import (TINY_PNG, TINY_WAV, Cancelled, InProcess, MCPClient, MCPHttpServer, MCPServer,  # noqa: E402
                        Resource, RPCError, Stdio, StreamableHTTP, mcp_call)
from tool_core import ScriptedLM, Tool, ToolRegistry  # noqa: E402

INVALID_PARAMS, INTERNAL_ERROR = -32602, -32603  # JSON-RPC 2.0, section 5.1
NO_ARGUMENTS = {"type": "object", "properties": {}}
STDIO = [sys.executable, str(ROOT / "tests" / "conformance_server.py"), "--stdio"]
STDIO_ENV = os.environ | {"CONFORMANCE_STEP": "0.005"}  # the fixture's long tools, ten times faster
conformance_server.STEP = 0.005  # the same in this process
TIMEOUT = 3.0

# The conformance suite's texts (tests/conformance_server.py names them as its scenarios do)
STATIC_TEXT = "This is the content of the static text resource."
RESOURCE_URIS = ["test://static-text", "test://static-binary", "test://watched-resource"]
TEMPLATE = "test://template/{id}/data"
PROMPT_NAMES = ["test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource",
                "test_prompt_with_image", "test_input_required_result_prompt"]  # the last: 2026-07-28's MRTR scenario
ARGS_PROMPT = {"type": "ref/prompt", "name": "test_prompt_with_arguments"}
LOG_TEXTS = ["Tool execution started", "Tool processing data", "Tool execution completed"]
ACCEPTED = {"username": "ada", "email": "ada@example.com"}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def texts(result: dict) -> str:
    return " ".join(b.get("text", "") for b in result.get("content", []) if b.get("type") == "text")


def wait_until(condition, timeout: float = 2.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


def wire(client: MCPClient, direction: str = "<-") -> list[dict]:
    """The messages of one direction, decoded."""
    return [json.loads(text) for d, text in client.messages if d == direction]


def elicitor_of(action: str, content: dict | None = None):
    def elicitor(message: str, schema: dict) -> dict:
        return {"action": action} | ({"content": content} if content is not None else {})
    return elicitor


class FakeServer:
    """A server written as its messages (for MCPClient through interfaces.Exchange): initialize is answered here,
    every other request by `answer(request) -> the messages sent back`, notifications by nothing."""

    def __init__(self, answer):
        self.answer = answer

    def exchange(self, text: str) -> list[str]:
        message = json.loads(text)
        if message.get("method") == "initialize":
            return [json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                "serverInfo": {"name": "fake", "version": "1"}}})]
        return [json.dumps(m) for m in self.answer(message)] if "id" in message else []

    def close(self) -> None:
        pass


# --- Small tools of our own, with short steps (the fixture's are 50 ms apart) ---

class Countdown:
    """A tool that reports progress each step, waits for the test's go-ahead (or a cancel) before the next one, and
    records how far it got: what a cancel interrupts is decided by the order of events, not by the machine's speed."""

    def __init__(self, steps: int = 25):
        self.steps, self.reached, self.ended, self.how = steps, [], threading.Event(), None
        self.go = [threading.Event() for _ in range(steps)]  # go[i]: step i may start

    def __call__(self) -> str:
        call = mcp_call()
        try:
            for i in range(self.steps):
                if i:
                    call.wait_for(self.go[i])
                self.reached.append(i)
                call.progress(i, self.steps)
            self.how = "finished"
            return "finished"
        except Cancelled:
            self.how = "cancelled"
            raise
        finally:
            self.ended.set()


def quick_progress() -> str:
    """The fixture's progress tool with 5 ms steps instead of 50 ms."""
    call = mcp_call()
    for i, done in enumerate((0, 50, 100)):
        if i:
            call.sleep(0.005)
        call.progress(done, 100, f"{done}% done")
    return "Progress tool completed"


def quick_logging() -> str:
    """The fixture's logging tool without its pauses."""
    call = mcp_call()
    for text in LOG_TEXTS:
        call.log("info", text, logger="conformance")
    return "Logging tool completed: 3 messages sent"


def log_levels() -> str:
    call = mcp_call()
    for level in ("debug", "info", "warning", "error"):
        call.log(level, f"a {level} message")
    return "logged"


TOTAL_SCHEMA = {"type": "object", "properties": {"total": {"type": "integer"}}, "required": ["total"]}


def full_server(countdown: Countdown | None = None, **options) -> MCPServer:
    """The conformance fixture plus our own tools, and a resource whose reader returns more than the bound."""
    resources, templates, prompts = conformance_server.conformance_primitives()
    huge = Resource("test://huge", "huge", lambda: "x" * (interfaces.MAX_RESOURCE_BYTES + 1))
    tools = conformance_server.conformance_tools() + [
        Tool("countdown", "Count down in 20 ms steps", NO_ARGUMENTS, countdown or Countdown(), read_only=True),
        Tool("log_levels", "Log at four levels", NO_ARGUMENTS, log_levels, read_only=True),
        Tool("quick_progress", "Report progress 0, 50 and 100 of 100", NO_ARGUMENTS, quick_progress, read_only=True),
        Tool("quick_logging", "Send three log messages", NO_ARGUMENTS, quick_logging, read_only=True),
        Tool("fits", "Return an object that fits its output schema", NO_ARGUMENTS, lambda: {"total": 3},
             read_only=True, output_schema=TOTAL_SCHEMA),
        Tool("misfits", "Return an object that does not fit its output schema", NO_ARGUMENTS,
             lambda: {"total": "three"}, read_only=True, output_schema=TOTAL_SCHEMA),
    ]
    return MCPServer(ToolRegistry(tools), resources=resources + [huge], templates=templates, prompts=prompts,
                     **options)


class Connect:
    """Open an initialized MCPClient to a server over one transport; everything is closed by addCleanup.

    Without a server of its own, a test connects to its class's shared full_server() (over HTTP, one endpoint
    for the class): a session each, so the tests still share nothing but the tools' definitions."""

    transport = "in-process"
    era = "2025-11-25"  # the revision the client speaks: 2026-07-28 has it connect() (server/discover, no handshake)
    shared_server = shared_endpoint = None

    @classmethod
    def shared(cls):
        if cls.__dict__.get("shared_server") is None:
            cls.shared_server = full_server()
            cls.addClassCleanup(cls.shared_server.close)
            if cls.transport == "http":  # a stream whose client left is noticed at once (2026: that is a cancel)
                cls.shared_endpoint = MCPHttpServer(cls.shared_server, stream_check=0.02).start()
                cls.addClassCleanup(cls.shared_endpoint.stop)
        return cls.shared_server, cls.__dict__.get("shared_endpoint")

    def connect(self, server: MCPServer | None = None, **options) -> MCPClient:
        options.setdefault("timeout", TIMEOUT)
        endpoint = None
        if server is None:
            server, endpoint = self.shared()
        if self.transport == "http":
            if endpoint is None:
                endpoint = MCPHttpServer(server, stream_check=0.02).start()
                self.addCleanup(endpoint.stop)
            client = MCPClient(StreamableHTTP(endpoint.url, timeout=TIMEOUT), **options)
        else:
            client = MCPClient(InProcess(server.session()), **options)
        self.addCleanup(client.close)
        start(client, self.era)
        return client


def start(client: MCPClient, era: str) -> None:
    """Say who the client is in this era: the handshake, or 2026-07-28's discovery (which connect() picks itself)."""
    if era in interfaces.MODERN_VERSIONS:
        assert client.connect() == era, client.protocol_version
    else:
        client.initialize()


def round_trip(client: MCPClient) -> None:
    """One request answered: ping in the handshake era, tools/list in 2026-07-28, which has no ping."""
    if client.protocol_version in interfaces.MODERN_VERSIONS:
        assert isinstance(client.request("tools/list"), dict)
    else:
        assert client.request("ping") == {}


# --- The core flows, once per transport ---

class CoreFlows:
    """Run by each transport's class: `self.client()` gives a client with a sampler and an accepting elicitor."""

    def test_read_text_resource(self):
        self.assertEqual(self.client().read_resource("test://static-text"),
                         [{"uri": "test://static-text", "mimeType": "text/plain", "text": STATIC_TEXT}])

    def test_read_template(self):
        contents = self.client().read_resource("test://template/42/data")
        self.assertEqual((contents[0]["uri"], contents[0]["mimeType"]), ("test://template/42/data", "application/json"))
        self.assertEqual(json.loads(contents[0]["text"]), {"id": "42", "templateTest": True, "data": "Data for ID: 42"})

    def test_get_prompt(self):
        result = self.client().get_prompt("test_prompt_with_arguments", {"arg1": "hello", "arg2": "world"})
        self.assertEqual(result["messages"], [{"role": "user", "content": {
            "type": "text", "text": "Prompt with arguments: arg1='hello', arg2='world'"}}])

    def test_progress(self):
        seen = []
        result = self.client().call_tool(self.progress_tool, {}, on_progress=seen.append)
        self.assertEqual(texts(result), "Progress tool completed")
        self.assertEqual([p["progress"] for p in seen], [0, 50, 100])
        self.assertEqual({p["total"] for p in seen}, {100})

    def test_sampling(self):
        client = self.client()
        before = len(client.shown)
        result = client.call_tool("test_sampling", {"prompt": "What is the capital of France?"})
        self.assertFalse(result["isError"], result)
        self.assertEqual(texts(result), "LLM response: Paris is the capital.")
        self.assertEqual(len(client.shown), before + 1)
        self.assertIn("What is the capital of France?", client.shown[-1])

    def test_elicitation_accept(self):
        result = self.client().call_tool("test_elicitation", {"message": "Who are you?"})
        self.assertEqual(texts(result), f"User response: action=accept, content={json.dumps(ACCEPTED)}")

    def test_how_the_server_asks_the_user_in_each_era(self):
        client = self.client()
        before = len(client.messages)  # over stdio the client is the class's: only this call's messages count
        client.call_tool("test_elicitation", {"message": "Who are you?"})
        received = [json.loads(text) for way, text in client.messages[before:] if way == "<-"]
        requests = [m["method"] for m in received if "method" in m and "id" in m]
        asked = [m for m in received if isinstance(m.get("result"), dict)
                 and m["result"].get("resultType") == "input_required"]
        if self.era in interfaces.MODERN_VERSIONS:  # MRTR: the question is the call's first result
            self.assertEqual((requests, [list(m["result"]["inputRequests"]) for m in asked]), ([], [["elicitation_1"]]))
        else:  # a request of the server's own, answered by the client before the call's result
            self.assertEqual((requests, asked), (["elicitation/create"], []))

    def test_cancellation(self):
        client = self.client(fresh=True)
        seen = []
        name, stop_after = self.cancellable

        def on_progress(params):
            seen.append(params["progress"])
            if len(seen) == stop_after:
                return False
            self.next_step(params["progress"])
            return True
        with self.assertRaises(Cancelled):
            client.call_tool(name, {}, on_progress=on_progress)
        call_id = next(m["id"] for m in wire(client, "->") if m.get("method") == "tools/call"
                       and m["params"]["name"] == name)
        cancels = [m for m in wire(client, "->") if m.get("method") == "notifications/cancelled"]
        closed_stream = self.era in interfaces.MODERN_VERSIONS and self.transport == "http"  # 2026's cancel over HTTP
        self.assertEqual([m["params"]["requestId"] for m in cancels], [] if closed_stream else [call_id])
        self.assertEqual(len(seen), stop_after)
        round_trip(client)  # the session (2026: the connection) goes on after a cancel
        self.check_stopped(client, call_id)

    def next_step(self, progress):
        self.countdown.go[progress + 1].set()

    def check_stopped(self, client, call_id):
        """Over stdio the fixture's tool runs in another process at its own pace: the specification lets its response
        cross the cancel, so all a client can count on is that it never hands that response to anyone."""
        answers = [m for m in wire(client) if "method" not in m and m.get("id") == call_id]
        self.assertLessEqual(len(answers), 1)


class CoreInProcess(Connect, CoreFlows, unittest.TestCase):
    cancellable, progress_tool = ("countdown", 2), "quick_progress"

    def client(self, fresh: bool = False, **options) -> MCPClient:
        """A client of the shared server, or (fresh) of a server of its own, whose countdown the test can see."""
        options.setdefault("sampler", interfaces.model_sampler(ScriptedLM(["Paris is the capital."])))
        options.setdefault("elicitor", elicitor_of("accept", ACCEPTED))
        self.countdown = Countdown()
        return self.connect(full_server(self.countdown) if fresh else None, **options)

    def check_stopped(self, client, call_id):
        """The countdown waits for each go-ahead: the cancel finds it waiting for step 2, so it stops there, and the
        call gets no response (the specification's SHOULD NOT, which a server that stops in time can keep)."""
        self.assertTrue(self.countdown.ended.wait(TIMEOUT))
        self.assertEqual((self.countdown.how, self.countdown.reached), ("cancelled", [0, 1]))
        round_trip(client)  # a round trip after the tool ended: its response would be in
        answers = [m for m in wire(client) if "method" not in m and m.get("id") == call_id]
        self.assertEqual(answers, [], "a cancelled request gets no response")


class CoreOverHTTP(CoreInProcess):
    transport = "http"


class CoreInProcess2026(CoreInProcess):
    """The same flows in 2026-07-28: no handshake, every request on its own; sampling and elicitation come back as
    the call's input_required result, which MCPClient answers and sends again (MRTR)."""
    era = "2026-07-28"


class CoreOverHTTP2026(CoreOverHTTP):
    """The same over HTTP in 2026-07-28: no session, routing headers on every POST, a cancel closes the stream."""
    era = "2026-07-28"


STDIO_SERVER = {}


def setUpModule():
    """Launch the stdio classes' subprocesses now, so that they boot (import interfaces) while the other classes run."""
    for era in ("2025-11-25", "2026-07-28"):
        STDIO_SERVER[era] = Stdio(STDIO, env=STDIO_ENV, timeout=TIMEOUT)
        unittest.addModuleCleanup(STDIO_SERVER[era].close)


class CoreOverStdio(CoreFlows, unittest.TestCase):
    """One subprocess for the class (launched by setUpModule): the fixture alone, so cancellation uses its
    progress tool (steps of CONFORMANCE_STEP: 5 ms here, 50 ms for the conformance suite)."""

    cancellable, progress_tool = ("test_tool_with_progress", 2), "test_tool_with_progress"
    transport = "stdio"

    def next_step(self, progress):
        pass  # the fixture's tool goes on by itself

    era = "2025-11-25"

    @classmethod
    def setUpClass(cls):
        transport = STDIO_SERVER.get(cls.era) or Stdio(STDIO, env=STDIO_ENV, timeout=TIMEOUT)  # run alone: launch it here
        cls.shared = MCPClient(transport, timeout=TIMEOUT,
                               sampler=interfaces.model_sampler(ScriptedLM(lambda m: "Paris is the capital.")),
                               elicitor=elicitor_of("accept", ACCEPTED))
        cls.addClassCleanup(transport.process.stdin.close)  # its cue to exit; setUpModule's cleanup waits for it
        start(cls.shared, cls.era)

    def client(self, fresh: bool = False) -> MCPClient:
        return self.shared

    def test_blob_and_lists(self):
        blob = self.shared.read_resource("test://static-binary")[0]
        self.assertEqual((blob["mimeType"], base64.b64decode(blob["blob"])), ("image/png", TINY_PNG))
        self.assertEqual([r["uri"] for r in self.shared.list_resources()], RESOURCE_URIS)
        self.assertEqual([p["name"] for p in self.shared.list_prompts()], PROMPT_NAMES)

    def test_unknown_uri(self):
        with self.assertRaises(RPCError) as caught:
            self.shared.read_resource("test://nope")
        self.assertEqual(caught.exception.code, INVALID_PARAMS)
        self.assertIn("test://nope", caught.exception.message)


class CoreOverStdio2026(CoreOverStdio):
    """The same over stdio in 2026-07-28 (a process of its own): every line a request on its own."""
    era = "2026-07-28"

    def test_tasks_over_stdio(self):
        """The tasks extension where the reading thread runs the call: the handle goes out while the tool goes on."""
        client = self.shared
        client.tasks, client.pause = True, lambda seconds: threading.Event().wait(0.005)
        self.addCleanup(setattr, client, "tasks", False)
        self.assertEqual(texts(client.call_tool("slow_compute", {"seconds": 0.02, "label": "stdio"})),
                         "Computed stdio in 0.02 s.")
        with self.assertRaises(RPCError) as caught:
            client.call_tool("protocol_error_job", {})
        self.assertEqual((caught.exception.code, caught.exception.message),
                         (INTERNAL_ERROR, "Internal error: the job's backend went away"))
        sent = [json.loads(text) for direction, text in client.messages if direction == "->"]
        self.assertIn("tasks/get", [m.get("method") for m in sent])


# --- Resources ---

class ResourceTests(Connect, unittest.TestCase):
    def setUp(self):
        self.client = self.connect()

    def test_lists(self):
        listed = self.client.list_resources()
        self.assertEqual([r["uri"] for r in listed], RESOURCE_URIS + ["test://huge"])
        static = listed[0]
        self.assertEqual((static["name"], static["mimeType"]), ("static-text", "text/plain"))
        self.assertEqual(listed[1]["mimeType"], "image/png")
        templates = self.client.list_resource_templates()
        self.assertEqual([(t["uriTemplate"], t["name"], t["mimeType"]) for t in templates],
                         [(TEMPLATE, "template", "application/json")])
        self.assertEqual(self.client.server_capabilities["resources"], {"subscribe": True, "listChanged": True})

    def test_read_blob(self):
        contents = self.client.read_resource("test://static-binary")
        self.assertEqual(len(contents), 1)
        self.assertEqual((contents[0]["uri"], contents[0]["mimeType"]), ("test://static-binary", "image/png"))
        self.assertNotIn("text", contents[0])
        self.assertEqual(base64.b64decode(contents[0]["blob"]), TINY_PNG)

    def test_template_substitutes_the_decoded_variable(self):
        text = self.client.read_resource("test://template/a%20b/data")[0]["text"]
        self.assertEqual(json.loads(text)["id"], "a b")

    def test_unknown_uri(self):
        for uri in ("test://nope", "test://template/1/2/data", "test://static-text-x", "test://static-text/x"):
            with self.subTest(uri=uri), self.assertRaises(RPCError) as caught:
                self.client.read_resource(uri)
            self.assertEqual(caught.exception.code, INVALID_PARAMS)
            self.assertIn(uri, caught.exception.message)

    def test_reader_over_the_bound_is_an_error_not_a_crash(self):
        with self.assertRaises(RPCError) as caught:
            self.client.read_resource("test://huge")
        self.assertEqual(caught.exception.code, INTERNAL_ERROR)
        self.assertIn(str(interfaces.MAX_RESOURCE_BYTES + 1), caught.exception.message)
        self.assertEqual(self.client.read_resource("test://static-text")[0]["text"], STATIC_TEXT)  # still serving

    def test_subscribe_updated_unsubscribe(self):
        self.server = full_server()
        self.client = self.connect(self.server)
        uri = "test://watched-resource"
        self.client.subscribe(uri)
        interfaces.resource_changed(self.server, "test://static-text")  # not subscribed: nothing comes
        interfaces.resource_changed(self.server, uri)
        got = []
        self.assertTrue(wait_until(lambda: got.extend(self.client.updated()) or got), "no resources/updated")
        self.assertEqual(got, [uri])
        self.client.unsubscribe(uri)
        interfaces.resource_changed(self.server, uri)
        self.assertEqual(self.client.request("ping"), {})
        time.sleep(0.02)
        self.assertEqual(self.client.updated(), [])

    def test_subscribe_unknown_uri(self):
        with self.assertRaises(RPCError) as caught:
            self.client.subscribe("test://nope")
        self.assertEqual(caught.exception.code, INVALID_PARAMS)

    def test_set_resources_announces_list_changed(self):
        self.server = full_server()
        self.client = self.connect(self.server)
        interfaces.set_resources(self.server, [Resource("test://only", "only", lambda: "only")])
        changed = lambda: self.client.updated() is not None and any(  # noqa: E731 - updated() takes what arrived
            n["method"] == "notifications/resources/list_changed" for n in self.client.notifications)
        self.assertTrue(wait_until(changed), "no resources/list_changed")
        self.assertEqual([r["uri"] for r in self.client.list_resources()], ["test://only"])
        self.assertEqual(self.client.list_resource_templates(), [])


class HTTPResourceTests(ResourceTests):
    transport = "http"


# --- Prompts and completion ---

class PromptTests(Connect, unittest.TestCase):
    def setUp(self):
        self.client = self.connect()

    def test_list(self):
        listed = self.client.list_prompts()
        self.assertEqual([p["name"] for p in listed], PROMPT_NAMES)
        self.assertEqual(listed[1]["arguments"], [
            {"name": "arg1", "description": "First test argument", "required": True},
            {"name": "arg2", "description": "Second test argument", "required": True}])

    def test_get(self):
        self.assertEqual(self.client.get_prompt("test_simple_prompt")["messages"],
                         [{"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}])
        result = self.client.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
        self.assertEqual(result["description"], "A prompt with required arguments")
        self.assertEqual(result["messages"][0]["content"]["text"], "Prompt with arguments: arg1='a', arg2='b'")
        embedded = self.client.get_prompt("test_prompt_with_embedded_resource", {"resourceUri": "test://x"})["messages"]
        self.assertEqual(embedded[0]["content"], {"type": "resource", "resource": {
            "uri": "test://x", "mimeType": "text/plain", "text": "Embedded resource content for testing."}})
        image = self.client.get_prompt("test_prompt_with_image")["messages"][0]["content"]
        self.assertEqual((image["type"], image["mimeType"], base64.b64decode(image["data"])),
                         ("image", "image/png", TINY_PNG))

    def test_missing_required_argument(self):
        with self.assertRaises(RPCError) as caught:
            self.client.get_prompt("test_prompt_with_arguments", {"arg1": "a"})
        self.assertEqual(caught.exception.code, INVALID_PARAMS)
        self.assertIn("arg2", caught.exception.message)

    def test_unknown_prompt(self):
        with self.assertRaises(RPCError) as caught:
            self.client.get_prompt("no_such_prompt")
        self.assertEqual(caught.exception.code, INVALID_PARAMS)
        self.assertIn("no_such_prompt", caught.exception.message)

    def test_completion(self):
        self.assertEqual(self.client.complete(ARGS_PROMPT, "arg1", "pa"), ["paris", "park", "party"])
        self.assertEqual(self.client.complete(ARGS_PROMPT, "arg1", "park"), ["park"])
        self.assertEqual(self.client.complete(ARGS_PROMPT, "arg1", "x"), [])
        self.assertIn("completions", self.client.server_capabilities)
        with self.assertRaises(RPCError) as caught:
            self.client.complete({"type": "ref/prompt", "name": "no_such_prompt"}, "arg1", "")
        self.assertEqual(caught.exception.code, INVALID_PARAMS)

    def test_completion_context_from_2025_06_18(self):
        # context.arguments came with 2025-06-18: the host sends it from that revision on, and the server reads it
        def ids(value: str, context: dict) -> list[str]:
            return [context.get("kind", "?") + value]
        template = interfaces.ResourceTemplate("test://{kind}/{id}", "kinds", lambda kind, id: "", complete={"id": ids})
        server = MCPServer(ToolRegistry(), templates=[template])
        self.addCleanup(server.close)
        ref = {"type": "ref/resource", "uri": "test://{kind}/{id}"}
        for version, values in (("2025-03-26", ["?7"]), ("2025-06-18", ["book7"]), ("2025-11-25", ["book7"])):
            with self.subTest(version=version):
                client = self.connect(server, protocol_version=version)
                self.assertEqual(client.protocol_version, version)
                self.assertEqual(client.complete(ref, "id", "7", {"kind": "book"}), values)
                sent = wire(client, "->")[-1]
                self.assertEqual((sent["method"], "context" in sent["params"]),
                                 ("completion/complete", version >= "2025-06-18"))


# --- Logging, progress ---

class LoggingTests(Connect, unittest.TestCase):
    logging_tool = "test_tool_with_logging"  # the fixture's (50 ms steps; its progress tool runs in CoreOverStdio)

    def test_logging_tool_messages_arrive_before_the_result(self):
        client = self.connect()
        result = client.call_tool(self.logging_tool, {})
        self.assertEqual(texts(result), "Logging tool completed: 3 messages sent")
        self.assertEqual([(m["level"], m["data"], m.get("logger")) for m in client.logs],
                         [("info", text, "conformance") for text in LOG_TEXTS])
        incoming = wire(client)
        call_id = wire(client, "->")[-1]["id"]
        answer_at = next(i for i, m in enumerate(incoming) if m.get("id") == call_id and "result" in m)
        logged_at = [i for i, m in enumerate(incoming) if m.get("method") == "notifications/message"]
        self.assertEqual(len(logged_at), 3)
        self.assertLess(max(logged_at), answer_at)

    def test_set_level_filters(self):
        client = self.connect()
        client.call_tool("log_levels", {})
        self.assertEqual([m["level"] for m in client.logs], ["info", "warning", "error"])  # info is the default
        client.logs.clear()
        client.set_log_level("warning")
        client.call_tool("log_levels", {})
        self.assertEqual([m["data"] for m in client.logs], ["a warning message", "a error message"])

    def test_invalid_level(self):
        client = self.connect()
        with self.assertRaises(RPCError) as caught:
            client.set_log_level("verbose")
        self.assertEqual(caught.exception.code, INVALID_PARAMS)


class ProgressTests(Connect, unittest.TestCase):
    def test_progress_messages_and_token(self):
        client = self.connect()
        seen = []
        client.call_tool("quick_progress", {}, on_progress=seen.append)
        self.assertEqual([(p["progress"], p["total"], p.get("message")) for p in seen],
                         [(0, 100, "0% done"), (50, 100, "50% done"), (100, 100, "100% done")])
        token = wire(client, "->")[-1]["params"]["_meta"]["progressToken"]
        self.assertEqual({p["progressToken"] for p in seen}, {token})

    def test_progress_of_another_request_is_not_this_calls(self):
        # the server sends progress for other tokens while our call runs (an earlier request's, the initialize
        # request's id 1; a token that only extends ours; our request's id, a number, not our token): the caller's
        # handler sees exactly the progress sent with its own token, and the rest stays an unread notification
        def answer(request: dict) -> list[dict]:
            mine = request["params"]["_meta"]["progressToken"]
            progress = [(1, "progress-1"), (2, mine), (3, mine + "0"), (4, request["id"]), (5, mine)]
            return [{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token,
                                                                                     "progress": n}}
                    for n, token in progress] + [{"jsonrpc": "2.0", "id": request["id"], "result": {"content": []}}]
        client = MCPClient(FakeServer(answer), timeout=TIMEOUT)
        self.addCleanup(client.close)
        client.initialize()
        seen = []
        client.call_tool("anything", {}, on_progress=seen.append)
        self.assertEqual(wire(client, "->")[-1]["params"]["_meta"], {"progressToken": "progress-2"})
        self.assertEqual([(p["progress"], p["progressToken"]) for p in seen], [(2, "progress-2"), (5, "progress-2")])
        self.assertEqual([n["params"]["progress"] for n in client.notifications], [1, 3, 4])

    def test_no_progress_without_a_token(self):
        client = self.connect()
        result = client.call_tool("quick_progress", {})
        self.assertEqual(texts(result), "Progress tool completed")
        self.assertNotIn("_meta", wire(client, "->")[-1]["params"])
        self.assertEqual([m for m in wire(client) if m.get("method") == "notifications/progress"], [])

    def test_no_message_field_in_2024_11_05(self):
        client = self.connect(protocol_version="2024-11-05")
        self.assertEqual(client.protocol_version, "2024-11-05")
        seen = []
        client.call_tool("quick_progress", {}, on_progress=seen.append)
        self.assertEqual([p["progress"] for p in seen], [0, 50, 100])
        self.assertEqual([p for p in seen if "message" in p], [])


class HTTPLoggingTests(LoggingTests):
    transport = "http"
    logging_tool = "quick_logging"


# --- Sampling and elicitation ---

class SamplingElicitationTests(Connect, unittest.TestCase):
    def sampler(self):
        self.model = ScriptedLM(["It is 4."])
        return interfaces.model_sampler(self.model)

    def test_sampling(self):
        client = self.connect(sampler=self.sampler())
        self.assertEqual(client.capabilities(), {"sampling": {}})
        result = client.call_tool("test_sampling", {"prompt": "What is 2+2?"})
        self.assertEqual(texts(result), "LLM response: It is 4.")
        self.assertEqual(len(client.shown), 1)
        self.assertIn("What is 2+2?", client.shown[0])
        self.assertEqual(self.model.prompts[0][-1], {"role": "user", "content": "What is 2+2?"})
        requests = [m for m in wire(client) if m.get("method") == "sampling/createMessage"]
        self.assertEqual(len(requests), 1)
        self.assertEqual(requests[0]["params"]["maxTokens"], 100)

    def test_sampling_refused_by_consent(self):
        asked = []
        client = self.connect(sampler=self.sampler(),
                              consent=lambda kind, params: asked.append(kind) and False)
        result = client.call_tool("test_sampling", {"prompt": "What is 2+2?"})
        self.assertTrue(result["isError"])
        self.assertIn("declined", texts(result))
        self.assertEqual(asked, ["sampling"])
        self.assertEqual(len(client.shown), 1)  # shown to the user, then refused
        self.assertEqual(self.model.prompts, [])  # the model never ran

    def test_no_sampler_no_sampling_request(self):
        client = self.connect()
        self.assertEqual(client.capabilities(), {})
        result = client.call_tool("test_sampling", {"prompt": "What is 2+2?"})
        self.assertTrue(result["isError"])
        self.assertIn("did not declare the sampling capability", texts(result))
        self.assertEqual([m for m in wire(client) if m.get("method") == "sampling/createMessage"], [])

    def elicit(self, elicitor, **options) -> tuple[dict, MCPClient]:
        client = self.connect(elicitor=elicitor, **options)
        return client.call_tool("test_elicitation", {"message": "Who are you?"}), client

    def test_accept_decline_cancel(self):
        result, client = self.elicit(elicitor_of("accept", ACCEPTED))
        self.assertEqual(texts(result), f"User response: action=accept, content={json.dumps(ACCEPTED)}")
        self.assertEqual(client.capabilities(), {"elicitation": {}})
        self.assertIn("Who are you?", client.shown[0])
        requested = next(m for m in wire(client) if m.get("method") == "elicitation/create")["params"]
        self.assertEqual(requested["message"], "Who are you?")
        self.assertEqual(requested["requestedSchema"]["required"], ["username", "email"])
        for action in ("decline", "cancel"):
            with self.subTest(action=action):
                result, _ = self.elicit(elicitor_of(action))
                self.assertFalse(result["isError"])
                self.assertEqual(texts(result), f"User response: action={action}, content={{}}")

    def test_consent_refused_is_decline(self):
        result, _ = self.elicit(elicitor_of("accept", ACCEPTED), consent=lambda kind, params: False)
        self.assertEqual(texts(result), "User response: action=decline, content={}")

    def test_answer_that_does_not_fit_is_refused_by_the_host(self):
        result, client = self.elicit(elicitor_of("accept", {"username": "ada"}))  # email is required
        self.assertTrue(result["isError"])
        self.assertIn("email", texts(result))
        answer = next(m for m in wire(client, "->") if "error" in m)
        self.assertEqual(answer["error"]["code"], INVALID_PARAMS)

    def test_no_elicitation_before_2025_06_18(self):
        result, client = self.elicit(elicitor_of("accept", ACCEPTED), protocol_version="2025-03-26")
        self.assertEqual(client.protocol_version, "2025-03-26")
        declared = next(m for m in wire(client, "->") if m.get("method") == "initialize")["params"]["capabilities"]
        self.assertNotIn("elicitation", declared)
        self.assertTrue(result["isError"])
        self.assertIn("2025-06-18", texts(result))
        self.assertEqual(client.shown, [])
        self.assertEqual([m for m in wire(client) if m.get("method") == "elicitation/create"], [])

    def test_no_elicitor_not_declared(self):
        result, client = self.elicit(None)
        self.assertTrue(result["isError"])
        self.assertIn("elicitation", texts(result))
        self.assertEqual([m for m in wire(client) if m.get("method") == "elicitation/create"], [])


class CarelessHostTests(unittest.TestCase):
    """The server checks an accepted answer itself, whatever the host did."""

    def test_answer_that_does_not_fit_is_refused_by_the_server(self):
        class Careless(MCPClient):  # a host that skips its own check
            def _serve(self, method, params):
                if method == "elicitation/create":
                    return {"action": "accept", "content": {"username": 7}}
                return super()._serve(method, params)
        server = full_server()
        client = Careless(InProcess(server.session()), elicitor=elicitor_of("accept", ACCEPTED), timeout=TIMEOUT)
        self.addCleanup(client.close)
        client.initialize()
        result = client.call_tool("test_elicitation", {"message": "Who are you?"})
        self.assertTrue(result["isError"])
        self.assertIn("does not fit", texts(result))
        self.assertNotIn("User response", texts(result))


class HTTPSamplingElicitationTests(SamplingElicitationTests):
    transport = "http"


class FirstAnswerWins(unittest.TestCase):
    """A request of the server's to the client ends once: when a cancel or the call's deadline ended it first, the
    client's late reply does not replace that ending (the tool already saw it, or is about to)."""

    def test_a_late_reply_does_not_overwrite_a_cancel(self):
        for first, late in ((None, {"result": {"content": {"type": "text", "text": "late"}}}),
                            ({"result": {}}, None)):
            with self.subTest(first=first):
                waiter = interfaces._Waiter(None, "sampling/createMessage")
                waiter.answer(first)
                waiter.answer(late)
                self.assertEqual(waiter.wait(0), first)


class CancelBesideSamplingTests(unittest.TestCase):
    """Two calls of one session run side by side; the client cancels one while the other waits for its sampling
    request. The cancel stops its own call only: the other's request still waits, and its answer reaches its tool."""

    def test_cancelling_one_call_leaves_the_others_sampling_request_alone(self):
        started, asked, sent, replies = threading.Event(), threading.Event(), [], {}

        def hold() -> str:
            started.set()
            mcp_call().sleep(TIMEOUT)  # a cancel ends it at once
            return "held to the end"
        tools = conformance_server.conformance_tools() + [Tool("hold", "Wait", NO_ARGUMENTS, hold, read_only=True)]
        server = MCPServer(ToolRegistry(tools))
        self.addCleanup(server.close)
        session = server.session()

        def sink(message: dict, related) -> bool:  # the client's side of the wire: keep what the server sends
            sent.append(message)
            if message.get("method") == "sampling/createMessage":
                asked.set()
            return True
        session.sink = sink
        session.handle({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
                        "capabilities": {"sampling": {}}, "clientInfo": {"name": "t", "version": "1"}}})
        session.handle({"jsonrpc": "2.0", "method": "notifications/initialized"})

        def call(request_id: int, name: str, arguments: dict) -> None:
            replies[request_id] = session.handle({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                                                  "params": {"name": name, "arguments": arguments}})
        held = threading.Thread(target=call, args=(2, "hold", {}))
        sampling = threading.Thread(target=call, args=(3, "test_sampling", {"prompt": "The capital of France?"}))
        for thread in (held, sampling):
            thread.start()
            self.addCleanup(thread.join, TIMEOUT)
        self.assertTrue(started.wait(TIMEOUT) and asked.wait(TIMEOUT))  # call 2 runs; call 3's request waits
        session.handle({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}})
        held.join(TIMEOUT)
        self.assertEqual(replies, {2: None})  # the cancelled call gets no response; call 3 still waits
        request = next(m for m in sent if m.get("method") == "sampling/createMessage")
        # subtle: read in the session's table of requests that wait for the client, not from call 3's outcome: a
        # request the cancel wrongly ended would show only once call 3's thread woke, which the test cannot await
        waiter = session.asked.get(request["id"])
        self.assertTrue(waiter is not None and not waiter.event.is_set(), "the cancel of call 2 ended call 3's request")
        session.handle({"jsonrpc": "2.0", "id": request["id"], "result": {
            "role": "assistant", "content": {"type": "text", "text": "Paris."}, "model": "m", "stopReason": "endTurn"}})
        sampling.join(TIMEOUT)
        self.assertEqual(replies[3]["result"], {"content": [{"type": "text", "text": "LLM response: Paris."}],
                                                "isError": False})


# --- Content blocks and structured output ---

class ContentTests(Connect, unittest.TestCase):
    def call(self, name, version="2025-11-25") -> dict:
        if version not in self.clients:
            self.clients[version] = self.connect(protocol_version=version)
            self.assertEqual(self.clients[version].protocol_version, version)
            self.clients[version].list_tools()
        return self.clients[version].call_tool(name, {})

    def setUp(self):
        self.clients = {}

    def test_image_audio_embedded_mixed(self):
        self.assertEqual(self.call("test_image_content")["content"],
                         [{"type": "image", "data": b64(TINY_PNG), "mimeType": "image/png"}])
        self.assertEqual(self.call("test_audio_content")["content"],
                         [{"type": "audio", "data": b64(TINY_WAV), "mimeType": "audio/wav"}])
        self.assertEqual(self.call("test_embedded_resource")["content"], [{"type": "resource", "resource": {
            "uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."}}])
        mixed = self.call("test_multiple_content_types")
        self.assertFalse(mixed["isError"])
        self.assertEqual(mixed["content"][:2], [{"type": "text", "text": "Multiple content types test:"},
                                                {"type": "image", "data": b64(TINY_PNG), "mimeType": "image/png"}])
        resource = mixed["content"][2]["resource"]
        self.assertEqual((mixed["content"][2]["type"], resource["uri"], resource["mimeType"]),
                         ("resource", "test://mixed-content-resource", "application/json"))
        self.assertEqual(json.loads(resource["text"]), {"test": "data", "value": 123})

    def test_audio_becomes_a_text_note_in_2024_11_05(self):
        content = self.call("test_audio_content", "2024-11-05")["content"]
        self.assertEqual(len(content), 1)
        self.assertEqual(content[0]["type"], "text")
        self.assertIn("audio", content[0]["text"])
        self.assertNotIn(b64(TINY_WAV), content[0]["text"])
        self.assertEqual(self.call("test_audio_content", "2025-03-26")["content"][0]["type"], "audio")

    def test_structured_content(self):
        result = self.call("fits")
        self.assertEqual(result["structuredContent"], {"total": 3})
        self.assertFalse(result["isError"])
        self.assertEqual(json.loads(texts(result)), {"total": 3})

    def test_output_that_does_not_fit_is_an_error(self):
        result = self.call("misfits")
        self.assertTrue(result["isError"])
        self.assertNotIn("structuredContent", result)
        self.assertIn("outputSchema", texts(result))

    def test_each_tool_result_is_checked_against_its_own_output_schema(self):
        # two tools, two schemas: count returns {"total": integer}, label {"label": string}. A result that fits its own
        # schema is kept; label's result shaped like count's fits only the other schema: the host drops it
        label_schema = {"type": "object", "properties": {"label": {"type": "string"}}, "required": ["label"]}
        listed = [{"name": "count", "inputSchema": NO_ARGUMENTS, "outputSchema": TOTAL_SCHEMA},
                  {"name": "label", "inputSchema": NO_ARGUMENTS, "outputSchema": label_schema}]
        returns = {("count", False): {"total": 3}, ("label", False): {"label": "firmware"},
                   ("label", True): {"total": 3}}

        def answer(request: dict) -> list[dict]:
            if request["method"] == "tools/list":
                return [{"jsonrpc": "2.0", "id": request["id"], "result": {"tools": listed}}]
            params = request["params"]
            structured = returns[params["name"], params["arguments"].get("shaped_like_count", False)]
            return [{"jsonrpc": "2.0", "id": request["id"], "result": {
                "content": [{"type": "text", "text": json.dumps(structured)}], "structuredContent": structured}}]
        client = MCPClient(FakeServer(answer), timeout=TIMEOUT)
        self.addCleanup(client.close)
        client.initialize()
        client.list_tools()
        self.assertEqual(client.call_tool("count", {}).get("structuredContent"), {"total": 3})
        self.assertEqual(client.call_tool("label", {}).get("structuredContent"), {"label": "firmware"})
        self.assertEqual(client.alerts, [])
        self.assertNotIn("structuredContent", client.call_tool("label", {"shaped_like_count": True}))
        (alert,) = client.alerts
        self.assertTrue(alert.startswith("label: structuredContent does not fit its outputSchema"), alert)

    def test_no_structured_content_in_2025_03_26(self):
        result = self.call("fits", "2025-03-26")
        self.assertNotIn("structuredContent", result)
        self.assertEqual(json.loads(texts(result)), {"total": 3})


# --- Ping from the server ---

class ServerPingTests(unittest.TestCase):
    def test_session_ping_answered_by_the_client(self):
        server = full_server()
        session = server.session()
        client = MCPClient(InProcess(session), timeout=TIMEOUT)
        self.addCleanup(client.close)
        client.initialize()
        outcome = []
        pinger = threading.Thread(target=lambda: outcome.append(session.ping(timeout=2.0) or "answered"))
        pinger.start()
        self.assertTrue(wait_until(lambda: client.updated() is not None and outcome))  # updated() reads what came
        pinger.join(1.0)
        self.assertEqual(outcome, ["answered"])
        pings = [m for m in wire(client) if m.get("method") == "ping"]
        self.assertEqual(len(pings), 1)
        self.assertIn({"jsonrpc": "2.0", "id": pings[0]["id"], "result": {}}, wire(client, "->"))

    def test_unanswered_ping_raises(self):
        session = full_server().session()
        session.sink = lambda message, related: True  # sent, but nobody answers
        session.handle({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        self.addCleanup(session.close)
        with self.assertRaises(interfaces.MCPRefused):
            session.ping(timeout=0.01)


# --- Streamable HTTP, message by message ---

class RawHTTPTests(unittest.TestCase):
    def setUp(self):
        self.endpoint = MCPHttpServer(full_server()).start()
        self.addCleanup(self.endpoint.stop)
        self.port = int(self.endpoint.url.split(":")[2].split("/")[0])

    def http(self, method, body=None, **headers):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        self.addCleanup(connection.close)
        data = json.dumps(body).encode() if body is not None else None
        if data is not None:
            headers.setdefault("Content-Type", "application/json")
        connection.request(method, "/mcp", body=data, headers=headers)
        return connection.getresponse()

    def open_session(self, version="2025-11-25", capabilities=None) -> str:
        """Open a session that declared sampling (as the conformance suite's client does): its calls may talk."""
        capabilities = {"sampling": {}} if capabilities is None else capabilities
        response = self.http("POST", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "raw", "version": "1"}}},
            Accept="application/json, text/event-stream")
        self.assertEqual(response.status, 200)
        sid = response.getheader("Mcp-Session-Id")
        self.assertEqual(json.loads(response.read())["result"]["protocolVersion"], version)
        note = self.http("POST", {"jsonrpc": "2.0", "method": "notifications/initialized"}, **self.headers(sid, version))
        self.assertEqual(note.status, 202)
        note.read()
        return sid

    @staticmethod
    def headers(sid, version="2025-11-25", accept="application/json, text/event-stream") -> dict:
        return {"Mcp-Session-Id": sid, "MCP-Protocol-Version": version, "Accept": accept}

    @staticmethod
    def events(body: bytes) -> list[dict]:
        """Split an SSE body into events: {"id", "retry", "data"} as present (WHATWG field rules, LF lines)."""
        out = []
        for block in body.decode().split("\n\n"):
            if not block.strip():
                continue
            event = {}
            for line in block.split("\n"):
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                event[name] = event[name] + "\n" + value if name == "data" and name in event else value
            out.append(event)
        return out

    def call(self, sid, name, request_id, version="2025-11-25"):
        return self.http("POST", {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                                  "params": {"name": name, "arguments": {}}}, **self.headers(sid, version))

    def test_a_call_that_sends_nothing_first_is_answered_as_json(self):
        sid = self.open_session()
        response = self.call(sid, "test_simple_text", 2)
        self.assertEqual((response.status, response.getheader("Content-Type")), (200, "application/json"))
        self.assertEqual(json.loads(response.read())["result"]["content"],
                         [{"type": "text", "text": "This is a simple text response for testing."}])

    def test_a_call_that_may_not_talk_sends_its_log_lines_with_its_reply(self):
        sid = self.open_session(capabilities={})  # no sampling, no elicitation, no level, no progress token
        response = self.call(sid, "quick_logging", 2)  # answered when done: no stream while it runs
        messages = [json.loads(e["data"]) for e in self.events(response.read())]
        self.assertEqual([m.get("method") for m in messages], ["notifications/message"] * 3 + [None])  # none lost
        self.assertEqual(messages[-1]["id"], 2)
        plain = self.call(sid, "test_simple_text", 3)  # nothing to send first: plain JSON
        self.assertEqual((plain.status, plain.getheader("Content-Type")), (200, "application/json"))

    def test_a_call_that_logs_is_answered_on_an_event_stream(self):
        sid = self.open_session()
        response = self.call(sid, "quick_logging", 2)
        self.assertEqual(response.status, 200)
        self.assertTrue(response.getheader("Content-Type").startswith("text/event-stream"))
        events = self.events(response.read())
        priming = events[0]
        self.assertTrue(priming.get("id"))
        self.assertTrue(priming.get("retry", "").isdigit())
        self.assertEqual(priming.get("data", ""), "")
        messages = [json.loads(e["data"]) for e in events[1:]]
        self.assertEqual([m.get("method") for m in messages], ["notifications/message"] * 3 + [None])
        self.assertEqual(messages[-1]["id"], 2)  # the response is the last event

    def test_no_priming_event_before_2025_11_25(self):
        sid = self.open_session("2025-06-18")
        events = self.events(self.call(sid, "quick_logging", 2, "2025-06-18").read())
        self.assertTrue(all(e.get("data") for e in events), events)  # every event carries a message
        self.assertEqual(json.loads(events[-1]["data"])["id"], 2)

    def test_progress_travels_on_the_call_stream_before_the_response(self):
        sid = self.open_session()
        response = self.http("POST", {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
            "name": "quick_progress", "arguments": {}, "_meta": {"progressToken": "p5"}}}, **self.headers(sid))
        messages = [json.loads(e["data"]) for e in self.events(response.read()) if e.get("data")]
        self.assertEqual([(m["method"], m["params"]["progress"]) for m in messages[:-1]],
                         [("notifications/progress", 0), ("notifications/progress", 50),
                          ("notifications/progress", 100)])
        self.assertEqual(messages[-1]["id"], 5)

    def test_get_needs_accept_and_is_one_at_a_time(self):
        sid = self.open_session()
        refused = self.http("GET", **{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"})
        self.assertEqual(refused.status, 406)
        refused.read()
        first = self.http("GET", **self.headers(sid, accept="text/event-stream"))
        self.assertEqual(first.status, 200)
        self.assertTrue(first.getheader("Content-Type").startswith("text/event-stream"))
        second = self.http("GET", **self.headers(sid, accept="text/event-stream"))
        self.assertEqual(second.status, 409)
        second.read()

    def test_reconnection_with_last_event_id(self):
        sid = self.open_session()
        response = self.call(sid, "test_reconnection", 3)
        self.assertEqual(response.status, 200)
        cut = self.events(response.read())  # ends when the tool closes the stream, before the result
        self.assertEqual([e for e in cut if e.get("data") and json.loads(e["data"]).get("id") == 3], [])
        last_id = [e["id"] for e in cut if e.get("id")][-1]
        resumed = self.http("GET", **self.headers(sid, accept="text/event-stream"), **{"Last-Event-ID": last_id})
        self.assertEqual(resumed.status, 200)
        rest = [json.loads(e["data"]) for e in self.events(resumed.read()) if e.get("data")]
        self.assertEqual(rest[-1]["id"], 3)
        self.assertEqual(rest[-1]["result"]["content"], [{"type": "text", "text": "Reconnection test completed"}])

    def test_cancelled_call_stream_ends_without_a_response(self):
        sid = self.open_session()
        response = self.http("POST", {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
            "name": "countdown", "arguments": {}, "_meta": {"progressToken": "c9"}}}, **self.headers(sid))
        self.assertEqual(response.status, 200)
        first = b""
        while b"notifications/progress" not in first:
            first += response.read1(4096)
        cancel = self.http("POST", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                    "params": {"requestId": 9, "reason": "test"}}, **self.headers(sid))
        self.assertEqual(cancel.status, 202)
        cancel.read()
        messages = [json.loads(e["data"]) for e in self.events(first + response.read()) if e.get("data")]
        # the countdown waits for a go-ahead that never comes: one progress, then the cancel ends it, no response
        self.assertEqual([m.get("method") for m in messages], ["notifications/progress"])


class Paced:
    """A tool that reports progress 1, 2 and 3 of 5, closes its call's event stream, waits for the test's go-ahead
    for its run, reports 4 and 5, and answers: where the stream is cut is fixed by the order of events."""

    SCHEMA = {"type": "object", "properties": {"run": {"type": "integer"}}, "required": ["run"]}

    def __init__(self, runs: int):
        self.go = [threading.Event() for _ in range(runs)]

    def __call__(self, run: int) -> str:
        call = mcp_call()
        for n in (1, 2, 3):
            call.progress(n, 5)
        call.close_stream()
        call.wait_for(self.go[run], TIMEOUT)
        for n in (4, 5):
            call.progress(n, 5)
        return f"run {run} done"


class ResumeTests(unittest.TestCase):
    """GET with Last-Event-ID (basic/transports, "Resumability and Redelivery"): the server replays the events after
    that id on that stream, and only to the session the stream belongs to."""

    http, open_session = RawHTTPTests.http, RawHTTPTests.open_session  # the same raw requests as RawHTTPTests
    headers, events = staticmethod(RawHTTPTests.headers), staticmethod(RawHTTPTests.events)

    def setUp(self):
        self.paced = Paced(3)
        server = MCPServer(ToolRegistry([Tool("paced", "Report progress, cut the stream, go on", Paced.SCHEMA,
                                              self.paced, read_only=True)]))
        self.endpoint = MCPHttpServer(server).start()
        self.addCleanup(self.endpoint.stop)
        self.port = int(self.endpoint.url.split(":")[2].split("/")[0])

    def cut_call(self, sid: str, run: int) -> dict[int, str]:
        """Call paced with a progress token; read its stream until the tool cuts it; return {progress: event id}."""
        response = self.http("POST", {"jsonrpc": "2.0", "id": 10 + run, "method": "tools/call", "params": {
            "name": "paced", "arguments": {"run": run}, "_meta": {"progressToken": f"p{run}"}}}, **self.headers(sid))
        self.assertEqual(response.status, 200)
        cut = [e for e in self.events(response.read()) if e.get("data")]
        self.assertEqual([json.loads(e["data"])["params"]["progress"] for e in cut], [1, 2, 3])  # no more, no result
        return {json.loads(e["data"])["params"]["progress"]: e["id"] for e in cut}

    def resume(self, sid: str, last_id: str) -> list[dict]:
        resumed = self.http("GET", **self.headers(sid, accept="text/event-stream"), **{"Last-Event-ID": last_id})
        self.assertEqual(resumed.status, 200)
        return [json.loads(e["data"]) for e in self.events(resumed.read()) if e.get("data")]

    def test_exactly_the_events_after_the_last_id_seen(self):
        sid = self.open_session()
        for run, seen in ((0, 2), (1, 3)):  # a client that saw the event with progress 2, or 3 (the last one sent)
            with self.subTest(last_seen=seen):
                ids = self.cut_call(sid, run)
                self.paced.go[run].set()
                rest = self.resume(sid, ids[seen])
                self.assertEqual([m["params"]["progress"] for m in rest[:-1]], list(range(seen + 1, 6)))
                self.assertEqual((rest[-1]["id"], rest[-1]["result"]["content"]),
                                 (10 + run, [{"type": "text", "text": f"run {run} done"}]))

    def test_another_sessions_stream_is_never_resumed(self):
        mine, other = self.open_session(), self.open_session()
        ids = self.cut_call(mine, 0)
        key = ids[1].rpartition("-")[0]
        # the other session presents this stream's id: it gets a stream of its own (opened with its own priming
        # event), never this one's events
        foreign = self.http("GET", **self.headers(other, accept="text/event-stream"), **{"Last-Event-ID": ids[1]})
        self.assertEqual(foreign.status, 200)
        first = b""
        while b"\n\n" not in first:
            first += foreign.read1(4096)
        self.assertEqual([(e.get("data", ""), e["id"].rpartition("-")[0] != key) for e in self.events(first)],
                         [("", True)])
        # ... and the stream is still there for its own session
        self.paced.go[0].set()
        rest = self.resume(mine, ids[1])
        self.assertEqual([m["params"]["progress"] for m in rest[:-1]], [2, 3, 4, 5])
        self.assertEqual(rest[-1]["id"], 10)


class ScopeOverStreamTests(unittest.TestCase):
    """A tool the token's scopes do not cover is refused with 403 insufficient_scope (Appendix D), also when the call
    asks for progress from a client that accepts an event stream, the calls that are otherwise answered on one."""

    def setUp(self):
        self.notes = []

        def note(text: str) -> str:
            self.notes.append(text)
            return "noted"

        def look() -> str:
            mcp_call().progress(1, 1)
            return "looked"
        registry = ToolRegistry([Tool("note", "Write a note", {"type": "object", "properties": {
            "text": {"type": "string"}}, "required": ["text"]}, note),
            Tool("look", "Read, reporting progress", NO_ARGUMENTS, look, read_only=True)])
        self.endpoint = MCPHttpServer(MCPServer(registry, tokens={"reader": {"tools:read"}})).start()
        self.addCleanup(self.endpoint.stop)
        self.port = int(self.endpoint.url.split(":")[2].split("/")[0])

    def post(self, body: dict, **headers):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        self.addCleanup(connection.close)
        connection.request("POST", "/mcp", body=json.dumps(body).encode(), headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "Authorization": "Bearer reader"} | headers)
        return connection.getresponse()

    def test_out_of_scope_is_403_even_on_an_event_stream_with_progress(self):
        hello = {"protocolVersion": "2025-11-25", "capabilities": {"sampling": {}},
                 "clientInfo": {"name": "t", "version": "1"}}
        response = self.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        self.assertEqual(response.status, 200)
        session = {"Mcp-Session-Id": response.getheader("Mcp-Session-Id"), "MCP-Protocol-Version": "2025-11-25"}
        response.read()
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, **session).read()
        refused = self.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "note", "arguments": {"text": "hi"}, "_meta": {"progressToken": "n2"}}}, **session)
        self.assertEqual(refused.status, 403)
        challenge = refused.getheader("WWW-Authenticate", "")
        self.assertIn('error="insufficient_scope"', challenge)
        self.assertIn('scope="tools:write"', challenge)
        reply = json.loads(refused.read())
        self.assertEqual((reply["id"], reply["error"]["code"]), (2, -32003))
        self.assertEqual(self.notes, [])
        # the same request for a tool the token covers is answered on the event stream: progress, then the result
        allowed = self.post({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "look", "arguments": {}, "_meta": {"progressToken": "n3"}}}, **session)
        self.assertEqual(allowed.status, 200)
        self.assertTrue(allowed.getheader("Content-Type").startswith("text/event-stream"))
        messages = [json.loads(e["data"]) for e in RawHTTPTests.events(allowed.read()) if e.get("data")]
        self.assertEqual([m.get("method") for m in messages], ["notifications/progress", None])
        self.assertEqual(messages[-1]["result"]["content"], [{"type": "text", "text": "looked"}])


class FixtureToolErrors(unittest.TestCase):
    """The conformance fixture's tool errors are sentences for the model, with no Python exception class in them."""

    PYTHON_CLASS = r"\b[A-Z]\w*(Error|Exception|Refused)\b"  # RuntimeError, ValueError, MCPRefused, ...

    def call(self, name: str, arguments: dict, **options) -> dict:
        client = MCPClient(InProcess(conformance_server.conformance_server().session()), timeout=TIMEOUT, **options)
        self.addCleanup(client.close)
        client.initialize()
        return client.call_tool(name, arguments)

    def test_the_intentional_error_is_the_scenarios_sentence(self):
        result = self.call("test_error_handling", {})
        self.assertTrue(result["isError"])
        self.assertEqual(texts(result), "This tool intentionally returns an error for testing")

    def test_a_request_the_client_cannot_answer_is_said_in_words(self):
        cases = [  # (tool, arguments, client options, what the sentence must name)
            ("test_sampling", {"prompt": "What is 2+2?"}, {}, "sampling capability"),
            ("test_elicitation", {"message": "Who are you?"}, {}, "elicitation capability"),
            ("test_elicitation", {"message": "Who are you?"},
             {"elicitor": elicitor_of("accept", ACCEPTED), "protocol_version": "2025-03-26"}, "2025-06-18"),
            ("test_elicitation", {"message": "Who are you?"}, {"elicitor": elicitor_of("accept", {"username": "ada"})},
             "email"),
        ]
        for name, arguments, options, named in cases:
            with self.subTest(name=name, options=sorted(options)):
                result = self.call(name, arguments, **options)
                self.assertTrue(result["isError"])
                self.assertIn(named, texts(result))
                self.assertNotRegex(texts(result), self.PYTHON_CLASS)

    def test_the_docstring_names_test_files_that_exist(self):
        named = re.findall(r"tests/\w+\.py", conformance_server.__doc__)
        self.assertTrue(named)
        for path in named:
            with self.subTest(path):
                self.assertTrue((ROOT / path).is_file(), path)


if __name__ == "__main__":
    unittest.main()
