"""interfaces: three generations of tool interfaces, made real: REST, function schemas, and (part 2) MCP.

What it implements (lecture 001 sections 5.1-5.3, handout code 04; lesson 002's dialects and
round trip; slides 003, "REST APIs" and "What the model actually sees"):
  1. The Cardinal REST API: a small company directory (people, teams, digests) served over
     real HTTP by `http.server.ThreadingHTTPServer` on 127.0.0.1, with an OpenAPI 3.1
     document at /openapi.json and an API key (`X-API-Key`) required on every operation.
     Like many real APIs it is tolerant: an unknown query parameter is silently ignored.
  2. `openapi_to_tools(spec, base_url, credentials=...)`: one tool_core `Tool` per operation,
     whose JSON Schema merges the path, query, header and JSON-body parameters with
     `additionalProperties: false`, so a wrong parameter name is refused before any request
     is sent. The tool's function performs the HTTP request with urllib; the credential comes
     from the caller and never appears in anything the model sees (the toy version of
     FastMCP.from_openapi).
  3. Dialects: one `Tool` rendered for every reader (OpenAI Chat Completions, strict mode
     included; Anthropic Messages; an MCP tools/list entry; tool_core's text protocol; the
     Qwen3/Hermes chat template), and calls and results converted both ways, parallel calls
     included.
  4. The demos behind scripts/04_interfaces.py.

Specifications followed: OpenAPI 3.1.0 (https://spec.openapis.org/oas/v3.1.0) and 3.0.3 for
reading; the vendors' tool-use documentation for the dialects; the MCP specification
(revision 2025-06-18) for the tools/list entry and the tools/call result.

What it leaves out: remote and recursive `$ref`s, cookie parameters, non-JSON request bodies
(forms, multipart), `deepObject` and other non-default parameter styles (arrays in a query
repeat the key; objects in a query are sent as JSON text), OAuth flows (a bearer token or an
API key is supplied as is), response schemas (the tool returns the parsed JSON), streaming.
"""
from __future__ import annotations

import copy
import json
import re
import secrets
import threading
import typing
from dataclasses import dataclass, field
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import tool_core
from tool_core import (JSON, ParseError, Tool, ToolCall, ToolExecutionError, ToolRegistry, ToolResult,
                       count_tokens, format_table, show)

# ---------------------------------------------------------------------------------------------
# --- 1. The Cardinal REST API: data and routes, then the HTTP server ---
# ---------------------------------------------------------------------------------------------

PEOPLE = [
    {"id": "P-101", "name": "Ada Quist", "team": "firmware", "role": "lead engineer"},
    {"id": "P-102", "name": "Bo Lindqvist", "team": "firmware", "role": "engineer"},
    {"id": "P-103", "name": "Cyra Mendez", "team": "platform", "role": "engineer"},
    {"id": "P-104", "name": "Dev Okoro", "team": "platform", "role": "site reliability engineer"},
    {"id": "P-105", "name": "Elin Park", "team": "design", "role": "product designer"},
]
TEAMS = [
    {"name": "firmware", "description": "code that runs on the meters and relays"},
    {"name": "platform", "description": "servers, databases and the deploy pipeline"},
    {"name": "design", "description": "the apps' screens and flows"},
]
API_KEY_HEADER = "X-API-Key"
MAX_LIMIT = 50

# What the first generation gives the model: documentation written for people.
CARDINAL_DOCS = """Cardinal directory API (base URL given below). Send your key in the X-API-Key header.
  GET  /people   lists people. Filter by team with ?team=..., at most ?limit=... (default 20).
  GET  /teams    lists the teams.
  POST /digests  writes a weekly digest for a team: JSON body {"team": ..., "days": ...}."""


def _error(status: int, message: str) -> tuple[int, dict]:
    return status, {"error": message}


class CardinalAPI:
    """The Cardinal backend without HTTP: its data, its OpenAPI document and a handler per route.

    `handle` answers one request as (status, JSON payload); the HTTP server only moves bytes.
    Every request that reaches `handle` is logged in `requests`, so a demo can count them.
    """

    def __init__(self, token: str | None = None):
        self.token = token if token is not None else secrets.token_urlsafe(18)  # the backend credential
        self.people = copy.deepcopy(PEOPLE)
        self.teams = copy.deepcopy(TEAMS)
        self.digests: list[dict] = []
        self.requests: list[tuple[str, str]] = []  # (method, path with query) as received
        self.lock = threading.Lock()
        self.routes: dict[tuple[str, str], typing.Callable[[dict, JSON], tuple[int, JSON]]] = {
            ("GET", "/people"): self.list_people, ("GET", "/teams"): self.list_teams,
            ("POST", "/digests"): self.make_digest}
        self.spec = cardinal_openapi()

    def add_health_route(self) -> None:
        """Add GET /health to the routes and to the OpenAPI document (regenerated tools then show it)."""
        self.routes[("GET", "/health")] = lambda query, body: (200, {"status": "ok", "people": len(self.people)})
        self.spec["paths"]["/health"] = {"get": {
            "operationId": "get_health", "summary": "Check that the directory service is up.",
            "responses": {"200": {"description": "The service status.",
                                  "content": {"application/json": {"schema": {"type": "object"}}}}}}}

    def handle(self, method: str, target: str, headers: typing.Mapping[str, str], body: bytes) -> tuple[int, JSON]:
        """Answer one request: route, check the key, parse the query or body, run the handler."""
        with self.lock:
            self.requests.append((method, target))
        url = urlsplit(target)
        if method == "GET" and url.path == "/openapi.json":
            return 200, self.spec  # the contract is public; the operations need the key
        handler = self.routes.get((method, url.path))
        if handler is None:
            known = sorted(f"{m} {p}" for m, p in self.routes)
            return _error(404, f"no route {method} {url.path}; routes: {', '.join(known)}")
        if not secrets.compare_digest(headers.get(API_KEY_HEADER) or "", self.token):
            return _error(401, f"missing or wrong {API_KEY_HEADER} header")
        query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        payload = None
        if method == "POST":
            try:
                payload = json.loads(body.decode("utf-8") or "null")
            except (UnicodeDecodeError, ValueError) as exc:
                return _error(400, f"the body must be JSON: {exc}")
        return handler(query, payload)

    def list_people(self, query: dict, body: JSON) -> tuple[int, JSON]:
        """GET /people?team=&limit=: unknown parameters are ignored, as many real APIs do."""
        limit = query.get("limit", "20")
        if not re.fullmatch(r"[0-9]+", limit) or not 1 <= int(limit) <= MAX_LIMIT:
            return _error(400, f"limit must be a whole number from 1 to {MAX_LIMIT}, got {limit!r}")
        team = query.get("team")
        found = [p for p in self.people if team is None or p["team"] == team]
        return 200, found[: int(limit)]

    def list_teams(self, query: dict, body: JSON) -> tuple[int, JSON]:
        """GET /teams: every team with how many people it has."""
        return 200, [t | {"size": sum(p["team"] == t["name"] for p in self.people)} for t in self.teams]

    def make_digest(self, query: dict, body: JSON) -> tuple[int, JSON]:
        """POST /digests {"team", "days"}: write a digest (a side effect: it is stored)."""
        if not isinstance(body, dict) or body.get("team") not in {t["name"] for t in self.teams}:
            return _error(422, f"team must be one of {[t['name'] for t in self.teams]}, got {show(body)}")
        days = body.get("days", 7)
        if not isinstance(days, int) or isinstance(days, bool) or not 1 <= days <= 30:
            return _error(422, f"days must be a whole number from 1 to 30, got {show(days)}")
        members = [p["name"] for p in self.people if p["team"] == body["team"]]
        with self.lock:
            digest = {"id": f"DG-{len(self.digests) + 1}", "team": body["team"], "days": days,
                      "text": f"{len(members)} {'person' if len(members) == 1 else 'people'} in {body['team']} "
                              f"over {days} days: {', '.join(members)}."}
            self.digests.append(digest)
        return 201, digest


