"""Bots as first-class players: identities, capacities, and the Bot API of the ecosystem."""
