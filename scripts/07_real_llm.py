"""Code 07: the nine BFCL questions of demo 1 put to a real model, with no SDK (lecture 001 section 9).

The questions go out in the text protocol (the tools in the system prompt, calls as <tool_call>
text, stop sequence <tool_result): the setting of a harness whose model interface is only
"messages in, string out". --native sends the same tools in the vendor's native format instead
(rendered by interfaces' dialects), so both are graded by the same AST and execution graders.

Back-ends, over urllib:
  ANTHROPIC_API_KEY set        -> the Anthropic Messages API (model: bfcl_lab.ANTHROPIC_MODEL, or --model)
  --base-url URL               -> any OpenAI-compatible /v1/chat/completions endpoint (vLLM, llama.cpp,
                                  Ollama, OpenAI); key from OPENAI_API_KEY if the server wants one
  neither, or --toy            -> offline: model A's replies from demo 1 (the default; about 0.2 s)
Retries with back-off only on 429 and 5xx; a reply cut at max_tokens is graded as the truncated
call it holds. The key is sent in a header and never printed.
"""
import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bfcl_lab  # noqa: E402
import tool_core  # noqa: E402


def backend_for(args: argparse.Namespace):
    """Pick the back-end from the flags and the environment (the toy when nothing points at a model)."""
    options = {"timeout": args.timeout, "max_tokens": args.max_tokens}
    if args.toy or (not args.base_url and not os.environ.get("ANTHROPIC_API_KEY")):
        return bfcl_lab.ToyBackend()
    if args.base_url:
        return bfcl_lab.OpenAIBackend(args.base_url, os.environ.get("OPENAI_API_KEY"),
                                      args.model or bfcl_lab.OPENAI_MODEL, **options)
    return bfcl_lab.AnthropicBackend(os.environ["ANTHROPIC_API_KEY"], args.model or bfcl_lab.ANTHROPIC_MODEL, **options)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--toy", action="store_true", help="offline: model A's replies (the default without a key)")
    parser.add_argument("--base-url", help="an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--model", help="the model id (default: the constant in bfcl_lab for the chosen API)")
    parser.add_argument("--native", action="store_true", help="send the tools in the vendor's native format")
    parser.add_argument("--max-tokens", type=int, default=512, help="the reply budget (default 512)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds any one network read may wait (urllib's socket timeout; default 60)")
    args = parser.parse_args()
    backend = backend_for(args)
    dialect = None
    if args.native and not isinstance(backend, bfcl_lab.ToyBackend):
        import interfaces
        dialect = interfaces.Anthropic() if isinstance(backend, bfcl_lab.AnthropicBackend) else interfaces.OpenAI()
    try:
        tool_core.print_demos([("The nine BFCL questions, graded", lambda: bfcl_lab.demo_real(backend, dialect))])
    except bfcl_lab.LLMError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
