"""Code 01: why language models need tools (lecture 001 sections 1 and 2).

Demo 1, can't compute: a 5-gram model trained on "a times b is c" recites the products it saw
        and guesses the rest; accuracy tracks how many test problems it saw; calculate is exact.
Demo 2, hasn't seen / can't reach: a model trained on 2024 text gives 2024's remote-work rule
        and the most frequent "Today is ..." word; a policy lookup and a calendar know better.
Demo 3, what a tool is: 17,423 x 892 through tool_core.run_agent with a scripted model.
Demo 4, four families, one shape: a lab tool for each of lecture 000's families (knowledge access, computation,
        interaction with the world, non-textual modalities), its name, typed inputs and typed output read off its
        schemas, and one call of each through the same registry.

Runs offline in well under a second. --seed draws the multiplication problems (default 0).
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tool_core  # noqa: E402
import toolformer_lab  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="seed for the multiplication problems (default 0)")
    tool_core.add_vs_handout(parser)
    args = parser.parse_args()
    sections = [("Demo 1. Can't compute: multiplication from memory", lambda: toolformer_lab.demo_cant_compute(args.seed)),
                ("Demo 2. Hasn't seen, can't reach: 2024 text in 2026", toolformer_lab.demo_cant_see),
                ("Demo 3. A tool call: calculate(17423 * 892) through the loop", toolformer_lab.demo_calculator_loop),
                ("Demo 4. Four families of tools, one shape", toolformer_lab.demo_tool_families)]
    tool_core.print_demos(sections, tool_core.vs_handout(args, "01", toolformer_lab.HANDOUT_01))


if __name__ == "__main__":
    main()
