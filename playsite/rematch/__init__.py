"""Rematch and continuation: `opportunity.py` holds the pure state machine of one finished
game's rematch opportunity (phases, absolute deadlines, who may do what), `service.py`
serialises commands per source game and commits successors, `queries.py` keeps their rows,
and `routes.py` mounts the HTTP routes (docs/rematch.md)."""
