"""Tests for the rule that a broken call never hides a later good one (tool_core.parse_tool_calls).

A malformed call may absorb a later <tool_call> that sits inside what looks like one of its
strings: right when that tag is text ({"s": "<tool_call>"}, }), wrong when it opens a real call.
The rule: inside the span of a broken call, a <tool_call> that starts a complete, valid, closed
call is reported as that call, and the broken call's error ends where it begins; every other
verdict stays as it was. Expected items and spans are worked out by hand from that rule; the
property test checks, on thousands of seeded random replies, that no well-formed closed call
outside a valid call's JSON is lost and that no call is invented, against an oracle written here
from the protocol (json.JSONDecoder on the rest of the text), not taken from the parser.
"""
import json
import random
import re
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tool_core import ParseError, ToolCall, parse_tool_calls  # noqa: E402

OPEN, CLOSE = "<tool_call>", "</tool_call>"
GET_TIME = OPEN + '{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}' + CLOSE  # 80 characters
F = OPEN + '{"name": "f", "arguments": {}}' + CLOSE  # 53 characters


def items(text: str) -> list[tuple]:
    """Reduce parser items to (kind or tool name, span)."""
    return [(i.name if isinstance(i, ToolCall) else i.kind, i.span) for i in parse_tool_calls(text).items]


# (label, text, expected (kind or name, span) items, expected prose outside the calls)
CASES = [
    # the issue's reply: the last call is well-formed and closed; the broken one before it ends where it opens
    ("the issue's reply", OPEN + OPEN + '{"name": "ge' + OPEN + GET_TIME + CLOSE,
     [("truncated", (0, 11)), ("truncated", (11, 45)), ("get_time", (45, 125))], CLOSE),
    ("one broken call, a quoted tag, then a good call", OPEN + '{"name": "ge' + OPEN + GET_TIME + CLOSE,
     [("truncated", (0, 34)), ("get_time", (34, 114))], CLOSE),
    ("two good calls hidden behind a quoted tag", OPEN + '{"s": "' + OPEN + "x" + GET_TIME + GET_TIME + CLOSE,
     [("truncated", (0, 30)), ("get_time", (30, 110)), ("get_time", (110, 190))], CLOSE),
    ("a good call right after an unfinished string", OPEN + '{"name": "ge' + GET_TIME,
     [("truncated", (0, 23)), ("get_time", (23, 103))], ""),
    ("a good call inside a string that closes later", OPEN + '{"s": "x' + GET_TIME + '"}' + CLOSE,
     [("truncated", (0, 19)), ("get_time", (19, 99))], '"}' + CLOSE),
    # neighbours that keep their verdicts: the later tag is text, not a call
    ("a quoted tag in a call that closes", OPEN + '{"name": "f", "arguments": {"s": "<tool_call>"}, }' + CLOSE,
     [("invalid_json", (0, 73))], ""),
    ("a quoted tag that opens a broken call", OPEN + '{"s": "' + OPEN + '{"name": 5}' + CLOSE + '"}' + CLOSE,
     [("invalid_json", (0, 52))], '"}' + CLOSE),  # the quoted call is bad_name, so the tag is text
    ("a quoted call with escaped quotes is text", OPEN + json.dumps({"name": "f", "arguments": {"s": GET_TIME}}) + CLOSE,
     [("f", (0, 150))], ""),
    ("a cut-off call, then a fresh one", OPEN + '{"name": "f", "arguments": {"code": "E-14' + F,
     [("truncated", (0, 52)), ("f", (52, 105))], ""),
    ("a good call after extra text", OPEN + '{"name": "f", "arguments": {}} thanks ' + F,
     [("truncated", (0, 49)), ("f", (49, 102))], ""),  # the prose is inside the truncated call's span
]


