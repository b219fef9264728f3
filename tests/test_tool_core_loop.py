"""The agent loop: ids, result order, concurrency of read-only calls, tool_choice, stop reasons."""
import json
import sys
import threading
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tool_core import (ScriptedLM, ToolRegistry, call_text, orrin_grid_registry, parse_tool_results,  # noqa: E402
                       render_tool_prompt, run_agent, tool_from_function)

INCIDENT = call_text("get_incident", {"code": "E-1474"})
SUBSTATION = call_text("get_substation", {"substation_id": "SS-218"})


def results_in(message: dict) -> list[dict]:
    return parse_tool_results(message["content"])


class Basics(unittest.TestCase):
    def test_final_answer_without_tools(self):
        registry, _ = orrin_grid_registry()
        t = run_agent(ScriptedLM(["No tool needed: hello!"]), registry, "Say hello.")
        self.assertEqual((t.stop_reason, t.final_answer, t.steps, t.calls), ("final_answer", "No tool needed: hello!", 1, []))

    def test_round_trip_with_ids_in_call_order(self):
        registry, _ = orrin_grid_registry()
        lm = ScriptedLM([INCIDENT + SUBSTATION, call_text("get_incident", {"code": "E-1502"}), "Both done."])
        t = run_agent(lm, registry, "q")
        self.assertEqual([c.id for c in t.calls], ["call_1", "call_2", "call_3"])
        first = results_in(t.messages[3])
        self.assertEqual([(r["id"], r["name"]) for r in first], [("call_1", "get_incident"), ("call_2", "get_substation")])
        self.assertEqual(json.loads(first[1]["content"])["maintainer"], "Dana Okafor")
        self.assertEqual(results_in(t.messages[5])[0]["id"], "call_3")
        self.assertEqual([m["role"] for m in t.messages], ["system", "user", "assistant", "tool", "assistant", "tool", "assistant"])
        self.assertEqual(t.final_answer, "Both done.")
        # the model saw the results of turn 1 before writing turn 2
        self.assertIn('id="call_2"', lm.prompts[1][-1]["content"])

    def test_system_prompt_lists_tools_and_rules(self):
        registry, _ = orrin_grid_registry()
        lm = ScriptedLM(["ok"])
        run_agent(lm, registry, "q")
        system = lm.prompts[0][0]["content"]
        self.assertEqual(system, render_tool_prompt(list(registry)))
        for needle in ('"name": "get_incident"', "<tool_call>", "<tool_result>", "Never invent a tool", "answer directly"):
            self.assertIn(needle, system)

    def test_parse_errors_go_back_to_the_model(self):
        registry, _ = orrin_grid_registry()
        truncated = '<tool_call>{"name": "get_incident", "arguments": {"code": "E-14'
        lm = ScriptedLM([truncated, INCIDENT, "fixed"])
        t = run_agent(lm, registry, "q")
        self.assertEqual(results_in(t.messages[3])[0]["error"], "truncated")
        self.assertEqual([(c.ok, c.error_kind) for c in t.calls], [(False, "truncated"), (True, None)])
        self.assertEqual(t.stop_reason, "final_answer")

    def test_stop_sequence_cuts_an_invented_result(self):
        registry, _ = orrin_grid_registry()
        lm = ScriptedLM([INCIDENT + '<tool_result id="call_1">{"cause": "aliens"}</tool_result>', "done"])
        t = run_agent(lm, registry, "q")
        self.assertEqual(t.messages[2]["content"], INCIDENT)
        self.assertNotIn("aliens", json.dumps(t.messages))


class StopReasons(unittest.TestCase):
    def test_same_failing_call_twice_stops(self):
        registry, grid = orrin_grid_registry()
        bad = call_text("create_ticket", {"substation_id": "SS-218", "summary": "s", "priority": "urgent"})
        t = run_agent(ScriptedLM([bad, bad, "never reached"]), registry, "q")
        self.assertEqual((t.stop_reason, t.steps, len(grid.tickets)), ("repeated_failure", 2, 0))

    def test_the_same_mistake_twice_in_one_reply_is_not_a_repeat(self):
        registry, _ = orrin_grid_registry()
        bad = call_text("get_substation", {"id": "SS-218"})
        t = run_agent(ScriptedLM([bad + bad, SUBSTATION, "done"]), registry, "q")
        self.assertEqual((t.stop_reason, t.steps), ("final_answer", 3))  # it had not seen the error yet

    def test_step_limit(self):
        registry, _ = orrin_grid_registry()
        t = run_agent(ScriptedLM(lambda msgs: INCIDENT), registry, "q", max_steps=3)
        self.assertEqual((t.stop_reason, t.steps, len(t.calls)), ("max_steps", 3, 3))

    def test_correction_creates_exactly_one_ticket(self):
        registry, grid = orrin_grid_registry()
        args = {"substation_id": "SS-218", "summary": "relay trips", "priority": "urgent"}
        lm = ScriptedLM([call_text("create_ticket", args), call_text("create_ticket", args | {"priority": "high"}), "done"])
        t = run_agent(lm, registry, "q")
        self.assertEqual(len(grid.tickets), 1)
        self.assertEqual(grid.tickets[0]["priority"], "high")
        self.assertEqual([c.error_kind for c in t.calls], ["invalid_arguments", None])
        self.assertIn('"low", "normal", "high"', lm.prompts[1][-1]["content"])


