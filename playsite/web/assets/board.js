// The board: a position read from a DFEN, micro-moves applied to it (to show a turn being
// built; the server's fenAfter replaces it once the turn is played), and the board itself
// (createBoard): pieces as pictures, click or drag to move, legal destinations as dots and
// capture rings, the last turn highlighted, coordinates, a slide for the opponent's moves.
// It never decides legality: it offers exactly the moves its caller gives it in `dests`.

const FILES = "abcdefgh";

// The chessnut set (Alexis Luengas, Apache-2.0; see pieces/chessnut/NOTICE), served under
// content-hashed names: the server rewrites each relative URL below to the hashed name.
const PIECE_FILES = {
  K: new URL("./pieces/chessnut/wK.svg", import.meta.url).href,
  Q: new URL("./pieces/chessnut/wQ.svg", import.meta.url).href,
  R: new URL("./pieces/chessnut/wR.svg", import.meta.url).href,
  B: new URL("./pieces/chessnut/wB.svg", import.meta.url).href,
  N: new URL("./pieces/chessnut/wN.svg", import.meta.url).href,
  P: new URL("./pieces/chessnut/wP.svg", import.meta.url).href,
  k: new URL("./pieces/chessnut/bK.svg", import.meta.url).href,
  q: new URL("./pieces/chessnut/bQ.svg", import.meta.url).href,
  r: new URL("./pieces/chessnut/bR.svg", import.meta.url).href,
  b: new URL("./pieces/chessnut/bB.svg", import.meta.url).href,
  n: new URL("./pieces/chessnut/bN.svg", import.meta.url).href,
  p: new URL("./pieces/chessnut/bP.svg", import.meta.url).href,
};

// The picture of a piece letter as in FEN ("K" white king, "n" black knight): a same-origin
// URL usable in an <img> or in CSS; undefined for anything else.
export function pieceImage(letter) {
  return PIECE_FILES[letter];
}
const DIE_OF_PIECE = { P: 1, N: 2, B: 3, R: 4, Q: 5, K: 6 };

// square name ("e2") -> piece letter, from a DFEN's first field
export function parsePlacement(dfen) {
  const pieces = {};
  dfen.split(" ")[0].split("/").forEach((row, index) => {
    let file = 0;
    for (const char of row) {
      if (/\d/.test(char)) { file += Number(char); continue; }
      pieces[`${FILES[file]}${8 - index}`] = char;
      file += 1;
    }
  });
  return pieces;
}

// The unspent dice of a DFEN (its 7th field, written as piece letters) as numbers 1-6.
export function diceOf(dfen) {
  const field = dfen.split(" ")[6] || "";
  return [...field].map((letter) => DIE_OF_PIECE[letter.toUpperCase()]).filter(Boolean);
}

export function applyMove(pieces, uci) {
  const next = { ...pieces };
  const from = uci.slice(0, 2), to = uci.slice(2, 4), promotion = uci[4];
  const piece = next[from];
  if (!piece) return next;
  const white = piece === piece.toUpperCase();
  if (piece.toUpperCase() === "P" && from[0] !== to[0] && !next[to]) {
    delete next[`${to[0]}${from[1]}`]; // en passant
  }
  if (piece.toUpperCase() === "K" && Math.abs(FILES.indexOf(to[0]) - FILES.indexOf(from[0])) === 2) {
    const rank = from[1];
    const [rookFrom, rookTo] = to[0] === "g" ? [`h${rank}`, `f${rank}`] : [`a${rank}`, `d${rank}`];
    next[rookTo] = next[rookFrom];
    delete next[rookFrom];
  }
  delete next[from];
  next[to] = promotion ? (white ? promotion.toUpperCase() : promotion.toLowerCase()) : piece;
  return next;
}

const PIECE_NAMES = { K: "king", Q: "queen", R: "rook", B: "bishop", N: "knight", P: "pawn" };
const STEP = { ArrowUp: -8, ArrowDown: 8, ArrowLeft: -1, ArrowRight: 1 };
const SLIDE_MS = 200;
const DRAG_START_PX = 4; // a press that moves less than this is a click, not a drag

function ownerOf(piece) {
  return piece === piece.toUpperCase() ? "white" : "black";
}

function squareLabel(name, piece) {
  return piece ? `${name}, ${ownerOf(piece)} ${PIECE_NAMES[piece.toUpperCase()]}` : name;
}

