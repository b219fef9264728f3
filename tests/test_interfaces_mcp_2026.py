"""MCP 2026-07-28 in full (issue 35): the full server, MCPServer, answers every request of the stateless revision on
its own, beside the handshake era; a tool, a prompt or a resource that needs the user's answer, the host's model or
the client's roots asks through its result (multi round-trip requests, MRTR) instead of a request to the client.

Expected values come from the specification (modelcontextprotocol/modelcontextprotocol, docs/specification/2026-07-28:
basic/index, basic/patterns/mrtr, server/discover, server/utilities/caching and logging) and are written out here
by hand; the requests are sent as JSON-RPC messages to a session, in process.
"""
import base64
import json
import sys
import threading
import unittest
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import interfaces  # noqa: E402
from interfaces import MCPHttpServer, MCPServer, Prompt, Resource, mcp_call  # noqa: E402
from tool_core import ToolRegistry, tool_from_function  # noqa: E402

INVALID_PARAMS, METHOD_NOT_FOUND, MISSING_CAPABILITY = -32602, -32601, -32021
VERSION, CAPABILITIES = "io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"
LOG_LEVEL, SERVER_INFO = "io.modelcontextprotocol/logLevel", "io.modelcontextprotocol/serverInfo"
EVERYTHING = {"elicitation": {}, "sampling": {}, "roots": {}}
NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
ACCEPT_ALICE = {"action": "accept", "content": {"name": "Alice"}}


def meta(capabilities: dict | None = None, **more) -> dict:
    return {VERSION: "2026-07-28", CAPABILITIES: EVERYTHING if capabilities is None else capabilities} | more


RUNS: list[str] = []  # every run of a tool below, in order: a tool that asks runs again on each round


def greet() -> str:
    """Greet the user by the name they give."""
    RUNS.append("greet")
    answer = mcp_call().elicit("What is your name?", NAME_SCHEMA, key="user_name")
    return f"Hello, {answer['content']['name']}!" if answer["action"] == "accept" else "No name given."


def name_and_color() -> str:
    """Ask for a name, then for a colour: two rounds."""
    call = mcp_call()
    name = call.elicit("Name?", NAME_SCHEMA, key="step1")["content"]["name"]
    color = call.elicit("Colour?", {"type": "object", "properties": {"color": {"type": "string"}}}, key="step2")
    return f"{name} likes {color['content']['color']}"


def everything_at_once() -> str:
    """Ask the user, the model and the roots together, in one round."""
    answers = mcp_call().ask_all({
        "user_name": ("elicitation/create", {"message": "Name?", "requestedSchema": NAME_SCHEMA}),
        "greeting": ("sampling/createMessage", {"messages": [{"role": "user", "content": {"type": "text",
                                                                                         "text": "Say hi"}}],
                                                "maxTokens": 50}),
        "client_roots": ("roots/list", {})})
    return f"{answers['user_name']['content']['name']}, {answers['greeting']['content']['text']}, " \
           f"{len(answers['client_roots']['roots'])} root(s)"


def capital() -> str:
    """Ask the host's model; the result is its answer."""
    return mcp_call().sample([{"role": "user", "content": {"type": "text", "text": "Capital of France?"}}], 100)[
        "content"]["text"]


PAUSE = threading.Event()  # slow() waits on it; a test sets it
STARTED, CANCELLED = threading.Event(), threading.Event()  # slow() sets them: it waits; it was cancelled


def slow() -> str:
    """Report progress, then wait until the test lets it go on (or the call is cancelled)."""
    call = mcp_call()
    call.progress(1, 2, "half way")
    STARTED.set()
    try:
        call.wait_for(PAUSE, limit=10)
    except interfaces.Cancelled:
        CANCELLED.set()
        raise
    return "finished"


def chatty() -> str:
    """Log at info and at debug."""
    mcp_call().log("info", "started")
    mcp_call().log("debug", "details")
    return "done"


def context_prompt() -> str:
    answer = mcp_call().elicit("Context?", {"type": "object", "properties": {"context": {"type": "string"}}},
                               key="user_context")
    return f"Use this context: {answer['content']['context']}"


REGION = {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"},
                                          "limit": {"type": "integer", "x-mcp-header": "Limit"}}}
BAD_HEADER = {"type": "object", "properties": {"ratio": {"type": "number", "x-mcp-header": "Ratio"}}}


def server(**options) -> MCPServer:
    registry = ToolRegistry([tool_from_function(f, read_only=True) for f in (greet, name_and_color,
                                                                              everything_at_once, capital, chatty, slow)]
                            + [interfaces.Tool("where", "Say the region", REGION, lambda region=None, limit=None:
                                               f"{region}/{limit}", read_only=True, fill_none=("region", "limit")),
                               interfaces.Tool("ratio", "A tool whose header annotation breaks the rules", BAD_HEADER,
                                               lambda ratio=None: str(ratio), read_only=True, fill_none=("ratio",))])
    found = MCPServer(registry, resources=[Resource("test://note", "note", lambda: "a note", "text/plain")],
                      prompts=[Prompt("with_context", "A prompt that asks for context first.", context_prompt)],
                      **options)
    return found


