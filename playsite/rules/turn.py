"""Playing a whole submitted turn: validation against the tree, and the position after it."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import NoReturn

import attrs
import chess

from . import movegen
from .dfen import format_dfen
from .ending import Termination
from .leaves import MoveTree
from .movegen import BB, KING, PAWN, PIECE_NAMES, ROOK, THEM, US, move_names
from .position import NO_PROGRESS_LIMIT, Position
from .search import TurnSearch
from .spending import SPEND, castles, castling_rest
from .tree import legal_tree, max_dice, state_of

_UCI_SHAPE = re.compile(r"[a-h][1-8][a-h][1-8][qrbn]?")


class IllegalTurn(ValueError):
    """A submitted turn that the rules reject; `.reason` says which micro-move and why."""

    def __init__(self, reason: str, *, dfen: str, moves: Sequence[str]) -> None:
        super().__init__(reason)
        self.reason = reason
        self.dfen = dfen
        self.moves = tuple(moves)


@attrs.frozen
class GameEnd:
    termination: Termination
    """KING_CAPTURED or NO_PROGRESS: the two endings the rules decide."""
    winner: chess.Color | None
    """The winning colour, or None for a draw."""


@attrs.frozen
class TurnOutcome:
    before: Position
    """The position the turn was played from, with its dice."""
    moves: tuple[str, ...]
    """The micro-moves played, in order; () for a forced pass."""
    after: Position
    """The other side to move, no dice pending, counters and en-passant rights updated."""
    end: GameEnd | None
    """How the game ended with this turn, or None if it goes on."""


class _Turn:
    """A turn in progress: the search state plus what the position after it needs."""

    def __init__(self, position: Position) -> None:
        self.position = position
        self.white = position.turn
        self.state = state_of(position)
        self.dice = position.dice
        self.halfmove = position.halfmove
        self.halfmove_peak = position.halfmove
        self.created_ep = 0
        self.king_captured = False

    def piece_type_at(self, square: int) -> int:
        for piece_type in (1, 2, 3, 4, 5, 6):
            if self.state[piece_type] & BB[square]:
                return piece_type
        return 0

    @property
    def spent(self) -> int:
        """Dice spent so far (castling spends two)."""
        return len(self.position.dice) - len(self.dice)

    def allows(self, uci: str) -> bool:
        """Whether the mover may play `uci` now: a micro-move of one of its pieces paid with a
        die left of that piece's type, or castling paid with a king die and a rook die."""
        if not _UCI_SHAPE.fullmatch(uci):
            return False
        s = self.state
        f = chess.parse_square(uci[0:2])
        if not s[US] & BB[f]:
            return False
        piece_type = self.piece_type_at(f)
        if piece_type == KING and uci in movegen.CASTLE_UCIS:  # a king's two-square step is castling
            return castling_rest(self.dice) is not None and any(m[0] == uci for m in castles(s, self.white))
        if piece_type not in self.dice:
            return False
        if piece_type == PAWN:  # steps, captures, en passant, promotions
            return uci in move_names(s, PAWN, self.white)
        reach = movegen.ATTACKS[piece_type](f, s[US] | s[THEM]) & ~s[US]
        return len(uci) == 4 and bool(reach & BB[chess.parse_square(uci[2:4])])

    def play(self, uci: str) -> None:
        """Apply a micro-move known to be allowed (`allows`, or in the tree)."""
        f, t = chess.parse_square(uci[0:2]), chess.parse_square(uci[2:4])
        promotion = "_nbrq".index(uci[4]) + 1 if len(uci) == 5 else 0
        piece_type = self.piece_type_at(f)
        castles = piece_type == KING and abs(t - f) == 2
        self.king_captured = bool(self.state[KING] & self.state[THEM] & BB[t])
        self.state, captured, created = movegen.play(self.state, piece_type, f, t, promotion, self.white)
        self.created_ep |= created
        self.dice = SPEND[self.dice, piece_type]
        if castles:
            self.dice = SPEND[self.dice, ROOK]
        if captured or piece_type == PAWN:
            self.halfmove = 0
        else:
            self.halfmove += 1
            self.halfmove_peak = max(self.halfmove_peak, self.halfmove)

    def after(self) -> Position:
        s = self.state
        us, them = s[US], s[THEM]
        # A right lives on only while its pawn still stands where the double step put it.
        ep = 0
        for target in movegen.bits(self.created_ep):
            pawn_square = target + 8 if self.white else target - 8
            if s[PAWN] & us & BB[pawn_square]:
                ep |= BB[target]
        white, black = (us, them) if self.white else (them, us)
        return Position(
            pawns=s[1],
            knights=s[2],
            bishops=s[3],
            rooks=s[4],
            queens=s[5],
            kings=s[6],
            white=white,
            black=black,
            turn=not self.white,
            castling=s[movegen.CASTLING],
            ep_mask=ep,
            halfmove=self.halfmove,
            fullmove=self.position.fullmove + (0 if self.white else 1),
        )

    def end(self) -> GameEnd | None:
        if self.king_captured:
            return GameEnd(termination=Termination.KING_CAPTURED, winner=self.white)
        if self.halfmove_peak >= NO_PROGRESS_LIMIT:
            return GameEnd(termination=Termination.NO_PROGRESS, winner=None)
        return None


