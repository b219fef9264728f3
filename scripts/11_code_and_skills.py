"""Code 11: code as a tool (slides 003, "Code as a tool"; CodeAct; programmatic tool calling).

Demo 1: the model writes one short program that calls the tools as functions, and the harness runs it in a
        sandbox (interfaces.run_program: a subset of Python interpreted on its syntax tree, never eval or exec;
        every call through ToolRegistry.call): what it saves against direct calls (model passes, tokens into
        the context, tool calls), what it costs (the host approves a program, not each call), and what the
        sandbox refuses.

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
    sections = [("Demo 1. Code as a tool: one program instead of a call per turn", interfaces.demo_code_as_a_tool)]
    tool_core.print_demos(sections, tool_core.vs_handout(args.vs_handout, "11", []))


if __name__ == "__main__":
    main()
