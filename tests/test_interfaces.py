"""interfaces: the Cardinal API and its server, openapi_to_tools on two documents, the dialects, the demos.

Expected values are worked out by hand from the Cardinal data (interfaces.PEOPLE), from the two
OpenAPI documents (Cardinal's and a pet clinic's written below, as someone else would write one),
from the vendors' formats and the OpenAPI 3.0.3 specification; none is copied from a run.
Every server a test starts is stopped by that test (a with block or addCleanup); all on 127.0.0.1.
The bugs these tests found in interfaces.py (once marked expectedFailure) are fixed; the tests stay as regression tests.
"""
import copy
import http.client
import json
import re
import socket
import sys
import threading
import unittest
import unittest.mock
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # for exercise_tables, however the tests are started

import interfaces  # noqa: E402
import tool_core  # noqa: E402
from interfaces import (DIALECTS, MCP, Anthropic, CardinalAPI, CardinalServer, OpenAI, Qwen,  # noqa: E402
                        TextProtocol, call_tool_result, from_strict_arguments, match_results,
                        openapi_to_tools, round_trip, strict_schema)
from tool_core import ParseError, Tool, ToolCall, ToolRegistry, ToolResult, validate  # noqa: E402
from exercise_tables import ONE_OPERATION  # noqa: E402

TOKEN = "cardinal-KEY-5e1f0c9a77d2"  # distinctive, so a leak anywhere is found by a plain substring test
BEARER = "clinic-BEARER-93b0d4e6f1aa"
TEAM_ENUM = ["firmware", "platform", "design"]
ROUTES = ["GET /people", "GET /teams", "POST /digests"]


# --- helpers: a Cardinal server per test, raw HTTP, and a recording server for the second API ---

def cardinal(test: unittest.TestCase) -> CardinalServer:
    """Start a Cardinal server with the known TOKEN; the test stops it."""
    server = CardinalServer(CardinalAPI(token=TOKEN)).start()
    test.addCleanup(server.stop)
    return server


def raw_request(url: str, method: str, target: str, headers: dict | None = None, body: bytes | None = None):
    """Send one request with http.client and return (status, content type, parsed JSON)."""
    conn = http.client.HTTPConnection(urlsplit(url).hostname, urlsplit(url).port, timeout=2)
    try:
        conn.request(method, target, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type"), json.loads(response.read().decode("utf-8"))
    finally:
        conn.close()


def cardinal_tools(url: str, token: str = TOKEN, **kwargs) -> list[Tool]:
    return openapi_to_tools(interfaces.cardinal_openapi(), url, credentials={"ApiKeyAuth": token}, **kwargs)


def clinic_openapi(scheme: dict | None = None) -> dict:
    """A second API in OpenAPI 3.0.3, written as someone else would: an owner's pets and their visits."""
    return {
        "openapi": "3.0.3",
        "info": {"title": "Pet clinic", "version": "2.1.0"},
        "servers": [{"url": "https://clinic.example/api"}],
        "security": [{"clinicAuth": []}],
        "paths": {
            "/owners/{ownerId}/pets": {
                "parameters": [{"name": "ownerId", "in": "path", "required": True,
                                "description": "the owner's id", "schema": {"type": "string"}}],
                "get": {
                    "operationId": "listPets", "summary": "List an owner's pets.",
                    "parameters": [
                        {"name": "species", "in": "query", "schema": {"$ref": "#/components/schemas/Species"}},
                        {"name": "limit", "in": "query", "description": "at most this many",
                         "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                        {"name": "tag", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
                        {"name": "vaccinated", "in": "query", "schema": {"type": "boolean"}},
                        {"name": "X-Request-Id", "in": "header", "schema": {"type": "string"}}],
                    "responses": {"200": {"description": "The pets.", "content": {"application/json": {
                        "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}}}}}},
                "post": {
                    "operationId": "addPet", "summary": "Register a new pet for an owner.",
                    "description": "Creates a record.",
                    "requestBody": {"required": True, "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/NewPet"}}}},
                    "responses": {"201": {"description": "The pet registered.", "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/Pet"}}}}}}},
            "/visits/{visitId}": {
                "get": {  # no operationId: the tool is named after the method and the path
                    "summary": "Read one visit.",
                    "parameters": [{"name": "visitId", "in": "path", "required": True,
                                    "schema": {"type": "integer", "format": "int64"}}],
                    "responses": {"200": {"description": "The visit.", "content": {"application/json": {
                        "schema": {"type": "object"}}}}}}},
        },
        "components": {
            "schemas": {
                "Species": {"type": "string", "enum": ["cat", "dog", "rabbit"], "description": "the kind of animal"},
                "Microchip": {"type": "object", "required": ["code"], "additionalProperties": False, "properties": {
                    "code": {"type": "string", "pattern": "^[0-9]{15}$", "example": "981000000000001"},
                    "registered": {"type": "boolean", "default": False}}},
                "NewPet": {"type": "object", "required": ["name", "species"], "properties": {
                    "id": {"type": "integer", "readOnly": True},
                    "name": {"type": "string", "minLength": 1},
                    "species": {"$ref": "#/components/schemas/Species"},
                    "birthDate": {"type": "string", "format": "date", "nullable": True},
                    "weightKg": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
                    "microchip": {"$ref": "#/components/schemas/Microchip"}}},
                "Pet": {"allOf": [{"$ref": "#/components/schemas/NewPet"},
                                  {"type": "object", "properties": {"id": {"type": "integer"}}}]},
            },
            "securitySchemes": {"clinicAuth": scheme or {"type": "http", "scheme": "bearer"}},
        },
    }


# By hand from clinic_openapi: path parameters first, then the body's fields; $refs inlined; 3.0's
# nullable -> a type list; exclusiveMinimum: true -> exclusiveMinimum: 0; example and readOnly id dropped.
OWNER_ID = {"type": "string", "description": "the owner's id"}
SPECIES = {"type": "string", "enum": ["cat", "dog", "rabbit"], "description": "the kind of animal"}
LIST_PETS_SCHEMA = {
    "type": "object",
    "properties": {"ownerId": OWNER_ID, "species": SPECIES,
                   "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "at most this many"},
                   "tag": {"type": "array", "items": {"type": "string"}},
                   "vaccinated": {"type": "boolean"}, "X-Request-Id": {"type": "string"}},
    "required": ["ownerId"], "additionalProperties": False}
ADD_PET_SCHEMA = {
    "type": "object",
    "properties": {"ownerId": OWNER_ID, "name": {"type": "string", "minLength": 1}, "species": SPECIES,
                   "birthDate": {"type": ["string", "null"], "format": "date"},
                   "weightKg": {"type": "number", "exclusiveMinimum": 0},
                   "microchip": {"type": "object", "required": ["code"], "additionalProperties": False,
                                 "properties": {"code": {"type": "string", "pattern": "^[0-9]{15}$"},
                                                "registered": {"type": "boolean", "default": False}}}},
    "required": ["ownerId", "name", "species"], "additionalProperties": False}
VISIT_SCHEMA = {"type": "object", "properties": {"visitId": {"type": "integer", "format": "int64"}},
                "required": ["visitId"], "additionalProperties": False}


def clinic_routes(request: dict) -> tuple[int, str, bytes]:
    """The clinic's behaviour: the three routes of clinic_openapi, anything else a 404."""
    path, method = request["path"], request["method"]
    if method == "GET" and re.fullmatch(r"/owners/[^/]+/pets", path):
        return 200, "application/json", b'[{"id": 1, "name": "Tom", "species": "cat"}]'
    if method == "POST" and re.fullmatch(r"/owners/[^/]+/pets", path):
        return 201, "application/json", json.dumps({"id": 8} | json.loads(request["body"])).encode()
    if method == "GET" and re.fullmatch(r"/visits/[0-9]+", path):
        return 200, "application/json", json.dumps({"visitId": int(path.rsplit("/", 1)[1])}).encode()
    return 404, "application/json", b'{"error": "no route"}'


class RecordingServer:
    """Someone else's API on 127.0.0.1: records every request and answers with respond(request)."""

    def __init__(self, respond=clinic_routes):
        self.requests: list[dict] = []
        self.respond = respond
        self.release = threading.Event()  # set on stop: a handler told to stall returns at once
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _recording_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01},
                                        daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def stop(self) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=2)


def _recording_handler(server: RecordingServer):
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            url = urlsplit(self.path)
            request = {"method": self.command, "path": url.path, "raw_query": url.query,
                       "query": parse_qs(url.query, keep_blank_values=True),
                       "headers": {k.lower(): v for k, v in self.headers.items()},
                       "body": self.rfile.read(length) if length else b""}
            server.requests.append(request)
            status, kind, body = server.respond(request)
            try:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:  # the client gave up (the timeout test): nothing to answer
                pass

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

        def log_message(self, *args) -> None:
            pass

    return Handler


def recording(test: unittest.TestCase, respond=clinic_routes) -> RecordingServer:
    server = RecordingServer(respond)
    test.addCleanup(server.stop)
    return server


def clinic_registry(url: str, scheme: dict | None = None, secret: str = BEARER, **kwargs) -> ToolRegistry:
    return ToolRegistry(openapi_to_tools(clinic_openapi(scheme), url, credentials={"clinicAuth": secret}, **kwargs))


def visit_tool_name(registry: ToolRegistry) -> str:
    """Find the tool made from GET /visits/{visitId} (the one without an operationId) by its description."""
    return next(t.name for t in registry if t.description == "Read one visit.")


# ---------------------------------------------------------------------------------------------
# --- 1. The Cardinal REST API: handle() without HTTP ---
# ---------------------------------------------------------------------------------------------

FIRMWARE = [p for p in interfaces.PEOPLE if p["team"] == "firmware"]  # Ada Quist and Bo Lindqvist