class WithServer(unittest.TestCase):
    def setUp(self):
        self.server = server()
        self.addCleanup(self.server.close)
        self.session = self.server.session()
        RUNS.clear()

    def send(self, method: str, params: dict | None = None, message_id=1, **fields) -> dict:
        return self.session.handle({"jsonrpc": "2.0", "id": message_id, "method": method,
                                    "params": {"_meta": meta()} | (params or {}) | fields})

    def result(self, method: str, params: dict | None = None, **fields) -> dict:
        reply = self.send(method, params, **fields)
        self.assertIn("result", reply, reply)
        return reply["result"]

    def error(self, method: str, params: dict | None = None, **fields) -> tuple[int, str, object]:
        reply = self.send(method, params, message_id=7, **fields)
        self.assertEqual(reply["id"], 7)
        self.assertIn("error", reply, reply)
        return reply["error"]["code"], reply["error"]["message"], reply["error"].get("data")

    def call(self, name: str, **fields) -> dict:
        return self.result("tools/call", {"name": name, "arguments": {}}, **fields)


class Stateless(WithServer):
    def test_discover_names_both_eras_and_what_a_listen_stream_can_carry(self):
        got = self.result("server/discover")
        self.assertEqual(got["supportedVersions"][:2], ["2026-07-28", "2025-11-25"])
        self.assertEqual((got["resultType"], got["ttlMs"] >= 0, got["cacheScope"]), ("complete", True, "public"))
        self.assertEqual(got["_meta"][SERVER_INFO], {"name": "cardinal-mcp", "version": "1.0.0"})
        self.assertEqual({k: got["capabilities"][k] for k in ("tools", "resources", "prompts")},
                         {"tools": {"listChanged": True}, "resources": {"subscribe": True, "listChanged": True},
                          "prompts": {"listChanged": True}})

    def test_every_result_has_its_type_and_lists_and_reads_their_caching_hints(self):
        for method, params, cached in (("tools/list", {}, True), ("prompts/list", {}, True),
                                       ("resources/list", {}, True), ("resources/templates/list", {}, True),
                                       ("resources/read", {"uri": "test://note"}, True),
                                       ("tools/call", {"name": "chatty", "arguments": {}}, False),
                                       ("prompts/get", {"name": "with_context",
                                                        "inputResponses": {"user_context": {"action": "accept",
                                                                                            "content": {"context": "x"}}}},
                                        False)):
            with self.subTest(method):
                got = self.result(method, params)
                self.assertEqual(got["resultType"], "complete")
                self.assertEqual(("ttlMs" in got, "cacheScope" in got), (cached, cached))
                self.assertIn(SERVER_INFO, got["_meta"])

    def test_a_server_with_tokens_marks_its_lists_private(self):
        guarded = server(tokens={"t": {"tools:read"}})
        self.addCleanup(guarded.close)
        reply = guarded.session("t").handle({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}})
        self.assertEqual(reply["result"]["cacheScope"], "private")  # what it lists depends on the caller's token

    def test_the_methods_2026_removed_are_not_found(self):
        for method in ("initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"):
            with self.subTest(method):
                code, message, data = self.error(method, {"uri": "test://note", "level": "info"})
                self.assertEqual(code, METHOD_NOT_FOUND)
                self.assertIn("2025-11-25", data["supported"])  # a client of the handshake era learns where to go

    def test_the_meta_fields_are_checked_first_then_the_version(self):
        cases = [({}, INVALID_PARAMS), ({VERSION: "2026-07-28"}, INVALID_PARAMS), ({CAPABILITIES: {}}, INVALID_PARAMS),
                 (meta() | {VERSION: "1900-01-01"}, -32022), (meta() | {LOG_LEVEL: "loud"}, INVALID_PARAMS)]
        for fields, code in cases:
            with self.subTest(fields):
                reply = self.session.handle({"jsonrpc": "2.0", "id": 3, "method": "server/discover",
                                             "params": {"_meta": fields}})
                self.assertEqual((reply["id"], reply["error"]["code"]), (3, code))

    def test_log_messages_only_for_a_request_that_asks_with_its_level(self):
        sent = []
        self.session.attach(lambda message, related: sent.append(message) or True)  # a pipe: all comes through it
        for message_id, fields in ((1, meta()), (2, meta(**{LOG_LEVEL: "info"}))):
            self.session.handle({"jsonrpc": "2.0", "id": message_id, "method": "tools/call",
                                 "params": {"_meta": fields, "name": "chatty", "arguments": {}}})
            self.session.drain()
        self.assertEqual([m.get("id", m.get("method")) for m in sent], [1, "notifications/message", 2])
        self.assertEqual(sent[1]["params"]["data"], "started")  # at info and above: not the debug line
        self.assertEqual(sent[2]["result"]["resultType"], "complete")  # a response sent later is finished too

    def test_the_handshake_era_still_works_beside_it(self):
        hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}
        legacy = self.server.session()
        self.assertEqual(legacy.handle({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})["result"][
            "protocolVersion"], "2025-11-25")
        legacy.handle({"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed = legacy.handle({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})["result"]
        self.assertNotIn("resultType", listed)  # 2025-11-25's results have none
        self.assertEqual(legacy.handle({"jsonrpc": "2.0", "id": 3, "method": "ping"})["result"], {})


class MultiRoundTrip(WithServer):
    def test_a_question_goes_back_in_the_result_and_the_retry_with_its_answer_completes(self):
        first = self.call("greet")
        self.assertEqual(first["resultType"], "input_required")
        self.assertEqual(first["inputRequests"], {"user_name": {"method": "elicitation/create", "params": {
            "message": "What is your name?", "requestedSchema": NAME_SCHEMA}}})
        self.assertIsInstance(first["requestState"], str)
        done = self.call("greet", inputResponses={"user_name": ACCEPT_ALICE}, requestState=first["requestState"])
        self.assertEqual((done["resultType"], done["content"][0]["text"]), ("complete", "Hello, Alice!"))
        self.assertEqual(RUNS, ["greet", "greet"])  # the tool ran again from the start, and found its answer

    def test_the_answer_alone_is_enough_and_other_keys_are_ignored(self):
        done = self.call("greet", inputResponses={"user_name": ACCEPT_ALICE, "unknown": {"action": "decline"}})
        self.assertEqual(done["content"][0]["text"], "Hello, Alice!")

    def test_a_missing_answer_asks_again(self):
        again = self.call("greet", inputResponses={"wrong_key": ACCEPT_ALICE})
        self.assertEqual(list(again["inputRequests"]), ["user_name"])

    def test_two_rounds_carry_the_first_answer_in_a_new_state(self):
        first = self.call("name_and_color")
        self.assertEqual(list(first["inputRequests"]), ["step1"])
        second = self.call("name_and_color", inputResponses={"step1": ACCEPT_ALICE}, requestState=first["requestState"])
        self.assertEqual(list(second["inputRequests"]), ["step2"])
        self.assertNotEqual(second["requestState"], first["requestState"])
        done = self.call("name_and_color", inputResponses={"step2": {"action": "accept", "content": {"color": "blue"}}},
                         requestState=second["requestState"])  # step1's answer comes from the state alone
        self.assertEqual(done["content"][0]["text"], "Alice likes blue")

    def test_several_questions_go_back_together(self):
        first = self.call("everything_at_once")
        self.assertEqual({k: v["method"] for k, v in first["inputRequests"].items()},
                         {"user_name": "elicitation/create", "greeting": "sampling/createMessage",
                          "client_roots": "roots/list"})
        answers = {"user_name": ACCEPT_ALICE, "client_roots": {"roots": [{"uri": "file:///tmp", "name": "tmp"}]},
                   "greeting": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m",
                                "stopReason": "endTurn"}}
        done = self.call("everything_at_once", inputResponses=answers, requestState=first["requestState"])
        self.assertEqual(done["content"][0]["text"], "Alice, hi, 1 root(s)")

    def test_a_question_the_request_did_not_declare_the_capability_for_is_32021(self):
        reply = self.send("tools/call", {"name": "capital", "arguments": {}, "_meta": meta({"elicitation": {}})})
        self.assertEqual(reply["error"]["code"], MISSING_CAPABILITY)
        self.assertEqual(reply["error"]["data"], {"requiredCapabilities": {"sampling": {}}})

    def test_answers_of_the_wrong_shape_are_invalid_params(self):
        for responses in (None, 12345, {"user_name": 12345}, {"user_name": None}):
            with self.subTest(responses):
                self.assertEqual(self.error("tools/call", {"name": "greet", "arguments": {}},
                                            inputResponses=responses)[0], INVALID_PARAMS)

    def test_a_state_that_was_changed_or_belongs_elsewhere_is_refused(self):
        state = self.call("greet")["requestState"]
        payload, mac = state.split(".")
        body = json.loads(base64.urlsafe_b64decode(payload))
        forged = base64.urlsafe_b64encode(json.dumps(body | {"a": {"user_name": ACCEPT_ALICE}}).encode()).decode()
        for label, bad, name in (("appended", state + "-TAMPERED", "greet"), ("forged answers", f"{forged}.{mac}", "greet"),
                                 ("another tool", state, "name_and_color"), ("not a string", 7, "greet")):
            with self.subTest(label):
                code, message, _ = self.error("tools/call", {"name": name, "arguments": {}},
                                              inputResponses={"user_name": ACCEPT_ALICE}, requestState=bad)
                self.assertEqual(code, INVALID_PARAMS, message)
                self.assertIn("requestState", message)

    def test_a_state_is_good_for_its_caller_and_its_time_only(self):
        now = [1_000_000.0]
        guarded = server(tokens={"alice": {"tools:read"}, "bob": {"tools:read"}}, clock=lambda: now[0])
        self.addCleanup(guarded.close)

        def greet_as(token: str, **fields) -> dict:
            return guarded.session(token).handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "_meta": meta(), "name": "greet", "arguments": {}} | fields})
        state = greet_as("alice")["result"]["requestState"]
        self.assertEqual(greet_as("bob", requestState=state)["error"]["code"], INVALID_PARAMS)  # another principal
        now[0] += interfaces.STATE_TTL_S + 1
        expired = greet_as("alice", requestState=state)["error"]
        self.assertEqual(expired["code"], INVALID_PARAMS)
        self.assertIn("expired", expired["message"])

    def test_a_server_instance_with_the_same_key_carries_on(self):
        key = b"k" * 32
        one, two = server(state_key=key), server(state_key=key)
        self.addCleanup(one.close)
        self.addCleanup(two.close)
        ask = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"_meta": meta(), "name": "name_and_color", "arguments": {}}}
        state = one.session().handle(ask)["result"]["requestState"]
        ask["params"] |= {"requestState": state, "inputResponses": {"step1": ACCEPT_ALICE}}
        self.assertEqual(list(two.session().handle(ask)["result"]["inputRequests"]), ["step2"])

    def test_a_prompt_asks_the_same_way(self):
        first = self.result("prompts/get", {"name": "with_context"})
        self.assertEqual(list(first["inputRequests"]), ["user_context"])
        self.assertNotIn("messages", first)
        done = self.result("prompts/get", {"name": "with_context"}, requestState=first["requestState"],
                           inputResponses={"user_context": {"action": "accept", "content": {"context": "tests"}}})
        self.assertEqual(done["messages"][0]["content"]["text"], "Use this context: tests")

    def test_lists_never_ask(self):
        for method in ("tools/list", "prompts/list"):
            with self.subTest(method):
                self.assertEqual(self.result(method)["resultType"], "complete")

    def test_in_the_handshake_era_the_same_tool_sends_its_request_to_the_client(self):
        legacy = self.server.session()
        sent = []

        def client(message, related):  # answers the server's elicitation/create at once
            sent.append(message)
            if message.get("method") == "elicitation/create":
                legacy.handle({"jsonrpc": "2.0", "id": message["id"], "result": ACCEPT_ALICE})
            return True
        legacy.attach(client)
        hello = {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                 "clientInfo": {"name": "old", "version": "1"}}
        legacy.handle({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        legacy.handle({"jsonrpc": "2.0", "method": "notifications/initialized"})
        legacy.handle({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "greet", "arguments": {}}})
        legacy.drain()  # over a pipe the response comes through the sink
        reply = next(m for m in sent if m.get("id") == 2)
        self.assertEqual(reply["result"]["content"][0]["text"], "Hello, Alice!")
        self.assertEqual([m["method"] for m in sent if "method" in m], ["elicitation/create"])


class Listen(WithServer):
    """subscriptions/listen: acknowledged first with what of the filter the server honours, then each notification
    the filter asks for, tagged with the listen request's id; nothing else; it ends when the client cancels it."""

    def listen(self, notifications: dict, message_id="L1") -> list[dict]:
        sent = []
        self.session.attach(lambda message, related: sent.append(message) or True)
        reply = self.session.handle({"jsonrpc": "2.0", "id": message_id, "method": "subscriptions/listen",
                                     "params": {"_meta": meta(), "notifications": notifications}})
        self.assertIsNone(reply)  # no response while the stream is open
        return sent

    def test_acknowledged_then_only_what_the_filter_asks_for(self):
        sent = self.listen({"toolsListChanged": True, "resourceSubscriptions": ["test://note"], "unknown": True})
        interfaces.set_prompts(self.server, self.server.prompts)  # not asked for
        self.server.set_registry(self.server.registry)
        interfaces.resource_changed(self.server, "test://other")  # not subscribed
        interfaces.resource_changed(self.server, "test://note")
        tag = {"io.modelcontextprotocol/subscriptionId": "L1"}
        self.assertEqual(sent, [
            {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {
                "_meta": tag, "notifications": {"toolsListChanged": True, "resourceSubscriptions": ["test://note"]}}},
            {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": tag}},
            {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "test://note",
                                                                                     "_meta": tag}}])

    def test_cancelled_it_sends_nothing_more_and_no_response(self):
        sent = self.listen({"toolsListChanged": True}, message_id=4)
        self.session.handle({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}})
        self.server.set_registry(self.server.registry)
        self.assertEqual([m["method"] for m in sent], ["notifications/subscriptions/acknowledged"])

    def test_the_server_closing_ends_it_with_its_result(self):
        sent = self.listen({"promptsListChanged": True})
        self.server.close()
        self.assertEqual(sent[-1], {"jsonrpc": "2.0", "id": "L1", "result": {
            "resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": "L1"}}})

    def test_a_filter_that_is_no_object_is_invalid_params_and_the_handshake_era_has_no_listen(self):
        self.assertEqual(self.error("subscriptions/listen", {"notifications": ["toolsListChanged"]})[0], INVALID_PARAMS)
        legacy = self.server.session()
        legacy.handle({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}})
        reply = legacy.handle({"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen", "params": {}})
        self.assertEqual(reply["error"]["code"], METHOD_NOT_FOUND)