def cardinal_openapi() -> dict:
    """Return the Cardinal API's OpenAPI 3.1 document (what /openapi.json serves)."""
    person = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"},
                                               "team": {"$ref": "#/components/schemas/Team"},
                                               "role": {"type": "string"}}}
    ok = lambda text, schema: {"description": text, "content": {"application/json": {"schema": schema}}}  # noqa: E731
    return {
        "openapi": "3.1.0",
        "info": {"title": "Cardinal directory", "version": "1.0.0"},
        "security": [{"ApiKeyAuth": []}],
        "paths": {
            "/people": {"get": {
                "operationId": "list_people", "summary": "List the people in the company directory.",
                "description": "Returns id, name, team and role of each person, optionally of one team only.",
                "parameters": [
                    {"name": "team", "in": "query", "description": "only people of this team",
                     "schema": {"$ref": "#/components/schemas/Team"}},
                    {"name": "limit", "in": "query", "description": "the most people to return",
                     "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 20}}],
                "responses": {"200": ok("The people found.", {"type": "array", "items": person})}}},
            "/teams": {"get": {
                "operationId": "list_teams", "summary": "List the teams with their size.",
                "responses": {"200": ok("Every team.", {"type": "array", "items": {"type": "object"}})}}},
            "/digests": {"post": {
                "operationId": "make_digest", "summary": "Write a digest of a team's people and store it.",
                "description": "This creates a record: call it only when the user asks for a digest.",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["team"], "properties": {
                        "team": {"$ref": "#/components/schemas/Team"},
                        "days": {"type": "integer", "minimum": 1, "maximum": 30, "default": 7,
                                 "description": "how many days the digest covers"}}}}}},
                "responses": {"201": ok("The digest written.", {"type": "object"})}}},
        },
        "components": {
            "schemas": {"Team": {"type": "string", "enum": [t["name"] for t in TEAMS],
                                 "description": "a team name"}},
            "securitySchemes": {"ApiKeyAuth": {"type": "apiKey", "in": "header", "name": API_KEY_HEADER}},
        },
    }


