"""interfaces 3a, the demos of scripts/10 (issue 24, section 1): the wire, the tokens, and tool_choice.

Every body demo_wire prints is parsed back from its text and read with the dialect's own readers; the lab's MCP
server must answer the printed MCP requests with the printed responses. Expected values come from the vendors'
documentation (OpenAI's Chat Completions and Anthropic's Messages API references for tool_choice, finish_reason,
stop_reason, tool_call_id, tool_use_id, is_error; the MCP specification for tools/list and tools/call), from
Qwen3's chat template as published in its tokenizer_config.json (written out by hand below), from the Orrin Grid's
seed data (E-1474: a tree branch across the 11 kV feeder, 312 customers) and from the OpenAI Agents SDK's
documented reset of a forced tool_choice; none is copied from a run.
"""
import json
import re
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import interfaces  # noqa: E402
import tool_core  # noqa: E402
from interfaces import MCP, Anthropic, MCPServer, OpenAI, json_lines, tool_choice_forms  # noqa: E402
from tool_core import ScriptedLM, ToolRegistry, call_text, count_tokens, render_tool_prompt, run_agent  # noqa: E402

QUESTION = "What caused incident E-1474?"
RECORD = {"code": "E-1474", "substation_id": "SS-218", "status": "resolved",
          "cause": "a tree branch across the 11 kV feeder", "customers_affected": 312}
REGISTRY = tool_core.orrin_grid_registry()[0]
TOOL = REGISTRY.get("get_incident")
SPEC = {"name": "get_incident", "description": TOOL.description, "parameters": TOOL.parameters}
WIRE = interfaces.demo_wire()
TOKENS = interfaces.demo_template_and_choice()


def printed_bodies(text: str) -> list:
    """Read back every JSON body a demo printed: each opens a line with { or [; a line ending in a backslash goes
    on below (the backslash, the newline and the two-space indent come out)."""
    joined, decoder, found, end = text.replace("\\\n  ", ""), json.JSONDecoder(), [], 0
    for opening in re.finditer(r"(?m)^[\[{]", joined):
        if opening.start() >= end:
            value, end = decoder.raw_decode(joined, opening.start())
            found.append(value)
    return found


BODIES = printed_bodies(WIRE)
(OPENAI_REQUEST, OPENAI_CALL, OPENAI_HISTORY, OPENAI_ANSWER, ANTHROPIC_REQUEST, ANTHROPIC_CALL, ANTHROPIC_HISTORY,
 ANTHROPIC_ERROR, ANTHROPIC_ANSWER, LIST_REQUEST, LIST_RESPONSE, CALL_REQUEST, CALL_RESPONSE) = BODIES


def lines_of(text: str) -> list[str]:
    return text.splitlines()


