// The transparency log (PROTOCOL §7): tree size, the latest checkpoint with its log signature checked in this
// browser, its cosignatures, and each witness's last answer (GET /admin/log). The log's vkey is typed by the
// user (from the server's start-up banner or the clients' policy) and kept in this tab only: the page checks
// the server against a key it did not hand out itself.
import { ApiError, call, optional } from "./api.js";
import { badge, h, loading, relative, replace, when } from "./dom.js";
import { busy, showError } from "./forms.js";
import { canVerify } from "./jws.js";
import { parseCheckpoint, parseNote, parseVerifierKey, verifyNoteSignature } from "./tlog.js";

const VKEY = "pinset.logVKey";

/** The log's vkey the user gave in this tab, or "" (never one the server states: it is what is checked). */
export const logVerifierKey = () => sessionStorage.getItem(VKEY) || "";

async function signatureBadge(checkpointText, vkey) {
  if (!vkey) return badge("log signature not checked", "warn", "no log key given");
  const key = parseVerifierKey(vkey);
  if (!key) return badge("not an Ed25519 log vkey", "bad");
  if (!canVerify()) return badge("not checked: no WebCrypto (open the console over HTTPS or on localhost)", "warn");
  try {
    const note = parseNote(checkpointText);
    const ok = key.name === parseCheckpoint(note.text).origin && await verifyNoteSignature(note, key);
    return ok ? badge("log signature verified", "ok") : badge("log signature NOT verified", "bad");
  } catch (error) {
    return badge(`unreadable checkpoint: ${error.message}`, "bad");
  }
}

let flash = null; // the outcome of the last acknowledgement, shown once after the reload

// PROTOCOL §7.2: checkpoints signed by this log's key that are not of its tree. An open fork is shown with both
// notes and an Acknowledge button (POST /admin/log/forks/{id}/acknowledge), behind a disclosure so that one click
// cannot hide it; acknowledged forks stay listed below, folded.
function forkSection(log, reload) {
  const forks = log.forks || [];
  const open = forks.filter((fork) => !fork.acknowledgedAt);
  const closed = forks.filter((fork) => fork.acknowledgedAt);
  if (forks.length === 0) return null;
  const notes = (fork) => [
    h("p", { class: "muted" }, "The foreign checkpoint"),
    h("pre", { class: "mono wrap foreign-checkpoint" }, fork.foreignCheckpoint),
    h("p", { class: "muted" }, "This server's checkpoint"),
    h("pre", { class: "mono wrap own-checkpoint" }, fork.ownCheckpoint)];
  const acknowledge = (fork) => {
    const error = h("div", { class: "error", role: "alert", id: `ack-fork-${fork.id}-error` });
    const button = h("button", { type: "button", class: "danger", id: `ack-fork-${fork.id}` }, `Acknowledge fork ${fork.id}`);
    button.addEventListener("click", () => busy(button, async () => {
      try {
        await call(`/admin/log/forks/${encodeURIComponent(fork.id)}/acknowledge`, { method: "POST" });
        flash = `Fork ${fork.id} acknowledged: no longer shown as open (still listed below).`;
        await reload();
      } catch (failure) {
        if (failure instanceof ApiError && failure.status === 401) return;
        showError(failure, {}, error);
      }
    }));
    return h("details", { class: "danger-zone" },
      h("summary", {}, `Acknowledge fork ${fork.id}…`),
      h("p", {}, "Acknowledge once the fork is handled: the log key replaced through the root keys (a new log key ",
        "and origin), the witnesses' evidence kept. The fork then leaves /metrics, pinset status and this alert; ",
        "its record stays."),
      button, error);
  };
  return [
    open.length === 0 ? null : h("section", { class: "card", id: "log-forks", role: "alert", "aria-labelledby": "forks-title" },
      h("h2", { id: "forks-title" }, badge(`LOG FORK: ${open.length} open`, "bad")),
      h("p", {}, "The log key signed checkpoints that are not this server's: someone holds it and extended the ",
        "log elsewhere. Recover as for a stolen key (new log key and origin), then acknowledge."),
      open.map((fork) => h("div", { class: "fork", id: `fork-${fork.id}` },
        h("h3", {}, `Fork ${fork.id}: ${fork.source}, ${relative(fork.detectedAt)}`),
        notes(fork),
        acknowledge(fork)))),
    closed.length === 0 ? null : h("details", { class: "card", id: "acknowledged-forks" },
      h("summary", {}, `${closed.length} acknowledged fork${closed.length === 1 ? "" : "s"}`),
      closed.map((fork) => h("div", { class: "fork", id: `fork-${fork.id}` },
        h("h3", {}, `Fork ${fork.id}: ${fork.source}`),
        h("p", { class: "muted" }, `detected ${when(fork.detectedAt)}, acknowledged ${when(fork.acknowledgedAt)}`),
        notes(fork))))];
}

