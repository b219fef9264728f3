"""The objects a student looks at in a notebook render as Markdown, every character as written.

Jupyter calls _repr_markdown_ and renders the result as Markdown (HTML allowed); JupyterLab and
nbconvert then let MathJax typeset what stands between two $ signs. So a <tool_call> left as it is
would vanish, 2*3*4 would show as an italic 3, a backslash would be eaten, and "$80 ... $50" would
swallow the table rows between them. Each test reads the Markdown source the way a renderer does:
the table's rows split on bare pipes, every bare special character counted, the escapes undone.
Also here: the short text reprs of the lab's objects, and the demos' text shown preformatted.
"""
import contextlib
import dataclasses
import html
import io
import json
import re
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import bfcl_lab  # noqa: E402
import interfaces  # noqa: E402
import service_env  # noqa: E402
import tool_catalog  # noqa: E402
import tool_core  # noqa: E402
import toolformer_lab  # noqa: E402
from tool_core import ScriptedLM, Tool, call_text, format_table, markdown_cell, parse_tool_calls, run_agent  # noqa: E402

SPECIALS = "\\`*_[$|"  # what Markdown or MathJax would read (issue 23): each must reach the renderer escaped
NO_MATH = '<div class="tex2jax_ignore mathjax_ignore">'  # the class names MathJax 2 and 3 document as "skip this"
PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"  # CommonMark: a backslash before one of these is an escape


def bare_specials(source: str) -> list[str]:
    """Return the special characters of a piece of Markdown that a renderer would read as syntax.

    A backslash before ASCII punctuation escapes it (CommonMark 2.4); any other backslash stands bare.
    """
    bare, i = [], 0
    while i < len(source):
        if source[i] == "\\" and source[i + 1: i + 2] and source[i + 1] in PUNCTUATION:
            i += 2
            continue
        if source[i] in SPECIALS:
            bare.append(source[i])
        i += 1
    return bare


def unescape(source: str) -> str:
    """Undo what a renderer undoes in a cell: <br> line breaks, backslash escapes, then character references."""
    unescaped = re.sub(r"\\([" + re.escape(PUNCTUATION) + "])", r"\1", source.replace("<br>", "\n"))
    return html.unescape(unescaped)


def table_rows(markdown: str) -> list[list[str]]:
    """Split a Markdown table's body rows into cell sources, as GFM does: on every pipe not escaped."""
    lines = [line for line in markdown.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines[2:]]


def pre_body(markdown: str) -> str:
    """Return what the <pre> block of a rendering holds, as its source has it."""
    return re.search(r"<pre[^>]*>(.*?)</pre>", markdown, re.S).group(1)


class Cells(unittest.TestCase):
    """markdown_cell escapes what HTML, Markdown or MathJax would interpret."""

    def test_table(self):
        cases = [("<tool_call>", "&lt;tool\\_call&gt;"), ("a|b", "a\\|b"), ("two\nlines", "two<br>lines"),
                 ("5 & 6", "5 &amp; 6"), ('say "hi"', 'say "hi"'), (42, "42"),
                 ("2*3*4", "2\\*3\\*4"), ("an $80 credit", "an \\$80 credit"), ("C:\\logs", "C:&#92;logs"),
                 ("get_incident", "get\\_incident"), ("`code`", "\\`code\\`"), ("[link](x)", "\\[link](x)")]
        for value, expected in cases:
            with self.subTest(value=value):
                self.assertEqual(markdown_cell(value), expected)

    def test_any_text_comes_back_whole_with_nothing_bare(self):
        texts = ["2*3*4", json.dumps({"path": "C:\\logs"}), "$80 and $50", SPECIALS, "\\$", "\\\\(x\\\\)",
                 "a <br> tag", "&amp; as text", "_x_ **y** ~z~", "|" * 3, "line\nbreak $"]
        for text in texts:
            with self.subTest(text=text):
                source = markdown_cell(text)
                self.assertEqual(bare_specials(source), [])
                self.assertNotIn("\n", source)  # a line break would end the table row
                self.assertEqual(unescape(source), text)


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
        self.assertIn("| assistant | &lt;tool\\_call&gt;", shown["transcript"])
        self.assertIn("stop: final\\_answer after 2 model turn(s), 1 call(s)", shown["transcript"])
        self.assertIn("| call | get\\_incident |", shown["parse"])
        self.assertIn("| truncated |", shown["parse"])
        self.assertIn("outside the calls: Hi  and", shown["parse"])  # the prose on both sides, joined
        self.assertIn("\n**get\\_incident** (read-only): Look up a grid incident", shown["tool"])
        self.assertIn('"code": {', shown["tool"])  # the schema, quotes kept readable
        self.assertNotIn("&quot;", shown["tool"])
        self.assertIn("\n**execution\\_error**", shown["result"])
        self.assertEqual(shown["table"], NO_MATH + "\n\n| call | text |\n| --- | --- |\n"
                                         "| f | &lt;tool\\_call&gt;x&lt;/tool\\_call&gt; |\n\n</div>")

    def test_each_sits_in_a_block_mathjax_skips(self):
        for name, markdown in self.rendered().items():
            with self.subTest(name=name):
                # the blank line after the div: without it Markdown would take the whole block for raw HTML
                self.assertTrue(markdown.startswith(NO_MATH + "\n\n"), markdown[:80])
                self.assertTrue(markdown.endswith("\n\n</div>"), markdown[-80:])
                self.assertEqual(markdown.count("<div"), markdown.count("</div>"))

    def test_tables_stay_plain_text_for_the_scripts(self):
        table = format_table(["a", "b"], [[1, 2]])
        self.assertEqual(table, "a  b\n-  -\n1  2")
        self.assertEqual(table + "!", "a  b\n-  -\n1  2!")  # still a str wherever a script joins it


