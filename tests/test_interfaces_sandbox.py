"""Section 5g of interfaces.py: run_program, the sandbox for model-written programs, tested as an attacker would.

Expected outputs are computed by hand from Python's semantics; the demo's figures are pinned by their mechanism
(one pass per search plus the answer, against one program and the answer) and the slides' 4/150 and 2 passes.
"""
import ast
import json
import random
import sys
import unittest
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import interfaces as I  # noqa: E402
import tool_core  # noqa: E402
from tool_core import Tool, ToolExecutionError, ToolRegistry, count_tokens  # noqa: E402



class SpyRegistry(ToolRegistry):
    """A registry that records every call it is asked to make."""

    def __init__(self, tools=()):
        super().__init__(tools)
        self.seen = []

    def call(self, name, arguments):
        self.seen.append((name, arguments))
        return super().call(name, arguments)


class Odd:
    """A Python object a careless tool might return."""


def spy_registry() -> SpyRegistry:
    def lookup(key: str) -> dict:
        """Return a record whose keys look like Python internals."""
        return {"__class__": key, "__init__": {"__globals__": [1, 2]}, "ok": True}

    def shared() -> list:
        """Return the tool's own list (a program must not be able to change it)."""
        return SHARED

    def broken() -> str:
        """Fail with an HTTP-like error."""
        raise ToolExecutionError("backend down", status=503)

    registry = SpyRegistry([Tool("odd", "An object", {"type": "object", "properties": {}}, lambda: Odd()),
                            Tool("pair", "A tuple", {"type": "object", "properties": {}}, lambda: (1, "a"))])
    for fn in (lookup, shared, broken):
        registry.register(tool_core.tool_from_function(fn))
    return registry


SHARED = [1, 2, 3]

# (construct, source, words the refusal must contain): every construct outside the subset, refused before a step
REFUSED = [
    ("import", "import os", "import is not allowed"),
    ("from import", "from os import path", "import is not allowed"),
    ("attribute", "x = ().__class__", "attribute access"),
    ("method call", "x = 'a'.upper()", "attribute access"),
    ("bound method owner", "print.__self__", "attribute access"),
    ("attribute in an f-string", "x = 1\nprint(f'{x.__class__}')", "attribute access"),
    ("dunder name", "x = __builtins__", "start with __"),
    ("dunder assignment", "__name__ = 1", "start with __"),
    ("while", "while True:\n    pass", "while is not allowed"),
    ("lambda", "f = lambda: 1", "lambda is not allowed"),
    ("def", "def f():\n    return 1", "defining a function"),
    ("async def", "async def f():\n    pass", "defining a function"),
    ("class", "class A:\n    pass", "defining a class"),
    ("list comprehension", "x = [i for i in range(3)]", "comprehensions are not allowed"),
    ("dict comprehension", "x = {i: i for i in range(3)}", "comprehensions are not allowed"),
    ("generator", "x = sum(i for i in range(3))", "comprehensions are not allowed"),
    ("eval", "eval('1')", "eval() is not allowed"),
    ("exec", "exec('x = 1')", "exec() is not allowed"),
    ("open", "open('/etc/passwd')", "open() is not allowed"),
    ("getattr", "getattr(1, 'real')", "getattr() is not allowed"),
    ("type", "type(1)", "type() is not allowed"),
    ("__import__", "__import__('os')", "__import__() is not allowed"),
    ("an unknown function", "float('1')", "float is not a tool or an allowed builtin"),
    ("global", "global x", "global is not allowed"),
    ("nonlocal at top level", "def f():\n    nonlocal x", "defining a function"),
    ("with", "with x:\n    pass", "with is not allowed"),
    ("try", "try:\n    x = 1\nexcept Exception:\n    pass", "try is not allowed"),
    ("raise", "raise ValueError", "raise is not allowed"),
    ("yield", "yield 1", "yield is not allowed"),
    ("await", "await x", "await is not allowed"),
    ("starred call", "print(*[1, 2])", "starred"),
    ("starred unpacking", "a, *b = [1, 2, 3]", "starred"),
    ("keyword unpacking", "lookup(**{'key': 'a'})", "keyword unpacking"),
    ("dict unpacking", "x = {**{}}", "dict unpacking"),
    ("walrus", "print(x := 1)", "walrus"),
    ("del", "x = 1\ndel x", "del is not allowed"),
    ("assert", "assert 1", "assert is not allowed"),
    ("match", "match 1:\n    case 1:\n        pass", "match is not allowed"),
    ("set literal", "x = {1, 2}", "set literals"),
    ("bytes literal", "x = b'a'", "bytes literals"),
    ("bit shift", "x = 1 << 10 ** 9", "operator LShift is not allowed"),
    ("string % formatting", "x = '%*d' % (10 ** 9, 1)", "% formatting"),
    ("calling an index", "x = [print]\nx[0](1)", "only tools and builtins can be called"),
    ("a tool, positionally", "lookup('a')", "keyword arguments only"),
    ("shadowing a builtin", "len = 1", "choose another name"),
    ("shadowing a tool", "lookup = 1", "choose another name"),
    ("for ... else", "for i in []:\n    pass\nelse:\n    pass", "for ... else"),
    ("a builtin's unknown keyword", "sorted([1], key=1)", "no keyword argument 'key'"),
]

