"""bfcl_lab.APIModel: a real API as a model of tool_core's loop (issue 34), seen at the request it writes.

The backends' post() is replaced, per instance, by a recorder that answers with the vendor's JSON (the shapes of the
Anthropic Messages and OpenAI Chat Completions references), so every request body can be read exactly: the
conversation rewritten in the vendor's form, the assistant turn echoed as the API sent it, every call answered by its
id in the next message. No network; the stand-in server's tests run the same loop over HTTP.
"""
import json
import os
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # for script_runs, however the tests are started

import bfcl_lab  # noqa: E402
import script_runs  # noqa: E402
import service_env  # noqa: E402
import tool_core  # noqa: E402
from bfcl_lab import AnthropicBackend, APIModel, LLMError, OpenAIBackend  # noqa: E402


def recorded(backend, answers: list[dict]):
    """Make the backend answer its posts from `answers`, in order; return the list the bodies are kept in."""
    bodies = []

    def post(url, headers, body):
        bodies.append(body)
        return answers[len(bodies) - 1]
    backend.post = post
    return bodies


THINKING = {"type": "thinking", "thinking": "Look it up first.", "signature": "sig-abc"}
ANTHROPIC_CALL = {"content": [THINKING, {"type": "text", "text": "Checking."},
                              {"type": "tool_use", "id": "toolu_01", "name": "get_incident", "input": {"code": "E-1474"}}],
                  "stop_reason": "tool_use", "usage": {"input_tokens": 400, "output_tokens": 30}}
ANTHROPIC_END = {"content": [{"type": "text", "text": "E-1474 is resolved."}], "stop_reason": "end_turn",
                 "usage": {"input_tokens": 480, "output_tokens": 12}}
OPENAI_CALL = {"choices": [{"finish_reason": "tool_calls", "message": {
    "role": "assistant", "content": None, "refusal": None, "tool_calls": [
        {"id": "call_a", "type": "function", "function": {"name": "get_incident", "arguments": '{"code": "E-1474"}'}},
        {"id": "call_b", "type": "function", "function": {"name": "get_substation", "arguments": '{"substation_id": "SS-218"}'}}]}}],
    "usage": {"prompt_tokens": 300, "completion_tokens": 40}}
OPENAI_END = {"choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": "Both looked up."}}],
              "usage": {"prompt_tokens": 390, "completion_tokens": 8}}