class TheWire(unittest.TestCase):
    """Demo 1: each body read back by its own dialect gives the one call and the one result."""

    def test_thirteen_bodies_on_a_page(self):
        self.assertEqual(len(BODIES), 13)  # OpenAI 4, Anthropic 4 and the error block, MCP 2 pairs
        self.assertLessEqual(max(map(len, lines_of(WIRE))), interfaces.PAGE_WIDTH)
        self.assertLessEqual(len(lines_of(WIRE)), 66)

    def test_openai_chat_completions(self):
        dialect = OpenAI()
        self.assertEqual(OPENAI_REQUEST["messages"], [{"role": "user", "content": QUESTION}])
        self.assertEqual([dialect.read_tool(t) for t in OPENAI_REQUEST["tools"]], [SPEC])
        finish, message = dialect.read_response(OPENAI_CALL)
        self.assertEqual(finish, "tool_calls")
        _, calls = dialect.read_calls(message)
        self.assertEqual([(c.name, c.arguments) for c in calls], [("get_incident", {"code": "E-1474"})])
        self.assertIsInstance(message["tool_calls"][0]["function"]["arguments"], str)  # a JSON string, per the API
        call_id = calls[0].id
        self.assertEqual(OPENAI_HISTORY[:2], [{"role": "user", "content": QUESTION}, message])  # echoed as it came
        self.assertEqual((OPENAI_HISTORY[2]["role"], OPENAI_HISTORY[2]["tool_call_id"]), ("tool", call_id))
        results = dialect.read_results(OPENAI_HISTORY[2:])
        self.assertEqual(list(results), [call_id])
        self.assertTrue(results[call_id].ok)
        self.assertEqual(json.loads(results[call_id].content), RECORD)
        finish, message = dialect.read_response(OPENAI_ANSWER)
        text, calls = dialect.read_calls(message)
        self.assertEqual((finish, calls), ("stop", []))
        self.assertIn(RECORD["cause"], text)

    def test_anthropic_messages(self):
        dialect = Anthropic()
        self.assertIsInstance(ANTHROPIC_REQUEST["max_tokens"], int)  # required by the Messages API
        self.assertEqual([dialect.read_tool(t) for t in ANTHROPIC_REQUEST["tools"]], [SPEC])
        self.assertEqual(ANTHROPIC_REQUEST["messages"], [{"role": "user", "content": QUESTION}])
        stop, turn = dialect.read_response(ANTHROPIC_CALL)
        self.assertEqual(stop, "tool_use")
        _, calls = dialect.read_calls(turn)
        self.assertEqual([(c.name, c.arguments) for c in calls], [("get_incident", {"code": "E-1474"})])
        call_id = calls[0].id
        self.assertEqual(ANTHROPIC_HISTORY[1], {"role": "assistant", "content": ANTHROPIC_CALL["content"]})
        self.assertEqual(ANTHROPIC_HISTORY[2]["role"], "user")
        self.assertEqual(ANTHROPIC_HISTORY[2]["content"][0]["tool_use_id"], call_id)
        results = dialect.read_results(ANTHROPIC_HISTORY[2])
        self.assertTrue(results[call_id].ok)
        self.assertEqual(json.loads(results[call_id].content), RECORD)
        self.assertIs(ANTHROPIC_ERROR["is_error"], True)
        failed = dialect.read_results({"role": "user", "content": [ANTHROPIC_ERROR]})[call_id]
        self.assertFalse(failed.ok)
        self.assertIn("TimeoutError", failed.message)
        stop, turn = dialect.read_response(ANTHROPIC_ANSWER)
        text, calls = dialect.read_calls(turn)
        self.assertEqual((stop, calls), ("end_turn", []))
        self.assertIn(RECORD["cause"], text)

    def test_mcp(self):
        dialect = MCP()
        self.assertEqual((LIST_REQUEST["method"], LIST_RESPONSE["id"]), ("tools/list", LIST_REQUEST["id"]))
        self.assertEqual(dialect.read_tools_list(LIST_RESPONSE), [SPEC])
        self.assertEqual(CALL_REQUEST["method"], "tools/call")
        _, calls = dialect.read_calls([CALL_REQUEST])
        self.assertEqual([(c.name, c.arguments) for c in calls], [("get_incident", {"code": "E-1474"})])
        result = dialect.read_results([CALL_RESPONSE])[calls[0].id]
        self.assertIs(CALL_RESPONSE["result"]["isError"], False)
        self.assertEqual(json.loads(result.content), RECORD)

    def test_the_lab_server_answers_the_printed_requests_with_the_printed_responses(self):
        server = MCPServer(ToolRegistry([TOOL]), tool_timeout=None)
        session = server.session()
        session.handle({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                        "params": {"protocolVersion": interfaces.LATEST_VERSION, "capabilities": {}}})
        self.assertEqual(session.handle(LIST_REQUEST), LIST_RESPONSE)
        self.assertEqual(session.handle(CALL_REQUEST), CALL_RESPONSE)
        server.close()

    def test_one_request_the_same_in_each_dialect(self):
        args = {"code": "E-1474"}
        rows = [(OpenAI(), OpenAI().read_response(OPENAI_CALL)[1]), (Anthropic(), Anthropic().read_response(ANTHROPIC_CALL)[1]),
                (MCP(), [CALL_REQUEST])]
        for dialect, turn in rows:
            with self.subTest(dialect=dialect.name):
                self.assertEqual([(c.name, c.arguments) for c in dialect.read_calls(turn)[1]], [("get_incident", args)])


