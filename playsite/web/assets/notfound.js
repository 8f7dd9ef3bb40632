// The not-found page: the header, and the path that was asked for; a game's page (`/play/<id>`,
// `/replay/<id>`) of no game says so as the game pages do.
import { $, mountHeader, showMissingGame } from "./site.js";

let path = location.pathname;
try { path = decodeURIComponent(path); } catch { /* a malformed escape: show it as sent */ }
$("missing-path").textContent = path;
const game = path.match(/^\/(play|replay)\/[^/]+$/);
if (game) {
  showMissingGame({ finished: game[1] === "replay" });
  document.title = "No such game: playsite";
}
mountHeader();
