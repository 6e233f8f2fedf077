// Reports: failure reports per day and host over the last 30 days (chart), and the groups by leaf pin.
import { call } from "./api.js";
import { lastDays, reportsChart } from "./chart.js";
import { badge, h, loading, replace, when } from "./dom.js";

export async function reportsPage(main) {
  document.title = "Reports · pinset console";
  replace(main, h("h1", { tabindex: "-1" }, "Failure reports"), loading("Loading reports…"));
  const days = lastDays(30);
  const since = `${days[0]}T00:00:00Z`;
  const { data } = await call(`/admin/reports?since=${encodeURIComponent(since)}`);
  const groups = data.groups || [];
  replace(main,
    h("h1", { tabindex: "-1" }, "Failure reports"),
    h("p", { class: "muted" },
      "Pin validation failures that clients reported to POST /reports over the last 30 days (UTC days)."),
    data.days ? reportsChart(data.days, days)
      : h("p", { class: "muted" }, "This server does not count reports per day, so there is no chart."),
    h("h2", {}, "By leaf pin"),
    groups.length === 0 ? h("p", { class: "muted" }, "No reports in the last 30 days.")
      : h("div", { class: "scroll" }, h("table", { id: "report-groups" },
        h("thead", {}, h("tr", {}, ["Host", "Leaf pin", "Reports", "First seen", "Last seen", "Verdict", "Pins the client knew"]
          .map((name) => h("th", { scope: "col" }, name)))),
        h("tbody", {}, groups.map((group) => h("tr", {},
          h("th", { scope: "row" }, group.host),
          h("td", { class: "mono hash" }, group.leafPin),
          h("td", { class: "num" }, group.count),
          h("td", { class: "nowrap" }, when(group.firstSeen)),
          h("td", { class: "nowrap" }, when(group.lastSeen)),
          h("td", {}, group.matchesCurrentPin
            ? badge("client held an old set", "warn", "the chain matches a current pin: the client had not fetched the new set")
            : badge("key not pinned", "bad", "the chain matches no current pin: a key change or an interception")),
          h("td", { class: "mono small hash" }, h("ul", { class: "bare" }, (group.knownPins || []).map((pin) => h("li", {}, pin))))))))));
}
