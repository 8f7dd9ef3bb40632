"""`playsite demo`: the whole product on one machine. `postgres.py` runs a private PostgreSQL
in the demo's data directory, `bot.py` the featured bot behind a loopback webhook, and
`settings.py` its configuration; `playsite.cli.demo` runs them with the server (docs/demo.md)."""
