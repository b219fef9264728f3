"""calculate (safe arithmetic on the ast), count_tokens (the stand-in tokenizer), format_table."""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tool_core import calculate, count_tokens, format_table  # noqa: E402


class Calculate(unittest.TestCase):
    def test_arithmetic(self):
        cases = [
            ("17423 * 892", 15541316), ("17423 × 892", 15541316), ("120 + 85", 205),
            ("2 + 3 * 4", 14), ("(2 + 3) * 4", 20), ("-3 ** 2", -9), ("(-3) ** 2", 9), ("2 ** -1", 0.5),
            ("7 / 2", 3.5), ("7 // 2", 3), ("-7 // 2", -4), ("7 % 3", 1), ("84 ÷ 4", 21.0), ("+5", 5),
            ("1.5 * 4", 6.0), ("10 ** 300 // 10 ** 299", 10), ("  6*7 ", 42),
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
            # bounded: every one of these is a quick ValueError, never a hang or another exception
            "1" + "+1" * 100000, "-" * 5000 + "1", "(" * 300 + "1" + ")" * 300, "2 ** (10 ** 1000)",
            "1.5 ** (10 ** 1000)", "1e400", "9" * 1300, "2.5 ** 3000", "10 ** 1000 * 10 ** 1000",
            # under the length limit, so the later guards answer: the parser's nesting limit, the bit limit
            "(" * 250 + "1" + ")" * 250, "9" * 999 + " * " + "9" * 990, "0.5 ** (10 ** 1000)",
        ]
        for expression in cases:
            with self.subTest(expression=expression):
                with self.assertRaises(ValueError):
                    calculate(expression)

    def test_deep_unary_chains_answer_or_refuse_cleanly(self):
        for expression, value in [("-" * 998 + "1", 1), ("-" * 997 + "1", -1)]:
            with self.subTest(length=len(expression)):
                try:
                    self.assertEqual(calculate(expression), value)
                except ValueError:
                    pass  # refused as too deep: also fine, as long as it is a ValueError

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


class FormatTable(unittest.TestCase):
    def test_aligned_columns(self):
        self.assertEqual(format_table(["a", "bb"], [[1, "x"], ["long", 2]]),
                         "a     bb\n----  --\n1     x\n" + "long  2")

    def test_wrapped_cells(self):
        table = format_table(["k", "v"], [["x", "one two three"]], widths=[0, 7])
        self.assertEqual(table.splitlines()[2:], ["x  one two", "   three"])


if __name__ == "__main__":
    unittest.main()
