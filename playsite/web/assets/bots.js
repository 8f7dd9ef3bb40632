// The bot authors' page: this server's address in its commands, and the example bot's source.
import { $, mountHeader } from "./site.js";

for (const origin of document.querySelectorAll(".origin")) origin.textContent = location.origin;
$("run-bot").textContent = `python3 random_bot.py ${location.origin}`;
fetch("/random_bot.py").then((answer) => (answer.ok ? answer.text() : Promise.reject()))
  .then((text) => { $("bot-source").textContent = text; })
  .catch(() => { $("bot-source").textContent = "The example could not be read; download it above."; });
mountHeader();
