"""Code 05: choosing among many tools (lecture 001 section 4): retrieval, hallucination, AST matching.

First: lecture 000's table of four ways to teach a model its tools (Toolformer, ToolkenGPT, Gorilla, ToolLLM),
        its figures quoted, and the one mechanism of each that the lab computes, with where to see it.
Demo 1: the Orrin Grid catalog: 15 objects x 10 operations = 150 tools, one word apart.
Demo 2: all tools in context at 10 / 30 / 75 / 150: accuracy and tokens per request.
Demo 3: BM25 retrieval then pick, k = 1, 3, 5, 10: recall on original vs paraphrased requests,
        accuracy, wrong and invented tools, tokens; zero-shot; retrieval-aware picking (RAT).
Demo 4: Gorilla's AST check on calls for "What's the current status of transformer TR-204?",
        and the torch.hub sub-tree match.
Demo 5: deferred loading through tool_core's loop: a search_tools meta-tool instead of 150 schemas.
--scale: BM25 indexing time and top-10 latency at 150 / 1,600 / 16,000 tools (about 0.4 s more), and where
        pruning starts to pay, read off the run's own timings.

The picker is simulated (ToyCaller) with explicit knobs, printed with its figures; --seed draws
the requests' ids and the picker's choices of demos 2, 3 and 5 (default 0; demo 1's examples are
always seed 0's). Runs offline in well under a second.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tool_catalog  # noqa: E402
import tool_core  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="seed for the requests and the picker of demos 2, 3 and 5 (default 0)")
    parser.add_argument("--scale", action="store_true", help="also time BM25 at 150, 1,600 and 16,000 tools")
    tool_core.add_vs_handout(parser)
    args = parser.parse_args()
    sections = [("Four ways to teach a model its tools", tool_catalog.demo_four_ways),
                ("Demo 1. 150 tools, one word apart", tool_catalog.demo_catalog),
                ("Demo 2. All tools in context", lambda: tool_catalog.demo_all_in_context(args.seed)),
                ("Demo 3. Retrieve, then pick", lambda: tool_catalog.demo_retrieval(args.seed)),
                ("Demo 4. Gorilla's AST check", tool_catalog.demo_ast),
                ("Demo 5. Deferred loading: search for tools, then call them", lambda: tool_catalog.demo_deferred(args.seed))]
    if args.scale:
        sections.append(("BM25 at scale (timings vary by machine)", tool_catalog.demo_scale))
    tool_core.print_demos(sections, tool_core.vs_handout(args, "05", tool_catalog.HANDOUT_05))


if __name__ == "__main__":
    main()
