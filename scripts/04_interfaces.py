"""Code 04: REST -> function schemas -> MCP, one tool in every dialect, inbound vs outbound auth (lecture 001 §5).

Demo 1: generation 1, REST. The model reads the Cardinal API's docs and writes
        GET /people?department=firmware itself; the tolerant API ignores the unknown
        parameter and lists everyone, and the model's answer is silently wrong.
Demo 2: generation 2, function schemas. openapi_to_tools turns /openapi.json into tools;
        the same mistake is refused before any request, the model corrects itself, and the
        backend receives exactly one request.
Then: the same tool in each vendor's dialect with its token count, strict mode's changes,
      and three parallel calls through every dialect and back.
Demo 3: generation 3, MCP. The generated tools behind an MCP server: the handshake, tools/list
        discovered at run time, the two kinds of error under two protocol revisions, and
        list_changed when the backend gains GET /health.
Demo 4: inbound vs outbound auth on MCP's core: no token, the agent's read-only token, the
        admin token; the backend key counted in every message (0); a rug pull caught by the
        host's pins.

Demo 6: the revision of 2026-07-28 beside 2025-11-25: the same question to the user, message by
        message (a request of the server's mid-call, then an input_required result and the
        retry, across two instances behind a round-robin balancer); the long export of demo 5 as
        a task (the tasks extension: a handle at once, then polls); what changed and why.
Real HTTP on 127.0.0.1 with ephemeral ports; every server is stopped before the script ends.
Runs offline in well under a second. No randomness, so no --seed.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import interfaces  # noqa: E402
import tool_core  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    tool_core.add_vs_handout(parser)
    args = parser.parse_args()
    sections = [("Demo 1. Generation 1, REST: the model writes the request", interfaces.demo_rest),
                ("Demo 2. Generation 2, a function schema: checked before anything is sent",
                 interfaces.demo_function_schema),
                ("One tool, every dialect", interfaces.demo_dialects),
                ("Demo 3. Generation 3, MCP: tools discovered at run time", interfaces.demo_mcp),
                ("Demo 4. Inbound vs outbound auth, and a rug pull", interfaces.demo_auth),
                ("Demo 5. Tools, resources, prompts: who controls each; the server asking back",
                 interfaces.demo_primitives),
                ("Demo 6. MCP 2026-07-28: the same question, with no session", interfaces.demo_two_revisions)]
    tool_core.print_demos(sections, tool_core.vs_handout(args, "04", interfaces.HANDOUT_04))


if __name__ == "__main__":
    main()
