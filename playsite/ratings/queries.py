"""The queries of the public rating reads: the leaderboard, the profiles and the rating
histories (PostgreSQL: `bots`, `bot_ratings`, `account_ratings`, `game_results`).

Each function runs in a worker thread on a pooled connection (`Database.run`) and returns
the JSON-ready shape the routes answer; docs/ladder.md describes the shapes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import psycopg

from playsite.principals import Kind, Principal, id_of
from playsite.ratings.book import DEFAULT_RATING, DEFAULT_RD, PROVISIONAL_RD
from playsite.wire.instant import encode_instant

RECENT_GAMES = 20
HUMANS = {"kind": "Human", "name": None}


def read_leaders(conn: psycopg.Connection, provisional: bool = False) -> list[tuple]:
    """Converged ratings only (RD <= 110), best first; equal ratings: surer (lower RD) first.
    With `provisional`, every rated bot: the converged ones first, then the provisional ones."""
    return conn.execute(
        """
        SELECT b.team, b.name, r.rating, r.rd, b.on_ladder, r.games, r.wins, r.draws, r.losses
          FROM bot_ratings r JOIN bots b ON b.id = r.bot_id
         WHERE r.rd <= %s OR %s
         ORDER BY r.rd > %s, r.rating DESC, r.rd ASC, b.id ASC
        """,
        (PROVISIONAL_RD, provisional, PROVISIONAL_RD),
    ).fetchall()


def read_player_leaders(conn: psycopg.Connection, provisional: bool = False) -> list[tuple]:
    """Accounts with a converged rating (deleted accounts have no rating), best first. With
    `provisional`, every rated account: the converged ones first, then the provisional ones."""
    return conn.execute(
        """
        SELECT a.nickname, r.rating, r.rd, r.games, r.wins, r.draws, r.losses
          FROM account_ratings r JOIN accounts a ON a.id = r.account_id
         WHERE (r.rd <= %s OR %s) AND a.status <> 'deleted' AND a.nickname IS NOT NULL
         ORDER BY r.rd > %s, r.rating DESC, r.rd ASC, lower(a.nickname) ASC
        """,
        (PROVISIONAL_RD, provisional, PROVISIONAL_RD),
    ).fetchall()


# The account a nickname names (any case): the one that has it now, else the one that gave it
# up by renaming (an old link to a profile leads to the account under its new name).
_NAMED = """
    SELECT id FROM accounts WHERE lower(nickname) = lower(%(name)s) AND status <> 'deleted'
    UNION ALL
    (SELECT f.account_id FROM former_nicknames f JOIN accounts a ON a.id = f.account_id
      WHERE lower(f.nickname) = lower(%(name)s) AND a.status <> 'deleted')
    LIMIT 1
"""


def read_player_profile(conn: psycopg.Connection, nickname: str) -> dict | None:
    """An account's public profile by nickname (any case, or a name it gave up: `nickname` in
    the answer is the one it has now); never its id or provider identity."""
    row = conn.execute(
        f"""
        SELECT a.id, a.nickname, r.rating, r.rd, r.games, r.wins, r.draws, r.losses
          FROM accounts a LEFT JOIN account_ratings r ON r.account_id = a.id
         WHERE a.id = ({_NAMED})
        """,
        {"name": nickname},
    ).fetchone()
    if row is None:
        return None
    account_id, nickname, rating, rd, games, wins, draws, losses = row
    principal = str(Principal.user(account_id))
    return {
        "nickname": nickname,
        **_standing(rating, rd),
        **_record(conn, principal, games, wins, draws, losses, accounts_apart=True),
    }


def read_profile(conn: psycopg.Connection, bot_id: str) -> dict | None:
    row = conn.execute(
        """
        SELECT b.team, b.name, b.on_ladder, r.rating, r.rd, r.games, r.wins, r.draws, r.losses
          FROM bots b LEFT JOIN bot_ratings r ON r.bot_id = b.id
         WHERE b.id = %s
        """,
        (bot_id,),
    ).fetchone()
    if row is None:
        return None
    team, name, on_ladder, rating, rd, games, wins, draws, losses = row
    principal = str(Principal.bot(bot_id))
    return {
        "team": team,
        "name": name,
        **_standing(rating, rd),
        "onLadder": bool(on_ladder),
        **_record(conn, principal, games, wins, draws, losses),
    }


def _standing(rating: float | None, rd: float | None) -> dict[str, object]:
    """A profile's rating (the starting values before any rated period) and whether it is provisional."""
    rd = DEFAULT_RD if rd is None else float(rd)
    return {"rating": DEFAULT_RATING if rating is None else float(rating), "rd": rd, "provisional": rd > PROVISIONAL_RD}


