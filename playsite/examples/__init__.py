"""Examples the site hands to bot authors (`GET /random_bot.py`); never imported by playsite."""