class CardinalHandle(unittest.TestCase):
    def setUp(self):
        self.api = CardinalAPI(token=TOKEN)
        self.key = {"X-API-Key": TOKEN}

    def test_routes_with_the_key(self):
        # by hand from PEOPLE: 5 people, 2 in firmware, 2 in platform, 1 in design
        cases = [
            ("/people", 200, interfaces.PEOPLE),
            ("/people?team=firmware", 200, FIRMWARE),
            ("/people?team=design&limit=1", 200, [interfaces.PEOPLE[4]]),
            ("/people?limit=2", 200, interfaces.PEOPLE[:2]),
            ("/people?limit=50", 200, interfaces.PEOPLE),
            ("/people?limit=1", 200, interfaces.PEOPLE[:1]),
            ("/people?team=sales", 400, {"error": "team must be one of ['firmware', 'platform', 'design'], got 'sales'"}),
            ("/people?team=", 400, {"error": "team must be one of ['firmware', 'platform', 'design'], got ''"}),
            ("/people?department=firmware", 200, interfaces.PEOPLE),  # tolerant: unknown parameter ignored
            ("/people?team=firmware&team=platform", 200, interfaces.PEOPLE[2:4]),  # the last value counts
            ("/teams", 200, [{"name": "firmware", "description": "code that runs on the meters and relays", "size": 2},
                             {"name": "platform", "description": "servers, databases and the deploy pipeline",
                              "size": 2},
                             {"name": "design", "description": "the apps' screens and flows", "size": 1}]),
        ]
        for target, status, payload in cases:
            with self.subTest(target=target):
                self.assertEqual(self.api.handle("GET", target, self.key, b""), (status, payload))

    def test_limit_is_a_whole_number_from_1_to_50(self):
        for limit in ("0", "51", "-1", "2.0", "abc", "", "1e1", " 2"):
            with self.subTest(limit=limit):
                status, payload = self.api.handle("GET", f"/people?limit={limit}", self.key, b"")
                self.assertEqual(status, 400)
                self.assertIn("limit must be a whole number from 1 to 50", payload["error"])

    def test_unknown_route_is_404_listing_the_routes(self):
        for method, target in [("GET", "/nope"), ("DELETE", "/nope"), ("GET", "/people/P-101"), ("POST", "/")]:
            with self.subTest(method=method, target=target):
                status, payload = self.api.handle(method, target, {}, b"")
                self.assertEqual(status, 404)
                self.assertIn(f"{method} {urlsplit(target).path}", payload["error"])
                self.assertIn(", ".join(ROUTES), payload["error"])

    def test_a_method_the_path_does_not_take_is_405_naming_the_ones_it_does(self):
        # by hand from the routes: /people and /teams take GET (and HEAD), /digests POST, /openapi.json GET
        cases = [("DELETE", "/people", "GET, HEAD"), ("POST", "/people", "GET, HEAD"), ("PUT", "/teams", "GET, HEAD"),
                 ("GET", "/digests", "POST"), ("TRACE", "/digests", "POST"), ("POST", "/openapi.json", "GET, HEAD")]
        for method, target, allowed in cases:
            with self.subTest(method=method, target=target):
                status, payload = self.api.handle(method, target, {}, b"")
                self.assertEqual(status, 405)  # before the key: which methods a path takes is no secret
                self.assertIn(f"does not take {method}; it takes {allowed}", payload["error"])
        self.assertEqual(self.api.digests, [])

    def test_head_answers_as_get(self):
        self.assertEqual(self.api.handle("HEAD", "/people?team=firmware", self.key, b""), (200, FIRMWARE))

    def test_every_operation_needs_the_key(self):
        cases = [({}, False), ({"X-API-Key": ""}, False), ({"X-API-Key": "wrong"}, False),
                 ({"X-API-Key": TOKEN[:-1]}, False), ({"X-API-Key": TOKEN + "x"}, False),
                 ({"Authorization": f"Bearer {TOKEN}"}, False), ({"X-API-Key": TOKEN}, True)]
        operations = [("GET", "/people", b"", 200), ("GET", "/teams", b"", 200),
                      ("POST", "/digests", b'{"team": "design"}', 201)]
        for headers, accepted in cases:
            for method, target, body, success in operations:
                with self.subTest(headers=headers, target=target):
                    status, payload = self.api.handle(method, target, headers, body)
                    self.assertEqual(status, success if accepted else 401)
                    if not accepted:
                        self.assertIn("missing or wrong X-API-Key header", payload["error"])
                        self.assertNotIn(TOKEN, json.dumps(payload))
        self.assertEqual(len(self.api.digests), 1)  # only the request with the key wrote a digest

    def test_during_maintenance_operations_answer_503_after_the_key_check(self):
        self.api.unavailable = True
        cases = [("GET", "/people", self.key, 503), ("POST", "/digests", self.key, 503), ("GET", "/people", {}, 401),
                 ("GET", "/openapi.json", {}, 200), ("GET", "/nope", self.key, 404)]
        for method, target, headers, status in cases:
            with self.subTest(method=method, target=target, headers=headers):
                body = b'{"team": "design"}' if method == "POST" else b""
                self.assertEqual(self.api.handle(method, target, headers, body)[0], status)
        self.assertEqual(self.api.digests, [])

    def test_the_openapi_document_needs_no_key(self):
        self.assertEqual(self.api.handle("GET", "/openapi.json", {}, b""), (200, interfaces.cardinal_openapi()))

    def test_make_digest_stores_a_digest(self):
        # by hand: firmware has Ada Quist and Bo Lindqvist; design only Elin Park ("1 person")
        cases = [
            (b'{"team": "firmware"}', {"id": "DG-1", "team": "firmware", "days": 7,
                                       "text": "2 people in firmware over 7 days: Ada Quist, Bo Lindqvist."}),
            (b'{"team": "design", "days": 30}', {"id": "DG-2", "team": "design", "days": 30,
                                                 "text": "1 person in design over 30 days: Elin Park."}),
            (b'{"team": "platform", "days": 1}', {"id": "DG-3", "team": "platform", "days": 1,
                                                  "text": "2 people in platform over 1 days: Cyra Mendez, Dev Okoro."}),
            # JSON Schema counts 13.0 as the integer 13, and so does the document's "type": "integer"
            (b'{"team": "design", "days": 13.0}', {"id": "DG-4", "team": "design", "days": 13,
                                                   "text": "1 person in design over 13 days: Elin Park."}),
        ]
        for body, digest in cases:
            with self.subTest(body=body):
                self.assertEqual(self.api.handle("POST", "/digests", self.key, body), (201, digest))
        self.assertEqual(self.api.digests, [digest for _, digest in cases])

    def test_make_digest_refuses_a_bad_team_or_days_with_422(self):
        cases = [(b'{"team": "sales"}', "team must be one of"), (b'{"days": 3}', "team must be one of"),
                 (b'[]', "team must be one of"), (b'"firmware"', "team must be one of"), (b"", "team must be one of"),
                 (b'{"team": "firmware", "days": 0}', "days must be a whole number from 1 to 30"),
                 (b'{"team": "firmware", "days": 31}', "days must be a whole number from 1 to 30"),
                 (b'{"team": "firmware", "days": "7"}', "days must be a whole number from 1 to 30"),
                 (b'{"team": "firmware", "days": true}', "days must be a whole number from 1 to 30"),
                 (b'{"team": "firmware", "days": 7.5}', "days must be a whole number from 1 to 30"),
                 (b'{"team": "firmware", "days": 1e400}', "days must be a whole number from 1 to 30"),
                 (b'{"team": "firmware", "days": NaN}', "days must be a whole number from 1 to 30")]
        for body, fragment in cases:
            with self.subTest(body=body):
                status, payload = self.api.handle("POST", "/digests", self.key, body)
                self.assertEqual(status, 422)
                self.assertIn(fragment, payload["error"])
        self.assertEqual(self.api.digests, [])

    def test_a_body_that_is_not_json_is_400(self):
        for body in (b"{team: firmware}", b'{"team": "firmware"', b"\xff\xfe", b"team=firmware"):
            with self.subTest(body=body):
                status, payload = self.api.handle("POST", "/digests", self.key, body)
                self.assertEqual(status, 400)
                self.assertIn("the body must be JSON", payload["error"])
        self.assertEqual(self.api.digests, [])

    def test_every_request_is_logged(self):
        self.api.handle("GET", "/people?department=firmware", {}, b"")
        self.api.handle("GET", "/openapi.json", {}, b"")
        self.api.handle("POST", "/digests", self.key, b'{"team": "design"}')
        self.assertEqual(self.api.requests, [("GET", "/people?department=firmware"), ("GET", "/openapi.json"),
                                             ("POST", "/digests")])

    def test_each_api_has_its_own_data_and_a_random_token(self):
        first, second = CardinalAPI(), CardinalAPI()
        self.assertNotEqual(first.token, second.token)
        self.assertGreaterEqual(len(first.token), 16)
        first.people.clear()
        first.spec["paths"].clear()
        self.assertEqual(len(second.people), 5)
        self.assertEqual(len(interfaces.PEOPLE), 5)
        self.assertEqual(len(CardinalAPI().spec["paths"]), 3)


# ---------------------------------------------------------------------------------------------
# --- 1b. The server on real HTTP ---
# ---------------------------------------------------------------------------------------------

def socket_exchange(url: str, raw: bytes) -> bytes:
    """Write raw bytes to the server and read everything it sends until it closes the connection."""
    with socket.create_connection((urlsplit(url).hostname, urlsplit(url).port), timeout=2) as sock:
        sock.sendall(raw)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


class CardinalHTTP(unittest.TestCase):
    def test_malformed_requests_get_an_answer_and_end_the_connection(self):
        # found by fuzzing: each of these once dropped the connection, answered 500, or left a body to be read
        # as the next request; every answer here is one response, then the server closes
        server = cardinal(self)
        key = f"X-API-Key: {TOKEN}\r\n".encode()
        cases = [  # (request bytes, the status line's code, a word of the body)
            (b"POST /digests HTTP/1.1\r\n" + key + "Content-Length: \u00b2\r\n\r\n{}".encode(), b"400", b"Content-Length"),
            (b"POST /digests HTTP/1.1\r\n" + key + b"Content-Length: " + b"0" * 5000 + b"2\r\n\r\n{}", b"400", b"Content-Length"),
            (b"PUT /digests HTTP/1.1\r\n" + key + b"Transfer-Encoding: chunked\r\n\r\n5\r\nGET /\r\n0\r\n\r\n", b"411", b"chunked"),
        ]
        for raw, status, said in cases:
            with self.subTest(raw=raw[:60]):
                answer = socket_exchange(server.url, raw + b"GET /teams HTTP/1.1\r\n" + key + b"\r\n")
                self.assertTrue(answer.startswith(b"HTTP/1.1 " + status), answer[:80])
                self.assertIn(said, answer)
                self.assertEqual(answer.count(b"HTTP/1.1 "), 1)  # closed: the next request is not read
        # HTTP/0.9 has no head: the body alone comes back
        self.assertEqual(json.loads(socket_exchange(server.url, b"GET /people\r\n\r\n")),
                         {"error": "missing or wrong X-API-Key header"})

    def test_odd_values_are_client_errors(self):
        server = cardinal(self)
        key = {"X-API-Key": TOKEN}
        cases = [("GET", "/people", {"X-API-Key": "\u00e9t\u00e9".encode("latin-1")}, None, 401),
                 ("GET", "/people?limit=" + "9" * 5000, key, None, 400),
                 ("POST", "/digests", key, b"[" * 200_000, 400),
                 ("POST", "/digests", key, b'{"team": [1]}', 422)]
        for method, target, headers, body, status in cases:
            with self.subTest(target=target[:30], body=(body or b"")[:20]):
                self.assertEqual(raw_request(server.url, method, target, headers, body)[0], status)

    def test_routes_tolerance_and_token_check_over_http(self):
        server = cardinal(self)
        key = {"X-API-Key": TOKEN}
        cases = [
            ("GET", "/people?department=firmware", key, None, 200, len(interfaces.PEOPLE)),
            ("GET", "/people?team=firmware", key, None, 200, len(FIRMWARE)),
            ("GET", "/people?team=firmware", {"x-api-key": TOKEN}, None, 200, 2),  # header names ignore case
            ("GET", "/people", {}, None, 401, None),
            ("GET", "/people", {"X-API-Key": "guess"}, None, 401, None),
            ("GET", "/people?limit=0", key, None, 400, None),
            ("GET", "/nope", key, None, 404, None),
            ("POST", "/digests", key, b'{"team": "design", "days": 2}', 201, None),
            ("POST", "/digests", key, b"not json", 400, None),
            ("POST", "/digests", key, b'{"team": "sales"}', 422, None),
        ]
        for method, target, headers, body, status, count in cases:
            with self.subTest(method=method, target=target, headers=headers):
                got, kind, payload = raw_request(server.url, method, target, headers, body)
                self.assertEqual(got, status)
                self.assertEqual(kind, "application/json")
                if count is not None:
                    self.assertEqual(len(payload), count)
        self.assertEqual([d["id"] for d in server.api.digests], ["DG-1"])

    def test_openapi_json_is_public_and_is_the_document(self):
        server = cardinal(self)
        self.assertEqual(raw_request(server.url, "GET", "/openapi.json"),
                         (200, "application/json", interfaces.cardinal_openapi()))
        self.assertEqual(interfaces.fetch_openapi(server.url + "/"), interfaces.cardinal_openapi())

    def test_a_handler_that_raises_is_a_500_and_the_server_lives_on(self):
        server = cardinal(self)
        server.api.routes[("GET", "/boom")] = lambda query, body: 1 / 0
        self.assertEqual(raw_request(server.url, "GET", "/boom", {"X-API-Key": TOKEN}),
                         (500, "application/json", {"error": "internal error: ZeroDivisionError"}))
        self.assertEqual(raw_request(server.url, "GET", "/teams", {"X-API-Key": TOKEN})[0], 200)

    def test_the_server_is_stopped_by_whoever_started_it(self):
        with CardinalServer() as server:
            url = server.url
            self.assertTrue(re.fullmatch(r"http://127\.0\.0\.1:[0-9]+", url), url)
            self.assertEqual(raw_request(url, "GET", "/openapi.json")[0], 200)
        with self.assertRaises(RuntimeError):
            server.url
        with self.assertRaises(OSError):  # the port is released: nothing answers any more
            raw_request(url, "GET", "/openapi.json")
        server.stop()  # a second stop is harmless
        self.assertFalse(any(t.name == "cardinal-http" and t.is_alive() for t in threading.enumerate()))

    def test_importing_and_building_start_nothing(self):
        server = CardinalServer()
        with self.assertRaises(RuntimeError):
            server.url
        server.stop()  # stopping a server never started is harmless


# ---------------------------------------------------------------------------------------------
# --- 2. openapi_to_tools on Cardinal's document ---
# ---------------------------------------------------------------------------------------------