def t6_trial() -> service_env.Trial:
    """Run tau-bench task T6 ("I want an $80 credit"; the policy allows $50) once, with the default knobs."""
    task = next(t for t in service_env.TASKS if t.id == "T6")
    return service_env.run_trial(task, service_env.Knobs(), seed=0, trial=0)


class TauBenchT6(unittest.TestCase):
    """T6's conversation keeps every row: today's renderers paired its $ signs and typeset the rows between as math."""

    @classmethod
    def setUpClass(cls):
        cls.trial = t6_trial()
        cls.messages = [m for m in cls.trial.transcript.messages if m["role"] != "system"]
        cls.shown = {"transcript": cls.trial.transcript._repr_markdown_(), "trial": cls.trial._repr_markdown_()}

    def test_the_conversation_has_dollar_signs_rows_apart(self):  # else the tests below would prove nothing
        rows_with_dollars = [n for n, m in enumerate(self.messages) if "$" in m["content"]]
        self.assertIn("$80 credit", self.messages[0]["content"])
        self.assertGreaterEqual(len(rows_with_dollars), 2)
        self.assertGreater(rows_with_dollars[-1] - rows_with_dollars[0], 1)  # a pair would swallow rows between

    def test_every_row_survives_as_written(self):
        for name, markdown in self.shown.items():
            with self.subTest(name=name):
                rows = table_rows(markdown)
                self.assertEqual(len(rows), len(self.messages))  # 10 when the issue was filed, 6 of them left visible
                self.assertEqual([[unescape(c) for c in row] for row in rows],
                                 [[m["role"], m["content"]] for m in self.messages])
                self.assertEqual([c for row in rows for c in row if bare_specials(c)], [])

    def test_no_dollar_sign_reaches_mathjax_bare(self):
        for name, markdown in self.shown.items():
            with self.subTest(name=name):
                self.assertEqual(re.findall(r"(?<!\\)\$", markdown), [])
                self.assertTrue(markdown.startswith(NO_MATH + "\n\n"))

    def test_the_trial_says_how_it_was_graded(self):
        head = self.shown["trial"].split("\n\n")[1]
        self.assertIn("**T6**", head)
        self.assertIn("**pass**" if self.trial.success else "**fail**", head)
        self.assertIn(f"said 'Done': {self.trial.said_done}", head)
        self.assertEqual(bare_specials(head.replace("**", "")), [])


def log_folder_registry() -> tool_core.ToolRegistry:
    """A registry with one tool whose answer holds a JSON backslash."""
    registry = tool_core.ToolRegistry()

    @registry.tool(read_only=True)
    def log_folder(host: str) -> dict:
        """Say where a host keeps its logs (costs $0).

        Args:
            host: the host name, e.g. "ss-218"
        """
        return {"path": "C:\\logs"}

    return registry


