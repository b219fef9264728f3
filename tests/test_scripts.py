"""Every numbered demo script, in one table: it runs, --help works, a usage error is one, --seed (where the script
has one) changes the sections it should and reaches the lab, the same bytes from any working directory; and
scripts/run_all.py lists them all and exits non-zero when one fails.

The subprocess runs are tests/script_runs.py's table (one run per script and arguments for the whole suite, shared
with the files that check each script's figures); --help, usage errors and where the seed goes are checked in
process. .ci/run runs scripts/run_all.py itself (tests/test_readme.py checks that it does).
"""
import argparse
import contextlib
import io
import runpy
import shutil
import sys
import tempfile
import unittest
from pathlib import Path
from typing import NamedTuple
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # for script_runs, however the tests are started

import bfcl_lab  # noqa: E402
import interfaces  # noqa: E402
import script_runs  # noqa: E402
import service_env  # noqa: E402
import tool_catalog  # noqa: E402
import tool_core  # noqa: E402
import toolformer_lab  # noqa: E402
from script_runs import SCRIPTS, in_process, result, sections  # noqa: E402


class Row(NamedTuple):
    help_says: tuple[str, ...]  # what --help shows besides "usage:" (and --seed, when seeded)
    seeded: tuple[str, ...] = ()  # the sections whose text --seed changes ("Demo 2" for "Demo 2. ...")
    reaches: tuple[str, ...] = ()  # the lab functions that are handed the seed


TABLE = {
    "01_why_tools.py": Row(("multiplication",), ("Demo 1",), ("toolformer_lab.demo_cant_compute",)),
    "02_toolformer.py": Row(("--tau",), ("Demo 1", "Demo 2", "Demo 3", "Demo 5"), ("toolformer_lab.toolformer_pipeline",)),
    "03_harness.py": Row(("no --seed",)),
    "04_interfaces.py": Row(("MCP",)),
    "05_many_tools.py": Row(("--scale", "Demo 5"), ("Demo 2", "Demo 3", "Demo 5"),
                            ("tool_catalog.demo_all_in_context", "tool_catalog.demo_retrieval",
                             "tool_catalog.demo_deferred")),
    "06_evaluation.py": Row(("tau-bench", "Demo 1", "tau2-bench"), ("Demo 2", "Demo 3", "Demo 4", "Demo 5", "Demo 6"),
                            ("service_env.demo_tau", "service_env.demo_failure_modes", "service_env.demo_halved",
                             "tool_catalog.demo_toolbench", "service_env.demo_dual_control")),
    "07_real_llm.py": Row(("--toy", "--base-url", "--model", "--native", "--max-tokens", "--timeout")),
    "08_constrained_decoding.py": Row(("--timings",), ("Demo 1", "Demo 4", "Demo 5", "Demo 6"),
                                      ("toolformer_lab.constrained_lab",)),
    "09_design_and_trust.py": Row(("simulated caller",), ("Demo 1",), ("interfaces.demo_tool_descriptions",)),
    "10_under_the_hood.py": Row(("coupling rule", "tool_choice")),
    "11_code_and_skills.py": Row(("sandbox", "never eval", "progressive disclosure")),
}
LAB = (toolformer_lab, tool_core, tool_catalog, service_env, bfcl_lab, interfaces)

script_runs.prefetch(*TABLE)
script_runs.queue_command(str(SCRIPTS / "run_all.py"), "--list", closed_stdout=True)
_RUN_ALL = tempfile.TemporaryDirectory(prefix="run-all-")


def setUpModule():
    """A copy of run_all.py beside two numbered scripts, the first of which fails; started now, read by RunAll."""
    folder = Path(_RUN_ALL.name) / "scripts"
    folder.mkdir()
    shutil.copy(SCRIPTS / "run_all.py", folder)
    for name, body in (("01_broken.py", "raise SystemExit(3)"), ("02_fine.py", "print('two')"),
                       ("helper.py", "raise SystemExit(4)")):  # not numbered: not run
        (folder / name).write_text(body + "\n", encoding="utf-8")
    script_runs.queue_command(str(folder / "run_all.py"), cwd=Path(_RUN_ALL.name))


def tearDownModule():
    _RUN_ALL.cleanup()


def short(title: str) -> str:
    """'Demo 2. All tools in context' -> 'Demo 2'; a title without a number stays whole."""
    return title.split(".")[0] if title.startswith("Demo ") else title


