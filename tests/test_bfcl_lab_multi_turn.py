"""bfcl_lab section 6c: BFCL's multi-turn checker, run on two small made-up API classes.

The rules come from bfcl-eval's multi_turn_checker.py and multi_turn_utils.py (eval_checker/multi_turn_eval), and
the expected verdicts here are worked out by hand from them: after each turn with gold calls, the model's instances
must hold the gold instances' public state, and the gold calls' results must be among the model's results so far.
"""
import io
import json
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bfcl_lab  # noqa: E402


class Counter:
    """A made-up stateful API class: a count, and a private log the state check must not see."""

    def __init__(self):
        self.count, self._log = 0, []

    def _load_scenario(self, config: dict, long_context: bool = False) -> None:
        self.count = config.get("count", 0) + (1000 if long_context else 0)

    def add(self, n: int) -> dict:
        self.count += n
        self._log.append(n)
        return {"count": self.count}

    def read(self) -> dict:
        return {"count": self.count}

    def fail(self) -> str:
        raise ValueError("the counter is jammed")


class Notes:
    """A second class: its method names do not clash with Counter's."""

    def __init__(self):
        self.notes = []

    def _load_scenario(self, config: dict, long_context: bool = False) -> None:
        self.notes = list(config.get("notes", []))

    def write(self, text: str) -> str:
        self.notes.append(text)
        return f"noted: {text}"


CLASSES = {"Counter": Counter, "Notes": Notes}
ENTRY = {"id": "multi_turn_base_0", "involved_classes": ["Counter", "Notes"],
         "initial_config": {"Counter": {"count": 5}, "Notes": {"notes": ["start"]}}}
GOLD = [["add(n=1)", "write(text='one')"], ["read()"]]


def grade(model, gold=GOLD, entry=ENTRY, mode="prompt"):
    return bfcl_lab.grade_multi_turn(entry, gold, model, mode, classes=CLASSES)


class Checker(unittest.TestCase):
    def test_the_gold_calls_pass_and_each_turn_keeps_both_states(self):
        verdict, traces = grade([["[add(n=1), write(text='one')]"], ["[read()]"]])
        self.assertTrue(verdict.valid, verdict)
        self.assertEqual([t.model_results for t in traces], [['{"count": 6}', "noted: one"], ['{"count": 6}']])
        self.assertEqual(traces[0].model_state, {"Counter": {"count": 6}, "Notes": {"notes": ["start", "one"]}})
        self.assertEqual(traces[1].gold_state, traces[1].model_state)

    def test_a_different_state_fails_at_the_turn_it_appears(self):
        verdict, traces = grade([["[add(n=2), write(text='one')]"], ["[read()]"]])
        self.assertEqual((verdict.error_type, len(traces)), ("multi_turn:instance_state_mismatch", 1))
        self.assertIn("Counter", verdict.message)
        self.assertIn('{"count": {"model": 7, "ground_truth": 6}}', verdict.message)

    def test_a_missing_result_fails_the_response_check_even_with_the_same_state(self):
        verdict, traces = grade([["[write(text='one')]"], ["[write(text='x')]"]],
                                gold=[["write(text='one')"], ["read()", "write(text='x')"]])
        self.assertEqual(verdict.error_type, "multi_turn:execution_response_mismatch")
        self.assertEqual(traces[1].model_state, traces[1].gold_state)  # the state check passed
        self.assertIn('Missing: ["{\\"count\\": 5}"]', verdict.message)  # read()'s result, never fetched by the model

    def test_a_result_from_an_earlier_turn_counts(self):
        verdict, _ = grade([["[add(n=1)]", "[write(text='one'), read()]"], ["[write(text='x')]"]],
                           gold=[["add(n=1)", "write(text='one')"], ["read()", "write(text='x')"]])
        self.assertTrue(verdict.valid, verdict)  # read() in turn 0 already gave {"count": 6}

    def test_steps_that_do_not_decode_are_left_out_and_an_empty_turn_fails(self):
        verdict, _ = grade([["I will add one.", "[add(n=1), write(text='one')]"], ["Done, nothing more to do."]])
        self.assertEqual(verdict.error_type, "multi_turn:empty_turn_model_response")
        self.assertEqual(verdict.message, "Model response list is empty for turn 1")

    def test_a_turn_without_gold_calls_is_not_checked_but_its_calls_still_run(self):
        gold = [["add(n=1)", "write(text='one')"], [], ["read()"]]
        verdict, traces = grade([["[add(n=1), write(text='one')]"], ["[add(n=3)]"], ["[read()]"]], gold=gold)
        self.assertEqual(verdict.error_type, "multi_turn:instance_state_mismatch")  # turn 1's add shows at turn 2
        self.assertEqual((traces[1].verdict.valid, traces[2].model_state["Counter"]), (True, {"count": 9}))

    def test_the_turn_count_and_the_shape(self):
        self.assertEqual(grade([["[add(n=1)]"]])[0].error_type, "multi_turn:force_terminated")
        self.assertEqual(grade("add(n=1)")[0].error_type, "multi_turn:inference_error")

    def test_failures_become_results_as_bfcl_writes_them(self):
        instances = {"Counter": Counter(), "Notes": Notes()}
        calls = [{"fail": {}}, {"fly": {}}, {"remove": {"path": "/"}}, {"add": {"m": 1}}, {"read": {}}]
        self.assertEqual(bfcl_lab.run_calls(instances, calls), [
            "Error during execution: the counter is jammed", "Error during execution: name 'fly' is not defined",
            "Error during execution: Function call remove is not allowed.",
            "Error during execution: Counter.add() got an unexpected keyword argument 'm'", '{"count": 0}'])

    def test_a_gold_call_is_read_as_literals_with_its_positional_values(self):
        self.assertEqual(bfcl_lab.gold_call("add(2)"), ("add", [2], {}))
        self.assertEqual(bfcl_lab.gold_call("write(text='a, b', )"), ("write", [], {"text": "a, b"}))
        self.assertEqual(bfcl_lab.run_calls({"Counter": Counter()}, [bfcl_lab.gold_call("add(2)")]), ['{"count": 2}'])
        for text in ("add(n=len('ab'))", "os.system('x')", "1 + 2"):
            with self.subTest(text), self.assertRaises(ValueError):
                bfcl_lab.gold_call(text)  # a name or an expression in it is never evaluated

    def test_function_calling_results_and_the_long_context_flag(self):
        model = [[[{"add": '{"n": 1}'}, {"write": '{"text": "one"}'}]], [[{"read": "{}"}]]]
        self.assertTrue(grade(model, mode="fc")[0].valid)
        long_entry = ENTRY | {"id": "multi_turn_long_context_0"}
        _, traces = grade([["[add(n=1), write(text='one')]"], ["[read()]"]], entry=long_entry)
        self.assertEqual(traces[0].gold_state["Counter"], {"count": 1006})  # the scenario loaded with long_context

    def test_an_entry_with_classes_not_ported_is_named(self):
        self.assertEqual(bfcl_lab.unported(ENTRY | {"involved_classes": ["Counter", "TravelAPI"]}, CLASSES),
                         ["TravelAPI"])