class HandshakeOnly(MCPServer):
    """A server of the handshake era alone, as every server was before 2026-07-28."""
    modern_versions = ()


class Client(unittest.TestCase):
    """MCPClient in 2026-07-28: connect() probes with server/discover and falls back to the handshake; it answers a
    server's questions and sends the request again; it fills an elicitation's defaults (SEP-1034)."""

    def client(self, target: MCPServer, **options) -> interfaces.MCPClient:
        self.addCleanup(target.close)
        client = interfaces.MCPClient(interfaces.InProcess(target.session()), **options)
        self.addCleanup(client.close)
        return client

    def test_connect_uses_2026_where_the_server_offers_it_and_the_handshake_elsewhere(self):
        modern = self.client(server())
        self.assertEqual(modern.connect(), "2026-07-28")
        self.assertEqual([json.loads(t)["method"] for way, t in modern.messages if way == "->"], ["server/discover"])
        old = self.client(HandshakeOnly(ToolRegistry([tool_from_function(greet, read_only=True)])))
        self.assertEqual(old.connect(), "2025-11-25")
        sent = [json.loads(t).get("method") for way, t in old.messages if way == "->"]
        self.assertEqual(sent, ["server/discover", "initialize", "notifications/initialized"])
        self.assertIn("protocol 2025-11-25", repr(old))

    def test_it_answers_the_questions_and_sends_the_request_again(self):
        asked, answers = [], {"Name?": {"name": "Alice"}, "Colour?": {"color": "blue"}}
        client = self.client(server(), elicitor=lambda message, schema: asked.append(message) or {
            "action": "accept", "content": answers[message]})
        client.connect()
        self.assertEqual(client.call_tool("name_and_color", {})["content"][0]["text"], "Alice likes blue")
        calls = [json.loads(t) for way, t in client.messages if way == "->" and "tools/call" in t]
        self.assertEqual([sorted(c["params"].get("inputResponses", {})) for c in calls], [[], ["step1"], ["step2"]])
        self.assertEqual(len({c["id"] for c in calls}), 3)  # each retry is a new request
        self.assertEqual(asked, ["Name?", "Colour?"])
        self.assertEqual(len(client.shown), 2)  # each question was shown to the user first

    def test_progress_of_a_round_after_a_question_reaches_the_caller(self):
        def ask_then_count() -> str:
            """Ask for a name, then report two steps of progress."""
            call = mcp_call()
            name = call.elicit("Name?", NAME_SCHEMA, key="who")["content"]["name"]
            for step in (1, 2):
                call.progress(step, 2)
            return f"counted for {name}"
        client = self.client(MCPServer(ToolRegistry([tool_from_function(ask_then_count, read_only=True)])),
                             elicitor=lambda message, schema: ACCEPT_ALICE)
        client.connect()
        seen = []
        self.assertEqual(client.call_tool("ask_then_count", {}, on_progress=lambda p: seen.append(p["progress"]))[
            "content"][0]["text"], "counted for Alice")
        self.assertEqual(seen, [1, 2])  # each round asks for progress under its own request's token
        calls = [json.loads(t) for way, t in client.messages if way == "->" and "tools/call" in t]
        self.assertEqual([c["params"]["_meta"]["progressToken"] for c in calls],
                         [f"progress-{c['id']}" for c in calls])

    def test_a_server_that_never_stops_asking_is_given_up(self):
        def forever() -> str:
            """Ask a new question every round."""
            call = mcp_call()
            for n in range(100):
                call.elicit("Again?", NAME_SCHEMA, key=f"q{n}")
            return "never"
        client = self.client(MCPServer(ToolRegistry([tool_from_function(forever, read_only=True)])),
                             elicitor=lambda message, schema: ACCEPT_ALICE)
        client.connect()
        with self.assertRaises(interfaces.RPCError) as caught:
            client.call_tool("forever", {})
        self.assertIn(f"after {interfaces.MAX_ROUNDS} rounds", caught.exception.message)

    def test_defaults_fill_what_the_user_left_out(self):
        schema = {"type": "object", "properties": {"name": {"type": "string", "default": "John Doe"},
                                                   "age": {"type": "integer", "default": 30},
                                                   "verified": {"type": "boolean", "default": True},
                                                   "note": {"type": "string"}}}
        self.assertEqual(interfaces.with_defaults(schema, {"action": "accept", "content": {"age": 41}}),
                         {"action": "accept", "content": {"name": "John Doe", "age": 41, "verified": True}})
        self.assertEqual(interfaces.with_defaults(schema, {"action": "decline"}), {"action": "decline"})

    def test_routing_headers_repeat_the_body(self):
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"_meta": meta(), "name": "grüß"}}
        self.assertEqual(interfaces.routing_headers(message), {
            "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
            "Mcp-Name": "=?base64?" + base64.b64encode("grüß".encode()).decode() + "?="})
        self.assertEqual(interfaces.routing_headers({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}), {})


OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback must not go through a proxy


def exchange(request: urllib.request.Request) -> tuple[int, dict, bytes]:
    """Send one HTTP request (no proxy); return its status, headers and body, an error status included."""
    try:
        with OPENER.open(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, dict(exc.headers), exc.read()


class OverHTTP(unittest.TestCase):
    """Streamable HTTP in 2026-07-28: one POST per request, no session; its routing headers must say what its body
    says; the status tells what went wrong; a request that asked for progress or log messages gets an event stream,
    and closing that stream cancels it."""

    @classmethod
    def setUpClass(cls):
        cls.endpoint = MCPHttpServer(server(), stream_check=0.02).start()  # a hung-up client is noticed at once
        cls.addClassCleanup(cls.endpoint.stop)

    def post(self, body: dict, headers: dict | None = None, method: str = "POST") -> tuple[int, dict, bytes]:
        params = body.get("params", {})
        routing = {"MCP-Protocol-Version": params.get("_meta", {}).get(VERSION, "2026-07-28"),
                   "Mcp-Method": body.get("method", "")}
        if "name" in params or "uri" in params:
            routing["Mcp-Name"] = params.get("name", params.get("uri"))
        request = urllib.request.Request(self.endpoint.url, data=json.dumps(body).encode() if method == "POST" else None,
                                         method=method, headers={"Content-Type": "application/json",
                                                                 "Accept": "application/json, text/event-stream"}
                                         | routing | (headers or {}))
        return exchange(request)

    def rpc(self, method: str, params: dict | None = None, headers: dict | None = None) -> tuple[int, dict]:
        status, _, data = self.post({"jsonrpc": "2.0", "id": 5, "method": method,
                                     "params": {"_meta": meta()} | (params or {})}, headers)
        return status, json.loads(data)

    def test_a_request_on_its_own_with_no_session(self):
        status, headers, data = self.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}})
        self.assertEqual((status, headers["Content-Type"]), (200, "application/json"))
        self.assertNotIn("Mcp-Session-Id", headers)
        self.assertEqual(json.loads(data)["result"]["resultType"], "complete")

    def test_each_error_has_its_status(self):
        cases = [("tools/list", {"_meta": {}}, {}, 400, INVALID_PARAMS),
                 ("tools/list", {"_meta": meta() | {VERSION: "1900-01-01"}}, {}, 400, -32022),
                 ("ping", {}, {}, 404, METHOD_NOT_FOUND),
                 ("tools/call", {"name": "capital", "arguments": {}, "_meta": meta({})}, {}, 400, MISSING_CAPABILITY),
                 ("tools/list", {}, {"Mcp-Method": "prompts/list"}, 400, -32020),
                 ("tools/list", {}, {"MCP-Protocol-Version": "2025-11-25"}, 400, -32020),
                 ("tools/call", {"name": "greet", "arguments": {}}, {"Mcp-Name": "capital"}, 400, -32020)]
        for method, params, headers, status, code in cases:
            with self.subTest(method=method, params=params, headers=headers):
                got_status, reply = self.rpc(method, params, headers)
                self.assertEqual((got_status, reply["error"]["code"], reply["id"]), (status, code, 5))

    def test_headers_are_read_in_any_case_and_a_name_may_come_base64_encoded(self):
        encoded = "=?base64?" + base64.b64encode(b"greet").decode() + "?="
        for headers in ({"mcp-method": "tools/call", "Mcp-Name": "  greet  "}, {"Mcp-Name": encoded}):
            with self.subTest(headers):
                status, reply = self.rpc("tools/call", {"name": "greet", "arguments": {}}, headers)
                self.assertEqual((status, reply["result"]["resultType"]), (200, "input_required"))
        status, reply = self.rpc("tools/call", {"name": "greet", "arguments": {}}, {"Mcp-Name": "=?base64?Z3J!!ZWV0?="})
        self.assertEqual((status, reply["error"]["code"]), (400, -32020))

    def test_a_parameter_mirrored_into_a_header_must_say_what_the_body_says(self):
        call = {"name": "where", "arguments": {"region": "Hello, 世界", "limit": 3}}
        good = {"Mcp-Param-Region": "=?base64?SGVsbG8sIOS4lueVjA==?=", "Mcp-Param-Limit": "3"}
        status, reply = self.rpc("tools/call", call, good)
        self.assertEqual((status, reply["result"]["content"][0]["text"]), (200, "Hello, 世界/3"))
        for label, headers, params in (
                ("a different value", good | {"Mcp-Param-Limit": "4"}, call),
                ("missing", {"Mcp-Param-Region": good["Mcp-Param-Region"]}, call),
                ("not base64", good | {"Mcp-Param-Region": "=?base64?SGVs!!!bG8=?="}, call),
                ("no value in the body", {"Mcp-Param-Limit": "3"}, {"name": "where", "arguments": {}})):
            with self.subTest(label):
                status, reply = self.rpc("tools/call", params, headers)
                self.assertEqual((status, reply["error"]["code"]), (400, -32020))

    def test_the_client_mirrors_the_marked_arguments_and_leaves_out_a_tool_that_breaks_the_rules(self):
        client = interfaces.MCPClient(interfaces.StreamableHTTP(self.endpoint.url))
        self.addCleanup(client.close)
        client.connect()
        names = [t["name"] for t in client.list_tools()]
        self.assertIn("where", names)
        self.assertNotIn("ratio", names)
        self.assertIn("ratio: left out: x-mcp-header 'Ratio' is on a \"number\"", " ".join(client.alerts))
        self.assertEqual(client.call_tool("where", {"region": " padded ", "limit": 2})["content"][0]["text"],
                         " padded /2")  # accepted: the header went base64-encoded, as it must

    def test_header_values_and_annotations_as_the_specification_writes_them(self):
        for value, header in (("us-west1", "us-west1"), ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
                              (" padded ", "=?base64?IHBhZGRlZCA=?="), ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
                              ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="), (True, "true"), (-7, "-7")):
            with self.subTest(value):
                self.assertEqual(interfaces.header_value(value), header)
        nested = {"type": "object", "properties": {"a": {"type": "object", "properties": {
            "b": {"type": "integer", "x-mcp-header": "B"}}}}}
        self.assertEqual(interfaces.param_headers(nested), {("a", "b"): "B"})
        for schema, said in (({"properties": {"x": {"type": "array", "items": {"type": "string", "x-mcp-header": "X"}}}},
                               "not reached through properties alone"),
                              ({"properties": {"x": {"type": "string", "x-mcp-header": "a b"}}}, "not an HTTP token"),
                              ({"properties": {"x": {"type": "string", "x-mcp-header": "R"},
                                               "y": {"type": "string", "x-mcp-header": "r"}}}, "used twice")):
            with self.subTest(said):
                self.assertIn(said, interfaces.param_headers(schema))

    def test_get_and_delete_have_no_place_in_2026(self):
        for verb in ("GET", "DELETE"):
            with self.subTest(verb):
                status, headers, _ = self.post({}, {"MCP-Protocol-Version": "2026-07-28"}, method=verb)
                self.assertEqual((status, headers["Allow"]), (405, "POST"))

    def test_a_listen_stream_stays_open_for_the_changes_it_asked_for(self):
        import http.client
        host, port = self.endpoint.url.split("//")[1].split("/")[0].split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        self.addCleanup(connection.close)
        connection.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 21, "method": "subscriptions/listen",
                                                       "params": {"_meta": meta(),
                                                                  "notifications": {"promptsListChanged": True}}}),
                           {"Content-Type": "application/json", "Accept": "text/event-stream",
                            "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"})
        response = connection.getresponse()
        self.assertEqual((response.status, response.headers["Content-Type"]), (200, "text/event-stream"))

        def event() -> dict:
            while not (line := response.readline()).startswith(b"data: "):
                pass
            return json.loads(line[6:])
        self.assertEqual(event()["method"], "notifications/subscriptions/acknowledged")
        self.endpoint.server.set_registry(self.endpoint.server.registry)  # tools: not asked for on this stream
        interfaces.set_prompts(self.endpoint.server, self.endpoint.server.prompts)
        changed = event()
        self.assertEqual((changed["method"], changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]),
                         ("notifications/prompts/list_changed", 21))

    def test_the_client_hears_a_list_change_on_its_listen_stream(self):
        client = interfaces.MCPClient(interfaces.StreamableHTTP(self.endpoint.url))
        self.addCleanup(client.close)
        self.assertEqual(client.connect(), "2026-07-28")
        listen_id = client.listen(toolsListChanged=True)
        self.assertTrue(client._heard("notifications/subscriptions/acknowledged", wait=5))
        self.endpoint.server.set_registry(self.endpoint.server.registry)
        self.assertTrue(client.list_changed(wait=5))
        tagged = [n for n in client.notifications if n["method"] == "notifications/tools/list_changed"]
        self.assertEqual(tagged[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], listen_id)
        client.cancel(listen_id)  # over HTTP: the stream is closed

    def test_progress_comes_on_an_event_stream_before_the_result(self):
        PAUSE.set()
        self.addCleanup(PAUSE.clear)
        status, headers, data = self.post({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
            "_meta": meta() | {"progressToken": "p1"}, "name": "slow", "arguments": {}}})
        self.assertEqual((status, headers["Content-Type"]), (200, "text/event-stream"))
        events = [json.loads(line[6:]) for line in data.decode().splitlines() if line.startswith("data: ")]
        self.assertEqual([e.get("method", e.get("id")) for e in events], ["notifications/progress", 9])
        self.assertEqual(events[0]["params"]["progressToken"], "p1")
        self.assertEqual(events[1]["result"]["content"][0]["text"], "finished")

    def test_closing_the_stream_cancels_the_request(self):
        import http.client
        STARTED.clear()
        PAUSE.clear()
        CANCELLED.clear()
        host, port = self.endpoint.url.split("//")[1].split("/")[0].split(":")
        body = json.dumps({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {
            "_meta": meta() | {"progressToken": "p2"}, "name": "slow", "arguments": {}}})
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        connection.request("POST", "/mcp", body, {"Content-Type": "application/json", "Accept": "text/event-stream",
                                                  "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
                                                  "Mcp-Name": "slow"})
        response = connection.getresponse()
        self.assertEqual(response.status, 200)
        self.assertIn(b"notifications/progress", response.readline() + response.readline())
        self.assertTrue(STARTED.wait(10))
        connection.close()  # the client goes away: the call is cancelled, its wait ends without PAUSE
        self.assertTrue(CANCELLED.wait(10))


