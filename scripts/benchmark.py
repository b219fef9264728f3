"""Timing checks, kept out of the unit tests: demo script times, parser and validator throughput.

1. Every numbered demo script, run with the real interpreter (sys.executable, not a shim):
   best of --repeat wall times; anything over 1 s is flagged.
2. parse_tool_calls on about 1 MB of model text holding 1,000 calls, next to bare json.loads
   of the same 1,000 payloads and the naive regex parser (target: at most 3x json.loads, public APIs only).
3. parse_tool_calls on about 1 MB of broken calls (it must stay linear); StreamParser fed about 1 MB one character
   at a time (linear too: 4 times the text, about 4 times the time; "read per character" is StreamParser.scanned
   over the length); and the inputs an outside fuzz found quadratic or worse (a fence and a run of blanks, ...).
4. Tool-call arguments checked against ten tool schemas by validate, on valid and on invalid arguments.
5. ToolRegistry.call (validate + execute) on the Orrin Grid create_ticket schema.
6. interfaces: one call through a generated Cardinal tool (validation + a real HTTP round trip),
   and MCP tools/call round trips per second in process, over stdio and over Streamable HTTP
   (a trivial tool, so the figure is the protocol's cost, not the tool's); then the load check:
   50 clients at once x 200 tools/call each over Streamable HTTP (every call answered once,
   none lost), and 32 x 100 for the latency with 32 calls in flight. With --sdk-python PATH (a Python with the
   official mcp package), the same add tool served over stdio by this lab (its core; in full, its default
   tool_timeout and None) and by the official SDK, driven by one raw stdlib client, interleaved: sequential calls/s,
   and calls/s and p99
   with 32 calls in flight, as ratios lab / SDK (issue 32 wants at least 5x sequentially); --only-sdk runs only
   this. Without --sdk-python a line says how to make that Python.
7. tool_catalog: BM25 indexing and top-10 latency at 150 / 1,600 / 16,000 tools.
8. bfcl_lab: entries graded per second by the AST grader (the official checker: about 25,000/s), and a
   whole result folder graded as `bfcl evaluate` would (read, decoded, graded, score files written).
9. The loop's parallel speed-up (five 200 ms tools, sequential vs concurrent), and the test suite's time.
10. Only when asked: the same bytes on a busy machine (--same-bytes 20: every numbered script 20 times with four
    busy loops, compared with an unloaded run) and the suite on a busy machine (--suite-under-load 10, with
    --python for another interpreter). Both exit 1 when anything differs or fails.

Timed runs switch the garbage collector off, as timeit does, so that a collection falling into
one run does not decide a figure; runs that are compared are interleaved, so that a busy moment
of the machine hits all of them alike. Only the standard library is imported: to compare with
the jsonschema and fastjsonschema packages, install them in a scratch venv outside the repo and
time them on TOOL_SCHEMAS below.

The README's Performance table is this script's output: `--markdown` prints the report to stderr and the table's
Markdown (PERFORMANCE_ROWS filled with this run's figures) to stdout, to paste over the old one.

Not a numbered demo, so run_all.py skips it. Takes 40-50 s on an idle 2-core machine, more on a busy one; the
comparison with the official SDK adds about 30 s (3 rounds; 50 s with --repeat 5), more with mcp 1.x.
Usage: python3 scripts/benchmark.py [--repeat N] [--markdown] [--sdk-python PATH] | --sdk-python PATH --only-sdk
       | --same-bytes RUNS | --suite-under-load RUNS [--python P]
"""
import argparse
import gc
import json
import math
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tool_catalog  # noqa: E402
import tool_core  # noqa: E402


def best_of(repeat: int, fn) -> float:
    """Return the fastest of `repeat` timings of fn(), in seconds."""
    return best_of_each(repeat, {"fn": fn})["fn"]


def about(rate: float) -> str:
    """Round a rate to two significant digits, as the README quotes it. Example: 54489.2 -> '54,000'."""
    if not math.isfinite(rate) or rate <= 0:
        return f"{rate:.0f}"
    return f"{round(rate, min(0, 1 - math.floor(math.log10(rate)))):,.0f}"


def best_of_each(repeat: int, fns: dict) -> dict:
    """Time each function in turn, `repeat` rounds, with the garbage collector off; return the fastest of each."""
    best = dict.fromkeys(fns, float("inf"))
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            for name, fn in fns.items():
                began = time.perf_counter()
                fn()
                best[name] = min(best[name], time.perf_counter() - began)
    finally:
        if was_enabled:
            gc.enable()
    return best


def time_scripts(repeat: int) -> list[list]:
    rows = []
    for script in sorted((ROOT / "scripts").glob("[0-9][0-9]_*.py")):
        seconds = best_of(repeat, lambda: subprocess.run([sys.executable, str(script)], capture_output=True, check=True))
        rows.append([script.name, f"{seconds:.3f}", "SLOW (over 1 s)" if seconds > 1 else "ok"])
    return rows


