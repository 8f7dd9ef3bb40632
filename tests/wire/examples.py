"""Hand-written, realistic values of every wire shape (one game, start to end)."""

from __future__ import annotations

from playsite import wire

START_DFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 PNB"
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1 -"
COMMIT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
SEEDS = wire.ClientSeedsView(white="alice's seed ✓ 0123", black="")
PLAYERS = wire.Players(wire.PublicFace("Bot", "acme alice"), wire.PublicFace("Human", None))

# A DAG, as the rules build it: both orders of the two knight moves share one subtree.
_LEAF: dict = {}
_SHARED = {"f1c4": _LEAF, "f1b5": _LEAF}
TREE = {
    "e2e4": {"g1f3": _SHARED},
    "g1f3": {"e2e4": _SHARED, "b1c3": {"f1c4": _LEAF}},
}

ACTIVE_STATE = wire.PublicGameState(
    version=4,
    dfen=START_DFEN,
    active_seat=wire.WHITE,
    dice_pending=True,
    status=wire.Active(),
    time_control=wire.Fischer(300, 3),
    clocks=wire.Clocks(white_ms=300_000, black_ms=299_250),
    commit=COMMIT,
    seed=None,
    client_seeds=None,
    legal_moves=TREE,
    players=PLAYERS,
)

OVER = wire.Over(wire.Win(wire.BLACK), wire.TIMEOUT)

ENDED_STATE = wire.PublicGameState(
    version=57,
    dfen=AFTER_E4,
    active_seat=wire.BLACK,
    dice_pending=False,
    status=wire.Ended(OVER),
    time_control=wire.Unlimited(),
    clocks=None,
    commit=COMMIT,
    seed=SEED,
    client_seeds=SEEDS,
    legal_moves=None,
    players=None,
    rematch_startup=wire.RematchStartup("aborted"),
)

AWAITING_STATE = wire.PublicGameState(
    version=0,
    dfen=START_DFEN.replace(" PNB", " -"),
    active_seat=wire.WHITE,
    dice_pending=False,
    status=wire.Active(),
    time_control=wire.PerMove(10),
    clocks=wire.Clocks(10_000, 10_000),
    commit=COMMIT,
    seed=None,
    client_seeds=None,
    legal_moves=None,
    players=PLAYERS,
    rematch_startup=wire.RematchStartup("awaiting_joins", "2025-01-31T12:00:15Z"),
)

EVENTS = {
    "Snapshot": wire.Snapshot(
        v=4,
        state=ACTIVE_STATE,
        history=(
            wire.HistoryTurn(wire.WHITE, (1, 2, 6), ("e2e4", "g1f3"), AFTER_E4),
            wire.HistoryTurn(wire.BLACK, (3, 4, 4), (), AFTER_E4),
        ),
    ),
    "Snapshot (ended)": wire.Snapshot(v=57, state=ENDED_STATE, history=()),
    "Snapshot (rematch awaiting joins)": wire.Snapshot(v=0, state=AWAITING_STATE, history=()),
    "DiceRolled": wire.DiceRolled(5, wire.WHITE, (1, 2, 3), START_DFEN, wire.Clocks(300_000, 299_250), TREE),
    "DiceRolled (forced pass)": wire.DiceRolled(6, wire.BLACK, (3, 4, 5), START_DFEN, None, {}),
    "DiceRolled (not inlined)": wire.DiceRolled(7, wire.BLACK, (1, 1, 1), START_DFEN, None, None),
    "TurnPlayed": wire.TurnPlayed(8, wire.WHITE, ("e2e4", "g1f3", "f1c4"), AFTER_E4),
    "TurnPlayed (draw offer)": wire.TurnPlayed(9, wire.BLACK, ("e7e5",), AFTER_E4, draw_offer=True),
    "TurnPlayed (promotion)": wire.TurnPlayed(10, wire.WHITE, ("e7e8n", "e8f6"), AFTER_E4),
    "DrawDeclined": wire.DrawDeclined(10, wire.WHITE),
    "GameEnded (win)": wire.GameEnded(11, OVER, SEED, SEEDS),
    "GameEnded (draw)": wire.GameEnded(12, wire.Over(wire.Draw(), wire.DRAW), SEED, SEEDS),
    "GameEnded (aborted)": wire.GameEnded(13, wire.Over(None, wire.ABORTED), SEED, wire.ClientSeedsView("", "")),
    "Rejected": wire.Rejected(14, wire.BLACK, "e7e5 needs a pawn die"),
}

COMMANDS = {
    "SubmitTurn": wire.SubmitTurn(("e2e4", "g1f3")),
    "SubmitTurn (offer draw)": wire.SubmitTurn(("e7e8q",), offer_draw=True),
    "SubmitTurn (empty)": wire.SubmitTurn(()),
    "SubmitSeed": wire.SubmitSeed("my own entropy, 16+ characters"),
    "Resign": wire.Resign(),
    "AnswerDraw (accept)": wire.AnswerDraw(True),
    "AnswerDraw (decline)": wire.AnswerDraw(False),
}

HISTORY = wire.HistoryRecord(
    game_id="g_01HQ3",
    players=PLAYERS,
    rated=True,
    time_control=wire.Fischer(300, 3),
    result=-1,
    termination="timeout",
    finished_at="2025-01-31T12:34:56.789Z",
    initial_dfen=START_DFEN.replace(" PNB", " -"),
    turns=(
        wire.ArchiveTurn(1, wire.WHITE, (1, 2, 6), ("e2e4", "g1f3"), AFTER_E4),
        wire.ArchiveTurn(2, wire.BLACK, (3, 4, 4), (), AFTER_E4),
    ),
    fairness=wire.FairnessRecord(COMMIT, SEED, SEEDS),
)