def barrier_registry(parties: int, timeout: float):
    """Read-only tools that each wait at one barrier: they can only all succeed if they run together."""
    barrier = threading.Barrier(parties, timeout=timeout)
    registry = ToolRegistry()
    log: list[str] = []

    def make(name: str, read_only: bool):
        def body(x: int) -> str:
            """Meet the others at the barrier."""
            log.append(f"start {name}")
            barrier.wait()
            log.append(f"end {name}")
            return name
        registry.register(tool_from_function(body, name=name, read_only=read_only))

    return registry, log, make


class Concurrency(unittest.TestCase):
    def test_read_only_calls_of_one_turn_run_concurrently(self):
        registry, log, make = barrier_registry(3, timeout=5)
        for name in ("a", "b", "c"):
            make(name, read_only=True)
        reply = "".join(call_text(n, {"x": 1}) for n in ("a", "b", "c"))
        t = run_agent(ScriptedLM([reply, "done"]), registry, "q")
        # with sequential execution the first barrier.wait() would time out and the call would fail
        self.assertEqual([c.ok for c in t.calls], [True, True, True])
        self.assertEqual(len({c.batch for c in t.calls}), 1)
        self.assertEqual([r["content"] for r in results_in(t.messages[3])], ["a", "b", "c"])

    def test_calls_with_side_effects_run_one_by_one_in_order(self):
        events: list[str] = []
        lock = threading.Lock()
        inside = [0]
        registry = ToolRegistry()

        def make(name: str):
            def body() -> str:
                """Record entry and exit, and how many writers were inside at once."""
                with lock:
                    inside[0] += 1
                    events.append(f"{name}:{inside[0]}")
                with lock:
                    inside[0] -= 1
                return name
            registry.register(tool_from_function(body, name=name))

        for name in ("w1", "w2", "w3"):
            make(name)
        reply = "".join(call_text(n, {}) for n in ("w1", "w2", "w3"))
        t = run_agent(ScriptedLM([reply, "done"]), registry, "q")
        self.assertEqual(events, ["w1:1", "w2:1", "w3:1"])
        self.assertEqual(len({c.batch for c in t.calls}), 3)

    def test_a_write_separates_the_reads_around_it(self):
        registry, log, make = barrier_registry(2, timeout=5)
        make("r1", read_only=True)
        make("r2", read_only=True)
        make("r3", read_only=True)
        make("r4", read_only=True)
        writes: list[str] = []

        def write() -> str:
            """Record that the write ran, and what had finished before it."""
            writes.append(",".join(sorted(e for e in log if e.startswith("end"))))
            return "written"
        registry.register(tool_from_function(write, name="w"))
        reply = "".join(call_text(n, {"x": 1}) if n != "w" else call_text("w", {}) for n in ("r1", "r2", "w", "r3", "r4"))
        t = run_agent(ScriptedLM([reply, "done"]), registry, "q")
        self.assertTrue(all(c.ok for c in t.calls))
        self.assertEqual(writes, ["end r1,end r2"])  # both earlier reads finished, neither later one started
        self.assertEqual([c.batch for c in t.calls][0], [c.batch for c in t.calls][1])
        self.assertEqual([c.batch for c in t.calls][3], [c.batch for c in t.calls][4])
        self.assertEqual(len({c.batch for c in t.calls}), 3)


