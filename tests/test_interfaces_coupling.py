"""The coupling rule: coupling_problems over hand-built conversations, and demo_coupling (scripts/10, demo 4).

The rule as Anthropic's and OpenAI's tool-use documentation states it: every call of a reply is answered, by its id,
in the very next message (OpenAI: one role "tool" message per call, straight after the reply; Anthropic: one
tool_result block per call, in the next user message, before any text), in any order; a missing result, a result
for an id the reply did not make, a second result for one call, or anything before the results is refused. The
conversations below are written by hand in each vendor's format, the malformed ones too; each verdict comes from
the rule, not from a run of the reader.
"""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import interfaces  # noqa: E402
from interfaces import MCP, Anthropic, OpenAI, Qwen, TextProtocol, coupling_problems  # noqa: E402
from tool_core import DemoText  # noqa: E402

USER = {"role": "user", "content": "Who is in firmware and design?"}


def o_calls(*ids: str) -> dict:
    """An OpenAI assistant message calling list_people once per id."""
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": i, "type": "function", "function": {"name": "list_people", "arguments": '{"team": "x"}'}} for i in ids]}


def o_result(call_id: str, content: str = "[]") -> dict:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def a_calls(*ids: str) -> dict:
    """An Anthropic assistant message with one tool_use block per id."""
    return {"role": "assistant", "content": [{"type": "text", "text": "Checking."}] + [
        {"type": "tool_use", "id": i, "name": "list_people", "input": {"team": "x"}} for i in ids]}


def a_results(*ids: str, text_first: bool = False, error: str | None = None) -> dict:
    """An Anthropic user message with one tool_result block per id (the one named by error has is_error)."""
    blocks = [{"type": "tool_result", "tool_use_id": i, "content": "[]"} | ({"is_error": True} if i == error else {})
              for i in ids]
    return {"role": "user", "content": ([{"type": "text", "text": "Here:"}] if text_first else []) + blocks}


