// The phone's pinned key against the log: when this table's /verify page has checked
// an export, the key this phone pinned for the campaign (phone-db.js "witness", pinned by
// witness.js visit() from GET /checkpoint) must be the campaign key the verified log itself
// records (campaign.created's checkpoint_key, or a checkpoint.key event). A server that
// showed the phone one key and recorded another in the log is flagged in red (#pin-check).
import * as db from "./phone-db.js";

const out = document.getElementById("pin-check");

function say(text, state) {
  out.textContent = text;
  out.className = state === "mismatch" ? "banner" : "muted";
  out.setAttribute("role", state === "mismatch" ? "alert" : "status");
  out.dataset.state = state;
  out.hidden = false;
}

/** Compare the pinned key with a verified export's recorded key; returns the state. */
export async function comparePin(report) {
  if (!report || !report.ok || !report.campaign) { return null; }
  let pinned;
  try {
    pinned = await db.get("witness", "campaign:" + report.campaign);
  } catch (e) {
    say("Your phone could not read the key it pinned: " + e.message + ".", "error");
    return "error";
  }
  if (!pinned || !pinned.vkey) {
    say("Your phone has not pinned this campaign's key yet: it pins it on the table's pages once a checkpoint is signed.", "unpinned");
    return "unpinned";
  }
  if (!report.checkpointKey) {
    say("The log records no checkpoint key, yet your phone pinned " + pinned.vkey +
      ": the server signs checkpoints with a key the log does not hold. Ask your GM why.", "mismatch");
    return "mismatch";
  }
  if (pinned.vkey !== report.checkpointKey) {
    say("The key your phone pinned (" + pinned.vkey + ") is not the campaign key this log records (" +
      report.checkpointKey + "): the checkpoints your phone checked are not signed by this log's key. " +
      "Ask your GM why.", "mismatch");
    return "mismatch";
  }
  say("The key your phone pinned is the campaign key this log records.", "match");
  return "match";
}

if (out) {
  document.addEventListener("ledger:verified", function (event) {
    comparePin(event.detail).catch(function (e) { say("Your phone could not compare its pinned key: " + e.message + ".", "error"); });
  });
}
