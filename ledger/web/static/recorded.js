// After a roll (#27): the roll form sends the player to /log?recorded=SEQ&verdict=V#eSEQ.
// When entry SEQ is in this log, a banner says "Recorded #SEQ — V" and the entry is marked;
// a made-up link shows nothing (the entry must be there).
const query = new URLSearchParams(location.search);
const seq = query.get("recorded");
const verdicts = {success: "success", failure: "failure", mixed: "mixed result"};
const entry = seq && /^[0-9]+$/.test(seq) ? document.getElementById("e" + seq) : null;
const banner = document.getElementById("recorded");
if (entry && banner && !entry.classList.contains("stub")) {
  const verdict = verdicts[query.get("verdict")] || "";
  banner.textContent = "Recorded #" + seq + (verdict ? " — " + verdict : "") + ".";
  banner.hidden = false;
  entry.classList.add("recorded");
  entry.scrollIntoView({block: "center"});
}
