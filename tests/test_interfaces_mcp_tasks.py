"""MCP's tasks extension (io.modelcontextprotocol/tasks, SEP-2663, on 2026-07-28): a tools/call answered with a handle,
polled with tasks/get, given input with tasks/update, stopped with tasks/cancel.

Expected values come from the extension's specification (modelcontextprotocol/modelcontextprotocol,
seps/2663-tasks-extension.md and docs/extensions/tasks/overview.mdx) and are written out here by hand. The tools
below wait for the test's events, never for time, and the server's clock is the test's.
"""
import json
import sys
import threading
import unittest
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # for the HTTP helper of the 2026-07-28 tests

import interfaces  # noqa: E402
from interfaces import Cancelled, MCPHttpServer, MCPServer, RPCError, mcp_call  # noqa: E402
from test_interfaces_mcp_2026 import exchange  # noqa: E402
from tool_core import Tool, ToolExecutionError, ToolRegistry  # noqa: E402

TASKS = "io.modelcontextprotocol/tasks"
INVALID_PARAMS, METHOD_NOT_FOUND, INTERNAL_ERROR = -32602, -32601, -32603
HEADER_MISMATCH, MISSING_CAPABILITY = -32020, -32021
VERSION, CAPABILITIES = "io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"
WITH_TASKS = {"elicitation": {}, "extensions": {TASKS: {}}}
NEEDS_TASKS = {"requiredCapabilities": {"extensions": {TASKS: {}}}}
START = 1_800_000_000.0  # the server's clock at the start of each test: 2027-01-15T08:00:00Z
CONFIRM = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
NO_ARGUMENTS = {"type": "object", "properties": {}}


class Clock:
    def __init__(self):
        self.now = START

    def __call__(self) -> float:
        return self.now


class Job:
    """The tools' side of a test: `go` lets a waiting tool finish, `ran` records what each run did."""

    def __init__(self):
        self.go, self.ran = threading.Event(), []

    def export(self) -> str:
        call = mcp_call()
        as_task = call.detach("exporting")
        if as_task:
            try:
                call.wait_for(self.go, 5)
            except Cancelled:
                self.ran.append("export cancelled")
                raise
        self.ran.append("export " + ("as a task" if as_task else "inline"))
        return "exported 3 files"

    def confirm_later(self) -> str:
        call = mcp_call()
        name = call.elicit("Who are you?", NAME, key="name")["content"]["name"]  # MRTR, on the request itself
        call.detach("deleting")
        answer = call.elicit(f"{name}, delete the file?", CONFIRM, key="confirm")  # the task's own question
        call.wait_for(self.go, 5)
        return f"{name}: {'deleted' if answer['content']['confirm'] else 'kept'}"

    def two_questions(self) -> str:
        call = mcp_call()
        call.detach()
        answers = call.ask_all({"first": ("elicitation/create", {"message": "First?", "requestedSchema": NAME}),
                                "second": ("elicitation/create", {"message": "Second?", "requestedSchema": NAME})})
        return "+".join(answers[k]["content"]["name"] for k in ("first", "second"))

    def backend_gone(self) -> str:
        call = mcp_call()
        call.detach()
        call.fail(INTERNAL_ERROR, "Internal error: the backend went away")

    def broken(self) -> str:
        mcp_call().detach()
        raise ToolExecutionError("the input was rejected", retryable=False)

    def quick(self) -> str:
        return "done at once"  # a task tool may still answer at once

    def plain(self) -> str:
        self.ran.append(f"plain detach: {mcp_call().detach()}")
        return "plain"


def job_server(job: Job, clock: Clock, **options) -> MCPServer:
    tools = [Tool(name, name, NO_ARGUMENTS, getattr(job, name), read_only=True)
             for name in ("export", "confirm_later", "two_questions", "backend_gone", "broken", "quick", "plain")]
    modes = {"export": "optional", "confirm_later": "required", "two_questions": "optional",
             "backend_gone": "optional", "broken": "optional", "quick": "optional"}
    return MCPServer(ToolRegistry(tools), task_tools=modes, clock=clock, **options)


def meta(capabilities: dict | None = None) -> dict:
    return {VERSION: "2026-07-28", CAPABILITIES: WITH_TASKS if capabilities is None else capabilities}


