// The rules page: the header, and the six faces of a die as the game draws them.
import { renderDice } from "./dice.js";
import { $, mountHeader } from "./site.js";

renderDice($("all-faces"), [1, 2, 3, 4, 5, 6]);
mountHeader();
