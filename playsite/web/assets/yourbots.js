// Your bots (/account/bots): the signed-in account's bots and their webhooks, through `/me/...`
// (docs/webhook-management.md): register a bot or add one by its token, stage a webhook URL,
// have the server check it and make it the bot's webhook (its signing secret shown once),
// discard a setup, remove the webhook, give the bot a new token (shown once), release the
// bot, and read who changed what. An
// administrator also has every registered bot, through `/admin/...` (`?all=1`).
//
// Every change names the revision of the slot it was made against (`If-Match`): a change made
// meanwhile elsewhere (another tab, an administrator, the bot itself through the Bot API) is
// refused with 412 and the slot is read again. An answer that never came is not a failure: the
// slot is read back and shown as the server holds it.
import { errorText, getJson, sendJson } from "./net.js";
import { $, copyField, element, mountHeader, sayClosed, siteInfo, WHEN } from "./site.js";

const OPEN_AT_ONCE = 3; // a list this short opens every bot; a longer one opens a bot when asked
const WATCH_MS = 3000; // a check under way elsewhere: the slot read again this often until it ends
const ATTEMPTS = 5; // checks a setup allows (docs/webhook-management.md)

let me = null; // the signed-in account, {id, nickname}
let everyBot = false; // an administrator's list of every registered bot (`/admin/...`)
const shown = new Map(); // bot id -> ManagedBot, in the list

const authority = () => (everyBot ? "/admin" : "/me");
const when = (at) => (at ? WHEN.format(new Date(at)) : "");

const closed = (why, options) => sayClosed($("bots-closed"), why, options); // nothing to manage here

// An answer as the person reads it; `null` is an answer that never came.
function refusalWords(answer, fallback) {
  if (!answer) return "The server did not answer.";
  if (answer.status === 401) return "Your session has ended: sign in again.";
  return errorText(answer, fallback);
}

// ----- the list ----------------------------------------------------------------------------------

async function listBots() {
  const answer = await getJson(`${authority()}/bots`).catch(() => null);
  $("bots-listed").hidden = false;
  const none = $("bots-none");
  if (answer?.status !== 200) {
    none.hidden = false;
    none.textContent = `${refusalWords(answer, "The bots could not be read.")} Reload the page to try again.`;
    return null;
  }
  const bots = answer.body.bots;
  if (everyBot) {
    $("bots-listed-title").textContent = `Every registered bot (${bots.length})`;
    $("bots-listed-title").classList.remove("visually-hidden");
  }
  none.hidden = bots.length > 0;
  none.textContent = everyBot ? "No bot is registered here yet."
    : "You have no bot here yet: register one below, or add one you run with its token.";
  const items = bots.map((summary) => {
    let bot = shown.get(summary.id);
    if (!bot) {
      bot = new ManagedBot(summary, { open: bots.length <= OPEN_AT_ONCE });
      shown.set(summary.id, bot);
    }
    bot.summarise(summary);
    return bot.node;
  });
  for (const [id, bot] of shown) if (!bots.some((summary) => summary.id === id)) { bot.node.remove(); shown.delete(id); }
  $("bot-list").replaceChildren(...items);
  return bots;
}

// ----- one bot -----------------------------------------------------------------------------------

// Who did something in a bot's audit trail, from where this person stands.
function actorWords(event, slot) {
  const actor = event.actor || "";
  if (me && actor === `user:${me.id}`) return "You";
  if (actor === slot.bot.owner) return everyBot ? "The owner" : "You";
  if (actor.startsWith("bot:")) return "The bot";
  if (actor.startsWith("system:")) return "The server";
  if (event.detail?.authority === "admin") return "An administrator";
  return "Another account";
}

