"""Demo scripts run as subprocesses in the background, so that a test module's script runs overlap its other tests.

    RUNS = ScriptRuns()

    def setUpModule():
        RUNS.start("seed 1", SCRIPT, "--seed", "1", cwd=ROOT, hashseed="0")

    def tearDownModule():
        RUNS.stop()

    code, out, err = RUNS.result("seed 1")   # waits for that run; later calls return the same triple
"""
import os
import subprocess
import sys
from pathlib import Path


class ScriptRuns:
    """Named runs of `python3 script args...`, each started at once and read when a test first asks for it."""

    def __init__(self):
        self._running: dict[object, subprocess.Popen] = {}
        self._done: dict[object, tuple[int, str, str]] = {}

    def start(self, key: object, script: str | Path, *args: str, cwd: str | Path, hashseed: str | None = None) -> None:
        """Start a run; a PYTHONHASHSEED of its own makes output that depends on set or dict order show up."""
        env = os.environ if hashseed is None else dict(os.environ, PYTHONHASHSEED=hashseed)
        self._running[key] = subprocess.Popen([sys.executable, str(script), *args], cwd=cwd, env=env,
                                              encoding="utf-8", stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def result(self, key: object, timeout: float = 60) -> tuple[int, str, str]:
        """Return (returncode, stdout, stderr) of the run started under `key`, waiting for it the first time."""
        if key not in self._done:
            out, err = self._running[key].communicate(timeout=timeout)
            self._done[key] = (self._running[key].returncode, out, err)
        return self._done[key]

    def stop(self) -> None:
        """Kill the runs no test read, and close every pipe."""
        for process in self._running.values():
            if process.poll() is None:
                process.kill()
            process.communicate()
