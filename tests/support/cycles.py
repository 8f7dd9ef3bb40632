"""What a piece of work leaves in reference cycles: run it once as a warm-up (what a first use
sets up for good is not garbage), then again with the collector off and `gc.DEBUG_SAVEALL`, and
collect once; the objects found are what only the cyclic collector could have freed."""

from __future__ import annotations

import collections
import gc
from collections.abc import Awaitable, Callable

import trio
import trio.testing

QUIET_S = 0.05
"""How long every task must stay blocked before and after a case: nothing else runs meanwhile."""


async def cycles_left_by(case: Callable[[], Awaitable[object]]) -> list[object]:
    """The objects `case` left in reference cycles (run once before, untimed, as a warm-up)."""
    await case()
    await trio.testing.wait_all_tasks_blocked(cushion=QUIET_S)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        await case()
        await trio.testing.wait_all_tasks_blocked(cushion=QUIET_S)
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def described(garbage: list[object]) -> str:
    kinds = collections.Counter(type(o).__qualname__ for o in garbage)
    functions = collections.Counter(o.__qualname__ for o in garbage if callable(o) and hasattr(o, "__qualname__"))
    frames = collections.Counter(f"{o.f_code.co_filename}:{o.f_code.co_name}" for o in garbage if type(o).__name__ == "frame")
    return f"{len(garbage)} objects in cycles: {dict(kinds.most_common(12))}; functions {dict(functions)}; frames {dict(frames)}"

