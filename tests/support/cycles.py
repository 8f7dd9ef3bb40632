"""What a piece of work leaves in reference cycles: run it once as a warm-up (what a first use
sets up for good is not garbage), then again with the collector off and `gc.DEBUG_SAVEALL`, and
collect once; the objects found are what only the cyclic collector could have freed.

`gc.DEBUG_SAVEALL` does not see every cycle: one through a generator or a coroutine is freed
by finalizing it (closing the generator frees its frame, and the rest goes by reference
counting), which neither saves it nor counts it in `gc.collect()`'s answer. So the objects
every collection frees are counted as well, by their identities before and after it.

An object that refers to nothing the collector tracks is left out of that count: it can be in
no cycle, and a cycle that freed it is counted by its own members (CI once counted 6
`urllib.parse.SplitResult`s of strings, freed by something other than the collection). So are
the entries of the ABCs' caches (`isinstance` on an ABC remembers the classes it saw, each as
a weak reference whose callback is `_abc`'s `_destroy`): the ABC machinery drops them itself
when its caches are invalidated, which a collection can set off (seen when another test file
ran beside this one: 6 such pairs, and no cycle). And a
measurement during which a thread of the test process ended is taken again: the thread frees
its own objects meanwhile (trio's thread cache retires a worker left idle for 10 s)."""

from __future__ import annotations

import collections
import gc
import threading
import types
import weakref
from collections.abc import Awaitable, Callable

import attrs
import trio
import trio.testing

MEASURES = 3
"""Measurements at most, while each has a thread end during it."""
QUIET_S = 0.05
"""How long every task must stay blocked before and after a case: nothing else runs meanwhile."""


@attrs.frozen
class Freed:
    """An object the collection freed without saving it: its type's name is all that is left."""

    kind: str


def _tracked() -> dict[int, str]:
    """Every object the collector tracks that could be in a cycle, by identity (and that stays
    tracked until it is freed: a collection untracks some tuples and dicts)."""
    found = {}
    for o in gc.get_objects():  # a loop, not a comprehension: that would be a function of its own
        if not _may_be_untracked(o) and not _a_leaf(o) and not _an_abc_cache_entry(o):
            found[id(o)] = _name(o)
    return found


def _an_abc_cache_entry(o: object) -> bool:
    """A weak reference in an ABC's cache, or the `_destroy` callback it holds."""
    if type(o) is weakref.ref:
        o = o.__callback__
    return isinstance(o, types.BuiltinMethodType) and o.__name__ == "_destroy" and type(o.__self__) is weakref.ref


def _a_leaf(o: object) -> bool:
    """Refers to nothing the collector tracks (a named tuple of strings, say): in no cycle.
    Its class does not count: a class cannot be freed while an instance keeps it."""
    return not any(gc.is_tracked(r) and r is not type(o) for r in gc.get_referents(o))


def _may_be_untracked(o: object, depth: int = 0) -> bool:
    """A collection stops tracking a tuple or dict that holds nothing it tracks, or only such
    tuples (it can be in no cycle): it leaves `gc.get_objects()` without being freed."""
    if depth > 8 or type(o) not in (tuple, dict):
        return False
    items = o.items() if type(o) is dict else ((item, None) for item in o)
    return all(_untracked_item(key, depth) and _untracked_item(value, depth) for key, value in items)


def _untracked_item(item: object, depth: int) -> bool:
    return not gc.is_tracked(item) or _may_be_untracked(item, depth + 1)


def _name(o: object) -> str:
    if isinstance(o, types.FunctionType):
        return f"function {o.__module__}.{o.__qualname__}"
    return type(o).__qualname__


def kind_of(found: object) -> str:
    return found.kind if isinstance(found, Freed) else type(found).__qualname__


async def cycles_left_by(case: Callable[[], Awaitable[object]]) -> list[object]:
    """The objects `case` left in reference cycles (run once before, untimed, as a warm-up)."""
    await case()
    await trio.testing.wait_all_tasks_blocked(cushion=QUIET_S)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(MEASURES - 1):
            threads = set(threading.enumerate())
            found = await _measure(case)
            if threads <= set(threading.enumerate()):
                return found
            # A thread ended meanwhile (trio's thread cache retires a worker left idle for 10 s
            # by an earlier test): its own objects were freed in its own thread. Measure again.
            del found
            gc.garbage.clear()
        return await _measure(case)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


async def _measure(case: Callable[[], Awaitable[object]]) -> list[object]:
    """One run of `case` with the collector off, then one collection: what it saved and freed."""
    await case()
    await trio.testing.wait_all_tasks_blocked(cushion=QUIET_S)
    before = _tracked()
    gc.collect()
    saved = list(gc.garbage)
    remaining = {id(o) for o in gc.get_objects()}
    return saved + [Freed(kind) for key, kind in before.items() if key not in remaining]


def described(garbage: list[object]) -> str:
    kinds = collections.Counter(kind_of(o) for o in garbage)
    functions = collections.Counter(o.__qualname__ for o in garbage if callable(o) and hasattr(o, "__qualname__"))
    frames = collections.Counter(f"{o.f_code.co_filename}:{o.f_code.co_name}" for o in garbage if type(o).__name__ == "frame")
    return f"{len(garbage)} objects in cycles: {dict(kinds.most_common(12))}; functions {dict(functions)}; frames {dict(frames)}"