export async function logPage(main) {
  document.title = "Log · pinset console";
  replace(main, h("h1", { tabindex: "-1" }, "Transparency log"), loading("Loading the log…"));
  const answer = await optional("/admin/log");
  if (!answer) {
    replace(main, h("h1", { tabindex: "-1" }, "Transparency log"),
      h("p", { class: "muted", id: "no-log" },
        "This server keeps no transparency log (GET /admin/log answers 404): start it with --log-key (PROTOCOL §7)."));
    return;
  }
  const log = answer.data;
  const vkey = logVerifierKey();
  const verdict = h("span", { id: "checkpoint-signature", role: "status" }, badge("checking…", "info"));
  const input = h("input", { id: "log-vkey", type: "text", class: "mono", autocomplete: "off", spellcheck: "false", value: vkey,
    placeholder: `${log.origin}+01234567+AQ…`, "aria-describedby": "log-vkey-help" });
  const form = h("form", { class: "card", id: "log-vkey-form" },
    h("label", { for: "log-vkey" }, "Log key (vkey)"), input,
    h("p", { class: "muted", id: "log-vkey-help" },
      "The log's verifier key, as `pinset serve` prints it (log vkey) or as your clients' policy names it. ",
      "It stays in this tab; the checkpoint's Ed25519 signature is checked against it here, with WebCrypto."),
    h("button", { type: "submit" }, "Check the signature"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = input.value.trim();
    if (value) sessionStorage.setItem(VKEY, value);
    else sessionStorage.removeItem(VKEY);
    logPage(main);
  });
  const pending = log.treeSize - log.checkpointSize;
  const notice = flash ? h("p", { class: "notice", role: "status", id: "log-notice" }, flash) : null;
  flash = null;
  replace(main,
    h("h1", { tabindex: "-1" }, "Transparency log"),
    h("p", { class: "badges" },
      badge(`tree size ${log.treeSize}`, "info"),
      pending > 0 ? badge(`${pending} entr${pending === 1 ? "y" : "ies"} awaiting a checkpoint`, "warn") : null,
      h("span", { class: "mono" }, log.origin)),
    notice,
    forkSection(log, () => logPage(main)),
    h("section", { "aria-labelledby": "checkpoint-title" },
      h("h2", { id: "checkpoint-title" }, `Checkpoint (size ${log.checkpointSize})`),
      log.checkpoint ? [h("p", {}, verdict), h("pre", { class: "mono wrap", id: "checkpoint" }, log.checkpoint)]
        : h("p", { class: "muted" }, "No checkpoint is signed yet: nothing has been logged."),
      h("h3", {}, "Cosigned by"),
      (log.cosignedBy || []).length
        ? h("ul", { id: "cosigned-by" }, log.cosignedBy.map((name) => h("li", { class: "mono" }, name)))
        : h("p", { class: "muted", id: "cosigned-by" }, "No witness cosignature on this checkpoint.")),
    h("section", { "aria-labelledby": "witnesses-title" },
      h("h2", { id: "witnesses-title" }, "Witnesses"),
      (log.witnesses || []).length === 0
        ? h("p", { class: "muted", id: "witnesses" }, "No witness is configured (pinset serve --witness URL VKEY).")
        : h("div", { class: "scroll" }, h("table", { id: "witnesses" },
          h("thead", {}, h("tr", {}, ["Witness", "URL", "Last answer", "When", "Cosigned size"].map((name) => h("th", { scope: "col" }, name)))),
          h("tbody", {}, log.witnesses.map((w) => h("tr", {},
            h("td", { class: "mono" }, w.keyName),
            h("td", { class: "mono" }, w.url),
            h("td", {}, w.lastError ? badge(w.lastAnswer || "error", "bad") : w.lastAnswer ? badge(w.lastAnswer, "ok") : badge("not asked yet", "info"),
              w.lastError ? h("span", { class: "error" }, ` ${w.lastError}`) : null),
            h("td", {}, w.lastAt ? h("time", { datetime: w.lastAt, title: when(w.lastAt) }, relative(w.lastAt)) : "—"),
            h("td", {}, w.cosignedSize == null ? "—" : String(w.cosignedSize)))))))),
    form);
  if (log.checkpoint) replace(verdict, await signatureBadge(log.checkpoint, vkey));
}

