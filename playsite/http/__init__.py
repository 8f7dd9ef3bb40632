"""The one HTTP edge every route family uses.

- `errors`: routes raise `Refusal(status, code, message)`; one handler renders it in the
  error shape of the route family that raised it.
- `bodies`: the request body is read and size-checked once, before the route runs, against
  the route's own limit (`@body_limit(n)`, default `BODY_MAX_DEFAULT`); routes parse it with
  `json_object()`.
- `auth`: who is calling (today a bot's bearer token; later an account session or a guest).
- `origin`: the browser origin policy for cookie-authenticated writes.
- `responses`: compact JSON responses.

This package knows quart but no domain: callers hand it what it needs (a token checker,
an allow-list), so every domain package may import it and it imports none of them.
"""