# By hand from cardinal_openapi(): Team's $ref inlined; a query parameter's own description wins over
# the shared schema's ("only people of this team"), a body field has only the schema's; default and bounds
# kept, no credential anywhere.
TEAM = {"type": "string", "enum": TEAM_ENUM, "description": "a team name"}
CARDINAL_SCHEMAS = {
    "list_people": {"type": "object", "properties": {
        "team": TEAM | {"description": "only people of this team"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 20,
                  "description": "the most people to return"}}, "required": [], "additionalProperties": False},
    "list_teams": {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
    "make_digest": {"type": "object", "properties": {
        "team": TEAM,
        "days": {"type": "integer", "minimum": 1, "maximum": 30, "default": 7,
                 "description": "how many days the digest covers"}},
        "required": ["team"], "additionalProperties": False},
}


class CardinalTools(unittest.TestCase):
    def test_every_operation_is_a_tool_with_its_schema(self):
        tools = {t.name: t for t in cardinal_tools("http://127.0.0.1:9")}
        self.assertEqual(sorted(tools), ["list_people", "list_teams", "make_digest"])
        for name, schema in CARDINAL_SCHEMAS.items():
            with self.subTest(name=name):
                self.assertEqual(tools[name].parameters, schema)
        self.assertEqual(tools["list_people"].description, "List the people in the company directory.\n\n"
                         "Returns id, name, team and role of each person, optionally of one team only.")
        self.assertEqual(tools["list_teams"].description, "List the teams with their size.")
        self.assertEqual(tools["make_digest"].description, "Write a digest of a team's people and store it.\n\n"
                         "This creates a record: call it only when the user asks for a digest.")
        self.assertEqual({n: t.read_only for n, t in tools.items()},
                         {"list_people": True, "list_teams": True, "make_digest": False})
        # MCP's outputSchema must describe an object: the two lists have none, make_digest's 201 is an object
        self.assertEqual({n: t.output_schema for n, t in tools.items()},
                         {"list_people": None, "list_teams": None, "make_digest": {"type": "object"}})

    def test_the_schemas_accept_what_the_contract_accepts(self):
        tools = {t.name: t for t in cardinal_tools("http://127.0.0.1:9")}
        cases = [
            ("list_people", {}, True), ("list_people", {"team": "firmware"}, True),
            ("list_people", {"team": "design", "limit": 50}, True), ("list_people", {"limit": 1}, True),
            ("list_people", {"limit": 2.0}, True),  # JSON Schema counts 2.0 as an integer
            ("list_people", {"department": "firmware"}, False), ("list_people", {"team": "sales"}, False),
            ("list_people", {"limit": 0}, False), ("list_people", {"limit": 51}, False),
            ("list_people", {"limit": "2"}, False), ("list_people", {"limit": 2.5}, False),
            ("list_people", {"X-API-Key": TOKEN}, False),
            ("list_teams", {}, True), ("list_teams", {"team": "firmware"}, False),
            ("make_digest", {"team": "firmware"}, True), ("make_digest", {"team": "design", "days": 30}, True),
            ("make_digest", {}, False), ("make_digest", {"days": 7}, False),
            ("make_digest", {"team": "firmware", "days": 31}, False),
            ("make_digest", {"team": "firmware", "days": True}, False),
        ]
        for name, arguments, ok in cases:
            with self.subTest(name=name, arguments=arguments):
                self.assertEqual(validate(tools[name].parameters, arguments) == [], ok)

    def test_the_converter_leaves_the_document_alone(self):
        spec = interfaces.cardinal_openapi()
        before = copy.deepcopy(spec)
        tools = openapi_to_tools(spec, "http://127.0.0.1:9", credentials={"ApiKeyAuth": TOKEN})
        self.assertEqual(spec, before)
        tools[0].parameters["properties"]["team"]["enum"].append("sales")  # a caller editing one tool's schema
        self.assertEqual(spec, before)

    def test_calls_through_the_registry_over_http(self):
        server = cardinal(self)
        registry = ToolRegistry(cardinal_tools(server.url + "/"))  # a trailing slash on the base URL is fine
        cases = [  # (tool, arguments, the request the backend receives, content)
            ("list_people", {"team": "firmware"}, ("GET", "/people?team=firmware"), FIRMWARE),
            ("list_people", {"limit": 2.0}, ("GET", "/people?limit=2"), interfaces.PEOPLE[:2]),  # 2.0 is sent as 2
            ("list_people", {}, ("GET", "/people"), interfaces.PEOPLE),
            ("list_teams", {}, ("GET", "/teams"), None),
            ("make_digest", {"team": "design", "days": 3.0}, ("POST", "/digests"),
             {"id": "DG-1", "team": "design", "days": 3, "text": "1 person in design over 3 days: Elin Park."}),
        ]
        for name, arguments, request, content in cases:
            with self.subTest(name=name, arguments=arguments):
                result = registry.call(name, arguments)
                self.assertTrue(result.ok, result.message)
                self.assertEqual(server.api.requests[-1], request)
                if content is not None:
                    self.assertEqual(result.content, content)
        self.assertEqual(len(server.api.requests), len(cases))
        self.assertEqual(server.api.digests[0]["days"], 3)

    def test_a_path_key_that_carries_a_query_keeps_it_and_adds_the_arguments_to_it(self):
        # OpenAI's description has path keys such as "/responses?beta=true": one "?" in the request, not two
        server = cardinal(self)
        spec = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/people?beta=true&x=": {"get": {
            "operationId": "beta_people", "parameters": [query_param("team", {"type": "string"})],
            "responses": {"200": {"description": "ok"}}}}}}
        (tool,) = openapi_to_tools(spec, server.url)
        ToolRegistry([tool]).call("beta_people", {"team": "firmware"})
        ToolRegistry([tool]).call("beta_people", {})
        self.assertEqual(server.api.requests[-2:], [("GET", "/people?beta=true&x=&team=firmware"),
                                                   ("GET", "/people?beta=true&x=")])

    def test_a_form_body_is_sent_as_its_encoding_object_asks(self):
        # Stripe's API takes every body as a form, objects in deepObject style (metadata[order_id]=7)
        class Recorder(interfaces.LoopbackServer):
            def respond(self, method, target, headers, body):
                self.seen = (method, headers.get("Content-Type"), body.decode())
                return 200, {"Content-Type": "application/json"}, b'{"id": "ch_1"}'
        server = Recorder().start()
        self.addCleanup(server.stop)
        form = {"type": "object", "required": ["amount"], "properties": {
            "amount": {"type": "integer"}, "capture": {"type": "boolean"},
            "expand": {"type": "array", "items": {"type": "string"}},
            "metadata": {"type": "object", "additionalProperties": {"type": "string"}}}}
        spec = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {"/v1/charges": {"post": {
            "operationId": "PostCharges", "responses": {"200": {"description": "ok"}},
            "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {
                "schema": form, "encoding": {"expand": {"style": "deepObject", "explode": True},
                                             "metadata": {"style": "deepObject", "explode": True}}}}}}}}}
        (tool,) = openapi_to_tools(spec, server.url)
        self.assertEqual(tool.parameters["required"], ["amount"])
        result = ToolRegistry([tool]).call("PostCharges", {"amount": 500, "capture": False, "expand": ["customer"],
                                                           "metadata": {"order_id": "7"}})
        self.assertEqual(result.content, {"id": "ch_1"})
        self.assertEqual(server.seen, ("POST", "application/x-www-form-urlencoded",
                                       "amount=500&capture=false&expand%5B%5D=customer&metadata%5Border_id%5D=7"))
        refused = copy.deepcopy(spec)
        refused["paths"]["/v1/charges"]["post"]["requestBody"]["content"] = {"multipart/form-data": {"schema": form}}
        with self.assertRaisesRegex(ValueError, "multipart/form-data"):
            openapi_to_tools(refused, server.url)  # its one operation left out: nothing left to serve

    def test_a_wrong_parameter_name_is_refused_before_any_request(self):
        server = cardinal(self)
        registry = ToolRegistry(cardinal_tools(server.url))
        for name, arguments in [("list_people", {"department": "firmware"}), ("list_people", {"limit": 51}),
                                ("make_digest", {"team": "sales"}), ("make_digest", {"days": 3}),
                                ("list_teams", {"x": 1}), ("list_people", "team=firmware")]:
            with self.subTest(name=name, arguments=arguments):
                result = registry.call(name, arguments)
                self.assertEqual((result.ok, result.error_kind), (False, "invalid_arguments"))
                self.assertNotIn(TOKEN, result.message)
        self.assertEqual(server.api.requests, [])
        self.assertEqual(server.api.digests, [])

    def test_a_wrong_credential_is_an_http_401_execution_error(self):
        server = cardinal(self)
        result = ToolRegistry(cardinal_tools(server.url, token="not-the-key")).call("list_teams", {})
        self.assertEqual((result.ok, result.error_kind, result.retryable), (False, "execution_error", False))
        self.assertIn("GET /teams returned HTTP 401", result.message)
        self.assertIn("missing or wrong X-API-Key header", result.message)

    def test_maintenance_is_a_retryable_execution_error(self):
        server = cardinal(self)
        server.api.unavailable = True
        result = ToolRegistry(cardinal_tools(server.url)).call("list_people", {"team": "firmware"})
        self.assertEqual((result.ok, result.error_kind, result.retryable), (False, "execution_error", True))
        self.assertIn("GET /people returned HTTP 503", result.message)
        self.assertNotIn(TOKEN, result.message)

    def test_a_new_route_shows_in_regenerated_tools_only(self):
        server = cardinal(self)
        old = openapi_to_tools(interfaces.fetch_openapi(server.url), server.url, credentials={"ApiKeyAuth": TOKEN})
        server.api.add_health_route()
        new = openapi_to_tools(interfaces.fetch_openapi(server.url), server.url, credentials={"ApiKeyAuth": TOKEN})
        self.assertEqual(sorted(t.name for t in old), ["list_people", "list_teams", "make_digest"])
        self.assertEqual(sorted(t.name for t in new), ["get_health", "list_people", "list_teams", "make_digest"])
        result = ToolRegistry(new).call("get_health", {})
        self.assertEqual((result.ok, result.content), (True, {"status": "ok", "people": 5}))
        self.assertEqual(server.api.requests[-1], ("GET", "/health"))
        self.assertEqual(ToolRegistry(old).call("get_health", {}).error_kind, "unknown_tool")

    def test_the_token_is_in_no_schema_and_no_rendering(self):
        spec = interfaces.cardinal_openapi()
        # the key also declared as a header parameter, as some documents do: still not the model's to write
        spec["paths"]["/people"]["get"]["parameters"].append(
            {"name": "X-API-Key", "in": "header", "required": True, "schema": {"type": "string"}})
        tools = openapi_to_tools(spec, "http://127.0.0.1:9", credentials={"ApiKeyAuth": TOKEN})
        self.assertEqual(tools[0].parameters, CARDINAL_SCHEMAS["list_people"])
        for dialect in DIALECTS:
            for tool in tools:
                with self.subTest(dialect=dialect.name, tool=tool.name):
                    self.assertNotIn(TOKEN, json.dumps(dialect.tool(tool)))
        self.assertNotIn(TOKEN, Qwen().prompt(tools))
        self.assertNotIn(TOKEN, tool_core.render_tool_prompt(tools))


# ---------------------------------------------------------------------------------------------
# --- 2b. openapi_to_tools on a document we did not write, served for real ---
# ---------------------------------------------------------------------------------------------

class ClinicConversion(unittest.TestCase):
    def test_every_operation_is_a_tool_with_its_schema(self):
        registry = clinic_registry("http://127.0.0.1:9")
        self.assertEqual(len(registry), 3)
        visit = visit_tool_name(registry)
        self.assertEqual(sorted(set(registry.names()) - {visit}), ["addPet", "listPets"])
        for name, schema, description, read_only in [
                ("listPets", LIST_PETS_SCHEMA, "List an owner's pets.", True),
                ("addPet", ADD_PET_SCHEMA, "Register a new pet for an owner.\n\nCreates a record.", False),
                (visit, VISIT_SCHEMA, "Read one visit.", True)]:
            with self.subTest(name=name):
                tool = registry.get(name)
                self.assertEqual(tool.parameters, schema)
                self.assertEqual((tool.description, tool.read_only), (description, read_only))

    def test_an_operation_without_operation_id_is_named_after_method_and_path(self):
        registry = clinic_registry("http://127.0.0.1:9")
        self.assertEqual(registry.names(), ["addPet", "get_visits_by_visitId", "listPets"])

    def test_the_schemas_accept_what_the_api_accepts(self):
        registry = clinic_registry("http://127.0.0.1:9")
        chip = "981000000000001"  # 15 digits
        cases = [
            ("listPets", {"ownerId": "o-7"}, True),
            ("listPets", {"ownerId": "o-7", "species": "rabbit", "limit": 100, "tag": [], "vaccinated": False,
                          "X-Request-Id": "r"}, True),
            ("listPets", {"ownerId": "o-7", "species": "hamster"}, False),
            ("listPets", {"ownerId": "o-7", "limit": 101}, False),
            ("listPets", {"ownerID": "o-7"}, False),
            ("addPet", {"ownerId": "o-7", "name": "Rex", "species": "dog"}, True),
            ("addPet", {"ownerId": "o-7", "name": "Rex", "species": "dog", "birthDate": None}, True),  # nullable
            ("addPet", {"ownerId": "o-7", "name": "Rex", "species": "dog", "birthDate": "2020-02-03",
                        "weightKg": 0.5, "microchip": {"code": chip, "registered": True}}, True),
            ("addPet", {"ownerId": "o-7", "name": "Rex", "species": "dog", "weightKg": 0}, False),  # exclusive
            ("addPet", {"ownerId": "o-7", "name": "", "species": "dog"}, False),
            ("addPet", {"ownerId": "o-7", "name": "Rex", "species": "dog", "id": 5}, False),  # readOnly
            ("addPet", {"ownerId": "o-7", "name": "Rex", "species": "dog", "microchip": {}}, False),
            ("addPet", {"ownerId": "o-7", "name": "Rex", "species": "dog",
                        "microchip": {"code": chip, "vendor": "x"}}, False),
            ("addPet", {"name": "Rex", "species": "dog"}, False),
        ]
        for name, arguments, ok in cases:
            with self.subTest(name=name, arguments=arguments):
                self.assertEqual(validate(registry.get(name).parameters, arguments) == [], ok)

    def test_what_each_tool_sends(self):
        server = recording(self)
        registry = clinic_registry(server.url)
        visit = visit_tool_name(registry)
        chip = "981000000000001"
        cases = [  # (tool, arguments, method, raw path, parsed query, headers present, JSON body, content)
            ("listPets", {"ownerId": "o 7/ä", "species": "cat", "limit": 2.0, "tag": ["old", "indoor"],
                          "vaccinated": True, "X-Request-Id": "req-1"},
             "GET", "/owners/o%207%2F%C3%A4/pets",
             {"species": ["cat"], "limit": ["2"], "tag": ["old", "indoor"], "vaccinated": ["true"]},
             {"x-request-id": "req-1"}, None, [{"id": 1, "name": "Tom", "species": "cat"}]),
            ("listPets", {"ownerId": "../admin"}, "GET", "/owners/..%2Fadmin/pets", {}, {}, None,
             [{"id": 1, "name": "Tom", "species": "cat"}]),
            ("addPet", {"ownerId": "o-7", "name": "Rex", "species": "dog", "birthDate": None,
                        "microchip": {"code": chip}},
             "POST", "/owners/o-7/pets", {}, {"content-type": "application/json"},
             {"name": "Rex", "species": "dog", "birthDate": None, "microchip": {"code": chip}},
             {"id": 8, "name": "Rex", "species": "dog", "birthDate": None, "microchip": {"code": chip}}),
            (visit, {"visitId": 42.0}, "GET", "/visits/42", {}, {}, None, {"visitId": 42}),
        ]
        for name, arguments, method, path, query, headers, body, content in cases:
            with self.subTest(name=name, arguments=arguments):
                server.requests.clear()
                result = registry.call(name, arguments)
                self.assertTrue(result.ok, result.message)
                self.assertEqual(result.content, content)
                [sent] = server.requests
                self.assertEqual((sent["method"], sent["path"], sent["query"]), (method, path, query))
                self.assertEqual(sent["headers"]["authorization"], f"Bearer {BEARER}")
                self.assertEqual(sent["headers"]["accept"], "application/json")
                for header, value in headers.items():
                    self.assertEqual(sent["headers"][header], value)
                self.assertEqual(json.loads(sent["body"]) if sent["body"] else None, body)
                if body is None:  # a GET carries no body and says no content type
                    self.assertNotIn("content-type", sent["headers"])

    def test_nothing_is_sent_when_validation_fails(self):
        server = recording(self)
        registry = clinic_registry(server.url)
        visit = visit_tool_name(registry)
        cases = [
            ("addPet", {"ownerId": "o-7", "species": "dog"}),
            ("addPet", {"ownerId": "o-7", "name": "Rex", "species": "hamster"}),
            ("addPet", {"ownerId": "o-7", "name": "Rex", "species": "dog", "microchip": {"code": "123"}}),
            ("addPet", {"ownerId": "o-7", "name": "Rex", "species": "dog",
                        "microchip": {"code": "981000000000001", "vendor": "x"}}),
            ("addPet", {"ownerId": "o-7", "name": "Rex", "species": "dog", "id": 5}),
            ("addPet", {"ownerId": "o-7", "name": "Rex", "species": "dog", "weightKg": 0}),
            ("listPets", {"ownerId": "o-7", "limit": 0}), ("listPets", {"ownerId": "o-7", "limit": 2.5}),
            ("listPets", {"ownerID": "o-7"}), ("listPets", {"ownerId": 7}),
            (visit, {"visitId": "42"}), (visit, {}),
        ]
        for name, arguments in cases:
            with self.subTest(name=name, arguments=arguments):
                result = registry.call(name, arguments)
                self.assertEqual((result.ok, result.error_kind), (False, "invalid_arguments"))
                self.assertIn("Nothing was executed", result.message)
        self.assertEqual(server.requests, [])

    def test_each_kind_of_credential_is_attached(self):
        # Basic: base64 of "user:pw" by hand: "use" -> dXNl, "r:p" -> cjpw, "w" -> dw==
        cases = [
            ({"type": "http", "scheme": "bearer"}, BEARER, ("header", "authorization", f"Bearer {BEARER}")),
            ({"type": "http", "scheme": "Bearer", "bearerFormat": "JWT"}, BEARER,
             ("header", "authorization", f"Bearer {BEARER}")),
            ({"type": "http", "scheme": "basic"}, "user:pw", ("header", "authorization", "Basic dXNlcjpwdw==")),
            ({"type": "apiKey", "in": "header", "name": "X-Clinic-Key"}, BEARER, ("header", "x-clinic-key", BEARER)),
            ({"type": "apiKey", "in": "query", "name": "api_key"}, BEARER, ("query", "api_key", [BEARER])),
        ]
        for scheme, secret, (place, name, value) in cases:
            with self.subTest(scheme=scheme):
                server = recording(self)
                registry = clinic_registry(server.url, scheme, secret)
                self.assertTrue(registry.call("listPets", {"ownerId": "o-7"}).ok)
                [sent] = server.requests
                self.assertEqual(sent["headers" if place == "header" else "query"].get(name), value)
                for tool in registry:
                    self.assertNotIn(secret, json.dumps(tool.spec()))

    def test_no_credentials_sends_none(self):
        server = recording(self)
        registry = ToolRegistry(openapi_to_tools(clinic_openapi(), server.url))
        self.assertTrue(registry.call("listPets", {"ownerId": "o-7"}).ok)
        self.assertNotIn("authorization", server.requests[0]["headers"])


