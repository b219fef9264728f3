"""The objects a student looks at in a notebook render as Markdown, with every tag escaped.

Jupyter calls _repr_markdown_ and renders the result as Markdown (HTML allowed), so a
<tool_call> left as it is would vanish from the page; each renderer must show it as text.
"""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import tool_core  # noqa: E402
from tool_core import ScriptedLM, call_text, format_table, markdown_cell, parse_tool_calls, run_agent  # noqa: E402


class Cells(unittest.TestCase):
    """markdown_cell escapes what Markdown or HTML would interpret."""

    def test_table(self):
        cases = [("<tool_call>", "&lt;tool_call&gt;"), ("a|b", "a\\|b"), ("two\nlines", "two<br>lines"),
                 ("5 & 6", "5 &amp; 6"), ('say "hi"', 'say "hi"'), (42, "42")]
        for value, expected in cases:
            with self.subTest(value=value):
                self.assertEqual(markdown_cell(value), expected)


class Renderings(unittest.TestCase):
    """Transcript, ParseResult, Tool, ToolResult and tables render, and no raw tag reaches the page."""

    def setUp(self):
        self.registry, _ = tool_core.orrin_grid_registry()
        reply = call_text("get_incident", {"code": "E-1474"})
        self.transcript = run_agent(ScriptedLM([reply, "A tree branch."]), self.registry, "What caused E-1474?")
        self.parsed = parse_tool_calls("Hi " + reply + " and <tool_call>{")

    def rendered(self) -> dict:
        return {"transcript": self.transcript._repr_markdown_(), "parse": self.parsed._repr_markdown_(),
                "tool": self.registry.get("get_incident")._repr_markdown_(),
                "result": self.registry.call("get_incident", {"code": "E-9999"})._repr_markdown_(),
                "table": format_table(["call", "text"], [["f", "<tool_call>x</tool_call>"]])._repr_markdown_()}

    def test_no_raw_tag_survives(self):
        for name, markdown in self.rendered().items():
            with self.subTest(name=name):
                self.assertNotIn("<tool_call>", markdown)
                self.assertNotIn("<tool_result", markdown)

    def test_what_each_shows(self):
        shown = self.rendered()
        self.assertIn("| assistant | &lt;tool_call&gt;", shown["transcript"])
        self.assertIn("stop: final_answer after 2 model turn(s), 1 call(s)", shown["transcript"])
        self.assertIn("| call | get_incident |", shown["parse"])
        self.assertIn("| truncated |", shown["parse"])
        self.assertIn("outside the calls: Hi  and", shown["parse"])  # the prose on both sides, joined
        self.assertTrue(shown["tool"].startswith("**get_incident** (read-only): Look up a grid incident"))
        self.assertIn('"code": {', shown["tool"])  # the schema, quotes kept readable
        self.assertNotIn("&quot;", shown["tool"])
        self.assertTrue(shown["result"].startswith("**execution_error**"))
        self.assertEqual(shown["table"], "| call | text |\n| --- | --- |\n| f | &lt;tool_call&gt;x&lt;/tool_call&gt; |")

    def test_tables_stay_plain_text_for_the_scripts(self):
        table = format_table(["a", "b"], [[1, 2]])
        self.assertEqual(table, "a  b\n-  -\n1  2")
        self.assertEqual(table + "!", "a  b\n-  -\n1  2!")  # still a str wherever a script joins it


if __name__ == "__main__":
    unittest.main()