# (program, expected printout): the subset works as Python does (computed by hand)
ALLOWED = [
    ("print(1 + 2 * 3, 7 // 2, 7 % 3, 2 ** 5, 7 / 2, -1)", "7 3 1 32 3.5 -1\n"),
    ("a, b = 1, 2\n[c, d] = [b, a]\nprint(a, b, c, d)", "1 2 2 1\n"),
    ("print(1 < 2 < 3, 1 == 2, 'a' in 'ab', 3 not in [1], None is None, 1 and 0, 0 or 5, not 1)",
     "True False True True True 0 5 False\n"),
    ("x = 5\nif x > 9:\n    print('big')\nelif x > 3:\n    print('mid')\nelse:\n    print('small')", "mid\n"),
    ("t = 0\nfor i in range(1, 5):\n    t += i\nprint(t)", "10\n"),
    ("for k in {'a': 1, 'b': 2}:\n    print(k)", "a\nb\n"),
    ("for x, y in [(1, 2), (3, 4)]:\n    print(x + y)", "3\n7\n"),
    ("for i in range(9):\n    if i == 1:\n        continue\n    if i == 3:\n        break\n    print(i)", "0\n2\n"),
    ("xs = [3, 1, 2]\nprint(xs[0], xs[-1], xs[1:], xs[::-1], sorted(xs), sorted(xs, reverse=True))",
     "3 2 [1, 2] [2, 1, 3] [1, 2, 3] [3, 2, 1]\n"),
    ("d = {'n': [1, 2]}\nd['m'] = 3\nd['n'][0] = 9\nprint(d, len(d))", "{'n': [9, 2], 'm': 3} 2\n"),
    ("print(len('abc'), min(3, 1, 2), max([4, 8]), sum([1, 2, 3]), abs(-4), round(2.567, 2), int('42'), str(7))",
     "3 1 8 6 4 2.57 42 7\n"),
    ("name = 'XGrammar'\nprint(f'{name}: {3.14159:.2f} {7:>3}|{[1, 2]} {name!r}')",
     "XGrammar: 3.14   7|[1, 2] 'XGrammar'\n"),
    ("print('a', 'b', ('t',), None, True)", "a b ('t',) None True\n"),
    ("x = 'yes' if 2 > 1 else 'no'\nprint(x)", "yes\n"),
    ("print()", "\n"),
    ("xs = []\nfor i in range(3):\n    xs = xs + [i * i]\nprint(xs)", "[0, 1, 4]\n"),
]

