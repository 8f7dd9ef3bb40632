"""Ratings: Glicko-2, the rating batch, the ladder, leaderboard and profiles."""