def _record(
    conn: psycopg.Connection, principal: str, games: int | None, wins: int | None, draws: int | None, losses: int | None,
    *, accounts_apart: bool = False,
) -> dict[str, object]:
    """A profile's rated record (zeros before any rated period), its opponents and its recent
    games. `accounts_apart`: a row per named account opponent (a person's profile)."""
    return {
        "games": games or 0,
        "wins": wins or 0,
        "draws": draws or 0,
        "losses": losses or 0,
        "opponents": read_opponents(conn, principal, accounts_apart=accounts_apart),
        "recent": read_recent(conn, principal),
    }


HISTORY_POINTS_MAX = 1000
"""The newest rating periods a history answers (a bot on the ladder plays in ~24 periods a day)."""


def player_principal(conn: psycopg.Connection, nickname: str) -> str | None:
    """The principal of the account this nickname names (any case, or a name it gave up), if it
    was not deleted."""
    row = conn.execute(_NAMED, {"name": nickname}).fetchone()
    return None if row is None else str(Principal.user(row[0]))


def bot_principal(conn: psycopg.Connection, bot_id: str) -> str | None:
    """The principal of the registered bot `team/name`, if there is one."""
    row = conn.execute("SELECT id FROM bots WHERE id = %s", (bot_id,)).fetchone()
    return None if row is None else str(Principal.bot(row[0]))


def read_rating_history(conn: psycopg.Connection, principal: str) -> list[dict]:
    """One point per rating period the player played in, oldest first: its rating and deviation
    after the period, whether that rating was still provisional, and the period's games."""
    rows = conn.execute(
        """
        SELECT period_at, rating, rd, games, wins, draws, losses FROM (
            SELECT * FROM rating_history WHERE principal = %s ORDER BY period_at DESC LIMIT %s
        ) newest ORDER BY period_at
        """,
        (principal, HISTORY_POINTS_MAX),
    ).fetchall()
    return [
        {"at": encode_instant(at), "rating": float(rating), "rd": float(rd), "provisional": float(rd) > PROVISIONAL_RD,
         "games": games, "wins": wins, "draws": draws, "losses": losses}
        for at, rating, rd, games, wins, draws, losses in rows
    ]


def _own_games(mine: str) -> str:
    """`OWN_GAMES` for the principals `mine` matches (an SQL test of a principal column)."""
    return f"""
    SELECT game_id, finished_at, rated, termination, disconnect, abort_cause, abort_seat, time_control,
           'White' AS seat, black_principal AS other, result AS score,
           white_rating_before AS rating_before, white_rating_change AS rating_change
      FROM game_results WHERE white_principal {mine} AND NOT coalesce(black_principal {mine}, false)
    UNION ALL
    SELECT game_id, finished_at, rated, termination, disconnect, abort_cause, abort_seat, time_control,
           'Black' AS seat, white_principal AS other, -result AS score,
           black_rating_before, black_rating_change
      FROM game_results WHERE black_principal {mine} AND NOT coalesce(white_principal {mine}, false)
"""


# A player's games (a bot's, a person's, a guest's), from its own side: its seat, the other
# principal, its score (1/0/-1 or NULL when aborted), its rating going into the game's period
# and the game's share of its change (both NULL until the batch applied the game). A game
# against itself (a board shared by two people, or a bot never made to play itself) has no
# side to tell and is left out.
OWN_GAMES = _own_games("= %(p)s")
OWN_GAMES_OF_ANY = _own_games("= ANY(%(p)s)")
"""The same for several principals at once (`p` a list: an account and the guests it claimed);
a game between two of them is left out as a game against oneself."""
OWN_GAME_COLUMNS = (
    "game_id, seat, other, score, rated, termination, disconnect, abort_cause, abort_seat, time_control, finished_at,"
    " rating_before, rating_change"
)
"""What `own_game` reads of a row selected from `OWN_GAMES`, in this order."""


def read_opponents(conn: psycopg.Connection, principal: str, *, accounts_apart: bool = False) -> list[dict]:
    """Decided games (rated and casual) per registered opponent bot, plus one row for every
    human together; with `accounts_apart` (a person's profile), a row of its own for each
    opponent account that has a nickname, and one for everyone else. Aborted games, and games
    against anonymous (unregistered) bots, are not counted here; they still show in `recent`."""
    rows = conn.execute(
        f"""
        WITH own AS ({OWN_GAMES}),
        sided AS (
            SELECT CASE WHEN other LIKE 'bot:%%' THEN other
                        WHEN %(apart)s AND other IN (SELECT 'user:' || id::text FROM accounts WHERE nickname IS NOT NULL)
                        THEN other
                   END AS bot, score, finished_at
              FROM own
             WHERE score IS NOT NULL
               AND (other IS NULL OR other NOT LIKE 'bot:%%'
                    OR substr(other, 5) IN (SELECT id FROM bots))
        )
        SELECT bot, count(*), count(*) FILTER (WHERE score = 1), count(*) FILTER (WHERE score = 0),
               count(*) FILTER (WHERE score = -1), max(finished_at)
          FROM sided
         GROUP BY bot
         ORDER BY count(*) DESC, max(finished_at) DESC, bot ASC NULLS LAST
        """,
        {"p": principal, "apart": accounts_apart},
    ).fetchall()
    names = nicknames_of(conn, [row[0] for row in rows]) if accounts_apart else {}
    records = []
    for bot, games, wins, draws, losses, last in rows:
        bot_id = id_of(bot, Kind.BOT)  # None: a person (named), or every other human together
        if bot_id is None:
            face, team, bot_name = face_of(bot, names), None, None
        else:
            team, bot_name = bot_id.split("/", 1)
            face = {"kind": "Bot", "name": bot_id}
        records.append(
            {
                "opponent": face,
                "team": team,
                "botName": bot_name,
                "games": games,
                "wins": wins,
                "draws": draws,
                "losses": losses,
                "lastPlayedAt": encode_instant(last),
            }
        )
    return records


