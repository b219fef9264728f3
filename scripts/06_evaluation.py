"""Code 06: evaluating tool use (lecture 001 section 7): grading one call the BFCL way.

Demo 1: nine BFCL-format questions (simple, multiple, parallel, parallel_multiple, irrelevance),
        two hand-written models answering in the text protocol, graded by BFCL's AST rules and
        by execution, with every disagreement between the graders explained; then BFCL's greedy
        matching of parallel calls failing a correct answer that an optimal pairing passes.

The mini tau-bench (demos 2-4) joins this script with service_env.py.
Runs offline in about 0.2 s. No randomness, so no --seed.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bfcl_lab  # noqa: E402
import tool_core  # noqa: E402


def main() -> None:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    tool_core.print_demos([("Demo 1. BFCL: nine questions, two models, two graders", bfcl_lab.demo_bfcl)])


if __name__ == "__main__":
    main()