# ---------------------------------------------------------------------------------------------
# --- 2c. Bad input: a clear ValueError at conversion, an execution_error at call time ---
# ---------------------------------------------------------------------------------------------

def one_operation(operation: dict, path: str = "/a", components: dict | None = None) -> dict:
    """A minimal OpenAPI 3.1 document with one operation (a GET unless the dict says otherwise)."""
    method = operation.pop("method", "get")
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "paths": {path: {method: {"responses": {"200": {"description": "ok"}}} | operation}},
            "components": components or {}}


def query_param(name: str, schema: dict) -> dict:
    return {"name": name, "in": "query", "schema": schema}


class OneOperation(unittest.TestCase):
    def test_each_row_of_the_table(self):
        # exercise_tables.ONE_OPERATION, by hand from OpenAPI 3.1's Operation, Parameter and Request Body objects;
        # `scripts/exercises.py --check 4` runs the same rows
        for what, spec, expected in ONE_OPERATION:
            with self.subTest(what):
                before = copy.deepcopy(spec)
                [tool] = openapi_to_tools(spec, "http://127.0.0.1:9")
                self.assertEqual({"name": tool.name, "description": tool.description, "parameters": tool.parameters},
                                 expected)
                self.assertEqual(spec, before)  # the document is left alone


class BadDocuments(unittest.TestCase):
    def test_fields_of_odd_types_are_value_errors(self):
        # found by fuzzing 20,000 mutations of cardinal_openapi(): these raised AttributeError or TypeError
        mutations = [lambda s: s.update(components=True),
                     lambda s: s["paths"].update({"/digests": {"$ref": "#/info/title"}}),
                     lambda s: s["paths"]["/people"]["get"].update(operationId={"a": 1}),
                     lambda s: s["paths"]["/people"]["get"].update(responses=[1]),
                     lambda s: s["paths"]["/people"]["get"].update(parameters=1.5)]
        for n, mutate in enumerate(mutations):
            with self.subTest(mutation=n):
                spec = interfaces.cardinal_openapi()
                mutate(spec)
                with self.assertRaises(ValueError):
                    openapi_to_tools(spec, "http://127.0.0.1:1")

    def test_refs_that_double_at_each_level_are_refused_quickly(self):
        # the bound holds per operation (issue 36, item 4): the operation is left out, the document's others are kept
        spec = interfaces.cardinal_openapi()
        spec["components"]["schemas"] |= billion_laughs(30)  # 2**30 copies of the last schema if inlined
        spec["paths"]["/people"]["get"]["parameters"][0]["schema"] = {"$ref": "#/components/schemas/L0"}
        with self.assertWarnsRegex(UserWarning, r"left this operation out \(the other 2 became tools\): GET /people "
                                                r"\(list_people\).*expand to more than 50,000 schema nodes"):
            names = [t.name for t in openapi_to_tools(spec, "http://127.0.0.1:1")]
        self.assertEqual(names, ["list_teams", "make_digest"])

    def test_each_broken_document_is_a_value_error_naming_the_problem(self):
        ref = lambda name: {"$ref": f"#/components/schemas/{name}"}  # noqa: E731
        cases = [
            ("swagger 2.0", {"swagger": "2.0", "paths": {}}, ["swagger", "2.0", "OpenAPI 3"]),
            ("a list", [{"openapi": "3.1.0"}], ["an array"]),
            ("a string", "openapi: 3.1.0", ["a string"]),
            ("openapi as a number", {"openapi": 3.1, "paths": {}}, ["3.1", "OpenAPI 3.0 or 3.1"]),
            ("openapi 2.5", {"openapi": "2.5.0", "paths": {}}, ["2.5.0"]),
            ("no paths", {"openapi": "3.0.3", "info": {}}, ["paths"]),
            ("a dangling $ref", one_operation({"parameters": [query_param("q", ref("Nowhere"))]},
                                              components={"schemas": {}}), ["#/components/schemas/Nowhere", "Nowhere"]),
            ("a $ref loop", one_operation({"parameters": [query_param("q", ref("A"))]}, components={
                "schemas": {"A": ref("B"), "B": ref("A")}}), ["loop", "#/components/schemas/A"]),
            ("a recursive schema", one_operation({"method": "post", "requestBody": {"content": {"application/json": {
                "schema": ref("Node")}}}}, components={"schemas": {"Node": {"type": "object", "properties": {
                    "child": ref("Node")}}}}), ["loop", "#/components/schemas/Node"]),
            ("a remote $ref", one_operation({"parameters": [query_param("q", {"$ref": "other.yaml#/Q"})]}),
             ["other.yaml#/Q", "remote"]),
            ("a path template nobody declares", one_operation({}, path="/pets/{petId}"), ["petId"]),
            ("two operations with one operationId", {"openapi": "3.0.3", "paths": {
                "/a": {"get": {"operationId": "same", "responses": {}}},
                "/b": {"get": {"operationId": "same", "responses": {}}}}}, ["same", "operationId"]),
            ("a multipart body", one_operation({"method": "post", "requestBody": {"content": {
                "multipart/form-data": {"schema": {"type": "object"}}}}}),
             ["multipart/form-data", "JSON and form"]),
            ("a form body that is no object", one_operation({"method": "post", "requestBody": {"content": {
                "application/x-www-form-urlencoded": {"schema": {"type": "string"}}}}}),
             ["a form body must be an object"]),
            ("a cookie parameter", one_operation({"parameters": [
                {"name": "session", "in": "cookie", "schema": {"type": "string"}}]}), ["cookie", "session"]),
            ("a parameter without 'in'", one_operation({"parameters": [{"name": "q", "schema": {}}]}), ["'in'"]),
            ("a schema that is not an object", one_operation({"parameters": [query_param("q", ["string"])]}),
             ["parameter q", "schema"]),
            ("an operation that is not an object", {"openapi": "3.0.3", "paths": {"/a": {"get": "list"}}},
             ["GET /a", "operation"]),
        ]
        for label, spec, fragments in cases:
            with self.subTest(label):
                with self.assertRaises(ValueError) as ctx:
                    openapi_to_tools(spec, "http://127.0.0.1:9")
                for fragment in fragments:
                    self.assertIn(fragment, str(ctx.exception))

    def test_credentials_for_an_unknown_scheme_are_a_value_error(self):
        with self.assertRaises(ValueError) as ctx:
            openapi_to_tools(clinic_openapi(), "http://127.0.0.1:9", credentials={"ApiKeyAuth": TOKEN})
        self.assertIn("ApiKeyAuth", str(ctx.exception))
        self.assertIn("clinicAuth", str(ctx.exception))
        self.assertNotIn(TOKEN, str(ctx.exception))

    def test_openapi_versions_accepted(self):
        for version in ("3.0.0", "3.0.3", "3.1.0", "3.1.1"):
            with self.subTest(version=version):
                spec = clinic_openapi() | {"openapi": version}
                self.assertEqual(len(openapi_to_tools(spec, "http://127.0.0.1:9")), 3)

    def test_3_0_bounds_and_nullable_become_json_schema(self):
        cases = [
            ({"type": "integer", "minimum": 1, "exclusiveMinimum": True}, {"type": "integer", "exclusiveMinimum": 1}),
            ({"type": "integer", "maximum": 9, "exclusiveMaximum": True}, {"type": "integer", "exclusiveMaximum": 9}),
            ({"type": "integer", "maximum": 9, "exclusiveMaximum": False}, {"type": "integer", "maximum": 9}),
            ({"type": "integer", "exclusiveMinimum": 0}, {"type": "integer", "exclusiveMinimum": 0}),  # 3.1 form
            ({"type": "integer", "nullable": True, "example": 3}, {"type": ["integer", "null"]}),
            ({"type": "string", "nullable": False, "deprecated": True, "xml": {}}, {"type": "string"}),
            ({"type": "array", "items": {"type": "string", "nullable": True}},
             {"type": "array", "items": {"type": ["string", "null"]}}),
        ]
        for schema, expected in cases:
            with self.subTest(schema=schema):
                [tool] = openapi_to_tools(one_operation({"parameters": [query_param("q", schema)]}), "http://x")
                self.assertEqual(tool.parameters["properties"]["q"], expected)

    def test_a_broken_pattern_fails_at_conversion(self):
        spec = one_operation({"operationId": "q",
                              "parameters": [query_param("q", {"type": "string", "pattern": "([a-z"})]})
        with self.assertRaises(ValueError) as ctx:
            openapi_to_tools(spec, "http://127.0.0.1:9")
        self.assertIn("([a-z", str(ctx.exception))

    def test_accept_content_type_and_authorization_header_parameters_are_ignored(self):
        spec = one_operation({"operationId": "q", "parameters": [
            {"name": name, "in": "header", "schema": {"type": "string"}}
            for name in ("Authorization", "Accept", "Content-Type")] + [query_param("q", {"type": "string"})]})
        [tool] = openapi_to_tools(spec, "http://127.0.0.1:9")
        self.assertEqual(list(tool.parameters["properties"]), ["q"])

    def test_the_output_schema_keeps_what_a_response_carries(self):
        response = {"type": "object", "required": ["id"], "properties": {
            "id": {"type": "integer", "readOnly": True}, "name": {"type": "string"},
            "password": {"type": "string", "writeOnly": True}}}
        spec = one_operation({"operationId": "me", "responses": {"200": {"description": "me", "content": {
            "application/json": {"schema": response}}}}})
        [tool] = openapi_to_tools(spec, "http://127.0.0.1:9")
        self.assertEqual(tool.output_schema, {"type": "object", "required": ["id"], "properties": {
            "id": {"type": "integer"}, "name": {"type": "string"}}})

    def assert_value_error_or_converts(self, spec: dict) -> None:
        try:
            openapi_to_tools(spec, "http://127.0.0.1:9")
        except ValueError:
            pass  # a clear error is the other acceptable outcome
        except Exception as exc:  # noqa: BLE001 - what the test is about
            self.fail(f"{type(exc).__name__} instead of a ValueError: {exc}")

    def test_exclusive_minimum_true_without_minimum_is_not_a_key_error(self):
        self.assert_value_error_or_converts(one_operation({"parameters": [
            query_param("w", {"type": "number", "exclusiveMinimum": True})]}))

    def test_a_path_item_that_is_not_an_object_is_a_value_error(self):
        self.assert_value_error_or_converts({"openapi": "3.1.0", "paths": {"/a": "nope"}})

    def test_security_schemes_that_are_not_an_object_are_a_value_error(self):
        self.assert_value_error_or_converts(one_operation({}, components={"securitySchemes": []}))