class ProtectedResource(unittest.TestCase):
    """RFC 9728: an endpoint that takes tokens publishes where a host gets one, and names that place in each 401."""

    def get(self, url: str, headers: dict | None = None, data: bytes | None = None) -> tuple[int, dict, bytes]:
        return exchange(urllib.request.Request(url, data=data, headers=headers or {}))

    def test_the_metadata_and_the_challenge_that_points_at_it(self):
        endpoint = MCPHttpServer(server(tokens={"t": {"tools:read"}}),
                                 authorization_servers=["https://auth.example.org"]).start()
        self.addCleanup(endpoint.stop)
        where = endpoint.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
        self.assertEqual(endpoint.metadata_url, where)
        status, _, data = self.get(where)  # no token needed: it is how a host without one learns where to go
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(data), {"resource": endpoint.url, "authorization_servers": ["https://auth.example.org"],
                                            "scopes_supported": ["tools:read", "tools:write"],
                                            "bearer_methods_supported": ["header"], "resource_name": "cardinal-mcp"})
        status, headers, _ = self.get(endpoint.url, {"Content-Type": "application/json"}, b"{}")
        self.assertEqual(status, 401)
        self.assertIn(f'resource_metadata="{where}"', headers["WWW-Authenticate"])

    def test_an_endpoint_without_tokens_has_none(self):
        endpoint = MCPHttpServer(server()).start()
        self.addCleanup(endpoint.stop)
        self.assertIsNone(endpoint.metadata_url)
        self.assertEqual(self.get(endpoint.url.replace("/mcp", "/.well-known/oauth-protected-resource"))[0], 404)


