"""Code 07: a real model in the lecture's loops, with no SDK (lecture 001 section 9; slides 003, demonstration 1).

Six parts (--part picks one; all by default). Offline, every part that needs a model runs against
bfcl_lab.StandIn, the lab's stand-in for both APIs on 127.0.0.1 (every request checked as the vendor checks it,
answered by the lab's scripted models), so the output shows the real exchange; with a key or a local server they
run on that model:
  1 ask      the round trip: --ask "..." with the offline arXiv search as the tool, each request and answer as JSON
  2 harness  script 03's tasks (parallel calls, relevance, self-correction), natively and in the text protocol
  3 bfcl     the nine BFCL questions, graded by AST and by execution (offline: model A's replies of demo 1)
  4 tau      the mini tau-bench with the model as the agent: --trials K per task, graded by the final state
  5 mcp      an MCP host: the model uses the Cardinal MCP server's tools through MCPClient over stdio
  6 stream   a streamed reply fed to the text protocol's incremental parser: each call ready at its closing tag;
             then natively, as each API streams it: the event at which each call is complete
--stream reads each answer as the API's event stream; --max-requests bounds a run's model requests (a part that
would pass it stops with an error); the requests and tokens spent are printed at the end.

Part 3 in detail:

The questions go out in the text protocol (the tools in the system prompt, calls as <tool_call>
text, stop sequence <tool_result): the setting of a harness whose model interface is only
"messages in, string out". --native sends the same tools in the vendor's native format instead
(rendered by interfaces' dialects), so both are graded by the same AST and execution graders.

Back-ends, over urllib, chosen as the official SDKs read their environment (or a .env file here):
  --api anthropic, or ANTHROPIC_API_KEY set   -> the Anthropic Messages API at ANTHROPIC_BASE_URL or --base-url
                                                 (default https://api.anthropic.com; model bfcl_lab.ANTHROPIC_MODEL)
  --api openai, --base-url, or OPENAI_API_KEY -> any OpenAI-compatible Chat Completions endpoint at --base-url,
                                                 OPENAI_BASE_URL or https://api.openai.com/v1: the request goes to
                                                 base + /chat/completions, so the base holds the version, e.g.
                                                 http://127.0.0.1:11434/v1 for Ollama (key: OPENAI_API_KEY, if any)
  none of these, or --toy                     -> offline: the stand-in (the default; about 0.5 s for all parts)
With --native, --tool-choice (auto, required, any, none, or a tool's name) and --no-parallel go in
the vendor's own fields. Retried with back-off, as the SDKs do: 408, 409, 429 (not a used-up
quota), 5xx but 501, timeouts and dropped connections. A reply cut at max_tokens is graded as
the truncated call it holds. The key is sent in a header and never printed. Offline, part 3's
requests carry these flags too: the stand-in converts model A's written calls to native ones and
holds them to --tool-choice none and --no-parallel as the APIs do; a forced call (required, or a
tool's name) is refused before anything runs, since written replies cannot be forced; --model and
--max-tokens reach the stand-in but change no reply, and a line above the table says so.
"""
import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bfcl_lab  # noqa: E402
import tool_core  # noqa: E402

PARTS = ("ask", "harness", "bfcl", "tau", "mcp", "stream")


def backend_for(args: argparse.Namespace):
    """Pick the back-end from the flags and the environment; None when nothing points at a model (offline)."""
    env = bfcl_lab.read_dotenv(".env") | dict(os.environ)  # keys from the environment, or a .env file here
    options = {"timeout": args.timeout, "max_tokens": args.max_tokens}
    api = getattr(args, "api", None) or (
        "openai" if args.base_url or env.get("OPENAI_BASE_URL") else
        "anthropic" if env.get("ANTHROPIC_API_KEY") or env.get("ANTHROPIC_BASE_URL") else
        "openai" if env.get("OPENAI_API_KEY") else None)
    if args.toy or api is None:
        return None
    if api == "openai":  # the Anthropic key, if set, stays home
        return bfcl_lab.OpenAIBackend(args.base_url or env.get("OPENAI_BASE_URL") or bfcl_lab.OPENAI_BASE_URL,
                                      env.get("OPENAI_API_KEY"), args.model or bfcl_lab.OPENAI_MODEL, **options)
    return bfcl_lab.AnthropicBackend(env.get("ANTHROPIC_API_KEY", ""), args.model or bfcl_lab.ANTHROPIC_MODEL,
                                     args.base_url or env.get("ANTHROPIC_BASE_URL") or bfcl_lab.ANTHROPIC_BASE_URL,
                                     **options)


def tool_choice_of(text: str | None) -> str | dict | None:
    """Read --tool-choice: a mode by its word, anything else the name of the one tool to call."""
    if text is None or text in ("auto", "required", "any", "none"):
        return text
    return {"name": text}