class JsonLines(unittest.TestCase):
    """json_lines: wrapped between members, long strings broken with a backslash, and the JSON back as it was."""

    def test_a_break_between_members(self):
        self.assertEqual(json_lines({"a": 1, "b": [2, 3]}, 14), ['{"a": 1,', '  "b": [2, 3]}'])
        self.assertEqual(json_lines({"a": 1, "b": [2, 3]}, 40), ['{"a": 1, "b": [2, 3]}'])

    def test_a_line_may_end_only_between_members(self):
        rows = [  # (compact JSON, the pieces a line may end after)
            ('[1, "a, b"]', ['[1, ', '"a, b"]']),
            (r'["say \"hi, there"]', [r'["say \"hi, there"]']),  # an escaped quote does not end the string
            (r'["a\\", "b, c"]', [r'["a\\", ', '"b, c"]']),  # an escaped backslash does not escape the quote
            ('{"k, ": {"x": [1, 2]}}', ['{"k, ": {"x": [1, ', '2]}}']),
        ]
        for text, pieces in rows:
            with self.subTest(text=text):
                self.assertEqual(interfaces._members(text), pieces)

    def test_the_json_comes_back(self):
        values = [{"text": "a, b, " * 40}, ["Zürich, \"quoted\", and a \\ backslash, " * 6, 1, None],
                  ['say "hi, there, ' * 12, "a\\", "b, c " * 30],
                  {"k, ey": [{"x": "y " * 70}], "n": 3.5}, "one " * 50, [], {}]
        for value in values:
            for width in (30, 60, 118):
                with self.subTest(value=str(value)[:30], width=width):
                    lines = json_lines(value, width)
                    self.assertEqual(json.loads("\n".join(lines).replace("\\\n  ", "")), value)
                    self.assertLessEqual(max(map(len, lines)), width)


def qwen_system(tools) -> str:
    """Qwen3's system turn with tools, written out from its chat template (tokenizer_config.json)."""
    lines = [json.dumps({"type": "function", "function": {"name": t.name, "description": t.description,
                                                          "parameters": t.parameters}}) for t in tools]
    return ("<|im_start|>system\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
            "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n" + "\n".join(lines)
            + "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
            "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": "
            "<args-json-object>}\n</tool_call><|im_end|>\n")


ANSWER = OPENAI_ANSWER["choices"][0]["message"]["content"]  # whatever the scripted model answered
QWEN = [qwen_system([TOOL]), f"<|im_start|>user\n{QUESTION}<|im_end|>\n",
        '<|im_start|>assistant\n<tool_call>\n{"name": "get_incident", "arguments": {"code": "E-1474"}}\n</tool_call>'
        "<|im_end|>\n", f"<|im_start|>user\n<tool_response>\n{json.dumps(RECORD)}\n</tool_response><|im_end|>\n",
        f"<|im_start|>assistant\n{ANSWER}<|im_end|>\n"]
TEXT = [render_tool_prompt([TOOL]), QUESTION, '<tool_call>{"name": "get_incident", "arguments": {"code": "E-1474"}}</tool_call>',
        f'<tool_result name="get_incident" id="call_1">{json.dumps(RECORD)}</tool_result>', ANSWER]


def table_row(text: str, label: str) -> list[str]:
    """Return the cells of the table row that starts with label (cells are two or more spaces apart)."""
    line = next(line for line in lines_of(text) if line.startswith(label + "  "))
    return re.split(r"\s{2,}", line[len(label):].strip())


