"""The server the official MCP conformance suite tests: every tool, resource and prompt its server scenarios ask for.

Built from interfaces.py alone (the lab's MCPServer, its call context and content blocks); the texts
are the ones the suite's scenarios name (npm package @modelcontextprotocol/conformance: 0.1.16, and 0.2.0-alpha.12
for 2026-07-28, `--requirements 2026-07-28`, whose tasks-* scenarios check the tasks extension).
Run it, then point the suite at it (Node 22 and npm, outside this repository; the lab never needs them):

    python3 tests/conformance_server.py --port 18710            # Streamable HTTP at http://127.0.0.1:18710/mcp
    npx @modelcontextprotocol/conformance server --url http://127.0.0.1:18710/mcp
    python3 tests/conformance_server.py --stdio                 # the same server over stdio

tests/test_interfaces_mcp_full.py checks these tools, resources and prompts, with the scenarios' texts, over
InProcess, Streamable HTTP and stdio (this file, --stdio).
"""
import argparse
import dataclasses
import json
import os
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import interfaces  # noqa: E402
from interfaces import (TINY_PNG, TINY_WAV, IsError, MCPContent, Prompt, PromptArgument, Resource,  # noqa: E402
                        ResourceTemplate, VerbatimRegistry, audio_block, embedded_resource, image_block, mcp_call,
                        text_block)
from tool_core import Tool, ToolExecutionError  # noqa: E402

NO_ARGUMENTS = {"type": "object", "properties": {}}
STEP = float(os.environ.get("CONFORMANCE_STEP", "0.05"))  # the scenarios' "~50 ms" between steps (tests: shorter)


def _text(name: str, description: str, text: str) -> Tool:
    return Tool(name, description, NO_ARGUMENTS, lambda: text, read_only=True)


def _blocks(name: str, description: str, *blocks: dict) -> Tool:
    return Tool(name, description, NO_ARGUMENTS, lambda: MCPContent(list(blocks)), read_only=True)


def _fail() -> None:
    raise ToolExecutionError("This tool intentionally returns an error for testing", retryable=False)


def _with_logging() -> str:
    call = mcp_call()
    for i, text in enumerate(("Tool execution started", "Tool processing data", "Tool execution completed")):
        if i:
            call.sleep(STEP)
        call.log("info", text, logger="conformance")
    return "Logging tool completed: 3 messages sent"


def _with_progress() -> str:
    call = mcp_call()
    for i, done in enumerate((0, 50, 100)):
        if i:
            call.sleep(STEP)
        call.progress(done, 100, f"{done}% done")
    return "Progress tool completed"


def _sampling(prompt: str) -> str:
    result = mcp_call().sample([{"role": "user", "content": text_block(prompt)}], 100)
    return f"LLM response: {result['content'].get('text', '')}"


def _elicit(message: str, schema: dict) -> dict:
    return mcp_call().elicit(message, schema)


def _elicitation(message: str) -> str:
    result = _elicit(message, {"type": "object", "required": ["username", "email"], "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"}}})
    return f"User response: action={result['action']}, content={json.dumps(result.get('content', {}))}"


def _defaults() -> str:
    result = _elicit("Check the defaults, then accept or change them", {"type": "object", "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "default": True}}})
    return f"Elicitation completed: action={result['action']}, content={json.dumps(result.get('content', {}))}"


def _titled(prefix: str, titles: tuple[str, ...]) -> list[dict]:
    return [{"const": f"{prefix}{i}", "title": t} for i, t in enumerate(titles, 1)]


def _enums() -> str:
    result = _elicit("Pick from each list", {"type": "object", "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "oneOf": _titled("value", ("First Option", "Second Option", "Third Option"))},
        "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                       "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "items": {"anyOf": _titled("value", ("First Choice", "Second Choice",
                                                                             "Third Choice"))}}}})
    return f"Elicitation completed: action={result['action']}, content={json.dumps(result.get('content', {}))}"