def until(condition, limit: float = 5.0) -> None:
    """Wait for a tool's thread to reach a state the test has already let it reach (never a race to win)."""
    done = threading.Event()
    for _ in range(int(limit / 0.002)):
        if condition():
            return
        done.wait(0.002)
    raise AssertionError("the state was not reached")


class WithTasks(unittest.TestCase):
    def setUp(self):
        self.job, self.clock = Job(), Clock()
        self.server = job_server(self.job, self.clock)
        self.addCleanup(self.server.close)
        self.addCleanup(self.job.go.set)  # a tool still waiting ends
        self.session = self.server.session()

    def send(self, method: str, params: dict | None = None, capabilities: dict | None = None, session=None) -> dict:
        return (session or self.session).handle({"jsonrpc": "2.0", "id": 9, "method": method,
                                                 "params": {"_meta": meta(capabilities)} | (params or {})})

    def result(self, method: str, params: dict | None = None, **options) -> dict:
        reply = self.send(method, params, **options)
        self.assertIn("result", reply, reply)
        return reply["result"]

    def error(self, method: str, params: dict | None = None, **options) -> tuple:
        reply = self.send(method, params, **options)
        self.assertIn("error", reply, reply)
        return reply["error"]["code"], reply["error"].get("data"), reply["error"]["message"]

    def call(self, name: str, **fields) -> dict:
        return self.result("tools/call", {"name": name, "arguments": {}} | fields)

    def get(self, task_id: str) -> dict:
        return self.result("tasks/get", {"taskId": task_id})

    def status_becomes(self, task_id: str, status: str) -> dict:
        until(lambda: self.get(task_id)["status"] == status)
        return self.get(task_id)


class Creating(WithTasks):
    def test_the_server_offers_the_extension_in_2026_only(self):
        discovered = self.result("server/discover")["capabilities"]
        self.assertEqual(discovered["extensions"], {TASKS: {}})
        self.assertNotIn("tasks", discovered)  # the experimental capability of 2025-11-25 is not offered
        legacy = self.server.session().handle({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}})
        self.assertNotIn("extensions", legacy["result"]["capabilities"])
        plain = MCPServer(ToolRegistry([]))
        self.addCleanup(plain.close)
        self.assertNotIn("extensions", self.result("server/discover", session=plain.session())["capabilities"])
        self.assertEqual(self.error("tasks/get", {"taskId": "x"}, session=plain.session())[0], METHOD_NOT_FOUND)

    def test_a_call_becomes_a_handle_that_tasks_get_finds_at_once(self):
        created = self.call("export")
        task_id = created["taskId"]
        self.assertEqual({k: v for k, v in created.items() if k not in ("taskId", "_meta")}, {
            "resultType": "task", "status": "working", "statusMessage": "exporting",
            "createdAt": "2027-01-15T08:00:00.000Z", "lastUpdatedAt": "2027-01-15T08:00:00.000Z",
            "ttlMs": 3_600_000, "pollIntervalMs": 500})
        self.assertRegex(task_id, r"^[0-9a-f]{32}$")  # unguessable, and plain ASCII for the Mcp-Name header
        seen = self.get(task_id)  # stored before the handle was sent
        self.assertEqual((seen["resultType"], seen["taskId"], seen["status"]), ("complete", task_id, "working"))
        self.assertNotIn("result", seen)
        self.clock.now += 2.5
        self.job.go.set()
        done = self.status_becomes(task_id, "completed")
        self.assertEqual(done["result"]["content"], [{"type": "text", "text": "exported 3 files"}])
        self.assertNotIn("resultType", done["result"])
        self.assertEqual((done["createdAt"], done["lastUpdatedAt"]), ("2027-01-15T08:00:00.000Z",
                                                                      "2027-01-15T08:00:02.500Z"))
        self.assertEqual(self.job.ran, ["export as a task"])

    def test_without_the_extension_an_optional_tool_runs_inline_and_a_required_one_is_refused(self):
        answered = self.call("export", _meta=meta({}))
        self.assertEqual((answered["resultType"], answered["content"][0]["text"]), ("complete", "exported 3 files"))
        self.assertEqual(self.job.ran, ["export inline"])
        code, data, message = self.error("tools/call", {"name": "confirm_later", "arguments": {}}, capabilities={})
        self.assertEqual((code, data), (MISSING_CAPABILITY, NEEDS_TASKS))
        self.assertIn(TASKS, message)

    def test_a_task_tool_may_answer_at_once_and_any_other_tool_cannot_detach(self):
        self.assertEqual(self.call("quick")["content"][0]["text"], "done at once")
        self.assertEqual(self.call("plain")["resultType"], "complete")
        self.assertEqual(self.job.ran, ["plain detach: False"])
        self.assertEqual(self.server.tasks, {})

    def test_the_handshake_era_never_makes_a_task(self):
        legacy = self.server.session()
        legacy.handle({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"extensions": {TASKS: {}}},
            "clientInfo": {"name": "old", "version": "1"}}})
        reply = legacy.handle({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                               "params": {"name": "export", "arguments": {}}})
        self.assertEqual(reply["result"]["content"][0]["text"], "exported 3 files")
        self.assertEqual(legacy.handle({"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {
            "taskId": "x"}})["error"]["code"], METHOD_NOT_FOUND)


