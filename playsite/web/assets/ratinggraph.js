// A profile's rating graph and results over time, from its rating-history route.
import { drawAtWidth, ratingChart, resultsChart } from "./chart.js";
import { getJson } from "./net.js";
import { element } from "./site.js";

function legend(items) {
  const list = element("ul", null, { class: "chart-legend" });
  for (const [swatch, text] of items) {
    const item = element("li");
    item.append(element("span", null, { class: `swatch ${swatch}`, "aria-hidden": "true" }), text);
    list.append(item);
  }
  return list;
}

// `historyPath`: `/players/<nickname>/rating-history` or `/bots/<team>/<name>/rating-history`.
export async function mountRatingGraph(container, historyPath, name) {
  const answer = await getJson(historyPath);
  if (answer.status !== 200) { container.hidden = true; return; }
  const points = answer.body.points;
  const rating = element("div", null, { class: "rating-graph" });
  const results = element("div", null, { class: "results-graph" });
  container.replaceChildren(element("h2", "Rating over time"), rating);
  container.hidden = false; // drawn at the width it is shown at
  drawAtWidth(rating, () => ratingChart(rating, points, { name }));
  if (points.length) {
    container.append(legend([["band", "rating \u00b1 2 deviations (where the true strength lies, 95%)"]]));
    container.append(element("h2", "Results per rating period"), results,
      legend([["win", "won"], ["draw", "drawn"], ["loss", "lost"]]));
    drawAtWidth(results, () => resultsChart(results, points, { name }));
  }
}