def _reconnection() -> str:
    call = mcp_call()
    call.sleep(STEP)
    call.close_stream()  # SEP-1699: the client comes back with GET and Last-Event-ID for the result
    call.sleep(2 * STEP)
    return "Reconnection test completed"


# --- 2026-07-28: the tools of the suite's server-stateless and input-required-result-* scenarios (its 0.2.0 alphas) ---

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
CONFIRM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def _question(text: str, max_tokens: int = 100) -> tuple[str, dict]:
    return "sampling/createMessage", {"messages": [{"role": "user", "content": text_block(text)}], "maxTokens": max_tokens}


def _needs_sampling() -> str:
    mcp_call().requires("sampling/createMessage")  # 2026-07-28: -32021 naming sampling when it is not declared
    return "The sampling capability is declared."


def _log_three() -> str:
    for text in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        mcp_call().log("info", text, logger="conformance")
    return "Logging tool completed"


def _ask_name() -> str:
    answer = mcp_call().elicit("What is your name?", NAME, key="user_name")
    return f"Hello, {answer.get('content', {}).get('name', 'stranger')}!"


def _ask_model() -> str:
    method, params = _question("What is the capital of France?")
    answer = mcp_call().sample(params["messages"], params["maxTokens"], key="capital_of_france")
    return f"The model said: {answer['content'].get('text', '')}"


def _ask_roots() -> str:
    return f"The client has {len(mcp_call().roots(key='client_roots'))} root(s)."


def _confirm() -> str:
    answer = mcp_call().elicit("Confirm to go on", CONFIRM, key="confirm")
    return "state-ok" if answer.get("content", {}).get("ok") else "not confirmed"


def _ask_three() -> str:
    answers = mcp_call().ask_all({"user_name": ("elicitation/create", {"message": "What is your name?",
                                                                        "requestedSchema": NAME}),
                                  "greeting": _question("Write a one-line greeting.", 50),
                                  "client_roots": ("roots/list", {})})
    return (f"{answers['greeting']['content'].get('text', '')} {answers['user_name']['content']['name']} "
            f"({len(answers['client_roots']['roots'])} root(s))")


def _two_rounds() -> str:
    call = mcp_call()
    name = call.elicit("What is your name?", NAME, key="step1")["content"]["name"]
    color = call.elicit("What is your favourite colour?", {"type": "object", "properties": {
        "color": {"type": "string"}}, "required": ["color"]}, key="step2")["content"]["color"]
    return f"{name} likes {color}."


def _ask_what_is_declared() -> str:
    declared = mcp_call().session.client_capabilities
    questions = {}
    if "elicitation" in declared:
        questions["user_name"] = ("elicitation/create", {"message": "What is your name?", "requestedSchema": NAME})
    if "sampling" in declared:
        questions["greeting"] = _question("Write a one-line greeting.", 50)
    answers = mcp_call().ask_all(questions)
    return f"Answered: {', '.join(sorted(answers)) or 'nothing to ask'}."


def _context_prompt() -> list[dict]:
    answer = mcp_call().elicit("What context should the prompt use?", {"type": "object", "properties": {
        "context": {"type": "string"}}, "required": ["context"]}, key="user_context")
    return [{"role": "user", "content": text_block(f"Use this context: {answer['content']['context']}")}]


def _announce(method: str) -> str:
    mcp_call().session.server.announce(method)  # to every subscriptions/listen stream that asked for it
    return f"Sent {method}."


