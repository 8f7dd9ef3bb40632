-- The lists of finished games (GET /archive) read the archive newest first, a page at a time:
-- every game, or only the games a person played in (at least one seat not a bot). Without
-- these, each page sorted the whole archive.
CREATE INDEX game_archive_newest ON game_archive (finished_at DESC, game_id DESC);
CREATE INDEX game_archive_newest_with_people ON game_archive (finished_at DESC, game_id DESC)
    WHERE record -> 'players' -> 'white' ->> 'kind' = 'Human' OR record -> 'players' -> 'black' ->> 'kind' = 'Human';