class Native(unittest.TestCase):
    def test_anthropic_the_turn_echoed_with_its_thinking_and_the_result_by_id(self):
        backend = AnthropicBackend("sk-test", base_url="http://127.0.0.1:9")
        bodies = recorded(backend, [ANTHROPIC_CALL, ANTHROPIC_END])
        registry, _ = tool_core.orrin_grid_registry()
        model = APIModel(backend)
        t = tool_core.run_agent(model, registry, "What is the status of E-1474?")
        self.assertEqual((t.stop_reason, t.final_answer), ("final_answer", "E-1474 is resolved."))
        first, second = bodies
        self.assertEqual(first["system"], tool_core.NATIVE_SYSTEM)
        self.assertEqual(sorted(tool["name"] for tool in first["tools"]), registry.names())
        self.assertNotIn("tool_choice", first)  # auto is the API's default
        self.assertEqual(second["messages"], [
            {"role": "user", "content": "What is the status of E-1474?"},
            {"role": "assistant", "content": ANTHROPIC_CALL["content"]},  # verbatim: the signed thinking block too
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01",
                                          "content": t.messages[3]["results"][0][1].text}]}])
        self.assertEqual((t.usage, backend.usage, model.requests, backend.requests),
                         ({"input_tokens": 880, "output_tokens": 42}, {"input_tokens": 880, "output_tokens": 42}, 2, 2))

    def test_openai_one_tool_message_per_call_and_the_choice_in_its_field(self):
        backend = OpenAIBackend("http://127.0.0.1:9/v1", "sk-test")
        bodies = recorded(backend, [OPENAI_CALL, OPENAI_END])
        registry, _ = tool_core.orrin_grid_registry()
        t = tool_core.run_agent(APIModel(backend), registry, "q", tool_choice="required")
        first, second = bodies
        self.assertEqual(first["tool_choice"], "required")
        self.assertEqual(first["messages"][0], {"role": "system", "content": tool_core.NATIVE_SYSTEM})
        roles = [(m["role"], m.get("tool_call_id")) for m in second["messages"]]
        self.assertEqual(roles, [("system", None), ("user", None), ("assistant", None), ("tool", "call_a"), ("tool", "call_b")])
        self.assertEqual(second["messages"][2]["tool_calls"], OPENAI_CALL["choices"][0]["message"]["tool_calls"])
        self.assertNotIn("refusal", second["messages"][2])  # only what a request may carry goes back
        self.assertNotIn("tool_choice", second)  # a call succeeded: auto again (reset_tool_choice)
        self.assertEqual(t.usage, {"input_tokens": 690, "output_tokens": 48})

    def test_a_refusal_and_a_cut_are_named(self):
        backend = OpenAIBackend("http://127.0.0.1:9/v1", "k")
        recorded(backend, [{"choices": [{"finish_reason": "content_filter", "message": {"content": ""}}]}])
        t = tool_core.run_agent(APIModel(backend), tool_core.orrin_grid_registry()[0], "q")
        self.assertEqual(t.stop_reason, "refused")
        backend = AnthropicBackend("k", base_url="http://127.0.0.1:9")
        recorded(backend, [{"content": [{"type": "text", "text": "The status of E-14"}], "stop_reason": "max_tokens"}])
        self.assertEqual(tool_core.run_agent(APIModel(backend), tool_core.orrin_grid_registry()[0], "q").stop_reason,
                         "truncated")


class TextProtocol(unittest.TestCase):
    def test_text_only_the_stop_sequence_and_a_result_as_a_user_turn(self):
        backend = AnthropicBackend("k", base_url="http://127.0.0.1:9")
        call = tool_core.call_text("get_incident", {"code": "E-1474"})
        bodies = recorded(backend, [{"content": [{"type": "text", "text": "Let me check. " + call}], "stop_reason":
                                     "stop_sequence"}, {"content": [{"type": "text", "text": "Resolved."}]}])
        registry, _ = tool_core.orrin_grid_registry()
        t = tool_core.run_agent(APIModel(backend, native=False), registry, "q")
        self.assertEqual((t.stop_reason, t.final_answer), ("final_answer", "Resolved."))
        first, second = bodies
        self.assertEqual(first["stop_sequences"], tool_core.STOP_SEQUENCES)
        self.assertNotIn("tools", first)
        self.assertIn("<tools>", first["system"])  # the tools are in the system prompt
        self.assertEqual([m["role"] for m in second["messages"]], ["user", "assistant", "user"])
        self.assertIn('<tool_result name="get_incident" id="call_1">', second["messages"][2]["content"])


class Budget(unittest.TestCase):
    def test_the_budget_of_requests_stops_the_run_with_a_clear_error(self):
        backend = AnthropicBackend("k", base_url="http://127.0.0.1:9", max_requests=3)
        bodies = recorded(backend, [ANTHROPIC_END, ANTHROPIC_CALL, ANTHROPIC_CALL])
        self.assertEqual(backend.complete("s", "u").text, "E-1474 is resolved.")  # the budget is the backend's: every use counts
        with self.assertRaisesRegex(LLMError, "budget of 3 model requests is used up"):
            tool_core.run_agent(APIModel(backend), tool_core.orrin_grid_registry()[0], "q")
        self.assertEqual((len(bodies), backend.requests), (3, 3))

    def test_only_the_two_backends(self):
        with self.assertRaisesRegex(TypeError, "AnthropicBackend or OpenAIBackend"):
            APIModel(bfcl_lab.ToyBackend())