# (what is attempted, program, the limit's words): each stops cleanly, with a message
LIMITS = [
    ("a huge range", "for i in range(10 ** 12):\n    pass", "step limit reached"),
    ("nested loops", "for i in range(1000):\n    for j in range(1000):\n        x = i", "step limit reached"),
    ("sorting a huge range in one step", "x = sorted(range(10 ** 8))", "step limit reached"),
    ("summing a huge range in one step", "x = sum(range(10 ** 8))", "step limit reached"),
    ("a long string by repetition", "s = 'ab' * 10 ** 8", "repeating 2 items"),
    ("a long list by repetition", "s = [0] * 10 ** 8", "repeating 1 items"),
    ("a long string by doubling", "s = 'ab'\nfor i in range(40):\n    s = s + s", "over the limit of 100000"),
    ("a long list grown in place", "xs = [0] * 50000\nfor i in range(100):\n    xs[0:0] = xs", "over the limit of 100000"),
    ("a huge integer", "x = 10 ** 10 ** 8", "bits"),
    ("a huge integer by squaring", "x = 3\nfor i in range(40):\n    x = x * x", "bits"),
    ("printing in a loop", "for i in range(10 ** 6):\n    print('spam spam')", "output limit reached"),
    ("one huge print", "print('x' * 90000)", "output limit reached"),
    ("a huge format width", "print(f'{1:>999999999}')", "format spec"),
    ("a nested format width", "w = 999999999\nprint(f'{1:>{w}}')", "format spec"),
    ("rounding to a huge precision", "x = round(5, -10 ** 9)", "between -100 and 100"),
    ("deep nesting", "x = " + "-" * 500 + "1", "nested more than"),
    ("deep parentheses", "x = " + "(" * 300 + "1" + ")" * 300, "syntax error"),
    ("a long chain", "x = " + " + ".join(["1"] * 2000), "nested more than"),
    ("a huge source", "x = 1\n" * 5000, "characters, more than"),
    ("a deep value printed", "x = []\nfor i in range(3000):\n    x = [x]\nprint(x)", None),
    ("a shared structure printed", "a = [1] * 1000\nb = [a] * 1000\nc = [b] * 1000\nprint(c)", "output limit"),
    ("a shared structure sent", "a = [1] * 1000\nb = [a] * 1000\nlookup(key=b)", "over the limit"),
]


class RefusedConstructs(unittest.TestCase):
    def test_every_construct_outside_the_subset_is_refused_before_a_step(self):
        for construct, source, words in REFUSED:
            with self.subTest(construct):
                registry = spy_registry()
                run = I.run_program(source, registry)
                self.assertIsInstance(run, I.ProgramRun)
                self.assertIn(words, run.error or "")
                self.assertEqual((run.steps, run.output, run.calls, registry.seen), (0, "", [], []))

    def test_a_refusal_says_what_to_do_instead(self):
        cases = [("import os", "only the listed tools and builtins"), ("while 1:\n    pass", "loop with for"),
                 ("x = 'a'.upper()", "index a dict with x['key']"), ("x = [i for i in []]", "write a for loop"),
                 ("eval('1')", "the tools (broken, lookup, odd, pair, shared)")]
        for source, advice in cases:
            with self.subTest(source):
                self.assertIn(advice, I.run_program(source, spy_registry()).error)

    def test_a_refused_construct_in_a_branch_never_taken_is_refused_too(self):
        run = I.run_program("print(1)\nif False:\n    import os", spy_registry())
        self.assertEqual((run.output, run.error), ("", "line 3: import is not allowed: the program can use only the "
                                                       "listed tools and builtins"))

    def test_the_subset_runs_as_python_does(self):
        for source, expected in ALLOWED:
            with self.subTest(source):
                run = I.run_program(source, ToolRegistry())
                self.assertEqual((run.error, run.output), (None, expected))


class NoRouteToPythonObjects(unittest.TestCase):
    def test_builtins_and_tools_are_not_values(self):
        for source in ("x = print", "x = len", "x = lookup", "print(sorted)"):
            with self.subTest(source):
                self.assertIn("can only be called", I.run_program(source, spy_registry()).error)

    def test_a_result_with_tricky_keys_is_plain_data(self):
        run = I.run_program("r = lookup(key='k')\nprint(r['__class__'], r['__init__']['__globals__'], sorted(r))",
                            spy_registry())
        self.assertEqual((run.error, run.output), (None, "k [1, 2] ['__class__', '__init__', 'ok']\n"))

    def test_a_result_is_a_copy_the_program_cannot_change_the_tool_through(self):
        run = I.run_program("r = shared()\nr[0] = 99\nprint(r)", spy_registry())
        self.assertEqual((run.output, SHARED), ("[99, 2, 3]\n", [1, 2, 3]))

    def test_a_result_that_is_not_json_is_refused_and_a_tuple_becomes_a_list(self):
        self.assertIn("not plain JSON", I.run_program("x = odd()", spy_registry()).error)
        self.assertEqual(I.run_program("print(pair())", spy_registry()).output, "[1, 'a']\n")

    def test_format_specs_cannot_reach_attributes_or_fields(self):
        for source in ("x = 1\nprint(f'{x:{x.__class__}}')", "print(f'{1:>{\"1\" * 9}}')", "print(f'{[1]:>5}')",
                       "print(f'{1:%Y}')"):
            with self.subTest(source):
                run = I.run_program(source, spy_registry())
                self.assertIsNotNone(run.error)
                self.assertEqual(run.output, "")

    def test_the_sandbox_never_calls_eval_exec_or_compile(self):
        forbidden = AssertionError("the sandbox handed model text to Python")
        registry = ToolRegistry([I.arxiv_records_tool(I.PaperStore())])
        real_compile = compile

        def ast_only(source, filename, mode, flags=0, *args, **kwargs):  # ast.parse is compile(..., PyCF_ONLY_AST)
            if not flags & ast.PyCF_ONLY_AST:
                raise forbidden
            return real_compile(source, filename, mode, flags, *args, **kwargs)
        with mock.patch("builtins.eval", side_effect=forbidden), mock.patch("builtins.exec", side_effect=forbidden), \
                mock.patch("builtins.compile", side_effect=ast_only):
            run = I.run_program(I.NEWEST_PROGRAM, registry)
        self.assertEqual((run.error, run.output.count("\n")), (None, 3))