class CardinalServer:
    """The Cardinal API on real HTTP: 127.0.0.1, an ephemeral port, a thread; stopped by whoever started it.

    Use it as a context manager (`with CardinalServer() as server: server.url`), or call
    start() and stop() yourself in a notebook.
    """

    def __init__(self, api: CardinalAPI | None = None):
        self.api = api or CardinalAPI()
        self._httpd = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Return the base URL, e.g. 'http://127.0.0.1:54321'."""
        if self._httpd is None:
            raise RuntimeError("the server is not running: call start() or use it in a with block")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> "CardinalServer":
        """Bind 127.0.0.1 on a free port and serve in a daemon thread; return self."""
        from http.server import ThreadingHTTPServer  # imported here: importing the module starts nothing
        if self._httpd is None:
            self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self.api))
            self._httpd.daemon_threads = True
            self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                            name="cardinal-http", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port (safe to call twice)."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join(timeout=2)
            self._httpd = self._thread = None

    def __enter__(self) -> "CardinalServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _handler_for(api: CardinalAPI):
    """Build the request handler class that hands each request to api.handle and writes the JSON back."""
    from http.server import BaseHTTPRequestHandler

    class Handler(BaseHTTPRequestHandler):
        server_version = "Cardinal/1.0"
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            try:
                status, payload = api.handle(self.command, self.path, self.headers, body)
            except Exception as exc:  # a bug in a handler is a 500 for the client, not a dead thread
                status, payload = _error(500, f"internal error: {type(exc).__name__}")
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

        def log_message(self, *args) -> None:  # keep the demos' output clean
            pass

    return Handler


# ---------------------------------------------------------------------------------------------
# --- 2. openapi_to_tools: one operation -> one Tool, checked before any request is sent ---
# ---------------------------------------------------------------------------------------------

HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
OPENAPI_ONLY = ("example", "xml", "discriminator", "externalDocs", "deprecated", "readOnly", "writeOnly", "nullable")
MAX_BODY_SHOWN = 200


@dataclass
class _Param:
    """One model-visible parameter of an operation and where its value goes in the request."""

    name: str
    where: str  # path | query | header | body
    schema: dict
    required: bool


@dataclass
class Operation:
    """What the converter read from one OpenAPI operation."""

    name: str
    method: str
    path: str
    description: str
    params: list[_Param] = field(default_factory=list)
    body_is_object: bool = True  # False: the whole body is one parameter named "body"
    security: list[dict] = field(default_factory=list)
    text_response: bool = False  # the 2xx response is declared as text/*


def openapi_to_tools(spec: dict, base_url: str, *, credentials: dict[str, str] | None = None,
                     timeout: float = 5.0) -> list[Tool]:
    """Turn every operation of an OpenAPI 3.0/3.1 document into a Tool that performs the request.

    name: operationId (else method and path, e.g. get_people_by_id); description: summary and
    description; parameters: one property per path, query, header and JSON-body field, with
    required, enum, default and descriptions, local $refs resolved, additionalProperties false.
    credentials maps a security scheme's name (components.securitySchemes) to its secret: an
    apiKey is sent in its header or query parameter, an http bearer/basic scheme as
    Authorization. Security schemes never become parameters, so the model never sees or
    writes a credential. A broken document raises ValueError here; a failed request becomes
    an execution_error result at call time (ToolExecutionError with the HTTP status).
    """
    _check_document(spec)
    resolver = _Resolver(spec)
    schemes = resolver.deref(spec.get("components", {}).get("securitySchemes", {}), "components.securitySchemes")
    operations = [_read_operation(resolver, spec, path, method, op, schemes)
                  for path, item in spec["paths"].items()
                  for method, op in resolver.deref(item, f"paths.{path}").items() if method in HTTP_METHODS]
    names = [op.name for op in operations]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"two operations would both be the tool {twice}: give them distinct operationIds")
    auth = _Auth(schemes, credentials or {})
    return [_tool_for(op, base_url.rstrip("/"), auth, timeout) for op in operations]


def _check_document(spec: JSON) -> None:
    version = spec.get("openapi") if isinstance(spec, dict) else None
    if not isinstance(version, str) or not re.match(r"3\.[01]\.", version + "."):
        found = (f"'swagger': {show(spec.get('swagger'))}" if isinstance(spec, dict) and "swagger" in spec
                 else f"'openapi': {show(version)}" if isinstance(spec, dict) else describe_type(spec))
        raise ValueError(f"not an OpenAPI 3.0 or 3.1 document (found {found}); convert Swagger 2.0 documents "
                         "to OpenAPI 3 first")
    if not isinstance(spec.get("paths"), dict):
        raise ValueError("the OpenAPI document has no 'paths' object, so it describes no operation")


def describe_type(value: JSON) -> str:
    """Name what a value is, for messages. Example: [] -> 'an array'"""
    return {"array": "an array", "object": "an object", "null": "null"}.get(tool_core.json_type(value),
                                                                           f"a {tool_core.json_type(value)}")


class _Resolver:
    """Resolve local $refs (#/components/...) by inlining them; a loop or a dangling ref is a ValueError."""

    def __init__(self, spec: dict):
        self.spec = spec

    def deref(self, node: JSON, where: str, seen: tuple[str, ...] = ()) -> JSON:
        """Return node with every $ref inside it replaced by a copy of its target."""
        if isinstance(node, list):
            return [self.deref(x, where, seen) for x in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            ref = node["$ref"]
            if not isinstance(ref, str) or not ref.startswith("#/"):
                raise ValueError(f"{where}: $ref {show(ref)} is not a local reference ('#/components/...'); "
                                 "remote references are not supported")
            if ref in seen:
                raise ValueError(f"{where}: $ref loop {' -> '.join(seen + (ref,))}; recursive schemas are not supported")
            target = self._pointer(ref, where)
            siblings = {k: v for k, v in node.items() if k != "$ref"}  # 3.1 allows description next to $ref
            return self.deref(target, where, seen + (ref,)) | self.deref(siblings, where, seen)
        return {k: self.deref(v, where, seen) for k, v in node.items()}

    def _pointer(self, ref: str, where: str) -> JSON:
        node: JSON = self.spec
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                raise ValueError(f"{where}: $ref {ref!r} points nowhere: there is no {part!r} in the document")
            node = node[part]
        return node


def _json_schema(schema: JSON, where: str) -> dict:
    """Translate an OpenAPI schema object into plain JSON Schema: 3.0's nullable and boolean exclusive bounds,
    OpenAPI-only keywords dropped, readOnly properties left out of what a request may send.

    Example: {"type": "integer", "nullable": true, "example": 3} -> {"type": ["integer", "null"]}
    """
    if isinstance(schema, bool):
        return {} if schema else {"not": {}}
    if not isinstance(schema, dict):
        raise ValueError(f"{where}: a schema must be an object, got {show(schema)}")
    out = {k: v for k, v in schema.items() if k not in OPENAPI_ONLY}
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if out.get(exclusive) is True:  # 3.0: "exclusiveMinimum": true qualifies "minimum"
            out[exclusive] = out.pop(bound)
        elif out.get(exclusive) is False:
            del out[exclusive]
    if schema.get("nullable") is True:
        out = tool_core.nullable(out)
    if isinstance(out.get("properties"), dict):
        writable = {k: v for k, v in out["properties"].items() if not (isinstance(v, dict) and v.get("readOnly"))}
        out["properties"] = {k: _json_schema(v, f"{where}.{k}") for k, v in writable.items()}
        if "required" in out:
            out["required"] = [r for r in out["required"] if r in writable]
    for key in ("items", "additionalProperties", "not"):
        if isinstance(out.get(key), dict):
            out[key] = _json_schema(out[key], f"{where}.{key}")
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        if isinstance(out.get(key), list):
            out[key] = [_json_schema(s, f"{where}.{key}[{i}]") for i, s in enumerate(out[key])]
    return out


def _tool_name(op: dict, method: str, path: str) -> str:
    """Name a tool after operationId, else method and path. Example: ('get', '/people/{id}') -> 'get_people_by_id'"""
    raw = op.get("operationId") or f"{method}_" + re.sub(r"\{(\w+)\}", r"by_\1", path)
    name = re.sub(r"[^A-Za-z0-9_-]+", "_", raw).strip("_")[:64]  # what the vendors accept: ^[A-Za-z0-9_-]{1,64}$
    return name or method


def _read_operation(resolver: _Resolver, spec: dict, path: str, method: str, op: JSON, schemes: dict) -> Operation:
    """Read one operation: its name, description, parameters (path-level ones merged in) and body."""
    if not isinstance(op, dict):
        raise ValueError(f"{method.upper()} {path}: an operation must be an object, got {show(op)}")
    name = _tool_name(op, method, path)
    where = f"{method.upper()} {path} ({name})"
    description = "\n\n".join(p for p in (op.get("summary"), op.get("description")) if p) or f"{method.upper()} {path}"
    secret_inputs = {(s.get("in"), s.get("name")) for s in schemes.values() if s.get("type") == "apiKey"}
    merged: dict[tuple[str, str], dict] = {}
    path_item = resolver.deref(spec["paths"][path], where)
    for raw in list(path_item.get("parameters", [])) + list(op.get("parameters", [])):
        param = resolver.deref(raw, where)
        if not isinstance(param, dict) or not isinstance(param.get("name"), str) or param.get("in") not in (
                "path", "query", "header", "cookie"):
            raise ValueError(f"{where}: a parameter needs a string 'name' and 'in' (path, query or header), got {show(param)}")
        merged[(param["in"], param["name"])] = param  # an operation's parameter overrides the path item's
    params = []
    for (place, pname), param in merged.items():
        if (place, pname) in secret_inputs:
            continue  # a credential, declared twice: the caller supplies it, the model never sees it
        if place == "cookie":
            raise ValueError(f"{where}: cookie parameter {pname!r} is not supported")
        schema = _json_schema(param.get("schema", {}), f"{where} parameter {pname}")
        if param.get("description") and "description" not in schema:
            schema["description"] = param["description"]
        params.append(_Param(pname, place, schema, place == "path" or bool(param.get("required"))))
    result = Operation(name, method.upper(), path, description, params,
                       security=op.get("security", spec.get("security", [])),
                       text_response=_declares_text(resolver.deref(op.get("responses", {}), where)))
    _read_body(resolver, op, result, where)
    clash = sorted({p.name for p in result.params if [q.name for q in result.params].count(p.name) > 1})
    if clash:
        raise ValueError(f"{where}: the parameter name(s) {clash} appear in two places (path, query, header or "
                         "body); a tool's arguments are one flat object, so rename one of them")
    missing = set(re.findall(r"\{([^}]+)\}", path)) - {p.name for p in result.params if p.where == "path"}
    if missing:
        raise ValueError(f"{where}: the path has {sorted(missing)} but no path parameter declares it")
    return result


def _read_body(resolver: _Resolver, op: dict, result: Operation, where: str) -> None:
    """Merge a JSON request body's fields into the parameters (or make the whole body one parameter)."""
    body = resolver.deref(op.get("requestBody"), where)
    if not body:
        return
    content = body.get("content", {}) if isinstance(body, dict) else {}
    kind = next((k for k in content if k.split(";")[0].strip() in ("application/json", "*/*")
                 or k.endswith("+json")), None)
    if kind is None:
        raise ValueError(f"{where}: request bodies of type {sorted(content)} are not supported; only JSON bodies are")
    schema = _json_schema(content[kind].get("schema", {}), f"{where} body")
    if schema.get("type") == "object" or "properties" in schema:
        required = set(schema.get("required", []))
        for pname, sub in schema.get("properties", {}).items():
            result.params.append(_Param(pname, "body", sub, pname in required and bool(body.get("required", True))))
    else:
        result.body_is_object = False
        result.params.append(_Param("body", "body", schema, bool(body.get("required"))))


def _declares_text(responses: JSON) -> bool:
    """Say whether the operation's 2xx responses are declared as text/* only."""
    kinds = [k for code, r in (responses or {}).items() if str(code).startswith("2") and isinstance(r, dict)
             for k in r.get("content", {})]
    return bool(kinds) and all(k.startswith("text/") for k in kinds)


class _Auth:
    """Attach the caller's credentials to a request, per security scheme; redact them from any message."""

    def __init__(self, schemes: dict, credentials: dict[str, str]):
        unknown = sorted(set(credentials) - set(schemes))
        if unknown:
            raise ValueError(f"credentials for unknown security schemes {unknown}; the document declares {sorted(schemes)}")
        self.schemes, self.credentials = schemes, credentials

    def apply(self, security: list[dict], headers: dict, query: dict) -> None:
        """Use the first security requirement the credentials can meet (none: send no credential)."""
        for requirement in security:
            if all(name in self.credentials for name in requirement):
                for name in requirement:
                    self._attach(self.schemes[name], self.credentials[name], headers, query)
                return

    @staticmethod
    def _attach(scheme: dict, secret: str, headers: dict, query: dict) -> None:
        if scheme.get("type") == "apiKey" and scheme.get("in") == "query":
            query[scheme["name"]] = secret
        elif scheme.get("type") == "apiKey":
            headers[scheme["name"]] = secret
        elif scheme.get("type") == "http" and scheme.get("scheme", "").lower() == "basic":
            import base64
            headers["Authorization"] = "Basic " + base64.b64encode(secret.encode()).decode()
        else:  # http bearer, oauth2 and openIdConnect tokens all travel as a bearer token
            headers["Authorization"] = f"Bearer {secret}"

    def redact(self, text: str) -> str:
        """Replace every credential in a message with [redacted]."""
        for secret in self.credentials.values():
            if secret:
                text = text.replace(secret, "[redacted]")
        return text


def _tool_for(op: Operation, base_url: str, auth: _Auth, timeout: float) -> Tool:
    """Build the Tool: the schema the model sees, and a function that sends the HTTP request."""
    properties = {p.name: p.schema for p in op.params}
    schema = {"type": "object", "properties": properties, "required": [p.name for p in op.params if p.required],
              "additionalProperties": False}
    try:
        tool_core.validate(schema, {})  # a broken pattern or $ref fails now, not at the first call
    except ValueError as exc:
        raise ValueError(f"{op.method} {op.path} ({op.name}): unusable schema: {exc}") from None

    def call(**arguments: JSON) -> JSON:
        return _send(op, base_url, auth, timeout, arguments)

    call.__name__ = op.name
    return Tool(op.name, op.description, schema, call, read_only=op.method in ("GET", "HEAD", "OPTIONS"))


def _send(op: Operation, base_url: str, auth: _Auth, timeout: float, arguments: dict) -> JSON:
    """Perform one validated call as an HTTP request; return the parsed response or raise ToolExecutionError."""
    import urllib.error
    import urllib.request

    where = {p.name: p.where for p in op.params}
    path = re.sub(r"\{([^}]+)\}", lambda m: quote(str(_wire(arguments[m.group(1)])), safe=""), op.path)
    query = {k: _wire(v) for k, v in arguments.items() if where[k] == "query"}
    headers = {"Accept": "application/json"} | {k: str(_wire(v)) for k, v in arguments.items() if where[k] == "header"}
    body_fields = {k: v for k, v in arguments.items() if where[k] == "body"}
    data = None
    if any(p.where == "body" for p in op.params):
        data = json.dumps(body_fields if op.body_is_object else body_fields.get("body")).encode("utf-8")
        headers["Content-Type"] = "application/json"
    auth.apply(op.security, headers, query)
    url = base_url + path + ("?" + urlencode(query, doseq=True) if query else "")
    request = urllib.request.Request(url, data=data, headers=headers, method=op.method)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback must not go through a proxy
    label = f"{op.method} {op.path}"
    try:
        with opener.open(request, timeout=timeout) as response:
            raw, kind = response.read(), response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        text = exc.read().decode("utf-8", "replace").strip()
        raise ToolExecutionError(auth.redact(f"{label} returned HTTP {exc.code}: {_short(text)}"), status=exc.code) from None
    except (TimeoutError, urllib.error.URLError, ConnectionError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError) or "timed out" in str(reason):
            raise ToolExecutionError(f"{label}: no answer within {timeout:g} s", retryable=True) from None
        raise ToolExecutionError(auth.redact(f"{label}: could not reach the service at {base_url}: {reason}"),
                                 retryable=False) from None
    return _decode(raw, kind, op, label, auth)


def _wire(value: JSON) -> JSON:
    """Write a value the way a query string or header carries it. Example: True -> 'true'"""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return [_wire(v) for v in value]
    return "" if value is None else value


def _decode(raw: bytes, kind: str, op: Operation, label: str, auth: _Auth) -> JSON:
    """Parse a response body as JSON (or as text where the operation declares text); anything else is an error."""
    text = raw.decode("utf-8", "replace")
    if not raw.strip():
        return None
    if op.text_response and kind.startswith("text/"):
        return text
    try:
        return json.loads(text)
    except ValueError:
        raise ToolExecutionError(auth.redact(f"{label} answered with {kind or 'no content type'}, not JSON: "
                                             f"{_short(text)}"), status=502) from None


def _short(text: str) -> str:
    return text if len(text) <= MAX_BODY_SHOWN else text[: MAX_BODY_SHOWN - 1] + "…"


# ---------------------------------------------------------------------------------------------
# --- 3. Dialects: one Tool for every reader; calls and results both ways ---
# ---------------------------------------------------------------------------------------------

def strict_schema(schema: dict, path: str = "$") -> tuple[dict, list[str]]:
    """Rewrite a schema for OpenAI's strict mode; return it and a line per change (what a reader loses).

    Strict mode's rules: every object lists all its properties in `required` and sets
    `additionalProperties: false`; an optional property stays optional only by admitting null
    (the caller then drops the null, see from_strict_arguments). Defaults move into the description.
    Example: {"properties": {"limit": {"type": "integer"}}} -> limit required, type ["integer", "null"]
    """
    out, changes = copy.deepcopy(schema), []
    if out.get("type") == "object" or "properties" in out:
        properties = out.get("properties", {})
        optional = [k for k in properties if k not in out.get("required", [])]
        for name, sub in list(properties.items()):
            sub, more = strict_schema(sub, tool_core.child_path(path, name))
            if name in optional:
                sub = tool_core.nullable(sub)
                changes.append(f"{tool_core.child_path(path, name)}: optional -> required, null allowed (null = left out)")
            if "default" in sub:
                sub = {k: v for k, v in sub.items() if k != "default"}
                sub["description"] = (sub.get("description", "") + f" (default {show(schema['properties'][name].get('default'))})").strip()
                changes.append(f"{tool_core.child_path(path, name)}: default moved into the description")
            properties[name], changes = sub, changes + more
        out["required"] = list(properties)
        if out.get("additionalProperties") is not False:
            out["additionalProperties"] = False
            changes.append(f"{path}: additionalProperties set to false")
    if isinstance(out.get("items"), dict):
        out["items"], more = strict_schema(out["items"], f"{path}[]")
        changes += more
    return out, changes


def from_strict_arguments(schema: dict, arguments: dict) -> dict:
    """Undo strict mode's nulls: drop a null the original schema does not accept (it meant 'left out').

    Example: ({"properties": {"limit": {"type": "integer"}}}, {"limit": None, "team": "x"}) -> {"team": "x"}
    """
    properties = schema.get("properties", {})
    return {k: v for k, v in arguments.items()
            if not (v is None and k in properties and tool_core.validate(properties[k], None))}


def _read_arguments(name: str, raw: JSON) -> dict | ParseError:
    """Read a call's arguments, given as a JSON string (OpenAI) or an object; a bad one becomes a ParseError."""
    if isinstance(raw, str):
        try:
            raw = tool_core.loads_strict(raw) if raw.strip() else {}
        except ValueError as exc:
            return ParseError("invalid_json", f"the arguments of {name} are not valid JSON: {exc}", raw=raw)
    if not isinstance(raw, dict):
        return ParseError("bad_arguments", f"the arguments of {name} must be a JSON object, got {tool_core.describe(raw)}",
                          raw=show(raw, 200))
    return raw


def _result_pair(result: ToolResult) -> tuple[str, bool]:
    return result.text, not result.ok


def _read_result(text: JSON, is_error: bool) -> ToolResult:
    """Read a result back as text: an error keeps its message, a success its text as content."""
    if not isinstance(text, str):
        text = json.dumps(text, ensure_ascii=False)
    return ToolResult(False, error_kind="execution_error", message=text) if is_error else ToolResult(True, content=text)


class Dialect:
    """How one reader writes tools, calls and results. Each dialect converts both ways."""

    name = "?"

    def tool(self, tool: Tool) -> JSON:
        """Render a tool as this reader expects it."""
        raise NotImplementedError

    def read_tool(self, entry: JSON) -> dict:
        """Read a rendered tool back as {name, description, parameters}."""
        raise NotImplementedError

    def calls(self, calls: list[ToolCall], text: str = "") -> JSON:
        """Write a model turn that makes these calls (after some text)."""
        raise NotImplementedError

    def read_calls(self, turn: JSON) -> tuple[str, list[ToolCall | ParseError]]:
        """Read a model turn back: its text and its calls (a malformed one as a ParseError)."""
        raise NotImplementedError

    def results(self, pairs: list[tuple[ToolCall, ToolResult]]) -> JSON:
        """Write the results of one turn's calls as the next message(s)."""
        raise NotImplementedError

    def read_results(self, message: JSON) -> dict[str, ToolResult]:
        """Read results back, keyed by call id; a message that breaks the dialect's rules is a ValueError."""
        raise NotImplementedError


class OpenAI(Dialect):
    """OpenAI Chat Completions: {"type": "function", "function": {...}}, tool_calls with JSON-string
    arguments, one "tool" message per result with its tool_call_id."""

    name = "OpenAI"

    def __init__(self, strict: bool = False):
        self.strict = strict
        self.name = "OpenAI strict" if strict else "OpenAI"

    def tool(self, tool: Tool) -> dict:
        parameters = strict_schema(tool.parameters)[0] if self.strict else tool.parameters
        function = {"name": tool.name, "description": tool.description, "parameters": parameters}
        return {"type": "function", "function": function | ({"strict": True} if self.strict else {})}

    def read_tool(self, entry: dict) -> dict:
        function = entry["function"]
        return {"name": function["name"], "description": function.get("description", ""),
                "parameters": function.get("parameters", {"type": "object", "properties": {}})}

    def calls(self, calls: list[ToolCall], text: str = "") -> dict:
        return {"role": "assistant", "content": text or None, "tool_calls": [
            {"id": c.id, "type": "function",
             "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)}} for c in calls]}

    def read_calls(self, turn: dict) -> tuple[str, list[ToolCall | ParseError]]:
        items: list[ToolCall | ParseError] = []
        for entry in turn.get("tool_calls") or []:
            function = entry.get("function", {})
            arguments = _read_arguments(function.get("name"), function.get("arguments"))
            if isinstance(arguments, ParseError):
                arguments.id = entry.get("id", "")
                items.append(arguments)
            else:
                items.append(ToolCall(function.get("name"), arguments, id=entry.get("id", "")))
        return turn.get("content") or "", items

    def results(self, pairs: list[tuple[ToolCall, ToolResult]]) -> list[dict]:
        # subtle: Chat Completions has no error flag for a tool message; the error is in the text
        return [{"role": "tool", "tool_call_id": call.id,
                 "content": result.text if result.ok else f"Error: {result.text}"} for call, result in pairs]

    def read_results(self, messages: list[dict]) -> dict[str, ToolResult]:
        found = {}
        for m in messages:
            if m.get("role") != "tool" or "tool_call_id" not in m:
                raise ValueError(f"expected tool messages with a tool_call_id, got {show(m)}")
            text = m.get("content", "")
            found[m["tool_call_id"]] = _read_result(text[len("Error: "):], True) if text.startswith("Error: ") \
                else _read_result(text, False)
        return found


class Anthropic(Dialect):
    """Anthropic Messages: {name, description, input_schema}; tool_use blocks with ids; the results as
    tool_result blocks (tool_use_id, is_error) first in the next user message."""

    name = "Anthropic"

    def tool(self, tool: Tool) -> dict:
        return {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}

    def read_tool(self, entry: dict) -> dict:
        return {"name": entry["name"], "description": entry.get("description", ""), "parameters": entry["input_schema"]}

    def calls(self, calls: list[ToolCall], text: str = "") -> dict:
        blocks = [{"type": "text", "text": text}] if text else []
        blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in calls]
        return {"role": "assistant", "content": blocks}

    def read_calls(self, turn: dict) -> tuple[str, list[ToolCall | ParseError]]:
        text = "".join(b.get("text", "") for b in turn.get("content", []) if b.get("type") == "text")
        items: list[ToolCall | ParseError] = []
        for b in (b for b in turn.get("content", []) if b.get("type") == "tool_use"):
            arguments = _read_arguments(b.get("name"), b.get("input"))
            if isinstance(arguments, ParseError):
                arguments.id = b.get("id", "")
                items.append(arguments)
            else:
                items.append(ToolCall(b.get("name"), arguments, id=b.get("id", "")))
        return text, items

    def results(self, pairs: list[tuple[ToolCall, ToolResult]]) -> dict:
        blocks = []
        for call, result in pairs:
            block = {"type": "tool_result", "tool_use_id": call.id, "content": result.text}
            blocks.append(block | ({"is_error": True} if not result.ok else {}))
        return {"role": "user", "content": blocks}

    def read_results(self, message: dict) -> dict[str, ToolResult]:
        found, text_seen = {}, False
        for b in message.get("content", []):
            if b.get("type") == "text":
                text_seen = True
            elif b.get("type") == "tool_result":
                if text_seen:  # the API refuses this: the results come first, then any text
                    raise ValueError("a tool_result block follows a text block; every tool_result must come "
                                     "before any text in the user message")
                content = b.get("content", "")
                if isinstance(content, list):  # content blocks: keep their text
                    content = "".join(x.get("text", "") for x in content if x.get("type") == "text")
                found[b["tool_use_id"]] = _read_result(content, bool(b.get("is_error")))
        return found


class MCP(Dialect):
    """MCP: a tools/list entry (name, title, description, inputSchema, annotations); a call is a
    tools/call request's params; a result is a CallToolResult (content blocks, isError)."""

    name = "MCP"

    def tool(self, tool: Tool) -> dict:
        title = tool.name.replace("_", " ").capitalize()
        hints = {"readOnlyHint": tool.read_only, "destructiveHint": False} if tool.read_only else {"readOnlyHint": False}
        return {"name": tool.name, "title": title, "description": tool.description,
                "inputSchema": tool.parameters, "annotations": hints}

    def read_tool(self, entry: dict) -> dict:
        return {"name": entry["name"], "description": entry.get("description", ""), "parameters": entry["inputSchema"]}

    def calls(self, calls: list[ToolCall], text: str = "") -> list[dict]:
        return [{"jsonrpc": "2.0", "id": c.id, "method": "tools/call",
                 "params": {"name": c.name, "arguments": c.arguments}} for c in calls]

    def read_calls(self, turn: list[dict]) -> tuple[str, list[ToolCall | ParseError]]:
        items: list[ToolCall | ParseError] = []
        for request in turn:
            params = request.get("params", {})
            arguments = _read_arguments(params.get("name"), params.get("arguments", {}))
            if isinstance(arguments, ParseError):
                arguments.id = str(request.get("id", ""))
                items.append(arguments)
            else:
                items.append(ToolCall(params.get("name"), arguments, id=str(request.get("id", ""))))
        return "", items

    def results(self, pairs: list[tuple[ToolCall, ToolResult]]) -> list[dict]:
        return [{"jsonrpc": "2.0", "id": call.id, "result": call_tool_result(result)} for call, result in pairs]

    def read_results(self, messages: list[dict]) -> dict[str, ToolResult]:
        found = {}
        for m in messages:
            result = m.get("result", {})
            text = "".join(b.get("text", "") for b in result.get("content", []) if b.get("type") == "text")
            found[str(m["id"])] = _read_result(text, bool(result.get("isError")))
        return found


def call_tool_result(result: ToolResult) -> dict:
    """Write a ToolResult as MCP's CallToolResult: a text block, isError, and structuredContent for an object."""
    out = {"content": [{"type": "text", "text": result.text}], "isError": not result.ok}
    if result.ok and isinstance(result.content, dict):
        out["structuredContent"] = result.content
    return out


class TextProtocol(Dialect):
    """tool_core's own text protocol: the tools block in the system prompt, <tool_call> and <tool_result>."""

    name = "text protocol"

    def tool(self, tool: Tool) -> str:
        return json.dumps(tool.spec(), ensure_ascii=False)

    def read_tool(self, entry: str) -> dict:
        return json.loads(entry)

    def calls(self, calls: list[ToolCall], text: str = "") -> str:
        return (text + "\n" if text else "") + "\n".join(tool_core.call_text(c.name, c.arguments) for c in calls)

    def read_calls(self, turn: str) -> tuple[str, list[ToolCall | ParseError]]:
        parsed = tool_core.parse_tool_calls(turn)
        for n, item in enumerate(parsed.items, 1):  # the text has no ids: the harness numbers the calls, as run_agent does
            item.id = item.id or f"call_{n}"
        return parsed.text, parsed.items

    def results(self, pairs: list[tuple[ToolCall, ToolResult]]) -> str:
        return tool_core.render_tool_results(pairs)

    def read_results(self, message: str) -> dict[str, ToolResult]:
        return {r["id"]: _read_result(r["content"], "error" in r) for r in tool_core.parse_tool_results(message)}


class Qwen(TextProtocol):
    """The Qwen3 / Hermes chat template: tools as OpenAI function objects inside <tools>, calls in
    <tool_call> blocks (one JSON object per line), results in <tool_response> blocks of a user turn."""

    name = "Qwen3 template"

    def tool(self, tool: Tool) -> str:
        return json.dumps(OpenAI().tool(tool), ensure_ascii=False)

    def read_tool(self, entry: str) -> dict:
        return OpenAI().read_tool(json.loads(entry))

    def calls(self, calls: list[ToolCall], text: str = "") -> str:
        blocks = [f"<tool_call>\n{json.dumps({'name': c.name, 'arguments': c.arguments}, ensure_ascii=False)}\n</tool_call>"
                  for c in calls]
        return "\n".join(([text] if text else []) + blocks)

    def results(self, pairs: list[tuple[ToolCall, ToolResult]]) -> str:
        return "\n".join(f"<tool_response>\n{r.text if r.ok else 'Error: ' + r.text}\n</tool_response>" for _, r in pairs)

    def read_results(self, message: str) -> dict[str, ToolResult]:
        bodies = re.findall(r"<tool_response>\n?(.*?)\n?</tool_response>", message, re.DOTALL)
        return {f"call_{n}": _read_result(b[len("Error: "):], True) if b.startswith("Error: ") else _read_result(b, False)
                for n, b in enumerate(bodies, 1)}

    def prompt(self, tools: typing.Iterable[Tool], system: str = "") -> str:
        """Write the system turn the Qwen3 template renders: # Tools, the <tools> block, the call format."""
        lines = ([system, ""] if system else []) + [
            "# Tools", "", "You may call one or more functions to assist with the user query.", "",
            "You are provided with function signatures within <tools></tools> XML tags:", "<tools>"]
        lines += [self.tool(t) for t in tools]
        lines += ["</tools>", "", "For each function call, return a json object with function name and arguments "
                  "within <tool_call></tool_call> XML tags:", "<tool_call>",
                  '{"name": <function-name>, "arguments": <args-json-object>}', "</tool_call>"]
        return "<|im_start|>system\n" + "\n".join(lines) + "<|im_end|>"


DIALECTS: list[Dialect] = [OpenAI(), OpenAI(strict=True), Anthropic(), MCP(), TextProtocol(), Qwen()]


def round_trip(dialect: Dialect, calls: list[ToolCall], results: list[ToolResult], text: str = "") -> list[str]:
    """Convert calls and results into a dialect and back; return what did not survive (empty = lossless)."""
    lost = []
    back_text, back = dialect.read_calls(dialect.calls(calls, text))
    if text and back_text.strip() != text.strip():
        lost.append(f"the model's text {show(text)} has no place here" if not back_text else
                    f"text: {show(text)} came back as {show(back_text)}")
    for sent, got in zip(calls, back):
        if not isinstance(got, ToolCall) or got.name != sent.name or not tool_core.json_equal(got.arguments, sent.arguments):
            lost.append(f"call {sent.id}: {sent.name}({show(sent.arguments)}) came back as {show(getattr(got, 'arguments', got))}")
    if len(back) != len(calls):
        lost.append(f"{len(calls)} calls sent, {len(back)} read back")
    ids = [c.id for c in back if isinstance(c, ToolCall)]
    read = dialect.read_results(dialect.results(list(zip([ToolCall(c.name, {}, id=i) for c, i in zip(calls, ids)],
                                                         results))))
    for call_id, sent in zip(ids, results):
        got = read.get(call_id)
        if got is None or got.ok != sent.ok or (got.text if got.ok else got.message) != sent.text:
            lost.append(f"result of {call_id}: {show(sent.text)} (ok={sent.ok}) came back as {show(got and got.text)}")
    return lost


def match_results(calls: list[ToolCall], results: dict[str, ToolResult]) -> list[ToolResult]:
    """Put results in call order by id; a call without a result (or a result without a call) is a ValueError."""
    missing = [c.id for c in calls if c.id not in results]
    extra = sorted(set(results) - {c.id for c in calls})
    if missing or extra:
        raise ValueError(f"results do not match the calls: no result for {missing}, results for unknown ids {extra}; "
                         "every call needs exactly one result with its id")
    return [results[c.id] for c in calls]


# ---------------------------------------------------------------------------------------------
# --- 4. Demos (scripts/04_interfaces.py prints these) ---
# ---------------------------------------------------------------------------------------------

def fetch_openapi(base_url: str, timeout: float = 5.0) -> dict:
    """GET base_url/openapi.json and return the document (a host's runtime discovery of the contract)."""
    import urllib.request
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(base_url.rstrip("/") + "/openapi.json", timeout=timeout) as response:
        return json.loads(response.read().decode("utf-8"))


def _raw_get(base_url: str, target: str, token: str) -> tuple[int, JSON]:
    """Send a GET written by hand (the first generation), with the backend key, and return status and JSON."""
    import urllib.request
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(base_url + target, headers={API_KEY_HEADER: token})
    with opener.open(request, timeout=5) as response:
        return response.status, json.loads(response.read().decode("utf-8"))


def demo_rest() -> str:
    """Generation 1: the model reads the docs, guesses a parameter name, and the tolerant API answers anyway."""
    with CardinalServer() as server:
        api = server.api
        target = "/people?department=firmware"  # what the model wrote: the docs say "team"
        status, people = _raw_get(server.url, target, api.token)
        truth = [p["name"] for p in api.people if p["team"] == "firmware"]
    names = ", ".join(p["name"] for p in people)
    return "\n".join([
        "The model is given the API's documentation, written for people:", "",
        "  " + CARDINAL_DOCS.replace("\n", "\n  "), "",
        "Asked 'How many people are on the firmware team?', it writes the request itself:",
        f"  GET {target}    (the parameter is called team, not department)",
        f"  -> HTTP {status}, {len(people)} people: {names}",
        "The API does not know 'department', so it ignores it, as many real APIs do, and lists everyone.",
        f"  model's answer: 'The firmware team has {len(people)} people.'    truth: {len(truth)} ({', '.join(truth)})",
        "Wrong, and nothing said so: the contract lives in prose, the server is tolerant, and the request was",
        "sent before anyone could check it. Had it been a POST, its side effect would already have happened."])


def demo_function_schema() -> str:
    """Generation 2: the same mistake against a generated function schema is refused before any request."""
    with CardinalServer() as server:
        api = server.api
        spec = fetch_openapi(server.url)
        registry = ToolRegistry(openapi_to_tools(spec, server.url, credentials={"ApiKeyAuth": api.token}))
        before = len(api.requests)

        def model(messages: list[dict]) -> str:
            results = tool_core.parse_tool_results(messages[-1]["content"]) if messages[-1]["role"] == "tool" else []
            if not results:
                return tool_core.call_text("list_people", {"department": "firmware"})
            if "error" in results[-1]:
                return tool_core.call_text("list_people", {"team": "firmware"})
            people = json.loads(results[-1]["content"])
            return f"The firmware team has {len(people)} people: {' and '.join(p['name'] for p in people)}."

        transcript = tool_core.run_agent(tool_core.ScriptedLM(model), registry,
                                         "How many people are on the firmware team?")
        sent = api.requests[before:]
        schema = registry.get("list_people").parameters
    return "\n".join([
        f"openapi_to_tools read /openapi.json ({len(spec['paths'])} paths) and made {len(registry)} tools: "
        f"{', '.join(registry.names())}.",
        "list_people's parameters, as the model sees them:",
        "  " + json.dumps(schema, ensure_ascii=False), "",
        transcript.render(), "",
        f"HTTP requests the backend received during the exchange: {len(sent)} "
        f"({', '.join(f'{m} {t}' for m, t in sent)}): the wrong call never left the harness.",
        f"The backend key ({API_KEY_HEADER}) is attached by the tool's code: it is in no schema and no message."])


def demo_dialects() -> str:
    """Show one Cardinal tool in each dialect with its token count, strict mode's changes, and parallel calls."""
    api = CardinalAPI(token="unused")
    tools = {t.name: t for t in openapi_to_tools(api.spec, "http://127.0.0.1:9", credentials={"ApiKeyAuth": "unused"})}
    tool = tools["list_people"]
    rows = []
    for d in DIALECTS:
        rendered = d.tool(tool)
        text = rendered if isinstance(rendered, str) else json.dumps(rendered, ensure_ascii=False)
        rows.append([d.name, count_tokens(text), text if len(text) <= 86 else text[:85] + "…"])
    _, changes = strict_schema(tool.parameters)
    calls = [ToolCall("list_people", {"team": team}, id=f"call_{n}") for n, team in enumerate(("firmware", "design", "sales"), 1)]
    results = [ToolResult(True, content=[{"name": "Ada Quist"}, {"name": "Bo Lindqvist"}]),
               ToolResult(True, content=[{"name": "Elin Park"}]),
               ToolResult(False, error_kind="invalid_arguments", message="team must be one of firmware, platform, design")]
    trips = [[d.name, "lossless" if not round_trip(d, calls, results, "Checking three teams.") else
              "; ".join(round_trip(d, calls, results, "Checking three teams."))] for d in DIALECTS]
    anthropic = Anthropic()
    reply = anthropic.results(list(zip(calls, results)))
    reply["content"] = [reply["content"][1], reply["content"][0], reply["content"][2]]  # any order: ids match
    matched = match_results(calls, anthropic.read_results(reply))
    return "\n".join([
        "list_people in each dialect (tokens by count_tokens):",
        format_table(["dialect", "tokens", "what the reader gets (start)"], rows), "",
        "Strict mode is not lossless; what changes for list_people:",
        *[f"  {c}" for c in changes],
        "  (from_strict_arguments drops the nulls again before the tool runs)", "",
        "Three parallel calls and their results, one an error, through each dialect and back:",
        format_table(["dialect", "round trip"], trips),
        "Anthropic: all three tool_result blocks in one user message, before any text; sent in the order "
        f"{', '.join(b['tool_use_id'] for b in reply['content'])}, matched back by id to "
        f"{', '.join(('ok' if r.ok else 'is_error') for r in matched)}."])
