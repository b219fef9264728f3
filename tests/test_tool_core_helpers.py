"""calculate (safe arithmetic on the ast), count_tokens (the stand-in tokenizer), format_table, show; and every lab
module's Contents naming its banners' sections in their order."""
import ast
import importlib
import json
import re
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tool_core import calculate, count_tokens, dotted_name, format_table, show  # noqa: E402


class Calculate(unittest.TestCase):
    """calculate: exact values, and each guard (length, size, depth) refusing with a message that names it."""

    def test_arithmetic(self):
        cases = [
            ("17423 * 892", 15541316), ("17423 × 892", 15541316), ("120 + 85", 205),
            ("2 + 3 * 4", 14), ("(2 + 3) * 4", 20), ("-3 ** 2", -9), ("(-3) ** 2", 9), ("2 ** -1", 0.5),
            ("7 / 2", 3.5), ("7 // 2", 3), ("-7 // 2", -4), ("7 % 3", 1), ("84 ÷ 4", 21.0), ("+5", 5),
            ("1.5 * 4", 6.0), ("10 ** 300 // 10 ** 299", 10), ("  6*7 ", 42),
            ("2 ** 4095", 1 << 4095), ("-(2 ** 4095)", -(1 << 4095)),  # 4096 bits: exactly at the size limit
        ]
        for expression, expected in cases:
            with self.subTest(expression=expression):
                self.assertEqual(calculate(expression), expected)

    def test_refusals(self):
        cases = [
            "__import__('os').system('true')", "x + 1", "abs(-1)", "(1).real", "[1, 2]", "'a' * 3",
            "lambda: 1", "1 if 1 else 2", "1 < 2", "True + 1", "17,423 * 892", "2 ^ 3", "1 +", "",
            "1 / 0", "5 % 0", "9 ** 9 ** 9", "2 ** 100000", "10.0 ** 400", "1e308 * 10", "(-8) ** 0.5",
            "7 @ 3", "~5", "not 1", "1 and 2",
        ]
        for expression in cases:
            with self.subTest(expression=expression):
                with self.assertRaises(ValueError):
                    calculate(expression)

    def test_each_guard_refuses_quickly_and_says_why(self):
        # bounded: every one of these is a quick ValueError, never a hang or another exception;
        # the fragment names the guard that answered (length: at most 1000 characters; size: 4096 bits)
        cases = [
            ("1" + "+1" * 100000, "200001 characters"), ("-" * 5000 + "1", "5001 characters"),
            ("9" * 1300, "1300 characters"), ("9" * 999 + " * " + "9" * 990, "1992 characters"),
            ("2 ** (10 ** 1000)", "more than 4096 bits"), ("9" * 600 + " ** 3", "more than 4096 bits"),
            ("10 ** 1000 * 10 ** 1000", "more than 4096 bits"),  # each factor has 3322 bits, the product 6644
            ("2 ** 4096", "more than 4096 bits"), ("2 ** 4095 * 2", "more than 4096 bits"),  # 4097 bits
            ("1.5 ** (10 ** 1000)", "too large for floating point"), ("2.5 ** 3000", "too large for floating point"),
            ("0.5 ** (10 ** 1000)", "too large for floating point"), ("1e400", "not a finite number"),
            ("(" * 250 + "1" + ")" * 250, "cannot read"), ("(" * 300 + "1" + ")" * 300, "cannot read"),
        ]
        for expression, fragment in cases:
            with self.subTest(expression=expression[:30], length=len(expression)):
                with self.assertRaises(ValueError) as ctx:
                    calculate(expression)
                self.assertIn(fragment, str(ctx.exception))

    def test_expression_length_limit_is_1000_characters(self):
        # cheap and valid at any length: 100 ones summed (199 characters), padded with spaces
        ones = "1+" * 99 + "1"
        cases = [(ones.ljust(999), 100), (ones.ljust(1000), 100), (ones.rjust(1000), 100),
                 ("9" * 999, 10 ** 999 - 1),  # 999 digits: 3319 bits, under the size limit too
                 (ones.ljust(1001), None), (ones.rjust(1001), None), (ones.ljust(1500), None)]
        for expression, expected in cases:
            with self.subTest(length=len(expression)):
                if expected is not None:
                    self.assertEqual(calculate(expression), expected)
                    continue
                with self.assertRaises(ValueError) as ctx:
                    calculate(expression)
                message = str(ctx.exception)
                self.assertIn(f"has {len(expression)} characters; at most 1000 are allowed", message)
                self.assertNotIn("bits", message)
                self.assertNotIn("nested", message)

    def test_unary_chains(self):
        # hand count: an even number of minus signs cancels; plus signs change nothing
        cases = [("-" * 50 + "1", 1), ("-" * 51 + "1", -1), ("+" * 50 + "7", 7), ("-+" * 25 + "7", -7),
                 ("+-" * 26 + "7", 7), ("-" * 301 + "2", -2), ("- - -3", -3), ("-(-(-(4)))", -4)]
        for expression, expected in cases:
            with self.subTest(expression=expression):
                self.assertEqual(calculate(expression), expected)

    def test_very_deep_unary_chain_is_refused_as_too_deep(self):
        # under the length limit, so the depth guard (a RecursionError turned into ValueError) answers
        for expression in ("-" * 998 + "1", "+" * 998 + "1", "-+" * 499 + "1"):
            with self.subTest(length=len(expression)):
                with self.assertRaises(ValueError) as ctx:
                    calculate(expression)
                self.assertIn("is nested too deeply to evaluate", str(ctx.exception))
                self.assertNotIn("characters", str(ctx.exception))

    def test_messages_say_what_is_allowed(self):
        with self.assertRaises(ValueError) as ctx:
            calculate("2 ^ 10")
        self.assertIn("use ** for powers", str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            calculate("abs(-1)")
        self.assertIn("Call", str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            calculate(17)
        self.assertIn("string", str(ctx.exception))


class DottedName(unittest.TestCase):
    def test_a_callee_read_as_a_dotted_name(self):
        # by hand: the chain of attributes down to a plain name; anything else at the base is left out
        cases = [("f()", ("f", True)), ("torch.hub.load()", ("torch.hub.load", True)), ("a.b.c.d()", ("a.b.c.d", True)),
                 ("f().load()", ("load", False)), ("x[0].y()", ("y", False)), ("(lambda: 1)()", ("", False))]
        for code, expected in cases:
            with self.subTest(code=code):
                self.assertEqual(dotted_name(ast.parse(code, mode="eval").body.func), expected)


class CountTokens(unittest.TestCase):
    def test_the_documented_rule(self):
        # hand counts: letter runs per 8 letters, digit runs per 3 digits, other runs per 2 chars
        cases = [
            ("", 0), ("   ", 0), ("hello", 1), ("hello world", 2), ("abcdefgh", 1), ("abcdefghi", 2),
            ("1474", 2), ("123", 1), ("E-1474", 4), ("{}", 1), ('{"', 1), ('"}}', 2),
            ('get_incident("E-1474")', 9), ("additionalProperties", 3),
        ]
        for text, expected in cases:
            with self.subTest(text=text):
                self.assertEqual(count_tokens(text), expected)

    def test_grows_with_text(self):
        self.assertEqual(count_tokens("abc def " * 10), 20)

    def test_the_same_rule_beyond_ascii(self):
        # hand counts: a non-ASCII letter starts an "other" run (per 2); a run that starts with a non-ASCII digit
        # costs one per 3 characters; ASCII text beside them is counted as above
        cases = [("é", 1), ("éé中", 2), ("٣٣٣", 1), ("٣٣٣٣", 2), ("café", 2), ("abc—def", 3), ("x\u00a0y", 2)]
        for text, expected in cases:
            with self.subTest(text=text):
                self.assertEqual(count_tokens(text), expected)
        self.assertEqual(count_tokens("abcdefghi 1234 {}}" * 3), 3 * (2 + 2 + 2))  # long ASCII: 18


class FormatTable(unittest.TestCase):
    """format_table: exact layouts written by hand, wrapped cells included."""

    def test_aligned_columns(self):
        self.assertEqual(format_table(["a", "bb"], [[1, "x"], ["long", 2]]),
                         "a     bb\n----  --\n1     x\n" + "long  2")

    def test_wrapped_cells(self):
        table = format_table(["k", "v"], [["x", "one two three"]], widths=[0, 7])
        self.assertEqual(table.splitlines()[2:], ["x  one two", "   three"])

    def test_exact_tables(self):
        # laid out by hand: each column as wide as its longest line, two spaces between columns,
        # a dash rule under the header, trailing spaces cut; a width w wraps a cell at w characters
        cases = [
            ("plain", ["a", "bb"], [[1, "x"], ["long", 2]], None,
             ["a     bb", "----  --", "1     x", "long  2"]),
            # "ab cd" is 5 characters: " e" would make 7 > 6; "abcdef" fills the width exactly
            ("word boundary at the width", ["id", "note"], [[1, "ab cd e"], [22, "abcdef gh"]], [0, 6],
             ["id  note", "--  ------", "1   ab cd", "    e", "22  abcdef", "    gh"]),
            ("a line fills the width", ["k", "v"], [["x", "ab cd ef"]], [0, 5],
             ["k  v", "-  -----", "x  ab cd", "   ef"]),
            ("a word longer than the width is cut", ["k", "v"], [["x", "abcdefg h"]], [0, 4],
             ["k  v", "-  ----", "x  abcd", "   efg", "   h"]),
            ("two wrapped columns", ["p", "q"], [["aa bb cc", "d e f g"]], [5, 3],
             ["p      q", "-----  ---", "aa bb  d e", "cc     f g"]),
            ("newlines without a width", ["k", "v"], [["x", "one\ntwo"], ["", ""]], None,
             ["k  v", "-  ---", "x  one", "   two", ""]),
            ("empty cell with a width", ["hd", "v"], [["", "z"]], [3, 0],
             ["hd  v", "--  -", "    z"]),
            ("the header wraps too", ["head", "v"], [["", "z"]], [3, 0],
             ["hea  v", "d", "---  -", "     z"]),
        ]
        for label, headers, rows, widths, expected in cases:
            with self.subTest(label):
                self.assertEqual(format_table(headers, rows, widths).split("\n"), expected)


class Show(unittest.TestCase):
    """show() writes what json.dumps(value, ensure_ascii=False, default=repr) writes, cut at `limit`, and never raises."""

    def test_json_values_as_json_dumps_writes_them(self):
        values = ["urgent", "é \"q\" \n\u2028", 5, -0.5, 1e300, True, None, float("nan"), float("-inf"),
                  [], {}, [1, "a", None, [2.5]], {"b": {"c": [True, False]}, "a": 1}, {1: "int key", None: 2},
                  {"when": object}, (1, 2)]
        for value in values:
            with self.subTest(value=repr(value)):
                self.assertEqual(show(value, 10 ** 6), json.dumps(value, ensure_ascii=False, default=repr))

    def test_cut_at_the_limit_with_an_ellipsis(self):
        self.assertEqual(show("abcdefgh", 6), '"abcd…')
        self.assertEqual(show(list(range(100)), 12), "[0, 1, 2, 3…")
        self.assertEqual(show([1, 2], 6), "[1, 2]")

    def test_values_json_cannot_write_fall_back_to_repr(self):
        cycle: list = [1]
        cycle.append(cycle)
        self.assertEqual(show(cycle), "[1, [...]]")
        self.assertEqual(show({(1, 2): 3}), "{(1, 2): 3}")  # a key JSON has no form for
        deep: list = []
        for _ in range(5000):
            deep = [deep]
        self.assertIn(show(deep), ("<a array too large or too deep to show>",  # too deep for json and for repr
                                   "[" * 59 + "…"))  # too deep for json; Python 3.12+ writes its repr
        show(cycle)  # the encoder keeps no state from a failed call
        self.assertEqual(show([1, 2]), "[1, 2]")


ROOT = Path(__file__).resolve().parent.parent
LAB_MODULES = ["tool_core", "toolformer_lab", "interfaces", "tool_catalog", "bfcl_lab", "service_env"]

# A section's banner: "# --- 6. The text protocol ...", "# --- 6b. The parser's edge cases ...", "# --- Appendix A. ...".
# Unnumbered banners inside a section ("# --- Prompts: prompts/get ---") name no section.
_BANNER = re.compile(r"^# --- (\d+[a-z]?|Appendix [A-Z])\. ", re.MULTILINE)
# How the Contents names sections: an entry "  4. " or "  4-7. " at the start of a line, a part "4a" anywhere
# in the text ("4a: resources ...", "5f holds the demos"), and "  Appendices A-E".
_CONTENTS_LABEL = re.compile(r"^  (?P<first>\d+)(?:-(?P<last>\d+))?\.\s"
                             r"|\b(?P<part>\d+[a-z])\b"
                             r"|^  Appendices (?P<a>[A-Z])-(?P<b>[A-Z])\b|^  Appendix (?P<one>[A-Z])\b", re.MULTILINE)


def banner_sections(source: str) -> list[str]:
    """Return the sections a module's banners open, in file order. Example: '# --- 2a. Notebooks ---' -> ['2a']"""
    return _BANNER.findall(source)


def contents_sections(docstring: str) -> list[str]:
    """Return the sections a module docstring's Contents names, each at its first mention, in text order.

    The Contents runs from the line that starts with "Contents" to the first blank line.
    Example: '  1-2. The environment ... 3. ... 3b holds ... Appendices A-B' -> ['1', '2', '3b', 'Appendix A', 'Appendix B']
    """
    start = re.search(r"^Contents", docstring, re.MULTILINE)
    if start is None:
        raise ValueError("the module docstring has no line that starts with 'Contents'")
    block = docstring[start.start():].split("\n\n")[0]
    found = []
    for m in _CONTENTS_LABEL.finditer(block):
        if m["first"]:
            labels = [str(n) for n in range(int(m["first"]), int(m["last"] or m["first"]) + 1)]
        elif m["part"]:
            labels = [m["part"]]
        elif m["one"]:
            labels = [f"Appendix {m['one']}"]
        else:
            labels = [f"Appendix {chr(c)}" for c in range(ord(m["a"]), ord(m["b"]) + 1)]
        found += [label for label in labels if label not in found]  # later mentions refer back
    return found


class ContentsMatchBanners(unittest.TestCase):
    """A module's Contents lists the sections its banners open, no more, no fewer, in the same order (issue 32)."""

    def test_the_readers_of_both(self):
        cases = [  # (text, what the Contents or the banners name); from the formats described above
            ("Contents (x):\n  1. A    demo 1\n     2a: b; 3b holds c.\n  4-5. D\n  Appendices A-B: e\n\nOther 7. text",
             ["1", "2a", "3b", "4", "5", "Appendix A", "Appendix B"]),
            ("Contents:\n  1. A\n  Appendices A-B: e\n  Appendix M: f\n", ["1", "Appendix A", "Appendix B", "Appendix M"]),
            ("Contents:\n  6. T\n     the naive one beside 6a; 6b: its edge cases, each beside 6a.\n",
             ["6", "6a", "6b"]),
            ("Contents:\n  5. D     scripts/09 demos 1-8\n  5g. Code as a tool\n     OpenAPI 3.1, 2025-11-25.\n",
             ["5", "5g"]),
        ]
        for text, expected in cases:
            with self.subTest(text=text[:40]):
                self.assertEqual(contents_sections(text), expected)
        banners = "# --- 1. A ---\n# --- 2b. B ---\n# --- Prompts: x ---\n# --- Appendix C. D ---\n#   --- 3. no\n"
        self.assertEqual(banner_sections(banners), ["1", "2b", "Appendix C"])

    def test_every_module(self):
        for name in LAB_MODULES:
            with self.subTest(module=name):
                source = (ROOT / f"{name}.py").read_text(encoding="utf-8")
                banners = banner_sections(source)
                self.assertEqual(len(banners), len(set(banners)), f"{name}: a section label used twice: {banners}")
                docstring = importlib.import_module(name).__doc__  # as written: the module the suite has imported
                self.assertEqual(contents_sections(docstring), banners,
                                 f"{name}: the module docstring's Contents and the banners differ")


if __name__ == "__main__":
    unittest.main()
