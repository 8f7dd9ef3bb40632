"""House bots: `house/random` and `house/greedy`, played by the server itself.

They are ordinary registered bots in every way a client can see (listed in the catalog,
challengeable, rated), except that they run in-process: `strategy.py` chooses their turns
(pure), `players.py` seats them in games and accepts their challenges. docs/bots/house.md.
"""