class Values(unittest.TestCase):
    """2*3*4 and a JSON backslash reach the page as written, in each rendering that shows them."""

    def test_2_times_3_times_4_in_a_parsed_call(self):
        rows = table_rows(parse_tool_calls(call_text("calculate", {"expression": "2*3*4"}))._repr_markdown_())
        self.assertEqual(unescape(rows[0][2]), '{"expression": "2*3*4"}')
        self.assertEqual(bare_specials(rows[0][2]), [])

    def test_2_times_3_times_4_in_a_table(self):
        rows = table_rows(format_table(["expression", "value"], [["2*3*4", 24]])._repr_markdown_())
        self.assertEqual(rows, [["2\\*3\\*4", "24"]])

    def test_a_json_backslash_in_a_conversation(self):
        lm = ScriptedLM([call_text("log_folder", {"host": "ss-218"}), "They are in C:\\logs."])
        rows = table_rows(run_agent(lm, log_folder_registry(), "Where are the logs?")._repr_markdown_())
        tool_row = next(row for row in rows if row[0] == "tool")
        self.assertIn('>{"path": "C:\\\\logs"}<', unescape(tool_row[1]))  # the JSON text: its escape kept, 2 backslashes
        self.assertEqual(unescape(rows[-1][1]), "They are in C:\\logs.")
        self.assertEqual([c for row in rows for c in row if bare_specials(c)], [])

    def test_a_json_backslash_in_a_result_and_a_schema(self):
        result = tool_core.ToolResult(True, content={"path": "C:\\logs", "cost": "$5 * 2"})
        tool = log_folder_registry().get("log_folder")
        for name, markdown, text in [
                ("result", result._repr_markdown_(), '{"path": "C:\\\\logs", "cost": "$5 * 2"}'),
                ("tool", tool._repr_markdown_(), json.dumps(tool.parameters, indent=2))]:
            with self.subTest(name=name):
                body = pre_body(markdown)
                self.assertEqual(html.unescape(body), text)
                # Markdown leaves <pre> alone, but JupyterLab looks for math in the whole source, <pre> included
                self.assertEqual(re.findall(r"[\\$`<]", body), [])
                self.assertEqual(re.findall(r"(?<!\\)\$", markdown), [])


def markdown_outside_pre(markdown: str) -> list[str]:
    """Return the lines of a rendering that Markdown reads: not the div, not a <pre> block's."""
    text = re.sub(r"<pre[^>]*>.*?</pre>", "", markdown, flags=re.S)
    return [line for line in text.splitlines() if line and line not in (NO_MATH, "</div>")]