class AgentSlot(unittest.TestCase):
    """service_env's trials take any model as the agent: here a native one, graded by the final state."""

    def test_a_native_model_reschedules_and_the_state_is_graded(self):
        task = next(t for t in service_env.TASKS if t.id == "T1")

        def policy(messages, tools, choice):
            results = [m for m in messages if m["role"] == "tool"]
            if not results:
                self.assertTrue(messages[0]["content"].startswith("Orrin Grid customer service policy"))
                return tool_core.Turn("", [tool_core.ToolCall("find_customer", {"name": task.intent["name"]})])
            return tool_core.Turn("Done! (a model that stops early)")
        trial = service_env.run_trial(task, service_env.Knobs(), 0, 0, model=tool_core.ScriptedModel(policy))
        self.assertFalse(trial.success)  # nothing was rescheduled: the state says so, whatever the agent said
        self.assertTrue(trial.said_done)
        self.assertIn("task left undone", trial.modes)
        self.assertEqual(trial.transcript.calls[0].name, "find_customer")


class MCPHost(unittest.TestCase):
    """A host: the model uses the Cardinal MCP server's tools through the lab's client, with the agent's token;
    the backend key stays in the server (no request to the model carries it)."""

    def test_a_native_model_calls_an_mcp_tool_and_never_sees_the_backend_key(self):
        import interfaces
        with interfaces.CardinalServer() as backend:
            api = backend.api
            server = interfaces.MCPCoreServer(interfaces.cardinal_tools(backend.url, api.token, api.spec),
                                              tokens=interfaces.DEMO_TOKENS)
            agent_token = next(iter(interfaces.DEMO_TOKENS))  # read-only: list_people and list_teams
            client = interfaces.MCPCoreClient(interfaces.InProcess(server.session(agent_token)))
            self.addCleanup(client.close)
            client.initialize()
            client.list_tools()
            model = OpenAIBackend("http://127.0.0.1:9/v1", "sk-test")
            call = {"id": "call_1", "type": "function",
                    "function": {"name": "list_people", "arguments": '{"team": "firmware"}'}}
            bodies = recorded(model, [{"choices": [{"finish_reason": "tool_calls", "message": {"tool_calls": [call]}}]},
                                      {"choices": [{"finish_reason": "stop", "message": {"content": "Two people."}}]}])
            t = tool_core.run_agent(APIModel(model), client.registry(), "Who is on the firmware team?")
        self.assertEqual((t.stop_reason, t.final_answer), ("final_answer", "Two people."))
        self.assertEqual([tool["function"]["name"] for tool in bodies[0]["tools"]], ["list_people", "list_teams"])
        result = bodies[1]["messages"][-1]
        self.assertEqual((result["role"], result["tool_call_id"]), ("tool", "call_1"))
        self.assertIn("Ada Quist", result["content"])
        self.assertNotIn(api.token, repr(bodies))
        self.assertEqual(len(api.requests), 1)  # the server's one request to the backend, with the key in its header


def backends(server) -> list[tuple[str, object]]:
    """Every way to reach the stand-in: both APIs, streamed and not."""
    return [(f"{api}{', streamed' if stream else ''}", make(stream))
            for api, make in (("anthropic", lambda stream: AnthropicBackend("sk-stand-in", base_url=server.url,
                                                                             stream=stream)),
                              ("openai", lambda stream: OpenAIBackend(server.url + "/v1", "sk-stand-in", stream=stream)))
            for stream in (False, True)]