class Ports(unittest.TestCase):
    """Appendix M's ports, on calls whose outcome bfcl's class documents (ticket_api.py, gorilla_file_system.py)."""

    def test_the_ticket_desk(self):
        desk = bfcl_lab.MULTI_TURN_CLASSES["TicketAPI"]()
        desk._load_scenario({"ticket_queue": [], "ticket_counter": 1, "current_user": None})
        self.assertEqual(desk.create_ticket(title="x"), {"error": "User not authenticated. Please log in to create a "
                                                                  "ticket."})
        self.assertEqual(desk.ticket_login(username="ada", password="pw"), {"success": True})
        self.assertEqual(desk.create_ticket(title="Printer", priority=6),
                         {"error": "Invalid priority. Priority must be between 1 and 5."})
        self.assertEqual(desk.create_ticket(title="Printer", description="jammed", priority=2), {
            "id": 1, "title": "Printer", "description": "jammed", "status": "Open", "priority": 2, "created_by": "ada"})
        self.assertEqual(desk.close_ticket(ticket_id=1), {"status": "Ticket 1 has been closed successfully."})
        self.assertEqual(desk.close_ticket(ticket_id=1), {"error": "Ticket with ID 1 is already closed."})
        self.assertEqual(desk.close_ticket(ticket_id=9), {"error": "Ticket with ID 9 not found."})
        self.assertEqual((desk.ticket_counter, [t["status"] for t in desk.ticket_queue]), (2, ["Closed"]))

    def test_the_file_system(self):
        files = bfcl_lab.MULTI_TURN_CLASSES["GorillaFileSystem"]()
        files._load_scenario(bfcl_lab.DEMO_ENTRY["initial_config"]["GorillaFileSystem"])
        self.assertEqual(files.cat(file_name="report.txt"), {"file_content": "Q3 budget draft"})
        files.mkdir(dir_name="archive")
        files.mv(source="report.txt", destination="archive")
        self.assertEqual(files.ls(), {"current_directory_content": ["archive"]})
        self.assertEqual(files.cd(folder="archive"), {"current_working_directory": "archive"})
        self.assertEqual(files.ls(), {"current_directory_content": ["report.txt"]})

    def test_eight_classes_less_any_not_yet_ported_and_each_loads_its_default(self):
        bfcl = ["GorillaFileSystem", "MathAPI", "MessageAPI", "TwitterAPI", "TicketAPI", "TradingBot", "TravelAPI",
                "VehicleControlAPI"]
        self.assertLessEqual(set(bfcl_lab.MULTI_TURN_CLASSES), set(bfcl))
        for name, cls in bfcl_lab.MULTI_TURN_CLASSES.items():
            with self.subTest(name):
                instance = cls()
                if name not in bfcl_lab.STATELESS_CLASSES:
                    instance._load_scenario({}, long_context=False)
                self.assertTrue(bfcl_lab.public_state({name: instance})[name] or name in bfcl_lab.STATELESS_CLASSES)