def billion_laughs(levels: int) -> dict:
    """Schemas L0..L{levels} where each refers to the next twice: 2**levels copies of the last once inlined."""
    schemas = {f"L{levels}": {"type": "string"}}
    for i in range(levels):
        ref = {"$ref": f"#/components/schemas/L{i + 1}"}
        schemas[f"L{i}"] = {"type": "object", "properties": {"a": ref, "b": ref}}
    return schemas


def echo_credentials(status: int):
    """A server that answers `status` and echoes the credentials it received in the error body."""
    def respond(request: dict) -> tuple[int, str, bytes]:
        seen = {"authorization": request["headers"].get("authorization"),
                "x-clinic-key": request["headers"].get("x-clinic-key"), "query": request["raw_query"]}
        return status, "application/json", json.dumps({"error": "refused", "you sent": seen}).encode()
    return respond


def fastapi_users() -> dict:
    """A FastAPI-style document: PUT /users/{id} whose body also has an id, among five other operations."""
    user = {"type": "object", "required": ["id", "name"], "properties": {"id": {"type": "integer"},
                                                                         "name": {"type": "string"}}}
    body = {"required": True, "content": {"application/json": {"schema": user}}}
    path_id = {"name": "id", "in": "path", "schema": {"type": "integer"}}  # no "required": true, as some write it
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}
    return {"openapi": "3.1.0", "info": {"title": "users", "version": "1"}, "paths": {
        "/users": {"get": {"operationId": "read_users__get", "responses": ok},
                   "post": {"operationId": "create_user_users_post", "requestBody": body, "responses": ok}},
        "/users/{id}": {"get": {"operationId": "read_user_users__id__get", "parameters": [path_id], "responses": ok},
                        "put": {"operationId": "update_user_users__id__put", "parameters": [path_id],
                                "requestBody": body, "responses": ok},
                        "delete": {"operationId": "delete_user_users__id__delete", "parameters": [path_id],
                                   "responses": ok}},
        "/health": {"get": {"operationId": "health-check.v2", "responses": ok}}}}


class RealWorldDocuments(unittest.TestCase):
    """OpenAPI documents as services really write them (issue 21, item 3)."""

    def test_a_path_parameter_and_a_body_field_of_one_name_both_stay_reachable(self):
        server = recording(self, lambda r: (200, "application/json", b'{"done": true}'))
        registry = ToolRegistry(openapi_to_tools(fastapi_users(), server.url))
        tool = registry.get("update_user_users__id__put")
        self.assertEqual(sorted(tool.parameters["properties"]), ["id", "id__path", "name"])  # the body keeps "id"
        self.assertEqual(sorted(tool.parameters["required"]), ["id", "id__path", "name"])
        result = registry.call("update_user_users__id__put", {"id__path": 7, "id": 8, "name": "Ada"})
        self.assertTrue(result.ok, result.message)
        [sent] = server.requests
        self.assertEqual((sent["method"], sent["path"], json.loads(sent["body"])), ("PUT", "/users/7", {"id": 8, "name": "Ada"}))

    def test_an_optional_body_makes_none_of_its_fields_required(self):
        # OpenAPI 3.1, Request Body Object: "required ... Defaults to false". A body the caller may leave out
        # cannot have fields the tool demands; its own required list still holds when the body is required
        for declared, required in ((None, []), (False, []), (True, ["id", "id__path", "name"])):
            with self.subTest(required=declared):
                spec = fastapi_users()
                body = spec["paths"]["/users/{id}"]["put"]["requestBody"] = dict(spec["paths"]["/users/{id}"]["put"]
                                                                               ["requestBody"])
                body.pop("required")
                if declared is not None:
                    body["required"] = declared
                tool = next(t for t in openapi_to_tools(spec, "http://127.0.0.1:9") if t.name == "update_user_users__id__put")
                self.assertEqual(sorted(r for r in tool.parameters.get("required", []) if r != "id__path"),
                                 [r for r in required if r != "id__path"])

    def test_one_document_loses_none_of_its_six_tools(self):
        names = [t.name for t in openapi_to_tools(fastapi_users(), "http://127.0.0.1:9")]
        self.assertEqual(names, ["read_users__get", "create_user_users_post", "read_user_users__id__get",
                                 "update_user_users__id__put", "delete_user_users__id__delete", "health-check_v2"])

    def test_a_valid_operation_id_is_kept_exactly_and_an_invalid_one_mapped_by_the_rule(self):
        # the rule, by hand: runs outside [A-Za-z0-9_-] -> "_", "_" runs made that way fold, ends stripped, 64 at most
        cases = [("read__a", "read__a"), ("getPets-v2", "getPets-v2"), ("__x__", "__x__"), ("a" * 64, "a" * 64),
                 ("get pets!", "get_pets"), ("health-check.v2", "health-check_v2"), ("users/{id}/get", "users_id_get"),
                 ("a" * 65, "a" * 64), ("é", "get")]
        for operation_id, expected in cases:
            with self.subTest(operation_id=operation_id):
                [tool] = openapi_to_tools(one_operation({"operationId": operation_id}), "http://127.0.0.1:9")
                self.assertEqual(tool.name, expected)

    def test_a_path_parameter_is_required_even_when_the_document_omits_required(self):
        tools = {t.name: t for t in openapi_to_tools(fastapi_users(), "http://127.0.0.1:9")}
        for name in ("read_user_users__id__get", "delete_user_users__id__delete"):
            with self.subTest(tool=name):
                self.assertEqual(tools[name].parameters["required"], ["id"])
                registry = ToolRegistry([tools[name]])
                self.assertEqual(registry.call(name, {}).error_kind, "invalid_arguments")

    def test_an_operation_the_converter_cannot_take_is_left_out_with_a_warning_not_the_document(self):
        spec = fastapi_users()
        spec["paths"]["/users"]["post"]["requestBody"] = {"content": {"multipart/form-data": {"schema": {}}}}
        with self.assertWarnsRegex(UserWarning, r"left this operation out \(the other 5 became tools\).*multipart"):
            names = [t.name for t in openapi_to_tools(spec, "http://127.0.0.1:9")]
        self.assertNotIn("create_user_users_post", names)
        self.assertEqual(len(names), 5)
        only_bad = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/users": {
            "post": spec["paths"]["/users"]["post"], "put": spec["paths"]["/users"]["post"] | {"operationId": "p"}}}}
        with self.assertRaisesRegex(ValueError, "no operation could be converted.*multipart.*multipart"):
            openapi_to_tools(only_bad, "http://127.0.0.1:9")


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def json_response(schema: dict) -> dict:
    return {"description": "ok", "content": {"application/json": {"schema": schema}}}


NODE = {"type": "object", "properties": {"name": {"type": "string"},
                                         "children": {"type": "array", "items": ref("Node")}}}
PONG = {"type": "object", "properties": {"ok": {"type": "boolean"}}}


def tree_and_ping(tree: dict, schemas: dict | None = None) -> dict:
    """Two operations: GET /tree as given (else a depth parameter and a Pong answer), and a plain GET /ping."""
    tree = {"operationId": "tree", "parameters": [query_param("depth", {"type": "integer"})],
            "responses": {"200": json_response(ref("Pong"))}} | tree
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {
        "/tree": {"get": tree}, "/ping": {"get": {"operationId": "ping", "responses": {"200": json_response(PONG)}}}},
        "components": {"schemas": {"Node": NODE, "Pong": PONG} | (schemas or {})}}


