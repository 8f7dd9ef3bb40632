"""People's accounts: OpenID Connect sign-in, the session cookie, and who is calling.

Playing never needs an account; a signed-in person plays as `user:<uuid>` instead of a
guest id, may be rated, and (later) owns bots. docs/accounts.md describes the flow.
"""
