// Trust: the server's signing keys (/keys) and, on servers with offline root keys (issue 13), the trust
// documents (/trust, /trust/{version}) with their root signatures checked in this browser.
import { call, describe, optional } from "./api.js";
import { badge, h, loading, replace, when } from "./dom.js";
import { canVerify, readTrustDocument } from "./jws.js";

function keyTable(keys, id) {
  return h("div", { class: "scroll" }, h("table", { id },
    h("thead", {}, h("tr", {}, ["Key id (kid)", "Algorithm", "Public key (x)"].map((name) => h("th", { scope: "col" }, name)))),
    h("tbody", {}, keys.map((key) => h("tr", {},
      h("td", { class: "mono hash" }, key.kid), h("td", {}, `${key.kty || ""} ${key.crv || ""} ${key.alg || ""}`.trim()),
      h("td", { class: "mono hash" }, key.x))))));
}

async function trustView(response) {
  const { payload, signatures } = await readTrustDocument(response.text);
  const element = h("div", { class: "card", id: `trust-v${payload.version}` },
    h("h3", {}, `Version ${payload.version}`),
    h("p", {}, `issued ${when(payload.issuedAt)} · expires ${when(payload.expiresAt)} · root threshold ${payload.rootThreshold}`),
    h("h4", {}, "Signatures"),
    h("ul", {}, signatures.map((sig) => h("li", {}, h("span", { class: "mono" }, sig.kid), " ",
      sig.verified ? badge("verified", "ok") : badge(sig.listed ? (canVerify() ? "invalid" : "not checked") : "not a listed root key", sig.listed ? "bad" : "warn")))),
    h("h4", {}, "Signing keys it delegates to"), keyTable(payload.signingKeys || [], `signing-v${payload.version}`),
    h("h4", {}, "Root keys for the next version"), keyTable(payload.rootKeys || [], `roots-v${payload.version}`));
  return { element, version: payload.version };
}

export async function trustPage(main) {
  document.title = "Trust · pinset console";
  replace(main, h("h1", { tabindex: "-1" }, "Trust"), loading("Loading keys…"));
  const [keys, trust] = await Promise.all([call("/keys", { auth: false }), optional("/trust", { auth: false })]);
  const trustSection = h("section", { "aria-labelledby": "trust-title" }, h("h2", { id: "trust-title" }, "Trust documents"));
  if (!trust) {
    trustSection.append(h("p", { class: "muted", id: "no-trust" },
      "This server publishes no trust document (GET /trust answers 404): clients trust the signing keys they ship."));
  } else {
    try {
      const { element: latest, version } = await trustView(trust);
      const older = h("div");
      const versions = h("p", {}, "Older versions: ", Array.from({ length: Math.max(0, version - 1) }, (_, i) => version - 1 - i).map((v) => {
        const button = h("button", { type: "button", class: "quiet" }, `v${v}`);
        button.addEventListener("click", async () => {
          try {
            replace(older, (await trustView(await call(`/trust/${v}`, { auth: false }))).element);
          } catch (error) {
            replace(older, h("p", { class: "error" }, describe(error)));
          }
        });
        return [button, " "];
      }));
      trustSection.append(latest, version > 1 ? versions : null, older);
    } catch (error) {
      trustSection.append(h("p", { class: "error" }, `The trust document is unreadable: ${error.message}`));
    }
  }
  replace(main,
    h("h1", { tabindex: "-1" }, "Trust"),
    h("section", { "aria-labelledby": "keys-title" },
      h("h2", { id: "keys-title" }, "Signing keys"),
      h("p", { class: "muted" }, "Every key this server signs or has signed pin documents with (GET /keys). Apps never take trust from this list: they ship the keys."),
      keyTable(keys.data.keys || [], "keys")),
    trustSection);
}