function reducedMotion() {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

// The square name at visual row/column (0-7 from the top left) for an orientation.
function nameAt(row, column, orientation) {
  return orientation === "white" ? `${FILES[column]}${8 - row}` : `${FILES[7 - column]}${row + 1}`;
}

// Where each piece that appears on a square came from: for every square that gains a piece,
// the nearest square that lost the same piece; failing that (a promotion), the square the
// last turn moved from onto it.
function slides(before, after, lastMove = []) {
  const lost = Object.keys(before).filter((square) => before[square] !== after[square]);
  const found = [];
  for (const [square, piece] of Object.entries(after)) {
    if (before[square] === piece) continue;
    let best = null, bestDistance = Infinity;
    for (const origin of lost) {
      if (before[origin] !== piece) continue;
      const distance = Math.hypot(FILES.indexOf(origin[0]) - FILES.indexOf(square[0]), origin[1] - square[1]);
      if (distance < bestDistance) { best = origin; bestDistance = distance; }
    }
    if (!best) best = lastMove.find(([from, to]) => to === square && lost.includes(from))?.[0] ?? null;
    if (best) {
      lost.splice(lost.indexOf(best), 1);
      found.push([best, square]);
    }
  }
  return found;
}

/**
 * A board in `element`, which it fills (the page sizes the element's container).
 * `onMove(from, to)` is called when the player plays one of `dests` (a king clicked or dropped
 * onto its own rook plays the castling among them, `to` being the king's square); the caller
 * then sends the next `set({...})`. Every square is a button (`data-square`, `data-piece`, an aria-label like
 * "e2, white pawn") reachable with the arrow keys; Enter or Space picks it, as a click does.
 * `onRefuse(square)` is called when a piece is picked that none of `dests` moves (the page may
 * say why: in dice chess "why can't this piece move?" is the usual question).
 */
export function createBoard(element, { onMove = () => {}, onRefuse = () => {}, label = "board" } = {}) {
  const state = {
    pieces: {}, orientation: "white", dests: {}, lastMove: [], selected: null,
  };
  const squares = new Map(); // name -> element, rebuilt when the orientation changes
  const drawn = new WeakMap(); // picture element -> the piece letter it shows
  let press = null; // a pointer held on a movable piece: {from, pointerId, x, y, dragging, piece}
  let justSelected = null; // the square a press selected, so the click that ends it keeps it
  let swallowClick = false; // a drag ended: the click the browser sends after it is not a pick

  const stop = new AbortController(); // destroy() removes every listener the board added
  const listening = { signal: stop.signal };

  element.classList.add("cb-board");
  element.setAttribute("role", "group");
  element.setAttribute("aria-label", label);
  element.dataset.orientation = state.orientation;

  const destsOf = (square) => (state.dests && state.dests[square]) || [];
  const interactive = () => Boolean(state.dests && Object.keys(state.dests).length);

  // Where a move from `from` dropped or clicked on `square` goes: the square itself, or, for a
  // king put on its own rook, the castling square on that side (as lichess lets one castle).
  function destination(from, square) {
    if (destsOf(from).includes(square)) return square;
    const king = state.pieces[from], rook = state.pieces[square];
    if (!king || !rook || king.toUpperCase() !== "K" || rook !== (king === "K" ? "R" : "r")) return null;
    if (square[1] !== from[1]) return null;
    const castled = `${square[0] === "h" ? "g" : "c"}${from[1]}`;
    return (square[0] === "h" || square[0] === "a") && destsOf(from).includes(castled) ? castled : null;
  }

  function pick(square) {
    const selected = state.selected;
    const to = selected && destination(selected, square);
    if (to) {
      state.selected = null;
      paint();
      onMove(selected, to);
      return;
    }
    if (destsOf(square).length && selected !== square) state.selected = square;
    else state.selected = null;
    paint();
    if (!destsOf(square).length && state.pieces[square]) onRefuse(square);
  }

  function layout() {
    const focused = element.contains(document.activeElement) ? document.activeElement.dataset.square : null;
    element.replaceChildren();
    squares.clear();
    for (let row = 0; row < 8; row += 1) {
      for (let column = 0; column < 8; column += 1) {
        const name = nameAt(row, column, state.orientation);
        const square = document.createElement("div");
        const light = (FILES.indexOf(name[0]) + Number(name[1])) % 2 === 0; // a1 is dark
        square.className = `square ${light ? "light" : "dark"}`;
        square.dataset.square = name;
        square.setAttribute("role", "button");
        square.tabIndex = -1;
        square.addEventListener("keydown", (event) => keydown(event, row, column));
        square.addEventListener("focus", () => rove(square));
        squares.set(name, square);
        element.append(square);
      }
    }
    element.append(coordinates());
    rove(squares.get(focused) || squares.get(nameAt(7, 0, state.orientation)));
    if (focused) squares.get(focused).focus();
  }

  // Ranks down the left edge, files along the bottom, in one layer over the squares (outside
  // them, so a square's name stays exactly its label), each in the colour of the other kind
  // of square than the one it sits on.
  function coordinates() {
    const layer = document.createElement("div");
    layer.className = "coords";
    layer.setAttribute("aria-hidden", "true");
    for (let index = 0; index < 8; index += 1) {
      const rankSquare = nameAt(index, 0, state.orientation);
      const fileSquare = nameAt(7, index, state.orientation);
      for (const [kind, square, text] of [["rank", rankSquare, rankSquare[1]], ["file", fileSquare, fileSquare[0]]]) {
        const span = document.createElement("span");
        const light = (FILES.indexOf(square[0]) + Number(square[1])) % 2 === 0;
        span.className = `coord ${kind} on-${light ? "light" : "dark"}`;
        span.dataset.index = String(index);
        span.textContent = text;
        layer.append(span);
      }
    }
    return layer;
  }

  // One square in the tab order: the one focused last.
  function rove(square) {
    for (const other of squares.values()) other.tabIndex = other === square ? 0 : -1;
  }

  function keydown(event, row, column) {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      justSelected = null;
      pick(nameAt(row, column, state.orientation));
    } else if (event.key === "Escape" && state.selected) {
      event.preventDefault();
      state.selected = null;
      paint();
    } else if (event.key in STEP) {
      event.preventDefault();
      const step = STEP[event.key];
      if ((step === 1 && column === 7) || (step === -1 && column === 0)) return;
      const index = row * 8 + column + step;
      if (index < 0 || index > 63) return;
      const target = squares.get(nameAt(Math.floor(index / 8), index % 8, state.orientation));
      rove(target);
      target.focus();
    }
  }

  // Draw the state onto the squares (which stay, so focus and a running slide survive).
  function paint(animateFrom = null) {
    const targets = new Set(state.selected ? destsOf(state.selected) : []);
    const last = new Set((state.lastMove || []).flat());
    // a turn of several micro-moves numbers where each went, in order (play-through s74: six
    // tinted squares did not say what moved where, nor in what order)
    const order = new Map();
    if ((state.lastMove || []).length > 1) state.lastMove.forEach(([, to], index) => order.set(to, index + 1));
    for (const [name, square] of squares) {
      const piece = state.pieces[name];
      let picture = square.querySelector(".piece:not(.ghost)");
      if (!piece && picture) { picture.remove(); picture = null; }
      if (piece) {
        if (!picture) {
          picture = document.createElement("div");
          picture.setAttribute("aria-hidden", "true");
          square.append(picture);
        }
        if (drawn.get(picture) !== piece) { // only what changed: the redraws stay cheap
          drawn.set(picture, piece);
          picture.className = `piece ${ownerOf(piece)} ${PIECE_NAMES[piece.toUpperCase()]}`;
          picture.style.backgroundImage = `url("${pieceImage(piece)}")`;
        }
        square.dataset.piece = piece;
      } else {
        delete square.dataset.piece;
      }
      // what the shapes say, said to a screen reader too
      let role = destsOf(name).length ? ", can move" : "";
      if (state.selected === name) role = ", selected: choose where it goes";
      if (targets.has(name)) role = piece ? ", capture" : ", legal move";
      else if (state.selected && destination(state.selected, name)) role = ", castle with this rook";
      square.setAttribute("aria-label", squareLabel(name, piece) + role);
      square.classList.toggle("movable", destsOf(name).length > 0);
      square.classList.toggle("selected", state.selected === name);
      square.classList.toggle("target", targets.has(name));
      square.classList.toggle("capture", targets.has(name) && Boolean(piece));
      square.classList.toggle("last-move", last.has(name));
      if (order.has(name)) square.dataset.order = String(order.get(name));
      else delete square.dataset.order;
      if (state.selected === name) square.setAttribute("aria-pressed", "true");
      else square.removeAttribute("aria-pressed");
    }
    element.classList.toggle("interactive", interactive());
    if (animateFrom && !reducedMotion()) {
      for (const [from, to] of slides(animateFrom, state.pieces, state.lastMove || [])) slide(from, to);
    }
  }

  // The piece now on `to` glides there from `from` (one square is 100% of a piece's size).
  function slide(from, to) {
    const picture = squares.get(to)?.querySelector(".piece:not(.ghost)");
    if (!picture || !picture.animate) return;
    const sign = state.orientation === "white" ? 1 : -1;
    const dx = (FILES.indexOf(from[0]) - FILES.indexOf(to[0])) * 100 * sign;
    const dy = (Number(to[1]) - Number(from[1])) * 100 * sign;
    picture.classList.add("sliding");
    const motion = picture.animate(
      [{ transform: `translate(${dx}%, ${dy}%)` }, { transform: "translate(0, 0)" }],
      { duration: SLIDE_MS, easing: "ease-out" },
    );
    motion.finished.then(() => picture.classList.remove("sliding"), () => picture.classList.remove("sliding"));
  }

  // The square under a point of the viewport, or null outside the board.
  function squareAt(x, y) {
    const box = element.getBoundingClientRect();
    const column = Math.floor(((x - box.left) / box.width) * 8);
    const row = Math.floor(((y - box.top) / box.height) * 8);
    if (column < 0 || column > 7 || row < 0 || row > 7) return null;
    return nameAt(row, column, state.orientation);
  }

  function endPress() {
    if (!press) return;
    if (press.piece) {
      press.piece.classList.remove("dragging");
      press.piece.style.transform = "";
    }
    press.ghost?.remove();
    for (const square of squares.values()) square.classList.remove("drag-over");
    press = null;
  }

  // A click (mouse, tap, or a script's) picks its square, unless it ends a drag or ends the
  // press that has just selected that square.
  element.addEventListener("click", (event) => {
    if (swallowClick) { swallowClick = false; return; }
    const name = event.target.closest?.("[data-square]")?.dataset.square;
    const held = justSelected;
    justSelected = null;
    if (!name || held === name) return;
    pick(name);
  }, listening);

  element.addEventListener("pointerdown", (event) => {
    swallowClick = false;
    justSelected = null;
    if (event.button !== 0 || press) return;
    const square = event.target.closest?.("[data-square]");
    if (!square) return;
    const name = square.dataset.square;
    if (state.selected && destination(state.selected, name)) return; // the click plays it
    if (!destsOf(name).length) return;
    justSelected = state.selected === name ? null : name;
    if (state.selected !== name) { state.selected = name; paint(); }
    const box = square.getBoundingClientRect();
    press = { from: name, pointerId: event.pointerId, x: event.clientX, y: event.clientY, dragging: false,
      piece: square.querySelector(".piece"), ghost: null,
      centreX: box.left + box.width / 2, centreY: box.top + box.height / 2 };
    event.preventDefault(); // no text selection, no native image drag
  }, listening);

  element.addEventListener("pointermove", (event) => {
    if (!press || event.pointerId !== press.pointerId) return;
    const dx = event.clientX - press.x, dy = event.clientY - press.y;
    if (!press.dragging && Math.hypot(dx, dy) < DRAG_START_PX) return;
    if (!press.dragging) {
      element.setPointerCapture?.(event.pointerId); // follow it off the board too
      if (press.piece) { // a faint copy stays where the piece comes from
        press.ghost = press.piece.cloneNode();
        press.ghost.classList.add("ghost");
        press.piece.before(press.ghost);
      }
    }
    press.dragging = true;
    if (press.piece) { // the piece's centre follows the pointer
      press.piece.classList.add("dragging");
      const x = event.clientX - press.centreX, y = event.clientY - press.centreY;
      press.piece.style.transform = `translate(${x}px, ${y}px) scale(1.12)`;
    }
    const over = squareAt(event.clientX, event.clientY);
    for (const [name, square] of squares) square.classList.toggle("drag-over", name === over);
  }, listening);

  element.addEventListener("pointerup", (event) => {
    if (!press || event.pointerId !== press.pointerId) return;
    const { from, dragging } = press;
    endPress();
    if (!dragging) return; // a click: the click handler picks
    swallowClick = true;
    justSelected = null;
    const to = squareAt(event.clientX, event.clientY);
    if (to === from) { paint(); return; } // dropped back: stays selected
    const dropped = to && destination(from, to);
    if (dropped) {
      state.selected = null;
      paint();
      onMove(from, dropped);
      return;
    }
    state.selected = null; // an illegal drop: the piece goes back
    paint();
  }, listening);

  element.addEventListener("pointercancel", () => { endPress(); paint(); }, listening);
  element.addEventListener("dragstart", (event) => event.preventDefault(), listening);
  // A mouse press does not move the focus onto a square (the page's own keys, such as
  // stepping through the moves, keep working); Tab and the arrow keys do.
  element.addEventListener("mousedown", (event) => event.preventDefault(), listening);

  // The promotion picker, lichess's way: the board veiled, and the pieces a pawn may become as
  // round tiles in its file, from the promotion square toward the middle of the board.
  let picker = null; // {layer, square}

  // The keyboard that was on a tile lands on the promotion square, where the turn goes on.
  function closePicker() {
    if (!picker) return;
    const { layer, square } = picker;
    const focused = layer.contains(document.activeElement);
    layer.remove();
    picker = null;
    if (focused) {
      rove(squares.get(square));
      squares.get(square).focus();
    }
  }

  function promote(square, choices, { onPick = () => {}, onCancel = () => {} } = {}) {
    closePicker();
    endPress();
    const column = state.orientation === "white" ? FILES.indexOf(square[0]) : 7 - FILES.indexOf(square[0]);
    const row = state.orientation === "white" ? 8 - Number(square[1]) : Number(square[1]) - 1;
    const down = row < 4; // from the top edge the column grows downwards, from the bottom upwards
    const layer = document.createElement("div");
    layer.className = "promotion";
    layer.setAttribute("role", "dialog");
    layer.setAttribute("aria-label", `promote the pawn on ${square}`);
    layer.addEventListener("click", (event) => {
      if (event.target !== layer) return;
      closePicker();
      onCancel();
    });
    layer.addEventListener("pointerdown", (event) => event.stopPropagation());
    layer.addEventListener("mousedown", (event) => event.stopPropagation());
    const tiles = choices.map(({ piece, move }, index) => {
      const tile = document.createElement("button");
      tile.type = "button";
      tile.className = "promotion-choice";
      tile.dataset.move = move;
      tile.dataset.piece = piece;
      tile.setAttribute("aria-label", PIECE_NAMES[piece.toUpperCase()]);
      tile.style.gridColumn = String(column + 1);
      tile.style.gridRow = String((down ? row + index : row - index) + 1);
      tile.style.backgroundImage = `url("${pieceImage(piece)}")`;
      tile.addEventListener("click", () => { closePicker(); onPick(move); });
      tile.addEventListener("keydown", (event) => {
        const step = { ArrowDown: down ? 1 : -1, ArrowUp: down ? -1 : 1 }[event.key];
        if (event.key === "Escape") {
          event.preventDefault();
          event.stopPropagation();
          closePicker();
          onCancel();
        } else if (step !== undefined) {
          event.preventDefault();
          tiles[(index + step + tiles.length) % tiles.length].focus();
        }
      });
      return tile;
    });
    layer.append(...tiles);
    element.append(layer);
    picker = { layer, square };
    tiles[0]?.focus();
  }

  layout();
  paint();

  return {
    set(update = {}) {
      const before = state.pieces;
      if ("orientation" in update && update.orientation !== state.orientation) {
        closePicker(); // its tiles stand in the old orientation's column
        state.orientation = update.orientation === "black" ? "black" : "white";
        element.dataset.orientation = state.orientation;
        endPress();
        layout();
      }
      if ("pieces" in update) state.pieces = { ...(update.pieces || {}) };
      if ("dests" in update) state.dests = update.dests || {};
      if ("lastMove" in update) state.lastMove = update.lastMove || [];
      if ("selected" in update) state.selected = update.selected || null;
      else if (state.selected && !destsOf(state.selected).length) state.selected = null;
      if (press && ("pieces" in update || "dests" in update)) endPress();
      paint(update.animate && "pieces" in update ? before : null);
    },
    // Offer `choices` ([{piece: "Q", move: "e7e8q"}, ...]) over `square`: onPick(move) on a
    // tile, onCancel() on a click elsewhere on the board or Escape. One picker at a time.
    promote,
    // Close an open picker without a word to its caller (the turn has moved on).
    closePromotion: closePicker,
    get promoting() { return picker !== null; },
    get orientation() { return state.orientation; },
    get selected() { return state.selected; },
    destroy() {
      closePicker();
      endPress();
      stop.abort();
      element.replaceChildren();
      element.classList.remove("cb-board", "interactive");
      element.removeAttribute("role");
    },
  };
}
