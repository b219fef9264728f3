"""The hand-made tables that hold the lab to its ideas, shared by two readers: the unit tests, which run the lab's
code against them, and `scripts/exercises.py --check N FILE`, which runs a student's file against the same rows.

One table per idea, in one place: a row added here tightens the lab's tests and the student's check at once.
(The parser's table is the lecture's own: tool_core.PARSER_CASES, which script 03 prints and the tests read.)

  exercise  the table                        the lab's code it holds            read by
  1         USEFULNESS, KEEP                 toolformer_lab.usefulness, keep    tests/test_toolformer_lab.py
  3         CALLS (on call_tools())          tool_core.ToolRegistry.call        tests/test_tool_core_registry.py
  4         ONE_OPERATION                    interfaces.openapi_to_tools        tests/test_interfaces.py
  5         ESTIMATES                        service_env.pass_hat_k, pass_at_k  tests/test_service_env.py
  6         CORPUS, IDF, DEFAULT_CASES,      tool_catalog.BM25Index             tests/test_tool_catalog.py
            EDGE_CASES
  7         TOOLS_CALLS (on mcp_registry())  interfaces' MCP core, tools/call   tests/test_interfaces_mcp_core.py

Every expected value is worked out by hand from the paper or the specification (the arithmetic is in the comments),
never pasted from a run of the code under test. Importing this file has no side effect: no process, no file.
"""
import math
import sys
from decimal import Decimal as D
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tool_core import Tool, ToolExecutionError, ToolRegistry, tool_from_function  # noqa: E402

# --- 1. Toolformer's filter (Schick et al. 2023, eq. 2): L- - L+ >= tau ---------------------------------------
# L+ = L(e(c, r)); L- = min(L(eps), L(e(c, eps))), or L(eps) alone (with_call_alone=False). Decimals, so that the
# arithmetic is exact and a gain equal to tau is kept.

USEFULNESS = [  # ((L(eps), L(e(c, eps)), L(e(c, r))), with_call_alone, L- - L+)
    ((D("2.5"), D("2.1"), D("0.8")), True, D("1.3")),  # the slide: min(2.5, 2.1) - 0.8
    ((D("2.5"), D("2.1"), D("0.8")), False, D("1.7")),  # 2.5 - 0.8
    ((D("4.0"), D("3.0"), D("2.6")), True, D("0.4")),  # handout exercise 1: min(4.0, 3.0) - 2.6
    ((D("4.0"), D("3.0"), D("2.6")), False, D("1.4")),  # 4.0 - 2.6: credits the call for what writing it did
    ((D("3.0"), D("3.5"), D("2.5")), True, D("0.5")),  # writing the call made the text harder: L- = L(eps) = 3.0
    ((D("1.0"), D("1.0"), D("1.5")), True, D("-0.5")),  # the result made it worse: a negative gain
    ((Fraction(4), Fraction(3), Fraction(13, 5)), True, Fraction(2, 5)),  # exercise 1 in fractions: 3 - 13/5
]

KEEP = [  # ((L(eps), L(e(c, eps)), L(e(c, r))), tau, kept?): the paper's L-; tau None is no filter at all
    ((D("2.5"), D("2.1"), D("0.8")), D("1.0"), True),  # 1.3 >= 1.0
    ((D("4.0"), D("3.0"), D("2.6")), D("1.0"), False),  # handout exercise 1: 0.4 < 1.0, dropped
    ((D("2.5"), D("2.1"), D("0.8")), D("1.3"), True),  # a gain equal to tau is kept (>=)
    ((D("2.5"), D("2.1"), D("0.8")), D("1.31"), False),
    ((D("4.0"), D("3.0"), D("2.6")), None, True),  # no filter: every call is kept
    ((D("3.0"), D("2.0"), D("0.8")), D("2.0"), False),  # min(3.0, 2.0) - 0.8 = 1.2 (L(eps) alone would say 2.2)
    ((D("1.0"), D("1.0"), D("1.5")), D("0"), False),  # -0.5 < 0
    ((D("1.0"), D("1.0"), D("1.5")), D("-1"), True),  # -0.5 >= -1
]