def offline_note(args: argparse.Namespace, parser: argparse.ArgumentParser) -> str:
    """Say who answers part 3 offline, and which given flags change nothing there (--model, --max-tokens): they
    reach the stand-in, but model A's replies are written out in advance."""
    line = "Offline: the stand-in answers with model A's replies of demo 1, written out in advance"
    given = [f"--{name.replace('_', '-')}" for name in ("model", "max_tokens")
             if getattr(args, name) != parser.get_default(name)]
    if not given:
        return line + "."
    real = "without --toy" if args.toy else "once ANTHROPIC_API_KEY, OPENAI_API_KEY, --api or --base-url names one"
    one = len(given) == 1
    return (f"{line}: {' and '.join(given)} reach{'es' if one else ''} it but change{'s' if one else ''} no reply "
            f"({'it applies' if one else 'they apply'} to a real model, {real}).")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--toy", action="store_true", help="offline, on the stand-in (the default without a key)")
    parser.add_argument("--api", choices=["anthropic", "openai"], help="which API (default: from the environment)")
    parser.add_argument("--base-url", help="the API's base URL, e.g. http://127.0.0.1:11434/v1 (an OpenAI-compatible "
                                           "server unless --api anthropic)")
    parser.add_argument("--model", help="the model id (default: the constant in bfcl_lab for the chosen API)")
    parser.add_argument("--native", action="store_true", help="send the tools in the vendor's native format")
    parser.add_argument("--tool-choice", help="with --native: auto, required (any), none, or a tool's name")
    parser.add_argument("--no-parallel", action="store_true", help="with --native: at most one call per reply")
    parser.add_argument("--max-tokens", type=int, default=512, help="the reply budget (default 512)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds any one network read may wait (urllib's socket timeout; default 60)")
    parser.add_argument("--part", choices=PARTS + ("all",), default="all", help="which part to run (default: all)")
    parser.add_argument("--ask", default=bfcl_lab.ASK, help=f"part 1's question (default: {bfcl_lab.ASK!r})")
    parser.add_argument("--trials", type=int, default=2, help="part 4's trials per task (default 2)")
    parser.add_argument("--stream", action="store_true", help="read each answer as the API's event stream")
    parser.add_argument("--max-requests", type=int, default=200, help="the most model requests of the run (default 200)")
    tool_core.add_vs_handout(parser)
    args = parser.parse_args()
    if args.trials < 1 or args.max_requests < 1:
        parser.error("--trials and --max-requests must be at least 1")
    if (args.tool_choice or args.no_parallel) and not args.native:
        parser.error("--tool-choice and --no-parallel are sent natively: add --native")
    try:
        backend = backend_for(args)
    except ValueError as exc:  # a .env line that is no NAME=value (its value is never shown)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    offline = backend is None
    choice, parallel = tool_choice_of(args.tool_choice), (False if args.no_parallel else None)
    if offline and choice not in (None, "auto", "none"):
        parser.error(f"offline, model A's replies are written out in advance and cannot be forced to call a tool: "
                     f"--tool-choice {args.tool_choice} needs a real model (auto and none work offline)")
    wanted = PARTS if args.part == "all" else (args.part,)
    stand_in, launched, play = None, None, lambda lm: None
    try:
        launched = bfcl_lab.cardinal_over_stdio() if "mcp" in wanted else None  # it boots while the others run
        if wanted == ("stream",):  # part 6 needs no model: no stand-in, no request
            tool_core.print_demos([stream_part()], tool_core.vs_handout(args, "07", bfcl_lab.HANDOUT_07))
            return 0
        if offline:
            stand_in, play = start_stand_in()
            backend = bfcl_lab.AnthropicBackend("", base_url=stand_in.url, model=args.model or STAND_IN_MODEL,
                                                timeout=args.timeout, max_tokens=args.max_tokens)
        backend.stream, backend.max_requests = args.stream, args.max_requests
        dialect = backend.dialect if args.native else None  # the reader of the backend's replies renders its tools
        if dialect is not None:
            try:
                dialect.tool_choice(choice or "auto", parallel)
            except ValueError as exc:
                parser.error(str(exc))
        else:
            choice = parallel = None
        models = {"native": bfcl_lab.APIModel(backend), "text protocol": bfcl_lab.APIModel(backend, native=False)}

        def bfcl() -> str:
            if stand_in is not None:
                stand_in.policy = bfcl_lab.answers_policy()
            graded = bfcl_lab.demo_real(backend, dialect, choice, parallel)
            return "\n".join(filter(None, [offline_note(args, parser) if offline else "", graded]))
        sections = {"ask": ("Demo 1. The round trip, live: a question, the arXiv search, each request as JSON",
                            lambda: bfcl_lab.demo_ask(models["native"], play, args.ask)),
                    "harness": ("Demo 2. The harness on the model: parallel calls, relevance, correction",
                                lambda: bfcl_lab.demo_harness(models, play)),
                    "bfcl": ("Demo 3. The nine BFCL questions, graded", bfcl),
                    "tau": ("Demo 4. The mini tau-bench with the model as the agent",
                            lambda: bfcl_lab.demo_tau_real(models["native"], play, args.trials)),
                    "mcp": ("Demo 5. An MCP host: the model on the Cardinal MCP server's tools",
                            lambda: bfcl_lab.demo_mcp_host(models["native"], play, launched)),
                    "stream": stream_part()}
        tool_core.print_demos([sections[part] for part in wanted], tool_core.vs_handout(args, "07", bfcl_lab.HANDOUT_07))
        if backend.requests:
            print(f"\n[{backend.requests} model requests; tokens reported: {backend.usage.get('input_tokens', 0):,} in, "
                  f"{backend.usage.get('output_tokens', 0):,} out{' (the stand-in counts with count_tokens)' if stand_in else ''}]")
    except bfcl_lab.LLMError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        if stand_in is not None:
            stand_in.stop()
        if launched is not None:  # closed already when part 5 ran; closing again does nothing
            launched[0].close()
    return 0


STAND_IN_MODEL = "stand-in (the lab's scripted models)"


def stream_part() -> tuple:
    return ("Demo 6. A streamed reply: each call ready before the reply ends",
            lambda: tool_core.demo_streamed_calls() + "\n\n" + bfcl_lab.demo_native_streams())


def start_stand_in():
    """Offline: start the stand-in (returned, to be stopped) and play(lm), which makes the lab's text model lm the
    model it answers with next: each part hands it the scripted model that part needs."""
    stand_in = bfcl_lab.StandIn(None).start()

    def play(lm) -> None:
        stand_in.policy = bfcl_lab.policy_from_lm(lm)
    return stand_in, play


if __name__ == "__main__":
    sys.exit(main())
