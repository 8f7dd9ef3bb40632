"""Human games: creation with friend-link seat capabilities, public reads, the game socket."""