def modern_tools() -> list[Tool]:
    """The tools only 2026-07-28's scenarios call (they are served in every revision)."""
    asking = [("test_input_required_result_elicitation", "Ask the user's name, then greet them", _ask_name),
              ("test_input_required_result_sampling", "Ask the host's model a question", _ask_model),
              ("test_input_required_result_list_roots", "Ask for the client's roots", _ask_roots),
              ("test_input_required_result_request_state", "Ask for a confirmation, carried in requestState", _confirm),
              ("test_input_required_result_multiple_inputs", "Ask the user, the model and the roots at once", _ask_three),
              ("test_input_required_result_multi_round", "Ask for a name, then a colour: two rounds", _two_rounds),
              ("test_input_required_result_tampered_state", "Ask for a confirmation under a signed state", _confirm),
              ("test_input_required_result_capabilities", "Ask only what the request declares", _ask_what_is_declared),
              ("test_missing_capability", "Needs the client's sampling capability", _needs_sampling),
              ("test_streaming_elicitation", "Answers without asking anything on the stream", lambda: "No question asked."),
              ("test_logging_tool", "Log three lines (only when the request sets a logLevel)", _log_three),
              ("test_trigger_tool_change", "Announce that the tool list changed (it does not)",
               lambda: _announce("notifications/tools/list_changed")),
              ("test_trigger_prompt_change", "Announce that the prompt list changed (it does not)",
               lambda: _announce("notifications/prompts/list_changed"))]
    region = {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region",
                                                          "description": "Where to run; sent as Mcp-Param-Region too"}}}
    return [Tool(name, description, NO_ARGUMENTS, fn, read_only=True) for name, description, fn in asking] + [
        Tool("test_custom_header", "Echo a region that travels in the Mcp-Param-Region header as well", region,
             lambda region=None: f"Region: {region}", read_only=True, fill_none=("region",))]


def _slow_compute(seconds: float, label: str) -> str:
    call = mcp_call()
    if seconds > 0:
        call.detach(f"computing {label}")  # a task when the request declares the extension; else it just waits
    call.sleep(seconds)  # a cancel (tasks/cancel) ends it here
    return f"Computed {label} in {seconds:g} s."


def _failing_job() -> str:
    mcp_call().detach("running a job that will fail")
    raise ToolExecutionError("The job failed: its input was rejected", retryable=False)  # completed, isError


def _protocol_error_job() -> str:
    call = mcp_call()
    call.detach("running a job whose backend goes away")
    call.fail(interfaces.INTERNAL_ERROR, "Internal error: the job's backend went away")  # failed, with this error


def _confirm_delete(filename: str) -> str:
    call = mcp_call()
    call.detach(f"deleting {filename}")
    answer = call.elicit(f"Delete {filename}?", {"type": "object", "properties": {
        "confirm": {"type": "boolean", "description": "Delete the file"}}, "required": ["confirm"]}, key="confirm")
    if answer["action"] == "accept" and answer["content"].get("confirm"):
        return f"Deleted {filename}."
    return f"Kept {filename}."


def _multi_input() -> str:
    call = mcp_call()
    call.detach("collecting two answers")
    form = {"type": "object", "properties": {"name": {"type": "string"}, "confirm": {"type": "boolean"}}}
    answers = call.ask_all({"first": ("elicitation/create", {"message": "First answer?", "requestedSchema": form}),
                            "second": ("elicitation/create", {"message": "Second answer?", "requestedSchema": form})})
    return "Got " + " and ".join(str(answers[key].get("content", {}).get("name")) for key in ("first", "second")) + "."


def _greet_later() -> str:
    call = mcp_call()
    answer = call.elicit("What is your name?", {"type": "object", "properties": {"name": {"type": "string"}},
                                               "required": ["name"]}, key="user_name")  # MRTR, before the task
    call.detach("greeting")
    call.sleep(STEP)
    return f"Hello, {answer['content']['name']}!"


TASK_TOOLS = {"slow_compute": "optional", "failing_job": "required", "protocol_error_job": "optional",
              "confirm_delete": "optional", "multi_input": "optional", "test_tool_with_task": "required"}


