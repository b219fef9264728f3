"""Code 03: the harness side of a tool call (lecture 001 sections 5.5 and 6).

Demo 1: the registry's three error kinds side by side (unknown_tool, invalid_arguments,
        execution_error): what the model sees and who must act on each.
Demo 2: twelve odd model outputs through the naive regex parser and the robust one.
Demo 3: the loop with a scripted model: parallel calls, relevance, self-correction.
Then: what the tool definitions cost in the prompt.

Runs offline in well under a second. No randomness, so no --seed: the output is the same every run.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tool_core  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    tool_core.add_vs_handout(parser)
    args = parser.parse_args()
    sections = [("Demo 1. Three kinds of error, three different readers", tool_core.demo_error_kinds),
                ("Demo 2. Twelve model outputs, two parsers", tool_core.demo_parsers),
                ("Demo 3. The loop: parallel calls, relevance, correction", tool_core.demo_loop),
                ("What the tools cost in the prompt", tool_core.demo_prompt_cost)]
    tool_core.print_demos(sections, tool_core.vs_handout(args, "03", tool_core.HANDOUT_03))


if __name__ == "__main__":
    main()
