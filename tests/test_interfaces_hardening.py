"""interfaces.py under attack and load: what a client, a backend or an attacker observes.

Regression tests for the hardening of interfaces.py (issue 20, part 1). Each test describes one thing a
hostile or merely unlucky party could do: a backend that redirects the key elsewhere, echoes it back,
drips its answer or floods it; a burst of clients or connections; a client that stalls, names a foreign
Host, smuggles a request in the body of a refused one, keeps a session idle, sends a message one byte over the
limit, resumes a stream already open, opens streams past the caps, hangs up on a stream, never answers an
elicitation, subscribes to what it may not read or without end (issue 31); a foreign MCP server whose tools
carry odd annotations or whose notifications come only on its GET stream; a careless `serve --http`.
Expected values come from the HTTP and MCP specifications (RFC 9110 redirects and 405/421, RFC 6750
challenges, MCP 2024-11-05 to 2025-11-25) and from hand counts; none is copied from a run.

Every server is on 127.0.0.1 and is stopped by whoever started it: a test (addCleanup), or one of the three
background scenarios below (try/finally); every wait is bounded. Timeouts are the parameters the code under
test takes, set small (0.2-0.6 s), so the file runs in about two seconds.
"""
import http.client
import io
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import unittest
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import interfaces  # noqa: E402
import tool_core  # noqa: E402
from interfaces import (CardinalAPI, CardinalServer, MCPClient, MCPHttpServer, MCPServer, RPCError,  # noqa: E402
                        StreamableHTTP, openapi_to_tools, serve_stdio)
from tool_core import Tool, ToolRegistry, tool_from_function  # noqa: E402

KEY = "hardening-KEY-8c41e07d2b"  # distinctive, so that a leak anywhere is found by a substring test
BEARER = "hardening-BEARER-f3a95d10c6"
CARDINAL_KEY = "hardening-CARDINAL-77e0a1"
INVALID_REQUEST, FORBIDDEN = -32600, -32003  # JSON-RPC's reserved code; MCP servers' usual "forbidden"
MINIMAL_ENV = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp")}

# Three scenarios wait out a timeout (a drip, a stalled request, a subprocess). They start in setUpModule and
# run in the background while the other tests run, so the file's waits overlap; each starts and stops its own
# server and returns what a client saw, which its test then checks (`outcome(name)`).
BACKGROUND: dict = {}
_RUNNER = ThreadPoolExecutor(3, thread_name_prefix="hardening-scenario")


def setUpModule():
    BACKGROUND.update({"drip": _RUNNER.submit(dripping_calls), "stall": _RUNNER.submit(stalled_post),
                       "serve": _RUNNER.submit(serve_http_without_tokens)})


def tearDownModule():
    for future in BACKGROUND.values():
        try:
            future.result(timeout=10)
        except Exception:  # noqa: BLE001 - its test has reported it
            pass
    _RUNNER.shutdown(wait=True)


def outcome(name: str):
    """The result of a background scenario (its exception, if it raised)."""
    return BACKGROUND[name].result(timeout=10)


# --- helpers: someone else's HTTP service, raw HTTP, a small OpenAPI document, MCP messages ---

class Backend(ThreadingHTTPServer):
    """Someone else's service on 127.0.0.1: records every request, counts TCP connections, and answers
    with answer(request, handler) -> (status, headers, body), or None when it wrote the answer itself."""

    daemon_threads = True

    def __init__(self, answer):
        self.answer = answer
        self.requests: list[dict] = []
        self.connections = 0
        self.accepted: list[socket.socket] = []
        self.release = threading.Event()  # set on stop: a handler that drips or holds a stream returns at once
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), BackendHandler)
        self.thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def process_request(self, request, client_address):
        with self.lock:
            self.connections += 1
            self.accepted.append(request)
        super().process_request(request, client_address)

    def handle_error(self, request, client_address):
        pass  # a client that gave up (a deadline, a cut) is expected here

    def stop(self) -> None:
        self.release.set()
        self.shutdown()
        for connection in self.accepted:  # kept-alive connections too: no client may reach a stopped server
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.server_close()
        self.thread.join(timeout=2)


class BackendHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real services do
    timeout = 1.0  # an idle kept-alive connection ends soon after the test
    disable_nagle_algorithm = True  # head and body are two writes: without this each answer waits for a delayed ACK

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        request = {"method": self.command, "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                   "body": self.rfile.read(length) if length else b""}
        with self.server.lock:
            self.server.requests.append(request)
        try:
            answer = self.server.answer(request, self)
            if answer is None:
                return
            status, headers, body = answer
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # the client gave up: nothing to answer
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _answer

    def log_message(self, *args) -> None:
        pass


def backend(test: unittest.TestCase, answer) -> Backend:
    server = Backend(answer)
    test.addCleanup(server.stop)
    return server


def as_json(status: int, payload, **headers) -> tuple[int, dict, bytes]:
    return status, {"Content-Type": "application/json"} | headers, json.dumps(payload).encode()


def port_of(url: str) -> int:
    return urlsplit(url).port


def exchange(url: str, method: str, path: str | None = None, body: bytes | None = None, headers: dict | None = None,
             timeout: float = 2.0) -> tuple[int, http.client.HTTPMessage, bytes]:
    """Send one request with http.client (a Host header given here replaces the usual one)."""
    connection = http.client.HTTPConnection("127.0.0.1", port_of(url), timeout=timeout)
    try:
        connection.request(method, path or urlsplit(url).path or "/", body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


def raw_exchange(url: str, data: bytes, timeout: float = 2.0) -> bytes:
    """Write bytes as they are and read until the server closes the connection."""
    with socket.create_connection(("127.0.0.1", port_of(url)), timeout=timeout) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def items_openapi() -> dict:
    """A small API as someone else would document it: a key in a header and a bearer token, both required."""
    def content(schema: dict) -> dict:
        return {"application/json": {"schema": schema}}
    return {
        "openapi": "3.1.0", "info": {"title": "Items", "version": "1.0.0"},
        "security": [{"keyAuth": [], "bearerAuth": []}],
        "paths": {
            "/items": {
                "get": {"operationId": "list_items", "summary": "List the items.",
                        "parameters": [{"name": "limit", "in": "query", "description": "at most this many",
                                        "schema": {"type": "integer", "minimum": 1}}],
                        "responses": {"200": {"description": "The items.", "content": content({})}}},
                "post": {"operationId": "add_item", "summary": "Add an item.",
                         "requestBody": {"required": True, "content": content({
                             "type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}})},
                         "responses": {"201": {"description": "The item added.", "content": content({})}}}},
            "/items/{itemId}": {
                "get": {"operationId": "get_item", "summary": "Read one item.",
                        "parameters": [{"name": "itemId", "in": "path", "required": True, "schema": {"type": "string"}}],
                        "responses": {"200": {"description": "The item.", "content": content({})}}}},
        },
        "components": {"securitySchemes": {"keyAuth": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
                                           "bearerAuth": {"type": "http", "scheme": "bearer"}}},
    }


def items_tools(url: str, **options) -> ToolRegistry:
    return ToolRegistry(openapi_to_tools(items_openapi(), url, credentials={"keyAuth": KEY, "bearerAuth": BEARER},
                                         **options))


def rpc(method: str, params: dict | None = None, message_id=1) -> dict:
    return {"jsonrpc": "2.0", "id": message_id, "method": method} | ({"params": params} if params is not None else {})


def hello(version: str = "2025-06-18") -> dict:
    return {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "hardening-test", "version": "0"}}


def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


def mcp_tools(notes: list | None = None) -> ToolRegistry:
    """add (read-only) and note (a side effect: it appends to notes)."""
    def note(text: str) -> str:
        """Store a note."""
        (notes if notes is not None else []).append(text)
        return "stored"
    return ToolRegistry([tool_from_function(add, read_only=True), tool_from_function(note)])


def ready(server: MCPServer, version: str = "2025-06-18", token: str | None = None):
    """Open an in-process session and run the handshake on it."""
    session = server.session(token)
    reply = session.handle(rpc("initialize", hello(version), 0))
    assert "result" in reply, reply
    session.handle({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return session


def mcp_endpoint(test: unittest.TestCase, server: MCPServer | None = None, **options) -> MCPHttpServer:
    endpoint = MCPHttpServer(server or MCPServer(mcp_tools()), **options).start()
    test.addCleanup(endpoint.stop)
    return endpoint


def post_json(url: str, message, headers: dict | None = None) -> tuple[int, http.client.HTTPMessage, bytes]:
    base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    return exchange(url, "POST", body=json.dumps(message).encode(), headers=base | (headers or {}))


def text_of(result: dict) -> str:
    return "".join(block.get("text", "") for block in result.get("content", []))


# ---------------------------------------------------------------------------------------------
# --- 1. Generated tools: the credentials stay with their origin ---
# ---------------------------------------------------------------------------------------------

def echo_headers(request: dict, handler) -> tuple:
    """A service that shows what it received, the credentials included."""
    return as_json(200, {"you sent": {"x-api-key": request["headers"].get("x-api-key"),
                                      "authorization": request["headers"].get("authorization")}})


class CredentialsStayWithTheirOrigin(unittest.TestCase):
    """Guards against a generated tool that hands its key to another host (a redirect), turns a POST into a
    GET, shows an echoed key to the model, or lets a dot segment send the key to another route."""

    def assert_no_secret(self, result: tool_core.ToolResult) -> None:
        for secret in (KEY, BEARER):
            for seen in (result.text, result.message, repr(result.content)):
                self.assertNotIn(secret, seen)

    def test_a_redirect_to_another_origin_is_refused_and_that_origin_gets_nothing(self):
        for status in (301, 302, 307, 308):
            with self.subTest(status=status):
                other = backend(self, echo_headers)  # another port on 127.0.0.1 is another origin
                service = backend(self, lambda r, h: (status, {"Location": other.url + "/items"}, b""))
                result = items_tools(service.url).call("list_items", {})
                self.assertEqual((result.ok, result.error_kind), (False, "execution_error"))
                self.assertRegex(result.message, f"redirected to '?{other.url}")
                self.assertIn("does not follow redirects off", result.message)
                self.assertEqual(other.requests, [])  # so neither the key nor the token went there
                self.assertEqual(len(service.requests), 1)
                self.assert_no_secret(result)

    def test_a_post_answered_301_302_or_303_is_not_repeated_as_a_get(self):
        for status in (301, 302, 303):
            with self.subTest(status=status):
                service = backend(self, lambda r, h: (status, {"Location": "/items/1"}, b"")
                                  if r["method"] == "POST" else as_json(200, {"id": 1}))
                result = items_tools(service.url).call("add_item", {"name": "lamp"})
                self.assertEqual((result.ok, result.error_kind), (False, "execution_error"))
                self.assertIn("repeated as a GET", result.message)
                self.assertEqual([r["method"] for r in service.requests], ["POST"])  # no GET anywhere

    def test_a_redirect_within_the_origin_is_followed_and_a_307_resends_the_post_with_its_body(self):
        def answer(request, handler):
            if request["path"] == "/items":
                return (302, {"Location": "/items/moved"}, b"") if request["method"] == "GET" else \
                    (307, {"Location": "/v2/items"}, b"")
            if request["path"] == "/items/moved":
                return as_json(200, {"moved": True})
            return as_json(201, {"created": json.loads(request["body"])["name"]})
        with self.subTest("GET, 302"):
            service = backend(self, answer)
            result = items_tools(service.url).call("list_items", {})
            self.assertEqual((result.ok, result.content), (True, {"moved": True}))
            self.assertEqual([(r["method"], r["path"]) for r in service.requests], [("GET", "/items"), ("GET", "/items/moved")])
        with self.subTest("POST, 307"):
            service = backend(self, answer)
            result = items_tools(service.url).call("add_item", {"name": "lamp"})
            self.assertEqual((result.ok, result.content), (True, {"created": "lamp"}), result.message)
            self.assertEqual([(r["method"], r["path"]) for r in service.requests], [("POST", "/items"), ("POST", "/v2/items")])
            self.assertEqual(json.loads(service.requests[1]["body"]), {"name": "lamp"})
            self.assertEqual(service.requests[0]["body"], service.requests[1]["body"])

    def test_a_key_echoed_in_a_successful_answer_is_redacted_everywhere(self):
        def escaped(text: str) -> str:  # the same string in JSON escapes: no plain-text search finds it
            return '"' + "".join(f"\\u{ord(c):04x}" for c in text) + '"'

        def echo(request, handler):
            key, bearer = request["headers"]["x-api-key"], request["headers"]["authorization"]
            payload = {"you sent": {"x-api-key": key, "authorization": bearer}, key: "the key as a name",
                       "nested": [[key, {"deeper": [bearer, 1, None]}]]}
            return as_json(200, payload)

        def echo_escaped(request, handler):
            key = request["headers"]["x-api-key"]
            body = '{"seen": ' + escaped(key) + ', ' + escaped(key) + ': [' + escaped(key) + ']}'
            return 200, {"Content-Type": "application/json"}, body.encode()

        for name, answer in (("plain", echo), ("JSON escapes", echo_escaped)):
            with self.subTest(name):
                service = backend(self, answer)
                result = items_tools(service.url).call("list_items", {})
                self.assertTrue(result.ok, result.message)
                self.assert_no_secret(result)
                self.assertIn("[redacted]", result.text)
        self.assertEqual(result.content, {"seen": "[redacted]", "[redacted]": ["[redacted]"]})

    def test_a_dot_segment_as_a_path_parameter_is_refused_before_any_request(self):
        cases = [(".", False), ("..", False), ("a.b", True), ("...", True), (".hidden", True)]
        for value, allowed in cases:
            with self.subTest(value=value):
                service = backend(self, lambda r, h: as_json(200, {"path": r["path"]}))
                result = items_tools(service.url).call("get_item", {"itemId": value})
                if allowed:
                    self.assertEqual((result.ok, result.content), (True, {"path": f"/items/{value}"}))
                else:
                    self.assertFalse(result.ok)
                    self.assertIn("itemId", result.message)
                    self.assertEqual(service.requests, [])


# ---------------------------------------------------------------------------------------------
# --- 2. Generated tools: one deadline per call, a cap on what reaches the model, keep-alive ---
# ---------------------------------------------------------------------------------------------

DRIP_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n"
DRIP_BODY = b'["' + b"x" * 36 + b'"]'


def drip(request: dict, handler) -> None:
    """Answer one byte every 0.2 s: the head from its first byte (GET /items) or, after a whole head, the body.
    12 bytes, 2.4 s, if nobody gives up; then the connection is closed mid-answer."""
    handler.close_connection = True
    whole = DRIP_HEAD + DRIP_BODY
    start = 0 if urlsplit(request["path"]).path == "/items" else len(DRIP_HEAD)
    handler.wfile.write(whole[:start])
    for byte in whole[start: start + 12]:
        if handler.server.release.wait(0.2):
            return None
        handler.wfile.write(bytes([byte]))
    return None


def dripping_calls() -> dict:
    """Background: call a dripping head and a dripping body at once, each with timeout=0.6; (result, seconds)."""
    service = Backend(drip)
    try:
        tools = items_tools(service.url, timeout=0.6)

        def timed(name: str, arguments: dict):
            start = time.monotonic()
            return tools.call(name, arguments), time.monotonic() - start
        with ThreadPoolExecutor(2) as pool:
            head = pool.submit(timed, "list_items", {})
            body = pool.submit(timed, "get_item", {"itemId": "slow"})
            return {"head": head.result(timeout=5), "body": body.result(timeout=5)}
    finally:
        service.stop()


class DeadlinesAndSizes(unittest.TestCase):
    """Guards against a timeout that restarts at every byte (a dripping server holds the call for ever), an
    answer cut short taken for the whole one, and a huge answer reaching the model whole."""

    def assert_cut_at_the_deadline(self, what: str) -> None:
        result, _ = outcome("drip")[what]
        self.assertEqual((result.ok, result.error_kind), (False, "execution_error"))
        self.assertIn("no answer within 0.6 s", result.message)
        self.assertTrue(result.retryable)  # a deadline restarted at every byte would have read all 12 bytes, cut short

    def test_a_server_dripping_its_response_head_is_cut_at_the_call_deadline(self):
        self.assert_cut_at_the_deadline("head")

    def test_a_server_dripping_its_body_is_cut_at_the_call_deadline(self):
        self.assert_cut_at_the_deadline("body")

    def test_a_body_shorter_than_its_content_length_is_not_taken_for_the_whole_answer(self):
        def cut(request, handler):  # announces 6 bytes, sends 3 that are valid JSON on their own, hangs up
            handler.close_connection = True
            handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 6\r\n\r\n123")
        service = backend(self, cut)
        result = items_tools(service.url).call("list_items", {})
        self.assertFalse(result.ok, f"a cut answer was taken as the value {result.content!r}")

    def test_an_oversized_answer_is_cut_with_a_note_naming_a_narrowing_parameter(self):
        body = json.dumps(["x" * 299_996]).encode()
        self.assertEqual(len(body), 300_000)
        service = backend(self, lambda r, h: (200, {"Content-Type": "application/json"}, body))
        result = items_tools(service.url, max_response_bytes=1000).call("list_items", {})
        self.assertTrue(result.ok, result.message)
        self.assertTrue(result.text.startswith(body[:1000].decode()), result.text[:80])
        note = result.text[1000:]
        for fragment in ("300,000 bytes", "first 1,000", "limit"):
            self.assertIn(fragment, note)
        self.assertLess(len(result.text), 1400)


class KeepAlive(unittest.TestCase):
    """Guards against a TCP handshake (and an accept-queue slot) per call, and against a pooled connection
    the server has closed meanwhile turning into a failed call."""

    def test_ten_calls_share_one_connection_and_a_server_that_closes_still_answers_each(self):
        answers = {
            "keeps the connection": lambda r, h: as_json(200, {"n": len(h.server.requests)}),
            "says Connection: close": lambda r, h: as_json(200, {"n": len(h.server.requests)}, Connection="close"),
            "closes without saying so": lambda r, h: (setattr(h, "close_connection", True),
                                                      as_json(200, {"n": len(h.server.requests)}))[1],
        }
        for what, answer in answers.items():
            with self.subTest(server=what):
                service = backend(self, answer)
                tools = items_tools(service.url)
                results = [tools.call("list_items", {"limit": 5}) for _ in range(10)]
                self.assertEqual([(r.ok, r.content) for r in results], [(True, {"n": n}) for n in range(1, 11)])
                self.assertEqual(service.connections, 1 if what == "keeps the connection" else 10)


# ---------------------------------------------------------------------------------------------
# --- 3. The loopback servers under a burst, a stall, a foreign Host ---
# ---------------------------------------------------------------------------------------------

class Burst(unittest.TestCase):
    """Guards against a listen backlog of 5: under a burst, connections were reset or waited out a SYN
    retransmission (a second or more)."""

    def test_twenty_clients_calling_ten_times_each_over_streamable_http_all_get_their_answers(self):
        endpoint = mcp_endpoint(self)
        answers, failures, slowest = {}, [], [0.0]
        lock = threading.Lock()

        def client_run(i: int) -> None:
            client = MCPClient(StreamableHTTP(endpoint.url, timeout=5))
            try:
                client.initialize()
                for j in range(10):
                    start = time.monotonic()
                    result = client.call_tool("add", {"a": i, "b": 1000 * j})
                    with lock:
                        slowest[0] = max(slowest[0], time.monotonic() - start)
                        answers[(i, j)] = text_of(result)
            except Exception as exc:  # noqa: BLE001 - a lost call is what this test counts
                with lock:
                    failures.append(f"client {i}: {type(exc).__name__}: {exc}"[:160])
            finally:
                try:
                    client.close()
                except Exception:  # noqa: BLE001
                    pass
        threads = [threading.Thread(target=client_run, args=(i,), daemon=True) for i in range(20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=15)
        self.assertEqual(failures, [])
        self.assertEqual(answers, {(i, j): str(i + 1000 * j) for i in range(20) for j in range(10)})
        self.assertLess(slowest[0], 1.0)  # a dropped SYN is retransmitted after 1 s: no call waited for one

    def test_sixty_connections_opened_at_once_are_all_accepted_and_answered(self):
        server = CardinalServer(CardinalAPI(token=CARDINAL_KEY)).start()
        self.addCleanup(server.stop)
        sockets = []
        self.addCleanup(lambda: [s.close() for s in sockets])
        for n in range(60):
            try:  # before anything is sent: only the accept queue holds them
                sockets.append(socket.create_connection(("127.0.0.1", port_of(server.url)), timeout=0.5))
            except OSError as exc:
                self.fail(f"connection {n + 1} of 60 was not accepted within 0.5 s: {exc!r}")
        request = f"GET /teams HTTP/1.1\r\nHost: 127.0.0.1:{port_of(server.url)}\r\nX-API-Key: {CARDINAL_KEY}\r\n" \
                  "Connection: close\r\n\r\n".encode()
        for sock in sockets:
            sock.sendall(request)
        statuses = []
        for sock in sockets:
            sock.settimeout(2)
            try:
                statuses.append(sock.recv(12))
            except OSError as exc:
                statuses.append(repr(exc).encode())
        self.assertEqual(statuses, [b"HTTP/1.1 200"] * 60)


def stalled_post() -> tuple[bytes, float, list]:
    """Background: send a POST head announcing 100 bytes, then 9 of them, and stall; with read_timeout=0.3,
    return what came back before the server closed, how long that took, and the digests stored."""
    server = CardinalServer(CardinalAPI(token=CARDINAL_KEY), read_timeout=0.3).start()
    try:
        head = f"POST /digests HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: {CARDINAL_KEY}\r\n" \
               "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"team\": ".encode()
        start = time.monotonic()
        answer = raw_exchange(server.url, head, timeout=2)  # returns when the server closes the connection
        return answer, time.monotonic() - start, list(server.api.digests)
    finally:
        server.stop()


class ReadTimeout(unittest.TestCase):
    """Guards against a client that stalls mid-request holding a server thread for ever."""

    def test_a_post_that_stalls_after_its_head_gets_408_and_the_connection_is_closed(self):
        answer, _, digests = outcome("stall")
        status_line, _, rest = answer.partition(b"\r\n")
        self.assertTrue(status_line.startswith(b"HTTP/1.1 408"), answer[:80])
        self.assertIn(b"Content-Type: application/json", rest)
        self.assertIn("error", json.loads(rest.partition(b"\r\n\r\n")[2]))
        # the 408 came before raw_exchange's own 2 s: the 0.3 s read timeout, not the default 10 s
        self.assertEqual(digests, [])


class Stop(unittest.TestCase):
    """Guards against a stopped server that still serves the connections clients kept alive (with pooled
    connections, a call after stop() would reach a server its owner believes gone)."""

    def test_a_kept_alive_connection_gets_no_answer_after_stop(self):
        notes = []
        endpoint = MCPHttpServer(MCPServer(mcp_tools(notes))).start()
        self.addCleanup(endpoint.stop)
        connection = http.client.HTTPConnection("127.0.0.1", port_of(endpoint.url), timeout=2)
        self.addCleanup(connection.close)
        headers = {"Content-Type": "application/json", "Accept": "application/json", "Host": "localhost"}
        connection.request("POST", "/mcp", body=json.dumps(rpc("initialize", hello("2025-06-18"), 1)), headers=headers)
        response = connection.getresponse()
        sid = response.headers["Mcp-Session-Id"]
        response.read()
        endpoint.stop()
        call = rpc("tools/call", {"name": "note", "arguments": {"text": "after stop"}}, 2)
        with self.assertRaises((OSError, http.client.HTTPException)):
            connection.request("POST", "/mcp", body=json.dumps(call), headers=headers | {"Mcp-Session-Id": sid})
            connection.getresponse().read()
        self.assertEqual(notes, [])


class QuietOnHangUps(unittest.TestCase):
    """Guards against a server that prints a traceback each time a client resets its connection (a kept-alive
    client closing, a load test ending): noise in the demos, the tests and a served terminal."""

    def test_a_client_that_resets_mid_request_prints_nothing(self):
        import contextlib
        import struct
        for name in BACKGROUND:  # sys.stderr is swapped below: no scenario of this file may run meanwhile
            with contextlib.suppress(Exception):
                outcome(name)
        server = CardinalServer(CardinalAPI(token="k")).start()
        self.addCleanup(server.stop)
        errors = io.StringIO()
        with contextlib.redirect_stderr(errors):
            for _ in range(3):
                sock = socket.create_connection(("127.0.0.1", port_of(server.url)), timeout=2)
                sock.sendall(b"GET /people HTTP/1.1\r\nHo")  # then hang up with a reset, mid-request
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                sock.close()
            time.sleep(0.1)  # the handler threads meet the reset
            status, _, _ = exchange(server.url, "GET", "/teams", headers={"X-API-Key": "k"})
        self.assertEqual(status, 200)  # still serving
        self.assertEqual(errors.getvalue(), "")


class HostHeader(unittest.TestCase):
    """Guards against DNS rebinding: a page whose name resolves to 127.0.0.1 reaching the loopback servers."""

    def test_a_foreign_host_gets_421_from_both_servers_and_loopback_names_are_served(self):
        cardinal = CardinalServer(CardinalAPI(token=CARDINAL_KEY)).start()
        self.addCleanup(cardinal.stop)
        mcp = mcp_endpoint(self)
        for name, server in (("Cardinal", cardinal), ("MCP", mcp)):
            port = port_of(server.url)
            cases = [("evil.example", 421), (f"evil.example:{port}", 421), (f"127.0.0.1:{port + 1}", 421),
                     (f"localhost:{port}", 200), (f"127.0.0.1:{port}", 200), ("localhost", 200)]
            for host, expected in cases:
                with self.subTest(server=name, host=host):
                    if name == "Cardinal":
                        status, headers, body = exchange(server.url, "GET", "/teams",
                                                         headers={"Host": host, "X-API-Key": CARDINAL_KEY})
                    else:
                        status, headers, body = post_json(server.url, rpc("initialize", hello()), {"Host": host})
                    self.assertEqual(status, expected, body[:200])
                    self.assertTrue(isinstance(json.loads(body), (dict, list)))  # a refusal is JSON too


def send_and_read_all(port: int, data: bytes) -> bytes:
    """Write bytes on one connection, say we are done writing, and read until the server closes (or resets) it."""
    with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)  # no more requests come: a server that keeps reading meets the end at once
        chunks = []
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except ConnectionResetError:  # closed with our unread bytes in its buffer: what came before is all there
            pass
    return b"".join(chunks)


class RefusalsBeforeTheBody(unittest.TestCase):
    """Guards against request smuggling past the Host check: a refusal given before the body is read must end the
    connection, or the body (a whole request, with our Host) is parsed as the next request and answered."""

    def test_every_refusal_by_the_head_closes_the_connection_so_a_request_in_the_body_is_never_served(self):
        endpoint = mcp_endpoint(self, MCPServer(mcp_tools(), max_message_bytes=2000))
        port = port_of(endpoint.url)
        payload = json.dumps(rpc("initialize", hello(), 1)).encode()
        inner = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                 f"Accept: application/json, text/event-stream\r\nContent-Length: {len(payload)}\r\n\r\n").encode() + payload
        ours, n = f"Host: 127.0.0.1:{port}", len(inner)
        cases = [  # (what is refused, the head of the request whose body is `inner`, the status: RFC 9110, 9112)
            ("a foreign Host", f"POST /mcp HTTP/1.1\r\nHost: evil.example.com\r\nContent-Length: {n}", 421),
            ("a foreign Host on a GET", f"GET /mcp HTTP/1.1\r\nHost: evil.example.com\r\nContent-Length: {n}", 421),
            ("another path", f"POST /other HTTP/1.1\r\n{ours}\r\nContent-Length: {n}", 404),
            ("a Content-Length that is no number", f"POST /mcp HTTP/1.1\r\n{ours}\r\nContent-Length: {n}x", 400),
            ("a chunked body", f"POST /mcp HTTP/1.1\r\n{ours}\r\nTransfer-Encoding: chunked", 411),
            ("a POST without Content-Length", f"POST /mcp HTTP/1.1\r\n{ours}", 411),
            ("a body over the limit", f"POST /mcp HTTP/1.1\r\n{ours}\r\nContent-Length: 2001", 413),
            ("more than 100 header lines (http.server's own refusal)",
             f"POST /mcp HTTP/1.1\r\n{ours}\r\nContent-Length: {n}" + "\r\nX-Pad: 1" * 100, 431),
        ]
        for what, head, status in cases:
            with self.subTest(what):
                answer = send_and_read_all(port, head.encode() + b"\r\n\r\n" + inner)
                self.assertEqual(answer.count(b"HTTP/1.1 "), 1, answer[:600])  # one answer: the refusal
                self.assertTrue(answer.startswith(b"HTTP/1.1 %d " % status), answer[:80])
                self.assertIn(b"Connection: close", answer)
                self.assertNotIn(b"Mcp-Session-Id", answer)
                self.assertEqual(endpoint.sessions, {})


# ---------------------------------------------------------------------------------------------
# --- 4. MCP: per-session workers, session expiry and cap, challenges, one message limit, fields ---
# ---------------------------------------------------------------------------------------------

class SessionWorkers(unittest.TestCase):
    """Guards against one client's hung calls starving every other session, and against a timed-out call
    that never ran being reported as one that may still complete."""

    def test_a_full_session_says_its_queued_call_did_not_start_while_another_session_is_served(self):
        gate, entered = threading.Event(), threading.Semaphore(0)

        def block() -> str:
            """Wait for the gate."""
            entered.release()
            gate.wait(5)
            return "done"
        registry = ToolRegistry([tool_from_function(block, read_only=True), tool_from_function(add, read_only=True)])
        server = MCPServer(registry, tool_timeout=0.15, session_workers=2)
        self.addCleanup(server.close)
        self.addCleanup(gate.set)  # runs first: the blocked calls end
        a, b = ready(server), ready(server)
        with ThreadPoolExecutor(3) as pool:
            started = [pool.submit(a.handle, rpc("tools/call", {"name": "block", "arguments": {}}, n)) for n in (1, 2)]
            for _ in range(2):
                self.assertTrue(entered.acquire(timeout=1), "the two calls did not start")
            queued = pool.submit(a.handle, rpc("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}, 3))
            other = b.handle(rpc("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}, 4))
            replies = [f.result(timeout=3) for f in started + [queued]]
            gate.set()
        self.assertEqual(other["result"], {"content": [{"type": "text", "text": "5"}], "isError": False})
        # session A's two calls hold their workers until the gate opens, after B's reply: B was served by its own
        queued_reply = replies[2]["result"]
        self.assertTrue(queued_reply["isError"])
        for fragment in ("did not start", "did not run", "safe"):
            self.assertIn(fragment, text_of(queued_reply))
        for reply in replies[:2]:
            self.assertTrue(reply["result"]["isError"])
            self.assertIn("may still complete", text_of(reply["result"]))
            self.assertNotIn("did not run", text_of(reply["result"]))


class UnansweredRequests(unittest.TestCase):
    """Guards against a request to the client that is never answered (an elicitation, a sampling request) holding
    a worker for ask()'s 60 s while the call's deadline is 10 s: twelve such calls took 35 more threads."""

    def test_an_elicitation_never_answered_ends_at_the_call_deadline_and_frees_the_worker(self):
        released, refusals, asked = threading.Event(), [], threading.Event()
        schema = {"type": "object", "properties": {"name": {"type": "string"}}}

        def ask_name() -> str:
            """Ask the user for a name (and, if that fails, once more)."""
            try:
                for _ in range(2):
                    try:
                        return interfaces.mcp_call().elicit("Your name?", schema)["action"]
                    except interfaces.MCPRefused as exc:
                        refusals.append(str(exc))
                return "no answer"
            finally:
                released.set()

        class Deadlines(interfaces.Deadlines):  # the test says when the deadline comes: no wall-clock wait
            def __init__(self):
                super().__init__()
                self.due = []

            def at(self, when, callback):
                self.due.append([when, 0, callback])
                return self.due[-1]
        deadlines = Deadlines()
        server = MCPServer(ToolRegistry([tool_from_function(ask_name, read_only=True)]), tool_timeout=10,
                           deadlines=deadlines)
        self.addCleanup(server.close)
        session, sent = server.session(), []
        session.sink = lambda message, related: sent.append(message) or asked.set() or True  # the client never answers
        client = {"name": "silent", "version": "0"}
        self.assertIn("result", session.handle(rpc("initialize", {"protocolVersion": "2025-06-18", "clientInfo": client,
                                                                  "capabilities": {"elicitation": {}}}, 0)))
        replies = []
        calling = threading.Thread(target=lambda: replies.append(session.handle(
            rpc("tools/call", {"name": "ask_name", "arguments": {}}, 1))))
        calling.start()
        self.assertTrue(asked.wait(5), "the tool never asked")
        (entry,) = deadlines.due
        entry[2]()  # the call's deadline passes now, while the tool waits for the client's answer
        calling.join(5)
        reply = replies[0]
        self.assertTrue(reply["result"]["isError"])
        self.assertIn("the client never answered its elicitation/create request", text_of(reply["result"]))
        self.assertTrue(released.wait(5), "the tool still waits for an answer: it holds its worker")
        self.assertEqual(len(refusals), 2)
        self.assertIn("never answered before the call's deadline", refusals[0])
        self.assertIn("not sent", refusals[1])  # the deadline has passed: a second question is refused at once
        self.assertEqual([m["method"] for m in sent if "id" in m], ["elicitation/create"])
        self.assertEqual(session.asked, {})
        deadline = time.monotonic() + 5  # the worker counts itself free just after the tool returns
        while session.running and time.monotonic() < deadline:
            time.sleep(0.005)
        self.assertEqual(session.running, 0)


def team_page(team: str) -> str:
    if team not in ("firmware", "design"):  # as Cardinal's pages: the template matches any team, the reader knows
        raise RPCError(-32602, f"Unknown team {team!r}")
    return f"# The {team} team"


class Subscriptions(unittest.TestCase):
    """Guards against resources/subscribe keeping what resources/read refuses, and without a cap: one session held
    40 subscriptions of 900 kB each."""

    def setUp(self):
        templates = [interfaces.ResourceTemplate("cardinal://teams/{team}", "team page", team_page),
                     interfaces.ResourceTemplate("test://notes/{n}", "note", lambda n: f"note {n}")]
        server = MCPServer(mcp_tools(), templates=templates)
        self.addCleanup(server.close)
        self.session = ready(server)

    def ask(self, method: str, uri: str) -> dict:
        return self.session.handle(rpc(method, {"uri": uri}, 7))

    def test_a_uri_resources_read_refuses_is_refused_with_the_same_error(self):
        limit = interfaces.MAX_URI_CHARS
        cases = [("a team the reader does not serve", "cardinal://teams/sales"),
                 ("a URI nothing serves", "test://nope"),
                 ("a URI one character over the limit", "test://notes/" + "x" * (limit - len("test://notes/") + 1))]
        for what, uri in cases:
            with self.subTest(what):
                refused = self.ask("resources/read", uri)
                self.assertEqual(refused["error"]["code"], -32602)
                self.assertEqual(self.ask("resources/subscribe", uri), refused)
        self.assertEqual(self.session.subscriptions, set())
        longest = "test://notes/" + "x" * (limit - len("test://notes/"))  # at the limit: served and kept
        self.assertIn("result", self.ask("resources/read", longest))
        self.assertEqual(self.ask("resources/subscribe", longest)["result"], {})
        self.assertEqual(self.session.subscriptions, {longest})

    def test_a_session_keeps_at_most_max_subscriptions(self):
        limit = interfaces.MAX_SUBSCRIPTIONS
        for n in range(limit):
            self.assertEqual(self.ask("resources/subscribe", f"test://notes/{n}")["result"], {})
        refused = self.ask("resources/subscribe", f"test://notes/{limit}")
        self.assertEqual(refused["error"]["code"], INVALID_REQUEST)
        self.assertIn("unsubscribe", refused["error"]["message"])
        self.assertEqual(self.ask("resources/subscribe", "test://notes/0")["result"], {})  # already kept: no new one
        self.assertEqual(self.ask("resources/unsubscribe", "test://notes/0")["result"], {})
        self.assertEqual(self.ask("resources/subscribe", f"test://notes/{limit}")["result"], {})  # room again
        self.assertEqual(len(self.session.subscriptions), limit)


class HttpSessions(unittest.TestCase):
    """Guards against sessions kept for ever (idle ones never expire) and without a cap."""

    def test_an_idle_session_expires_with_404_and_the_client_starts_a_new_one(self):
        endpoint = mcp_endpoint(self, session_idle=0.1)
        client = MCPClient(StreamableHTTP(endpoint.url, timeout=2))
        self.addCleanup(client.close)
        client.initialize()
        old = client.transport.session_id
        time.sleep(0.15)
        status, _, _ = post_json(endpoint.url, rpc("ping", None, 9), {"Mcp-Session-Id": old,
                                                                       "MCP-Protocol-Version": "2025-11-25"})
        self.assertEqual(status, 404)
        self.assertEqual(text_of(client.call_tool("add", {"a": 20, "b": 22})), "42")
        self.assertNotIn(client.transport.session_id, (None, old))

    def test_past_max_sessions_initialize_gets_503_with_retry_after_until_one_is_deleted(self):
        endpoint = mcp_endpoint(self, max_sessions=2)
        sessions = []
        for n in (1, 2):
            status, headers, body = post_json(endpoint.url, rpc("initialize", hello(), n))
            self.assertEqual(status, 200, body)
            sessions.append(headers["Mcp-Session-Id"])
        status, headers, body = post_json(endpoint.url, rpc("initialize", hello(), 3))
        self.assertEqual(status, 503, body)
        self.assertRegex(headers.get("Retry-After", ""), r"^[0-9]+$")
        self.assertNotIn("Mcp-Session-Id", headers)
        status, _, _ = exchange(endpoint.url, "DELETE", headers={"Mcp-Session-Id": sessions[0]})
        self.assertEqual(status, 200)
        status, headers, body = post_json(endpoint.url, rpc("initialize", hello(), 4))
        self.assertEqual(status, 200, body)
        self.assertTrue(headers.get("Mcp-Session-Id"))


def open_session(endpoint: MCPHttpServer, version: str = "2025-11-25", capabilities: dict | None = None) -> str:
    """Run the handshake over HTTP; return the session id."""
    status, headers, body = post_json(endpoint.url, rpc("initialize", hello(version) | {
        "capabilities": capabilities or {}}, 1))
    assert status == 200, body
    sid = headers["Mcp-Session-Id"]
    post_json(endpoint.url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, {"Mcp-Session-Id": sid})
    return sid


def read_until(sock: socket.socket, marker: bytes, data: bytes = b"") -> bytes:
    """Read from a raw socket until `marker` has come (or the server closed)."""
    while marker not in data and (chunk := sock.recv(65536)):
        data += chunk
    return data


def raw_request(test: unittest.TestCase, port: int, head: str, body: bytes = b"") -> tuple[int, socket.socket, bytes]:
    """Send one request on a raw socket (closed at cleanup); return its status, the socket, and its head as read."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=2)
    test.addCleanup(sock.close)
    sock.sendall(f"{head}\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode() + body)
    data = read_until(sock, b"\r\n\r\n")
    return int(data.split(b" ", 2)[1]), sock, data


def sse_get(test: unittest.TestCase, endpoint: MCPHttpServer, sid: str, last_event_id: str = "") -> tuple:
    """GET the session's event stream on a raw socket: (status, socket, what was read)."""
    resume = f"\r\nLast-Event-ID: {last_event_id}" if last_event_id else ""
    return raw_request(test, port_of(endpoint.url), f"GET /mcp HTTP/1.1\r\nAccept: text/event-stream\r\n"
                                                    f"Mcp-Session-Id: {sid}{resume}")


def streams_of(endpoint: MCPHttpServer, sid: str) -> list:
    with endpoint.lock:
        return [s for s in endpoint.streams.values() if s.session_id == sid]


def chatty() -> str:
    """Log a line, then answer."""
    interfaces.mcp_call().log("info", "working")
    return "done"


class EventStreams(unittest.TestCase):
    """Guards against event streams without bounds: resuming the open GET stream again and again opened a writer
    each time (20 of 20, a thread each); nothing capped a session's or the server's streams; a stream whose
    client hung up stayed until the session ended (30 of 30 kept)."""

    SAMPLING = {"sampling": {}}  # a client that declared sampling: its calls may talk, so they are streamed

    def test_a_get_resuming_the_open_get_stream_gets_409_and_opens_no_second_writer(self):
        endpoint = mcp_endpoint(self)
        sid = open_session(endpoint)
        status, sock, data = sse_get(self, endpoint, sid)
        self.assertEqual(status, 200)
        priming = re.search(rb"id: (\S+)\n", read_until(sock, b"\n\n", data)).group(1).decode()
        for attempt in range(3):
            with self.subTest(attempt=attempt):
                status, _, data = sse_get(self, endpoint, sid, last_event_id=priming)
                self.assertEqual(status, 409, data)
        self.assertEqual(len(streams_of(endpoint, sid)), 1)

    def test_past_the_caps_a_get_gets_409_or_503_and_a_call_is_answered_whole(self):
        endpoint = mcp_endpoint(self, MCPServer(ToolRegistry([tool_from_function(chatty, read_only=True)])),
                                max_session_streams=1, max_streams=2)
        a, b, c = (open_session(endpoint, capabilities=self.SAMPLING) for _ in range(3))
        self.assertEqual(sse_get(self, endpoint, a)[0], 200)  # a's one stream
        status, headers, body = post_json(endpoint.url, rpc("tools/call", {"name": "chatty", "arguments": {}}, 2),
                                          {"Mcp-Session-Id": a})
        self.assertEqual(status, 200)
        self.assertIsNone(headers.get("Transfer-Encoding"))  # no stream opened: the log line and the result, whole
        self.assertEqual(headers.get("Content-Length"), str(len(body)))
        self.assertLess(body.index(b'"working"'), body.index(b'"done"'))
        self.assertEqual(sse_get(self, endpoint, b)[0], 200)  # the server's second stream, its last
        status, _, data = sse_get(self, endpoint, c)
        self.assertEqual(status, 503, data)
        self.assertRegex(data.decode(), r"\r\nRetry-After: [0-9]+\r\n")

    def test_a_call_stream_whose_client_hung_up_is_forgotten_at_its_next_write(self):
        gate = threading.Event()

        def hold() -> str:
            """Log a line, then wait for the test."""
            interfaces.mcp_call().log("info", "started")
            gate.wait(5)
            return "done"
        endpoint = mcp_endpoint(self, MCPServer(ToolRegistry([tool_from_function(hold, read_only=True)])))
        self.addCleanup(gate.set)  # runs before the server stops: the call ends
        sid = open_session(endpoint, capabilities=self.SAMPLING)
        body = json.dumps(rpc("tools/call", {"name": "hold", "arguments": {}}, 2)).encode()
        status, sock, data = raw_request(self, port_of(endpoint.url), (
            f"POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            f"Mcp-Session-Id: {sid}\r\nContent-Length: {len(body)}"), body)
        self.assertEqual(status, 200)
        read_until(sock, b'"started"', data)
        sock.close()  # the client hangs up while the call runs
        session, note = endpoint.sessions[sid], {"level": "info", "data": "still working"}
        deadline = time.monotonic() + 5
        while streams_of(endpoint, sid) and time.monotonic() < deadline:
            session.notify("notifications/message", note, related=2)  # a write on the call's stream, which fails
            time.sleep(0.01)
        self.assertEqual(streams_of(endpoint, sid), [])
        session.notify("notifications/message", note, related=2)
        self.assertIn(note, [m.get("params") for m in session.outbox])  # kept for the next reply, not lost

    def test_a_quiet_get_stream_whose_client_hung_up_is_forgotten_without_any_write(self):
        endpoint = mcp_endpoint(self, stream_check=0.02)
        sid = open_session(endpoint, version="2025-06-18")  # no priming event: nothing is ever written on it
        status, sock, _ = sse_get(self, endpoint, sid)
        self.assertEqual(status, 200)
        sock.close()
        deadline = time.monotonic() + 5
        while streams_of(endpoint, sid) and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertEqual(streams_of(endpoint, sid), [])
        self.assertNotIn(sid, endpoint.get_streams)
        self.assertEqual(sse_get(self, endpoint, sid)[0], 200)  # the session may open its GET stream again


class Challenges(unittest.TestCase):
    """Guards against refusals a host cannot act on: a 401 without its scheme, a refused token not said to be
    invalid, a missing scope answered 200 in band instead of 403 insufficient_scope."""

    TOKENS = {"reader": {"tools:read"}, "writer": {"tools:read", "tools:write"}}

    def setUp(self):
        self.notes = []
        self.endpoint = mcp_endpoint(self, MCPServer(mcp_tools(self.notes), tokens=self.TOKENS))

    def test_a_401_names_the_bearer_scheme_and_a_refused_token_is_invalid_token(self):
        cases = [(None, False), ("Bearer wrong", True), ("Bearer ", False), ("Basic cmVhZGVyOng=", False)]
        for authorization, sent in cases:
            with self.subTest(authorization=authorization):
                status, headers, _ = post_json(self.endpoint.url, rpc("initialize", hello()),
                                               {"Authorization": authorization} if authorization else {})
                challenge = headers.get("WWW-Authenticate", "")
                self.assertEqual(status, 401)
                self.assertTrue(challenge.startswith('Bearer realm="mcp"'), challenge)
                if sent:
                    self.assertIn('error="invalid_token"', challenge)
                else:  # RFC 6750 3.1: no error code when the request carried no bearer token
                    self.assertNotIn("error=", challenge)

    def test_an_out_of_scope_call_is_403_insufficient_scope_and_the_session_goes_on(self):
        auth = {"Authorization": "Bearer reader"}
        status, headers, _ = post_json(self.endpoint.url, rpc("initialize", hello(), 1), auth)
        self.assertEqual(status, 200)
        session = auth | {"Mcp-Session-Id": headers["Mcp-Session-Id"], "MCP-Protocol-Version": "2025-06-18"}
        status, headers, body = post_json(self.endpoint.url, rpc("tools/call", {"name": "note", "arguments":
                                                                                {"text": "hi"}}, 5), session)
        self.assertEqual(status, 403)
        challenge = headers.get("WWW-Authenticate", "")
        self.assertIn('error="insufficient_scope"', challenge)
        self.assertIn('scope="tools:write"', challenge)
        reply = json.loads(body)
        self.assertEqual((reply["id"], reply["error"]["code"]), (5, FORBIDDEN))
        client = MCPClient(StreamableHTTP(self.endpoint.url, "reader", timeout=2))
        self.addCleanup(client.close)
        client.initialize()
        with self.assertRaises(RPCError) as caught:
            client.call_tool("note", {"text": "hi"})
        self.assertEqual(caught.exception.code, FORBIDDEN)
        self.assertEqual(text_of(client.call_tool("add", {"a": 1, "b": 2})), "3")  # the session still works
        self.assertEqual(self.notes, [])


N = 2000  # the message limit these tests set


def ping_of_size(size: int, message_id, id_last: bool = False) -> bytes:
    """A ping padded to exactly `size` bytes, its id first (as the Python SDK writes it) or last (TypeScript's)."""
    if id_last:  # a nested "id" in params comes first: it is not the message's id
        template = '{"jsonrpc": "2.0", "method": "ping", "params": {"id": 99, "pad": "%s"}, "id": %s}'
        text = template % ("", json.dumps(message_id))
        return (template % ("x" * (size - len(text)), json.dumps(message_id))).encode()
    template = '{"jsonrpc": "2.0", "id": %s, "method": "ping", "params": {"pad": "%s"}}'
    text = template % (json.dumps(message_id), "")
    return (template % (json.dumps(message_id), "x" * (size - len(text)))).encode()


def initialize_of_size(size: int) -> bytes:
    """An initialize request padded to exactly `size` bytes (in the client's name)."""
    template = '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", ' \
               '"capabilities": {}, "clientInfo": {"name": "%s", "version": "0"}}}'
    return (template % ("x" * (size - len(template % "")))).encode()


class MessageLimit(unittest.TestCase):
    """Guards against a limit that is off by one, differs between stdio and HTTP, or loses the id of the
    message it refuses (the client then waits for an answer that never comes)."""

    def test_over_stdio_n_bytes_are_answered_and_n_plus_one_get_32600_with_their_id(self):
        lines = [(ping_of_size(N, 1), b"\n"), (ping_of_size(N, 2), b"\r\n"), (ping_of_size(N + 1, 3), b"\n"),
                 (ping_of_size(N + 1, "four", id_last=True), b"\n"), (ping_of_size(N + 1, 5), b"\r\n"),
                 (ping_of_size(N, 6, id_last=True), b"\n")]
        for line, _ in lines:
            self.assertIn(len(line), (N, N + 1))
        out = io.BytesIO()
        serve_stdio(MCPServer(mcp_tools(), max_message_bytes=N), io.BytesIO(b"".join(m + end for m, end in lines)), out)
        replies = [json.loads(line) for line in out.getvalue().splitlines()]
        self.assertEqual([r.get("id") for r in replies], [1, 2, 3, "four", 5, 6])
        for reply, (line, _) in zip(replies, lines):
            with self.subTest(id=reply.get("id"), size=len(line)):
                if len(line) == N:
                    self.assertEqual(reply, {"jsonrpc": "2.0", "id": reply["id"], "result": {}})
                else:
                    self.assertEqual(reply["error"]["code"], INVALID_REQUEST)
                    self.assertIn(f"{N:,}", reply["error"]["message"])

    def test_the_size_said_for_an_oversized_line_leaves_out_its_line_break(self):
        for size in (N + 1, N + 2, N + 1000):  # at N + 1 the CR of a CRLF is the last byte of the first read
            for end in (b"\n", b"\r\n"):
                with self.subTest(size=size, end=end):
                    out = io.BytesIO()
                    serve_stdio(MCPServer(mcp_tools(), max_message_bytes=N), io.BytesIO(ping_of_size(size, 7) + end), out)
                    reply = json.loads(out.getvalue())
                    self.assertEqual(reply["id"], 7)
                    self.assertIn(f"the message has {size:,} bytes; at most {N:,}", reply["error"]["message"])

    def test_over_http_n_bytes_are_answered_and_n_plus_one_get_413(self):
        endpoint = mcp_endpoint(self, MCPServer(mcp_tools(), max_message_bytes=N))
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        for size, expected in ((N, 200), (N + 1, 413)):
            with self.subTest(size=size):
                body = initialize_of_size(size)
                self.assertEqual(len(body), size)
                status, answer, data = exchange(endpoint.url, "POST", body=body, headers=headers)
                self.assertEqual(status, expected, data[:200])
                if expected == 200:
                    self.assertEqual(json.loads(data)["result"]["protocolVersion"], "2025-06-18")
                    self.assertTrue(answer.get("Mcp-Session-Id"))


class FieldsPerRevision(unittest.TestCase):
    """Guards against sending a client fields its revision does not define (a strict 2024-11-05 client may
    refuse a tools/list with title or outputSchema, or a result with structuredContent)."""

    def test_tools_list_and_results_carry_only_the_fields_of_the_negotiated_revision(self):
        output = {"type": "object", "properties": {"count": {"type": "integer"}, "total": {"type": "integer"}},
                  "required": ["count", "total"]}
        measure = Tool("measure", "Count and sum two numbers.",
                       {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                        "required": ["a", "b"], "additionalProperties": False},
                       lambda a, b: {"count": 2, "total": a + b}, read_only=True, output_schema=output)
        server = MCPServer(ToolRegistry([measure]), tool_timeout=None)
        base_fields = {"name", "description", "inputSchema"}
        cases = [("2024-11-05", base_fields, False), ("2025-03-26", base_fields | {"annotations"}, False),
                 ("2025-06-18", base_fields | {"annotations", "title", "outputSchema"}, True),
                 ("2025-11-25", base_fields | {"annotations", "title", "outputSchema"}, True)]
        for version, fields, structured in cases:
            with self.subTest(version=version):
                session = ready(server, version)
                entry, = session.handle(rpc("tools/list", {}, 1))["result"]["tools"]
                self.assertEqual(set(entry), fields)
                result = session.handle(rpc("tools/call", {"name": "measure", "arguments": {"a": 2, "b": 3}}, 2))["result"]
                self.assertFalse(result["isError"])
                self.assertEqual(json.loads(text_of(result)), {"count": 2, "total": 5})
                if structured:
                    self.assertEqual(result["structuredContent"], {"count": 2, "total": 5})
                    self.assertEqual(entry["outputSchema"], output)
                else:
                    self.assertNotIn("structuredContent", result)


# ---------------------------------------------------------------------------------------------
# --- 5. The host side: the GET stream, a foreign server's annotations ---
# ---------------------------------------------------------------------------------------------

LIST_CHANGED = b'data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n'


def stream_server(chunked: bool = True):
    """A foreign MCP server that, like the official SDKs', sends list_changed only on its GET event stream:
    chunked (as uvicorn streams it), or delimited by closing the connection (plain HTTP/1.1 framing too)."""
    def answer(request: dict, handler):
        if request["method"] == "GET":
            if "text/event-stream" not in request["headers"].get("accept", ""):
                return 406, {}, b""
            handler.close_connection = True
            handler.send_response(200)
            handler.send_header("Content-Type", "text/event-stream")
            handler.send_header("Cache-Control", "no-cache")
            if chunked:
                handler.send_header("Transfer-Encoding", "chunked")
            handler.end_headers()
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(LIST_CHANGED), LIST_CHANGED) if chunked else LIST_CHANGED)
            handler.server.release.wait(5)  # the stream stays open until the test ends it
            if chunked:
                handler.wfile.write(b"0\r\n\r\n")  # the end of a chunked stream
            return None
        if request["method"] == "DELETE":
            return 200, {}, b""
        message = json.loads(request["body"])
        if "id" not in message or "method" not in message:
            return 202, {}, b""  # a notification or a response
        results = {"initialize": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {"listChanged": True}},
                                  "serverInfo": {"name": "foreign", "version": "1"}},
                   "ping": {}, "tools/list": {"tools": []}}
        extra = {"Mcp-Session-Id": "foreign-session-1"} if message["method"] == "initialize" else {}
        return as_json(200, {"jsonrpc": "2.0", "id": message["id"], "result": results[message["method"]]}, **extra)
    return answer


def wait_for_list_changed(client: MCPClient, seconds: float = 1.0) -> bool:
    deadline = time.monotonic() + seconds
    while not client.list_changed() and time.monotonic() < deadline:
        time.sleep(0.02)
    return client.list_changed()


def wait_for_stream_readers_to_end(seconds: float = 1.0) -> None:
    """Wait (bounded) until no GET-stream reader thread of StreamableHTTP is alive."""
    deadline = time.monotonic() + seconds
    while any(t.name == "mcp-get-stream" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.01)


class ScriptedTransport:
    """A foreign server in process: answers initialize and a tools/list of the given entries."""

    def __init__(self, entries: list[dict]):
        self.entries = entries

    def exchange(self, text: str) -> list[str]:
        message = json.loads(text)
        if "id" not in message or "method" not in message:
            return []
        result = ({"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "foreign", "version": "1"}}
                  if message["method"] == "initialize" else {"tools": self.entries})
        return [json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})]

    def close(self) -> None:
        pass


class HostSide(unittest.TestCase):
    """Guards against a host that misses notifications sent on the GET stream, and one that takes a foreign
    tool without a clear readOnlyHint true as free of side effects."""

    def test_a_notification_sent_only_on_the_get_stream_reaches_the_client(self):
        foreign = backend(self, stream_server(chunked=True))
        client = MCPClient(StreamableHTTP(foreign.url + "/mcp", timeout=2))
        self.addCleanup(client.close)
        client.initialize()
        self.assertEqual(client.request("tools/list"), {"tools": []})
        self.assertTrue(wait_for_list_changed(client))
        self.assertIn("GET", [r["method"] for r in foreign.requests])
        foreign.release.set()  # the server ends its stream first: a client closing it races its reader thread
        wait_for_stream_readers_to_end()
        with self.subTest("the lab's own server, its GET stream quiet: nothing announced"):
            endpoint = mcp_endpoint(self)
            plain = MCPClient(StreamableHTTP(endpoint.url, timeout=2))
            self.addCleanup(plain.close)
            self.assertEqual(plain.initialize()["protocolVersion"], "2025-11-25")
            self.assertEqual(text_of(plain.call_tool("add", {"a": 1, "b": 1})), "2")
            self.assertFalse(plain.list_changed())

    def test_closing_the_client_while_its_get_stream_is_open_raises_nothing_in_any_thread(self):
        errors = []
        previous = threading.excepthook
        threading.excepthook = lambda args: errors.append(f"{args.thread.name}: {args.exc_type.__name__}")
        self.addCleanup(setattr, threading, "excepthook", previous)
        for chunked in (True, False):
            foreign = backend(self, stream_server(chunked=chunked))
            for _ in range(5):  # the race was lost about 10 times in 12: five tries each way show it
                client = MCPClient(StreamableHTTP(foreign.url + "/mcp", timeout=2))
                client.initialize()
                self.assertTrue(wait_for_list_changed(client))
                client.close()  # the stream still open: the reader thread must end quietly
            wait_for_stream_readers_to_end()
            foreign.release.set()
        self.assertEqual(errors, [])
        self.assertFalse(any(t.name == "mcp-get-stream" for t in threading.enumerate()))

    def test_a_get_stream_delimited_by_closing_the_connection_is_read_too(self):
        # http.client hands a response without Content-Length or chunking to the response object and sets
        # connection.sock to None, so listen() raised AttributeError and initialize() failed
        foreign = backend(self, stream_server(chunked=False))
        client = MCPClient(StreamableHTTP(foreign.url + "/mcp", timeout=2))
        self.addCleanup(client.close)
        client.initialize()
        self.assertTrue(wait_for_list_changed(client))

    def test_a_foreign_tool_without_read_only_hint_true_is_taken_to_have_side_effects(self):
        cases = [("no annotations", None, False), ("no readOnlyHint", {"title": "Wipe"}, False),
                 ("annotations a string", "readOnlyHint", False), ("annotations a list", ["readOnlyHint"], False),
                 ("annotations null", "null", False), ("readOnlyHint the string true", {"readOnlyHint": "true"}, False),
                 ("readOnlyHint 1", {"readOnlyHint": 1}, False), ("readOnlyHint false", {"readOnlyHint": False}, False),
                 ("readOnlyHint true", {"readOnlyHint": True}, True)]
        for what, annotations, read_only in cases:
            with self.subTest(what):
                entry = {"name": "wipe", "description": "Wipe the disk.", "inputSchema": {"type": "object"}}
                if annotations == "null":
                    entry["annotations"] = None
                elif annotations is not None:
                    entry["annotations"] = annotations
                client = MCPClient(ScriptedTransport([entry]))
                client.initialize()
                client.list_tools()
                self.assertIs(client.registry().get("wipe").read_only, read_only)


# ---------------------------------------------------------------------------------------------
# --- 6. serve --http: no published or equal tokens without --demo ---
# ---------------------------------------------------------------------------------------------

class HttpTokens(unittest.TestCase):
    """Guards against serving HTTP with the README's published tokens, or with one token for both roles."""

    def test_which_environments_are_refused(self):
        demo_agent, demo_admin = list(interfaces.DEMO_TOKENS)
        read, write = {"tools:read"}, {"tools:read", "tools:write"}
        cases = [  # (environment, demo, the tokens served or None for a refusal)
            ({}, False, None),
            ({"MCP_AGENT_TOKEN": "own-agent"}, False, None),
            ({"MCP_ADMIN_TOKEN": "own-admin"}, False, None),
            ({"MCP_AGENT_TOKEN": "", "MCP_ADMIN_TOKEN": "own-admin"}, False, None),
            ({"MCP_AGENT_TOKEN": demo_agent, "MCP_ADMIN_TOKEN": "own-admin"}, False, None),
            ({"MCP_AGENT_TOKEN": "own-agent", "MCP_ADMIN_TOKEN": demo_admin}, False, None),
            ({"MCP_AGENT_TOKEN": demo_agent, "MCP_ADMIN_TOKEN": demo_admin}, False, None),
            ({"MCP_AGENT_TOKEN": "same", "MCP_ADMIN_TOKEN": "same"}, False, None),
            ({"MCP_AGENT_TOKEN": "same", "MCP_ADMIN_TOKEN": "same"}, True, None),
            ({"MCP_AGENT_TOKEN": demo_admin}, True, None),  # filled in, the admin token would equal it
            ({"MCP_AGENT_TOKEN": "own-agent", "MCP_ADMIN_TOKEN": "own-admin"}, False,
             {"own-agent": read, "own-admin": write}),
            ({"MCP_AGENT_TOKEN": "own-agent", "MCP_ADMIN_TOKEN": "own-admin"}, True,
             {"own-agent": read, "own-admin": write}),
            ({}, True, {demo_agent: read, demo_admin: write}),
            ({"MCP_AGENT_TOKEN": "own-agent", "MCP_ADMIN_TOKEN": ""}, True, {"own-agent": read, demo_admin: write}),
        ]
        for environ, demo, expected in cases:
            with self.subTest(environ=environ, demo=demo):
                tokens, problem = interfaces.http_tokens(environ, demo)
                if expected is None:
                    self.assertEqual(tokens, {})
                    self.assertTrue(problem.strip())
                else:
                    self.assertEqual((tokens, problem), (expected, ""))

    def test_serve_http_without_tokens_exits_2_with_the_reason_and_starts_nothing(self):
        code, out, err, port = outcome("serve")
        self.assertIsNotNone(code, f"serve --http without tokens was still running after 5 s: {err[:200]!r}")
        self.assertEqual((code, out), (2, ""))
        self.assertIn("MCP_AGENT_TOKEN", err)
        with self.assertRaises(ConnectionRefusedError):  # no server started on the port asked for
            socket.create_connection(("127.0.0.1", port), timeout=1).close()


def serve_http_without_tokens() -> tuple[int | None, str, str, int]:
    """Background: run `interfaces.py serve --http --port P` in an environment without the tokens; return its
    exit code (None: still running after 5 s, then killed), stdout, stderr and P."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    process = subprocess.Popen([sys.executable, str(ROOT / "interfaces.py"), "serve", "--http", "--port", str(port)],
                               cwd=ROOT, env=MINIMAL_ENV, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        out, err = process.communicate(timeout=5)
        return process.returncode, out, err, port
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        return None, out, err, port


# ---------------------------------------------------------------------------------------------
# --- 7. The Cardinal REST API as a fuzzer reads it: every status documented, every refusal JSON ---
# ---------------------------------------------------------------------------------------------

def resolve(document: dict, node):
    """Follow local $refs until a node without one."""
    for _ in range(10):
        if not (isinstance(node, dict) and "$ref" in node):
            return node
        target = document
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        node = target
    raise AssertionError(f"a $ref chain longer than 10: {node}")


class CardinalAsAFuzzerReadsIt(unittest.TestCase):
    """Guards against a server answering statuses its document does not list (a schema fuzzer such as
    Schemathesis flags each), non-JSON refusals, and a document stricter or looser than the server."""

    def setUp(self):
        self.server = CardinalServer(CardinalAPI(token=CARDINAL_KEY)).start()
        self.addCleanup(self.server.stop)
        self.key = {"X-API-Key": CARDINAL_KEY}

    def test_the_document_lists_every_status_with_a_json_error_schema(self):
        document = interfaces.cardinal_openapi()
        everywhere = {"400", "401", "408", "413", "421", "503"}
        for path, item in document["paths"].items():
            for method, operation in item.items():
                with self.subTest(operation=f"{method.upper()} {path}"):
                    expected = everywhere | ({"411", "422"} if method == "post" else set())
                    self.assertLessEqual(expected, set(operation["responses"]))
                    for status in expected:
                        response = resolve(document, operation["responses"][status])
                        schema = resolve(document, response["content"]["application/json"]["schema"])
                        self.assertIn("error", schema["required"])
                        self.assertEqual(schema["properties"]["error"]["type"], "string")

    def test_methods_people_does_not_take_get_405_with_allow_and_json(self):
        for method in ("TRACE", "PUT", "DELETE", "OPTIONS", "PATCH"):
            with self.subTest(method=method):
                status, headers, body = exchange(self.server.url, method, "/people", headers=self.key)
                self.assertEqual(status, 405)
                self.assertEqual(headers.get("Allow"), "GET, HEAD")
                self.assertEqual(headers.get("Content-Type"), "application/json")
                self.assertIn("error", json.loads(body))

    def test_head_people_is_200_without_a_body(self):
        port = port_of(self.server.url)
        answer = raw_exchange(self.server.url, f"HEAD /people HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-API-Key: "
                                               f"{CARDINAL_KEY}\r\nConnection: close\r\n\r\n".encode())
        head, _, body = answer.partition(b"\r\n\r\n")
        self.assertTrue(head.startswith(b"HTTP/1.1 200"), head[:60])
        self.assertEqual(body, b"")

    def test_an_unknown_method_and_a_post_without_content_length_get_json_errors(self):
        port = port_of(self.server.url)
        cases = [  # (request, the status line's start): http.server alone would answer BREW with an HTML 501
            (f"BREW /people HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n", rb"HTTP/1\.1 [45][0-9][0-9] "),
            (f"POST /digests HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-API-Key: {CARDINAL_KEY}\r\n"
             'Content-Type: application/json\r\n\r\n{"team": "design"}', rb"HTTP/1\.1 411 ")]
        for request, status in cases:
            with self.subTest(request=request.split(" ")[0]):
                head, _, body = raw_exchange(self.server.url, request.encode()).partition(b"\r\n\r\n")
                self.assertRegex(head, status)
                self.assertIn(b"Content-Type: application/json", head)
                self.assertIn("error", json.loads(body))
        self.assertEqual(self.server.api.digests, [])

    def test_the_team_enum_is_kept_and_days_13_0_is_13(self):
        status, _, body = exchange(self.server.url, "GET", "/people?team=sales", headers=self.key)
        self.assertEqual(status, 400)
        self.assertIn("team", json.loads(body)["error"])
        status, _, body = exchange(self.server.url, "POST", "/digests", body=b'{"team": "design", "days": 13.0}',
                                   headers=self.key | {"Content-Type": "application/json"})
        self.assertEqual(status, 201, body)
        digest = json.loads(body)
        self.assertEqual(digest["days"], 13)
        self.assertIn("over 13 days", digest["text"])

    def test_an_unknown_query_parameter_is_ignored_as_the_document_says(self):
        status, _, body = exchange(self.server.url, "GET", "/people?department=x", headers=self.key)
        self.assertEqual((status, json.loads(body)), (200, interfaces.PEOPLE))
        description = interfaces.cardinal_openapi()["info"].get("description", "").lower()
        self.assertIn("query parameter", description)
        self.assertIn("ignored", description)


if __name__ == "__main__":
    unittest.main()