class PerOperationReading(unittest.TestCase):
    """Issue 36, item 4: GitHub's, OpenAI's and Stripe's descriptions were each refused whole, by a schema that
    only some response used, or by a node budget shared by the whole document. The budget is 2,000 nodes here,
    not 50,000, so that the tests stay fast: what they show does not depend on its size."""

    def setUp(self):
        budget = unittest.mock.patch.object(interfaces, "MAX_INLINED_NODES", 2_000)
        budget.start()
        self.addCleanup(budget.stop)

    def convert(self, spec: dict) -> tuple[dict[str, Tool], list[str]]:
        """The tools by name, and the warnings given while converting."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tools = {t.name: t for t in openapi_to_tools(spec, "http://127.0.0.1:9")}
        return tools, [str(w.message) for w in caught]

    def test_a_response_the_converter_cannot_read_costs_only_that_tools_output_schema(self):
        node = {"type": "object", "properties": {"name": {"type": "string"},
                                                 "children": {"type": "array", "items": {}}}}
        cases = [  # (label, GET /tree's 2xx/4xx responses, its output schema, what the warning names or None)
            ("a recursive schema", {"200": json_response(ref("Node"))}, None,
             r"GET /tree \(tree\) response 200: \$ref loop #/components/schemas/Node -> #/components/schemas/Node.*"
             r"without an output schema"),
            ("a dangling $ref", {"200": json_response(ref("Gone"))}, None,
             r"GET /tree \(tree\) response 200: \$ref '#/components/schemas/Gone' points nowhere.*without an "
             r"output schema"),
            ("a billion laughs", {"200": json_response(ref("L0"))}, None,
             r"GET /tree \(tree\) response 200: the \$refs expand to more than 2,000.*without an output schema"),
            ("recursion only in an error response", {"200": json_response(PONG), "404": json_response(ref("Node"))},
             PONG, None),
            ("a recursive array, which no output schema holds", {"200": json_response({"type": "array",
                                                                                      "items": ref("Node")})},
             None, None),
            ("the tree cut to one level by hand", {"200": json_response(ref("Flat"))}, node, None),
        ]
        for label, responses, output, warned in cases:
            with self.subTest(label):
                tools, said = self.convert(tree_and_ping({"responses": responses},
                                                         billion_laughs(30) | {"Flat": node}))
                self.assertEqual(list(tools), ["tree", "ping"])
                self.assertEqual(list(tools["tree"].parameters["properties"]), ["depth"])  # the input is whole
                self.assertEqual((tools["tree"].output_schema, tools["ping"].output_schema), (output, PONG))
                self.assertEqual(len(said), 0 if warned is None else 1, said)
                if warned:
                    self.assertRegex(said[0], r"^openapi_to_tools made this tool with less than its operation "
                                              r"declares: " + warned)

    def test_an_input_the_converter_cannot_read_costs_only_its_operation(self):
        cases = [  # (label, GET /tree's parameters, what the warning says after naming the operation)
            ("a recursive parameter", [query_param("root", ref("Node"))], r"\$ref loop #/components/schemas/Node"),
            ("a dangling $ref", [query_param("root", ref("Gone"))],
             r"\$ref '#/components/schemas/Gone' points nowhere"),
            ("a billion laughs", [query_param("root", ref("L0"))], r"the \$refs expand to more than 2,000"),
            ("a remote $ref", [{"$ref": "common.json#/parameters/Q"}],
             r'\$ref "common\.json#/parameters/Q" is not a local reference'),
        ]
        for label, parameters, reason in cases:
            with self.subTest(label):
                tools, said = self.convert(tree_and_ping({"parameters": parameters}, billion_laughs(30)))
                self.assertEqual(list(tools), ["ping"])
                self.assertEqual(len(said), 1, said)
                self.assertRegex(said[0], r"^openapi_to_tools left this operation out \(the other 1 became tools\): "
                                          r"GET /tree \(tree\): " + reason)

    def test_the_node_budget_is_counted_per_operation(self):
        # ten operations, each answering a 250-field object: 505 nodes each (by hand: the $ref 1, the schema 1,
        # "type" 1, properties 1, each field 2, the $ref's siblings 1), 5,050 in all, past the budget of 2,000
        fields = {"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(250)}}
        spec = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "components": {"schemas": {"Wide": fields}},
                "paths": {f"/r{n}": {"get": {"operationId": f"r{n}", "responses": {"200": json_response(ref("Wide"))}}}
                          for n in range(10)}}
        tools, said = self.convert(spec)
        self.assertEqual((len(tools), said), (10, []))
        self.assertEqual({len(t.output_schema["properties"]) for t in tools.values()}, {250})
        self.assertEqual({json.dumps(t.parameters) for t in tools.values()},
                         {'{"type": "object", "properties": {}, "required": [], "additionalProperties": false}'})

    def test_the_input_and_the_output_each_have_their_own_budget(self):
        # by hand: a $ref to a 30-field object inlines as 65 nodes (the $ref 1, the schema 1, "type" 1,
        # properties 1, each field 2, the $ref's siblings 1); the parameter around it adds 3. With a budget
        # of 100, input (68) and output (65) each fit, and would not together
        wide = {"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(30)}}
        spec = tree_and_ping({"parameters": [query_param("filter", ref("Wide"))],
                              "responses": {"200": json_response(ref("Wide"))}}, {"Wide": wide})
        with unittest.mock.patch.object(interfaces, "MAX_INLINED_NODES", 100):
            tools, said = self.convert(spec)
        self.assertEqual(said, [])
        self.assertEqual(tools["tree"].parameters["properties"]["filter"], wide)
        self.assertEqual(tools["tree"].output_schema, wide)

    def test_recursive_and_dynamic_refs_are_dropped_with_a_note(self):
        # OpenAI's CompoundFilter (2019-09's $recursiveRef), and 2020-12's $dynamicRef written the same way
        comparison = {"type": "object", "properties": {"key": {"type": "string"}}}
        for keyword, anchor, value, target in (("$recursiveRef", "$recursiveAnchor", True, "#"),
                                               ("$dynamicRef", "$dynamicAnchor", "filter", "#filter")):
            with self.subTest(keyword):
                nested = {keyword: target, "description": "nested"}
                compound = {anchor: value, "type": "object", "properties": {
                    "type": {"enum": ["and", "or"]}, "filters": {"type": "array", "items": {"anyOf": [
                        ref("Comparison"), nested]}}}}
                spec = one_operation({"method": "post", "operationId": "search", "requestBody": {"content": {
                    "application/json": {"schema": {"type": "object", "properties": {"filters": ref("Compound")}}}}}},
                    components={"schemas": {"Comparison": comparison, "Compound": compound}})
                tools, said = self.convert(spec)
                self.assertEqual(tools["search"].parameters["properties"]["filters"], {
                    "type": "object", "properties": {"type": {"enum": ["and", "or"]}, "filters": {
                        "type": "array", "items": {"anyOf": [comparison, {"description": "nested"}]}}}})
                self.assertEqual(said, [f"openapi_to_tools made this tool with less than its operation declares: "
                                        f"POST /a (search) body: {keyword} \"{target}\" inside "
                                        "#/components/schemas/Compound was dropped, so that place accepts any value "
                                        "(once $refs are inlined, a dynamic reference would point into the tool's "
                                        "own schema)"])

    def test_an_optional_body_that_can_hold_nothing_is_no_body(self):
        # Stripe's GETs each declare one, as a form (and multipart bodies are not supported: then it matters)
        empty = {"type": "object", "properties": {}, "additionalProperties": False}
        body_of = lambda kind, schema, required=False: {"required": required, "content": {  # noqa: E731
            kind: {"encoding": {}, "schema": schema}}}
        multipart = "multipart/form-data"
        cases = [  # (label, the request body, a tool is made)
            ("empty and optional", body_of(multipart, empty), True),
            ("empty, optional, behind a $ref", body_of(multipart, ref("Empty")), True),
            ("empty but required", body_of(multipart, empty, required=True), False),
            ("with a field", body_of(multipart, empty | {"properties": {"q": {"type": "string"}}}), False),
            ("open to any field", body_of(multipart, {"type": "object"}), False),
        ]
        for label, body, made in cases:
            with self.subTest(label):
                spec = tree_and_ping({"requestBody": body}, {"Empty": empty})
                tools, said = self.convert(spec)
                self.assertEqual("tree" in tools, made)
                self.assertEqual(len(said), 0 if made else 1, said)
                if made:
                    self.assertEqual(list(tools["tree"].parameters["properties"]), ["depth"])


class CallTimeFailures(unittest.TestCase):
    def assert_execution_error(self, result: ToolResult, fragments: list[str], retryable: bool | None = None):
        self.assertEqual((result.ok, result.error_kind), (False, "execution_error"))
        for fragment in fragments:
            self.assertIn(fragment, result.message)
        if retryable is not None:
            self.assertEqual(result.retryable, retryable)
        self.assertNotIn(BEARER, result.message)

    def test_http_errors_carry_the_status_and_retry_advice(self):
        cases = [(400, False), (404, False), (409, False), (422, False), (429, True), (500, True), (503, True)]
        for status, retryable in cases:
            with self.subTest(status=status):
                server = recording(self, lambda r, s=status: (s, "application/json", b'{"error": "owner o-7 is away"}'))
                result = clinic_registry(server.url).call("listPets", {"ownerId": "o-7"})
                self.assert_execution_error(result, ["GET /owners/{ownerId}/pets", f"HTTP {status}",
                                                     "owner o-7 is away"], retryable)
                self.assertEqual(len(server.requests), 1)

    def test_the_credential_is_redacted_from_an_echoed_error(self):
        cases = [({"type": "http", "scheme": "bearer"}, BEARER),
                 ({"type": "apiKey", "in": "header", "name": "X-Clinic-Key"}, BEARER),
                 ({"type": "apiKey", "in": "query", "name": "api_key"}, BEARER)]
        for scheme, secret in cases:
            with self.subTest(scheme=scheme):
                server = recording(self, echo_credentials(401))
                result = clinic_registry(server.url, scheme, secret).call("listPets", {"ownerId": "o-7"})
                self.assert_execution_error(result, ["HTTP 401", "[redacted]"], False)
                self.assertNotIn(secret, result.text)

    def test_a_basic_credential_is_redacted_as_it_travels(self):
        server = recording(self, echo_credentials(401))
        result = clinic_registry(server.url, {"type": "http", "scheme": "basic"}, "user:pw").call(
            "listPets", {"ownerId": "o-7"})
        self.assertIn("HTTP 401", result.message)
        self.assertNotIn("dXNlcjpwdw==", result.message)

    def test_a_query_key_is_redacted_as_it_travels(self):
        secret = "k/ey+1="
        server = recording(self, echo_credentials(401))
        result = clinic_registry(server.url, {"type": "apiKey", "in": "query", "name": "api_key"}, secret).call(
            "listPets", {"ownerId": "o-7"})
        self.assertIn("HTTP 401", result.message)
        self.assertNotIn("k%2Fey%2B1%3D", result.message)

    def test_a_credential_cut_by_the_200_character_limit_is_still_redacted(self):
        server = recording(self, lambda r: (401, "text/plain", ("e" * 190 + r["headers"]["authorization"][7:]
                                                                + "e" * 50).encode()))
        result = clinic_registry(server.url).call("listPets", {"ownerId": "o-7"})
        self.assertIn("HTTP 401", result.message)
        self.assertNotIn(BEARER[:9], result.message)

    def test_a_response_that_is_not_json(self):
        cases = [(200, "text/html", b"<html><body>Maintenance</body></html>", ["text/html", "not JSON", "Maintenance"]),
                 (200, "application/json", b"{oops", ["not JSON", "{oops"]),
                 (200, "", b"plain words", ["not JSON", "plain words"])]
        for status, kind, body, fragments in cases:
            with self.subTest(kind=kind, body=body):
                server = recording(self, lambda r, s=status, k=kind, b=body: (s, k, b))
                result = clinic_registry(server.url).call("listPets", {"ownerId": "o-7"})
                self.assert_execution_error(result, ["GET /owners/{ownerId}/pets"] + fragments)

    def test_an_empty_answer_is_none(self):
        server = recording(self, lambda r: (204, "application/json", b""))
        result = clinic_registry(server.url).call("listPets", {"ownerId": "o-7"})
        self.assertEqual((result.ok, result.content), (True, None))

    def test_a_long_error_body_is_cut_to_200_characters(self):
        server = recording(self, lambda r: (500, "text/plain", b"x" * 1000))
        result = clinic_registry(server.url).call("listPets", {"ownerId": "o-7"})
        self.assertIn("x" * 199 + "…", result.message)
        self.assertNotIn("x" * 200, result.message)

    def test_a_connection_refused(self):
        listener = socket.socket()  # bound but not listening: a connection is refused at once
        listener.bind(("127.0.0.1", 0))
        self.addCleanup(listener.close)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        result = clinic_registry(url).call("listPets", {"ownerId": "o-7"})
        self.assert_execution_error(result, ["GET /owners/{ownerId}/pets", "could not reach the service", url])

    def test_a_timeout_is_retryable(self):
        server = recording(self)
        slow = lambda r: (server.release.wait(0.5), clinic_routes(r))[1]  # noqa: E731 - stalls 0.5 s (or until stop)
        server.respond = slow
        result = clinic_registry(server.url, timeout=0.05).call("listPets", {"ownerId": "o-7"})
        self.assert_execution_error(result, ["GET /owners/{ownerId}/pets", "no answer within 0.05 s"], True)

    def test_a_header_value_with_a_line_break_is_refused_and_nothing_is_sent(self):
        server = recording(self)
        result = clinic_registry(server.url).call("listPets", {"ownerId": "o-7",
                                                               "X-Request-Id": "r\r\nX-Injected: 1"})
        self.assert_execution_error(result, ["listPets failed"])
        self.assertEqual(server.requests, [])

    def test_failures_in_the_loop_are_results_not_tracebacks(self):
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        self.addCleanup(listener.close)
        registry = clinic_registry(f"http://127.0.0.1:{listener.getsockname()[1]}")
        lm = tool_core.ScriptedLM([tool_core.call_text("listPets", {"ownerId": "o-7"}), "The clinic is down."])
        transcript = tool_core.run_agent(lm, registry, "Which pets does o-7 have?")
        self.assertEqual((transcript.stop_reason, transcript.final_answer), ("final_answer", "The clinic is down."))
        self.assertEqual([(c.ok, c.error_kind) for c in transcript.calls], [(False, "execution_error")])
        self.assertIn('error="execution_error"', transcript.messages[3]["content"])


# ---------------------------------------------------------------------------------------------
# --- 3. Dialects ---
# ---------------------------------------------------------------------------------------------

WEATHER_SCHEMA = {"type": "object",
                  "properties": {"city": {"type": "string", "description": "the city"},
                                 "days": {"type": "integer", "minimum": 1, "default": 1}},
                  "required": ["city"], "additionalProperties": False}
WEATHER = Tool("get_weather", "Get the forecast for a city.", WEATHER_SCHEMA, lambda **kw: kw, read_only=True)
BOOK = Tool("book_room", "Book a meeting room.", {"type": "object", "properties": {}}, lambda: None)
WEATHER_SPEC = {"name": "get_weather", "description": "Get the forecast for a city.", "parameters": WEATHER_SCHEMA}
WEATHER_JSON = ('{"type": "object", "properties": {"city": {"type": "string", "description": "the city"}, '
                '"days": {"type": "integer", "minimum": 1, "default": 1}}, "required": ["city"], '
                '"additionalProperties": false}')
# strict mode, by hand: days was optional -> required and nullable; its default moves into the description
WEATHER_STRICT = {"type": "object",
                  "properties": {"city": {"type": "string", "description": "the city"},
                                 "days": {"type": ["integer", "null"], "minimum": 1, "description": "(default 1)"}},
                  "required": ["city", "days"], "additionalProperties": False}

CALLS = [ToolCall("get_weather", {"city": "Oslo"}, id="call_1"),
         ToolCall("get_weather", {"city": "Zürich", "days": 3}, id="call_2")]
RESULTS = [ToolResult(True, content={"temp": 3}), ToolResult(False, error_kind="execution_error", message="no station")]


def by_name(name: str):
    return next(d for d in DIALECTS if d.name == name)


class DialectRenderings(unittest.TestCase):
    def test_the_tool_in_each_dialect(self):
        cases = [
            ("OpenAI", {"type": "function", "function": WEATHER_SPEC}),
            ("OpenAI strict", {"type": "function", "function": {
                "name": "get_weather", "description": "Get the forecast for a city.", "parameters": WEATHER_STRICT,
                "strict": True}}),
            ("Anthropic", {"name": "get_weather", "description": "Get the forecast for a city.",
                           "input_schema": WEATHER_SCHEMA}),
            ("MCP", {"name": "get_weather", "title": "Get weather", "description": "Get the forecast for a city.",
                     "inputSchema": WEATHER_SCHEMA, "annotations": {"readOnlyHint": True, "destructiveHint": False}}),
            ("text protocol", '{"name": "get_weather", "description": "Get the forecast for a city.", '
                              f'"parameters": {WEATHER_JSON}}}'),
            ("Qwen3 template", '{"type": "function", "function": {"name": "get_weather", '
                               f'"description": "Get the forecast for a city.", "parameters": {WEATHER_JSON}}}}}'),
        ]
        self.assertEqual([d.name for d in DIALECTS], [name for name, _ in cases])
        for name, expected in cases:
            with self.subTest(dialect=name):
                self.assertEqual(by_name(name).tool(WEATHER), expected)
        self.assertEqual(WEATHER.parameters, WEATHER_SCHEMA)  # strict mode works on a copy

    def test_mcp_annotations_of_a_tool_with_side_effects(self):
        self.assertEqual(MCP().tool(BOOK), {"name": "book_room", "title": "Book room",
                                            "description": "Book a meeting room.",
                                            "inputSchema": {"type": "object", "properties": {}},
                                            "annotations": {"readOnlyHint": False}})

    def test_mcp_lists_an_output_schema_when_the_tool_has_one(self):
        output = {"type": "object", "properties": {"temp": {"type": "number"}}}
        tool = Tool("get_weather", "Get the forecast for a city.", WEATHER_SCHEMA, lambda **kw: kw,
                    read_only=True, output_schema=output)
        self.assertEqual(MCP().tool(tool)["outputSchema"], output)
        self.assertNotIn("outputSchema", MCP().tool(WEATHER))

    def test_read_tool_gives_back_the_spec(self):
        for dialect in DIALECTS:
            with self.subTest(dialect=dialect.name):
                back = dialect.read_tool(dialect.tool(WEATHER))
                if dialect.name == "OpenAI strict":
                    self.assertEqual(back, WEATHER_SPEC | {"parameters": WEATHER_STRICT})
                else:
                    self.assertEqual(back, WEATHER_SPEC)
        self.assertEqual(strict_schema(WEATHER_SCHEMA)[1],
                         ["$.days: optional -> required, null allowed (null = left out)",
                          "$.days: default moved into the description"])

    def test_the_qwen3_system_turn(self):
        # the layout of Qwen3's chat template (tokenizer_config.json), with one tool line; like every turn
        # the template writes, the system turn ends "<|im_end|>" and a newline
        expected = ("<|im_start|>system\nYou are a weather bot.\n\n# Tools\n\n"
                    "You may call one or more functions to assist with the user query.\n\n"
                    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
                    '{"type": "function", "function": {"name": "get_weather", '
                    f'"description": "Get the forecast for a city.", "parameters": {WEATHER_JSON}}}}}\n'
                    "</tools>\n\nFor each function call, return a json object with function name and arguments "
                    "within <tool_call></tool_call> XML tags:\n<tool_call>\n"
                    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n')
        self.assertEqual(Qwen().prompt([WEATHER], system="You are a weather bot."), expected)

    def test_calls_and_results_on_the_wire(self):
        oslo, zurich = '{"city": "Oslo"}', '{"city": "Zürich", "days": 3}'
        cases = [
            ("OpenAI",
             {"role": "assistant", "content": "Checking.", "tool_calls": [
                 {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": oslo}},
                 {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": zurich}}]},
             [{"role": "tool", "tool_call_id": "call_1", "content": '{"temp": 3}'},
              {"role": "tool", "tool_call_id": "call_2", "content": "Error: no station"}]),
            ("Anthropic",
             {"role": "assistant", "content": [
                 {"type": "text", "text": "Checking."},
                 {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Oslo"}},
                 {"type": "tool_use", "id": "call_2", "name": "get_weather", "input": {"city": "Zürich", "days": 3}}]},
             {"role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": "call_1", "content": '{"temp": 3}'},
                 {"type": "tool_result", "tool_use_id": "call_2", "content": "no station", "is_error": True}]}),
            ("MCP",
             [{"jsonrpc": "2.0", "id": "call_1", "method": "tools/call",
               "params": {"name": "get_weather", "arguments": {"city": "Oslo"}}},
              {"jsonrpc": "2.0", "id": "call_2", "method": "tools/call",
               "params": {"name": "get_weather", "arguments": {"city": "Zürich", "days": 3}}}],
             [{"jsonrpc": "2.0", "id": "call_1", "result": {"content": [{"type": "text", "text": '{"temp": 3}'}],
                                                             "isError": False}},
              {"jsonrpc": "2.0", "id": "call_2", "result": {"content": [{"type": "text", "text": "no station"}],
                                                             "isError": True}}]),
            ("text protocol",
             f'Checking.\n<tool_call>{{"name": "get_weather", "arguments": {oslo}}}</tool_call>\n'
             f'<tool_call>{{"name": "get_weather", "arguments": {zurich}}}</tool_call>',
             '<tool_result name="get_weather" id="call_1">{"temp": 3}</tool_result>\n'
             '<tool_result name="get_weather" id="call_2" error="execution_error">no station</tool_result>'),
            ("Qwen3 template",
             f'Checking.\n<tool_call>\n{{"name": "get_weather", "arguments": {oslo}}}\n</tool_call>\n'
             f'<tool_call>\n{{"name": "get_weather", "arguments": {zurich}}}\n</tool_call>',
             '<tool_response>\n{"temp": 3}\n</tool_response>\n<tool_response>\nError: no station\n</tool_response>'),
        ]
        for name, calls, results in cases:
            with self.subTest(dialect=name):
                dialect = by_name(name)
                self.assertEqual(dialect.calls(CALLS, "Checking." if name != "MCP" else ""), calls)
                self.assertEqual(dialect.results(list(zip(CALLS, RESULTS))), results)

    def test_round_trips(self):
        text = "Checking two cities."
        for dialect in DIALECTS:
            with self.subTest(dialect=dialect.name):
                lost = round_trip(dialect, CALLS, RESULTS, text)
                if dialect.name == "MCP":  # a tools/call request has no place for the model's text
                    self.assertEqual(len(lost), 1, lost)
                    self.assertIn(text, lost[0])
                else:
                    self.assertEqual(lost, [])
                self.assertEqual(round_trip(dialect, CALLS, RESULTS), [])
                nested = [ToolCall("search", {"q": "a \"quoted\" <tool_call> ü", "filters": {"tags": ["x", "y"]},
                                              "n": 1.5, "on": True, "none": None}, id="call_1")]
                self.assertEqual(round_trip(dialect, nested, [ToolResult(True, content=[1, {"a": None}])]), [])

    def test_a_success_that_reads_like_an_error_is_lost_where_there_is_no_error_flag(self):
        # OpenAI's tool message and Qwen's <tool_response> carry no error flag: "Error: " is the only sign
        results = [ToolResult(True, content="Error: none found")]
        calls = [ToolCall("get_weather", {"city": "Oslo"}, id="call_1")]
        lossy = {"OpenAI": True, "OpenAI strict": True, "Anthropic": False, "MCP": False, "text protocol": False,
                 "Qwen3 template": True}
        for dialect in DIALECTS:
            with self.subTest(dialect=dialect.name):
                self.assertEqual(bool(round_trip(dialect, calls, results)), lossy[dialect.name])

    def test_call_tool_result(self):
        # MCP: structuredContent only for a tool that declares an outputSchema, and only for an object
        temp = ToolResult(True, content={"temp": 3})
        cases = [(temp, False, {"content": [{"type": "text", "text": '{"temp": 3}'}], "isError": False}),
                 (temp, True, {"content": [{"type": "text", "text": '{"temp": 3}'}], "isError": False,
                               "structuredContent": {"temp": 3}}),
                 (ToolResult(True, content=[1, 2]), True,
                  {"content": [{"type": "text", "text": "[1, 2]"}], "isError": False}),
                 (ToolResult(True, content="sunny"), True,
                  {"content": [{"type": "text", "text": "sunny"}], "isError": False}),
                 (ToolResult(False, error_kind="invalid_arguments", message="bad city"), True,
                  {"content": [{"type": "text", "text": "bad city"}], "isError": True})]
        for result, structured, expected in cases:
            with self.subTest(result=result, structured=structured):
                self.assertEqual(call_tool_result(result, structured=structured), expected)


class StrictMode(unittest.TestCase):
    NESTED = {"type": "object", "properties": {
        "name": {"type": "string"},
        "address": {"type": "object", "properties": {"city": {"type": "string"},
                                                     "zip": {"type": "string", "default": "0000"}},
                    "required": ["city"]},
        "tags": {"type": "array", "items": {"type": "object", "properties": {"label": {"type": "string"}}}}},
        "required": ["name", "address"]}

    def test_a_nested_schema(self):
        expected = {"type": "object", "properties": {
            "name": {"type": "string"},
            "address": {"type": "object", "properties": {
                "city": {"type": "string"},
                "zip": {"type": ["string", "null"], "description": '(default "0000")'}},
                "required": ["city", "zip"], "additionalProperties": False},
            "tags": {"type": ["array", "null"], "items": {"type": "object", "properties": {
                "label": {"type": ["string", "null"]}}, "required": ["label"], "additionalProperties": False}}},
            "required": ["name", "address", "tags"], "additionalProperties": False}
        changes = ["$.address.zip: optional -> required, null allowed (null = left out)",
                   "$.address.zip: default moved into the description",
                   "$.address: additionalProperties set to false",
                   "$.tags: optional -> required, null allowed (null = left out)",
                   "$.tags[].label: optional -> required, null allowed (null = left out)",
                   "$.tags[]: additionalProperties set to false",
                   "$: additionalProperties set to false"]
        before = copy.deepcopy(self.NESTED)
        self.assertEqual(strict_schema(self.NESTED), (expected, changes))
        self.assertEqual(self.NESTED, before)

    def test_an_optional_enum_admits_null_in_the_enum_too(self):
        schema, changes = strict_schema(CARDINAL_SCHEMAS["list_people"])
        self.assertEqual(schema["properties"]["team"],
                         {"type": ["string", "null"], "enum": TEAM_ENUM + [None],
                          "description": "only people of this team"})
        self.assertEqual(schema["properties"]["limit"],
                         {"type": ["integer", "null"], "minimum": 1, "maximum": 50,
                          "description": "the most people to return (default 20)"})
        self.assertEqual(schema["required"], ["team", "limit"])
        self.assertEqual(changes, ["$.team: optional -> required, null allowed (null = left out)",
                                   "$.limit: optional -> required, null allowed (null = left out)",
                                   "$.limit: default moved into the description"])

    def test_objects_inside_any_of_are_made_strict_too(self):
        schema = {"type": "object", "properties": {"owner": {"anyOf": [
            {"type": "object", "properties": {"name": {"type": "string"}}}, {"type": "null"}]}},
            "required": ["owner"]}
        inner = strict_schema(schema)[0]["properties"]["owner"]["anyOf"][0]
        self.assertEqual(inner, {"type": "object", "properties": {"name": {"type": ["string", "null"]}},
                                 "required": ["name"], "additionalProperties": False})

    def test_what_strict_mode_refuses_is_found(self):
        # OpenAI's structured-outputs guide: allOf, not, if/then/else, dependentRequired and dependentSchemas are not
        # supported, and a schema without a type is an error; a free-form nested dict would only ever be {}
        schema = {"type": "object", "properties": {
            "any": {"description": "anything"}, "meta": {"type": "object"}, "both": {"allOf": [{"type": "string"}]},
            "fine": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "pick": {"enum": ["a", "b"]},
            "rows": {"type": "array", "items": {"type": "object", "properties": {"x": {"not": {"type": "null"}}}}}}}
        self.assertEqual(interfaces.strict_blockers(schema), [
            "$.any: a schema with no type", "$.meta: an object with no properties (strict mode would allow only {})",
            "$.both: allOf is not supported in strict mode", "$.both: a schema with no type",
            "$.rows[].x: not is not supported in strict mode", "$.rows[].x: a schema with no type"])
        self.assertEqual(interfaces.strict_blockers({"type": "object", "properties": {}}), [])  # no arguments: fine
        self.assertEqual([interfaces.strict_blockers(s) for s in CARDINAL_SCHEMAS.values()], [[]] * len(CARDINAL_SCHEMAS))

    def test_a_tool_strict_mode_refuses_goes_without_strict(self):
        loose = Tool("log", "Log an event.", {"type": "object", "properties": {"meta": {"type": "object"}}}, lambda **a: a)
        rendered = OpenAI(strict=True).tool(loose)["function"]
        self.assertNotIn("strict", rendered)
        self.assertEqual(rendered["parameters"], loose.parameters)  # unchanged: nothing rewritten for a mode not used
        self.assertTrue(OpenAI(strict=True).tool(WEATHER)["function"]["strict"])

    def test_objects_under_defs_are_made_strict_and_a_ref_becomes_nullable(self):
        schema = {"type": "object", "properties": {"owner": {"$ref": "#/$defs/person"}},
                  "$defs": {"person": {"type": "object", "properties": {"name": {"type": "string"}}}}}
        strict, changes = strict_schema(schema)
        self.assertEqual(strict["properties"]["owner"], {"anyOf": [{"$ref": "#/$defs/person"}, {"type": "null"}]})
        self.assertEqual(strict["$defs"]["person"], {"type": "object", "properties": {"name": {"type": ["string", "null"]}},
                                                     "required": ["name"], "additionalProperties": False})
        self.assertIn("$.$defs.person: additionalProperties set to false", changes)
        self.assertEqual(validate(strict, {"owner": {"name": None}}), [])
        self.assertEqual(validate(strict, {"owner": None}), [])
        self.assertTrue(validate(strict, {"owner": {"name": "A", "age": 3}}))

    def test_odd_but_valid_schemas_do_not_crash_strict_mode(self):
        pets = {"type": "object", "properties": {"pet": {"anyOf": [{"$ref": "#/$defs/cat"}, {"$ref": "#/$defs/dog"}]},
                                                 "flag": True},
                "required": None, "$defs": {"cat": {"type": "object", "properties": {"m": {"type": "string"}}},
                                            "dog": {"type": "object", "properties": {"w": {"type": "string"}}}}}
        strict, _ = strict_schema(pets)
        self.assertEqual(strict["properties"]["pet"]["anyOf"][1], {"type": "null"})
        self.assertEqual(strict["properties"]["flag"], True)
        self.assertEqual(interfaces.strict_blockers(pets), ["$.flag: a schema that is not an object (true)"])
        self.assertEqual(from_strict_arguments(pets, {"pet": None, "flag": None}), {"flag": None})  # true admits null
        self.assertEqual(from_strict_arguments(pets, {"pet": {"m": "meow"}}), {"pet": {"m": "meow"}})

    def test_from_strict_arguments_drops_nulls_only_where_null_is_not_accepted(self):
        schema = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
                                                   "note": {"type": ["string", "null"]}, "any": {}}}
        cases = [({"city": "Oslo", "days": None}, {"city": "Oslo"}),
                 ({"city": "Oslo", "days": 3}, {"city": "Oslo", "days": 3}),
                 ({"city": None, "days": None}, {}),
                 ({"note": None}, {"note": None}),  # null is a real value for note
                 ({"any": None}, {"any": None}),
                 ({"extra": None}, {"extra": None})]  # not in the schema: left for validation to report
        for arguments, expected in cases:
            with self.subTest(arguments=arguments):
                self.assertEqual(from_strict_arguments(schema, arguments), expected)

    def test_from_strict_arguments_undoes_strict_mode_for_a_flat_tool(self):
        strict_call = {"city": "Oslo", "days": None}  # what a strict model writes for "days left out"
        self.assertEqual(validate(WEATHER_STRICT, strict_call), [])
        self.assertEqual(from_strict_arguments(WEATHER_SCHEMA, strict_call), {"city": "Oslo"})
        self.assertEqual(validate(WEATHER_SCHEMA, {"city": "Oslo"}), [])

    def test_from_strict_arguments_undoes_strict_mode_in_nested_objects(self):
        strict_call = {"name": "A", "address": {"city": "Oslo", "zip": None}, "tags": [{"label": None}]}
        self.assertEqual(validate(strict_schema(self.NESTED)[0], strict_call), [])
        self.assertEqual(from_strict_arguments(self.NESTED, strict_call),
                         {"name": "A", "address": {"city": "Oslo"}, "tags": [{}]})


class ReadingCallsAndResults(unittest.TestCase):
    def test_openai_malformed_arguments_become_parse_errors(self):
        def entry(i: int, arguments):
            return {"id": f"c{i}", "type": "function", "function": {"name": "get_weather", "arguments": arguments}}
        turn = {"role": "assistant", "content": None, "tool_calls": [
            entry(1, '{"city": "Oslo"'), entry(2, "[1, 2]"), entry(3, ""), entry(4, '{"city": "a", "city": "b"}'),
            entry(5, '{"days": NaN}'), entry(6, '{"city": "Oslo"}'), entry(7, "{'city': 'Oslo'}"), entry(8, None)]}
        text, items = OpenAI().read_calls(turn)
        self.assertEqual(text, "")
        expected = [("c1", "invalid_json"), ("c2", "bad_arguments"), ("c3", {}), ("c4", "invalid_json"),
                    ("c5", "invalid_json"), ("c6", {"city": "Oslo"}), ("c7", "invalid_json"), ("c8", "bad_arguments")]
        self.assertEqual(len(items), len(expected))
        for item, (call_id, outcome) in zip(items, expected):
            with self.subTest(id=call_id):
                self.assertEqual(item.id, call_id)
                if isinstance(outcome, str):
                    self.assertIsInstance(item, ParseError)
                    self.assertEqual(item.kind, outcome)
                    self.assertIn("get_weather", item.message)
                else:
                    self.assertIsInstance(item, ToolCall)
                    self.assertEqual((item.name, item.arguments), ("get_weather", outcome))

    def test_a_bad_name_is_bad_name_in_every_dialect(self):
        # the text protocol's parser calls a call whose "name" is not a non-empty string bad_name; so does every reader
        turns = {
            "OpenAI": lambda name: {"role": "assistant", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": name, "arguments": "{}"}}]},
            "Anthropic": lambda name: {"role": "assistant", "content": [
                {"type": "tool_use", "id": "c1", "name": name, "input": {}}]},
            "MCP": lambda name: [{"jsonrpc": "2.0", "id": "c1", "method": "tools/call",
                                  "params": {"name": name, "arguments": {}}}],
            "text protocol": lambda name: f'<tool_call>{{"name": {json.dumps(name)}, "arguments": {{}}}}</tool_call>',
            "Qwen3 template": lambda name: f'<tool_call>\n{{"name": {json.dumps(name)}, "arguments": {{}}}}\n</tool_call>',
        }
        for name in (5, "", "   ", [1], None, {"tool": "f"}, True):
            for dialect in (OpenAI(), Anthropic(), MCP(), TextProtocol(), Qwen()):
                with self.subTest(dialect=dialect.name, name=name):
                    _, (item,) = dialect.read_calls(turns[dialect.name](name))
                    self.assertIsInstance(item, ParseError)
                    self.assertEqual(item.kind, "bad_name")
                    if dialect.name in ("OpenAI", "Anthropic", "MCP"):
                        self.assertEqual(item.id, "c1")  # its result can still name it

    def test_an_id_that_is_not_a_string_is_bad_name(self):
        for call_id in (5, None, ["c1"], 1.5, {"id": "c1"}):
            turns = [(OpenAI(), {"role": "assistant", "tool_calls": [
                         {"id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]}),
                     (Anthropic(), {"role": "assistant", "content": [
                         {"type": "tool_use", "id": call_id, "name": "get_weather", "input": {}}]})]
            for dialect, turn in turns:
                with self.subTest(dialect=dialect.name, id=call_id):
                    _, (item,) = dialect.read_calls(turn)
                    self.assertIsInstance(item, ParseError)
                    self.assertEqual((item.kind, item.id), ("bad_name", ""))
                    self.assertIn("id", item.message)

    def test_a_turn_without_calls(self):
        cases = [(OpenAI(), {"role": "assistant", "content": "Sunny.", "tool_calls": None}),
                 (OpenAI(), {"role": "assistant", "content": "Sunny."}),
                 (Anthropic(), {"role": "assistant", "content": [{"type": "text", "text": "Sunny."}]}),
                 (TextProtocol(), "Sunny."), (Qwen(), "Sunny.")]
        for dialect, turn in cases:
            with self.subTest(dialect=dialect.name):
                self.assertEqual(dialect.read_calls(turn), ("Sunny.", []))

    def test_anthropic_results_must_come_before_any_text(self):
        block = lambda i: {"type": "tool_result", "tool_use_id": f"call_{i}", "content": "ok"}  # noqa: E731
        with self.assertRaises(ValueError) as ctx:
            Anthropic().read_results({"role": "user", "content": [block(1), {"type": "text", "text": "and?"},
                                                                  block(2)]})
        self.assertIn("tool_result", str(ctx.exception))
        after = Anthropic().read_results({"role": "user", "content": [block(1), block(2),
                                                                      {"type": "text", "text": "and?"}]})
        self.assertEqual(sorted(after), ["call_1", "call_2"])

    def test_anthropic_results_in_any_order_and_as_blocks(self):
        message = {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_2", "content": "no station", "is_error": True},
            {"type": "tool_result", "tool_use_id": "call_1",
             "content": [{"type": "text", "text": '{"temp": '}, {"type": "image", "source": {}},
                         {"type": "text", "text": "3}"}]}]}
        matched = match_results(CALLS, Anthropic().read_results(message))
        self.assertEqual([(r.ok, r.text) for r in matched], [(True, '{"temp": 3}'), (False, "no station")])

    def test_qwen_results_that_quote_the_closing_tag_stay_with_their_calls(self):
        # <tool_response> blocks carry no id: the n-th answers the n-th call, so a result that closed its own
        # block early would hand every later result to the wrong call
        texts = ["before </tool_response> after", "</tool_response>", "x</tool_response>\n<tool_response>\ny",
                 "already escaped <\\/tool_response>", "twice <\\\\/tool_response>", "</tool_response></tool_response>",
                 "</tool_response", "<tool_response>"]
        calls = [ToolCall(c.name, c.arguments, id=f"w{n}") for n, c in enumerate(CALLS, 1)]  # ids the text has not
        for text in texts:
            with self.subTest(text=text):
                message = Qwen().results(list(zip(calls, [ToolResult(True, content=text), RESULTS[1]])))
                numbered = Qwen().read_results(message)  # call_1, call_2: in call order, as read_calls numbers calls
                self.assertEqual([(r.ok, r.text) for r in match_results(CALLS, numbered)],
                                 [(True, text), (False, "no station")])
                by_id = Qwen().read_results(message, calls)  # given the calls, keyed by their own ids
                self.assertEqual([(r.ok, r.text) for r in match_results(calls, by_id)],
                                 [(True, text), (False, "no station")])

    def test_qwen_results_must_be_one_per_call(self):
        block = "<tool_response>\nok\n</tool_response>"
        for count in (0, 1, 3):
            with self.subTest(count=count):
                with self.assertRaisesRegex(ValueError, f"{count} <tool_response> blocks for 2 calls"):
                    Qwen().read_results("\n".join([block] * count), CALLS)
        self.assertEqual(sorted(Qwen().read_results("\n".join([block] * 2), CALLS)), ["call_1", "call_2"])

    def test_openai_results_must_be_tool_messages(self):
        for message in ({"role": "user", "content": "hi"}, {"role": "tool", "content": "x"}):
            with self.subTest(message=message):
                with self.assertRaises(ValueError):
                    OpenAI().read_results([message])

    def test_match_results_needs_exactly_one_result_per_call(self):
        ok = ToolResult(True, content="ok")
        self.assertEqual(match_results(CALLS, {"call_2": RESULTS[1], "call_1": ok}), [ok, RESULTS[1]])
        cases = [({"call_1": ok}, "call_2"), ({"call_1": ok, "call_2": ok, "call_9": ok}, "call_9"),
                 ({}, "call_1"), ({"call_1": ok, "x": ok}, "'x'")]
        for results, fragment in cases:
            with self.subTest(results=sorted(results)):
                with self.assertRaises(ValueError) as ctx:
                    match_results(CALLS, results)
                self.assertIn(fragment, str(ctx.exception))


# ---------------------------------------------------------------------------------------------
# --- 4. The demos ---
# ---------------------------------------------------------------------------------------------

class PlausibleMessages(unittest.TestCase):
    """Messages the vendors' formats allow, and broken ones: read, or refused with a ValueError, never a crash."""

    def test_shapes_the_formats_allow(self):
        parts = [{"type": "text", "text": "4"}, {"type": "text", "text": "2"}]
        self.assertEqual(OpenAI().read_results([{"role": "tool", "tool_call_id": "c1", "content": parts}])["c1"].content, "42")
        self.assertEqual(OpenAI().read_results([{"role": "tool", "tool_call_id": "c1", "content": None}])["c1"].content, "")
        self.assertEqual(Anthropic().read_results({"role": "user", "content": "thanks"}), {})  # a string is legal content
        self.assertEqual(Anthropic().read_calls({"role": "assistant", "content": "just text"}), ("just text", []))
        text, (item,) = OpenAI().read_calls({"tool_calls": [{"id": "c1", "function": None}]})
        self.assertEqual((type(item), item.id), (ParseError, "c1"))  # a malformed call, kept with its id

    def test_what_breaks_a_format_is_a_value_error(self):
        cases = [(Anthropic(), {"role": "user", "content": [{"type": "tool_result", "content": "x"}]}, "tool_use_id"),
                 (MCP(), [{"jsonrpc": "2.0", "result": {"content": []}}], "the id of their tools/call"),
                 (TextProtocol(), '<tool_result name="f">5</tool_result>', "needs the id of its call")]
        for dialect, message, said in cases:
            with self.subTest(dialect=dialect.name):
                with self.assertRaisesRegex(ValueError, said):
                    dialect.read_results(message)


