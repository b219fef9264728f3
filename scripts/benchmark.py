"""Timing checks, kept out of the unit tests: demo script times and parser throughput.

1. Every numbered demo script, run with the real interpreter (sys.executable, not a shim):
   best of --repeat wall times; anything over 1 s is flagged.
2. parse_tool_calls on about 1 MB of model text holding 1,000 calls, next to bare json.loads
   of the same 1,000 payloads and the naive regex parser.
3. parse_tool_calls on about 1 MB of broken calls (it must stay linear).
4. ToolRegistry.call (validate + execute) on the Orrin Grid create_ticket schema.
5. interfaces: one call through a generated Cardinal tool (validation + a real HTTP round trip),
   and MCP tools/call round trips per second in process, over stdio and over Streamable HTTP
   (a trivial tool, so the figure is the protocol's cost, not the tool's).
6. tool_catalog: BM25 indexing and top-10 latency at 150 / 1,600 / 16,000 tools.
7. bfcl_lab: entries graded per second by the AST grader (the official checker: about 25,000/s).

Not a numbered demo, so run_all.py skips it. Takes about 30 s. Usage: python3 scripts/benchmark.py [--repeat N]
"""
import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tool_core  # noqa: E402


def best_of(repeat: int, fn) -> float:
    """Return the fastest of `repeat` timings of fn(), in seconds."""
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        fn()
        times.append(time.perf_counter() - began)
    return min(times)


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
    robust = best_of(repeat, lambda: tool_core.parse_tool_calls(text))
    bare = best_of(repeat, lambda: [json.loads(p) for p in payloads])
    naive = best_of(repeat, lambda: tool_core.parse_tool_calls_regex(text))
    found = tool_core.parse_tool_calls(text)
    assert len(found.calls) == len(payloads) and not found.errors, "the robust parser must find every call"
    lost = len(payloads) - len(tool_core.parse_tool_calls_regex(text))
    return [
        ["parse_tool_calls (robust)", f"{robust * 1000:.1f}", f"{megabytes / robust:.0f}", f"{len(found.calls)} calls, 0 errors"],
        ["json.loads of the payloads only", f"{bare * 1000:.1f}", f"{payload_mb / bare:.0f}",
         f"reads only the {payload_mb:.2f} MB of JSON; no tag search, no checks"],
        ["parse_tool_calls_regex (naive)", f"{naive * 1000:.1f}", f"{megabytes / naive:.0f}",
         f"{lost} calls silently lost (each has a tag inside a string)"],
    ], megabytes