def model_text(calls: int = 1000, size: int = 1_000_000, seed: int = 0) -> tuple[str, list[str]]:
    """Build about `size` characters of prose holding `calls` calls; return it and the JSON payloads."""
    rng = random.Random(seed)
    words = "the feeder relay substation crew checked incident report voltage outage restored".split()
    payloads = []
    for i in range(calls):
        args = {"substation_id": f"SS-{rng.randrange(1000):03d}", "summary": " ".join(rng.choices(words, k=12)),
                "details": {"readings": [rng.randrange(10_000) for _ in range(8)], "note": "see </tool_call> log" if i % 20 == 0 else "ok"}}
        payloads.append(json.dumps({"name": "create_ticket", "arguments": args}))
    prose_len = max(0, size // calls - len(payloads[0]) - 25)
    pieces = [" ".join(rng.choices(words, k=prose_len // 6))[:prose_len] for _ in range(calls)]
    return "".join(f"{p}\n<tool_call>{j}</tool_call>\n" for p, j in zip(pieces, payloads)), payloads


def parser_throughput(repeat: int) -> list[list]:
    text, payloads = model_text()
    megabytes = len(text.encode()) / 1e6
    payload_mb = sum(len(p.encode()) for p in payloads) / 1e6
    found = tool_core.parse_tool_calls(text)
    assert len(found.calls) == len(payloads) and not found.errors, "the robust parser must find every call"
    lost = len(payloads) - len(tool_core.parse_tool_calls_regex(text))
    best = best_of_each(5 * repeat, {"robust": lambda: tool_core.parse_tool_calls(text),
                                     "bare": lambda: [json.loads(p) for p in payloads],
                                     "naive": lambda: tool_core.parse_tool_calls_regex(text)})
    robust, bare, naive = best["robust"], best["bare"], best["naive"]
    return [
        ["parse_tool_calls (robust)", f"{robust * 1000:.1f}", f"{megabytes / robust:.0f}", f"{robust / bare:.1f}x",
         f"{len(found.calls)} calls, 0 errors"],
        ["json.loads of the payloads only", f"{bare * 1000:.1f}", f"{payload_mb / bare:.0f}", "1.0x",
         f"reads only the {payload_mb:.2f} MB of JSON; no tag search, no checks"],
        ["parse_tool_calls_regex (naive)", f"{naive * 1000:.1f}", f"{megabytes / naive:.0f}", f"{naive / bare:.1f}x",
         f"{lost} calls silently lost (each has a tag inside a string)"],
    ], megabytes, {"parse_ratio": f"{robust / bare:.1f}", "json_ms": f"{bare * 1000:.1f}",
                   "naive_ratio": f"{naive / bare:.1f}", "naive_lost": str(lost)}


def streamed(text: str) -> tuple[list, "tool_core.StreamParser"]:
    """Feed text to a StreamParser one character at a time; return every item it reported, and the parser."""
    parser = tool_core.StreamParser()
    items = [item for character in text for item in parser.feed(character)]
    return items + parser.close(), parser


def standin_round_trips(n: int = 200) -> tuple[str, dict]:
    """Requests a second to the stand-in (bfcl_lab.StandIn) through AnthropicBackend, with a reply of text and two
    calls: unstreamed, and streamed (the events read back into the same answer); a new connection each, as urllib."""
    import bfcl_lab
    import interfaces
    message, _ = bfcl_lab.streamed_reply_natively()
    turn = tool_core.Turn(message["content"][0]["text"],
                          [(b["name"], b["input"]) for b in message["content"][1:]], "tool_use")
    tools = [interfaces.Anthropic().tool(t) for t in tool_core.orrin_grid_registry()[0]]
    rates = {}
    with bfcl_lab.StandIn(lambda conversation: turn) as server:
        for label, stream in (("plain", False), ("streamed", True)):
            backend = bfcl_lab.AnthropicBackend("", base_url=server.url, stream=stream)
            reply = backend.complete("s", "Look up E-1474 and SS-218.", tools)
            assert [next(iter(c)) for c in reply.calls] == ["get_incident", "get_substation"], reply
            began = time.perf_counter()
            for _ in range(n):
                backend.complete("s", "Look up E-1474 and SS-218.", tools)
            rates[label] = n / (time.perf_counter() - began)
    found = {"standin_plain": f"{rates['plain']:,.0f}", "standin_streamed": f"{rates['streamed']:,.0f}"}
    return (f"The stand-in, {n} requests through AnthropicBackend (a reply of text and two calls): "
            f"{found['standin_plain']}/s unstreamed, {found['standin_streamed']}/s streamed."), found


def stream_throughput() -> list[list]:
    """Feed about 1 MB (and a quarter of it) to StreamParser one character at a time: the work must stay linear."""
    quoting = tool_core.call_text("create_ticket", {"log": ("y" * 88 + tool_core.CLOSE) * 10_000})
    cases = [("the model text above (1,000 calls)", model_text()[0]),
             ("one call whose argument quotes </tool_call> 10,000 times", quoting),
             ("unclosed strings, as above", '<tool_call>{"a": "x' * (1_000_000 // 19))]
    rows = []
    for label, text in cases:
        quarter, runs = text[: len(text) // 4], {}
        times = best_of_each(1, {"all": lambda: runs.update(all=streamed(text)),
                                 "quarter": lambda: runs.update(quarter=streamed(quarter))})
        (items, parser), whole = runs["all"], tool_core.parse_tool_calls(text)
        assert (items, parser.text) == (whole.items, whole.text), f"{label}: not what parse_tool_calls finds"
        rows.append([label, f"{times['all']:.2f}", f"{times['quarter']:.2f}", f"{times['all'] / times['quarter']:.1f}",
                     f"{times['all'] / len(text) * 1e6:.2f}", f"{parser.scanned / len(text):.1f}", len(items)])
    return rows


BROKEN_INPUTS = [("'<tool_call>[' repeated", "<tool_call>["), ("'<tool_call>x' repeated", "<tool_call>x"),
                 ("unclosed strings", '<tool_call>{"a": "x'), ("'<tool_call>{}' repeated", "<tool_call>{}")]


def pathological_throughput() -> list[list]:
    """Time inputs an outside fuzz once found quadratic or worse; each must take milliseconds, not seconds."""
    call = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    recursive = {"anyOf": [{"type": "array", "items": {"$ref": "#"}, "minItems": 1},
                           {"type": "array", "items": {"$ref": "#"}, "maxItems": 3}]}
    deep: list = []
    for _ in range(40):
        deep = [deep]
    import bfcl_lab
    words = [f"w{i}" for i in range(20_000)]
    index = tool_catalog.BM25Index([[w] for w in words])
    blanks, tags = "```" + " " * 1_000_000 + "x" + call, "<tool_result>" * 80_000
    cases = [("a fence opener and 1 MB of blanks (parse_tool_calls)", lambda: tool_core.parse_tool_calls(blanks)),
             ("80,000 unclosed <tool_result> tags (parse_tool_results)", lambda: tool_core.parse_tool_results(tags)),
             ("a recursive anyOf, a value 40 deep (validate)", lambda: tool_core.validate(recursive, deep)),
             ("12 parallel calls matching none (ast_grade, optimal)", lambda: bfcl_lab.ast_grade(
                 [bfcl_lab.ADD], [{"add": {"a": [i], "b": [0]}} for i in range(12)],
                 [{"add": {"a": i + 100, "b": 0}} for i in range(12)], "parallel", optimal=True)),
             ("a 20,000-term query over 20,000 tools (BM25 top_k)", lambda: index.top_k(words, 10))]
    return [[label, f"{best_of(2, fn) * 1000:.1f}"] for label, fn in cases]


def broken_throughput() -> tuple[list[list], dict]:
    """Time about 1 MB (and a quarter of it) of broken calls: parsing must stay linear whatever the model wrote."""
    rows, seconds, per_call, growth = [], [], [], []
    for label, unit in BROKEN_INPUTS:
        text = unit * (1_000_000 // len(unit))
        quarter = text[: len(text) // 4]
        times = best_of_each(2, {"all": lambda: tool_core.parse_tool_calls(text),
                                 "quarter": lambda: tool_core.parse_tool_calls(quarter)})
        errors = len(tool_core.parse_tool_calls(text).errors)
        rows.append([label, f"{times['all'] * 1000:.0f}", f"{times['quarter'] * 1000:.0f}",
                     f"{times['all'] / errors * 1e6:.1f}", errors])
        seconds.append(times["all"])
        per_call.append(times["all"] / errors * 1e6)
        growth.append(times["all"] / times["quarter"])  # linear: 4 times the text, about 4 times the time
    return rows, {"broken_fastest": f"{min(seconds):.1f}", "broken_slowest": f"{max(seconds):.1f}",
                  "broken_growth_low": f"{min(growth):.1f}", "broken_growth_high": f"{max(growth):.1f}",
                  "broken_us_low": f"{min(per_call):.1f}", "broken_us_high": f"{max(per_call):.1f}"}


# Ten tool schemas as vendors' function-calling guides and MCP servers write them, each with two
# valid and two invalid argument objects (one to four errors each). Only keywords that jsonschema
# and fastjsonschema read as well, so that the three can be timed on the same data.
TOOL_SCHEMAS = [  # (tool name, parameters schema, valid arguments, invalid arguments)
    ("get_weather", {
        "type": "object",
        "properties": {"location": {"type": "string", "description": "City and country, e.g. Paris, France"},
                       "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        "required": ["location"], "additionalProperties": False},
     [{"location": "Paris, France"}, {"location": "Oslo", "unit": "celsius"}],
     [{"location": "Oslo", "unit": "kelvin"}, {"city": "Oslo", "unit": "celsius"}]),
    ("create_ticket", {
        "type": "object",
        "properties": {"substation_id": {"type": "string", "pattern": "^SS-[0-9]{3}$"},
                       "summary": {"type": "string", "minLength": 1, "maxLength": 200},
                       "priority": {"type": "string", "enum": ["low", "normal", "high"], "default": "normal"}},
        "required": ["substation_id", "summary"], "additionalProperties": False},
     [{"substation_id": "SS-218", "summary": "relay trips at dawn", "priority": "high"},
      {"substation_id": "SS-031", "summary": "fan noise"}],
     [{"substation_id": "SS-218", "summary": "relay trips", "priority": "urgent", "department": "grid"},
      {"substation_id": "218", "summary": ""}]),
    ("search_incidents", {
        "type": "object",
        "properties": {"filters": {"type": "object",
                                   "properties": {"status": {"type": "string", "enum": ["open", "resolved"]},
                                                  "substation_id": {"type": "string", "pattern": "^SS-[0-9]{3}$"},
                                                  "since": {"type": "string", "format": "date"}},
                                   "additionalProperties": False},
                       "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}},
        "required": ["filters"], "additionalProperties": False},
     [{"filters": {"status": "open", "substation_id": "SS-218"}, "limit": 5}, {"filters": {}}],
     [{"filters": {"status": "closed"}, "limit": 0}, {"filters": "open", "limit": 5.5}]),
    ("search_flights", {
        "type": "object",
        "properties": {"origin": {"type": "string", "pattern": "^[A-Z]{3}$"},
                       "destination": {"type": "string", "pattern": "^[A-Z]{3}$"},
                       "depart_date": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
                       "return_date": {"type": ["string", "null"], "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
                       "passengers": {"type": "integer", "minimum": 1, "maximum": 9},
                       "cabin": {"type": "string", "enum": ["economy", "premium", "business", "first"]}},
        "required": ["origin", "destination", "depart_date"], "additionalProperties": False},
     [{"origin": "OSL", "destination": "CDG", "depart_date": "2025-03-14", "return_date": None, "passengers": 2,
       "cabin": "economy"},
      {"origin": "SFO", "destination": "NRT", "depart_date": "2025-04-01", "return_date": "2025-04-12"}],
     [{"origin": "Oslo", "destination": "CDG", "depart_date": "14/03/2025", "passengers": 12},
      {"origin": "OSL", "depart_date": "2025-03-14", "cabin": "coach"}]),
    ("create_calendar_event", {
        "type": "object",
        "properties": {"title": {"type": "string", "maxLength": 120},
                       "start": {"type": "string"},
                       "duration_minutes": {"type": "integer", "multipleOf": 15, "minimum": 15, "maximum": 480},
                       "attendees": {"type": "array", "items": {"type": "string", "pattern": "^[^@ ]+@[^@ ]+$"},
                                     "uniqueItems": True, "maxItems": 50},
                       "reminders": {"type": "array", "items": {
                           "type": "object",
                           "properties": {"method": {"type": "string", "enum": ["email", "popup"]},
                                          "minutes": {"type": "integer", "minimum": 0}},
                           "required": ["method", "minutes"], "additionalProperties": False}}},
        "required": ["title", "start"], "additionalProperties": False},
     [{"title": "Feeder review", "start": "2025-03-14T09:00", "duration_minutes": 45,
       "attendees": ["dana@orrin.example", "gil@orrin.example"], "reminders": [{"method": "popup", "minutes": 10}]},
      {"title": "Standup", "start": "2025-03-14T09:30"}],
     [{"title": "Feeder review", "start": "2025-03-14T09:00", "duration_minutes": 50,
       "attendees": ["dana@orrin.example", "dana@orrin.example", "gil"]},
      {"title": "Standup", "start": "09:30", "reminders": [{"method": "sms", "minutes": 10}, {"minutes": -5}]}]),
    ("send_email", {
        "type": "object",
        "properties": {"to": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                       "cc": {"type": "array", "items": {"type": "string"}},
                       "subject": {"type": "string", "maxLength": 200},
                       "body": {"type": "string"},
                       "importance": {"type": "string", "enum": ["low", "normal", "high"]},
                       "attachments": {"type": "array", "items": {
                           "type": "object", "properties": {"filename": {"type": "string"},
                                                            "url": {"type": "string", "pattern": "^https://"}},
                           "required": ["filename", "url"]}}},
        "required": ["to", "subject", "body"], "additionalProperties": False},
     [{"to": ["gil.varga@example.com"], "subject": "Outage E-1474 resolved",
       "body": "Power was restored at 14:05. Sorry for the trouble.", "importance": "normal"},
      {"to": ["a@example.com", "b@example.com"], "cc": [], "subject": "Report", "body": "See attached.",
       "attachments": [{"filename": "report.pdf", "url": "https://files.example.com/r.pdf"}]}],
     [{"to": [], "subject": "Hi", "body": "x", "importance": "urgent"},
      {"to": "gil@example.com", "subject": "Hi", "attachments": [{"filename": "a.pdf", "url": "ftp://x"}]}]),
    ("update_order", {
        "type": "object",
        "$defs": {"address": {"type": "object",
                              "properties": {"street": {"type": "string"}, "city": {"type": "string"},
                                             "postcode": {"type": "string"},
                                             "country": {"type": "string", "pattern": "^[A-Z]{2}$"}},
                              "required": ["street", "city", "country"], "additionalProperties": False}},
        "properties": {"order_id": {"type": "string", "pattern": "^ORD-[0-9]{6}$"},
                       "items": {"type": "array", "minItems": 1, "items": {
                           "type": "object", "properties": {"sku": {"type": "string"},
                                                            "quantity": {"type": "integer", "minimum": 1},
                                                            "gift_wrap": {"type": "boolean"}},
                           "required": ["sku", "quantity"], "additionalProperties": False}},
                       "ship_to": {"$ref": "#/$defs/address"}},
        "required": ["order_id"], "additionalProperties": False},
     [{"order_id": "ORD-004211", "items": [{"sku": "TR-204-FUSE", "quantity": 2}, {"sku": "MT-123", "quantity": 1,
                                                                                   "gift_wrap": False}],
       "ship_to": {"street": "1 Grid Way", "city": "Orrin", "postcode": "4040", "country": "NO"}},
      {"order_id": "ORD-000001"}],
     [{"order_id": "ORD-42", "items": [{"sku": "TR-204-FUSE", "quantity": 0}]},
      {"order_id": "ORD-004211", "ship_to": {"street": "1 Grid Way", "country": "Norway"}}]),
    ("run_sql_query", {
        "type": "object",
        "properties": {"query": {"type": "string", "minLength": 1},
                       "params": {"type": "array", "items": {"type": ["string", "number", "boolean", "null"]}},
                       "timeout_ms": {"type": "number", "exclusiveMinimum": 0, "maximum": 60000},
                       "read_only": {"const": True}},
        "required": ["query", "read_only"], "additionalProperties": False},
     [{"query": "SELECT id, status FROM incidents WHERE substation = ? AND opened > ?",
       "params": ["SS-218", "2025-01-01"], "timeout_ms": 5000, "read_only": True},
      {"query": "SELECT count(*) FROM meters", "read_only": True}],
     [{"query": "DELETE FROM meters", "read_only": False, "timeout_ms": 0},
      {"query": "", "params": [["nested"]], "read_only": True}]),
    ("set_thermostat", {
        "type": "object",
        "$defs": {"celsius": {"type": "number", "minimum": 5, "maximum": 30, "multipleOf": 0.5},
                  "slot": {"type": "object",
                           "properties": {"day": {"enum": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]},
                                          "start": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$"},
                                          "temperature": {"$ref": "#/$defs/celsius"}},
                           "required": ["day", "start", "temperature"]}},
        "properties": {"zone": {"type": "string", "enum": ["living", "office", "garage"]},
                       "temperature": {"$ref": "#/$defs/celsius"},
                       "mode": {"type": "string", "enum": ["heat", "cool", "auto", "off"]},
                       "schedule": {"type": "array", "items": {"$ref": "#/$defs/slot"}, "maxItems": 14}},
        "required": ["zone"], "additionalProperties": False},
     [{"zone": "office", "temperature": 21.5, "mode": "heat",
       "schedule": [{"day": "mon", "start": "07:00", "temperature": 21}, {"day": "sat", "start": "09:30",
                                                                          "temperature": 19.5}]},
      {"zone": "garage", "mode": "off"}],
     [{"zone": "office", "temperature": 21.3, "mode": "warm"},
      {"zone": "attic", "schedule": [{"day": "monday", "start": "7am", "temperature": 40}]}]),
    ("lookup_customer", {
        "type": "object",
        "properties": {"customer_id": {"type": "string", "pattern": "^C-[0-9]+$"},
                       "email": {"type": "string", "pattern": "^[^@ ]+@[^@ ]+$"},
                       "account": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                       "include": {"type": "array", "items": {"enum": ["orders", "tickets", "meters"]},
                                   "uniqueItems": True}},
        "anyOf": [{"required": ["customer_id"]}, {"required": ["email"]}],
        "additionalProperties": False},
     [{"customer_id": "C-107", "include": ["tickets", "meters"]}, {"email": "gil.varga@example.com", "account": 4411}],
     [{"account": 4411.5, "include": ["bills"]}, {"customer_id": "107", "email": "gil"}]),
]


def validation_throughput(repeat: int) -> tuple[list[list], dict]:
    """Time validate on the valid, the invalid and all argument objects of TOOL_SCHEMAS, in us per object."""
    valid = [(schema, value) for _, schema, good, _ in TOOL_SCHEMAS for value in good]
    invalid = [(schema, value) for _, schema, _, bad in TOOL_SCHEMAS for value in bad]
    assert all(not tool_core.validate(s, v) for s, v in valid) and all(tool_core.validate(s, v) for s, v in invalid)
    rows, rounds = [], 100
    for label, pairs in [("valid arguments", valid), ("invalid arguments", invalid), ("all of them", valid + invalid)]:
        errors = [tool_core.validate(schema, value) for schema, value in pairs]
        seconds = best_of(5 * repeat, lambda: [tool_core.validate(s, v) for _ in range(rounds) for s, v in pairs])
        rows.append([f"{label} ({len(pairs)} objects, {sum(map(len, errors))} errors)",
                     f"{seconds / (rounds * len(pairs)) * 1e6:.1f}"])
    return rows, {"validate_valid": rows[0][1], "validate_invalid": rows[1][1]}


def registry_throughput(repeat: int) -> tuple[str, dict]:
    registry, _ = tool_core.orrin_grid_registry()
    good = {"substation_id": "SS-218", "summary": "relay trips", "priority": "high"}
    bad = good | {"priority": "urgent", "department": "x"}
    n = 2000
    ok = best_of(repeat, lambda: [registry.call("create_ticket", good) for _ in range(n)])
    refused = best_of(repeat, lambda: [registry.call("create_ticket", bad) for _ in range(n)])
    return (f"ToolRegistry.call: {n / ok:,.0f} valid create_ticket calls/s (validate + execute), "
            f"{n / refused:,.0f} refused calls/s (two errors each)"), {"registry_ok": about(n / ok),
                                                                        "registry_refused": about(n / refused)}


_ADDER_SERVER = """
import sys
sys.path.insert(0, {root!r})
import interfaces, tool_core
registry = tool_core.ToolRegistry()

@registry.tool(read_only=True)
def add(a: int, b: int) -> int:
    \"\"\"Add two integers.\"\"\"
    return a + b
"""
_STDIO_SERVER = _ADDER_SERVER + """
{serve}
"""  # serve: the line that serves `registry` on stdio (the core's serve_lines, or serve_stdio in full)


def _adder() -> tool_core.ToolRegistry:
    registry = tool_core.ToolRegistry()

    @registry.tool(read_only=True)
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return registry


def _round_trips(client, n: int) -> float:
    client.initialize()
    began = time.perf_counter()
    for i in range(n):
        client.call_tool("add", {"a": i, "b": 1})
    return n / (time.perf_counter() - began)


def interface_throughput() -> tuple[list[list], dict]:
    """Time a generated tool's HTTP round trip and MCP tools/call over each transport, in calls per second."""
    import interfaces
    rows, rates = [], {}  # rates: the README's names for the same figures
    with interfaces.CardinalServer() as backend:
        tools = interfaces.openapi_to_tools(backend.api.spec, backend.url, credentials={"ApiKeyAuth": backend.api.token})
        registry = tool_core.ToolRegistry(tools)
        n = 300
        began = time.perf_counter()
        for _ in range(n):
            assert registry.call("list_people", {"team": "firmware"}).ok
        rates["cardinal"] = n / (time.perf_counter() - began)
        rows.append(["generated tool list_people (validate + HTTP)", f"{rates['cardinal']:,.0f}"])
    for timeout, label, key in ((10.0, "with the 10 s tool timeout", ""), (None, "tool_timeout=None (inline)", "_inline")):
        server = interfaces.MCPServer(_adder(), tool_timeout=timeout)
        rates["mcp_in_process" + key] = _round_trips(interfaces.MCPClient(interfaces.InProcess(server.session())), 3000)
        rows.append([f"MCP tools/call, in process, {label}", f"{rates['mcp_in_process' + key]:,.0f}"])
        stdio = interfaces.Stdio([sys.executable, "-c", _STDIO_SERVER.format(
            root=str(ROOT), serve=f"interfaces.serve_stdio(interfaces.MCPServer(registry, tool_timeout={timeout}))")])
        try:
            rates["mcp_stdio" + key] = _round_trips(interfaces.MCPClient(stdio), 1500)
            rows.append([f"MCP tools/call, stdio (a subprocess), {label}", f"{rates['mcp_stdio' + key]:,.0f}"])
        finally:
            stdio.close()
    with interfaces.MCPHttpServer(interfaces.MCPServer(_adder())) as endpoint:
        http = interfaces.StreamableHTTP(endpoint.url)
        rates["mcp_http"] = _round_trips(interfaces.MCPClient(http), 500)
        rows.append(["MCP tools/call, Streamable HTTP (one kept-alive connection)", f"{rates['mcp_http']:,.0f}"])
        http.close()
    return rows, {name: about(rate) for name, rate in rates.items()}


_HTTP_SERVER = _ADDER_SERVER + """
endpoint = interfaces.MCPHttpServer(interfaces.MCPServer(registry)).start()
print(endpoint.url, flush=True)
sys.stdin.read()  # serve until the benchmark closes our stdin
endpoint.stop()
"""


def http_load(clients: int, calls: int) -> list:
    """`clients` MCP clients at once, each initialize + `calls` tools/call over Streamable HTTP to a server in
    another process (so that client and server do not share one interpreter lock); loopback only.

    Returns [clients x calls, answered correctly, lost, calls/s, p50 ms, p99 ms].
    """
    import interfaces
    import threading
    server = subprocess.Popen([sys.executable, "-c", _HTTP_SERVER.format(root=str(ROOT))], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        latencies, failures, lock = [], [], threading.Lock()
        start = threading.Barrier(clients)

        def client_run(k: int) -> None:
            client = interfaces.MCPClient(interfaces.StreamableHTTP(url))
            mine, lost = [], []
            try:
                start.wait()
                client.initialize()
                for i in range(calls):
                    began = time.perf_counter()
                    try:
                        result = client.call_tool("add", {"a": k, "b": i})
                        if result["content"][0]["text"] != str(k + i):
                            lost.append("wrong answer")
                    except Exception as exc:  # a reset or a refusal: counted, never hidden
                        lost.append(type(exc).__name__)
                    mine.append(time.perf_counter() - began)
            except Exception as exc:
                lost += [type(exc).__name__] * (calls - len(mine))
            finally:
                client.close()
            with lock:
                latencies.extend(mine)
                failures.extend(lost)

        threads = [threading.Thread(target=client_run, args=(k,)) for k in range(clients)]
        began = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        wall = time.perf_counter() - began
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    latencies.sort()
    total = clients * calls
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else float("nan")  # noqa: E731
    return [f"{clients} x {calls}", f"{total - len(failures):,}", f"{len(failures):,}", f"{total / wall:,.0f}",
            f"{pick(0.50):.1f}", f"{pick(0.99):.1f}"]


# --- 6b. Against the official Python SDK server: one raw client, the same add tool, side by side (issue 32) ---
# Each server is driven by the same bare client below (newline-delimited JSON-RPC over the server process's stdin
# and stdout, nothing else), so the figures compare servers, not clients. The SDK is never imported here:
# --sdk-python names another interpreter that has it, and its server script is written to a temp file at run time.

SDK_VENV = "python3 -m venv /tmp/sdk-venv && /tmp/sdk-venv/bin/pip install mcp"
SDK_SKIPPED = "MCP against the official Python SDK server: skipped"
_SDK_SERVER = '''
try:
    from mcp.server.mcpserver import MCPServer as FastMCP  # mcp 2.x renamed FastMCP to MCPServer
except ImportError:
    from mcp.server.fastmcp import FastMCP
server = FastMCP("adder")

@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b

server.run()  # stdio
'''
_SDK_VERSION = "import importlib.metadata as m, sys; print(sys.version.split()[0], m.version('mcp'))"
_CALL = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":1}}}\n'


class RawStdio:
    """A bare MCP client over a server process's stdio: initialize, notifications/initialized, then add(i, 1) calls."""

    def __init__(self, command: list[str], limit_s: float = 300):
        # subtle: stderr goes nowhere, not to a pipe: the SDK logs every request there, and a full pipe stalls it
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, cwd=ROOT)
        self.watchdog = threading.Timer(limit_s, self.process.kill)  # a hung server ends the run, not the machine
        self.watchdog.daemon = True
        self.watchdog.start()
        self.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "benchmark", "version": "1"}}}).encode() + b"\n")
        self.receive()
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    def send(self, lines: bytes) -> None:
        self.process.stdin.write(lines)
        self.process.stdin.flush()

    def receive(self) -> dict:
        """Read the next response (a message with an id); a notification in between is skipped."""
        while line := self.process.stdout.readline():
            message = json.loads(line)
            if "id" in message:
                return message
        raise RuntimeError(f"the server closed its stdout (exit status {self.process.poll()})")

    def close(self) -> None:
        self.watchdog.cancel()
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _check_sum(reply: dict) -> None:
    """Raise unless the reply is add(id, 1)'s result: a wrong or missing answer voids the comparison."""
    result = reply.get("result") or {}
    if result.get("isError") or result.get("content", [{}])[0].get("text") != str(reply["id"] + 1):
        raise RuntimeError(f"wrong answer to call {reply.get('id')}: {json.dumps(reply)[:200]}")


def raw_sequential(client: RawStdio, n: int) -> float:
    """Call add n times, each after the previous answer; return calls per second."""
    began = time.perf_counter()
    for i in range(1, n + 1):
        client.send(_CALL % (i, i))
        reply = client.receive()
        if reply["id"] != i:
            raise RuntimeError(f"answer to {reply['id']} where {i} was expected")
        _check_sum(reply)
    return n / (time.perf_counter() - began)


def raw_in_flight(client: RawStdio, n: int, window: int = 32) -> tuple[float, float]:
    """Call add n times keeping `window` calls outstanding (a new one sent per answer); return calls/s, p99 ms."""
    sent_at, latencies = {}, []
    began = time.perf_counter()
    first = range(1, min(window, n) + 1)
    for i in first:
        sent_at[i] = began
    client.send(b"".join(_CALL % (i, i) for i in first))
    following = iter(range(len(first) + 1, n + 1))
    while sent_at:
        reply = client.receive()
        latencies.append(time.perf_counter() - sent_at.pop(reply["id"]))
        _check_sum(reply)
        if (i := next(following, None)) is not None:
            sent_at[i] = time.perf_counter()
            client.send(_CALL % (i, i))
    wall = time.perf_counter() - began
    latencies.sort()
    return n / wall, latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] * 1000


def sdk_comparison(sdk_python: str, rounds: int = 3, sequential: int = 2000, in_flight: int = 3200,
                   window: int = 32) -> tuple[list[list], dict]:
    """Time the lab's stdio servers (the core; in full, its default tool_timeout and None) and the official SDK's,
    interleaved, `rounds`
    rounds, each in a new process after 200 warm-up calls; the best of each figure (p99: the lowest).

    Returns rows [server, sequential calls/s, 32 in flight calls/s, p99 ms] and the ratios lab / SDK."""
    import inspect
    import tempfile
    import interfaces
    default = inspect.signature(interfaces.MCPServer).parameters["tool_timeout"].default
    with tempfile.TemporaryDirectory() as scratch:
        script = Path(scratch) / "sdk_adder.py"
        script.write_text(_SDK_SERVER, encoding="utf-8")
        servers = {"this lab's core (part I, serve_lines: inline)":
                   "interfaces.serve_lines(interfaces.MCPCoreServer(registry))",
                   f"this lab in full, tool_timeout={default} (the default)":
                   "interfaces.serve_stdio(interfaces.MCPServer(registry))",
                   "this lab in full, tool_timeout=None (inline)":
                   "interfaces.serve_stdio(interfaces.MCPServer(registry, tool_timeout=None))"}
        servers = {label: [sys.executable, "-c", _STDIO_SERVER.format(root=str(ROOT), serve=serve)]
                   for label, serve in servers.items()} | {"the official SDK": [sdk_python, str(script)]}
        best = {label: [0.0, 0.0, float("inf")] for label in servers}
        was_enabled = gc.isenabled()
        gc.disable()  # the client's collections would land on one server's figure or the other's
        try:
            for _ in range(rounds):
                for label, command in servers.items():
                    client = RawStdio(command)
                    try:
                        raw_sequential(client, 200)
                        rate = raw_sequential(client, sequential)
                        loaded, p99 = raw_in_flight(client, in_flight, window)
                    finally:
                        client.close()
                    mine = best[label]
                    best[label] = [max(mine[0], rate), max(mine[1], loaded), min(mine[2], p99)]
        finally:
            if was_enabled:
                gc.enable()
    sdk = best["the official SDK"]
    ratios = {label: (seq / sdk[0], loaded / sdk[1], sdk[2] / p99) for label, (seq, loaded, p99) in best.items()}
    rows = [[label, f"{seq:,.0f}", f"{ratios[label][0]:.1f}x", f"{loaded:,.0f}", f"{ratios[label][1]:.1f}x",
             f"{p99:.2f}"] for label, (seq, loaded, p99) in best.items()]
    return rows, ratios


def sdk_report(sdk_python: str | None, rounds: int = 3) -> str:
    """The side-by-side comparison as text, or a line saying why it was skipped (no --sdk-python, or no mcp there)."""
    if not sdk_python:
        return (f"{SDK_SKIPPED}; it needs --sdk-python PATH, a Python with the "
                f"official mcp package (for example: {SDK_VENV}, then --sdk-python /tmp/sdk-venv/bin/python)")
    found = subprocess.run([sdk_python, "-c", _SDK_VERSION], capture_output=True, text=True)
    if found.returncode != 0:
        return (f"{SDK_SKIPPED}; --sdk-python {sdk_python} cannot import the "
                f"mcp package ({(found.stderr.strip().splitlines() or ['?'])[-1]}); make one with: {SDK_VENV}")
    sdk_version, mcp_version = found.stdout.split()
    rows, ratios = sdk_comparison(sdk_python, rounds)
    labels = list(ratios)  # the core, then MCP in full with its default guard and with tool_timeout=None
    (core_seq, core_loaded, core_p99), (guarded_seq, _, _), (inline_seq, _, _) = (ratios[label] for label in labels[:3])
    return (f"MCP tools/call over stdio against the official Python SDK server (mcp {mcp_version} on Python "
            f"{sdk_version}; this lab on Python {sys.version.split()[0]}), one raw stdlib client for both, add(a, b), "
            f"best of {rounds} interleaved rounds:\n\n"
            + tool_core.format_table(["server", "sequential calls/s", "x SDK", "32 in flight calls/s", "x SDK",
                                      "p99 ms (32 in flight)"], rows)
            + f"\n\nThis lab's core / the SDK: sequential {core_seq:.1f}x (issue 32 wants at least 5x; MCP in full: "
              f"{guarded_seq:.1f}x with its per-call deadline, {inline_seq:.1f}x with tool_timeout=None), 32 in flight "
              f"{core_loaded:.1f}x the calls/s with a p99 {core_p99:.1f} times lower")


def bfcl_throughput(copies: int = 3000) -> tuple[str, dict]:
    """Grade the nine questions' decoded answers of model A `copies` times with the AST grader."""
    import bfcl_lab
    truth = {a["id"]: a["ground_truth"] for a in bfcl_lab.POSSIBLE_ANSWERS}
    decoded = [(q, bfcl_lab.decode_result(bfcl_lab.MODEL_A[q["id"]])[0]) for q in bfcl_lab.QUESTIONS]
    began = time.perf_counter()
    for _ in range(copies):
        for q, calls in decoded:
            bfcl_lab.ast_grade(q["function"], truth[q["id"]], calls, bfcl_lab.category_of(q["id"]))
    rate = copies * len(decoded) / (time.perf_counter() - began)
    return (f"bfcl_lab.ast_grade: {rate:,.0f} entries/s (decoded answers, AST grader only)",
            {"bfcl_ast": about(rate)})


def bfcl_file_throughput(lines: int = 2000) -> str:
    """Grade a result folder as bfcl generate lays it out (a prompt model and an -FC model, `lines` results each,
    simple and parallel, some wrong) with `grade --result-dir`, score files written: whole-run lines per second."""
    import os
    import tempfile
    import bfcl_lab
    docs = {"simple": [bfcl_lab.ADD], "parallel": [bfcl_lab.ADD, bfcl_lab.MULT]}
    with tempfile.TemporaryDirectory() as root:
        for category, functions in docs.items():
            ids = [f"{category}_{i}" for i in range(lines // 2)]
            truth = [[{"add": {"a": [i], "b": [1]}}] + ([{"mult": {"a": [2], "b": [i]}}] if category == "parallel" else [])
                     for i in range(len(ids))]
            data = {f"BFCL_v4_{category}.json": [{"id": i, "question": [[{"role": "user", "content": "?"}]],
                                                  "function": functions} for i in ids],
                    f"possible_answer/BFCL_v4_{category}.json": [{"id": i, "ground_truth": t} for i, t in zip(ids, truth)]}
            for n, (entry, gold) in enumerate(zip(ids, truth)):
                calls = [(name, {k: v[0] + (n % 7 == 0) for k, v in args.items()}) for c in gold for name, args in c.items()]
                prompt = "[" + ", ".join(f"{name}({', '.join(f'{k}={v}' for k, v in a.items())})" for name, a in calls) + "]"
                data.setdefault(f"result/m/non_live/BFCL_v4_{category}_result.json", []).append({"id": entry, "result": prompt})
                data.setdefault(f"result/m-FC/non_live/BFCL_v4_{category}_result.json", []).append(
                    {"id": entry, "result": [{name: json.dumps(a)} for name, a in calls]})
            for name, rows in data.items():
                path = os.path.join(root, "data" if not name.startswith("result") else "", name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write("\n".join(json.dumps(r) for r in rows) + "\n")
        began = time.perf_counter()
        scores = bfcl_lab.grade_result_dir(os.path.join(root, "result"), os.path.join(root, "data"))
        for model, categories in scores.items():
            for score in categories:
                bfcl_lab.write_scores(os.path.join(root, "score"), model, score)
        seconds = time.perf_counter() - began
    total = sum(s.total for categories in scores.values() for s in categories)
    return (f"bfcl_lab grade --result-dir: {total:,} result lines (2 models x simple, parallel) read, decoded, graded "
            f"and scored in {seconds * 1000:.0f} ms: {total / seconds:,.0f} lines/s. The official bfcl evaluate on the "
            "same kind of files (measured outside the repo): 0.1-0.4 ms a line in process (2,500-8,500 lines/s) "
            "after a 4.4-6.5 s import")


def parallel_speedup() -> tuple[str, dict]:
    """Five read-only tools that each take 200 ms, called in one reply: run_agent runs them concurrently (5 workers)."""
    for read_only, label in ((False, "one by one"), (True, "concurrently")):
        registry = tool_core.ToolRegistry()
        for n in range(5):
            def slow(city: str) -> str:
                time.sleep(0.2)
                return f"sunny in {city}"
            registry.register(tool_core.tool_from_function(slow, name=f"weather_{n}", description="Slow weather.",
                                                           read_only=read_only))
        reply = "\n".join(tool_core.call_text(f"weather_{n}", {"city": "Paris"}) for n in range(5))
        began = time.perf_counter()
        tool_core.run_agent(tool_core.ScriptedLM([reply, "Done."]), registry, "Weather?", max_workers=5)
        if read_only:
            parallel = time.perf_counter() - began
        else:
            sequential = time.perf_counter() - began
    return (f"Five 200 ms tools in one reply: {sequential:.2f} s one by one (side effects: in order), "
            f"{parallel:.2f} s concurrently (read-only): {sequential / parallel:.1f}x"), {
        "tools_one_by_one": f"{sequential:.1f}", "tools_concurrently": f"{parallel:.1f}"}


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children and theirs; nan where unknown (Windows)."""
    try:
        import resource
    except ImportError:
        return float("nan")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


SUITE_BUDGET_S = 20  # issue 31: a plain suite that never flakes, under 20 s wall on an idle 2-core machine


def suite_time() -> tuple[str, dict]:
    """Time the whole test suite as CI runs it: wall, and CPU in the test process with the scripts it starts.

    The budget is SUITE_BUDGET_S wall on an idle 2-core machine; on a busy one the wall time follows the CPU time
    more than the cores, so compare CPU there."""
    began, cpu_before = time.perf_counter(), children_cpu()
    result = subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", "tests"], cwd=ROOT,
                            capture_output=True, text=True)
    wall, cpu = time.perf_counter() - began, children_cpu() - cpu_before
    ran = next((line for line in result.stderr.splitlines() if line.startswith("Ran ")), "?")
    verdict = "" if result.returncode == 0 else " (the suite FAILED: see python3 -m unittest discover -s tests)"
    return (f"The test suite: {ran.removeprefix('Ran ')}, {wall:.1f} s wall as a whole process "
            f"({'within' if wall < SUITE_BUDGET_S else 'over'} the {SUITE_BUDGET_S} s budget for an idle 2-core "
            "machine), "
            f"{cpu:.1f} s CPU with the scripts it runs{verdict}"), {
        "suite_tests": ran.split()[1] if ran != "?" else "?", "suite_wall": f"{wall:.1f}", "suite_cpu": f"{cpu:.1f}"}


# --- 10. Dependable on a busy machine: the same bytes from every script, a suite that passes every time ---
# A demo that raced its own threads printed another figure once in a few runs on a loaded machine, and the suite
# failed under load (issue 31). These checks load both cores with busy loops, each ending itself after a bounded
# time (and killed at the end), then run the scripts or the suite again and again.

BUSY_LOOP = "import time\nend = time.monotonic() + float(__import__('sys').argv[1])\nwhile time.monotonic() < end: pass"


def busy_loops(count: int, seconds: float) -> list[subprocess.Popen]:
    """Start `count` processes that each spin one core for at most `seconds` (stop them with stop_busy)."""
    return [subprocess.Popen([sys.executable, "-c", BUSY_LOOP, str(seconds)]) for _ in range(count)]


def stop_busy(loops: list[subprocess.Popen]) -> None:
    for loop in loops:
        loop.kill()
        loop.wait()


def script_bytes(script: Path, args: tuple[str, ...] = ()) -> bytes:
    """What one run of a script prints (stdout and stderr, with its exit status), as bytes."""
    done = subprocess.run([sys.executable, str(script), *args], cwd=ROOT, capture_output=True, timeout=120)
    return done.stdout + b"\n--- stderr ---\n" + done.stderr + f"\n--- exit {done.returncode} ---".encode()


def same_bytes_under_load(runs: int = 20, busy: int = 4, limit_s: float = 900) -> list[list]:
    """Run every numbered script once on this machine as it is, then `runs` times more with `busy` busy loops
    loading the cores; a row per script: runs, how many printed the very same bytes, the first run that differed."""
    scripts = sorted((ROOT / "scripts").glob("[0-9][0-9]_*.py"))
    reference = {script: script_bytes(script) for script in scripts}
    loops = busy_loops(busy, limit_s)
    rows = []
    try:
        for script in scripts:
            same, first_different = 0, "-"
            for n in range(1, runs + 1):
                if script_bytes(script) == reference[script]:
                    same += 1
                elif first_different == "-":
                    first_different = str(n)
            rows.append([script.name, runs, same, first_different, "ok" if same == runs else "DIFFERENT OUTPUT"])
    finally:
        stop_busy(loops)
    return rows


def suite_under_load(runs: int = 10, busy: int = 4, python: str = sys.executable, limit_s: float = 1800) -> list[list]:
    """Run the README's test command `runs` times with `python` while `busy` busy loops load the cores; a row a run:
    its verdict, wall seconds, and the summary line."""
    loops = busy_loops(busy, limit_s)
    rows = []
    try:
        for n in range(1, runs + 1):
            began = time.perf_counter()
            done = subprocess.run([python, "-m", "unittest", "discover", "-s", "tests"], cwd=ROOT,
                                  capture_output=True, text=True, timeout=600)
            last = [line for line in done.stderr.splitlines() if line.strip()][-1:] or ["?"]
            ran = next((line for line in done.stderr.splitlines() if line.startswith("Ran ")), "Ran ?")
            rows.append([n, "pass" if done.returncode == 0 else "FAIL", f"{time.perf_counter() - began:.1f}",
                         f"{ran}; {last[0]}"])
    finally:
        stop_busy(loops)
    return rows


def run(repeat: int, say=print, sdk_python: str | None = None) -> dict[str, str]:
    """Run every timing, handing each report to `say`; return this run's figures, by the names PERFORMANCE_ROWS uses."""
    figures: dict[str, str] = {}
    say(f"interpreter: Python {sys.version.split()[0]}\n")
    rows = time_scripts(repeat)
    seconds = [float(row[1]) for row in rows]
    figures.update(scripts_fastest=f"{min(seconds):.2f}", scripts_slowest=f"{max(seconds):.2f}")
    say(tool_core.format_table(["script", "seconds (best)", "verdict"], rows))
    rows, megabytes, found = parser_throughput(repeat)
    figures.update(found)
    say(f"\nParsing {megabytes:.2f} MB of model text holding 1,000 calls:\n")
    say(tool_core.format_table(["parser", "ms", "MB/s", "x json.loads", "note"], rows))
    rows, found = broken_throughput()
    figures.update(found)
    say("\nParsing about 1 MB of broken calls (one ParseError each; must stay linear):\n")
    say(tool_core.format_table(["input", "ms", "ms, first 0.25 MB", "us per call", "errors"], rows))
    say("\nStreamParser fed about 1 MB a character at a time (parse_tool_calls' items; must stay linear):\n")
    rows = stream_throughput()
    figures.update(stream_us=rows[0][4], stream_ratio_low=min((row[3] for row in rows), key=float),
                   stream_ratio_high=max((row[3] for row in rows), key=float))
    say(tool_core.format_table(["input", "s", "s, first 0.25 MB", "ratio", "us per character", "read per character",
                                "items"], rows))
    text, found = standin_round_trips()
    figures.update(found)
    say("\n" + text)
    say("\nInputs that were once quadratic or worse (each took seconds to minutes):\n")
    say(tool_core.format_table(["input", "ms"], pathological_throughput()))
    rows, found = validation_throughput(repeat)
    figures.update(found)
    say("\nChecking tool-call arguments against the ten schemas of TOOL_SCHEMAS (us per object):\n")
    say(tool_core.format_table(["arguments", "validate"], rows))
    text, found = registry_throughput(repeat)
    figures.update(found)
    say("\n" + text)
    rows, found = interface_throughput()
    figures.update(found)
    say("\nCalls per second through the interfaces of scripts/04:\n")
    say(tool_core.format_table(["path", "calls/s"], rows))
    loads = [http_load(50, 200), http_load(32, 100)]  # each: [clients x calls, answered, lost, calls/s, p50, p99]
    figures.update(load_answered=loads[0][1], load_lost=loads[0][2], load_p99=loads[0][5], load32_p99=loads[1][5])
    say("\nMCP over Streamable HTTP under load (clients at once x tools/call each; the server in another process):\n")
    say(tool_core.format_table(["clients x calls", "answered", "lost", "calls/s", "p50 ms", "p99 ms"], loads))
    say("\n" + sdk_report(sdk_python, max(3, repeat)))
    table = tool_catalog.scale_figures(queries=200)
    largest = table.rows[-1]  # [tools, index (s), top-10 pruned (ms), top-10 full scan (ms), postings touched]
    assert largest[0] == "16,000", largest
    figures.update(bm25_index=f"{float(largest[1]):.2f}", bm25_top10=largest[2], bm25_full=largest[3])
    say("\nBM25 tool retrieval at scale:\n")
    say(table)
    text, found = bfcl_throughput()
    figures.update(found)
    say("\n" + text)
    say(bfcl_file_throughput())
    for measure in (parallel_speedup, suite_time):
        text, found = measure()
        figures.update(found)
        say("\n" + text)
    return figures


# --- The README's Performance table: python3 scripts/benchmark.py --markdown ---
# One row per line of the table: what is measured, the figure, what to compare it with. Each {name} is filled from
# this run (run() returns them); the rest is fixed text. The outside figures in "compare with" (other packages,
# the official BFCL checker, this code before a change) were measured outside the repo or on an earlier version,
# so no run of this script can recompute them: they are kept here as text and printed beside this run's figures.
PERFORMANCE_HEADERS = ("what", "figure", "compare with")
PERFORMANCE_ROWS = [
    ("each numbered script, whole process", "{scripts_fastest}–{scripts_slowest} s", "the 1 s budget"),
    ("the test suite ({suite_tests} tests)", "{suite_wall} s wall, {suite_cpu} s CPU with the scripts it runs",
     "the budget: 20 s wall on an idle 2-core machine, in one plain process; with a second test process (until "
     "issue 31, when it went for flaking under load): 6.8–9.7 s wall, 10.4–13.8 s CPU over ten idle runs"),
    ("`parse_tool_calls`, 1 MB with 1,000 calls",
     "{parse_ratio}x `json.loads` of the payloads alone ({json_ms} ms; public json APIs only)",
     "the naive regex parser: {naive_ratio}x, and it loses {naive_lost} calls"),
    ("broken calls, 1 MB",
     "{broken_fastest}–{broken_slowest} s, linear (4 times the text: {broken_growth_low}–{broken_growth_high} times "
     "the time; {broken_us_low}–{broken_us_high} µs per broken call)",
     "before the single-scan parser: 10–21 µs per broken call"),
    ("`StreamParser`, a reply fed a character at a time (about 1 MB)",
     "{stream_us} µs per character, linear (4 times the text: {stream_ratio_low}–{stream_ratio_high} times the time); "
     "each call reported at its closing tag",
     "`parse_tool_calls` on the whole reply: the same items at every split point (the tests feed them all)"),
    ("a stand-in round trip through `AnthropicBackend` (text and two calls)",
     "{standin_plain}/s unstreamed, {standin_streamed}/s streamed (events read back into the same answer)",
     "a real API: the model's own time, seconds a turn; streaming changes when a call is ready, not the cost"),
    ("`validate`, tool arguments", "{validate_valid} µs per object (valid), {validate_invalid} µs (invalid)",
     "jsonschema's prebuilt validator: 56–65 / 69–73 µs; fastjsonschema: 4.0 / 4.6 µs (measured outside the repo, "
     "on a busier day)"),
    ("`ToolRegistry.call` (validate + execute)", "about {registry_ok} calls/s ({registry_refused}/s refused)",
     "with a second, compiled validator (until issue 22): about 210,000/s on the same machine"),
    ("a generated Cardinal tool (validation + a kept-alive HTTP round trip)", "about {cardinal} calls/s",
     "a new connection per call (before keep-alive): about 1,400/s on a quieter day"),
    ("MCP `tools/call`, trivial tool",
     "{mcp_in_process}/s in process, {mcp_stdio}/s over stdio, {mcp_http}/s over HTTP (one client in the same "
     "process); without the tool timeout {mcp_in_process_inline}/s and {mcp_stdio_inline}/s",
     "before issue 32 (every call on a worker, a second thread waiting on it): 4,500/s in process, 2,900/s "
     "over stdio; now over stdio the reading thread runs each call and hands the reading on past 5 ms; in "
     "process a call with a deadline or one that may talk to the host costs a thread, over HTTP an event stream"),
    ("MCP over HTTP under load: 50 clients at once × 200 `tools/call`",
     "{load_answered} answered, {load_lost} lost; p99 {load_p99} ms (32 × 100: {load32_p99} ms), with `MCPClient` "
     "as the client",
     "the code before issue 26, the same day: p99 86–95 ms (32 × 100: 55 ms); every call on an event stream "
     "(issue 26's first version): 201–223 ms; with one stdlib load client for both, 32 × 100: this server p99 "
     "33–46 ms, the official Python SDK server 87–96 ms (JSON responses) and 158–186 ms (SSE, its default)"),
    ("BM25 top-10 over 16,000 tools", "{bm25_top10} ms (index: {bm25_index} s)",
     "the same index scored in full: {bm25_full} ms"),
    ("BFCL AST grader", "about {bfcl_ast} entries/s", "the official checker: about 25,000/s after a 12 s import"),
    ("five 200 ms tools in one reply", "{tools_one_by_one} s one by one, {tools_concurrently} s concurrently", ""),
]


def markdown_row(cells) -> str:
    """Join cells as a Markdown table row. Example: ['a', ''] -> '| a | |'."""
    return "|" + "|".join(f" {cell} " if cell else " " for cell in cells) + "|"


def performance_table(figures: dict[str, str]) -> str:
    """Fill PERFORMANCE_ROWS with one run's figures: the README's Performance table, header line first."""
    lines = [markdown_row(PERFORMANCE_HEADERS), markdown_row(["---"] * len(PERFORMANCE_HEADERS))]
    return "\n".join(lines + [markdown_row([cell.format_map(figures) for cell in row]) for row in PERFORMANCE_ROWS])


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """Read the command line: --repeat N, --markdown, --sdk-python PATH [--only-sdk], and the loaded checks."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=2, help="runs per measurement; the best is kept (default 2)")
    parser.add_argument("--markdown", action="store_true",
                        help="print the README's Performance table on stdout (the report goes to stderr)")
    parser.add_argument("--same-bytes", type=int, metavar="RUNS", default=0,
                        help="only this: run every numbered script RUNS times on a loaded machine and compare the "
                             "bytes with an unloaded run (issue 31 asks for 20; about 5 minutes)")
    parser.add_argument("--suite-under-load", type=int, metavar="RUNS", default=0,
                        help="only this: run the test suite RUNS times on a loaded machine (issue 31 asks for 10)")
    parser.add_argument("--busy", type=int, default=4, help="busy loops for the two checks above (default 4)")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter for --suite-under-load (default: this one)")
    parser.add_argument("--sdk-python", metavar="PATH",
                        help="a Python with the official mcp package: time this lab's stdio server beside the SDK's "
                             f"(without it, that comparison is skipped; make one with: {SDK_VENV})")
    parser.add_argument("--only-sdk", action="store_true",
                        help="only this: the comparison with the official SDK server (needs --sdk-python; best of "
                             "--repeat rounds, at least 3)")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.same_bytes < 0 or args.suite_under_load < 0 or args.busy < 0:
        parser.error("--repeat must be at least 1; --same-bytes, --suite-under-load and --busy at least 0")
    if args.only_sdk and not args.sdk_python:
        parser.error(f"--only-sdk needs --sdk-python PATH, a Python with the official mcp package ({SDK_VENV})")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    if args.same_bytes or args.suite_under_load:
        failed = False
        if args.same_bytes:
            rows = same_bytes_under_load(args.same_bytes, args.busy)
            failed |= any(row[-1] != "ok" for row in rows)
            print(f"Every numbered script, {args.same_bytes} runs with {args.busy} busy loops, against an unloaded "
                  "run:\n")
            print(tool_core.format_table(["script", "runs", "same bytes", "first different", "verdict"], rows))
        if args.suite_under_load:
            rows = suite_under_load(args.suite_under_load, args.busy, args.python)
            failed |= any(row[1] != "pass" for row in rows)
            print(f"\nThe test suite with {args.python}, {args.suite_under_load} runs with {args.busy} busy loops:\n")
            print(tool_core.format_table(["run", "verdict", "wall s", "summary"], rows))
        return 1 if failed else 0
    if args.only_sdk:
        report = sdk_report(args.sdk_python, max(3, args.repeat))
        print(report)
        return 1 if report.startswith(SDK_SKIPPED) else 0
    if not args.markdown:
        run(args.repeat, sdk_python=args.sdk_python)
        return 0
    figures = run(args.repeat, say=lambda text: print(text, file=sys.stderr, flush=True), sdk_python=args.sdk_python)
    print(performance_table(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