class EveryScript(unittest.TestCase):
    def test_the_table_is_every_numbered_script_and_says_which_take_a_seed(self):
        self.assertEqual(list(TABLE), script_runs.NUMBERED)
        for script, row in TABLE.items():
            with self.subTest(script=script):
                self.assertEqual(script_runs.has_seed(script), bool(row.seeded))
                self.assertEqual(bool(row.seeded), bool(row.reaches))

    def test_it_runs(self):
        for script in TABLE:
            with self.subTest(script=script):
                code, out, err = result(script)
                self.assertEqual((code, err), (0, ""))
                self.assertTrue(out.startswith("=== "), out[:200])
                self.assertGreater(len(sections(out)), 0)

    def test_the_same_bytes_from_any_directory(self):
        # "root": a relative path from the repository root; "elsewhere": an absolute path from an empty folder, with
        # another hash seed, and --seed 0 said where there is one (so the default is 0, as --help says)
        for script in TABLE:
            with self.subTest(script=script):
                here, there = result(script, "root"), result(script, "elsewhere")
                self.assertEqual((there.returncode, there.stderr), (0, ""))
                self.assertEqual(here.stdout, there.stdout)

    def test_help(self):
        for script, row in TABLE.items():
            with self.subTest(script=script):
                code, out, err = in_process(SCRIPTS / script, "--help")
                self.assertEqual((code, err), (0, ""))
                self.assertTrue(out.startswith(f"usage: {script} [-h]"), out[:200])
                self.assertEqual("--seed SEED" in out, bool(row.seeded))
                for words in row.help_says + ("--vs-handout [{text,markdown}]", "handout 001"):
                    self.assertIn(words, " ".join(out.split()))

    def test_vs_handout_prints_the_crosswalk_not_the_demos(self):
        code, out, err = in_process(SCRIPTS / "03_harness.py", "--vs-handout")
        self.assertEqual((code, err), (0, ""))
        self.assertNotIn("=== Demo", out)
        self.assertEqual(out.split()[:5], ["demo", "handout", "001", "figure", "handout"])
        starts = [line.split()[0] for line in out.splitlines()[2:] if line[:1].isdigit()]  # a row's first line
        self.assertEqual(starts, [str(f.demo) for f in tool_core.HANDOUT_03])
        # markdown: the same rows as README holds them (tests/test_readme.py checks them for scripts 01 to 07)
        out = io.StringIO()
        with mock.patch.object(sys, "stdout", out):
            tool_core.print_demos([("Demo 1. x", lambda: "the figure: 42")], tool_core.vs_handout(
                "markdown", "99", [tool_core.HandoutFigure(1, "§0", "a figure", "41", r"the figure: (\d+)", "why")]))
        self.assertEqual(out.getvalue().splitlines()[2:], ["| 99 | 1 | §0 | a figure | 41 | 42 | why |"])
        code, out, err = in_process(SCRIPTS / "08_constrained_decoding.py", "--vs-handout")
        self.assertEqual((code, err), (0, ""))
        self.assertIn("Handout 001 describes scripts 01 to 07; script 08 comes from lectures 002 and 003", out)

    def test_a_usage_error(self):
        for script in TABLE:
            with self.subTest(script=script):
                code, out, err = in_process(SCRIPTS / script, "--no-such-flag")
                self.assertEqual((code, out), (2, ""))
                self.assertTrue(err.startswith(f"usage: {script} [-h]"), err[:200])
                self.assertTrue(err.endswith(f"{script}: error: unrecognized arguments: --no-such-flag\n"), err)

    def test_the_seed_changes_its_sections_and_no_other(self):
        for script, row in TABLE.items():
            if not row.seeded:
                continue
            with self.subTest(script=script):
                code, out, err = result(script, "seed 1")
                self.assertEqual((code, err), (0, ""))
                one, zero = sections(out), sections(result(script, "root").stdout)
                self.assertEqual(list(one), list(zero))
                self.assertEqual(tuple(short(t) for t in zero if one[t] != zero[t]), row.seeded)

    def test_the_seed_reaches_the_lab(self):
        # the script runs here with --seed 41, every demo_* of the lab and the functions the table names replaced by
        # recorders (so nothing is computed): the functions that were handed 41 are the table's, each exactly once
        for script, row in TABLE.items():
            if not row.seeded:
                continue
            with self.subTest(script=script), contextlib.ExitStack() as stack:
                recorders = {}
                for module in LAB:
                    for name in dir(module):
                        qualified = f"{module.__name__}.{name}"
                        if name.startswith("demo_") or qualified in row.reaches:
                            recorders[qualified] = stack.enter_context(
                                mock.patch.object(module, name, mock.Mock(return_value="")))
                code, out, err = in_process(SCRIPTS / script, "--seed", "41")
                self.assertEqual((code, err), (0, ""))
                handed = sorted(name for name, recorder in recorders.items() for call in recorder.call_args_list
                                if 41 in call.args or 41 in call.kwargs.values())
                self.assertEqual(handed, sorted(row.reaches))


