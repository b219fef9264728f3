"""Code 06: evaluating tool use (lecture 001 sections 7-8): one call the BFCL way, whole conversations the tau-bench way.

Demo 1: nine BFCL-format questions (simple, multiple, parallel, parallel_multiple, irrelevance),
        two hand-written models answering in the text protocol, graded by BFCL's AST rules and
        by execution, with every disagreement between the graders explained; then BFCL's greedy
        matching of parallel calls failing a correct answer that an optimal pairing passes.

Demo 2: a mini tau-bench: 8 customer-service tasks x 8 trials of a toy agent with seven failure
        knobs; success by final database state vs by the agent saying "Done"; pass^k and pass@k.
Demo 3: the failure modes of those trials by unit (call, chain, conversation), and one failing
        trajectory in full: every call valid, the final state wrong.
Demo 4: every failure rate halved, 16 trials: pass^8 moves, pass@4 cannot show it; how many
        trials a pass^8 estimate needs.
Demo 5: ToolBench's way: 20 chain instructions (2-4 calls, intra- and cross-category) over the
        150-tool catalog, some whose first natural call fails; a greedy chain (ReAct) against
        DFSDT's depth-first search with backtracking, within a budget of calls; ToolEval's pass
        rate and win rate, with a rule-based judge standing in for its LLM judge; one
        instruction's search shown call by call, every step back marked.
Demo 6: tau2-bench's dual control: a task the customer must finish on their side (a meter only
        they can reach), guided by the agent; 8 trials graded by the final state of both sides,
        next to the agent's side alone and its 'Done'.
Demo 7: BFCL's multi-turn grading on one entry (made up, over two of its ported API classes): the
        state and the responses checked after every turn, where the model's state first differs, and
        what a final-state grader would and would not have seen.

Runs offline in well under a second. --seed draws the toy agent's failures, demo 5's instructions and picker, and demo
6's mistakes (default 0); demo 1 has no randomness.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bfcl_lab  # noqa: E402
import service_env  # noqa: E402
import tool_catalog  # noqa: E402
import tool_core  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0,
                        help="seed for the toy agent's failures, demo 5's instructions and demo 6's mistakes (default 0)")
    tool_core.add_vs_handout(parser)
    args = parser.parse_args()
    seed = args.seed
    tool_core.print_demos([
        ("Demo 1. BFCL: nine questions, two models, two graders", bfcl_lab.demo_bfcl),
        ("Demo 2. A mini tau-bench: graded by the final state, measured by pass^k", lambda: service_env.demo_tau(seed)),
        ("Demo 3. Failure modes by unit: a call, a chain, a conversation", lambda: service_env.demo_failure_modes(seed)),
        ("Demo 4. Halve every failure rate: what pass^k sees and pass@k cannot", lambda: service_env.demo_halved(seed)),
        ("Demo 5. ToolBench: solution paths by chain and by depth-first search, and ToolEval",
         lambda: tool_catalog.demo_toolbench(seed)),
        ("Demo 6. tau2-bench's dual control: the customer acts too, and both sides are graded",
         lambda: service_env.demo_dual_control(seed)),
        ("Demo 7. BFCL multi-turn: graded by state and by response after every turn", bfcl_lab.demo_multi_turn)],
        tool_core.vs_handout(args, "06", bfcl_lab.HANDOUT_06 + service_env.HANDOUT_06))


if __name__ == "__main__":
    main()