def task_tools() -> list[Tool]:
    """The tools of the tasks extension's scenarios (tasks-*, io.modelcontextprotocol/tasks; TASK_TOOLS says which
    may or must become tasks) and the plain greet they compare them with."""
    compute = {"type": "object", "required": ["seconds", "label"], "properties": {
        "seconds": {"type": "number", "minimum": 0, "maximum": 600}, "label": {"type": "string"}}}
    name = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}
    filename = {"type": "object", "required": ["filename"], "properties": {"filename": {"type": "string"}}}
    return [Tool("greet", "Greet someone, at once", name, lambda name: f"Hello, {name}!", read_only=True),
            Tool("slow_compute", "Compute for some seconds (a task, when the client takes tasks)", compute,
                 _slow_compute, read_only=True),
            Tool("failing_job", "A job (always a task) whose tool fails", NO_ARGUMENTS, _failing_job, read_only=True),
            Tool("protocol_error_job", "A job (a task) that ends in a JSON-RPC error", NO_ARGUMENTS,
                 _protocol_error_job, read_only=True),
            Tool("confirm_delete", "Delete a file once the user confirms (a task that asks)", filename,
                 _confirm_delete),
            Tool("multi_input", "A task that asks two questions at once", NO_ARGUMENTS, _multi_input, read_only=True),
            Tool("test_tool_with_task", "Ask the user's name (MRTR), then greet them in a task", NO_ARGUMENTS,
                 _greet_later, read_only=True)]


SCHEMA_2020_12 = {  # 0.2.0's version of the scenario's schema: composition, conditionals and an anchor besides
    "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                          "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
                   "contactMethod": {"type": "string", "enum": ["phone", "email"]}, "phone": {"type": "string"},
                   "email": {"type": "string"}},
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]}, "else": {"required": ["email"]},
    "additionalProperties": False}
MIXED_RESOURCE = json.dumps({"test": "data", "value": 123}, separators=(",", ":"))


def conformance_tools() -> list[Tool]:
    """The tools of the suite's tools-* scenarios (and SEP-1699's test_reconnection)."""
    return [
        _text("test_simple_text", "Return a fixed text", "This is a simple text response for testing."),
        _blocks("test_image_content", "Return a 1x1 PNG", image_block(TINY_PNG, "image/png")),
        _blocks("test_audio_content", "Return a short silent WAV", audio_block(TINY_WAV, "audio/wav")),
        _blocks("test_embedded_resource", "Return an embedded resource", embedded_resource(
            "test://embedded-resource", "This is an embedded resource content.", "text/plain")),
        _blocks("test_multiple_content_types", "Return text, an image and a resource",
                text_block("Multiple content types test:"), image_block(TINY_PNG, "image/png"),
                embedded_resource("test://mixed-content-resource", MIXED_RESOURCE, "application/json")),
        Tool("test_tool_with_logging", "Send three log messages while it runs", NO_ARGUMENTS, _with_logging,
             read_only=True),
        Tool("test_error_handling", "Always fail", NO_ARGUMENTS, _fail, read_only=True),
        Tool("test_tool_with_progress", "Report progress 0, 50 and 100 of 100", NO_ARGUMENTS, _with_progress,
             read_only=True),
        Tool("test_sampling", "Ask the client's model", {"type": "object", "required": ["prompt"], "properties": {
            "prompt": {"type": "string", "description": "The prompt to send to the LLM"}}}, _sampling, read_only=True),
        Tool("test_elicitation", "Ask the user for a name and an email", {
            "type": "object", "required": ["message"],
            "properties": {"message": {"type": "string", "description": "The message to show the user"}}},
            _elicitation, read_only=True),
        Tool("test_elicitation_sep1034_defaults", "Ask with a default for every field", NO_ARGUMENTS, _defaults,
             read_only=True),
        Tool("test_elicitation_sep1330_enums", "Ask with the five kinds of enum", NO_ARGUMENTS, _enums, read_only=True),
        Tool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", SCHEMA_2020_12, lambda **kw: kw,
             read_only=True),
        Tool("test_reconnection", "Close the call's event stream mid-call, then answer", NO_ARGUMENTS, _reconnection,
             read_only=True),
    ] + modern_tools() + task_tools()