class Polling(WithTasks):
    def test_the_tasks_methods_need_the_extension_declared_before_anything_else(self):
        for method in ("tasks/get", "tasks/update", "tasks/cancel"):
            with self.subTest(method):
                code, data, _ = self.error(method, {"taskId": "no-such-task", "inputResponses": {}}, capabilities={})
                self.assertEqual((code, data), (MISSING_CAPABILITY, NEEDS_TASKS))

    def test_an_unknown_task_an_expired_one_and_another_callers_are_all_invalid_params(self):
        self.assertEqual(self.error("tasks/get", {"taskId": "no-such-task"})[0], INVALID_PARAMS)
        self.assertEqual(self.error("tasks/get", {"taskId": 7})[0], INVALID_PARAMS)
        task_id = self.call("export")["taskId"]
        self.clock.now += 3600.001  # past its ttlMs: forgotten, and its tool stopped
        self.assertEqual(self.error("tasks/get", {"taskId": task_id})[0], INVALID_PARAMS)
        until(lambda: self.job.ran == ["export cancelled"])

    def test_a_task_belongs_to_the_token_that_made_it(self):
        guarded = job_server(Job(), self.clock, tokens={"alice": {"tools:read"}, "bob": {"tools:read"}})
        self.addCleanup(guarded.close)
        alice, bob = guarded.session("alice"), guarded.session("bob")
        task_id = self.result("tools/call", {"name": "broken", "arguments": {}}, session=alice)["taskId"]
        for method in ("tasks/get", "tasks/cancel"):
            self.assertEqual(self.error(method, {"taskId": task_id}, session=bob)[0], INVALID_PARAMS)
        until(lambda: self.result("tasks/get", {"taskId": task_id}, session=alice)["status"] == "completed")

    def test_a_tool_error_completes_the_task_and_a_protocol_error_fails_it(self):
        broken = self.status_becomes(self.call("broken")["taskId"], "completed")
        self.assertTrue(broken["result"]["isError"])
        self.assertIn("the input was rejected", broken["result"]["content"][0]["text"])
        failed = self.status_becomes(self.call("backend_gone")["taskId"], "failed")
        self.assertEqual(failed["error"], {"code": INTERNAL_ERROR, "message": "Internal error: the backend went away"})
        self.assertNotIn("result", failed)

    def test_a_server_full_of_tasks_runs_the_next_call_inline(self):
        self.server.max_tasks = 1
        self.assertEqual(self.call("export")["resultType"], "task")
        self.job.go.set()  # the second call, not a task, does not wait
        self.assertEqual(self.call("export")["resultType"], "complete")
        self.assertIn("export inline", self.job.ran)  # (the first export, let go too, may finish before or after)
        self.assertEqual(len(self.server.tasks), 1)


