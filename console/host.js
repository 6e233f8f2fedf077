// One host: its pins, edits (add, remove, enforce or report-only, retire), the signed document as served
// with its signature checked in this browser, the monitor's last probe, and the history.
import { ApiError, call, describe, features, hostPath, optional, pinPath } from "./api.js";
import { badge, h, loading, relative, replace, when } from "./dom.js";
import { busy, field, isoFromLocal, PIN_RULES, ROLES, select, showError, TYPES } from "./forms.js";
import { stateBadge } from "./hosts.js";
import { verifyPinDocument } from "./jws.js";
import { logVerifierKey } from "./log.js";
import { verifyDocumentProof } from "./tlog.js";

let flash = null; // {host, text}: the outcome of the last write, shown once after the reload

export async function hostPage(main, host) {
  document.title = `${host} · pinset console`;
  replace(main, h("p", {}, h("a", { href: "#/hosts" }, "← Hosts")), h("h1", { tabindex: "-1" }, host), loading(`Loading ${host}…`));
  const [detail, history, served, keys, status, proof] = await Promise.all([
    call(hostPath(host)),
    call(`${hostPath(host)}/history`),
    call(`/pins/${encodeURIComponent(host)}`, { auth: false }).catch((error) => error),
    call("/keys", { auth: false }).catch((error) => error),
    features.monitor === false ? null : optional(`${hostPath(host)}/status`).catch((error) => error),
    optional(`/pins/${encodeURIComponent(host)}/proof`, { auth: false }).catch((error) => error),
  ]);
  const set = detail.data;
  const state = { host, set, etag: detail.etag || set.etag, reload: () => hostPage(main, host) };
  const notice = flash && flash.host === host ? h("p", { class: "notice", role: "status" }, flash.text) : null;
  flash = null;

  replace(main,
    h("p", {}, h("a", { href: "#/hosts" }, "← Hosts")),
    h("h1", { tabindex: "-1" }, host),
    h("p", { class: "badges" },
      badge(`version ${set.version}`, "info"),
      set.pins.length === 0 ? badge("retired: pins nothing", "warn") : set.enforce ? badge("enforcing", "ok") : badge("report-only", "warn"),
      set.includeSubdomains ? badge("includes subdomains", "info") : null,
      h("span", { id: "signature-summary" }),
      h("span", { class: "muted" }, ` updated ${when(set.updatedAt)} · document expires ${relative(set.expiresAt)}`)),
    notice,
    pinsSection(state),
    documentSection(state, served, keys),
    proofSection(state, served, proof),
    monitorSection(status),
    historySection(history.data),
    h("h2", { class: "part" }, "Edit"),
    addPinSection(state),
    policySection(state),
    retireSection(state));
}

/** Performs a write with If-Match, then reloads the page with `done` as notice; errors go to `slots`. */
async function write(state, button, request, done, slots, fallback) {
  await busy(button, async () => {
    try {
      const result = await call(request.path, { ...request, ifMatch: state.etag });
      flash = { host: state.host, text: `${done} Now at version ${result.data.version}.` };
      await state.reload();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
      showError(error, slots, fallback);
      if (error instanceof ApiError && error.status === 412) {
        const where = Object.values(slots).find((slot) => slot.hasChildNodes()) || fallback;
        where.append(h("button", { type: "button", class: "quiet", onclick: () => state.reload() }, "Reload this host"));
      }
    }
  });
}

