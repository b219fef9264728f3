"""Code 09: designing tools for a model, and trusting what enters its context (slides 003, §3 and §6).

Demo 1: one search tool described twice (search: "Search.", q, n vs arxiv_search with what it
        returns, what to call next, an example and bounds): how often a simulated model, which
        guesses what a definition leaves open, calls each correctly; the tokens of each.
Demo 2: what a tool returns is a prompt too: every field of 20 feed entries vs "20 of 312 papers:".
Demo 3: errors: a traceback ("ValueError: 100") vs "max_results must be 1–20, got 100. Retry with
        max_results=20.", through the loop, with a model that can recover only from the second.
Demo 4: edits: sed 's/5/20/' also breaks the Atom namespace's 2005; an Edit tool that must
        match one place refuses "5" (2 places) and changes the one line asked for.
Demo 5: four attacks (prompt injection, tool poisoning, shadowing, a rug pull) and a reworded
        one, against a host on four in-process MCP servers and a deliberately gullible model:
        each with no defence and with each defence alone, computed run by run.
Demo 6: the shadowing attack in full, and what each defence does with it.
Demo 7: the lethal trifecta (lecture 002): removing any one leg stops the exfiltration even
        when detection fails.
Demo 8: bad input: huge, invisible, forged or not UTF-8, escaped or refused with a reason.

Offline, no sockets (the MCP sessions are in process); about 0.4 s. --seed changes only the
simulated caller's guesses in demo 1.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import interfaces  # noqa: E402
import tool_core  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulated caller in demo 1 (default 0)")
    tool_core.add_vs_handout(parser)
    args = parser.parse_args()
    sections = [("Demo 1. A description is a prompt: search vs arxiv_search",
                 lambda: interfaces.demo_tool_descriptions(seed=args.seed)),
                ("Demo 2. A result is a prompt: the raw feed vs a concise listing", interfaces.demo_tool_results),
                ("Demo 3. An error is a prompt: a traceback vs what to do", interfaces.demo_tool_errors),
                ("Demo 4. Edits: a blind substitution vs an exact, unique match", interfaces.demo_edits),
                ("Demo 5. Attacks x defences", interfaces.demo_trust_table),
                ("Demo 6. The shadowing attack, in full", interfaces.demo_shadowing),
                ("Demo 7. The lethal trifecta: remove one leg", interfaces.demo_trifecta),
                ("Demo 8. Bad input: huge, invisible, forged, not UTF-8", interfaces.demo_bad_input)]
    tool_core.print_demos(sections, tool_core.vs_handout(args, "09", []))


if __name__ == "__main__":
    main()