class Reprs(unittest.TestCase):
    """What a student sees when a notebook shows an object: its kind, what it holds, in under ~200 characters."""

    @classmethod
    def setUpClass(cls):
        cls.registry, _ = tool_core.orrin_grid_registry()
        cls.lab = toolformer_lab.constrained_lab(0)
        server = interfaces.MCPServer(cls.registry)
        cls.client = interfaces.MCPClient(interfaces.InProcess(server.session()))
        cls.fresh_client = interfaces.MCPClient(interfaces.InProcess(server.session()))
        cls.client.initialize()
        cls.client.list_tools()
        cls.trial = t6_trial()
        # <s> <s> a x y </s> and <s> <s> b x y </s>: 4 + 4 trigrams, "x y </s>" in both, so 7 (and only 6 bigrams)
        lm = toolformer_lab.NGramLM(3).fit([s.split() for s in ["a x y", "b x y"]])
        person = toolformer_lab.SchemaAutomaton(toolformer_lab.PERSON_SCHEMA)
        cls.cardinal = interfaces.CardinalServer()
        cls.addClassCleanup(cls.cardinal.stop)
        stopped = repr(cls.cardinal)
        cls.cardinal.start()
        tools = [tool_core.tool_from_function(f) for f in (tool_core.calculate, tool_core.count_tokens)]
        cls.cases = [  # (what, the object, what its repr must say: hand-counted from the data)
            ("ToolRegistry", cls.registry,
             ["ToolRegistry(", "4 tools", "get_incident, get_substation, search_incidents, create_ticket"]),
            ("NGramLM", lm, ["NGramLM(", "order=3", "6 words", "7 distinct 3-grams"]),  # a b x y, </s>, <unk>
            ("NGramLM, not fitted", toolformer_lab.NGramLM(2), ["NGramLM(", "order=2", "not fitted"]),
            ("SchemaAutomaton", person, ["SchemaAutomaton(", "object (name, age)"]),
            ("TokenMasker", toolformer_lab.TokenMasker(person, ['{"', "name", '":', " 42", "}"]),
             ["TokenMasker(", "5 tokens", "object (name, age)"]),
            ("ConstrainedLab", cls.lab, ["ConstrainedLab(", "seed=0", "slips=0.15", "3 tools", "add_person",
                                         "300 training calls"]),  # 100 calls for each of 3 tools
            ("Vocabulary", cls.lab.vocab, ["Vocabulary(", f"{len(cls.lab.vocab.tokens)} tokens"]),
            ("CallModel", cls.lab.models["add_person"], ["CallModel(", "order-4"]),
            ("MCPClient", cls.client, ["MCPClient(", "InProcess", "4 tools listed", "get_incident"]),
            ("MCPClient, new", cls.fresh_client, ["MCPClient(", "not initialized", "0 tools listed"]),
            ("CardinalServer, stopped", stopped, ["CardinalServer(", "stopped", "GET /people"]),
            ("CardinalServer", cls.cardinal, ["CardinalServer(", f"running at {cls.cardinal.url}"]),
            ("ToolRetriever", tool_catalog.ToolRetriever(tools), ["ToolRetriever(", "2 tools", "calculate"]),
            ("BM25Index", tool_catalog.BM25Index([["a", "b"], ["b", "c"]]),
             ["BM25Index(", "2 documents", "3 terms", "4 postings", "k1=1.2", "b=0.75"]),
            ("the dialects", interfaces.DIALECTS, ["OpenAI(strict=True)", "MCP(version="]),
            ("a list of Tools", list(cls.registry)[:3], ["Tool(get_incident(code), read-only)",
                                                         "Tool(search_incidents(filters, limit?), read-only)"]),
            ("Trial", cls.trial, ["Trial(", "T6", f"success={cls.trial.success}", "3 calls",
                                  f"{len(cls.trial.transcript.messages)} messages"]),
            ("Transcript", cls.trial.transcript, ["Transcript(", "3 calls", "stop: final_answer"]),
        ]

    def test_each_is_short_and_says_what_it_holds(self):
        for what, obj, says in self.cases:
            text = obj if isinstance(obj, str) else repr(obj)
            with self.subTest(what=what, repr=text):
                self.assertLessEqual(len(text), 200)
                self.assertNotIn(" at 0x", text)
                self.assertNotIn("<function", text)
                for part in says:
                    self.assertIn(part, text)

    def test_a_tool_without_its_function_and_still_a_dataclass(self):
        tool = self.registry.get("create_ticket")
        self.assertEqual(repr(tool), "Tool(create_ticket(substation_id, summary, priority?), has side effects)")
        copy = dataclasses.replace(tool)
        self.assertEqual(copy, tool)  # equality compares every field, as before
        self.assertNotEqual(dataclasses.replace(tool, read_only=True), tool)
        self.assertEqual([f.name for f in dataclasses.fields(Tool)][:5],
                         ["name", "description", "parameters", "fn", "read_only"])

    def test_the_dialects_read_back_as_the_calls_that_make_them(self):
        self.assertEqual(repr(interfaces.DIALECTS), "[OpenAI(strict=False), OpenAI(strict=True), Anthropic(), "
                                                    "MCP(version='2025-11-25'), TextProtocol(), Qwen()]")
        for dialect in interfaces.DIALECTS:
            with self.subTest(dialect=dialect):
                again = eval(repr(dialect), vars(interfaces))  # noqa: S307 - our own repr, in a test
                self.assertEqual((type(again), vars(again)), (type(dialect), vars(dialect)))

    def test_a_changed_definition_shows_as_an_alert(self):
        client = interfaces.MCPClient(interfaces.InProcess(interfaces.MCPServer(self.registry).session()))
        client.initialize()
        client.pins["get_incident"] = "0" * 64  # as if a different definition had been pinned earlier: a rug pull
        client.list_tools()
        self.assertIn("3 tools listed", repr(client))  # the changed one is withheld
        self.assertIn("1 alert(s)", repr(client))
        alerts = next(line for line in client._repr_markdown_().splitlines() if line.startswith("alerts: "))
        self.assertEqual(bare_specials(alerts), [])
        self.assertIn("get_incident: its definition changed", unescape(alerts))

    def test_the_server_never_shows_its_key(self):
        self.assertNotIn(self.cardinal.api.token, repr(self.cardinal))

    def test_the_markdown_reprs_escape_their_text(self):
        registry = log_folder_registry()
        registry.register(Tool("price_2*3", "Costs $5 * 2 for a `b`_c [d] e|f", {"type": "object"}, lambda: 0))
        shown = {"registry": registry._repr_markdown_(), "lab": self.lab._repr_markdown_(),
                 "client": self.client._repr_markdown_(), "trial": self.trial._repr_markdown_()}
        for name, markdown in shown.items():
            with self.subTest(name=name):
                self.assertTrue(markdown.startswith(NO_MATH + "\n\n") and markdown.endswith("\n\n</div>"))
                rows = table_rows(markdown)
                self.assertTrue(rows)
                self.assertEqual([c for row in rows for c in row if bare_specials(c)], [])
                prose = [line for line in markdown_outside_pre(markdown) if not line.startswith("|")]
                self.assertEqual([line for line in prose if bare_specials(line.replace("**", ""))], [])
        rows = table_rows(shown["registry"])
        self.assertEqual([unescape(row[0]) for row in rows], ["log_folder", "price_2*3"])
        self.assertEqual(unescape(rows[1][3]), "Costs $5 * 2 for a `b`_c [d] e|f")
        self.assertEqual(unescape(rows[0][3]), "Say where a host keeps its logs (costs $0).")
        self.assertEqual([unescape(row[0]) for row in table_rows(shown["lab"])], list(self.lab.tools))