def read_recent(conn: psycopg.Connection, principal: str) -> list[dict]:
    rows = conn.execute(
        f"""
        SELECT {OWN_GAME_COLUMNS}
          FROM ({OWN_GAMES}) own
         ORDER BY finished_at DESC, game_id DESC
         LIMIT {RECENT_GAMES}
        """,
        {"p": principal},
    ).fetchall()
    names = nicknames_of(conn, [other for _, _, other, *_ in rows])
    return [own_game(row, names) for row in rows]


def own_game(row: Sequence[Any], names: dict[str, str]) -> dict[str, Any]:
    """One game from a player's own side (a row of `OWN_GAME_COLUMNS`), as the profiles and a
    player's history list it: a forfeit after the disconnect grace reads `resign` and
    `disconnect: true`, and a players' abort says why in `abort`, as in its record. The time
    control as the wire writes it (kept so in the results)."""
    (game_id, seat, other, score, rated, termination, disconnect, abort_cause, abort_seat, time_control, finished_at,
     rating_before, rating_change) = row
    abort = None if abort_cause is None else {"cause": abort_cause, **({"seat": abort_seat} if abort_seat else {})}
    return {
        "gameId": str(game_id),
        "seat": seat,
        "opponent": face_of(other, names),
        "result": RESULTS.get(score, "unknown"),
        "rated": bool(rated),
        "termination": termination,
        **({"disconnect": True} if disconnect else {}),
        **({"abort": abort} if abort is not None else {}),
        "timeControl": time_control,
        "finishedAt": encode_instant(finished_at),
        **({"ratingBefore": rating_before, "ratingChange": rating_change} if rating_change is not None else {}),
    }


def read_rating_change(conn: psycopg.Connection, game_id: str) -> dict | None:
    """What a finished game did to its players' ratings (`GET /games/{id}/rating-change`), None when
    no finished game has this id. Per seat, once the batch applied the game, for a rated side:
    its rating going into the period (`before`), the game's share of the period's change
    (`change`; absent for games applied before shares were kept), and its rating and whether it
    was provisional after the period (`after`, `provisional`)."""
    row = conn.execute(
        """
        SELECT r.rated, r.rating_applied_at IS NOT NULL,
               r.white_rating_before, r.white_rating_change, w.rating, w.rd,
               r.black_rating_before, r.black_rating_change, b.rating, b.rd
          FROM game_results r
          LEFT JOIN rating_history w ON w.principal = r.white_principal AND w.period_at = r.rating_applied_at
          LEFT JOIN rating_history b ON b.principal = r.black_principal AND b.period_at = r.rating_applied_at
         WHERE r.game_id = %s
        """,
        (game_id,),
    ).fetchone()
    if row is None:
        return None
    rated, applied, *sides = row

    def seat(before: float | None, change: float | None, after: float | None, rd: float | None) -> dict | None:
        if after is None or rd is None:
            return None
        known = {"before": before, "change": change} if change is not None else {}
        return {**known, "after": after, "provisional": rd > PROVISIONAL_RD}

    return {
        "rated": bool(rated),
        "applied": bool(applied),
        "white": seat(*sides[:4]),
        "black": seat(*sides[4:]),
    }


RESULTS: dict[int | None, str] = {1: "win", 0: "draw", -1: "loss"}


def face_of(principal: str | None, names: dict[str, str] | None = None) -> dict:
    """The public face of a principal: a bot's name, an account's nickname (None once the
    account is deleted), never a guest's or an account's id."""
    if (bot_id := id_of(principal, Kind.BOT)) is not None:
        return {"kind": "Bot", "name": bot_id}
    if principal is not None and names and principal in names:
        return {"kind": "Human", "name": names[principal]}
    return dict(HUMANS)


def nicknames_of(conn: psycopg.Connection, principals: Iterable[str | None]) -> dict[str, str]:
    """'user:<id>' -> nickname, for the accounts among `principals` that still have one."""
    ids = sorted({account_id for p in principals if (account_id := id_of(p, Kind.USER)) is not None})
    if not ids:
        return {}
    rows = conn.execute(
        "SELECT 'user:' || id::text, nickname FROM accounts WHERE id::text = ANY(%s) AND nickname IS NOT NULL", (ids,)
    ).fetchall()
    return dict(rows)