class Input(WithTasks):
    def test_mrtr_first_then_the_task_asks_its_own_question(self):
        asked = self.call("confirm_later")
        self.assertEqual(asked["resultType"], "input_required")
        self.assertNotIn("taskId", asked)
        created = self.call("confirm_later", inputResponses={"name": {"action": "accept", "content": {"name": "Ada"}}},
                            requestState=asked["requestState"])
        self.assertEqual(created["resultType"], "task")
        self.assertFalse({"requestState", "inputRequests"} & set(created))
        waiting = self.status_becomes(created["taskId"], "input_required")
        self.assertEqual(waiting["inputRequests"], {"confirm": {"method": "elicitation/create", "params": {
            "message": "Ada, delete the file?", "requestedSchema": CONFIRM}}})
        self.assertNotIn("requestState", waiting)
        ack = self.result("tasks/update", {"taskId": created["taskId"], "inputResponses": {
            "unknown": {"ignored": True}}})
        self.assertEqual({k: v for k, v in ack.items() if k != "_meta"}, {"resultType": "complete"})
        self.assertEqual(self.get(created["taskId"])["status"], "input_required")  # an unknown key changes nothing
        self.result("tasks/update", {"taskId": created["taskId"], "inputResponses": {
            "confirm": {"action": "accept", "content": {"confirm": True}}}})
        working = self.status_becomes(created["taskId"], "working")  # answered: at work again, nothing asked
        self.assertNotIn("inputRequests", working)
        self.job.go.set()
        done = self.status_becomes(created["taskId"], "completed")
        self.assertEqual(done["result"]["content"][0]["text"], "Ada: deleted")

    def test_a_partial_answer_leaves_the_other_question_open(self):
        task_id = self.call("two_questions")["taskId"]
        self.assertEqual(list(self.status_becomes(task_id, "input_required")["inputRequests"]), ["first", "second"])
        self.result("tasks/update", {"taskId": task_id, "inputResponses": {
            "first": {"action": "accept", "content": {"name": "a"}}}})
        still = self.get(task_id)  # taken before the acknowledgement
        self.assertEqual((still["status"], list(still["inputRequests"])), ("input_required", ["second"]))
        self.result("tasks/update", {"taskId": task_id, "inputResponses": {
            "first": {"action": "accept", "content": {"name": "again"}},  # answered already: ignored
            "second": {"action": "accept", "content": {"name": "b"}}}})
        self.assertEqual(self.status_becomes(task_id, "completed")["result"]["content"][0]["text"], "a+b")

    def test_input_responses_must_be_an_object_and_each_answer_too(self):
        task_id = self.call("two_questions")["taskId"]
        self.assertEqual(self.error("tasks/update", {"taskId": task_id, "inputResponses": ["a"]})[0], INVALID_PARAMS)
        self.status_becomes(task_id, "input_required")
        code, _, message = self.error("tasks/update", {"taskId": task_id, "inputResponses": {"first": "yes"}})
        self.assertEqual(code, INVALID_PARAMS)
        self.assertIn("inputResponses['first']", message)
        self.assertEqual(list(self.get(task_id)["inputRequests"]), ["first", "second"])  # nothing was taken


class Cancelling(WithTasks):
    def test_cancel_is_an_empty_acknowledgement_and_the_task_ends_cancelled(self):
        task_id = self.call("export")["taskId"]
        ack = self.result("tasks/cancel", {"taskId": task_id})
        self.assertEqual({k: v for k, v in ack.items() if k != "_meta"}, {"resultType": "complete"})
        self.assertEqual(self.get(task_id)["status"], "cancelled")
        until(lambda: self.job.ran == ["export cancelled"])  # the tool's wait ended at the cancel
        self.assertEqual(self.get(task_id)["status"], "cancelled")  # what the tool did after does not change it
        self.assertEqual(self.result("tasks/cancel", {"taskId": task_id})["resultType"], "complete")

    def test_a_task_waiting_for_input_can_be_cancelled(self):
        task_id = self.call("two_questions")["taskId"]
        self.status_becomes(task_id, "input_required")
        self.result("tasks/cancel", {"taskId": task_id})
        cancelled = self.get(task_id)
        self.assertEqual(cancelled["status"], "cancelled")
        self.assertNotIn("inputRequests", cancelled)

    def test_a_server_that_closes_cancels_its_running_tasks(self):
        task_id = self.call("export")["taskId"]
        task = self.server.tasks[task_id]
        self.server.close()
        self.assertEqual(task.view()["status"], "cancelled")
        until(lambda: self.job.ran == ["export cancelled"])

    def test_cancelling_a_finished_task_changes_nothing(self):
        self.job.go.set()
        task_id = self.call("export")["taskId"]
        self.status_becomes(task_id, "completed")
        self.result("tasks/cancel", {"taskId": task_id})
        self.assertEqual(self.get(task_id)["status"], "completed")