def cheap_demos() -> list[tuple[str, object]]:
    """Demos of every module that take well under a second, with the arguments they need."""
    return [("tool_core.demo_loop", tool_core.demo_loop), ("tool_core.demo_parsers", tool_core.demo_parsers),
            ("toolformer_lab.demo_pushdown", toolformer_lab.demo_pushdown),
            ("interfaces.demo_dialects", interfaces.demo_dialects), ("tool_catalog.demo_ast", tool_catalog.demo_ast),
            ("service_env.demo_failure_modes", service_env.demo_failure_modes),
            ("bfcl_lab.demo_bfcl", bfcl_lab.demo_bfcl),
            ("bfcl_lab.demo_real", lambda: bfcl_lab.demo_real(bfcl_lab.ToyBackend()))]


class DemoTexts(unittest.TestCase):
    """A demo's text shows preformatted in a notebook, and stays a str that behaves as before everywhere else."""

    MODULES = (tool_core, toolformer_lab, interfaces, tool_catalog, service_env, bfcl_lab)

    def test_every_demo_returns_it(self):
        demos = [(m.__name__, name, getattr(m, name)) for m in self.MODULES for name in dir(m)
                 if name.startswith("demo_") and callable(getattr(m, name))]
        self.assertGreaterEqual(len(demos), 30)
        for module, name, fn in demos:
            with self.subTest(demo=f"{module}.{name}"):
                self.assertIsNot(getattr(fn, "__wrapped__", fn), fn, "not decorated with tool_core.preformatted")
                self.assertEqual(fn.__name__, name)
                self.assertTrue(fn.__doc__)  # the docstring a student reads with help() is still there
        for name, demo in cheap_demos():
            with self.subTest(demo=name):
                self.assertIsInstance(demo(), tool_core.DemoText)

    def test_it_is_the_same_str(self):
        text = tool_core.demo_loop()
        plain = tool_core.demo_loop.__wrapped__()
        self.assertEqual(text, plain)
        self.assertEqual(plain, str(text))
        self.assertIs(type(str(text)), str)
        self.assertEqual(text[:12], plain[:12])
        self.assertEqual(re.findall(r"<tool_call>", text), re.findall(r"<tool_call>", plain))
        self.assertEqual(json.dumps(text), json.dumps(plain))
        self.assertEqual(text + "!", plain + "!")
        self.assertEqual(hash(text), hash(plain))
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            print(text)
        self.assertEqual(printed.getvalue(), plain + "\n")

    def test_it_shows_as_the_terminal_shows_it(self):
        for name, demo in cheap_demos():
            with self.subTest(demo=name):
                text = demo()
                self.assertEqual(repr(text), str(text))  # IPython's plain view: the lines, not a quoted '...\n...'
                shown = text._repr_html_()
                self.assertTrue(shown.startswith('<pre class="tex2jax_ignore mathjax_ignore">'))
                self.assertTrue(shown.endswith("</pre>"))
                body = pre_body(shown)
                self.assertEqual(html.unescape(body), str(text))
                self.assertEqual(re.findall(r"[<>\\$`]", body), [])  # no tag, math or code delimiter left raw


if __name__ == "__main__":
    unittest.main()