const FAILURES = { handshake_failed: "the URL did not answer the check", url_policy: "the address is not allowed" };
const EVENTS = {
  "bot.claimed": () => "added the bot",
  "bot.released": (d) => (d.why === "account_deleted" ? "released the bot, deleting the account" : "released the bot"),
  "bot.token.replaced": () => "gave the bot a new token",
  "webhook.setup.staged": (d) => `set up a webhook URL${d.host ? ` at ${d.host}` : ""}`,
  "webhook.setup.discarded": () => "discarded the setup",
  "webhook.activation.start": (d) => `had the URL checked${d.attempt ? ` (check ${d.attempt} of ${ATTEMPTS})` : ""}`,
  "webhook.activation.complete": () => "made the URL the bot's webhook",
  "webhook.activation.failed": (d) => `had a check fail: ${FAILURES[d.reason] || d.reason || "no reason given"}`,
  "webhook.activation.abandoned": () => "had a check abandoned: the setup changed meanwhile",
  "webhook.registration.removed": () => "removed the webhook",
  "webhook.registration.replaced": () => "registered a webhook through the Bot API",
  "webhook.setup.scrubbed": () => "ended an administrator's setup: the administrators changed",
};

// How long ago, as a trail is read ("5 minutes ago"), the date itself beyond a day.
const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
function ago(at) {
  const seconds = (new Date(at).getTime() - Date.now()) / 1000;
  if (seconds > -60) return RELATIVE.format(0, "second");
  if (seconds > -3600) return RELATIVE.format(Math.round(seconds / 60), "minute");
  if (seconds > -86400) return RELATIVE.format(Math.round(seconds / 3600), "hour");
  return when(at);
}

function auditLine(event, slot) {
  const words = EVENTS[event.kind]?.(event.detail || {}) ?? event.kind;
  const line = element("li");
  line.append(element("time", ago(event.at), { datetime: event.at, title: when(event.at) }), " ",
    element("span", `${actorWords(event, slot)} ${words}.`, { class: "what" }));
  return line;
}

// The setup's state in words, and what can be done with it.
function setupWords(setup, staged) {
  const url = element("code", setup.candidateUrl);
  const line = element("p", null, { class: "setup-now" });
  if (setup.activating) line.append("Being checked now: ", url, ".");
  else if (setup.state === "pending") {
    line.append("Set up, not yet checked: ", url, ` (${staged}; ${setup.attemptsLeft} of ${ATTEMPTS} checks left;`
      + ` unused, it lapses ${when(setup.expiresAt)}).`);
  } else if (setup.state === "exhausted") line.append(url, ` failed all ${ATTEMPTS} of its checks: set a URL up again.`);
  else if (setup.state === "expired") line.append(url, " lapsed unused after 24 hours: set it up again.");
  else if (setup.state === "scrubbed") line.append(url, " was set up by an administrator whose list has changed since: it can no longer be used.");
  else return null; // activated: the registration says it
  return line;
}

class ManagedBot {
  constructor(summary, { open }) {
    this.id = summary.id;
    this.path = `/bots/${encodeURIComponent(summary.team)}/${encodeURIComponent(summary.name)}`;
    this.slot = null;
    this.busy = false;
    this.confirming = null; // the button that asked "really?": its next click acts
    this.watch = null;
    this.node = element("li", null, { class: "card managed-bot", "data-bot": summary.id });
    this.details = element("details");
    this.summary = element("summary");
    this.body = element("div", null, { class: "slot" });
    this.message = element("p", "", { class: "message", role: "status", tabindex: "-1" }); // focus's landing when its control went
    this.details.append(this.summary, this.body);
    this.node.append(this.details);
    this.details.addEventListener("toggle", () => { if (this.details.open && !this.slot) this.read(); });
    if (open) this.details.open = true; // its toggle reads the slot
  }

  // The list's line of the bot (kept: a slot read later names the owner by id only).
  summarise(summary) {
    this.known = summary;
    const owner = summary.owner === null ? "no owner"
      : `${summary.ownerNickname || "an account without a nickname"}'s`;
    this.summary.replaceChildren(
      element("span", summary.id, { class: "bot-id" }),
      element("span", summary.webhookRegistered ? "webhook" : "no webhook", { class: "tag" }),
      ...(everyBot ? [element("span", owner, { class: "hint" })] : []),
    );
  }