class OverTheWire(unittest.TestCase):
    """The loops end to end against the stand-in server (bfcl_lab.StandIn), which refuses any request that breaks a
    vendor's rules: both APIs, both modes, streamed and not."""

    @classmethod
    def setUpClass(cls):
        cls.server = bfcl_lab.StandIn(lambda conversation: cls.policy(conversation), key="sk-stand-in").start()
        cls.addClassCleanup(cls.server.stop)

    def play(self, lm) -> None:
        type(self).policy = staticmethod(bfcl_lab.policy_from_lm(lm))

    def test_run_agent_in_both_modes(self):
        replies = [tool_core.call_text("get_incident", {"code": "E-1474"})
                   + tool_core.call_text("get_substation", {"substation_id": "SS-218"}), "Both looked up."]
        for label, backend in backends(self.server):
            for native in (True, False):
                with self.subTest(label, native=native):
                    self.play(tool_core.ScriptedLM(list(replies)))
                    before = len(self.server.log)
                    t = tool_core.run_agent(APIModel(backend, native=native), tool_core.orrin_grid_registry()[0], "q")
                    self.assertEqual((t.stop_reason, t.final_answer), ("final_answer", "Both looked up."))
                    self.assertEqual([(c.name, c.ok) for c in t.calls], [("get_incident", True), ("get_substation", True)])
                    self.assertEqual([entry.status for entry in self.server.log[before:]], [200, 200])
                    self.assertGreater(t.usage["input_tokens"], 0)

    def test_a_tau_bench_trial_with_the_model_as_the_agent(self):
        task = next(t for t in service_env.TASKS if t.id == "T1")
        careful = service_env.Knobs(**{name: 0.0 for name in service_env.Knobs().__dict__})
        for (label, backend), native in zip(backends(self.server), (True, False, False, True)):  # each mode twice
            with self.subTest(label, native=native):
                agent = service_env.ToyAgent(task, careful, __import__("random").Random(0))
                self.play(tool_core.ScriptedLM(agent))
                trial = service_env.run_trial(task, careful, 0, 0, model=APIModel(backend, native=native))
                self.assertTrue(trial.success, trial.reason)
                self.assertEqual(trial.modes, [])

    def test_a_failed_turn_ends_the_run_as_its_outcome_and_a_wrong_key_stops_it(self):
        replies = [tool_core.call_text("get_incident", {"code": "E-1474"}), "E-1474 is resolved."]
        cut = AnthropicBackend("sk-stand-in", base_url=self.server.url, stream=True)
        self.server.cut_after = 5  # the stream breaks off inside the call's JSON, after a 200: not retried
        self.addCleanup(setattr, self.server, "cut_after", None)
        self.play(tool_core.ScriptedLM(list(replies)))
        t = tool_core.run_agent(APIModel(cut), tool_core.orrin_grid_registry()[0], "What is E-1474?")
        self.assertEqual((t.stop_reason, t.final_answer, t.calls), ("model_error", None, []))
        self.assertIn("the stream stopped before message_stop", t.error)
        self.assertIn("get_incident", t.error)  # the call it was cut inside
        task = next(task for task in service_env.TASKS if task.id == "T1")
        trial = service_env.run_trial(task, service_env.Knobs(), 0, 0, model=APIModel(cut))
        self.assertFalse(trial.success)
        self.assertTrue(trial.reason.startswith("the agent's turn failed: "), trial.reason)
        self.server.cut_after = None
        for backend in (AnthropicBackend("sk-wrong-7f3", base_url=self.server.url),
                        OpenAIBackend(self.server.url + "/v1", "sk-wrong-7f3")):
            with self.subTest(type(backend).__name__), self.assertRaises(LLMError) as caught:
                tool_core.run_agent(APIModel(backend), tool_core.orrin_grid_registry()[0], "q")
            self.assertTrue(caught.exception.stops_run)  # every later request would be refused the same way
            self.assertIn("HTTP 401", str(caught.exception))
            self.assertNotIn("sk-wrong", str(caught.exception))

    def test_an_mcp_host_with_the_agents_token(self):
        import interfaces
        with interfaces.CardinalServer() as backend:
            api = backend.api
            server = interfaces.cardinal_mcp_server(backend.url, api.token, api.spec, tokens=interfaces.DEMO_TOKENS)
            client = interfaces.MCPClient(interfaces.InProcess(server.session(next(iter(interfaces.DEMO_TOKENS)))))
            self.addCleanup(client.close)
            client.initialize()
            client.list_tools()
            for (label, model), native in zip(backends(self.server), (True, False, False, True)):  # each mode twice
                with self.subTest(label, native=native):
                    self.play(tool_core.ScriptedLM([tool_core.call_text("list_people", {"team": "firmware"}),
                                                    "Two people."]))
                    before = len(self.server.log)
                    t = tool_core.run_agent(APIModel(model, native=native), client.registry(),
                                            "Who is on the firmware team?")
                    self.assertEqual((t.stop_reason, t.final_answer, t.calls[0].ok), ("final_answer", "Two people.",
                                                                                      True))
                    self.assertNotIn(api.token, repr([entry.request for entry in self.server.log[before:]]))


