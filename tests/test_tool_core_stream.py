"""Tests for tool_core 6c: StreamParser, the text protocol's parser fed a reply chunk by chunk.

The property (issue 34): whatever the chunks, the items feed() and close() report are, in order, equal to
parse_tool_calls(whole reply).items (name, arguments, kind, message, span, raw and id: equal dataclasses), so
no call is lost or reported twice, and the prose ends equal to parse_tool_calls(whole reply).text. (The one
exception, a message within a few levels of the recursion limit, is NearTheRecursionLimit's.) It is checked
on the parser's tables: the lecture's twelve outputs (tool_core.PARSER_CASES), and tests/test_tool_core_parser.py's
CORE_TABLE, EDGE_TABLE and RESCAN_CASES, each also against the outcome its row writes by hand. Every case is fed
one character at a time (so every tag is cut at every position), and in two chunks split at many positions: the
lecture's twelve at every position; the core table at every second position, and the edge table and the rescan
cases at every fourth, each also on both sides of every tag's first and last character; the three inputs of 5,000
characters or more (E8's 100000 nested [, twice, and the 5000-digit number) at 12 evenly spaced positions, and in
chunks of 2,000 characters instead of one.
So the file runs in about a quarter of a second.
Then: a call is reported by the chunk that brings its </tool_call>, before the reply ends; what the whole reply's
verdict may still depend on waits; bad input fails with a clear error; the work stays linear, counted by
StreamParser.scanned (the timing of 1 MB fed one character at a time is in scripts/benchmark.py); the demo.
Expected values come from the tables' hand-written outcomes, from the protocol, or from parse_tool_calls on the
whole reply (the very thing StreamParser promises to equal), never from StreamParser itself.
"""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # for the parser's tables, however the tests are started
import tool_core  # noqa: E402
from tool_core import CLOSE, OPEN, ParseError, StreamParser, ToolCall, call_text, parse_tool_calls  # noqa: E402
from test_tool_core_parser import CORE_TABLE, EDGE_TABLE, GET, RESCAN_CASES, SUB, outcome  # noqa: E402

LARGE = 5_000  # characters from which a case is split at a few positions only


def streamed(chunks: list[str]) -> tuple[list, str, str]:
    """Feed the chunks to a StreamParser: (every item feed and close reported, its text, what take_text gave)."""
    parser, items, shown = StreamParser(), [], []
    for chunk in chunks:
        items += parser.feed(chunk)
        shown.append(parser.take_text())
    items += parser.close()
    shown.append(parser.take_text())
    return items, parser.text, "".join(shown)