class ResultFolder(unittest.TestCase):
    """A multi-turn category in a result folder: graded entry by entry, its score file in bfcl's layout."""

    def test_graded_and_written_as_bfcl_writes_it(self):
        with tempfile.TemporaryDirectory() as root:
            root = Path(root)
            question = bfcl_lab.DEMO_ENTRY | {"id": "multi_turn_base_0", "function": [{"name": "cat"}]}
            write = lambda path, rows: (path.parent.mkdir(parents=True, exist_ok=True),  # noqa: E731
                                        path.write_text("\n".join(json.dumps(r) for r in rows) + "\n"))
            write(root / "data" / "BFCL_v4_multi_turn_base.json", [question, question | {"id": "multi_turn_base_1"}])
            write(root / "data" / "possible_answer" / "BFCL_v4_multi_turn_base.json",
                  [{"id": f"multi_turn_base_{i}", "ground_truth": bfcl_lab.DEMO_GOLD} for i in (0, 1)])
            gold_as_model = [["[" + ", ".join(turn) + "]"] for turn in bfcl_lab.DEMO_GOLD]
            write(root / "result" / "some-model" / "multi_turn" / "BFCL_v4_multi_turn_base_result.json",
                  [{"id": "multi_turn_base_0", "result": bfcl_lab.DEMO_MODEL},
                   {"id": "multi_turn_base_1", "result": gold_as_model}])
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                code = bfcl_lab.main(["grade", "--result-dir", str(root / "result"), "--data-dir", str(root / "data"),
                                      "--score-dir", str(root / "score")])
            self.assertEqual((code, err.getvalue()), (0, ""))
            lines = (root / "score" / "some-model" / "multi_turn" / "BFCL_v4_multi_turn_base_score.json").read_text()
            summary, failed = [json.loads(line) for line in lines.splitlines()]
            self.assertEqual(summary, {"accuracy": 0.5, "correct_count": 1, "total_count": 2})
            self.assertEqual(list(failed), ["id", "model_name", "test_category", "valid", "error", "prompt",
                                            "model_result_raw", "model_result_decoded", "possible_answer"])
            self.assertEqual(failed["error"]["error_type"], "multi_turn:instance_state_mismatch")
            self.assertNotIn("function", failed["prompt"])
            # bfcl's data_multi_turn.csv: the overall is the plain mean of the four, a category not graded counting 0
            self.assertEqual((root / "score" / "data_multi_turn.csv").read_text().splitlines(), [
                "Rank,Model,Multi Turn Overall Acc,Base,Miss Func,Miss Param,Long Context",
                "1,some-model,12.50%,50.00%,N/A,N/A,N/A"])
            self.assertIn("Multi Turn Overall Acc 12.50%", out.getvalue())


class DemoSeven(unittest.TestCase):
    """scripts/06_evaluation.py's demo 7 (bfcl_lab.demo_multi_turn), each figure from the grading it shows."""

    @classmethod
    def setUpClass(cls):
        cls.text = str(bfcl_lab.demo_multi_turn())
        cls.verdict, cls.traces = bfcl_lab.grade_multi_turn(bfcl_lab.DEMO_ENTRY, bfcl_lab.DEMO_GOLD,
                                                            bfcl_lab.DEMO_MODEL, "prompt", through=True)

    def test_each_turn_s_check(self):
        rows = [line.split()[-1] for line in self.text.splitlines() if line[:1].isdigit()]
        self.assertEqual(rows, ["ok", "instance_state_mismatch", "instance_state_mismatch", "ok"])
        self.assertEqual(rows, [t.verdict.error_type.split(":")[-1] or "ok" for t in self.traces])

    def test_bfcl_stops_at_the_copy_and_the_end_states_are_equal(self):
        self.assertEqual(self.verdict.error_type, "multi_turn:instance_state_mismatch")
        stopped = bfcl_lab.grade_multi_turn(bfcl_lab.DEMO_ENTRY, bfcl_lab.DEMO_GOLD, bfcl_lab.DEMO_MODEL, "prompt")[1]
        self.assertEqual(len(stopped), 2)  # bfcl's own run ends at turn 1
        self.assertIn("The state first differs after turn 1:", self.text)
        self.assertIn("the model's files: report.txt in /alex, report.txt in /alex/archive", self.text)
        self.assertIn("the gold's files:  report.txt in /alex/archive", self.text)
        self.assertEqual(self.traces[-1].model_state, self.traces[-1].gold_state)  # the rm of turn 3 tidied up
        self.assertIn("The final states are equal: yes.", self.text)


if __name__ == "__main__":
    unittest.main()
