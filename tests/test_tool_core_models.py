"""One model interface for the loop (issue 34): run_agent on a native model (ScriptedModel) and on a text one.

A native model returns Turns whose calls carry the ids the vendor gave them; run_agent answers every call of a turn,
by that id, in the next message, whatever happened to the call. Expected values are counted by hand from the scripted
turns and the Orrin Grid tools of tool_core section 8.
"""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tool_core import (NATIVE_SYSTEM, ModelError, ParseError, ScriptedLM, ScriptedModel, TextModel, ToolCall, Turn,  # noqa: E402
                       call_text, orrin_grid_registry, run_agent)


def call(name: str, arguments: dict, call_id: str = "") -> ToolCall:
    return ToolCall(name, arguments, id=call_id)


class NativeLoop(unittest.TestCase):
    def test_parallel_calls_keep_their_ids_and_are_answered_together_in_order(self):
        registry, _ = orrin_grid_registry()
        model = ScriptedModel([
            Turn("Looking both up.", [call("get_incident", {"code": "E-1474"}, "toolu_a"),
                                      call("get_substation", {"substation_id": "SS-218"}, "toolu_b")], "tool_use",
                 {"input_tokens": 100, "output_tokens": 20}),
            Turn("E-1474 is resolved; SS-218 is kept by Dana Okafor.", [], "end_turn",
                 {"input_tokens": 180, "output_tokens": 15})])
        t = run_agent(model, registry, "Status of E-1474 and who maintains SS-218?")
        self.assertEqual((t.stop_reason, t.steps), ("final_answer", 2))
        self.assertEqual(t.final_answer, "E-1474 is resolved; SS-218 is kept by Dana Okafor.")
        self.assertEqual([m["role"] for m in t.messages], ["system", "user", "assistant", "tool", "assistant"])
        self.assertEqual(t.messages[0]["content"], NATIVE_SYSTEM)  # the tools are not in the prompt: they travel apart
        results = t.messages[3]["results"]
        self.assertEqual([(c.id, r.ok) for c, r in results], [("toolu_a", True), ("toolu_b", True)])
        self.assertEqual([c.id for c in t.calls], ["toolu_a", "toolu_b"])
        self.assertEqual(t.usage, {"input_tokens": 280, "output_tokens": 35})
        messages, tools, choice = model.requests[1]
        self.assertEqual(sorted(tool.name for tool in tools), registry.names())
        self.assertEqual((messages[-1]["role"], choice), ("tool", "auto"))
        self.assertIn("<toolu_a> get_incident", t.render())

    def test_an_unknown_tool_and_bad_arguments_are_answered_then_corrected(self):
        registry, grid = orrin_grid_registry()
        model = ScriptedModel([
            Turn("", [call("get_weather", {"city": "Stanford"}),
                      call("create_ticket", {"substation_id": "SS-218", "summary": "relay trips", "priority": "urgent"})]),
            Turn("", [call("create_ticket", {"substation_id": "SS-218", "summary": "relay trips", "priority": "high"})]),
            Turn("Ticket filed.")])
        t = run_agent(model, registry, "File a ticket for SS-218.")
        first = t.messages[3]["results"]
        self.assertEqual([c.id for c, _ in first], ["toolu_1", "toolu_2"])  # ids the model assigned, in order
        self.assertEqual([r.error_kind for _, r in first], ["unknown_tool", "invalid_arguments"])
        self.assertTrue(t.messages[5]["results"][0][1].ok)
        self.assertEqual(len(grid.tickets), 1)  # the invalid call never ran
        self.assertEqual(t.stop_reason, "final_answer")

    def test_an_unreadable_native_call_is_answered_by_its_id(self):
        registry, _ = orrin_grid_registry()
        broken = ParseError("invalid_json", "the arguments are not valid JSON", raw='{"code": ', id="call_x")
        model = ScriptedModel([Turn("", [broken]), Turn("Sorry, I could not read my own call.")])
        t = run_agent(model, registry, "q")
        (answered, result), = t.messages[3]["results"]
        self.assertEqual((answered.id, result.ok, result.error_kind), ("call_x", False, "invalid_json"))

    def test_a_refusal_and_a_cut_without_a_call_are_named_stops(self):
        registry, _ = orrin_grid_registry()
        for stop, named in (("refusal", "refused"), ("max_tokens", "truncated"), ("length", "truncated")):
            with self.subTest(stop):
                t = run_agent(ScriptedModel([Turn("I can't help with", [], stop)]), registry, "q")
                self.assertEqual((t.stop_reason, t.final_answer, t.steps), (named, "I can't help with", 1))

    def test_a_turn_the_model_could_not_give_ends_the_run_saying_why(self):
        registry, _ = orrin_grid_registry()

        def failing(stops_run: bool):
            def turn(messages, tools, choice):
                if len(messages) > 2:  # the second request: the API fails
                    raise ModelError("HTTP 529: overloaded", stops_run=stops_run)
                return Turn("", [call("get_incident", {"code": "E-1474"}, "toolu_a")])
            return ScriptedModel(turn)
        t = run_agent(failing(False), registry, "q")
        self.assertEqual((t.stop_reason, t.error, t.final_answer, t.steps), ("model_error", "HTTP 529: overloaded", None, 2))
        self.assertEqual([(c.name, c.ok) for c in t.calls], [("get_incident", True)])  # the first turn's call stays
        with self.assertRaisesRegex(ModelError, "overloaded"):  # what every later request would meet: raised
            run_agent(failing(True), registry, "q")

    def test_tool_choice_goes_with_the_request_and_the_reply_is_still_checked(self):
        registry, _ = orrin_grid_registry()
        model = ScriptedModel([Turn("No call."), Turn("", [call("get_incident", {"code": "E-1474"})]), Turn("Done.")])
        t = run_agent(model, registry, "q", tool_choice="required")
        self.assertEqual([choice for _, _, choice in model.requests], ["required", "required", "auto"])
        self.assertEqual([messages[0]["content"] for messages, _, _ in model.requests], [NATIVE_SYSTEM] * 3)
        self.assertIn("tool_choice is 'required'", t.messages[3]["content"])  # the harness said what was expected
        self.assertEqual(t.stop_reason, "final_answer")

    def test_a_script_that_runs_out_says_so(self):
        registry, _ = orrin_grid_registry()
        model = ScriptedModel([Turn("", [call("get_incident", {"code": "E-1474"})])])
        with self.assertRaisesRegex(ValueError, "only 1 turns"):
            run_agent(model, registry, "q")


class TextModels(unittest.TestCase):
    def test_a_plain_lm_and_a_text_model_give_the_same_run(self):
        replies = [call_text("get_incident", {"code": "E-1474"}), "Resolved."]
        runs = [run_agent(lm, orrin_grid_registry()[0], "q") for lm in (ScriptedLM(replies), TextModel(ScriptedLM(replies)))]
        self.assertEqual(runs[0].messages, runs[1].messages)
        self.assertEqual([c.id for c in runs[1].calls], ["call_1"])  # the text protocol's ids are the harness's

    def test_a_text_model_reports_what_it_parsed(self):
        turn = TextModel(ScriptedLM(["Checking. " + call_text("get_incident", {"code": "E-1474"})])).turn([])
        self.assertEqual((turn.text, turn.stop_reason), ("Checking.", "tool_use"))
        self.assertEqual([(c.name, c.arguments) for c in turn.calls], [("get_incident", {"code": "E-1474"})])

    def test_a_model_that_returns_no_text_is_a_programmers_error(self):
        with self.assertRaisesRegex(TypeError, "must return a str"):
            TextModel(lambda messages, stop: None).turn([])


if __name__ == "__main__":
    unittest.main()
