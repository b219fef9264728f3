"""Code 10: a tool call under the hood (lesson 002's round trip; slides 003 §1 and §7): the wire, the tokens,
tool_choice, parallel calls and the coupling rule.

Demo 1: one question and one tool through the full round trip, as the exact JSON that OpenAI's Chat Completions,
        Anthropic's Messages API and MCP receive and return: the tools, the call with its id, the stop reason,
        the result tied back to the call's id (and is_error).
Demo 2: the same exchange as the model reads it, Qwen3's chat template beside the lab's text protocol, with the
        token count of each part; tool_choice (auto, required/any, none, one tool) written in each dialect, and
        what the loop does with each over a turn.
Demo 3: four independent lookups in four turns or in one (model requests, messages, tool time on a simulated
        clock), and two calls that cannot share a turn: the second needs the first one's result.
Demo 4: the coupling rule: every call of a reply answered by its id in the very next message; results out of
        order matched by id; a missing result refused; an is_error result among parallel ones.

Every body is built with the dialects of interfaces.py and every figure is computed; no network, no API key.
Runs offline in well under a second.
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
    sections = [("Demo 1. The wire: one question, one tool, three APIs", interfaces.demo_wire),
                ("Demo 2. What the model reads, and tool_choice", interfaces.demo_template_and_choice),
                ("Demo 3. One turn or four; calls that cannot share a turn", tool_core.demo_parallel_turns),
                ("Demo 4. The coupling rule: every call answered by its id, in the next message",
                 interfaces.demo_coupling)]
    tool_core.print_demos(sections, tool_core.vs_handout(args, "10", []))


if __name__ == "__main__":
    main()