class HiddenCalls(unittest.TestCase):
    def test_cases_by_hand(self):
        for label, text, expected, prose in CASES:
            with self.subTest(label):
                self.assertEqual(items(text), expected)
                self.assertEqual(parse_tool_calls(text).text, prose)

    def test_the_issue_reply_in_full(self):
        text = CASES[0][1]
        result = parse_tool_calls(text)
        (call,) = result.calls
        self.assertEqual((call.name, call.arguments), ("get_time", {"tz": "Europe/Paris"}))
        cut = result.errors[1]
        self.assertEqual(cut.raw, OPEN + '{"name": "ge' + OPEN)  # it ends where the good call begins
        self.assertIn("the next <tool_call> opens inside the JSON", cut.message)
        self.assertEqual(result.outside, ["", "", "", CLOSE])

    def test_a_quoted_tag_stays_text_when_it_opens_no_good_call(self):
        for inner in ['{"name": "g"', "[1, 2]", '{"name": "g", "arguments": "x"}', "", "plain words"]:
            text = OPEN + '{"name": "f", "arguments": {"s": "' + OPEN + inner + '"}, }' + CLOSE
            with self.subTest(inner=inner):
                self.assertEqual([kind for kind, _ in items(text)], ["invalid_json"])


# --- The property: no good call lost, none invented ---

_FENCE_OPEN = re.compile(r"\s*(?:```[A-Za-z0-9_-]*[ \t]*\r?\n)?\s*")
_FENCE_CLOSE = re.compile(r"\s*(?:```)?\s*")


def _reject(*_):
    raise ValueError("not JSON for a call")


def _pairs(pairs):
    if len(dict(pairs)) < len(pairs):
        raise ValueError("duplicate key")
    return dict(pairs)


def _finite(text):
    if abs(float(text)) == float("inf"):
        raise ValueError("too large")
    return float(text)


ORACLE = json.JSONDecoder(parse_constant=_reject, parse_float=_finite, object_pairs_hook=_pairs)


def depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


def good_call_at(text: str, tag: int):
    """The protocol, read directly: the <tool_call> at `tag` opens a good call -> (name, arguments, end); else None."""
    body = _FENCE_OPEN.match(text, tag + len(OPEN)).end()
    try:
        value, json_end = ORACLE.raw_decode(text, body)
    except (ValueError, RecursionError):
        return None
    after = _FENCE_CLOSE.match(text, json_end).end()
    if not text.startswith(CLOSE, after) or not isinstance(value, dict) or depth(value) > 64:
        return None
    name, arguments = value.get("name"), value.get("arguments")
    if not isinstance(name, str) or not name.strip() or not isinstance(arguments, dict):
        return None
    return name, arguments, after + len(CLOSE)


PIECES = [GET_TIME, F, OPEN, OPEN, CLOSE, '"', '"', '{"s": "', '{"name": "ge', "x", " ", "}", '"}', "\\", "```json\n",
          "```", OPEN + '{"name": "f", "arguments": {"a": 1,}}' + CLOSE, '{"name": "h", "arguments": {}}']


def random_reply(rng: random.Random) -> str:
    text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 9)))
    for _ in range(rng.randint(0, 2)):  # a mutation: delete, insert or replace one character
        i = rng.randrange(len(text) + 1)
        text = text[:i] + rng.choice(['"', "{", "}", "<", ">", "/", " ", "a", ""]) + text[i + 1 - rng.randint(0, 1):]
    return text


class NoCallLostNoneInvented(unittest.TestCase):
    def test_random_replies(self):
        rng, failures, hidden = random.Random(31), [], 0
        for _ in range(5000):
            text = random_reply(rng)
            result = parse_tool_calls(text)
            calls = {call.span[0]: call for call in result.calls}
            for call in result.calls:  # none invented: each call is a good call at its tag, exactly
                if good_call_at(text, call.span[0]) != (call.name, call.arguments, call.span[1]):
                    failures.append((text, f"invented or misread {call}"))
            tag = text.find(OPEN)
            while tag >= 0:  # none lost: a good call's tag opens a call, or lies inside a valid call's JSON
                if good_call_at(text, tag) and tag not in calls:
                    if not any(c.span[0] < tag < c.span[1] for c in result.calls):
                        failures.append((text, f"good call at {tag} lost"))
                    hidden += 1
                tag = text.find(OPEN, tag + 1)
            for error in result.errors:  # a broken call never spans a good call's tag
                inside = [t for t in calls if error.span[0] < t < error.span[1]]
                if inside:
                    failures.append((text, f"{error.kind} {error.span} covers the call at {inside}"))
        if failures:
            shortest = sorted(failures, key=lambda f: len(f[0]))[:3]
            self.fail(f"{len(failures)} failures; the shortest:\n" + "\n".join(f"  {t!r}: {why}" for t, why in shortest))


if __name__ == "__main__":
    unittest.main()