class McpProtocolErrors(unittest.TestCase):
    def test_a_json_rpc_error_is_a_failed_result(self):
        results = MCP().read_results([{"jsonrpc": "2.0", "id": "c1", "error": {"code": -32602, "message": "Unknown tool: x"}},
                                      {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "5"}],
                                                                              "isError": False}}])
        self.assertEqual((results["c1"].ok, results["c1"].message), (False, "JSON-RPC error -32602: Unknown tool: x"))
        self.assertEqual((results["2"].ok, results["2"].content), (True, "5"))


class Demos(unittest.TestCase):
    def assert_no_server_left(self):
        self.assertFalse([t for t in threading.enumerate() if t.name == "cardinal-http" and t.is_alive()])

    def test_demo_1_counts_everyone_instead_of_the_team(self):
        out = interfaces.demo_rest()
        everyone, firmware = len(interfaces.PEOPLE), len(FIRMWARE)  # 5 and 2
        self.assertIn(f"-> HTTP 200, {everyone} people: " + ", ".join(p["name"] for p in interfaces.PEOPLE), out)
        self.assertIn(f"model's answer: 'The firmware team has {everyone} people.'", out)
        self.assertIn(f"truth: {firmware} (Ada Quist, Bo Lindqvist)", out)
        self.assert_no_server_left()

    def test_demo_2_sends_exactly_one_request(self):
        out = interfaces.demo_function_schema()
        self.assertEqual(re.findall(r"received during the exchange: (\d+) \(([^)]*)\)", out),
                         [("1", "GET /people?team=firmware")])
        self.assertIn("made 3 tools: list_people, list_teams, make_digest", out)
        self.assertIn("The firmware team has 2 people: Ada Quist and Bo Lindqvist.", out)
        self.assert_no_server_left()

    def test_demo_2_step_by_step_the_token_reaches_no_message(self):
        server = cardinal(self)
        spec = interfaces.fetch_openapi(server.url)
        registry = ToolRegistry(openapi_to_tools(spec, server.url, credentials={"ApiKeyAuth": TOKEN}))
        before = len(server.api.requests)
        lm = tool_core.ScriptedLM(interfaces.firmware_model)  # demo 2's scripted model, driven step by step here
        transcript = tool_core.run_agent(lm, registry, "How many people are on the firmware team?")
        self.assertEqual(transcript.final_answer, "The firmware team has 2 people: Ada Quist and Bo Lindqvist.")
        self.assertEqual([(c.ok, c.error_kind) for c in transcript.calls],
                         [(False, "invalid_arguments"), (True, None)])
        self.assertEqual(server.api.requests[before:], [("GET", "/people?team=firmware")])
        seen = json.dumps(transcript.messages) + json.dumps(lm.prompts)
        self.assertNotIn(TOKEN, seen)
        self.assertIn("department", seen)

    def test_demo_dialects(self):
        out = interfaces.demo_dialects()
        for line in ("$.team: optional -> required, null allowed (null = left out)",
                     "$.limit: default moved into the description",
                     "sent in the order call_2, call_1, call_3, matched back by id to ok, ok, is_error"):
            self.assertIn(line, out)
        self.assertEqual(len(re.findall(r"^(OpenAI|OpenAI strict|Anthropic|text protocol|Qwen3 template) +lossless$",
                                        out, re.M)), 5)
        self.assertRegex(out, r"(?m)^MCP +the model's text \"Checking three teams\.\" has no place here$")


if __name__ == "__main__":
    unittest.main()
