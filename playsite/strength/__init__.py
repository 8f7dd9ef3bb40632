"""The strength report: SPRT verdicts per matchup of registered bots and a Bradley-Terry pool
ranking, from rated games (docs/bots/strength.md). `stats` is the math, `report` the value
and its JSON, `service` keeps it computed, `routes` serves it."""