def _template_data(id: str) -> str:
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"}, separators=(",", ":"))


def conformance_primitives() -> tuple[list[Resource], list[ResourceTemplate], list[Prompt]]:
    """The resources, template and prompts of the suite's resources-* and prompts-* scenarios, with its texts."""
    resources = [
        Resource("test://static-text", "static-text", lambda: "This is the content of the static text resource.",
                 description="A static text resource for testing", mime_type="text/plain"),
        Resource("test://static-binary", "static-binary", lambda: TINY_PNG,
                 description="A static binary resource (a 1x1 PNG) for testing", mime_type="image/png"),
        Resource("test://watched-resource", "watched-resource", lambda: "Watched resource content.",
                 description="A resource for testing subscriptions", mime_type="text/plain"),
    ]
    templates = [ResourceTemplate("test://template/{id}/data", "template", _template_data,
                                  description="A resource template with an id parameter", mime_type="application/json")]
    prompts = [
        Prompt("test_simple_prompt", "A simple prompt without arguments", lambda: "This is a simple prompt for testing."),
        Prompt("test_prompt_with_arguments", "A prompt with required arguments",
               lambda arg1, arg2: f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'",
               (PromptArgument("arg1", "First test argument", True), PromptArgument("arg2", "Second test argument", True)),
               complete={"arg1": ["paris", "park", "party"]}),
        Prompt("test_prompt_with_embedded_resource", "A prompt that embeds a resource",
               lambda resourceUri: [
                   {"role": "user", "content": embedded_resource(resourceUri, "Embedded resource content for testing.",
                                                                 "text/plain")},
                   {"role": "user", "content": text_block("Please process the embedded resource above.")}],
               (PromptArgument("resourceUri", "URI of the resource to embed", True),)),
        Prompt("test_prompt_with_image", "A prompt that includes an image",
               lambda: [{"role": "user", "content": image_block(TINY_PNG, "image/png")},
                        {"role": "user", "content": text_block("Please analyze the image above.")}]),
        Prompt("test_input_required_result_prompt", "A prompt that asks the user for context first (2026-07-28)",
               _context_prompt),
    ]
    return resources, templates, prompts


def in_words(tool: Tool) -> Tool:
    """The tool, a failure it reports (ToolExecutionError; MCPRefused when the client cannot or will not answer)
    returned as IsError: the model reads the sentence itself, where tool_core's registry writes
    "<tool> failed: <exception class>: <sentence>" (a Python class name is nothing a model can act on).
    Example: test_error_handling -> isError, "This tool intentionally returns an error for testing"
    """
    def run(**arguments):
        try:
            return tool.fn(**arguments)
        except ToolExecutionError as exc:
            return IsError(str(exc))
    return dataclasses.replace(tool, fn=run)


def conformance_server() -> interfaces.MCPServer:
    """The whole fixture as one MCPServer (no inbound auth, as the suite expects of a localhost server)."""
    resources, templates, prompts = conformance_primitives()
    registry = VerbatimRegistry([in_words(tool) for tool in conformance_tools()])  # passes an IsError on as it is
    return interfaces.MCPServer(registry, resources=resources, templates=templates, prompts=prompts,
                                info={"name": "lab-conformance", "version": "1.0.0"}, task_tools=TASK_TOOLS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=18710, help="the HTTP port on 127.0.0.1 (default 18710)")
    parser.add_argument("--stdio", action="store_true", help="serve stdio instead of Streamable HTTP")
    args = parser.parse_args(argv)
    if args.stdio:
        interfaces.serve_stdio(conformance_server())
        return 0
    with interfaces.MCPHttpServer(conformance_server()).start(args.port) as http:
        print(f"conformance fixture at {http.url}", file=sys.stderr, flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