class Limits(unittest.TestCase):
    def test_each_limit_stops_the_program_cleanly_with_a_message(self):
        for what, source, words in LIMITS:
            with self.subTest(what):
                run = I.run_program(source, spy_registry())
                self.assertIsNotNone(run.error)
                self.assertNotIn("internal error", run.error)
                if words:
                    self.assertIn(words, run.error)
                self.assertLessEqual(run.steps, 10_000)
                self.assertLessEqual(len(run.output), 4_000)

    def test_the_step_limit_is_exact(self):
        run = I.run_program("for i in range(10 ** 9):\n    pass", ToolRegistry(), max_steps=50)
        self.assertEqual(run.steps, 50)
        self.assertTrue(run.error.startswith("line 2: step limit reached (50 steps)"))

    def test_the_output_limit_keeps_what_fits(self):
        run = I.run_program("for i in range(100):\n    print('abcd')", ToolRegistry(), max_output=12)
        self.assertEqual(run.output, "abcd\nabcd\nab")
        self.assertIn("output limit reached (12 characters)", run.error)

    def test_the_call_limit_lets_exactly_max_calls_through(self):
        registry = spy_registry()
        run = I.run_program("for i in range(50):\n    lookup(key=str(i))", registry, max_calls=4)
        self.assertEqual((len(run.calls), len(registry.seen)), (4, 4))
        self.assertIn("tool-call limit reached (4 calls)", run.error)

    def test_bad_limits_and_registries_are_the_programmers_mistake(self):
        with self.assertRaises(ValueError):
            I.run_program("x = 1", ToolRegistry(), max_steps=-1)
        with self.assertRaises(TypeError):
            I.run_program("x = 1", {"lookup": print})


class ToolCallsGoThroughTheRegistry(unittest.TestCase):
    def test_every_call_is_the_registrys_and_logged(self):
        registry = spy_registry()
        run = I.run_program("a = lookup(key='x')\nb = shared()\nprint(a['ok'], b[0])", registry)
        self.assertEqual(registry.seen, [("lookup", {"key": "x"}), ("shared", {})])
        self.assertEqual([(c.name, c.arguments, c.ok) for c in run.calls],
                         [("lookup", {"key": "x"}, True), ("shared", {}, True)])

    def test_a_failed_call_stops_the_program_with_the_harnesss_message(self):
        registry = spy_registry()
        cases = [("lookup(key=1)", "invalid_arguments", registry.call("lookup", {"key": 1}).message),
                 ("lookup()", "invalid_arguments", registry.call("lookup", {}).message),
                 ("broken()", "execution_error", registry.call("broken", {}).message)]
        for source, kind, message in cases:
            with self.subTest(source):
                run = I.run_program(source + "\nprint('after')", registry)
                self.assertEqual(run.error, f"line 1: {source.split('(')[0]} failed ({kind}): {message}")
                self.assertEqual((run.output, run.calls[-1].ok, run.calls[-1].error_kind), ("", False, kind))

    def test_arguments_that_are_not_json_never_reach_the_tool(self):
        registry = spy_registry()
        run = I.run_program("lookup(key=range(3))", registry)
        self.assertIn("must be JSON values", run.error)
        self.assertEqual(registry.seen, [])