def play_turn(position: Position, moves: Sequence[str], *, longest: int | None = None) -> TurnOutcome:
    """Validate a whole turn and play it. A forced pass is `[]`, legal only when no micro-move
    is. Raises IllegalTurn with a specific reason.

    The turn is played out micro-move by micro-move (`played_out`): it is legal when each
    micro-move is allowed with the dice left, none follows a king capture, and it ends with a
    king capture or having spent L dice (`longest`: the caller passes it when it knows it, a
    room from its roll's tree; otherwise it is searched for). That is the definition of a
    complete turn, so no tree is needed to accept one. A turn refused that way is walked down
    the roll's whole tree, which names the first micro-move that cannot be part of a complete
    turn and why.
    """
    if isinstance(moves, str):
        raise IllegalTurn(
            "moves must be a sequence of UCI strings, not one string", dfen=format_dfen(position), moves=(moves,)
        )
    moves = tuple(moves)
    if not all(isinstance(m, str) for m in moves):
        raise IllegalTurn("moves must be a sequence of UCI strings", dfen=format_dfen(position), moves=moves)
    if not position.dice:
        raise IllegalTurn("no dice pending: the turn has not been rolled", dfen=format_dfen(position), moves=moves)
    if longest is None:
        longest = max_dice(position)
    outcome = played_out(position, moves, longest)
    return outcome if outcome is not None else _judged_by_the_tree(position, moves, longest)


def played_out(position: Position, moves: tuple[str, ...], longest: int) -> TurnOutcome | None:
    """`moves` played out from `position` (dice pending) if they are a complete turn for a
    roll whose L is `longest`; None otherwise."""
    turn = _Turn(position)
    for uci in moves:
        if turn.king_captured or turn.spent == longest or not turn.allows(uci):
            return None
        turn.play(uci)
    if turn.king_captured or turn.spent == longest:
        return TurnOutcome(before=position, moves=moves, after=turn.after(), end=turn.end())
    return None


def _judged_by_the_tree(position: Position, moves: tuple[str, ...], longest: int) -> TurnOutcome:
    """Play `moves` down the roll's legal tree, raising IllegalTurn at the first micro-move that
    is not in it, or at the end of a turn that stops short of a complete one (`longest`: L)."""

    def reject(reason: str) -> NoReturn:
        raise IllegalTurn(reason, dfen=format_dfen(position), moves=moves)

    tree = legal_tree(position)
    turn = _Turn(position)
    if not tree and moves:
        reject(f"no legal move with this roll: the turn is a forced pass, but {moves[0]} was submitted")
    node: Mapping[str, MoveTree] = tree
    for index, uci in enumerate(moves):
        if uci not in node:
            if index and not node:
                if turn.king_captured:
                    reject(f"{uci} comes after {moves[index - 1]} captured the king and ended the game")
                reject(f"the turn is complete after {index} micro-moves; {uci} is one too many")
            reject(_diagnose(turn, uci, longest))
        turn.play(uci)
        node = node[uci]
    if node:
        spent = turn.spent
        missing = longest - spent
        if spent + TurnSearch(turn.white).max_spend(turn.state, turn.dice) < longest:
            reject(
                f"turn stops after {spent} of {longest} dice; after {moves[-1]} only a king "
                "capture can complete it"
            )
        reject(f"turn stops after {spent} of {longest} dice; {missing} more must be played")
    return TurnOutcome(before=position, moves=moves, after=turn.after(), end=turn.end())


def _diagnose(turn: _Turn, uci: str, longest: int) -> str:
    """Why `uci` is not in the tree at this point of the turn."""
    if not isinstance(uci, str) or not _UCI_SHAPE.fullmatch(uci):
        return f"{uci!r} is not a UCI move such as e2e4 or e7e8q"
    f = chess.parse_square(uci[0:2])
    s = turn.state
    colour = "white" if turn.white else "black"
    if not (s[US] | s[THEM]) & BB[f]:
        return f"{uci}: there is no piece on {uci[0:2]}"
    if s[THEM] & BB[f]:
        return f"{uci}: the piece on {uci[0:2]} is not {colour}'s"
    piece_type = turn.piece_type_at(f)
    name = PIECE_NAMES[piece_type]
    castling = uci in movegen.CASTLE_UCIS and piece_type == KING
    if castling and not (KING in turn.dice and ROOK in turn.dice):
        return f"castling {uci} needs both a king die and a rook die"
    if piece_type not in turn.dice:
        return f"no die left for a {name} move ({uci})"
    candidates = {m[0] for m in movegen.moves(s, piece_type, turn.white, True)}
    if uci not in candidates:
        if uci + "q" in candidates:
            return f"{uci} must name the promotion piece: {uci}q, {uci}r, {uci}b or {uci}n"
        if len(uci) == 5 and uci[:4] in candidates:
            return f"{uci} is not a promotion; play {uci[:4]}"
        return f"{uci} is not a legal {name} move from {uci[0:2]}"
    return f"{uci} cannot be part of a turn that spends {longest} dice (maximum-dice rule)"