function pinsSection(state) {
  const { set } = state;
  const error = h("div", { class: "error", role: "alert", id: "pins-error" });
  const rows = set.pins.map((pin) => {
    const remove = h("button", { type: "button", class: "quiet danger", "aria-label": `Remove pin ${pin.sha256}` }, "Remove");
    remove.addEventListener("click", () => write(state, remove,
      { path: `${hostPath(state.host)}/pins/${pinPath(pin.sha256)}`, method: "DELETE" },
      "Pin removed.", {}, error));
    const expired = pin.expiresAt && new Date(pin.expiresAt).getTime() < Date.now();
    return h("tr", { dataset: { pin: pin.sha256 } },
      h("td", {}, badge(pin.role, pin.role === "backup" ? "ok" : "info")),
      h("td", {}, pin.type),
      h("td", { class: "mono hash" }, pin.sha256),
      h("td", {}, pin.expiresAt ? h("time", { datetime: pin.expiresAt }, when(pin.expiresAt)) : "never", expired ? badge("expired", "bad") : null),
      h("td", { class: "comment" }, pin.comment || ""),
      h("td", {}, remove));
  });
  return h("section", { "aria-labelledby": "pins-title" },
    h("h2", { id: "pins-title" }, `Pins (${set.pins.length})`),
    set.pins.length === 0 ? h("p", { class: "muted" }, "This host pins nothing: clients that fetch its document stop pinning it.")
      : h("div", { class: "scroll" }, h("table", { id: "pins" },
        h("thead", {}, h("tr", {}, ["Role", "Type", "SHA-256", "Expires", "Comment", ""].map((name) => h("th", { scope: "col" }, name)))),
        h("tbody", {}, rows))),
    error);
}

function addPinSection(state) {
  const method = (value, text, checked) => h("label", { class: "check" },
    h("input", { type: "radio", name: "pin-method", value, checked }), text);
  const methods = h("fieldset", {}, h("legend", {}, "Add by"),
    method("hash", "SHA-256 hash", true), method("certificate", "certificate (PEM)"), method("capture", "capture from the live host"));
  const hash = field("pin-hash", "SHA-256 (base64)", h("input", { type: "text", class: "mono", autocomplete: "off", placeholder: "r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=" }));
  const pem = field("pin-pem", "Certificate (PEM)", h("textarea", { rows: 5, class: "mono", spellcheck: "false", placeholder: "-----BEGIN CERTIFICATE-----" }),
    "The server computes the pin from it, according to the type below.");
  const capture = h("p", { class: "muted", id: "pin-capture" },
    "The server connects to the host and pins the leaf key it serves now ({\"capture\": \"leaf\"}). ",
    "Servers without the lock-out pre-flight refuse this; their answer shows here.");
  const role = field("pin-role", "Role", select(ROLES, "current"));
  const type = field("pin-type", "Type", select(TYPES, "spki"));
  const expires = field("pin-expires", "Expires (optional, your local time)", h("input", { type: "datetime-local" }));
  const comment = field("pin-comment", "Comment (optional, at most 200 characters)", h("input", { type: "text", maxlength: 200 }));
  const formError = h("div", { class: "error", role: "alert", id: "add-error" });
  const button = h("button", { type: "submit" }, "Add pin");
  const form = h("form", { class: "card", id: "add-pin-form", "aria-labelledby": "add-title", novalidate: true },
    h("h2", { id: "add-title" }, "Add a pin"), methods, hash.element, pem.element, capture,
    h("div", { class: "row" }, role.element, type.element), h("div", { class: "row" }, expires.element, comment.element),
    formError, button);
  const chosen = () => form.querySelector("input[name=pin-method]:checked").value;
  const sync = () => {
    hash.element.hidden = chosen() !== "hash";
    pem.element.hidden = chosen() !== "certificate";
    capture.hidden = chosen() !== "capture";
  };
  methods.addEventListener("change", sync);
  sync();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const pin = { role: role.control.value, type: type.control.value };
    if (chosen() === "hash") pin.sha256 = hash.control.value.trim();
    else if (chosen() === "certificate") pin.certificate = pem.control.value.trim();
    else pin.capture = "leaf";
    const expiresAt = isoFromLocal(expires.control.value);
    if (expiresAt) pin.expiresAt = expiresAt;
    if (comment.control.value) pin.comment = comment.control.value;
    const input = chosen() === "hash" ? hash.error : chosen() === "certificate" ? pem.error : formError;
    const slots = Object.fromEntries(PIN_RULES.map((rule) => [rule, input]));
    slots.expiredPin = expires.error;
    write(state, button, { path: `${hostPath(state.host)}/pins`, method: "POST", body: { pins: [pin] } },
      "Pin added.", slots, formError);
  });
  return form;
}

/** The body of a PUT that keeps the set as it is except for `changes`. */
function replacement(set, changes) {
  const pins = set.pins.map((pin) => {
    const input = { sha256: pin.sha256, type: pin.type, role: pin.role };
    if (pin.expiresAt) input.expiresAt = pin.expiresAt;
    if (pin.comment) input.comment = pin.comment;
    return input;
  });
  const body = { pins, enforce: set.enforce, includeSubdomains: set.includeSubdomains, ...changes };
  if (set.reportUri) body.reportUri = set.reportUri;
  return body;
}

