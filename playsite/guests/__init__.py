"""A guest's own finished games, read by guest id (the ecosystem site's history pages)."""