def random_expression(rng: random.Random, depth: int) -> ast.expr:
    """Build a random expression from the node types, inside and outside the subset."""
    leaves = [lambda: ast.Constant(rng.choice([0, 1, -3, 2.5, "ab", "", None, True, 10 ** 6])),
              lambda: ast.Name(rng.choice(["x", "y", "len", "print", "lookup", "__class__", "eval"]), ast.Load())]
    if depth <= 0:
        return rng.choice(leaves)()
    sub = lambda: random_expression(rng, depth - 1)  # noqa: E731
    builders = [
        lambda: ast.BinOp(sub(), rng.choice([ast.Add(), ast.Mult(), ast.Pow(), ast.Mod(), ast.FloorDiv(), ast.Div(),
                                             ast.Sub(), ast.LShift(), ast.BitOr()]), sub()),
        lambda: ast.UnaryOp(rng.choice([ast.USub(), ast.Not(), ast.Invert()]), sub()),
        lambda: ast.Compare(sub(), [rng.choice([ast.Lt(), ast.Eq(), ast.In(), ast.Is()])], [sub()]),
        lambda: ast.BoolOp(rng.choice([ast.And(), ast.Or()]), [sub(), sub()]),
        lambda: ast.List([sub() for _ in range(rng.randrange(3))], ast.Load()),
        lambda: ast.Tuple([sub(), sub()], ast.Load()),
        lambda: ast.Dict([sub()], [sub()]),
        lambda: ast.Subscript(sub(), rng.choice([sub(), ast.Slice(sub(), None, None)]), ast.Load()),
        lambda: ast.Call(ast.Name(rng.choice(["len", "sorted", "min", "max", "sum", "range", "str", "int", "round",
                                              "abs", "print", "lookup", "getattr"]), ast.Load()),
                         [sub() for _ in range(rng.randrange(3))],
                         [ast.keyword("key", sub())] if rng.random() < 0.3 else []),
        lambda: ast.Attribute(sub(), "__class__", ast.Load()),
        lambda: ast.IfExp(sub(), sub(), sub()),
        lambda: ast.JoinedStr([ast.FormattedValue(sub(), rng.choice([-1, 114]), None)]),
        lambda: ast.ListComp(sub(), [ast.comprehension(ast.Name("i", ast.Store()), sub(), [], 0)]),
        lambda: ast.Lambda(ast.arguments([], [], None, [], [], None, []), sub()),
    ]
    return rng.choice(builders + leaves)()


def random_program(rng: random.Random) -> str:
    """Build a random program of a few statements and unparse it to source."""
    body = []
    for _ in range(rng.randrange(1, 5)):
        target = ast.Name(rng.choice(["x", "y"]), ast.Store())
        kind = rng.randrange(5)
        if kind == 0:
            body.append(ast.Assign([target], random_expression(rng, 3)))
        elif kind == 1:
            body.append(ast.Expr(random_expression(rng, 3)))
        elif kind == 2:
            body.append(ast.For(target, random_expression(rng, 2), [ast.Expr(random_expression(rng, 2))], []))
        elif kind == 3:
            body.append(ast.If(random_expression(rng, 2), [ast.Pass()], [ast.Break()]))
        else:
            body.append(ast.While(random_expression(rng, 1), [ast.Break()], []))
    return ast.unparse(ast.fix_missing_locations(ast.Module(body, [])))


class NoExceptionEscapes(unittest.TestCase):
    def assert_contained(self, source: str) -> None:
        try:
            run = I.run_program(source, spy_registry(), max_steps=2_000)
        except Exception as exc:  # noqa: BLE001 - the test's point
            self.fail(f"{type(exc).__name__} escaped for {source!r}: {exc}")
        self.assertIsInstance(run, I.ProgramRun)
        self.assertNotIn("internal error", run.error or "", source)

    def test_random_programs_from_ast_node_types(self):
        rng = random.Random(25)
        for _ in range(400):
            self.assert_contained(random_program(rng))

    def test_mutated_source_text(self):
        rng = random.Random(7)
        seeds = [I.NEWEST_PROGRAM] + [source for source, _ in ALLOWED]
        alphabet = "()[]{}:'\"\\ \n\t,.*=_-+%!#{x0fab\x00é"
        for _ in range(400):
            text = list(rng.choice(seeds))
            for _ in range(rng.randrange(1, 4)):
                i = rng.randrange(len(text) + 1)
                move = rng.randrange(3)
                if move == 0:
                    text.insert(i, rng.choice(alphabet))
                elif move == 1 and i < len(text):
                    del text[i]
                elif i < len(text):
                    text[i] = rng.choice(alphabet)
            self.assert_contained("".join(text))

    def test_text_that_is_not_a_program(self):
        for source in (None, 42, b"print(1)", "\x00", "print(1)\x00", "\ufeffprint(1)", "def", "\n" * 3):
            with self.subTest(source=source):
                self.assert_contained(source)


