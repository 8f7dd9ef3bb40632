// The strength page: GET /strength drawn as a picture (each bot's strength with its interval)
// and the head-to-head tests behind it, in words.
import { drawAtWidth, intervalChart } from "./chart.js";
import { getJson } from "./net.js";
import { $, element, mountHeader } from "./site.js";

const VERDICTS = {
  AcceptH1: "stronger",
  AcceptH0: "not stronger by the margin",
  Continue: "not enough games yet",
};

function botLink(publicName) {
  const [team, ...rest] = publicName.split(" ");
  const name = rest.join(" ");
  return element("a", `${team}/${name}`, { href: `/@/${encodeURIComponent(team)}/${encodeURIComponent(name)}` });
}

// A row of `table`, each cell labelled with its column's heading: a phone shows the rows as
// cards, each value under its label (style.css, table.stacks).
function row(table, cells) {
  const headings = [...table.tHead.rows[0].cells].map((th) => th.textContent);
  const tr = element("tr");
  cells.forEach((cell, index) => {
    const td = element("td");
    td.dataset.label = headings[index];
    td.append(cell);
    tr.append(td);
  });
  return tr;
}

const signed = (value) => {
  const rounded = Math.round(value); // never "−0": a value that rounds to 0 is 0
  return `${rounded > 0 ? "+" : rounded < 0 ? "\u2212" : ""}${Math.abs(rounded)}`;
};

export function verdictText(matchup) {
  return VERDICTS[matchup.result.verdict] || matchup.result.verdict;
}

// A chance as a whole percentage, never a certainty: a few one-sided games put the likelihood of
// superiority a hair from 1 or 0, and "100%" would claim more than any sample can.
function chance(value) {
  if (value >= 0.995) return ">99%";
  if (value <= 0.005) return "<1%";
  return `${Math.round(value * 100)}%`;
}

// A figure with a true minus sign (U+2212), as the table's strengths are written.
const decimal = (value) => value.toFixed(2).replace(/^-/, "\u2212");

function evidence(result) {
  // The log-likelihood ratio and the two bounds it is tested against, named by the verdict each
  // one gives: a reader sees how far the games so far are from a decision either way.
  const games = `${result.observations} ${result.observations === 1 ? "game" : "games"}`;
  return `LLR ${decimal(result.llr)}: "${VERDICTS.AcceptH1}" at ${decimal(result.upper)}, `
    + `"${VERDICTS.AcceptH0}" at ${decimal(result.lower)}; ${games}`;
}

async function load() {
  const answer = await getJson("/strength");
  if (answer.status === 503) {
    // Computed in the background after a start: ask again shortly, as the answer says.
    $("strength-message").textContent = "The strength report is being computed...";
    setTimeout(load, 2000);
    return;
  }
  $("strength-message").textContent = "";
  if (answer.status !== 200) {
    $("strength-message").textContent = "The strength report could not be read; reload to try again.";
    return;
  }
  const { ranking, pairwise } = answer.body;
  if (!ranking.length && !pairwise.length) {
    $("strength-message").textContent = "No rated games between registered bots yet: the report fills as the ladder plays.";
    return;
  }
  $("ranking-section").hidden = !ranking.length;
  const rows = ranking.map((entry) => ({
    label: entry.player.replace(" ", "/"),
    value: entry.elo,
    low: entry.ciLow,
    high: entry.ciHigh,
    note: entry.losVsNext === null ? "" : `${chance(entry.losVsNext)} likely above the next`,
  }));
  const title = "Strength of each bot relative to the pool (Elo points, 95% interval)";
  drawAtWidth($("strength-chart"), () => intervalChart($("strength-chart"), rows, { title }));
  $("strength-table").tBodies[0].replaceChildren(...ranking.map((entry, index) => row($("strength-table"), [
    String(index + 1), botLink(entry.player), signed(entry.elo), `${signed(entry.ciLow)} to ${signed(entry.ciHigh)}`,
    entry.losVsNext === null ? "" : chance(entry.losVsNext),
  ])));
  $("pairs-section").hidden = !pairwise.length;
  $("pairs-table").tBodies[0].replaceChildren(...pairwise.map((matchup) => {
    const verdict = element("span", verdictText(matchup), { class: `verdict verdict-${matchup.result.verdict}` });
    const { wins, draws, losses } = matchup.singles;
    return row($("pairs-table"), [botLink(matchup.perspective), botLink(matchup.opponent), `${wins} / ${draws} / ${losses}`, verdict, evidence(matchup.result)]);
  }));
}

mountHeader();
load();