function policySection(state) {
  const { set } = state;
  const error = h("div", { class: "error", role: "alert", id: "policy-error" });
  const target = !set.enforce;
  const button = h("button", { type: "button", id: "toggle-enforce" }, target ? "Switch to enforce" : "Switch to report-only");
  button.addEventListener("click", () => write(state, button,
    { path: hostPath(state.host), method: "PUT", body: replacement(set, { enforce: target }) },
    target ? "Now enforcing." : "Now report-only: failures are reported, connections are not blocked.", {}, error));
  return h("section", { "aria-labelledby": "policy-title" },
    h("h2", { id: "policy-title" }, "Policy"),
    h("p", {}, set.enforce
      ? "Enforcing: clients refuse connections whose chain matches no pin, and report them."
      : "Report-only: clients report failures but let the connection through."),
    set.reportUri ? h("p", { class: "muted" }, "Reports go to ", h("span", { class: "mono" }, set.reportUri)) : null,
    button, error);
}

/** The document's transparency-log proof (PROTOCOL §7.3), checked in this browser: inclusion of the exact bytes
 * served (RFC 6962, WebCrypto SHA-256) and, with the log's vkey given on the Log page, the checkpoint's signature. */
function proofSection(state, served, proof) {
  const section = h("section", { "aria-labelledby": "proof-title", id: "log-proof" },
    h("h2", { id: "proof-title" }, "Transparency log proof"));
  if (proof === null) {
    section.append(h("p", { class: "muted", id: "proof" }, "This server keeps no transparency log (no proof is served)."));
    return section;
  }
  if (proof instanceof Error || served instanceof Error) {
    section.append(h("p", { class: "error", id: "proof" }, `GET /pins/${state.host}/proof: ${describe(proof instanceof Error ? proof : served)}`));
    return section;
  }
  const verdict = h("p", { id: "proof", role: "status" }, badge("checking…", "info"));
  const details = h("div");
  section.append(verdict, details);
  const vkey = logVerifierKey();
  verifyDocumentProof(served.text, proof.text, vkey).then((result) => {
    const signature = result.signed === null
      ? badge("log signature not checked", "warn", "no log key: give it on the Log page")
      : result.signed ? badge("log signature verified", "ok") : badge("log signature NOT verified", "bad");
    replace(verdict,
      result.included ? badge("included", "ok", "included in the log") : badge("not included", "bad", "not shown to be in the log"),
      " ", result.included ? signature : null, " ",
      result.included
        ? `Entry ${result.index} of ${result.checkpoint.origin}, checkpoint size ${result.checkpoint.size}: the inclusion proof of the exact bytes served was checked in this browser (WebCrypto SHA-256).`
        : `${result.reason}.`,
      result.signed === null && result.included ? h("span", { class: "muted" }, " Give the log's vkey on the ", h("a", { href: "#/log" }, "Log page"), " to check the checkpoint's signature.") : null,
      proof.etag && served.etag && proof.etag !== served.etag
        ? h("span", { class: "warn-text" }, " Note: the proof's ETag is not the document's (a write in between); reload.") : null);
    replace(details, h("details", {}, h("summary", {}, "Proof (C2SP tlog-proof)"), h("pre", { class: "mono wrap", id: "proof-text" }, proof.text)));
  });
  return section;
}

