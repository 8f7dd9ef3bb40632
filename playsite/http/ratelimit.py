"""Process-local fixed-window rate limits, keyed by client address (or any other string).

    mints = RateLimiter(limit=20, window_s=60)
    retry_after = mints.attempt(client_ip)   # None: go ahead; a number: seconds to wait

Like admission, this state lives in the one serving process (service.md rule 11). The key
table is bounded: past `max_keys`, the window opened longest ago is forgotten first, so a
flood of distinct addresses costs memory once, never without bound. A limiter made with
`refuse_when_full` never forgets an open window to make room (a flood of fresh keys would
otherwise reset everyone's count): while every tracked window is open, a new key is refused
for the window's length instead ("key exhaustion", the rematch routes' rule).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable

import attrs
import trio

from playsite.http.auth import client_address
from playsite.http.errors import rate_limited

MAX_KEYS = 10_000


@attrs.define
class _Window:
    opened_at: float
    used: int


class RateLimiter:
    def __init__(self, limit: int, window_s: float, *, max_keys: int = MAX_KEYS, refuse_when_full: bool = False):
        if limit < 1 or window_s <= 0:
            raise ValueError("a rate limit needs limit >= 1 and a positive window")
        self.limit = limit
        self.window_s = window_s
        self.max_keys = max_keys
        self.refuse_when_full = refuse_when_full
        self._windows: OrderedDict[str, _Window] = OrderedDict()

    def attempt(self, key: str) -> int | None:
        """Count one use of `key`: None when allowed, else whole seconds until its window reopens."""
        retry_after = self.retry_after(key)
        if retry_after is None:
            self.count(key)
        return retry_after

    def retry_after(self, key: str) -> int | None:
        """Without counting: None when `key` may go ahead now, else seconds until it may."""
        now = trio.current_time()
        window = self._windows.get(key)
        if window is None or now - window.opened_at >= self.window_s:
            if self.refuse_when_full and window is None and self._full(now):
                return math.ceil(self.window_s)
            return None
        if window.used < self.limit:
            return None
        return max(1, math.ceil(window.opened_at + self.window_s - now))

    def count(self, key: str) -> None:
        """Record one use of `key` (for limits that count only what succeeded)."""
        now = trio.current_time()
        window = self._windows.get(key)
        if window is None or now - window.opened_at >= self.window_s:
            self._windows.pop(key, None)
            self._make_room(now)
            self._windows[key] = _Window(opened_at=now, used=1)
        else:
            window.used += 1

    def _forget_closed(self, now: float) -> None:
        """Forget the windows that have closed (the table is in the order the windows opened)."""
        while self._windows:
            oldest_key, oldest = next(iter(self._windows.items()))
            if now - oldest.opened_at < self.window_s:
                return
            del self._windows[oldest_key]

    def _full(self, now: float) -> bool:
        """Whether the table is full of open windows, once the closed ones are forgotten."""
        self._forget_closed(now)
        return len(self._windows) >= self.max_keys

    def _make_room(self, now: float) -> None:
        self._forget_closed(now)
        while len(self._windows) >= self.max_keys:
            self._windows.popitem(last=False)  # the window opened longest ago

    def __len__(self) -> int:
        return len(self._windows)


def limit_by_address(
    limiter: RateLimiter, what: str, *, count: bool = True, refusal: Callable[[int], Exception] | None = None
) -> None:
    """Raise 429 `rate_limited` (with Retry-After) when this client's address is over `limiter`.

    With `count=False` the request is only checked; the route counts it (`limiter.count`)
    once it succeeded. `refusal(retry_after_s)`: the route family's own refusal instead."""
    limit_by_key(limiter, client_address(), f"{what} from this address", count=count, refusal=refusal)


def limit_by_key(
    limiter: RateLimiter, key: str, what: str, *, count: bool = True,
    refusal: Callable[[int], Exception] | None = None,
) -> None:
    """As `limit_by_address`, for any other key (an account, a player): 429 `rate_limited`
    "too many <what>", or `refusal(retry_after_s)`."""
    retry_after = limiter.attempt(key) if count else limiter.retry_after(key)
    if retry_after is None:
        return
    if refusal is not None:
        raise refusal(retry_after)
    raise rate_limited(what, retry_after)