class TheTokens(unittest.TestCase):
    """Demo 2, the tokens: the printed context is Qwen3's template, and each count is count_tokens of that part."""

    def test_the_context_is_the_template(self):
        expected = [line for line in "".join(QWEN[:4] + ["<|im_start|>assistant\n"]).splitlines() if line]
        start = lines_of(TOKENS).index("  <|im_start|>system")
        printed = [line[2:] for line in lines_of(TOKENS)[start:start + len(expected)]]
        for want, got in zip(expected, printed):
            with self.subTest(line=want[:40]):
                self.assertTrue(got == want or (got.endswith("…") and want.startswith(got[:-1])), got)
        self.assertEqual(lines_of(TOKENS)[start + len(expected)], "")  # and nothing more

    def test_each_part_and_the_whole(self):
        labels = interfaces.EXCHANGE_PARTS
        for label, qwen, text in zip(labels, QWEN, TEXT):
            with self.subTest(part=label):
                self.assertEqual(table_row(TOKENS, label), [str(count_tokens(qwen)), str(count_tokens(text))])
        self.assertEqual(table_row(TOKENS, "the whole exchange"),
                         [str(sum(map(count_tokens, QWEN))), str(sum(map(count_tokens, TEXT)))])
        definitions = [json.dumps({"type": "function", "function": SPEC}), json.dumps(SPEC)]
        self.assertEqual(table_row(TOKENS, "  of which the tool's definition"), [str(count_tokens(d)) for d in definitions])

    def test_the_system_part_per_request_and_with_four_tools(self):
        twice = re.search(r"(\d+) and (\d+) tokens over this exchange's two requests", TOKENS).groups()
        self.assertEqual(twice, (str(2 * count_tokens(QWEN[0])), str(2 * count_tokens(TEXT[0]))))
        four = re.search(r"with all four Orrin Grid tools it is (\d+) and (\d+) tokens", TOKENS).groups()
        self.assertEqual(four, (str(count_tokens(qwen_system(REGISTRY))), str(count_tokens(render_tool_prompt(REGISTRY)))))
        self.assertGreater(int(four[0]), count_tokens(QWEN[0]))  # every tool's definition is paid for

    def test_on_a_page(self):
        self.assertLessEqual(max(map(len, lines_of(TOKENS))), interfaces.PAGE_WIDTH)
        self.assertLessEqual(len(lines_of(TOKENS)), 66)


class ToolChoice(unittest.TestCase):
    """tool_choice as the vendors document it, and the line the text protocol's loop adds for it."""

    # (choice, OpenAI Chat Completions "tool_choice", Anthropic Messages "tool_choice"), from the API references:
    # OpenAI's ChatCompletionToolChoiceOption ("none", "auto", "required", or {"type": "function", "function":
    # {"name": ...}}) and Anthropic's ToolChoiceAuto / ToolChoiceAny / ToolChoiceNone / ToolChoiceTool ({"type": ...,
    # "name"?}); Anthropic's word for "must call some tool" is "any"
    DOCUMENTED = [
        ("auto", "auto", {"type": "auto"}),
        ("required", "required", {"type": "any"}),
        ("any", "required", {"type": "any"}),
        ("none", "none", {"type": "none"}),
        ({"name": "get_incident"}, {"type": "function", "function": {"name": "get_incident"}},
         {"type": "tool", "name": "get_incident"}),
    ]

    def test_the_documented_spellings(self):
        user = [{"role": "user", "content": QUESTION}]
        for choice, openai, anthropic in self.DOCUMENTED:
            with self.subTest(choice=choice):
                forms = tool_choice_forms(choice, [TOOL])
                self.assertEqual((forms["OpenAI"], forms["Anthropic"]), (openai, anthropic))
                self.assertEqual(OpenAI().request(user, [TOOL], "m", choice)["tool_choice"], openai)
                self.assertEqual(Anthropic().request(user, [TOOL], "m", choice)["tool_choice"], anthropic)

    def test_the_printed_table(self):
        for label, (_, openai, anthropic) in zip(["auto", "required (any)", "none", "get_incident"],
                                                 [d for d in self.DOCUMENTED if d[0] != "any"]):
            with self.subTest(choice=label):
                self.assertEqual([json.loads(cell) for cell in table_row(TOKENS, label)[:2]], [openai, anthropic])

    def test_the_text_protocol_line_is_what_run_agent_adds(self):
        for choice, label in (("required", "  required (any)"), ("none", "  none"), ("get_incident", "  get_incident")):
            with self.subTest(choice=choice):
                lm = ScriptedLM(["It was a storm."])
                run_agent(lm, REGISTRY, QUESTION, tool_choice=choice, max_steps=1)
                added = lm.prompts[0][0]["content"][len(render_tool_prompt(REGISTRY)):].strip()
                self.assertEqual(json.loads(table_row(TOKENS, label)[0]), added)
                self.assertNotEqual(added, "")
        lm = ScriptedLM(["It was a storm."])
        run_agent(lm, REGISTRY, QUESTION, tool_choice="auto")
        self.assertEqual(lm.prompts[0][0]["content"], render_tool_prompt(REGISTRY))  # auto adds no line


