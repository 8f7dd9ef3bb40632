"""The one HTTP edge every route family uses.

- `errors`: routes raise `Refusal(status, code, message)`, domains `playsite.refusals.Refused`;
  one handler renders either in the error shape of the route family that raised it, a domain
  code with the status the family's table gives it.
- `bodies`: the request body is read and size-checked once, before the route runs, against
  the route's own limit (`@body_limit(n)`, default `BODY_MAX_DEFAULT`); routes parse it with
  `json_object()`.
- `auth`: who is calling: a bot's bearer token (`calling_bot`), a person's `credentials()`
  (handed to `Accounts.caller`), the peer address.
- `origin`: the browser origin policy for cookie-authenticated writes and sessions.
- `ratelimit`: fixed windows per address or key.
- `responses`: compact JSON responses.
- `pinned`, `asgi`, `wsfail`, `wsbatch`, `cycles`: what the server adjusts in hypercorn 0.18.

This package knows quart but no domain: callers hand it what it needs (a token checker,
an allow-list), so every route family uses it and it imports no domain. Only route modules
and the composition root import it; the domains speak no HTTP (tests/test_imports.py).
"""