class Notifications(WithTasks):
    def test_a_listen_stream_hears_the_status_of_the_tasks_it_names(self):
        task_id = self.call("export")["taskId"]
        sent = []
        self.session.attach(lambda message, related: sent.append(message) or True)
        self.assertIsNone(self.send("subscriptions/listen", {"notifications": {"taskIds": [task_id, "other"]}}))
        self.assertEqual(sent[0]["params"]["notifications"], {"taskIds": [task_id]})
        self.job.go.set()
        until(lambda: len(sent) == 2)
        note = sent[1]
        self.assertEqual((note["method"], note["params"]["taskId"], note["params"]["status"]),
                         ("notifications/tasks", task_id, "completed"))
        self.assertEqual(note["params"]["result"]["content"][0]["text"], "exported 3 files")
        self.assertEqual(note["params"]["_meta"], {"io.modelcontextprotocol/subscriptionId": 9})

    def test_asking_for_task_notifications_needs_the_extension(self):
        code, data, _ = self.error("subscriptions/listen", {"notifications": {"taskIds": ["x"]}},
                                   capabilities={"elicitation": {}})
        self.assertEqual((code, data), (MISSING_CAPABILITY, NEEDS_TASKS))


class Client(unittest.TestCase):
    """MCPClient(tasks=True) declares the extension and follows a task to its end: call_tool still returns the
    CallToolResult. Its pauses between polls are the test's: each lets the tool take its next step."""

    def setUp(self):
        self.job, self.clock = Job(), Clock()
        self.server = job_server(self.job, self.clock)
        self.addCleanup(self.server.close)
        self.addCleanup(self.job.go.set)
        self.pauses: list[float] = []

    def client(self, **options) -> interfaces.MCPClient:
        def pause(seconds: float) -> None:
            self.pauses.append(seconds)
            self.job.go.set()
            threading.Event().wait(0.002)
        client = interfaces.MCPClient(interfaces.InProcess(self.server.session()), pause=pause,
                                      elicitor=lambda message, schema: {"action": "accept", "content": (
                                          {"name": "Ada"} if "name" in schema["properties"] else {"confirm": True})},
                                      **options)
        self.addCleanup(client.close)
        client.connect()
        return client

    def test_call_tool_follows_the_task_and_returns_its_result(self):
        client = self.client(tasks=True)
        self.assertEqual(client.capabilities()["extensions"], {TASKS: {}})
        self.assertEqual(client.call_tool("export", {})["content"][0]["text"], "exported 3 files")
        self.assertEqual(self.job.ran, ["export as a task"])
        self.assertEqual(self.pauses[0], 0.5)  # the task's pollIntervalMs
        methods = [json.loads(text).get("method") for d, text in client.messages if d == "->"]
        self.assertEqual(methods[:3], ["server/discover", "tools/call", "tasks/get"])

    def test_questions_are_answered_once_each_with_tasks_update(self):
        client = self.client(tasks=True)
        self.assertEqual(client.call_tool("confirm_later", {})["content"][0]["text"], "Ada: deleted")
        self.assertEqual(len(client.shown), 2)  # the MRTR question, then the task's
        sent = [json.loads(text) for d, text in client.messages if d == "->"]
        self.assertEqual([m["params"]["inputResponses"] for m in sent if m.get("method") == "tasks/update"],
                         [{"confirm": {"action": "accept", "content": {"confirm": True}}}])

    def test_a_question_seen_again_before_the_server_took_its_answer_is_answered_once(self):
        fake = Eventual()
        asked = []
        client = interfaces.MCPClient(fake, tasks=True, pause=lambda seconds: None,
                                      elicitor=lambda message, schema: asked.append(message) or {
                                          "action": "accept", "content": {"confirm": True}})
        client.connect()
        self.assertEqual(client.call_tool("slow", {})["content"][0]["text"], "done")
        self.assertEqual((asked, fake.updates), (["Sure?"], 1))
        self.assertEqual(fake.polls, 3)

    def test_a_failed_task_is_raised_and_a_client_without_the_extension_gets_no_task(self):
        client = self.client(tasks=True)
        with self.assertRaises(RPCError) as caught:
            client.call_tool("backend_gone", {})
        self.assertEqual(caught.exception.code, INTERNAL_ERROR)
        self.assertEqual(self.client().call_tool("export", {})["content"][0]["text"], "exported 3 files")
        self.assertEqual(self.job.ran[-1], "export inline")

    def test_a_task_the_client_did_not_ask_for_is_an_invalid_answer(self):
        client = interfaces.MCPClient(AlwaysATask())
        self.assertEqual(client.connect(), "2026-07-28")
        with self.assertRaises(RPCError) as caught:
            client.call_tool("anything", {})
        self.assertIn("did not ask for", caught.exception.message)

    def test_a_cancelled_task_is_raised_as_cancelled(self):
        client = self.client(tasks=True)
        created = client.request("tools/call", {"name": "two_questions", "arguments": {}})
        client.cancel_task(created["taskId"])
        with self.assertRaises(Cancelled):
            client.follow_task(created)