def rule_in(prompt: list[dict]) -> bool:
    """Say whether a request's system prompt carries a tool_choice line beyond the plain protocol."""
    return prompt[0]["content"] != render_tool_prompt(REGISTRY)


INCIDENT = call_text("get_incident", {"code": "E-1474"})


class ForcedThenAuto(unittest.TestCase):
    """run_agent: a forced choice holds on the first turn, then returns to auto.

    The OpenAI Agents SDK documents the reset ("the framework automatically resets tool_choice to 'auto' after a tool
    call", Agent.reset_tool_choice, default true) to stop a forced call from repeating forever; run_agent resets once
    a call has succeeded, so a forced call that failed is asked for again, for the model to fix.
    """

    def test_forced_on_the_first_turn_only(self):
        for choice in ("required", "get_incident"):
            with self.subTest(choice=choice):
                lm = ScriptedLM([INCIDENT, "It was a tree branch."])
                t = run_agent(lm, REGISTRY, QUESTION, tool_choice=choice)
                self.assertEqual([rule_in(p) for p in lm.prompts], [True, False])
                self.assertEqual((t.stop_reason, [c.name for c in t.calls]), ("final_answer", ["get_incident"]))

    def test_without_the_reset_the_tool_is_forced_every_turn(self):
        lm = ScriptedLM([INCIDENT] * 3)
        t = run_agent(lm, REGISTRY, QUESTION, tool_choice="get_incident", reset_tool_choice=False, max_steps=3)
        self.assertEqual([rule_in(p) for p in lm.prompts], [True, True, True])
        self.assertEqual((t.stop_reason, len(t.calls)), ("max_steps", 3))

    def test_a_failed_forced_call_keeps_the_force(self):
        lm = ScriptedLM([call_text("get_incident", {"code": "E-9999"}), INCIDENT, "It was a tree branch."])
        run_agent(lm, REGISTRY, QUESTION, tool_choice="get_incident")
        self.assertEqual([rule_in(p) for p in lm.prompts], [True, True, False])

    def test_one_forced_call_that_succeeds_is_enough(self):
        # a turn that makes the forced call twice, once for an incident that does not exist: one succeeded, so the
        # next request is auto again, whichever of the two came first
        bad = call_text("get_incident", {"code": "E-9999"})
        for choice in ("required", "get_incident"):
            for reply, oks in ((bad + INCIDENT, [False, True]), (INCIDENT + bad, [True, False])):
                with self.subTest(choice=choice, oks=oks):
                    lm = ScriptedLM([reply, "It was a tree branch."])
                    t = run_agent(lm, REGISTRY, QUESTION, tool_choice=choice, max_steps=2)
                    self.assertEqual([c.ok for c in t.calls], oks)
                    self.assertEqual([rule_in(p) for p in lm.prompts], [True, False])
                    self.assertEqual((t.stop_reason, t.final_answer), ("final_answer", "It was a tree branch."))

    def test_none_holds_and_refuses(self):
        lm = ScriptedLM([INCIDENT, "I cannot look it up."])
        t = run_agent(lm, REGISTRY, QUESTION, tool_choice="none")
        self.assertEqual([rule_in(p) for p in lm.prompts], [True, True])
        self.assertEqual(t.calls[0].error_kind, "not_allowed")

    def test_the_demo_table(self):
        rows = [  # (row, turn 1, turn 2, stop): [what the request asked] what the model did
            ("auto", ["[auto] answer", "final_answer"]),
            ("required", ["[required] call get_incident", "[auto] answer", "final_answer"]),
            ("get_incident", ["[get_incident] call get_incident", "[auto] answer", "final_answer"]),
            ("none", ["[none] answer", "final_answer"]),
            ("get_incident, no reset", ["[get_incident] call get_incident", "[get_incident] call get_incident", "max_steps"]),
        ]
        start = next(i for i, line in enumerate(lines_of(TOKENS)) if line.startswith("tool_choice  "))
        table = lines_of(TOKENS)[start:]
        for label, cells in rows:
            with self.subTest(row=label):
                self.assertEqual(table_row("\n".join(table), label), cells)

    def test_the_forced_call_and_the_answer_none_forces(self):
        forced = re.search(r"forced, it writes (.*)$", TOKENS, re.M).group(1)
        self.assertEqual([(c.name, c.arguments) for c in tool_core.parse_tool_calls(forced).items],
                         [("get_incident", {"code": "E-1474"})])
        none = re.search(r"none forces '(.*)'$", TOKENS, re.M).group(1)
        self.assertEqual(tool_core.parse_tool_calls(none).items, [])
        guess = re.search(r"auto let it guess '(.*)'; the record says (.*)\.$", TOKENS, re.M).groups()
        self.assertNotIn(RECORD["cause"], guess[0])
        self.assertEqual(guess[1], RECORD["cause"])


