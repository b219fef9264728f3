"""The lab's costlier results, computed once per test process and shared by the test files that read them.

Each is a pure function of its arguments (the pipelines and demos are seeded), so sharing changes nothing a test
sees as long as no test changes what it is given: treat every value here as read-only. A test that checks that a
computation is deterministic calls the lab itself for its second copy (Pipeline.test_sweep_is_deterministic).
"""
import functools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import toolformer_lab as tl  # noqa: E402

# --- scripts/01 and 02: toolformer_lab ---


@functools.cache
def toolformer_pipeline(seed: int = 0, content_only: bool = True) -> tl.ToolformerRun:
    return tl.toolformer_pipeline(seed, content_only=content_only)


@functools.cache
def held_out_texts(seed: int = 1) -> list[tl.Text]:
    return tl.toolformer_texts(seed, held_out=True)


@functools.cache
def retrain(seed: int, tau: float | None) -> tl.Retrained:
    """Step 4 on seed's pipeline, measured on the held-out texts of seed + 1 (as demo_retrain measures it)."""
    return tl.retrain(toolformer_pipeline(seed), tau, held_out_texts(seed + 1))


@functools.cache
def demo_retrain(seed: int, tau: float) -> str:
    return tl.demo_retrain(toolformer_pipeline(seed), tau)


@functools.cache
def demo_candidates(seed: int, tau: float) -> str:
    return tl.demo_candidates(toolformer_pipeline(seed), tau)


@functools.cache
def demo_threshold_sweep(seed: int = 0) -> str:
    return tl.demo_threshold_sweep(toolformer_pipeline(seed))


@functools.cache
def demo_tool_use(seed: int, tau: float) -> str:
    return tl.demo_tool_use(toolformer_pipeline(seed), tau)


@functools.cache
def demo_too_weak(seed: int, tau: float) -> str:
    return tl.demo_too_weak(toolformer_pipeline(seed), tau)


@functools.cache
def demo_cant_compute(seed: int = 0) -> str:
    return tl.demo_cant_compute(seed)



@functools.cache
def demo(name: str) -> str:
    """A demo of toolformer_lab that takes no argument (demo_toolken, demo_cant_see, ...), computed once."""
    return getattr(tl, name)()


# --- scripts/06: service_env's mini tau-bench ---


@functools.cache
def demo_tau(seed: int = 0) -> str:
    import service_env
    return service_env.demo_tau(seed)


@functools.cache
def demo_halved(seed: int = 0) -> str:
    import service_env
    return service_env.demo_halved(seed)


# --- demos of tool_core and interfaces that several test files read ---


@functools.cache
def demo_parallel_turns() -> str:
    import tool_core
    return tool_core.demo_parallel_turns()


@functools.cache
def demo_four_ways() -> str:
    import interfaces
    return interfaces.demo_four_ways()
