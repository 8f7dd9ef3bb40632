-- What a rated game did to each side's rating, written by the rating batch in the transaction
-- that applies the game's period: the side's rating going into the period (`*_rating_before`)
-- and this game's share of the period's change (`*_rating_change`; a side's shares of one
-- period add up to its change in that period). NULL for a side the batch does not rate (a
-- guest, an anonymous bot), for games not yet applied, and for games applied before this column.
ALTER TABLE game_results
    ADD COLUMN white_rating_before double precision,
    ADD COLUMN white_rating_change double precision,
    ADD COLUMN black_rating_before double precision,
    ADD COLUMN black_rating_change double precision;