def broken_throughput() -> list[list]:
    """Time about 1 MB of broken calls: parsing must stay linear whatever the model wrote."""
    rows = []
    for label, unit in [("'<tool_call>[' repeated", "<tool_call>["), ("'<tool_call>x' repeated", "<tool_call>x"),
                        ("unclosed strings", '<tool_call>{"a": "x'), ("'<tool_call>{}' repeated", "<tool_call>{}")]:
        text = unit * (1_000_000 // len(unit))
        began = time.perf_counter()
        found = tool_core.parse_tool_calls(text)
        rows.append([label, f"{(time.perf_counter() - began) * 1000:.0f}", len(found.errors)])
    return rows


def registry_throughput(repeat: int) -> str:
    registry, _ = tool_core.orrin_grid_registry()
    good = {"substation_id": "SS-218", "summary": "relay trips", "priority": "high"}
    bad = good | {"priority": "urgent", "department": "x"}
    n = 2000
    ok = best_of(repeat, lambda: [registry.call("create_ticket", good) for _ in range(n)])
    refused = best_of(repeat, lambda: [registry.call("create_ticket", bad) for _ in range(n)])
    return (f"ToolRegistry.call: {n / ok:,.0f} valid create_ticket calls/s (validate + execute), "
            f"{n / refused:,.0f} refused calls/s (two errors each)")


_STDIO_SERVER = """
import sys
sys.path.insert(0, {root!r})
import interfaces, tool_core
registry = tool_core.ToolRegistry()

@registry.tool(read_only=True)
def add(a: int, b: int) -> int:
    \"\"\"Add two integers.\"\"\"
    return a + b

interfaces.serve_stdio(interfaces.MCPServer(registry, tool_timeout={timeout}))
"""


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


def interface_throughput() -> list[list]:
    """Time a generated tool's HTTP round trip and MCP tools/call over each transport."""
    import interfaces
    rows = []
    with interfaces.CardinalServer() as backend:
        tools = interfaces.openapi_to_tools(backend.api.spec, backend.url, credentials={"ApiKeyAuth": backend.api.token})
        registry = tool_core.ToolRegistry(tools)
        n = 300
        began = time.perf_counter()
        for _ in range(n):
            assert registry.call("list_people", {"team": "firmware"}).ok
        rows.append(["generated tool list_people (validate + HTTP)", f"{n / (time.perf_counter() - began):,.0f}"])
    for timeout, label in ((10.0, "with the 10 s tool timeout"), (None, "tool_timeout=None (inline)")):
        server = interfaces.MCPServer(_adder(), tool_timeout=timeout)
        rows.append([f"MCP tools/call, in process, {label}",
                     f"{_round_trips(interfaces.MCPClient(interfaces.InProcess(server.session())), 3000):,.0f}"])
        stdio = interfaces.Stdio([sys.executable, "-c", _STDIO_SERVER.format(root=str(ROOT), timeout=timeout)])
        try:
            rows.append([f"MCP tools/call, stdio (a subprocess), {label}",
                         f"{_round_trips(interfaces.MCPClient(stdio), 3000):,.0f}"])
        finally:
            stdio.close()
    with interfaces.MCPHttpServer(interfaces.MCPServer(_adder())) as endpoint:
        http = interfaces.StreamableHTTP(endpoint.url)
        rows.append(["MCP tools/call, Streamable HTTP (a connection per request)",
                     f"{_round_trips(interfaces.MCPClient(http), 500):,.0f}"])
        http.close()
    return rows


def bfcl_throughput(copies: int = 3000) -> str:
    """Grade the nine questions' decoded answers of model A `copies` times with the AST grader."""
    import bfcl_lab
    truth = {a["id"]: a["ground_truth"] for a in bfcl_lab.POSSIBLE_ANSWERS}
    decoded = [(q, bfcl_lab.decode_result(bfcl_lab.MODEL_A[q["id"]])[0]) for q in bfcl_lab.QUESTIONS]
    began = time.perf_counter()
    for _ in range(copies):
        for q, calls in decoded:
            bfcl_lab.ast_grade(q["function"], truth[q["id"]], calls, bfcl_lab.category_of(q["id"]))
    seconds = time.perf_counter() - began
    return f"bfcl_lab.ast_grade: {copies * len(decoded) / seconds:,.0f} entries/s (decoded answers, AST grader only)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept (default 3)")
    args = parser.parse_args()
    print(f"interpreter: Python {sys.version.split()[0]}\n")
    print(tool_core.format_table(["script", "seconds (best)", "verdict"], time_scripts(args.repeat)))
    rows, megabytes = parser_throughput(args.repeat)
    print(f"\nParsing {megabytes:.2f} MB of model text holding 1,000 calls:\n")
    print(tool_core.format_table(["parser", "ms", "MB/s", "note"], rows))
    print("\nParsing about 1 MB of broken calls (one ParseError each; must stay linear):\n")
    print(tool_core.format_table(["input", "ms", "errors"], broken_throughput()))
    print("\n" + registry_throughput(args.repeat))
    print("\nCalls per second through the interfaces of scripts/04:\n")
    print(tool_core.format_table(["path", "calls/s"], interface_throughput()))
    import tool_catalog
    print("\nBM25 tool retrieval at scale:\n")
    print(tool_catalog.scale_figures())
    print("\n" + bfcl_throughput())


if __name__ == "__main__":
    main()
