"""Code 08: constrained decoding on the lab's own n-gram model (lecture 003 section 2).

Demo 1: calls sampled freely and under a token mask, graded by tool_core's parser and validate:
        valid JSON %, schema-valid %, and what went wrong without the mask.
Demo 2: the regex 0|[1-9][0-9]* as a finite automaton (S, Z, N) and its traces.
Demo 3: the lecture's schema compiled into a pushdown automaton, walked over {"name":"Ann","age":42}
        step by step; {"name":"Ann","age":"42"} rejected at its quote.
Demo 4: one masked step after "age": logits, mask, -inf, softmax renormalised, the sample.
Demo 5: what a mask costs, computed three ways (every token, a prefix tree, precomputed per state):
        automaton steps per token, the lecture's 14-token trie example, context-dependent tokens.
Demo 6: what masking does not give: age 420 passes; greedy masking distorts (Grammar-Aligned Decoding).

Runs offline in well under a second. --seed draws the training calls and the samples (default 0); --timings
adds milliseconds per mask, which vary by machine and run (so the default output is the same every run).
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tool_core  # noqa: E402
import toolformer_lab  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="seed for the training calls and the samples (default 0)")
    parser.add_argument("--timings", action="store_true", help="also time each mask method (varies by machine)")
    tool_core.add_vs_handout(parser)
    args = parser.parse_args()
    lab = toolformer_lab.constrained_lab(args.seed)
    sections = [("Demo 1. Free and masked generation", lambda: toolformer_lab.demo_free_vs_masked(lab)),
                ("Demo 2. A regex as a finite automaton", toolformer_lab.demo_integer_automaton),
                ("Demo 3. A JSON Schema as a pushdown automaton", toolformer_lab.demo_pushdown),
                ("Demo 4. One masked step", lambda: toolformer_lab.demo_mask_step(lab)),
                ("Demo 5. What a mask costs, three ways", lambda: toolformer_lab.demo_mask_cost(lab, args.timings)),
                ("Demo 6. What masking does not give", lambda: toolformer_lab.demo_what_masking_misses(lab))]
    tool_core.print_demos(sections, tool_core.vs_handout(args, "08", []))


if __name__ == "__main__":
    main()
