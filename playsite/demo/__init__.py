"""`playsite demo`: the whole product on one machine. `postgres.py` runs a private PostgreSQL
in the demo's data directory, `bot.py` the featured bot behind a loopback webhook, and
`run.py` boots the server with both (docs/demo.md)."""