# --- 3. Validate, then execute: ToolRegistry.call's order of checks ----------------------------------------------

class Counting:
    """A tool body that counts how often it really ran."""

    def __init__(self):
        self.runs = 0

    def __call__(self, team: str, limit: int = 5) -> list:
        """List members of a team.

        Args:
            team: the team
            limit: how many
        """
        self.runs += 1
        return ["ana", "bo"][:limit]


def explode(x: int) -> int:
    """Raise something unusual."""
    raise RuntimeError("boom")


def call_tools() -> tuple[dict[str, Tool], Counting]:
    """Fresh tools for CALLS, by name: list_members (team: str, limit: int = 5; a Counting body) and explode (x: int,
    always raises RuntimeError); and list_members's body, which counts its runs."""
    body = Counting()
    tools = [tool_from_function(body, name="list_members"), tool_from_function(explode)]
    return {tool.name: tool for tool in tools}, body


CALLS = [  # (what the call gets wrong, name, arguments, the error kind (None: it ran and succeeded), its content)
    # each row breaks the earliest check it reaches: exists -> is an object -> matches the schema -> runs;
    # later problems in the same call are not reported, and nothing runs after a failed check
    ("no tool of that name", "list_membrs", {"team": "firmware"}, "unknown_tool", None),
    ("no such tool, and no object: the name is checked first", "list_membrs", "not even an object", "unknown_tool",
     None),
    ("a name that is not a string", ["list_members"], {"team": "firmware"}, "unknown_tool", None),
    ("no name at all", None, {}, "unknown_tool", None),
    ("arguments that are a list", "list_members", ["team", "firmware"], "invalid_arguments", None),
    ("the object sent as a JSON string", "list_members", '{"team": "firmware"}', "invalid_arguments", None),
    ("an empty object sent as a string", "list_members", "{}", "invalid_arguments", None),
    ("arguments that are null", "list_members", None, "invalid_arguments", None),
    ("a required argument missing", "list_members", {}, "invalid_arguments", None),
    ("a wrong type", "list_members", {"team": 5}, "invalid_arguments", None),
    ("a wrong type and an unknown argument", "list_members", {"team": 5, "department": "x"}, "invalid_arguments", None),
    ("an unknown argument", "list_members", {"team": "firmware", "department": "x"}, "invalid_arguments", None),
    ("a number sent as a string", "list_members", {"team": "a", "limit": "2"}, "invalid_arguments", None),
    ("a valid call", "list_members", {"team": "firmware", "limit": 1}, None, ["ana"]),  # ["ana", "bo"][:1]
    ("a valid call, limit left to its default", "list_members", {"team": "firmware"}, None, ["ana", "bo"]),
    ("a valid call to a tool that raises", "explode", {"x": 1}, "execution_error", None),
]


# --- 4. One OpenAPI operation -> one tool (OpenAPI 3.1.0: Operation, Parameter, Request Body objects) ------------

def document(path: str, operations: dict, components: dict | None = None, parameters: list | None = None) -> dict:
    """A minimal OpenAPI 3.1 document with one path: its operations by method, and parameters every one shares."""
    item = operations | ({"parameters": parameters} if parameters else {})
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {path: item},
            "components": components or {}}


def tool_schema(properties: dict, required: list[str]) -> dict:
    """The parameters of a tool: an object of these properties, nothing else."""
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


OK = {"200": {"description": "ok"}}
TEAM = {"type": "string", "enum": ["firmware", "platform"]}
NEW_PET = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"},
                                                                  "age": {"type": "integer"}}}
KEY = {"key": {"type": "apiKey", "in": "header", "name": "X-API-Key"}}  # a credential the caller holds