class ScriptFourTools(unittest.TestCase):
    """Script 04's demo 5 tools in 2026-07-28 over HTTP: the long export followed and stopped (the stream closed),
    the summary by the host's model and the digest that asks the user, both through input_required results."""

    def test_the_export_the_summary_and_the_digest(self):
        with interfaces.CardinalServer() as backend:
            mcp = interfaces.cardinal_mcp_server(backend.url, backend.api.token, spec=backend.api.spec)
            steps, clock = [], interfaces.PageClock()
            mcp.set_registry(ToolRegistry(list(mcp.registry) + interfaces._extra_tools(mcp.registry, steps, clock)))
            endpoint = MCPHttpServer(mcp, stream_check=0.02).start()
            self.addCleanup(endpoint.stop)
            host = interfaces.MCPClient(
                interfaces.StreamableHTTP(endpoint.url),
                sampler=lambda params: {"role": "assistant", "content": {"type": "text", "text": "Two engineers."},
                                        "model": "m"},
                elicitor=lambda message, schema: {"action": "accept", "content": {"days": 7}})
            self.addCleanup(host.close)
            self.assertEqual(host.connect(), "2026-07-28")
            seen = []

            def follow(progress: dict) -> bool:
                seen.append(progress["progress"])
                if len(seen) == 3:
                    return False  # the user presses stop at the third update
                clock.tick(progress["progress"])
                return True
            with self.assertRaises(interfaces.Cancelled):
                host.call_tool("export_directory", {"pages": 10}, on_progress=follow)
            self.assertEqual((seen, steps), ([1, 2, 3], [1, 2, 3]))  # page 4 never started
            self.assertNotIn("notifications/cancelled", json.dumps(host.messages))  # over HTTP: the stream closed
            self.assertEqual(host.call_tool("summarize_team", {"team": "firmware"})["content"][0]["text"],
                             "Two engineers.")
            digest = json.loads(host.call_tool("digest_asking", {"team": "firmware"})["content"][0]["text"])
            self.assertEqual((digest["team"], digest["days"], len(backend.api.digests)), ("firmware", 7, 1))
            self.assertEqual(len(host.shown), 2)  # each question shown to the user before it was answered


