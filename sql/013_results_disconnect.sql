-- A forfeit after the disconnect grace is archived, as it travelled live, with termination
-- 'resign'; this flag tells it from a resignation in the lists built from the results rows.
-- Rows written before it read false: those forfeits stay listed as resignations.
ALTER TABLE game_results ADD COLUMN disconnect boolean NOT NULL DEFAULT false;