class BadInput(unittest.TestCase):
    """An unknown tool_choice, or a forced tool that does not exist: a ValueError that says what to use."""

    def test_value_errors(self):
        user = [{"role": "user", "content": QUESTION}]
        rows = [
            (lambda: tool_choice_forms("sometimes", [TOOL]), r"unknown tool_choice .*sometimes"),
            (lambda: tool_choice_forms({"name": "get_weather"}, [TOOL]), r"'get_weather'.*not among.*get_incident"),
            (lambda: tool_choice_forms({"tool": "get_incident"}, [TOOL]), r"unknown tool_choice"),
            (lambda: OpenAI().request(user, [TOOL], "m", {"name": "get_weather"}), r"get_weather.*get_incident"),
            (lambda: Anthropic().request(user, [TOOL], "m", {"name": "get_weather"}), r"get_weather.*get_incident"),
            (lambda: Anthropic().request(user, [TOOL], "m", "maybe"), r"unknown tool_choice"),
            (lambda: interfaces.text_choice(None), r"unknown tool_choice"),
            (lambda: run_agent(ScriptedLM(["x"]), REGISTRY, QUESTION, tool_choice={"name": "get_incident"}),
             r"tool_choice must be .*as a string"),
            (lambda: run_agent(ScriptedLM(["x"]), REGISTRY, QUESTION, tool_choice=["get_incident"]), r"tool_choice"),
            (lambda: run_agent(ScriptedLM(["x"]), REGISTRY, QUESTION, tool_choice="get_weather"),
             r"'get_weather'"),
        ]
        for n, (make, message) in enumerate(rows):
            with self.subTest(row=n), self.assertRaisesRegex(ValueError, message):
                make()

    def test_run_agent_names_the_tools_it_has(self):
        with self.assertRaises(ValueError) as caught:
            run_agent(ScriptedLM(["x"]), REGISTRY, QUESTION, tool_choice="get_weather")
        for name in REGISTRY.names():
            self.assertIn(name, str(caught.exception))


if __name__ == "__main__":
    unittest.main()