ONE_OPERATION = [  # (what the row shows, a one-operation document, the tool: name, description, parameters)
    ("no parameters", document("/teams", {"get": {"operationId": "list_teams", "summary": "List the teams.",
                                                  "responses": OK}}),
     {"name": "list_teams", "description": "List the teams.", "parameters": tool_schema({}, [])}),
    ("summary and description, a blank line between", document("/digests", {"post": {
        "operationId": "make_digest", "summary": "Write a digest.", "description": "This creates a record.",
        "responses": OK}}),
     {"name": "make_digest", "description": "Write a digest.\n\nThis creates a record.",
      "parameters": tool_schema({}, [])}),
    ("neither summary nor description: the method and the path", document("/ping", {"get": {
        "operationId": "ping", "responses": OK}}),
     {"name": "ping", "description": "GET /ping", "parameters": tool_schema({}, [])}),
    ("an optional query parameter: its schema and its own description", document("/people", {"get": {
        "operationId": "list_people", "summary": "List people.", "responses": OK, "parameters": [
            {"name": "team", "in": "query", "description": "only people of this team", "schema": TEAM}]}}),
     {"name": "list_people", "description": "List people.", "parameters": tool_schema(
         {"team": TEAM | {"description": "only people of this team"}}, [])}),
    ("a required query parameter", document("/search", {"get": {
        "operationId": "search", "summary": "Search.", "responses": OK, "parameters": [
            {"name": "q", "in": "query", "required": True, "schema": {"type": "string", "minLength": 1}},
            {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 10}}]}}),
     {"name": "search", "description": "Search.", "parameters": tool_schema(
         {"q": {"type": "string", "minLength": 1}, "limit": {"type": "integer", "default": 10}}, ["q"])}),
    ("a path parameter is required even when the document omits required", document("/visits/{visitId}", {"get": {
        "operationId": "getVisit", "summary": "Read one visit.", "responses": OK, "parameters": [
            {"name": "visitId", "in": "path", "schema": {"type": "integer"}}]}}),
     {"name": "getVisit", "description": "Read one visit.", "parameters": tool_schema(
         {"visitId": {"type": "integer"}}, ["visitId"])}),
    # no operationId: "get" + "_" + "/visits/by_visitId" -> "get_/visits/by_visitId"; "/" -> "_", "__" -> "_"
    ("no operationId: named after the method and the path", document("/visits/{visitId}", {"get": {
        "summary": "Read one visit.", "responses": OK, "parameters": [
            {"name": "visitId", "in": "path", "required": True, "schema": {"type": "integer"}}]}}),
     {"name": "get_visits_by_visitId", "description": "Read one visit.", "parameters": tool_schema(
         {"visitId": {"type": "integer"}}, ["visitId"])}),
    ("an operationId a vendor would refuse: '.' becomes '_'", document("/health", {"get": {
        "operationId": "health-check.v2", "summary": "Say whether the service is up.", "responses": OK}}),
     {"name": "health-check_v2", "description": "Say whether the service is up.", "parameters": tool_schema({}, [])}),
    ("a JSON body: its fields become arguments", document("/digests", {"post": {
        "operationId": "make_digest", "summary": "Write a digest.", "responses": OK,
        "requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": ["team"],
            "properties": {"team": TEAM, "days": {"type": "integer", "minimum": 1, "default": 7}}}}}}}}),
     {"name": "make_digest", "description": "Write a digest.", "parameters": tool_schema(
         {"team": TEAM, "days": {"type": "integer", "minimum": 1, "default": 7}}, ["team"])}),
    ("a body the request may leave out: none of its fields is required", document("/notes", {"post": {
        "operationId": "add_note", "summary": "Add a note.", "responses": OK,
        "requestBody": {"required": False, "content": {"application/json": {"schema": {
            "type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}}}}}}),
     {"name": "add_note", "description": "Add a note.", "parameters": tool_schema({"text": {"type": "string"}}, [])}),
    ("the path item's parameters, then the operation's, then the body's fields", document(
        "/owners/{ownerId}/pets", {"post": {
            "operationId": "addPet", "summary": "Register a pet.", "responses": OK,
            "parameters": [{"name": "notify", "in": "query", "schema": {"type": "boolean"}}],
            "requestBody": {"required": True, "content": {"application/json": {"schema": NEW_PET}}}}},
        parameters=[{"name": "ownerId", "in": "path", "required": True, "schema": {"type": "string"}}]),
     {"name": "addPet", "description": "Register a pet.", "parameters": tool_schema(
         {"ownerId": {"type": "string"}, "notify": {"type": "boolean"}, "name": {"type": "string"},
          "age": {"type": "integer"}}, ["ownerId", "name"])}),
    ("a header parameter kept; Accept, Content-Type and Authorization are the client's", document("/report", {"get": {
        "operationId": "report", "summary": "Fetch the report.", "responses": OK, "parameters": [
            {"name": "Accept", "in": "header", "schema": {"type": "string"}},
            {"name": "X-Request-Id", "in": "header", "schema": {"type": "string"}},
            {"name": "Content-Type", "in": "header", "schema": {"type": "string"}},
            {"name": "Authorization", "in": "header", "schema": {"type": "string"}}]}}),
     {"name": "report", "description": "Fetch the report.", "parameters": tool_schema(
         {"X-Request-Id": {"type": "string"}}, [])}),
    ("the API key is the caller's: never an argument the model sees", document("/people", {"get": {
        "operationId": "list_people", "summary": "List people.", "responses": OK, "security": [{"key": []}],
        "parameters": [{"name": "X-API-Key", "in": "header", "required": True, "schema": {"type": "string"}},
                       {"name": "team", "in": "query", "schema": TEAM}]}}, components={"securitySchemes": KEY}),
     {"name": "list_people", "description": "List people.", "parameters": tool_schema({"team": TEAM}, [])}),
    ("a $ref to components.schemas, inlined", document("/pets", {"get": {
        "operationId": "listPets", "summary": "List pets.", "responses": OK, "parameters": [
            {"name": "species", "in": "query", "schema": {"$ref": "#/components/schemas/Species"}}]}},
        components={"schemas": {"Species": {"type": "string", "enum": ["cat", "dog"]}}}),
     {"name": "listPets", "description": "List pets.", "parameters": tool_schema(
         {"species": {"type": "string", "enum": ["cat", "dog"]}}, [])}),
]


# --- 5. pass^k and pass@k from n trials with c successes -------------------------------------------------------

ESTIMATES = [  # (estimator, n, c, k, expected), each from binomial coefficients by hand
    ("pass^k", 8, 4, 1, Fraction(1, 2)),  # C(4,1)/C(8,1) = 4/8
    ("pass^k", 8, 4, 4, Fraction(1, 70)),  # C(4,4)/C(8,4) = 1/(8*7*6*5/24) = 1/70
    ("pass@k", 10, 8, 1, Fraction(4, 5)),  # 1 - C(2,1)/C(10,1) = 1 - 2/10
    ("pass@k", 10, 8, 3, Fraction(1)),  # 1 - C(2,3)/C(10,3) = 1 - 0/120: 3 draws cannot all be among 2 failures
    ("pass^k", 10, 8, 1, Fraction(4, 5)),  # C(8,1)/C(10,1) = 8/10
    ("pass^k", 10, 8, 3, Fraction(56, 120)),  # C(8,3)/C(10,3) = (8*7*6/6)/(10*9*8/6) = 56/120
    ("pass^k", 3, 3, 3, Fraction(1)),  # C(3,3)/C(3,3)
    ("pass^k", 5, 2, 2, Fraction(1, 10)),  # C(2,2)/C(5,2) = 1/10
    ("pass^k", 5, 4, 5, Fraction(0)),  # k = n with one failure: C(4,5) = 0
    ("pass^k", 5, 0, 1, Fraction(0)),  # C(0,1) = 0
    ("pass@k", 5, 2, 2, Fraction(7, 10)),  # 1 - C(3,2)/C(5,2) = 1 - 3/10
    ("pass@k", 8, 4, 4, Fraction(69, 70)),  # 1 - C(4,4)/C(8,4) = 1 - 1/70
    ("pass@k", 5, 0, 2, Fraction(0)),  # c = 0: 1 - C(5,2)/C(5,2)
    ("pass@k", 5, 5, 2, Fraction(1)),  # c = n: 1 - C(0,2)/C(5,2) = 1 - 0
    ("pass@k", 5, 1, 5, Fraction(1)),  # k = n: every trial is drawn, so the one success is: 1 - C(4,5)/1
    ("pass@k", 5, 0, 5, Fraction(0)),  # k = n, no success: 1 - C(5,5)/C(5,5)
    ("pass@k", 1, 1, 1, Fraction(1)),  # one trial, a success
    ("pass@k", 1, 0, 1, Fraction(0)),
]


# --- 6. BM25 by hand (Robertson & Zaragoza 2009; the idf in Lucene's form) ----------------------------------------

# The three-document corpus: d0 = a b b (|d0| = 3), d1 = b c (2), d2 = c c c d (4).
# N = 3, avgdl = (3 + 2 + 4) / 3 = 3. Document frequencies: a 1, b 2, c 2, d 1.
#   idf(n = 1) = ln(1 + (3 - 1 + 0.5) / (1 + 0.5)) = ln(1 + 2.5 / 1.5) = ln(8/3)  ~ 0.98083
#   idf(n = 2) = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln(1 + 1.5 / 2.5) = ln(1.6)  ~ 0.47000
CORPUS = [["a", "b", "b"], ["b", "c"], ["c", "c", "c", "d"]]
RARE, COMMON = math.log(8 / 3), math.log(1.6)

IDF = [  # (term, idf over CORPUS); an unknown word: n = 0 -> ln(1 + 3.5 / 0.5) = ln 8
    ("a", RARE), ("b", COMMON), ("c", COMMON), ("d", RARE), ("zebra", math.log(8))]

# Defaults k1 = 1.2, b = 0.75: the length factor 1 - b + b * dl / avgdl = 0.25 + 0.25 * dl
#   d0 (dl 3): 1.00 -> k1 * 1.00 = 1.2;  d1 (dl 2): 0.75 -> 0.9;  d2 (dl 4): 1.25 -> 1.5
# tf component tf * (k1 + 1) / (tf + k1 * factor), with k1 + 1 = 2.2:
#   a in d0, tf 1: 2.2 / (1 + 1.2) = 1          b in d0, tf 2: 4.4 / (2 + 1.2) = 1.375
#   b in d1, tf 1: 2.2 / (1 + 0.9) = 22/19      c in d1, tf 1: 22/19
#   c in d2, tf 3: 6.6 / (3 + 1.5) = 22/15      d in d2, tf 1: 2.2 / (1 + 1.5) = 0.88
DEFAULT_CASES = [  # (query, expected scores of d0, d1, d2)
    (["a"], [RARE * 1, 0, 0]),
    (["b"], [COMMON * 1.375, COMMON * 22 / 19, 0]),
    (["c"], [0, COMMON * 22 / 19, COMMON * 22 / 15]),
    (["d"], [0, 0, RARE * 0.88]),
    (["a", "d"], [RARE, 0, RARE * 0.88]),
    (["b", "c"], [COMMON * 1.375, COMMON * 44 / 19, COMMON * 22 / 15]),  # d1: 22/19 + 22/19
    (["b", "b"], [COMMON * 2.75, COMMON * 44 / 19, 0]),  # a repeated query term counts twice
    (["a", "zebra"], [RARE, 0, 0]),  # an unknown word adds nothing
]

# b = 0: no length normalisation, k1 * factor = 1.2 for every document:
#   tf 1: 2.2 / 2.2 = 1;  tf 2: 4.4 / 3.2 = 1.375;  tf 3: 6.6 / (3 + 1.2) = 6.6 / 4.2 = 11/7
# b = 1: factor = dl / avgdl: d0 1 (k1 * 1 = 1.2), d1 2/3 (0.8), d2 4/3 (1.6):
#   b in d1: 2.2 / (1 + 0.8) = 11/9;  c in d2: 6.6 / (3 + 1.6) = 33/23;  d in d2: 2.2 / (1 + 1.6) = 11/13
# k1 = 0: tf * 1 / (tf + 0) = 1 for any tf: each matching term adds its idf once (binary BM25).
EDGE_CASES = [  # (k1, b, query, expected scores)
    (1.2, 0.0, ["b"], [COMMON * 1.375, COMMON * 1, 0]),
    (1.2, 0.0, ["c", "d"], [0, COMMON * 1, COMMON * 11 / 7 + RARE * 1]),
    (1.2, 1.0, ["b"], [COMMON * 1.375, COMMON * 11 / 9, 0]),
    (1.2, 1.0, ["c", "d"], [0, COMMON * 11 / 9, COMMON * 33 / 23 + RARE * 11 / 13]),
    (0.0, 0.75, ["b", "c"], [COMMON, 2 * COMMON, COMMON]),
    (0.0, 0.75, ["a", "c", "d"], [RARE, COMMON, COMMON + RARE]),
]


# --- 7. MCP's tools/call on the core (revisions 2025-06-18 and 2025-11-25, server/tools; JSON-RPC 2.0 codes) -------

INVALID_PARAMS = -32602  # JSON-RPC 2.0's "Invalid params", written out rather than imported


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first
        b: the second
    """
    return a + b


def fuse() -> str:
    """Blow the fuse (always fails)."""
    raise ToolExecutionError("the fuse blew")


def mcp_registry() -> ToolRegistry:
    """The two tools the MCP tables call: add(a, b) and fuse(), which always fails."""
    return ToolRegistry([tool_from_function(add, read_only=True), tool_from_function(fuse, read_only=True)])


def subset(expected, got) -> bool:
    """Say whether every key expected names is in got with that value (dicts recursively; lists item by item)."""
    if isinstance(expected, dict):
        return isinstance(got, dict) and all(k in got and subset(v, got[k]) for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(got, list) and len(expected) == len(got) and all(map(subset, expected, got))
    return expected == got and type(expected) is type(got)


# A wrong request is the protocol's error (the host's to handle); a tool that ran and failed is a result with isError
# (the model's to read). Arguments that fail the schema moved from the first to the second in 2025-11-25.
TOOLS_CALLS = [  # (what happens, the protocol version, tools/call's params, the result (a subset) or the error code)
    ("a call that works", "2025-06-18", {"name": "add", "arguments": {"a": 2, "b": 3}},
     {"content": [{"type": "text", "text": "5"}], "isError": False}),
    ("a tool that ran and failed: isError, for the model", "2025-06-18", {"name": "fuse", "arguments": {}},
     {"isError": True}),
    ("an unknown tool: a protocol error", "2025-06-18", {"name": "nope", "arguments": {}}, INVALID_PARAMS),
    ("arguments that fail the schema (2025-06-18): a protocol error", "2025-06-18",
     {"name": "add", "arguments": {"a": 2, "b": "three"}}, INVALID_PARAMS),
    ("arguments that are no object", "2025-06-18", {"name": "add", "arguments": [2, 3]}, INVALID_PARAMS),
    ("a call that works (2025-11-25)", "2025-11-25", {"name": "add", "arguments": {"a": -1, "b": 1}},
     {"content": [{"type": "text", "text": "0"}], "isError": False}),
    ("arguments that fail the schema (2025-11-25): isError", "2025-11-25",
     {"name": "add", "arguments": {"a": 2, "b": "three"}}, {"isError": True}),
    ("a required argument missing (2025-11-25): isError", "2025-11-25", {"name": "add", "arguments": {"a": 2}},
     {"isError": True}),
    ("arguments left out: the empty object, and fuse runs (and fails)", "2025-11-25", {"name": "fuse"},
     {"isError": True}),
    ("an unknown tool (2025-11-25): still a protocol error", "2025-11-25", {"name": "nope", "arguments": {}},
     INVALID_PARAMS),
    ("arguments that are null", "2025-11-25", {"name": "add", "arguments": None}, INVALID_PARAMS),
    ("a name that is not a string", "2025-11-25", {"name": 5, "arguments": {}}, INVALID_PARAMS),
    ("no name at all", "2025-11-25", {"arguments": {"a": 1, "b": 2}}, INVALID_PARAMS),
]