class TheDemo(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.store = I.PaperStore()
        cls.figures = I.newest_both_ways(cls.store)
        cls.text = I.demo_code_as_a_tool()

    def test_direct_calls_take_a_pass_per_search_and_every_record_enters_the_context(self):
        d = self.figures["direct"]
        expected_papers = sum(min(I.MAX_RESULTS, len(self.store.search(t))) for t in I.NEWEST_TOPICS)
        self.assertEqual((d["passes"], d["loop_calls"], d["tool_calls"], d["papers"]),
                         (len(I.NEWEST_TOPICS) + 1, 3, 3, expected_papers))

    def test_one_program_takes_two_passes_and_only_its_printout_enters(self):
        p, run = self.figures["program"], self.figures["program"]["run"]
        self.assertEqual((p["passes"], p["loop_calls"], p["tool_calls"], p["papers"]), (2, 1, 3, 0))
        self.assertEqual(p["result_tokens"], count_tokens(tool_core.render_tool_results(
            [(tool_core.ToolCall("run_program", {}, id="call_1"), tool_core.ToolResult(True, run.output))])))
        self.assertLess(p["result_tokens"] * 10, self.figures["direct"]["result_tokens"])
        self.assertLess(p["tokens_read"], self.figures["direct"]["tokens_read"])

    def test_both_ways_find_the_newest_paper_of_each_topic(self):
        expected = "\n".join(f"{t}: {self.store.search(t)[0].id} {self.store.search(t)[0].title} "
                             f"({self.store.search(t)[0].date})" for t in I.NEWEST_TOPICS)
        self.assertEqual((self.figures["direct"]["answer"], self.figures["program"]["answer"]), (expected, expected))

    def test_every_attempt_in_the_table_is_refused_or_stopped(self):
        for what, _, verdict in I.sandbox_verdicts(self.store):
            with self.subTest(what):
                self.assertNotEqual(verdict, "ran (not refused)")
                self.assertNotIn("internal error", verdict)

    def test_the_demo_shows_the_slides_figures_beside_the_labs_and_quotes_codeact(self):
        self.assertIn("slides: direct calls  4             3                      150", self.text)
        self.assertIn("slides: one program   2             3                      0 (the printout)", self.text)
        self.assertIn("quoted from its abstract, not computed", self.text)
        self.assertIn("up to 20% higher", self.text)
        # CodeAct's chart, quoted as read off the figure (approximate), never computed: code beats JSON and text for
        # every model shown, in fewer turns
        self.assertIn("read off it, to about one unit, not computed", self.text)
        self.assertIn("gpt-4-1106-preview   ~74% / ~52% / ~53%", self.text)
        for model, rate, turns in I.CODEACT_CHART:
            with self.subTest(model=model):
                self.assertGreater(rate[0], max(rate[1:]))
                self.assertLess(turns[0], min(turns[1:]))
        lines = self.text.splitlines()
        self.assertLessEqual(max(map(len, lines)), 118)
        self.assertLessEqual(len(lines), 75)
        self.assertIsInstance(self.text, tool_core.DemoText)


def wrapped(levels: int, inner: str) -> str:
    """Write a program line that puts the value inner inside `levels` one-item lists, as x."""
    return f"x = {inner}\nfor i in range({levels}):\n    x = [x]\n"


class BoundedWork(unittest.TestCase):
    """Issue 31, item 4: one step, one message and one call stay bounded, however large, deep or shared the values."""

    def test_arguments_too_large_or_too_deep_never_reach_the_tool(self):
        big = "[[1] * 1000] * 1000"  # a million items in 2,000 list slots: small in memory, huge as JSON
        cases = [("a shared value, shallow", wrapped(3, big), "over the limit of 100000 characters"),
                 ("a shared value under 61 wrappers", wrapped(61, big), "nested more than 60 levels"),
                 ("a small value 70 levels deep", wrapped(70, "1"), "nested more than 60 levels"),
                 ("a long string in a dict", "x = {'k': 'a' * 100000}\n", "over the limit of 100000 characters")]
        for what, program, words in cases:
            with self.subTest(what):
                registry = spy_registry()
                run = I.run_program(program + "lookup(key=x)", registry)
                self.assertIn(words, run.error or "")
                self.assertIn("the arguments of lookup", run.error)
                self.assertEqual((registry.seen, run.calls), ([], []))

    def test_arguments_reach_the_tool_as_json_would_carry_them(self):
        cases = [({"a": (1, None), 2: "b"}, {"a": [1, None], "2": "b"}), ([True, 1.5, -0.0], [True, 1.5, -0.0]),
                 ({None: 1, False: [()], 2.5: "é"}, {"null": 1, "false": [[]], "2.5": "é"}), ("", "")]
        for value, expected in cases:
            with self.subTest(value=value):
                self.assertEqual(json.loads(I._json_text(value, 1000)), expected)
        for bad in (range(3), {(1,): 2}, float("nan"), [Odd()]):
            with self.subTest(bad=bad), self.assertRaises((TypeError, ValueError)):
                I._json_text(bad, 1000)

    def test_every_error_is_cut_to_max_output_and_built_bounded(self):
        long_message = Tool("loud", "Fail at length", {"type": "object", "properties": {}},
                            lambda: (_ for _ in ()).throw(ToolExecutionError("no " * 30_000)))
        registry = ToolRegistry([long_message])
        s = "s = 'a' * 100000\n"
        cases = [("a KeyError on three long strings", s + "x = {}[(s, s, s)]", "line 2: KeyError: ('aaa"),
                 ("a KeyError on a long shared tuple", s + "t = (s,) * 300\nx = {}[t]", "line 3: KeyError: ('aaa"),
                 ("a long format spec", s + "print(f'{1:{s}}')", "line 2: the format spec 'aaa"),
                 ("a tool's long failure", "loud()", "line 1: loud failed (execution_error)")]
        for max_output in (4_000, 1_000):
            for what, program, start in cases:
                with self.subTest(what, max_output=max_output):
                    run = I.run_program(program, registry, max_output=max_output)
                    self.assertTrue(run.error.startswith(start), run.error[:80])
                    self.assertLessEqual(len(run.error), max_output)

    def test_an_error_keeps_room_to_say_what_it_was_under_a_tiny_max_output(self):
        run = I.run_program("x = {}['k' * 2000]", ToolRegistry(), max_output=10)
        self.assertTrue(run.error.startswith("line 1: KeyError: 'kkk"))
        self.assertEqual(len(run.error), I.ERROR_ROOM)

    def test_the_program_tool_passes_the_model_at_most_max_output_characters(self):
        # (program, how the message starts): the printout first, cut to leave the error its room
        cases = [("print('p' * 900)\nx = {}['k']", "p" * 900 + "\nline 2: KeyError: 'k'"),
                 ("print('p' * 900)\ns = 'a' * 100000\nx = {}[(s, s)]", "line 3: KeyError: ('aaa")]
        tool = I.program_tool(spy_registry(), [], max_output=1_000)
        for program, start in cases:
            with self.subTest(program), self.assertRaises(ToolExecutionError) as caught:
                tool.fn(source=program)
            self.assertTrue(str(caught.exception).startswith(start), str(caught.exception)[:80])
            self.assertLessEqual(len(str(caught.exception)), 1_000)

    def test_an_f_string_stops_growing_at_the_limit_before_its_later_parts_run(self):
        registry = spy_registry()
        run = I.run_program("s = 'a' * 60000\nx = f'{s}{s}{lookup(key=\"late\")}'", registry)
        self.assertIn("over the limit of 100000", run.error)
        self.assertEqual(registry.seen, [])

    def test_sum_adds_numbers_only_whatever_the_collection_or_the_start(self):
        for program in ("d = {(1,): 1, (2,): 2}\nx = sum(d, ())", "x = sum([[1], [2]], [])", "x = sum({'a': 1})",
                        "x = sum([1, 2], [])", "x = sum('abc')"):
            with self.subTest(program):
                self.assertIn("sum() adds numbers only", I.run_program(program, ToolRegistry()).error)
        self.assertEqual(I.run_program("print(sum([1, 2.5], 4), sum({1: 'a', 2: 'b'}), sum(range(4), 1))",
                                       ToolRegistry()).output, "7.5 3 7\n")

    def test_sum_with_a_start_costs_a_step_per_item_too(self):
        run = I.run_program("x = sum(range(10 ** 6), 0)", ToolRegistry(), max_steps=1_000)
        self.assertIn("step limit reached (1000 steps)", run.error)

    def test_comparing_hashing_and_copying_large_values_cost_steps_by_their_size(self):
        shared = "a = [0] * 1000\nb = a + []\n"  # equal lists, not the same one: == walks every item
        cases = [("== of lists shared a thousand times", shared + "x = [a] * 1000 == [b] * 1000"),
                 ("in over a list of shared lists", shared + "x = b in [a] * 1000"),
                 ("sorting a list of shared lists", shared + "x = sorted([a] * 1000)"),
                 ("max of a list of shared lists", shared + "x = max([a] * 1000)"),
                 ("hashing a long tuple as a key", "t = (0,) * 100000\nd = {}\nfor i in range(50):\n    d[t] = i"),
                 ("looking up a long tuple", "t = (0,) * 100000\nd = {}\nfor i in range(50):\n    x = t in d"),
                 ("copying long lists", "a = [0] * 50000\nfor i in range(50):\n    b = a + a")]
        for what, program in cases:
            with self.subTest(what):
                run = I.run_program(program, ToolRegistry())
                self.assertIn("step limit reached (10000 steps)", run.error or "")
                self.assertEqual(run.steps, 10_000)

    def test_a_step_covers_a_hundred_slots_and_small_values_cost_nothing_extra(self):
        # counted by hand: 1 per statement and per node evaluated, + (slots walked or copied) // 100
        cases = [("x = 1 == 1", 4), ("x = [1] == [1]", 6),
                 ("x = [0] * 200 == [0] * 200", 1 + 1 + 2 * (4 + 200 // 100) + 400 // 100),  # * copies, == walks
                 ("d = {}\nd[(0,) * 300] = 1", 2 + 3 + 4 + 300 // 100 + 300 // 100)]  # * copies, the key is hashed
        for program, steps in cases:
            with self.subTest(program):
                run = I.run_program(program, ToolRegistry())
                self.assertEqual((run.error, run.steps), (None, steps))

    def test_a_program_past_its_deadline_is_stopped_with_a_clear_message(self):
        ticks = iter(range(10 ** 6))  # a fake clock: one second passes at each reading
        run = I.run_program("for i in range(10 ** 6):\n    pass", ToolRegistry(), max_seconds=10,
                            clock=lambda: next(ticks))
        self.assertEqual(run.steps, 10)  # read at the start (0), then once per step: the 10th step reads 10
        # steps 1-5: the for, range(...), 10 ** 6, 10, 6; then the loop's rounds (line 1) and pass (line 2) alternate
        self.assertTrue(run.error.startswith("line 1: time limit reached (10 s): the program was stopped"), run.error)
        past = I.run_program("x = 1", ToolRegistry(), max_seconds=0)  # a deadline already reached
        self.assertEqual((past.steps, past.error[:27]), (1, "line 1: time limit reached "))
        with self.assertRaises(ValueError):
            I.run_program("x = 1", ToolRegistry(), max_seconds=-1)

    def test_an_augmented_assignment_evaluates_its_target_once(self):
        cases = [("a dict item keyed by a call", "d = {'x': 1}\nd[lookup(key='x')['__class__']] += 1\nprint(d)",
                  "{'x': 2}\n"),
                 ("an item of a call's result", "lookup(key='x')['__class__'] += 'y'\nprint('done')", "done\n"),
                 ("a list item indexed by a call", "xs = [5, 6]\nxs[len(lookup(key='x')) - 2] *= 10\nprint(xs)",
                  "[5, 60]\n"),
                 ("a name", "n = 1\nn += lookup(key='x')['ok']\nprint(n)", "2\n")]
        for what, program, output in cases:
            with self.subTest(what):
                registry = spy_registry()
                run = I.run_program(program, registry)
                self.assertEqual((run.error, run.output, len(registry.seen)), (None, output, 1))


if __name__ == "__main__":
    unittest.main()
