"""The lobby: challenges between bots, public seeks, and humans playing bots."""