def splits(text: str, every: int = 1) -> list[list[str]]:
    """Return the ways a case is fed: in two chunks split at every `every`-th position and on both sides of each
    tag's first and last character (a tag cut between chunks), and one character at a time (every tag cut at every
    position); a large case at 12 positions, and in chunks of 2,000 characters."""
    if len(text) >= LARGE:
        return [[text[:i], text[i:]] for i in range(0, len(text) + 1, len(text) // 11)] \
            + [[text[i:i + 2000] for i in range(0, len(text), 2000)]]
    cuts = set(range(0, len(text) + 1, every)) | {len(text)}
    for tag in (OPEN, CLOSE):
        at = text.find(tag)
        while at >= 0:
            cuts.update((at, at + 1, at + len(tag) - 1, at + len(tag)))
            at = text.find(tag, at + 1)
    return [[text[:i], text[i:]] for i in sorted(cuts)] + [list(text)]


class EverySplit(unittest.TestCase):
    """The tables, fed in many ways: the same items as parse_tool_calls on the whole reply, and the same prose."""

    def check_table(self, table: list[tuple], every: int = 1) -> None:
        for label, text, expected in table:
            whole = parse_tool_calls(text)
            self.assertEqual(outcome(whole.items), expected, label)  # the row's hand-written outcome
            for chunks in splits(text, every):
                items, prose, shown = streamed(chunks)
                if (items, prose, shown) != (whole.items, whole.text, whole.text):
                    first = len(chunks[0]) if len(chunks) == 2 else "one character at a time"
                    self.fail(f"{label!r}, split at {first}: items {outcome(items)}, text {prose!r}, shown {shown!r};"
                              f" parse_tool_calls: {outcome(whole.items)}, text {whole.text!r}")

    def test_the_lectures_twelve_outputs(self):
        self.check_table(tool_core.PARSER_CASES)

    def test_the_core_table(self):
        self.check_table(CORE_TABLE, every=2)

    def test_the_edge_table(self):
        self.check_table(EDGE_TABLE, every=4)
        self.assertEqual(sum(len(text) >= LARGE for _, text, _ in EDGE_TABLE), 3)  # the docstring's large cases

    def test_the_rescan_cases(self):
        # their rows give each item's kind or name and span, and the prose, by hand
        for label, text, expected, prose in RESCAN_CASES:
            whole = parse_tool_calls(text)
            for chunks in splits(text, every=4):
                items, text_out, _ = streamed(chunks)
                got = [(i.name if isinstance(i, ToolCall) else i.kind, i.span) for i in items]
                self.assertEqual((got, text_out), (expected, prose), (label, len(chunks[0])))
                self.assertEqual(items, whole.items, label)


class Prose(unittest.TestCase):
    """The text outside the calls: shown as it comes, never taken back, and at the end parse_tool_calls' .text."""

    CASES = [  # (reply, its prose by hand: .text strips the ends and drops a ```json fence wrapped around calls)
        ("Let me look that up. " + GET + " One moment.", "Let me look that up.  One moment."),
        ("```json\n" + GET + "\n```", ""),
        ("```\n" + GET + "\n" + SUB + "\n```", ""),
        ("Here:\n```json\n" + GET + "\n```\nDone.", "Here:\n\nDone."),
        ("Run ```python\nprint(1)\n``` then " + GET, "Run ```python\nprint(1)\n``` then"),
        ("```json\n" + GET + "\n\n" + SUB + " x", "```json\n\n\n x"),  # no closer after the calls: the opener stays
        ("a ``" + GET + "`b", "a ```b"),
        ("```js " + GET + "  \n " + GET + "\n  ```  end", "end"),
    ]

    def test_every_split(self):
        for reply, prose in self.CASES:
            with self.subTest(reply=reply):
                self.assertEqual(parse_tool_calls(reply).text, prose)
                for chunks in splits(reply):
                    self.assertEqual(streamed(chunks)[1:], (prose, prose), len(chunks[0]))

    def test_what_is_shown_while_it_streams(self):
        # the text so far is always the start of the final text: a fence opener and the blanks at the end wait
        cases = [  # (what has arrived, the text so far, by hand)
            ("Here:\n```json\n", "Here:"),
            ("Here:\n```json\n" + GET + "\n", "Here:"),
            ("Here:\n```json\n" + GET + "\n```\nDo", "Here:\n\nDo"),
            ("Let me look that up. " + GET + " One", "Let me look that up.  One"),
            ("  a  ``", "a"),
        ]
        for arrived, shown in cases:
            with self.subTest(arrived=arrived):
                parser = StreamParser()
                parser.feed(arrived)
                self.assertEqual(parser.text, shown)

    def test_take_text_gives_each_piece_once(self):
        parser, pieces = StreamParser(), []
        for chunk in ["Checking ", "now. ", GET[:30], GET[30:], " Back", " soon.  "]:
            parser.feed(chunk)
            pieces.append(parser.take_text())
        parser.close()
        pieces.append(parser.take_text())
        self.assertEqual(pieces, ["Checking", " now.", "", "", "  Back", " soon.", ""])
        self.assertEqual(parser.text, "Checking now.  Back soon.")


class ReportedAtItsClose(unittest.TestCase):
    """The point of streaming: a call is ready when its </tool_call> arrives, before the reply has finished."""

    def test_each_call_comes_with_the_chunk_that_closes_it(self):
        reply = "Let me look. " + GET + "\n" + SUB + " Both asked."
        ends = [reply.index(CLOSE) + len(CLOSE), reply.rindex(CLOSE) + len(CLOSE)]  # where each call ends, by hand
        names = ["get_incident", "get_substation"]
        for i in range(len(reply) + 1):
            parser = StreamParser()
            first = [item.name for item in parser.feed(reply[:i])]
            self.assertEqual(first, [name for name, end in zip(names, ends) if end <= i], i)
            rest = [item.name for item in parser.feed(reply[i:])]
            self.assertEqual(first + rest, names)
            self.assertEqual(parser.close(), [])

    def test_a_close_tag_inside_a_string_is_not_its_close(self):
        label, reply, truth = tool_core.PARSER_CASES[6]  # "tag inside a string": the summary quotes </tool_call>
        quoted = reply.index(CLOSE) + len(CLOSE)
        parser = StreamParser()
        self.assertEqual(parser.feed(reply[:quoted]), [])
        self.assertEqual(parser.feed(reply[quoted:-1]), [])
        self.assertEqual(outcome(parser.feed(reply[-1])), truth)

    def test_a_cut_call_then_a_fresh_one(self):
        # the cut-off call is truncated where the fresh call opens; both come with the fresh call's close
        reply = OPEN + '{"name": "f", "arguments": {"code": "E-14' + GET + " and on"
        parser = StreamParser()
        self.assertEqual(parser.feed(reply[:-len(" and on") - 1]), [])
        self.assertEqual(outcome(parser.feed(">")), [("error", "truncated"), ("call", "get_incident", {"code": "E-1474"})])

    def test_the_demo(self):
        text = tool_core.demo_streamed_calls()
        self.assertIsInstance(text, tool_core.DemoText)
        reply = tool_core.STREAMED_REPLY
        close_chunks = [(reply.index(CLOSE) + len(CLOSE) - 1) // 16 + 1, (reply.rindex(CLOSE) + len(CLOSE) - 1) // 16 + 1]
        chunks = -(-len(reply) // 16)
        self.assertEqual(close_chunks, [8, 14])
        self.assertIn(f"get_incident is ready at chunk 8 of {chunks} and get_substation at chunk 14", text)
        rows = {line.split()[0]: line for line in text.splitlines() if line[:1].isdigit()}
        self.assertIn('get_incident(code="E-1474")', rows["8"])
        self.assertIn('get_substation(substation_id="SS-218")', rows["14"])
        self.assertEqual([n for n, line in rows.items() if "get_incident(" in line or "get_substation(" in line],
                         ["8", "14"])  # each reported once
        self.assertIn("spans and all: yes.", text)
        self.assertIn("comes in chunk 7 and\nsettles nothing; the call comes in chunk 9", text)  # case 7, by hand
        self.assertIn("close() reports error: truncated", text)


class WaitsWhenItMust(unittest.TestCase):
    """What the whole reply's verdict may still depend on is not reported early."""

    # the first call's string quotes the second tag; the second call is still open when the text so far ends
    START = OPEN + '{"s": "a' + OPEN + '{"name": "g", "arguments": {"u": "' + CLOSE

    def test_the_verdict_can_hang_on_text_after_the_close(self):
        cases = [  # (what follows, the items by hand from 6b's rules E3 and E4)
            ('"}}' + CLOSE, [("error", "truncated"), ("call", "g", {"u": CLOSE})]),  # the second call is good
            ("", [("error", "invalid_json")]),  # it never closes: its tag is text in the first call's string
            (" and more", [("error", "invalid_json")]),
        ]
        for more, expected in cases:
            with self.subTest(more=more):
                parser = StreamParser()
                self.assertEqual(parser.feed(self.START), [])
                items = parser.feed(more) + parser.close()
                self.assertEqual(outcome(items), expected)
                self.assertEqual(items, parse_tool_calls(self.START + more).items)

    def test_what_only_the_end_decides(self):
        cases = [  # (reply, its one item by hand): each could still become a call, until the reply ends
            (OPEN + '{"name": "f", "arguments": {"code": "E-14', "truncated"),
            (OPEN + '{"name": "f", "arguments": {}}', "truncated"),
            (OPEN + '{"name": "f", "arguments": {"n": 1e-', "truncated"),
            (OPEN + '{"name": "f", "arguments": {"s": "<tool_call>"}, }' + CLOSE, "invalid_json"),  # E3
        ]
        for reply, kind in cases:
            with self.subTest(reply=reply):
                parser = StreamParser()
                self.assertEqual(parser.feed(reply), [])
                (item,) = parser.close()
                self.assertIsInstance(item, ParseError)
                self.assertEqual((item.kind, item.span), (kind, (0, len(reply))))

    def test_a_refused_number_may_go_on(self):
        # loads_strict refuses 1e999 without saying where; the text so far ends in it, and it goes on as 1e9999
        start = OPEN + '{"name": "f", "arguments": {"s": "' + CLOSE + '", "n": 1e999'
        parser = StreamParser()
        self.assertEqual(parser.feed(start), [])
        (item,) = parser.feed("9}}" + CLOSE)
        self.assertEqual((item.kind, item.span), ("invalid_json", (0, start.index(CLOSE) + len(CLOSE))))  # E8
        self.assertIn("the number 1e9999 is too large", item.message)


class NearTheRecursionLimit(unittest.TestCase):
    def test_the_same_kind_and_span(self):
        # tool_core 6c, subtle: about 990 levels deep, the decoder's verdict hangs on the caller's stack, so the
        # message may be E7's or E8's; the kind and the span are the same
        for depth in range(980, 1000, 2):
            text = OPEN + "[" * depth + "]" * depth + CLOSE
            (item,) = streamed([text[:depth], text[depth:]])[0]
            self.assertEqual((item.kind, item.span), ("invalid_json", (0, len(text))), depth)


class BadInput(unittest.TestCase):
    def test_a_chunk_must_be_a_str(self):
        for chunk, words in [(b"<tool_call>", ["bytes", "decode"]), (None, ["NoneType"]), (42, ["int"]),
                             (["<tool_call>"], ["list"])]:
            with self.subTest(chunk=chunk):
                with self.assertRaises(TypeError) as caught:
                    StreamParser().feed(chunk)
                for word in ["str"] + words:
                    self.assertIn(word, str(caught.exception))

    def test_nothing_after_close(self):
        parser = StreamParser()
        self.assertEqual(parser.feed(""), [])
        self.assertEqual(parser.close(), [])
        with self.assertRaisesRegex(ValueError, r"feed\(\) after close\(\)"):
            parser.feed("more")
        with self.assertRaisesRegex(ValueError, r"close\(\) was already called"):
            parser.close()

    def test_an_empty_reply(self):
        parser = StreamParser()
        self.assertEqual((parser.close(), parser.text, parser.take_text()), ([], "", ""))


class Linear(unittest.TestCase):
    """The work stays linear in the reply, by mechanism: `scanned` counts what the attempts to judge a call read."""

    def test_a_long_reply_one_character_at_a_time(self):
        reply = "".join(f"Step {n}: checking. " + call_text("get_incident", {"code": f"E-{n}", "note": "x" * 200})
                        for n in range(40))
        parser = StreamParser()
        items = [item for ch in reply for item in parser.feed(ch)] + parser.close()
        self.assertEqual(items, parse_tool_calls(reply).items)
        self.assertLessEqual(parser.scanned, 2 * len(reply))  # each call judged about once, at its close

    def test_one_string_quoting_the_close_tag_over_and_over(self):
        # while the string runs on, a quoted </tool_call> cannot settle the call: one look at the first, then none
        # until a '"' has come; the next look is at its own close, which reports it
        reply = call_text("create_ticket", {"log": ("y" * 40 + CLOSE) * 400})
        parser = StreamParser()
        items = [item for ch in reply for item in parser.feed(ch)]
        self.assertEqual(items, parse_tool_calls(reply).items)
        self.assertEqual(parser.close(), [])
        self.assertLessEqual(parser.scanned, 3 * len(reply))

    def test_many_strings_each_quoting_the_close_tag(self):
        # each string closes and the next quotes </tool_call> again: the budget keeps the looks linear, and the
        # call may come after its close (here at close(): the reply ends with it)
        reply = call_text("create_ticket", {f"k{n}": CLOSE for n in range(400)})
        parser = StreamParser()
        items = [item for ch in reply for item in parser.feed(ch)] + parser.close()
        self.assertEqual(items, parse_tool_calls(reply).items)
        self.assertLessEqual(parser.scanned, (StreamParser.BUDGET + 2) * len(reply))


if __name__ == "__main__":
    unittest.main()