class Chapter(unittest.TestCase):
    """Script 07's parts (bfcl_lab 7e) on the stand-in, each figure they print recounted here."""

    @classmethod
    def setUpClass(cls):
        cls.current = {}
        cls.server = bfcl_lab.StandIn(lambda conversation: cls.current["policy"](conversation)).start()
        cls.addClassCleanup(cls.server.stop)
        cls.api = AnthropicBackend("", base_url=cls.server.url, model="stand-in")

    def play(self, lm) -> None:
        self.current["policy"] = bfcl_lab.policy_from_lm(lm)

    def test_part_1_prints_each_exchange_and_checks_the_cited_ids(self):
        model = APIModel(self.api)
        text = bfcl_lab.demo_ask(model, self.play)
        requests = [line for line in text.splitlines() if line.startswith("request ")]
        self.assertEqual(len(requests), 2)
        self.assertEqual(len(model.exchanges), 2)
        self.assertEqual(requests[1], "request 2: " + json.dumps(model.exchanges[1][0], ensure_ascii=False))
        self.assertIn("the answer cites 3 id(s), 3 of them in the search results", text)

        def inventing(messages):
            return (tool_core.call_text("arxiv_search", {"query": "decoding"}) if messages[-1]["role"] != "tool"
                    else "See 9999.99999 and 2411.15100.")
        text = bfcl_lab.demo_ask(APIModel(self.api), lambda lm: self.play(tool_core.ScriptedLM(inventing)))
        self.assertIn("the answer cites 2 id(s), 1 of them in the search results", text)

    def test_part_2_each_task_in_both_modes(self):
        models = {"native": APIModel(self.api), "text protocol": APIModel(self.api, native=False)}
        lines = bfcl_lab.demo_harness(models, self.play).splitlines()[2:]
        table = [[cell.strip() for cell in line.split("  ") if cell.strip()] for line in lines if line[:1].isalpha()][:6]
        self.assertEqual([row[:3] for row in table], [[what, mode, steps] for what, steps in
                                                      (("parallel calls", "2"), ("relevance", "1"), ("correction", "3"))
                                                      for mode in ("native", "text protocol")])
        self.assertEqual(table[0][3], "get_incident ok, get_substation ok")
        self.assertEqual(table[2][3:], ["none", "final_answer; tickets: 0"])
        self.assertEqual(table[4][3], "create_ticket invalid_arguments,")  # the cell wraps: then create_ticket ok
        self.assertEqual(models["native"].requests, 6)  # 2 + 1 + 3, the steps of each run

    def test_part_4_on_the_wire_grades_as_the_toy_agent_does_directly(self):
        text = bfcl_lab.demo_tau_real(APIModel(self.api), self.play, trials=1)
        for task in service_env.TASKS:
            direct = service_env.run_trial(task, service_env.Knobs(), 0, 0)
            with self.subTest(task.id):
                self.assertRegex(text, rf"(?m)^{task.id}\s+{task.title}\s+{int(direct.success)}/1\s")


SCRIPT07 = str(Path(__file__).resolve().parent.parent / "scripts" / "07_real_llm.py")
STREAMED_ASK = (SCRIPT07, "--toy", "--part", "ask", "--stream", "--ask", "Papers about tool learning?", "--max-requests", "2")
script_runs.prefetch("07_real_llm.py")  # the table's runs of script 07, read by Script07 below, start now
script_runs.queue_command(*STREAMED_ASK)  # run beside the tests, in tests/script_runs.py's helper process
_FOLDER = tempfile.TemporaryDirectory()  # a .env file there names a key and a base URL where nothing listens


def _closed_port() -> int:
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