  say(text, { info = false } = {}) {
    this.message.textContent = text;
    this.message.classList.toggle("info", info);
  }

  async read() {
    const answer = await getJson(`${authority()}${this.path}/webhook`).catch(() => null);
    if (answer?.status === 200) this.show(answer.body);
    else if (answer?.status === 404) { listBots(); return; } // no longer ours (released elsewhere)
    else if (!this.slot) this.body.replaceChildren(this.message);
    if (answer?.status !== 200) this.say(refusalWords(answer, "This bot could not be read."));
    return answer?.status === 200;
  }

  show(slot) {
    // what the person had in hand survives the redraw: the focused control (by its part), the
    // URL being typed, the trail opened
    const focused = (this.body.contains(document.activeElement) ? document.activeElement.dataset.act : null)
      ?? this.lastFocus;
    this.lastFocus = null;
    const trailOpen = Boolean(this.body.querySelector(".audit")?.open);
    this.slot = slot;
    this.confirming = null;
    const registration = slot.registration;
    const now = element("p", null, { class: "webhook-now" });
    if (registration) {
      now.append("Webhook: ", element("code", registration.url),
        registration.verifiedAt ? `, checked ${when(registration.verifiedAt)}.` : ".");
    } else now.append("No webhook: the bot plays through its stream, or by asking for its games.");
    const staged = slot.setup ? `set up ${when(slot.setup.stagedAt)}` : "";
    const setup = slot.setup ? setupWords(slot.setup, staged) : null;
    const pending = slot.setup?.state === "pending" && !slot.setup.activating;

    const form = element("form", null, { class: "stage-form" });
    const inputId = `url-${this.id.replace(/\W/g, "-")}`;
    const input = element("input", null, {
      id: inputId, type: "url", required: "", placeholder: "https://your-bot.example/hook",
      autocomplete: "off", spellcheck: "false", "aria-describedby": `${inputId}-hint`,
    });
    input.dataset.act = "url";
    input.value = this.typed ?? "";
    input.addEventListener("input", () => { this.typed = input.value; });
    form.append(
      element("label", registration ? "Another webhook URL" : "Webhook URL", { for: inputId }),
      input,
      element("button", "Set up", { type: "submit", "data-act": "stage" }),
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const staged = await this.change("PUT", "/webhook/setup", { url: input.value.trim() },
        { done: () => "Set up: now have it checked." });
      if (staged) {
        this.typed = "";
        this.body.querySelector("[data-act=url]").value = "";
      }
    });
    const hint = element("p", "Setting up checks the address's form only. \u201cCheck and use it\u201d sends the URL a"
      + " verification request that it must answer within 5 s; only then does it become the bot's webhook,"
      + " and you get the secret its deliveries are signed with, once.", { class: "hint", id: `${inputId}-hint` });

    const actions = element("p", null, { class: "actions" });
    if (pending) {
      const check = element("button", "Check and use it", { type: "button", class: "primary", "data-act": "activate" });
      check.addEventListener("click", () => this.activate(check));
      const discard = element("button", "Discard setup", { type: "button", "data-act": "discard" });
      discard.addEventListener("click", () => this.change("DELETE", "/webhook/setup", {}, { done: () => "Setup discarded." }));
      actions.append(check, discard);
    } else if (slot.setup && !slot.setup.activating && slot.setup.state !== "activated") {
      const discard = element("button", "Discard setup", { type: "button", "data-act": "discard" });
      discard.addEventListener("click", () => this.change("DELETE", "/webhook/setup", {}, { done: () => "Setup discarded." }));
      actions.append(discard);
    }
    if (registration) {
      actions.append(this.confirmed("Remove webhook", "Remove it? Click again", "remove",
        "Once removed, the webhook gets no more deliveries: the bot plays through its stream or by asking.",
        () => this.change("DELETE", "/webhook", {}, { done: () => "Webhook removed." })));
    }
    if (!everyBot) {
      actions.append(this.confirmed("New token", "Replace it? Click again", "token",
        "Once replaced, the bot's token stops working at once: the bot needs the new one. For a token lost or leaked.",
        () => this.newToken()));
      actions.append(this.confirmed("Release bot", "Release it? Click again", "release",
        "Once released, the bot stays registered and keeps its token, but is no longer yours: whoever holds the token may add it.",
        () => this.release()));
    }
    actions.append(element("a", "Profile", { href: `/@${this.path.slice("/bots".length)}`, class: "button" }));