class DemoSix(unittest.TestCase):
    """scripts/04_interfaces.py's demo 6 (interfaces.demo_two_revisions), each figure from the exchange it shows."""

    @classmethod
    def setUpClass(cls):
        cls.text = str(interfaces.demo_two_revisions())
        cls.old, cls.new, cls.rest = cls.text.split("\n\n", 2)

    @staticmethod
    def arrows(section: str) -> list[str]:
        return [" ".join(line.split()[:2]).rstrip(":") for line in section.splitlines()[1:]]

    def test_the_handshake_era_asks_with_a_request_of_its_own_inside_the_call(self):
        self.assertEqual(self.arrows(self.old), ["-> initialize", "<- result", "-> notifications/initialized",
                                                 "-> tools/call", "<- elicitation/create", "-> result", "<- result"])

    def test_2026_asks_with_a_result_and_the_retry_lands_on_the_other_instance(self):
        self.assertEqual(self.arrows(self.new), ["-> server/discover", "<- result", "-> tools/call", "<- result",
                                                 "-> tools/call", "<- result"])
        self.assertEqual([line.rsplit("[instance ", 1)[1][0] for line in self.new.splitlines() if "[instance" in line],
                         ["A", "B", "A"])  # round robin: the retry reaches A, which never saw the question
        self.assertIn("input_required: elicitation_1 = elicitation/create", self.new)
        self.assertIn("elicitation_1 {\"action\": \"accept\", \"content\": {\"days\": 7}}", self.new)
        self.assertRegex(self.new.splitlines()[-1], r'result: \{"id": "DG-\d+", "team": "firmware", "days": 7')

    def test_the_state_length_is_the_state_sent_and_the_digest_was_made_once(self):
        state = next(line for line in self.new.splitlines() if "requestState (" in line)
        length = int(state.split("requestState (")[1].split()[0])
        # the first round's state: no answers yet, no principal (no token), a request digest of 32 hex digits, the
        # demo's clock plus the lifetime; as base64url, then a dot and the 43 characters of an HMAC-SHA256
        body = json.dumps({"a": {}, "p": "", "r": "0" * 32, "x": int(interfaces.DEMO_NOW) + interfaces.STATE_TTL_S},
                          separators=(",", ":"))
        self.assertEqual(length, len(base64.urlsafe_b64encode(body.encode())) + 1 + 43)
        self.assertIn("so the backend made 1 digest in that exchange", self.rest)  # asked first, written once

    def test_the_long_export_becomes_a_task_polled_until_its_last_page(self):
        section = self.rest.split("2026-07-28 with the tasks extension", 1)[1].split("\n\n", 1)[0]
        self.assertEqual(self.arrows(section), ["-> tools/call", "<- result", "-> tasks/get", "<- result",
                                                "-> tasks/get", "<- result", "-> tasks/get", "<- result"])
        self.assertIn('<- result task working "exporting 3 pages"; taskId (32 characters), poll every 500 ms', section)
        seen = [line.split("<- result: ", 1)[1] for line in section.splitlines() if "<- result: " in line]
        self.assertEqual(seen, ['working "exported page 1 of 3"', 'working "exported page 2 of 3"',
                                "completed: exported 3 pages"])  # each poll after the host turned one page

    def test_the_table_of_changes(self):
        table = self.rest.split("What 2026-07-28 changed", 1)[1].splitlines()[3:]
        self.assertEqual(len(table), len(interfaces.REVISION_CHANGES))
        self.assertTrue(table[1].startswith("the server asks the user"))
        self.assertTrue(table[-1].startswith("a call lasting minutes"))


if __name__ == "__main__":
    unittest.main()
