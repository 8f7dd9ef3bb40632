"""Finished games: the immutable history record and the retention job."""