    const audit = element("details", null, { class: "audit" });
    const events = slot.audit || [];
    audit.open = trailOpen;
    audit.append(element("summary", `Recent changes (${events.length})`));
    const list = element("ul");
    list.append(...events.map((event) => auditLine(event, slot)));
    audit.append(events.length ? list : element("p", "Nothing yet.", { class: "hint" }));

    this.secret ??= element("div", null, { class: "secret-box", hidden: "" });
    this.body.replaceChildren(now, ...(setup ? [setup] : []), form, hint, actions, this.secret, this.message, audit);
    if (focused) (this.body.querySelector(`[data-act="${focused}"]`) ?? this.message).focus();
    this.summarise({ ...this.known, webhookRegistered: Boolean(registration) });
    clearTimeout(this.watch);
    if (slot.setup?.activating) this.watch = setTimeout(() => this.read(), WATCH_MS);
  }

  // A button whose action waits for a second click, saying what it will do after the first.
  confirmed(words, question, act, consequence, action) {
    const button = element("button", words, { type: "button", "data-act": act });
    button.addEventListener("click", () => {
      if (this.confirming !== button) {
        if (this.confirming) this.confirming.textContent = this.confirming.dataset.words;
        this.confirming = button;
        button.dataset.words = words;
        button.textContent = question;
        this.say(consequence, { info: true });
        return;
      }
      this.confirming = null;
      button.textContent = words;
      action();
    });
    return button;
  }

  hold(busy, button = null) {
    // a disabled control lets go of the focus: which one had it is kept for the redraw
    if (busy) this.lastFocus = this.body.contains(document.activeElement) ? document.activeElement.dataset.act : null;
    this.busy = busy;
    for (const control of this.body.querySelectorAll("button, input")) control.disabled = busy;
    if (button) button.toggleAttribute("aria-busy", busy);
  }

  // A change of the slot, made against the revision shown. `done(answer)` words a success.
  async change(method, path, body, { done, button = null } = {}) {
    if (this.busy || !this.slot) return null;
    this.hold(true, button);
    const answer = await sendJson(method, `${authority()}${this.path}${path}`, body,
      { "If-Match": `"${this.slot.revision}"` }).catch(() => null);
    this.hold(false, button);
    if (answer?.status === 200) {
      this.show(answer.body);
      this.say(done(answer), { info: true });
      return answer;
    }
    await this.refused(answer);
    return null;
  }

  async refused(answer) {
    const words = refusalWords(answer, "That was refused.");
    if (!answer || answer.status >= 500) {
      // unknown outcome: what the server holds now says whether it happened
      const read = await this.read();
      this.say(read ? "The server did not confirm that change: what you see is what it holds now; look before trying again."
        : "The server did not answer: reload the page to see what it holds.");
      return;
    }
    if (answer.status === 401 || answer.status === 429) { this.say(words); return; }
    const code = answer.body?.code;
    await this.read(); // a refusal from the slot: show it as it is now
    this.say(code === "revision_mismatch"
      ? "This bot changed meanwhile (another tab, an administrator or the bot itself): here it is now. Try again if you still want to."
      : words);
  }

  async activate(button) {
    const url = this.slot.setup?.candidateUrl;
    this.say(`Checking ${url}: it must answer within 5 s...`, { info: true });
    this.secret.hidden = true;
    const answer = await this.change("POST", "/webhook/setup/activate", {}, {
      button, done: () => "Checked: this URL is the bot's webhook now.",
    });
    if (answer?.body?.secret) {
      this.showSecret(answer.body.secret, "the webhook's signing secret", "The secret this webhook's deliveries are"
        + " signed with, shown only now: give it to your bot (a new one comes with every webhook made here).");
    }
  }

  // A new token for the bot (its owner's, for a token lost or leaked): shown once.
  async newToken() {
    if (this.busy || !this.slot) return;
    this.secret.hidden = true;
    this.hold(true);
    const answer = await sendJson("POST", `/me${this.path}/token`, {}, { "If-Match": `"${this.slot.revision}"` })
      .catch(() => null);
    this.hold(false);
    if (answer?.status !== 200) {
      await this.refused(answer);
      if (!answer || answer.status >= 500) {
        this.say("The server did not confirm the new token: the old one may already have stopped working. Ask for a new one again.");
      }
      return;
    }
    await this.read(); // the trail and the revision moved on
    this.showSecret(answer.body.token, "the bot's new token", `${this.id}'s new token, shown only now: give it to`
      + " your bot (the old one no longer works).");
    this.say("The bot has a new token.", { info: true });
  }

  showSecret(secret, label, words) {
    const value = element("input", null, { class: "link", readonly: "", "aria-label": label });
    value.value = secret;
    const copy = element("button", "Copy", { type: "button" });
    copy.addEventListener("click", () => copyText(value, copy));
    const row = element("div", null, { class: "copy-row" });
    row.append(value, copy);
    this.secret.replaceChildren(element("p", words), row);
    this.secret.hidden = false;
  }

  async release() {
    if (this.busy || !this.slot) return;
    this.hold(true);
    const answer = await sendJson("DELETE", `/me${this.path}`, {}, { "If-Match": `"${this.slot.revision}"` }).catch(() => null);
    this.hold(false);
    if (answer?.status === 204) {
      $("list-message").textContent = `${this.id} is no longer yours; whoever holds its token may add it.`;
      await listBots();
      return;
    }
    if (!answer || answer.status >= 500) {
      const bots = await listBots();
      if (bots && !bots.some((bot) => bot.id === this.id)) {
        $("list-message").textContent = `${this.id} is no longer yours; whoever holds its token may add it.`;
      } else this.say("The server did not confirm the release: the bot is still listed as yours.");
      return;
    }
    await this.refused(answer);
  }
}