function documentSection(state, served, keys) {
  const section = h("section", { "aria-labelledby": "doc-title", id: "document" },
    h("h2", { id: "doc-title" }, "Signed document, as served"));
  if (served instanceof Error) {
    section.append(h("p", { class: "error" }, `GET /pins/${state.host}: ${describe(served)}`));
    return section;
  }
  const verdict = h("p", { id: "signature", role: "status" }, badge("checking…", "info"));
  const details = h("div");
  section.append(verdict, details);
  const jwks = keys instanceof Error ? null : keys.data;
  verifyPinDocument(served.text, jwks).then((result) => {
    const notes = [];
    if (result.payload) {
      if (result.payload.host !== state.host) notes.push(`the payload names ${result.payload.host}, not ${state.host}`);
      if (result.payload.version !== state.set.version) notes.push(`it is version ${result.payload.version}; the admin API says ${state.set.version}`);
      if (new Date(result.payload.expiresAt).getTime() < Date.now()) notes.push("it has expired");
    }
    const summary = document.getElementById("signature-summary");
    if (summary) {
      replace(summary, result.verified ? badge("signature verified", "ok") : badge("signature NOT verified", "bad"));
    }
    replace(verdict,
      result.verified ? badge("verified", "ok", "signature verified") : badge("not verified", "bad", "signature not verified"),
      " ",
      result.verified
        ? ["Ed25519 signature checked in this browser (WebCrypto) with key ", h("span", { class: "mono hash" }, result.header.kid), " from /keys."]
        : `The signature could not be verified: ${result.reason || (keys instanceof Error ? describe(keys) : "unknown reason")}.`,
      notes.length ? h("span", { class: "warn-text" }, ` Note: ${notes.join("; ")}.`) : null);
    replace(details,
      h("p", { class: "muted" }, `ETag ${served.etag || "—"} · ${served.text.length} bytes`),
      h("details", { open: true }, h("summary", {}, "Payload (decoded)"),
        h("pre", { class: "mono", id: "payload" }, JSON.stringify(result.payload, null, 2))),
      h("details", {}, h("summary", {}, "Protected header (decoded)"),
        h("pre", { class: "mono" }, JSON.stringify(result.header, null, 2))),
      h("details", {}, h("summary", {}, "Raw JWS"), h("pre", { class: "mono wrap" }, served.text)));
  });
  return section;
}

/** Renders any JSON value as text: objects as definition lists, arrays as lists. */
function plain(value) {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) return h("ul", {}, value.map((item) => h("li", {}, plain(item))));
  if (typeof value === "object") {
    return h("dl", { class: "plain" }, Object.entries(value).flatMap(([name, item]) => [h("dt", {}, name), h("dd", {}, plain(item))]));
  }
  return String(value);
}

function monitorSection(status) {
  if (status === null || status === undefined) return null; // no monitor on this server (issue 14 adds it)
  const section = h("section", { "aria-labelledby": "monitor-title" }, h("h2", { id: "monitor-title" }, "Monitor"));
  if (status instanceof Error) {
    section.append(h("p", { class: "error" }, describe(status)));
    return section;
  }
  const data = status.data || {};
  section.append(h("p", {}, stateBadge(data.state), " ", data.checkedAt || data.probedAt || data.at
    ? `last probe ${when(data.checkedAt || data.probedAt || data.at)}` : "no probe yet"));
  const rest = Object.fromEntries(Object.entries(data).filter(([name]) => !["state", "host"].includes(name)));
  section.append(plain(rest));
  return section;
}

function historySection(history) {
  const versions = history.versions || [];
  return h("section", { "aria-labelledby": "history-title" },
    h("h2", { id: "history-title" }, "History"),
    h("ol", { class: "timeline", id: "history" }, versions.map((entry) => h("li", {},
      h("p", {}, h("strong", {}, `v${entry.version} ${entry.change}`), " by ",
        h("span", { class: "token-name" }, entry.tokenName), " · ", h("time", { datetime: entry.at }, when(entry.at))),
      entry.added.length ? h("p", { class: "mono small" }, entry.added.map((pin) => h("span", { class: "added" }, `+ ${pin}`))) : null,
      entry.removed.length ? h("p", { class: "mono small" }, entry.removed.map((pin) => h("span", { class: "removed" }, `− ${pin}`))) : null))));
}

function retireSection(state) {
  if (state.set.pins.length === 0) return null;
  const error = h("div", { class: "error", role: "alert", id: "retire-error" });
  const button = h("button", { type: "button", class: "danger", id: "retire" }, `Retire ${state.host}`);
  button.addEventListener("click", () => write(state, button, { path: hostPath(state.host), method: "DELETE" },
    "Host retired: its document now pins nothing.", {}, error));
  return h("details", { class: "card danger-zone" },
    h("summary", {}, "Retire this host"),
    h("p", {}, "Publishes a signed document with no pins at the next version: clients stop pinning ", state.host,
      ". The host and its history stay listed."),
    button, error);
}