_PORT = _closed_port()
with open(os.path.join(_FOLDER.name, ".env"), "w", encoding="utf-8") as _f:
    _f.write(f"ANTHROPIC_API_KEY=sk-dotenv-secret-7f3\nANTHROPIC_BASE_URL=http://127.0.0.1:{_PORT}\n")
DOTENV_RUN = (SCRIPT07, "--part", "bfcl", "--timeout", "2")
script_runs.queue_command(*DOTENV_RUN, cwd=Path(_FOLDER.name))


class Script07(unittest.TestCase):
    """scripts/07_real_llm.py's own flags reach the parts: --part, --stream, --ask, --max-requests (a budget used up
    is an error: Budget, above)."""

    def test_the_offline_default_shows_all_six_parts(self):
        code, out, err = script_runs.result("07_real_llm.py")
        self.assertEqual((code, err), (0, ""))
        sections = script_runs.sections(out)
        self.assertEqual([tool_core.banner_number(title) for title in sections], [1, 2, 3, 4, 5, 6])
        last, spent = sections["Demo 6. A streamed reply: each call ready before the reply ends"].rsplit("\n\n", 1)
        self.assertEqual(last, tool_core.demo_streamed_calls() + "\n\n" + bfcl_lab.demo_native_streams())
        self.assertRegex(spent, r"^\[102 model requests; tokens reported: [\d,]+ in, [\d,]+ out")  # 2 + 12 + 9 + 77 + 2
        mcp = sections["Demo 5. An MCP host: the model on the Cardinal MCP server's tools"]
        self.assertIn("over stdio, 3 tools: list_people, list_teams, make_digest", mcp)
        self.assertIn("2 requests to the model, 1 tools/call; the backend key in a request to the model: no.", mcp)

    def test_one_part_streamed_with_its_own_question(self):
        code, out, err = script_runs.command(*STREAMED_ASK)
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(out.count("=== "), 1)
        self.assertIn("question: Papers about tool learning?   (APIModel(stand-in (the lab's scripted models), native, "
                      "streamed, 2/2 requests))", out)  # the budget of --max-requests, all of it spent
        self.assertIn('"query": "tool learning"', out)
        self.assertRegex(out, r"\[2 model requests; tokens reported: [\d,]+ in, [\d,]+ out")

    def test_part_6_alone_needs_no_model(self):
        code, out, err = script_runs.in_process(SCRIPT07, "--part", "stream")  # starts no server, sends nothing
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(list(script_runs.sections(out).values()),
                         [tool_core.demo_streamed_calls() + "\n\n" + bfcl_lab.demo_native_streams()])
        self.assertNotIn("model requests", out)

    def test_the_key_comes_from_a_dotenv_file_and_is_never_shown(self):
        code, out, err = script_runs.command(*DOTENV_RUN, cwd=Path(_FOLDER.name))
        self.assertEqual(code, 2)  # it went live: to the base URL of the .env file, where nothing listens
        self.assertTrue(err.startswith(f"error: could not get an answer from http://127.0.0.1:{_PORT}/v1/messages"), err)
        self.assertNotIn("sk-dotenv-secret", out + err)


class DotEnv(unittest.TestCase):
    def test_names_and_values_and_a_bad_line_reported_without_its_value(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, ".env")
            with open(path, "w", encoding="utf-8") as f:
                f.write('# keys\nANTHROPIC_API_KEY="sk-ant-123"\nexport OPENAI_API_KEY=sk-456\n\n')
            self.assertEqual(bfcl_lab.read_dotenv(path), {"ANTHROPIC_API_KEY": "sk-ant-123", "OPENAI_API_KEY": "sk-456"})
            with open(path, "a", encoding="utf-8") as f:
                f.write("sk-secret-without-a-name\n")
            with self.assertRaises(ValueError) as caught:
                bfcl_lab.read_dotenv(path)
            self.assertIn("line 5", str(caught.exception))
            self.assertNotIn("sk-secret", str(caught.exception))
            self.assertEqual(bfcl_lab.read_dotenv(os.path.join(folder, "none")), {})


if __name__ == "__main__":
    unittest.main()
