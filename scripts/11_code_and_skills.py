"""Code 11: code as a tool, and the ways to give an agent a capability (slides 003: "Code as a tool", CodeAct,
programmatic tool calling; skills, MCP, the CLI).

Demo 1: the model writes one short program that calls the tools as functions, and the harness runs it in a
        sandbox (interfaces.run_program: a subset of Python interpreted on its syntax tree, never eval or exec;
        every call through ToolRegistry.call): what it saves against direct calls (model passes, tokens into
        the context, tool calls), what it costs (the host approves a program, not each call), and what the
        sandbox refuses.
Demo 2: one capability (searching the offline arXiv) given four ways: as a CLI the agent runs through a shell
        (a simulated one: echo, cat, curl to loopback only), as an MCP server, as a skill (SKILL.md, read when
        relevant: progressive disclosure) and as the app's own tool: the tokens each puts in the context before
        and after one use, who holds the API key, what an injected instruction can do with it (the shell's key
        reaches the attacker; MCP's appears in 0 messages), and the slides' "your call" table.

ToolBench's way of grading (solution paths by a greedy chain and by depth-first search, pass rate and win rate) is
scripts/06_evaluation.py's demo 5. Runs offline in well under a second; no program text is ever passed to eval.
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
    sections = [("Demo 1. Code as a tool: one program instead of a call per turn", interfaces.demo_code_as_a_tool),
                ("Demo 2. Four ways to give a capability: the shell, MCP, a skill, the app's own tool",
                 interfaces.demo_four_ways)]
    tool_core.print_demos(sections, tool_core.vs_handout(args, "11", []))


if __name__ == "__main__":
    main()
