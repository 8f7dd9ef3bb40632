"""The showcase table: one public table on the homepage against the featured bot.

`table.py` holds the state machine and the claim sequence, `queries.py` its durable
records in PostgreSQL, `routes.py` `GET /showcase` and `POST /showcase/claim`.
docs/showcase.md describes it.
"""
