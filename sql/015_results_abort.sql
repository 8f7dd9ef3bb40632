-- Why a game its players ended before it was decided was aborted, and by which seat, as its
-- archive record's `abort` says: the lists built from the results rows (profiles, a player's
-- own games) say it too. NULL on every other row, and on aborts written before it.
ALTER TABLE game_results ADD COLUMN abort_cause text, ADD COLUMN abort_seat text;
