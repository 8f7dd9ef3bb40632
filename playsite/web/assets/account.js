// Your account (/account): who is signed in, the ways to the account's own pages, and deleting
// the account (`DELETE /auth/me`, docs/accounts.md), asked for by typing the words the server
// wants sent. An answer that never came is not a failure: `GET /auth/me` then says whether the
// account is still there.
import { errorText, getJson, sendJson } from "./net.js";
import { $, element, mountHeader, NICKNAME_CHANGED, sayClosed, siteInfo, tellOtherTabs } from "./site.js";

const CONFIRMATION = "delete my account"; // the body DELETE /auth/me asks for

const closed = (why, options) => sayClosed($("account-closed"), why, options); // nothing to show here

function say(text) {
  $("delete-message").textContent = text;
}

// The account is gone: every tab of the site hears it (as after a sign-out), and this one says so.
function deleted() {
  tellOtherTabs({ signedOut: true, playing: [] });
  location.replace("/account?deleted=1");
}

// The live games that stop a deletion, each a link to its page.
async function showGames() {
  const me = await getJson("/auth/me").catch(() => null);
  const playing = me?.status === 200 ? me.body.playing || [] : [];
  const list = $("delete-games");
  list.replaceChildren(...playing.map((gameId, index) => {
    const item = element("li");
    item.append(element("a", playing.length === 1 ? "Your game" : `Your game ${index + 1}`, { href: `/play/${gameId}` }));
    return item;
  }));
  list.hidden = playing.length === 0;
}

async function remove(event) {
  event.preventDefault();
  const button = $("delete");
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  say("");
  $("delete-games").hidden = true;
  const answer = await sendJson("DELETE", "/auth/me", { confirm: CONFIRMATION }).catch(() => null);
  button.removeAttribute("aria-busy");
  if (answer?.status === 204) { deleted(); return; }
  button.disabled = false;
  if (!answer || answer.status >= 500) {
    const now = await getJson("/auth/me").catch(() => null); // did it happen?
    if (now?.status === 401) { deleted(); return; }
    say(now?.status === 200 ? "The server did not answer, and your account is still here: try again."
      : "The server did not answer: reload the page to see whether your account is still here.");
    return;
  }
  if (answer.body?.code === "account_in_game") {
    say("You are playing: finish or resign your game first, then delete your account.");
    await showGames();
    return;
  }
  say(answer.status === 401 ? "Your session has ended: sign in again." : errorText(answer, "Your account could not be deleted."));
}

async function start() {
  mountHeader();
  const params = new URLSearchParams(location.search);
  const info = await siteInfo();
  if (!info.signIn) { closed("This server has no sign-in, so nobody has an account here."); return; }
  if (!info.account) {
    if (params.get("deleted") === "1") closed("Your account is deleted. Signing in again starts a new account.");
    else closed("Sign in to see your account.", { signIn: true });
    return;
  }
  if (params.has("deleted")) history.replaceState(history.state, "", "/account"); // signed in since
  const me = info.account;
  $("account-about").hidden = false;
  const showNickname = (nickname) => {
    $("about-nickname").textContent = nickname || "an account without a nickname";
    if (nickname) $("about-profile").href = `/@/${encodeURIComponent(nickname)}`;
    $("about-profile").closest("li").hidden = !nickname;
  };
  showNickname(me.nickname);
  // changed from the header's menu, here or in another tab (play-through s71: the page kept the old one)
  document.addEventListener(NICKNAME_CHANGED, (event) => showNickname(event.detail));
  $("about-bots").hidden = !info.bots;
  $("about-admin").hidden = !(info.bots && info.admin);
  $("about-id").textContent = me.id;
  $("delete-card").hidden = false;
  const input = $("delete-confirm");
  input.addEventListener("input", () => {
    $("delete").disabled = input.value.trim().toLowerCase() !== CONFIRMATION;
    say("");
  });
  $("delete-form").addEventListener("submit", remove);
}

start();
