// The page a browser lands on when its sign-in cannot complete (GET /auth/callback sends it
// here with the refusal's code): why, in words, and what to do next.
import { $, mountHeader } from "./site.js";

const REASONS = {
  account_deactivated: {
    title: "This account is deactivated",
    why: "It cannot sign in. If you think this is a mistake, ask the people who run this site.",
    again: false,
  },
  provider_unavailable: {
    title: "The sign-in provider is not answering",
    why: "Nothing is wrong with your account. Try again in a minute.",
    again: true,
  },
  rate_limited: {
    title: "Too many sign-in attempts",
    why: "This address tried to sign in too often in the last minute. Wait a minute, then try again.",
    again: true,
  },
  sign_in_failed: {
    title: "Sign-in did not complete",
    why: "The sign-in expired, was cancelled, or was started in another browser. Start again from here.",
    again: true,
  },
};

const reason = REASONS[new URLSearchParams(location.search).get("reason")] ?? REASONS.sign_in_failed;
$("failed-title").textContent = reason.title;
$("failed-why").textContent = reason.why;
$("failed-again").hidden = !reason.again;
document.title = `${reason.title}: playsite`;
mountHeader();