class NewDemos(unittest.TestCase):
    """Where a script hands a demo what its flags say: script 02's demo 6 gets the seeded run; script 07 says which flags
    do nothing offline. The lab is replaced by recorders, so nothing is computed."""

    def test_script_02_demo_6_gets_the_seeded_run_and_tau(self):
        run = object()
        with contextlib.ExitStack() as stack:
            for name in dir(toolformer_lab):
                if name.startswith("demo_"):
                    stack.enter_context(mock.patch.object(toolformer_lab, name, mock.Mock(return_value="")))
            pipeline = stack.enter_context(mock.patch.object(toolformer_lab, "toolformer_pipeline",
                                                             mock.Mock(return_value=run)))
            code, out, err = in_process(SCRIPTS / "02_toolformer.py", "--seed", "41", "--tau", "0.7")
            weak = toolformer_lab.demo_too_weak
        self.assertEqual((code, err), (0, ""))
        pipeline.assert_called_once_with(41)
        weak.assert_called_once_with(run, 0.7)
        self.assertIn("=== Demo 6. Tool use pays only once the model can use the result ===", out)

    def test_script_07_offline_part_3_sends_the_request_flags_to_the_stand_in(self):
        code, out, err = script_runs.command(*SCRIPT_07_FLAGS)
        self.assertEqual((code, err), (0, ""))
        lines = sections(out)["Demo 3. The nine BFCL questions, graded"].splitlines()
        self.assertEqual(lines[:2], [
            "Offline: the stand-in answers with model A's replies of demo 1, written out in advance: --model and "
            "--max-tokens reach it but change no reply (they apply to a real model, without --toy).",
            "Model: m, through native tool calling. No SDK to install: a real API is called with plain HTTP (urllib)."])
        # model A passes 7 of 9 (demo 1); one call per reply takes the second call from the two parallel questions
        self.assertIn("AST 5/9, execution 6/9.", out)
        for question in ("parallel_0", "parallel_multiple_0"):
            self.assertEqual(next(line.split() for line in lines if line.startswith(question))[1:3],
                             ["FAIL", "wrong_count"])

    def test_script_07_offline_notes_and_refusals(self):
        script = script_runs.load_script("07_real_llm.py")
        parser = argparse.ArgumentParser()
        for name, default in (("model", None), ("max_tokens", 512)):
            parser.add_argument("--" + name.replace("_", "-"), default=default)
        line = "Offline: the stand-in answers with model A's replies of demo 1, written out in advance"
        for (model, tokens, toy), note in [
                ((None, 512, False), "."), ((None, 512, True), "."),  # the default said again: nothing to note
                (("m", 512, False), ": --model reaches it but changes no reply (it applies to a real model, once "
                                    "ANTHROPIC_API_KEY, OPENAI_API_KEY, --api or --base-url names one)."),
                (("m", 9, True), ": --model and --max-tokens reach it but change no reply (they apply to a real model, "
                                 "without --toy).")]:
            with self.subTest(model=model, max_tokens=tokens, toy=toy):
                args = argparse.Namespace(model=model, max_tokens=tokens, toy=toy)
                self.assertEqual(script.offline_note(args, parser), line + note)
        for choice in ("required", "any", "add"):  # written replies cannot be forced: refused before anything runs
            with self.subTest(tool_choice=choice):
                code, out, err = in_process(SCRIPTS / "07_real_llm.py", "--native", "--tool-choice", choice)
                self.assertEqual((code, out), (2, ""))
                self.assertIn(f"cannot be forced to call a tool: --tool-choice {choice} needs a real model", err)


SCRIPT_07_FLAGS = (str(SCRIPTS / "07_real_llm.py"), "--part", "bfcl", "--toy", "--native", "--no-parallel",
                   "--model", "m", "--max-tokens", "9", "--timeout", "3")
script_runs.queue_command(*SCRIPT_07_FLAGS)


class RunAll(unittest.TestCase):
    def test_lists_every_numbered_script_in_order(self):
        code, out, err = in_process(SCRIPTS / "run_all.py", "--list")
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(out.split(), script_runs.NUMBERED)
        self.assertEqual(out.split()[:3], ["01_why_tools.py", "02_toolformer.py", "03_harness.py"])

    def test_a_failing_script_makes_it_exit_non_zero_after_running_the_rest(self):
        folder = Path(_RUN_ALL.name) / "scripts"
        code, out, err = script_runs.command(str(folder / "run_all.py"), cwd=Path(_RUN_ALL.name))
        self.assertEqual(code, 1, err)  # non-zero although the last script passed
        self.assertEqual([line for line in out.splitlines() if line.startswith("# ")],
                         ["# 01_broken.py", "# 02_fine.py"])  # in order, on past the failure, helper.py not run
        self.assertIn("\n!! 01_broken.py exited with status 3\n", out)
        self.assertIn("\ntwo\n", out)
        self.assertTrue(out.endswith("\n1 script(s) failed: 01_broken.py\n"), out[-200:])
        self.assertEqual([line.split(",")[0] for line in err.splitlines() if line],
                         ["[01_broken.py: FAILED", "[02_fine.py: ok"])

    def test_piped_into_head_it_ends_quietly(self):
        # `run_all.py --list | head`: head has gone before the first line; stdout goes to os.devnull, status 1, no
        # traceback
        self.assertEqual(script_runs.command(str(SCRIPTS / "run_all.py"), "--list", closed_stdout=True), (1, "", ""))


if __name__ == "__main__":
    unittest.main()