async function copyText(input, button) {
  button.textContent = await copyField(input) ? "Copied" : "Press Ctrl+C"; // else selected for it
  setTimeout(() => { button.textContent = "Copy"; }, 2000);
}

// ----- adding a bot ------------------------------------------------------------------------------

function sayAdded(text, { info = false } = {}) {
  const message = $("add-message");
  message.textContent = text;
  message.classList.toggle("info", info);
}

// The bot whose token this is becomes this account's. A claim names the slot's revision too,
// which the claimer cannot know before the server has checked the token: the first answer,
// 428, carries it.
async function claim(token) {
  const before = new Set(shown.keys());
  let answer = await sendJson("POST", "/me/bots", { token }).catch(() => null);
  if ((answer?.status === 428 || answer?.status === 412) && answer.etag) {
    answer = await sendJson("POST", "/me/bots", { token }, { "If-Match": answer.etag }).catch(() => null);
  }
  if (answer?.status === 200 || answer?.status === 201) {
    await listBots();
    opened(answer.body.id);
    return answer.body.id;
  }
  if (!answer || answer.status >= 500) {
    const bots = await listBots(); // the claim may have happened: the list says
    const added = bots?.find((bot) => !before.has(bot.id));
    if (added) { opened(added.id); return added.id; }
    sayAdded("The server did not answer, and the bot is not listed as yours: try again.");
    return null;
  }
  const code = answer.body?.code;
  sayAdded(code === "bot_token_rejected" ? "That is not the token of a registered bot (an anonymous bot's cannot be added)."
    : code === "bot_owned" ? "Another account owns this bot; its owner can release it."
    : refusalWords(answer, "The bot could not be added."));
  return null;
}

