// The not-found page: the header, and the path that was asked for; a game's page (`/play/<id>`,
// `/replay/<id>`) of no game says so as the game pages do.
import { $, mountHeader, showMissing } from "./site.js";

let path = location.pathname;
try { path = decodeURIComponent(path); } catch { /* a malformed escape: show it as sent */ }
$("missing-path").textContent = path;
if (/^\/play\/[^/]+$/.test(path)) {
  showMissing("No such game", "The link is wrong, or the game is long over.");
  document.title = "No such game: playsite";
} else if (/^\/replay\/[^/]+$/.test(path)) {
  showMissing("No finished game with this id", "The link is wrong, or the game was never played here.");
  document.title = "No such game: playsite";
}
mountHeader();