class ToolChoice(unittest.TestCase):
    """tool_choice: asked for in the prompt, checked on the reply, refused calls reported as not_allowed."""

    def test_auto_allows_a_direct_answer(self):
        registry, _ = orrin_grid_registry()
        self.assertEqual(run_agent(ScriptedLM(["hi"]), registry, "q", tool_choice="auto").stop_reason, "final_answer")

    def test_required_rejects_a_reply_without_a_call_then_resets(self):
        registry, _ = orrin_grid_registry()
        lm = ScriptedLM(["I think it was a storm.", INCIDENT, "It was a branch."])
        t = run_agent(lm, registry, "q", tool_choice="required")
        self.assertEqual((t.stop_reason, t.final_answer, t.steps), ("final_answer", "It was a branch.", 3))
        self.assertIn("'required'", t.messages[3]["content"])
        self.assertIn("must call at least one tool", lm.prompts[0][0]["content"])
        self.assertNotIn("must call at least one tool", lm.prompts[2][0]["content"])  # reset to auto after a call ran

    def test_none_refuses_every_call(self):
        registry, grid = orrin_grid_registry()
        ticket = call_text("create_ticket", {"substation_id": "SS-218", "summary": "s"})
        t = run_agent(ScriptedLM([ticket, "ok, no ticket"]), registry, "q", tool_choice="none")
        self.assertEqual(len(grid.tickets), 0)
        self.assertEqual(t.calls[0].error_kind, "not_allowed")  # the tool exists: it is refused, not unknown
        self.assertIn("tool_choice is 'none'", t.messages[3]["content"])
        self.assertEqual(t.final_answer, "ok, no ticket")

    def test_named_tool_must_be_the_one_called(self):
        registry, _ = orrin_grid_registry()
        lm = ScriptedLM([INCIDENT, SUBSTATION, "done"])
        t = run_agent(lm, registry, "q", tool_choice="get_substation")
        self.assertEqual([(c.name, c.ok) for c in t.calls], [("get_incident", False), ("get_substation", True)])
        self.assertIn("only get_substation may be called", t.messages[3]["content"])
        self.assertIn("must call get_substation", t.messages[4]["content"])
        self.assertEqual(t.final_answer, "done")

    def test_not_allowed_is_what_the_model_sees_and_nothing_runs(self):
        rows = [  # (tool_choice, the refused call, the model's next reply, what the model reads, runs of (lookup, write))
            ("none", "write", "ok",
             "write exists but is not allowed in this turn: tool_choice is 'none', so no tool may be called. "
             "Nothing was executed.", (0, 0)),
            ("none", "lookup", "ok",
             "lookup exists but is not allowed in this turn: tool_choice is 'none', so no tool may be called. "
             "Nothing was executed.", (0, 0)),
            ("lookup", "write", call_text("lookup", {}),
             "write exists but is not allowed in this turn: tool_choice is 'lookup', so only lookup may be called. "
             "Nothing was executed.", (1, 0)),
            ("write", "lookup", call_text("write", {}),
             "lookup exists but is not allowed in this turn: tool_choice is 'write', so only write may be called. "
             "Nothing was executed.", (0, 1)),
        ]
        for choice, called, reply, message, runs in rows:
            with self.subTest(tool_choice=choice, called=called):
                registry, counts = ToolRegistry(), {"lookup": 0, "write": 0}

                def lookup() -> str:
                    """Count a read."""
                    counts["lookup"] += 1
                    return "read"

                def write() -> str:
                    """Count a write."""
                    counts["write"] += 1
                    return "written"

                registry.register(tool_from_function(lookup, read_only=True))
                registry.register(tool_from_function(write))
                lm = ScriptedLM([call_text(called, {}), reply] + (["ok"] if reply != "ok" else []))
                t = run_agent(lm, registry, "q", tool_choice=choice)
                seen = [m for m in lm.prompts[1] if m["role"] == "tool"]  # the conversation of the next turn
                self.assertEqual(results_in(seen[-1]),
                                 [{"name": called, "id": "call_1", "error": "not_allowed", "content": message}])
                self.assertEqual((t.calls[0].ok, t.calls[0].error_kind), (False, "not_allowed"))
                self.assertEqual((counts["lookup"], counts["write"]), runs)
                self.assertEqual(t.final_answer, "ok")

    def test_an_unknown_tool_under_none_is_unknown_not_refused(self):
        registry, _ = orrin_grid_registry()
        t = run_agent(ScriptedLM([call_text("get_weather", {}), "ok"]), registry, "q", tool_choice="none")
        self.assertEqual(t.calls[0].error_kind, "unknown_tool")

    def test_the_rule_reaches_a_custom_system_prompt(self):
        registry, _ = orrin_grid_registry()
        lm = ScriptedLM(["ok"])
        run_agent(lm, registry, "q", system="You are terse.", tool_choice="none")
        self.assertTrue(lm.prompts[0][0]["content"].startswith("You are terse."))
        self.assertIn("must not call any tool", lm.prompts[0][0]["content"])

    def test_a_malformed_call_is_not_also_called_missing(self):
        registry, _ = orrin_grid_registry()
        truncated = '<tool_call>{"name": "get_incident", "arguments": {"code": "E-14'
        t = run_agent(ScriptedLM([truncated, INCIDENT, "done"]), registry, "q", tool_choice="required")
        self.assertEqual(results_in(t.messages[3])[0]["error"], "truncated")
        self.assertNotIn("[harness]", t.messages[3]["content"])
        self.assertEqual([m["role"] for m in t.messages[2:5]], ["assistant", "tool", "assistant"])

    def test_unknown_choice_is_a_programmer_error(self):
        registry, _ = orrin_grid_registry()
        with self.assertRaises(ValueError):
            run_agent(ScriptedLM(["x"]), registry, "q", tool_choice="get_weather")


class Scripted(unittest.TestCase):
    def test_replies_in_order_then_a_clear_error(self):
        lm = ScriptedLM(["one", "two"])
        self.assertEqual([lm([]), lm([])], ["one", "two"])
        with self.assertRaises(ValueError):
            lm([])

    def test_a_reply_that_is_not_text_is_a_programmer_error(self):
        registry, _ = orrin_grid_registry()
        for reply in (None, b"bytes", 42):
            with self.subTest(reply=reply):
                with self.assertRaises(TypeError):
                    run_agent(ScriptedLM(lambda msgs, r=reply: r), registry, "q")

    def test_function_of_the_conversation(self):
        lm = ScriptedLM(lambda msgs: f"{len(msgs)} messages")
        self.assertEqual(lm([{"role": "user", "content": "x"}]), "1 messages")


if __name__ == "__main__":
    unittest.main()