class AlwaysATask:
    """A fake server that answers every tools/call with a task, whatever the client declared."""

    def exchange(self, text: str) -> list[str]:
        message = json.loads(text)
        result = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "resultType": "complete"} \
            if message["method"] == "server/discover" else {"resultType": "task", "taskId": "t", "status": "working"}
        return [json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})]

    def close(self) -> None:
        pass


class Eventual:
    """A fake server whose tasks/update is eventually consistent: the next poll still shows the question."""

    def __init__(self):
        self.polls = self.updates = 0

    def exchange(self, text: str) -> list[str]:
        message = json.loads(text)
        method, task = message["method"], {"resultType": "complete", "taskId": "t", "ttlMs": 60_000}
        if method == "server/discover":
            result = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "resultType": "complete"}
        elif method == "tools/call":
            result = task | {"resultType": "task", "status": "working"}
        elif method == "tasks/update":
            self.updates += 1
            result = {"resultType": "complete"}
        else:
            self.polls += 1
            result = task | ({"status": "input_required", "inputRequests": {"q": {
                "method": "elicitation/create", "params": {"message": "Sure?", "requestedSchema": CONFIRM}}}}
                if self.polls < 3 else {"status": "completed", "result": {"content": [
                    {"type": "text", "text": "done"}], "isError": False}})
        return [json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})]

    def close(self) -> None:
        pass


class OverHTTP(unittest.TestCase):
    """Streamable HTTP: Mcp-Name carries the taskId on tasks/get, update and cancel, and must say what the body
    says; the methods the extension removed (tasks/result, tasks/list) are not found."""

    @classmethod
    def setUpClass(cls):
        cls.job = Job()
        cls.endpoint = MCPHttpServer(job_server(cls.job, Clock())).start()
        cls.addClassCleanup(cls.endpoint.stop)
        cls.addClassCleanup(cls.job.go.set)

    def setUp(self):
        self.job.go.clear()  # each test's export waits until the test lets it go
        self.addCleanup(self.job.go.set)

    def rpc(self, method: str, params: dict, headers: dict | None = None) -> tuple[int, dict]:
        body = {"jsonrpc": "2.0", "id": 3, "method": method, "params": {"_meta": meta()} | params}
        request = urllib.request.Request(self.endpoint.url, data=json.dumps(body).encode(), headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
            | interfaces.routing_headers(body) | (headers or {}))
        status, _, data = exchange(request)
        return status, json.loads(data)

    def test_the_task_id_travels_in_mcp_name(self):
        status, created = self.rpc("tools/call", {"name": "export", "arguments": {}})
        task_id = created["result"]["taskId"]
        body = {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"_meta": meta(), "taskId": task_id}}
        self.assertEqual(interfaces.routing_headers(body)["Mcp-Name"], task_id)
        self.assertEqual(self.rpc("tasks/get", {"taskId": task_id})[1]["result"]["status"], "working")
        status, wrong = self.rpc("tasks/get", {"taskId": task_id}, {"Mcp-Name": "another-task"})
        self.assertEqual((status, wrong["error"]["code"]), (400, HEADER_MISMATCH))
        self.rpc("tasks/cancel", {"taskId": task_id})

    def test_the_removed_methods_are_not_found(self):
        for method in ("tasks/result", "tasks/list"):
            status, reply = self.rpc(method, {"taskId": "x"} if method == "tasks/result" else {})
            self.assertEqual((status, reply["error"]["code"]), (404, METHOD_NOT_FOUND), method)

    def test_the_client_follows_a_task_over_http(self):
        client = interfaces.MCPClient(interfaces.StreamableHTTP(self.endpoint.url), tasks=True,
                                      pause=lambda seconds: self.job.go.set() or threading.Event().wait(0.002))
        self.addCleanup(client.close)
        self.assertEqual(client.connect(), "2026-07-28")
        self.assertEqual(client.call_tool("export", {})["content"][0]["text"], "exported 3 files")


if __name__ == "__main__":
    unittest.main()
