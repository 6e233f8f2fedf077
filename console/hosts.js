// Hosts: every host at a glance (version, pins, expiry, monitor state when the server has a monitor),
// a filter, and a form to publish a new host.
import { call, features, hostPath, monitorPass } from "./api.js";
import { badge, h, loading, relative, replace, when } from "./dom.js";
import { busy, field, PIN_RULES, select, showError } from "./forms.js";

const STATES = { ok: "ok", warning: "warn", failing: "bad", unknown: "info" };

/** The monitor's state as a badge (issue 14 adds `state`; absent means the server has no monitor). */
export function stateBadge(state) {
  const value = state && typeof state === "object" ? state.state : state;
  return badge(value || "unknown", STATES[value] || "info", `monitor state: ${value || "unknown"}`);
}

function expiryBadge(host) {
  if (host.pinCount === 0) return badge("retired", "info");
  const left = new Date(host.expiresAt).getTime() - Date.now();
  if (left < 0) return badge("expired", "bad");
  if (left < 2 * 86400000) return badge("expires soon", "warn");
  return null;
}

/** Hosts per page: the server reads one page through its name index, so a million hosts cost no more. */
export const PAGE_SIZE = 200;
/** Where each page shown so far started (`after`), so that Previous goes back; reset by a fresh visit. */
const pages = { starts: [null] };

export async function hostsPage(main, { page = 0 } = {}) {
  document.title = "Hosts · pinset console";
  if (page === 0) pages.starts = [null];
  replace(main, h("h1", { tabindex: "-1" }, "Hosts"), loading("Loading hosts…"));
  const after = pages.starts[page];
  const query = `?limit=${PAGE_SIZE}${after ? `&after=${encodeURIComponent(after)}` : ""}`;
  const [{ data }, pass] = await Promise.all([call(`/admin/hosts${query}`), monitorPass()]);
  if (data.next) pages.starts[page + 1] = data.next;
  const hosts = (data.hosts || []).slice().sort((a, b) => a.host.localeCompare(b.host));
  features.monitor = hosts.some((host) => "state" in host);

  const filter = h("input", { id: "filter", type: "search", placeholder: "api.example.com", autocomplete: "off" });
  const count = h("p", { class: "muted", role: "status", id: "host-count" });
  const body = h("tbody");
  const headers = ["Host", "Version", "Pins", "Document expires", "Updated"];
  if (features.monitor) headers.push("Monitor");
  const table = h("div", { class: "scroll" }, h("table", { id: "hosts" },
    h("caption", { class: "visually-hidden" }, "Hosts"),
    h("thead", {}, h("tr", {}, headers.map((name) => h("th", { scope: "col", class: ["Version", "Pins"].includes(name) ? "num" : null }, name)))), body));

  function show() {
    const needle = filter.value.trim().toLowerCase();
    const shown = hosts.filter((host) => host.host.includes(needle));
    replace(body, shown.map((host) => h("tr", { dataset: { host: host.host } },
      h("th", { scope: "row" }, h("a", { href: `#/hosts/${encodeURIComponent(host.host)}` }, host.host), " ", expiryBadge(host)),
      h("td", { class: "num" }, host.version),
      h("td", { class: "num" }, host.pinCount),
      h("td", {}, h("time", { datetime: host.expiresAt, title: when(host.expiresAt) }, relative(host.expiresAt))),
      h("td", {}, h("time", { datetime: host.updatedAt }, when(host.updatedAt))),
      features.monitor ? h("td", {}, stateBadge(host.state)) : null)));
    const paged = page > 0 || data.next;
    replace(count, hosts.length === 0 && page === 0 ? "No hosts yet: publish the first one below."
      : `${shown.length} of ${hosts.length} host${hosts.length === 1 ? "" : "s"}${paged ? ` on page ${page + 1}` : ""}`);
  }
  filter.addEventListener("input", show);
  show();

  replace(main,
    h("h1", { tabindex: "-1" }, "Hosts"),
    h("div", { class: "toolbar" }, h("label", { for: "filter" }, "Filter by name"), filter),
    count,
    pass ? h("p", { class: "muted", id: "monitor-pass" },
      `Monitor: the last pass probed ${pass.hosts} host${pass.hosts === 1 ? "" : "s"} in ${pass.seconds < 10 ? pass.seconds.toFixed(1) : Math.round(pass.seconds)} s.`)
      : null,
    table,
    page > 0 || data.next ? h("div", { class: "toolbar", id: "pager" },
      page > 0 ? h("button", { type: "button", class: "quiet", id: "previous-page", onclick: () => hostsPage(main, { page: page - 1 }) }, "Previous page") : null,
      data.next ? h("button", { type: "button", class: "quiet", id: "next-page", onclick: () => hostsPage(main, { page: page + 1 }) }, "Next page") : null)
      : null,
    newHostForm(hosts));
}

function newHostForm(hosts) {
  const host = field("new-host", "Host name", h("input", { type: "text", required: true, autocomplete: "off", placeholder: "api.example.com" }));
  const current = field("new-current", "Current pin (SHA-256, base64)", h("input", { type: "text", class: "mono", autocomplete: "off" }),
    "The key the host serves now.");
  const backup = field("new-backup", "Backup pin (SHA-256, base64)", h("input", { type: "text", class: "mono", autocomplete: "off" }),
    "A key held in reserve: an enforcing set needs one, so that losing a key never locks clients out.");
  const type = field("new-type", "Pin type", select([["spki", "spki (public key)"], ["certificate", "certificate"]], "spki"));
  const enforce = h("input", { type: "checkbox", id: "new-enforce", checked: true });
  const subdomains = h("input", { type: "checkbox", id: "new-subdomains" });
  const formError = h("p", { class: "error", role: "alert", id: "new-error" });
  const button = h("button", { type: "submit" }, "Publish host");
  const form = h("form", { class: "card", id: "new-host-form", "aria-labelledby": "new-host-title", novalidate: true },
    h("h2", { id: "new-host-title" }, "Publish a new host"),
    host.element, current.element, backup.element, type.element,
    h("div", { class: "check" }, enforce, h("label", { for: "new-enforce" }, "Enforce (unchecked: report-only)")),
    h("div", { class: "check" }, subdomains, h("label", { for: "new-subdomains" }, "Include subdomains")),
    formError, button);
  const pinSlot = backup.error;
  const slots = Object.fromEntries(PIN_RULES.map((rule) => [rule, pinSlot]));
  slots.invalidHost = host.error;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = host.control.value.trim().toLowerCase();
    if (!name) {
      showError(new Error("Type the host name first."), { "*": host.error }, formError);
      return;
    }
    const pins = [];
    if (current.control.value.trim()) pins.push({ sha256: current.control.value.trim(), role: "current", type: type.control.value });
    if (backup.control.value.trim()) pins.push({ sha256: backup.control.value.trim(), role: "backup", type: type.control.value });
    await busy(button, async () => {
      try {
        // A new host has no ETag to send: this form refuses a listed host, so it never replaces a set.
        if (hosts.some((entry) => entry.host === name)) {
          showError(new Error(`${name} already exists: open it to edit its pins.`), { "*": host.error }, formError);
          return;
        }
        await call(hostPath(name), {
          method: "PUT", body: { pins, enforce: enforce.checked, includeSubdomains: subdomains.checked },
        });
        location.hash = `#/hosts/${encodeURIComponent(name)}`;
      } catch (error) {
        if (error.status === 400 && error.problem?.type?.endsWith("invalid-host")) showError(error, { "*": host.error }, formError);
        else showError(error, slots, formError);
      }
    });
  });
  return form;
}

