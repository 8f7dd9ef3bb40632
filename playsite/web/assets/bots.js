// The bot authors' page: this server's address in its commands, the example bot's source, and
// (where accounts manage bots) the way to "Your bots".
import { $, mountHeader, siteInfo } from "./site.js";

for (const origin of document.querySelectorAll(".origin")) origin.textContent = location.origin;
$("run-bot").textContent = `python3 random_bot.py ${location.origin}`;
fetch("/random_bot.py").then((answer) => (answer.ok ? answer.text() : Promise.reject()))
  .then((text) => { $("bot-source").textContent = text; })
  .catch(() => { $("bot-source").textContent = "The example could not be read; download it above."; });
mountHeader();
// where accounts manage their bots, the page that does it
siteInfo().then((info) => { $("your-bots-line").hidden = !info.bots; });