# (label, conversation, fragments every problem text must hold, in order: one tuple per problem; [] = accepted)
OPENAI_CASES = [
    ("in order", [USER, o_calls("a", "b"), o_result("a"), o_result("b")], []),
    ("out of order", [USER, o_calls("a", "b"), o_result("b"), o_result("a")], []),
    ("an error result is still a result", [USER, o_calls("a", "b"), o_result("a", "Error: no such team"),
                                          o_result("b")], []),
    ("text after the results", [USER, o_calls("a"), o_result("a"), {"role": "user", "content": "thanks"}], []),
    ("two rounds", [USER, o_calls("a"), o_result("a"), o_calls("b"), o_result("b")], []),
    ("a reply without calls", [USER, {"role": "assistant", "content": "Hi", "tool_calls": []}], []),
    ("a missing result", [USER, o_calls("a", "b"), o_result("a")],
     [("messages[1] calls b", "messages[2] holds no result", "refuses", "tool_call_id")]),
    ("the conversation ends", [USER, o_calls("a")], [("messages[1] calls a", "conversation ends")]),
    ("text before the results", [USER, o_calls("a"), {"role": "user", "content": "hurry"}, o_result("a")],
     [("messages[1] calls a", 'messages[2] (role "user") comes next'), ("messages[3] answers a too late", "messages[1]")]),
    ("an unknown id", [USER, o_calls("a"), o_result("a"), o_result("z")],
     [("messages[3] answers z", "did not call", "called a")]),
    ("a duplicate result", [USER, o_calls("a"), o_result("a"), o_result("a")], [("a is answered twice",)]),
    ("a duplicate call id", [USER, o_calls("a", "a"), o_result("a")], [("gives two calls the call id a",)]),
    ("an id used again", [USER, o_calls("a"), o_result("a"), o_calls("a"), o_result("a")],
     [("messages[3] uses again (messages[1] did) the call id a",)]),
    ("a result with no call", [USER, o_result("a")], [("messages[1] answers a", "no reply before made that call")]),
    ("a result without its id", [USER, o_calls("a"), {"role": "tool", "content": "[]"}],
     [("messages[2] is a tool message without a tool_call_id",), ("messages[1] calls a",)]),
    ("a call without an id", [USER, {"role": "assistant", "tool_calls": [{"type": "function"}]}],
     [("messages[1].tool_calls[0] has no id",)]),
    ("tool_calls not an array", [USER, {"role": "assistant", "tool_calls": "a"}],
     [('messages[1].tool_calls is string "a"', "array")]),
    ("a message not an object", [USER, "hello"], [('messages[1] is string "hello"', "not a message object"), ("role null",)]),
    ("an unknown role", [{"role": "bot", "content": "x"}], [('messages[0] has role "bot"', "user, assistant, tool")]),
]
ANTHROPIC_CASES = [
    ("in order", [USER, a_calls("t1", "t2"), a_results("t1", "t2")], []),
    ("out of order, one is_error", [USER, a_calls("t1", "t2", "t3"), a_results("t2", "t1", "t3", error="t3")], []),
    ("text after the results", [USER, a_calls("t1"), {"role": "user", "content": a_results("t1")["content"] + [
        {"type": "text", "text": "And hurry."}]}], []),
    ("two rounds", [USER, a_calls("t1"), a_results("t1"), a_calls("t2"), a_results("t2")], []),
    ("a missing result", [USER, a_calls("t1", "t2"), a_results("t1")],
     [("messages[1] calls t2", "messages[2] holds no result", "refuses", "tool_use_id")]),
    ("text before the results", [USER, a_calls("t1", "t2"), a_results("t1", "t2", text_first=True)],
     [("messages[2] has text before its tool_result blocks (t1, t2)", "come first")]),
    ("a plain string instead of results", [USER, a_calls("t1"), {"role": "user", "content": "thanks"}],
     [("messages[1] calls t1", "messages[2] holds no result")]),
    ("results split over two messages", [USER, a_calls("t1", "t2"), a_results("t1"), a_results("t2")],
     [("messages[1] calls t2",), ("messages[3] answers t2 too late",)]),
    ("the conversation ends", [USER, a_calls("t1")], [("messages[1] calls t1", "conversation ends")]),
    ("an unknown id", [USER, a_calls("t1"), a_results("t1", "t9")], [("messages[2] answers t9", "did not call")]),
    ("a duplicate result", [USER, a_calls("t1"), a_results("t1", "t1")], [("t1 is answered twice",)]),
    ("a duplicate call id", [USER, a_calls("t1", "t1"), a_results("t1")], [("gives two calls the call id t1",)]),
    ("a result with no call", [USER, a_results("t1")], [("messages[1] answers t1", "no reply before made that call")]),
    ("a role OpenAI has, not Anthropic", [USER, a_calls("t1"), {"role": "tool", "content": "[]"}],
     [('messages[2] has role "tool"', "user, assistant"), ("messages[1] calls t1",)]),
    ("a tool_use block without an id", [USER, {"role": "assistant", "content": [{"type": "tool_use", "name": "x"}]}],
     [("messages[1].content[0] is a tool_use block without its id",)]),
    ("a tool_result in an assistant message", [{"role": "assistant", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": ""}]}], [("belongs in a user message",)]),
    ("content not a string or an array", [USER, {"role": "assistant", "content": 5}],
     [("messages[1].content is integer 5", "string or an array of blocks")]),
    ("a block not an object", [USER, {"role": "assistant", "content": ["text"]}],
     [('messages[1].content[0] is string "text", not a content block',)]),
]


class Rule(unittest.TestCase):
    def check(self, dialect, cases):
        for label, conversation, expected in cases:
            with self.subTest(f"{dialect.name}: {label}"):
                problems = coupling_problems(dialect, conversation)
                self.assertEqual(len(problems), len(expected), problems)
                for problem, fragments in zip(problems, expected):
                    position = 0
                    for fragment in fragments:  # in order, so a message names the right call in the right place
                        found = problem.find(fragment, position)
                        self.assertGreaterEqual(found, 0, f"{fragment!r} not in {problem!r}")
                        position = found + len(fragment)

    def test_openai(self):
        self.check(OpenAI(), OPENAI_CASES)
        self.check(OpenAI(strict=True), OPENAI_CASES[:3])

    def test_anthropic(self):
        self.check(Anthropic(), ANTHROPIC_CASES)

    def test_a_reply_right_after_a_reply(self):
        # the message after a calling reply is where its results belong, but an assistant message there is no
        # answer: it is a reply of its own, whose calls the rule checks too (and never takes for the first's results)
        self.check(OpenAI(), [
            ("the second answered", [USER, o_calls("a"), o_calls("b"), o_result("b")],
             [("messages[1] calls a", 'messages[2] (role "assistant") comes next')]),
            ("neither answered", [USER, o_calls("a"), o_calls("b")],
             [("messages[1] calls a", 'messages[2] (role "assistant") comes next'),
              ("messages[2] calls b", "conversation ends")]),
            ("both answered after the second", [USER, o_calls("a"), o_calls("b"), o_result("a"), o_result("b")],
             [("messages[1] calls a", 'messages[2] (role "assistant") comes next'),
              ("messages[3] answers a", "messages[2] did not call")])])
        self.check(Anthropic(), [
            ("the second answered", [USER, a_calls("t1"), a_calls("t2"), a_results("t2")],
             [("messages[1] calls t1", 'messages[2] (role "assistant") comes next')]),
            ("neither answered", [USER, a_calls("t1"), a_calls("t2")],
             [("messages[1] calls t1", 'messages[2] (role "assistant") comes next'),
              ("messages[2] calls t2", "conversation ends")]),
            ("both answered after the second", [USER, a_calls("t1"), a_calls("t2"), a_results("t1", "t2")],
             [("messages[1] calls t1", 'messages[2] (role "assistant") comes next'),
              ("messages[3] answers t1", "messages[2] did not call")])])

    def test_not_a_list(self):
        for value in (None, {"role": "user"}, "messages", 5):
            for dialect in (OpenAI(), Anthropic()):
                with self.subTest(dialect=dialect.name, value=value):
                    (problem,) = coupling_problems(dialect, value)
                    self.assertIn("a conversation is an array of messages", problem)

    def test_odd_input_is_data_never_a_crash(self):
        odd = [[None], [[]], [{}], [{"role": "assistant", "tool_calls": [None, 5, {"id": 5}]}],
               [{"role": "assistant", "content": [{"type": "tool_use", "id": ""}]}, {"role": "user", "content": None}],
               [{"role": "tool", "tool_call_id": ["a"]}], [{"role": "user", "content": [{"type": 7}]}],
               [{"role": "assistant", "tool_calls": [{"id": "a", "function": "f"}]}, {"role": "tool", "tool_call_id": "a"}]]
        for conversation in odd:
            for dialect in (OpenAI(), Anthropic()):
                with self.subTest(dialect=dialect.name, conversation=conversation):
                    problems = coupling_problems(dialect, conversation)
                    self.assertTrue(all(isinstance(p, str) and p for p in problems))

    def test_dialects_without_a_conversation_rule_are_a_programmers_mistake(self):
        for dialect in (MCP(), TextProtocol(), Qwen()):
            with self.subTest(dialect.name), self.assertRaisesRegex(ValueError, "reads OpenAI and Anthropic"):
                coupling_problems(dialect, [])

    def test_agrees_with_the_dialects_own_readers(self):
        # what Anthropic.read_results refuses (text before a tool_result), the rule refuses too
        message = a_results("t1", text_first=True)
        with self.assertRaises(ValueError):
            Anthropic().read_results(message)
        self.assertTrue(coupling_problems(Anthropic(), [USER, a_calls("t1"), message]))
        # and what the dialects write for a turn's results passes
        for dialect in (OpenAI(), Anthropic()):
            with self.subTest(dialect.name):
                conversation, _ = interfaces.coupling_conversation(dialect, 1)
                self.assertEqual(coupling_problems(dialect, conversation), [])
                self.assertEqual([c.name for c in dialect.read_calls(conversation[1])[1]], ["list_people"] * 3)


class Demo(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = interfaces.demo_coupling()

    def test_cases_through_both_dialects(self):
        verdicts = {(d.name, n): interfaces._verdict(d, n) for d in (OpenAI(), Anthropic()) for n in (1, 2, 3, 4)}
        for d in ("OpenAI", "Anthropic"):
            with self.subTest(d):
                self.assertTrue(verdicts[d, 1].startswith("accepted"))
                self.assertTrue(verdicts[d, 2].startswith("accepted"))
                self.assertTrue(verdicts[d, 3].startswith("refused"))
                self.assertTrue(verdicts[d, 4].startswith("refused"))
        # out of order (the slide's 02, 01, 03), matched back by id; the third is the failed call (no sales team)
        self.assertIn("sent call_b, call_a, call_c; matched by id: call_a ok, call_b ok, call_c error", verdicts["OpenAI", 2])
        self.assertIn("sent toolu_02, toolu_01, toolu_03; matched by id: toolu_01 ok, toolu_02 ok, toolu_03 error",
                      verdicts["Anthropic", 2])
        # leaving the failed call's result out is refused, naming that call
        self.assertIn("messages[1] calls call_c,", verdicts["OpenAI", 3])
        self.assertIn("messages[1] calls toolu_03,", verdicts["Anthropic", 3])
        self.assertIn("messages[2] has text before its tool_result blocks", verdicts["Anthropic", 4])

    def test_where_the_error_result_goes(self):
        rows = interfaces._where_results_go()
        self.assertEqual([r[:3] for r in rows], [
            ["OpenAI", "messages[2], role tool", "tool_call_id call_a"],
            ["OpenAI", "messages[3], role tool", "tool_call_id call_b"],
            ["OpenAI", "messages[4], role tool", "tool_call_id call_c"],
            ["Anthropic", "messages[2], block 0", "tool_use_id toolu_01"],
            ["Anthropic", "messages[2], block 1", "tool_use_id toolu_02"],
            ["Anthropic", "messages[2], block 2", "tool_use_id toolu_03"]])  # one user message, in its place
        self.assertEqual([r[3] for r in rows][3:], ["", "", "is_error: true"])
        self.assertTrue(rows[2][4].startswith("Error: HTTP 400: team must be one of"))  # no flag in Chat Completions
        self.assertEqual(rows[0][4], '["Ada Quist", "Bo Lindqvist"]')  # interfaces.PEOPLE's firmware team
        self.assertEqual(rows[1][4], '["Elin Park"]')

    def test_bad_input_lines(self):
        self.assertIn('a conversation is an array of messages, got object {"role": "tool"', self.out)
        self.assertIn("messages[2] answers toolu_09, which messages[1] did not call", self.out)
        self.assertIn("call_a is answered twice (messages[2] and messages[3])", self.out)

    def test_layout(self):
        self.assertIsInstance(self.out, DemoText)
        lines = self.out.splitlines()
        self.assertLessEqual(len(lines), 60)
        self.assertLessEqual(max(map(len, lines)), 118)
        self.assertEqual(interfaces.demo_coupling(), self.out)


if __name__ == "__main__":
    unittest.main()
