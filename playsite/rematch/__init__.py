"""Rematch and continuation, being built: `opportunity.py` holds the pure state machine of
one finished game's rematch opportunity (phases, absolute deadlines, who may do what). The
service that serialises commands per source game, its records, the successor startup gate
and the routes are not built yet; nothing mounts this package."""
