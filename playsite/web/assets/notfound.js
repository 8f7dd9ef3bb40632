// The not-found page: the header, and the path that was asked for.
import { $, mountHeader } from "./site.js";

let path = location.pathname;
try { path = decodeURIComponent(path); } catch { /* a malformed escape: show it as sent */ }
$("missing-path").textContent = path;
mountHeader();
