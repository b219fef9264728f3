"""Code 02: Toolformer on a trigram model with a copy cache, and ToolkenGPT's target (lecture 001 section 3).

Demo 1: every candidate call for the megawatt sentence and the Ashholt sentence, with
        L(eps), L(call without result), L(call with result) and the usefulness L- - L+.
Demo 2: the threshold sweep over 120 texts and 420 executed candidates; then the same sweep
        with a cache that copies punctuation, and the spurious calendar gains it makes.
Demo 3: step 4: insert the kept calls, retrain a trigram, measure P("[") on new texts and
        explain where it calls wrongly.
Demo 4: ToolkenGPT's training target for "... the area is 256 square feet" and its loss.
Demo 5: tool use at inference: demo 3's trigram decodes held-out texts, the harness running each
        call it writes at "->" and writing the result; how often the result is copied, and how the
        paper's top-k rule for opening a call differs; then one switch to ToolkenGPT's tool mode
        for "... the area is", beside the loss that skips [N/A].
Demo 6: the filter again with models that can use a result less: the trigram alone (no copy cache) keeps no call,
        a weak cache some, demos 1-3's all the right ones (handout 3.5: tool use comes with model size).

Runs offline in well under a second. --seed draws the numbers and the everywhere-calendar positions (default 0).
"""
import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tool_core  # noqa: E402
import toolformer_lab  # noqa: E402


def threshold(text: str) -> float:
    """Read --tau: any finite number (a gain is compared with it; NaN would keep nothing, silently)."""
    value = float(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"tau must be a finite number, got {text}")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="seed for the corpus numbers and candidate positions (default 0)")
    parser.add_argument("--tau", type=threshold, default=0.5, help="the filter threshold tau_f for demos 1, 3 and 5 (default 0.5)")
    tool_core.add_vs_handout(parser)
    args = parser.parse_args()
    run = toolformer_lab.toolformer_pipeline(args.seed)
    sections = [("The filter on the lecture's worked numbers", toolformer_lab.demo_worked_numbers),
                ("Demo 1. Every candidate for two sentences", lambda: toolformer_lab.demo_candidates(run, args.tau)),
                ("Demo 2. The threshold sweep", lambda: toolformer_lab.demo_threshold_sweep(run)),
                ("Demo 3. Step 4: retrain on the kept calls", lambda: toolformer_lab.demo_retrain(run, args.tau)),
                ("Demo 4. ToolkenGPT: a tool as a token", toolformer_lab.demo_toolken),
                ("Demo 5. Tool use at inference time: decoding with the tools, and ToolkenGPT's tool mode",
                 lambda: toolformer_lab.demo_tool_use(run, args.tau)),
                ("Demo 6. Tool use pays only once the model can use the result",
                 lambda: toolformer_lab.demo_too_weak(run, args.tau))]
    tool_core.print_demos(sections, tool_core.vs_handout(args, "02", toolformer_lab.HANDOUT_02))


if __name__ == "__main__":
    main()