// A bot just added: open, in view, its URL field ready.
function opened(id) {
  const bot = shown.get(id);
  if (!bot) return;
  bot.details.open = true;
  bot.node.scrollIntoView({ block: "nearest" });
}

function mountAdding() {
  $("bots-add").hidden = false;
  $("claim-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("claim-token");
    sayAdded("");
    $("claim").disabled = true;
    const id = await claim(input.value.trim());
    $("claim").disabled = false;
    if (id) {
      input.value = "";
      sayAdded(`${id} is yours: its card is open above, where you set up its webhook (or let it play through its stream).`, { info: true });
    }
  });
  // The rule in the page's words, once for both fields (play-through s71: the server's sentence
  // named the team only, and a capital letter was refused where it can simply be lowered).
  const SLUG_RULE = "A team and a name are each 1 to 32 letters, digits or -, starting with a letter or a digit.";
  for (const id of ["register-team", "register-name"]) {
    $(id).addEventListener("invalid", (event) => {
      event.preventDefault();
      sayAdded(SLUG_RULE);
    });
  }
  $("register-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const team = $("register-team").value.trim().toLowerCase();
    const name = $("register-name").value.trim().toLowerCase();
    sayAdded("");
    // a token shown before stays until another replaces it (play-through s71: a failed attempt took it away)
    $("register").disabled = true;
    const answer = await sendJson("POST", "/bot/register", { team, name }).catch(() => null);
    if (answer?.status !== 201) {
      $("register").disabled = false;
      sayAdded(!answer || answer.status >= 500
        ? "The server did not answer: the bot may have been registered without its token reaching you. If the name now reads as taken, register another."
        : answer.body?.error?.code === "identity_taken" ? `${team}/${name} is taken: choose another name.`
        // the rule holds, and the team is the site's own (play-through s72: the rule was shown)
        : answer.body?.error?.code === "team_reserved"
          ? `The team "${team}" is reserved for this site's own bots: choose another team.`
        : answer.status === 400 ? SLUG_RULE
        : refusalWords(answer, "The bot could not be registered."));
      return;
    }
    const { token } = answer.body;
    const id = `${answer.body.team}/${answer.body.name}`;
    $("new-token-words").textContent = `${id}'s token, shown only this once: keep it where your bot runs (it is the bot's password).`;
    $("new-token-value").value = token;
    $("new-token").hidden = false;
    $("register-team").value = "";
    $("register-name").value = "";
    const claimed = await claim(token);
    $("register").disabled = false;
    if (claimed) sayAdded(`${id} is registered and yours.`, { info: true });
  });
  $("new-token-copy").addEventListener("click", () => copyText($("new-token-value"), $("new-token-copy")));
}

// ----- the page ----------------------------------------------------------------------------------

async function start() {
  mountHeader();
  const info = await siteInfo();
  if (!info.bots) {
    closed("This server does not manage bots from the browser: its operator has not turned it on."
      + " Bots still play here with their tokens.");
    return;
  }
  if (!info.account) {
    closed("Sign in to register bots, add the ones you run and manage their webhooks.", { signIn: true });
    return;
  }
  me = info.account;
  everyBot = info.admin && new URLSearchParams(location.search).get("all") === "1";
  if (info.admin) {
    $("bots-views").hidden = false;
    $(everyBot ? "view-all" : "view-mine").setAttribute("aria-current", "page");
  }
  if (everyBot) {
    $("bots-title").textContent = "Every bot";
    $("bots-intro").textContent = "As an administrator: any registered bot's webhook, its setup and who changed what."
      + " Releasing a bot is its owner's.";
    document.title = "Every bot: playsite";
  } else mountAdding();
  await listBots();
}

start();
