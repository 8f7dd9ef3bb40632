"""An independent, deliberately naive turn enumerator on chess.Board (test oracle, bench baseline).

It shares no code with playsite.rules: it reads the rules straight from spec/rules.md.
It lists every die-paid sequence by brute force (push/pop, no memo), takes L as the most
dice any sequence spends, keeps the sequences that spend L without capturing the king or
that end with a king capture, and folds them into a prefix tree.
"""

from __future__ import annotations

import chess

CASTLING_PLANS = {
    # (right's rook square, king from, king to, rook from, rook to, squares that must be empty)
    chess.WHITE: [
        (chess.H1, chess.E1, chess.G1, chess.H1, chess.F1, [chess.F1, chess.G1]),
        (chess.A1, chess.E1, chess.C1, chess.A1, chess.D1, [chess.B1, chess.C1, chess.D1]),
    ],
    chess.BLACK: [
        (chess.H8, chess.E8, chess.G8, chess.H8, chess.F8, [chess.F8, chess.G8]),
        (chess.A8, chess.E8, chess.C8, chess.A8, chess.D8, [chess.B8, chess.C8, chess.D8]),
    ],
}


def board_from_dfen(dfen: str) -> tuple[chess.Board, list[int], list[int]]:
    """(board without en-passant square, en-passant targets, dice) from a DFEN string."""
    fields = dfen.split(" ")
    ep_field = fields[3]
    targets = [] if ep_field == "-" else [chess.parse_square(ep_field[i : i + 2]) for i in range(0, len(ep_field), 2)]
    board = chess.Board(" ".join(fields[:3] + ["-"] + fields[4:6]))
    dice = [] if len(fields) < 7 or fields[6] == "-" else ["PNBRQK".index(c.upper()) + 1 for c in fields[6]]
    return board, targets, dice


def _remove(dice: list[int], faces) -> list[int] | None:
    rest = list(dice)
    for face in faces:
        if face not in rest:
            return None
        rest.remove(face)
    return rest


def _candidates(board: chess.Board, targets: list[int], dice: list[int]):
    """(uci, faces paid, how to play it) for every micro-move payable with `dice`."""
    mover = board.turn
    seen = set()
    from_mask = 0
    for piece_type in set(dice):
        from_mask |= board.pieces_mask(piece_type, mover)
    for move in board.generate_pseudo_legal_moves(from_mask=from_mask):
        piece = board.piece_type_at(move.from_square)
        if piece not in dice or board.is_castling(move):
            continue
        victim = board.piece_at(move.to_square)
        takes_king = victim is not None and victim.piece_type == chess.KING
        if takes_king and move.promotion:
            move = chess.Move(move.from_square, move.to_square)
        if move.uci() in seen:
            continue
        seen.add(move.uci())
        yield move.uci(), [piece], ("push", move), takes_king
    if chess.PAWN in dice:
        step = -8 if mover == chess.WHITE else 8
        for target in targets:
            victim_square = target + step
            victim = board.piece_at(victim_square)
            if board.piece_at(target) is not None or victim != chess.Piece(chess.PAWN, not mover):
                continue
            for origin in chess.SquareSet(board.attackers_mask(mover, target) & board.pawns):
                if chess.square_distance(origin, target) == 1 and chess.square_rank(origin) == chess.square_rank(victim_square):
                    uci = chess.square_name(origin) + chess.square_name(target)
                    yield uci, [chess.PAWN], ("ep", origin, target, victim_square), False
    if chess.KING in dice and chess.ROOK in dice:
        for right, king_from, king_to, rook_from, rook_to, between in CASTLING_PLANS[mover]:
            if board.castling_rights & chess.BB_SQUARES[right] and all(board.piece_at(sq) is None for sq in between):
                uci = chess.square_name(king_from) + chess.square_name(king_to)
                yield uci, [chess.KING, chess.ROOK], ("castle", king_from, king_to, rook_from, rook_to), False


def _play(board: chess.Board, how) -> chess.Board:
    mover = board.turn
    if how[0] == "push":
        board.push(how[1])
        board.turn = mover
        board.ep_square = None
        return board
    board = board.copy(stack=False)
    if how[0] == "ep":
        _, origin, target, victim_square = how
        board.remove_piece_at(victim_square)
        board.remove_piece_at(origin)
        board.set_piece_at(target, chess.Piece(chess.PAWN, mover))
    else:
        _, king_from, king_to, rook_from, rook_to = how
        board.remove_piece_at(king_from)
        board.remove_piece_at(rook_from)
        board.set_piece_at(king_to, chess.Piece(chess.KING, mover))
        board.set_piece_at(rook_to, chess.Piece(chess.ROOK, mover))
        board.castling_rights &= ~(chess.BB_RANK_1 if mover == chess.WHITE else chess.BB_RANK_8)
    return board


def naive_sequences(board: chess.Board, targets: list[int], dice: list[int]):
    """Every die-paid sequence as (ucis, dice spent, ends with a king capture)."""
    found = []

    def walk(board: chess.Board, dice: list[int], path: tuple, spent: int) -> None:
        found.append((path, spent, False))
        for uci, faces, how, takes_king in list(_candidates(board, targets, dice)):
            rest = _remove(dice, faces)
            if rest is None:
                continue
            if takes_king:
                found.append((path + (uci,), spent + len(faces), True))
                continue
            child = _play(board, how)
            walk(child, rest, path + (uci,), spent + len(faces))
            if child is board:
                board.pop()

    walk(board, list(dice), (), 0)
    return found


def naive_turns(dfen: str) -> set[tuple[str, ...]]:
    """The complete legal turns of a DFEN with dice, by brute force."""
    board, targets, dice = board_from_dfen(dfen)
    sequences = naive_sequences(board, targets, dice)
    longest = max(spent for _, spent, _ in sequences)
    if longest == 0:
        return set()
    return {path for path, spent, king in sequences if king or spent == longest}


def naive_tree(dfen: str) -> dict:
    """The legal-move tree of a DFEN with dice, as plain nested dicts (no sharing)."""
    tree: dict = {}
    for path in naive_turns(dfen):
        node = tree
        for uci in path:
            node = node.setdefault(uci, {})
    return tree
