"""`campaign import --from roll20|foundry` of a large chat log, as a process, against the floor.

    uv run python bench/imports.py                        # 50,000 messages, 3 rounds
    uv run python bench/imports.py --messages 20000 --rounds 5 --json out.json

Generates a Roll20 Chat Archive page and a Foundry ``messages.db`` (NeDB) of ``--messages``
messages each, in the shapes the tools write (docs/imports.md): on Roll20 four in ten a
``/roll`` (``rollresult``), three in ten a sheet roll template with two inline rolls,
three in ten plain text, a speaker's ``span.by`` left out when the one before spoke; on
Foundry six in ten a roll (``rolls`` of one serialised Roll, a d20 and a modifier, some
with advantage), the rest plain messages. Each round imports each file into a new
d20-world campaign (two characters, both speakers mapped) with the ``campaign`` command,
timing the whole process and reading its peak RSS (``os.wait4``'s rusage of that child);
beside it the floor: a process that only reads the same file with the same library
(lxml's HTML pull parser fed the same chunks, every message element let go once read;
msgspec decoding each line), and nothing else. Figures are medians over rounds, with the
load average at the start and end (the machine may be shared). Nothing here is a test;
docs/performance.md records a run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import campaign_exe  # noqa: E402
from workload import SHEETS  # noqa: E402

SPEAKERS = ("Isa Marrow", "Bram Holt")

ROLL20_FLOOR = """
import sys
from lxml import etree
parser = etree.HTMLPullParser(events=("end",), tag="div")
n = 0
with open(sys.argv[1], "rb") as f:
    while chunk := f.read(1 << 16):
        parser.feed(chunk.decode("utf-8"))
        for _e, el in parser.read_events():
            if "message" in (el.get("class") or "").split():
                n += 1
                el.getparent().remove(el)
parser.close()
print(n)
"""

NEDB_FLOOR = """
import sys
import msgspec
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        if line.strip():
            msgspec.json.decode(line)
            n += 1
print(n)
"""


def roll20_page(path: Path, messages: int, rng: random.Random) -> None:
    """A Chat Archive page of ``messages`` div.message, written as it goes."""
    with path.open("w", encoding="utf-8") as out:
        out.write('<!DOCTYPE html><html><head><meta charset="utf-8"><title>Chat Log</title></head>'
                  '<body><div id="textchat"><div class="content">\n')  # fmt: skip
        last = ""
        for i in range(messages):
            who = rng.choice(SPEAKERS)
            head = "" if who == last else (
                f'<span class="tstamp" aria-hidden="true">April 19, 2020 {1 + i % 12}:{i % 60:02d}PM</span>'
                f'<span class="by">{who}:</span>'
            )  # fmt: skip
            last = who
            mid = f"-M{i:018d}"
            kind = i % 10
            if kind < 4:
                mod = rng.randint(0, 6)
                faces = [rng.randint(1, 20) for _ in range(2 if kind == 0 else 1)]
                kept = max(faces)
                dice = "+".join(
                    f'<div data-origindex="{j}" class="diceroll d20{" dropped" if (f != kept or j and faces[0] == kept) and len(faces) > 1 else ""}">'
                    f'<div class="dicon"><div class="didroll">{f}</div><div class="backing"></div></div></div>'
                    for j, f in enumerate(faces)
                )  # fmt: skip
                formula = f"{len(faces)}d20{'kh1' if len(faces) > 1 else ''}+{mod}"
                out.write(
                    f'<div class="message rollresult player--M54pm" data-messageid="{mid}">'
                    f'<div class="spacer"></div>{head}<div class="formula" style="margin-bottom: 3px;">rolling {formula}</div>'
                    f'<div class="clear"></div><div class="formula formattedformula"><div class="dicegrouping" data-groupindex="0">'
                    f'({dice})</div>+{mod}<div class="clear"></div></div><div class="clear"></div><strong>=</strong>'
                    f'<div class="rolled">{kept + mod}</div></div>\n'
                )  # fmt: skip
            elif kind < 7:
                spans = []
                for _ in range(2):
                    f, mod = rng.randint(1, 20), rng.randint(0, 5)
                    spans.append(
                        '<div class="sheet-adv"><span><span class="inlinerollresult showtip tipsy-n-right" '
                        f'title="Rolling 1d20+{mod}[STR] = (&lt;span class=&quot;basicdiceroll&quot;&gt;{f}&lt;/span&gt;)+{mod}">'
                        f"{f + mod}</span></span></div>"
                    )  # fmt: skip
                out.write(
                    f'<div class="message general" data-messageid="{mid}">{head}'
                    '<div class="sheet-rolltemplate-simple"><div class="sheet-container"><div class="sheet-result">'
                    f'{"".join(spans)}</div><div class="sheet-label"><span>STRENGTH <span>(2)</span></span></div>'
                    "</div></div></div>\n"
                )  # fmt: skip
            else:
                out.write(f'<div class="message general" data-messageid="{mid}">{head}'
                          f"We go on through the gate, message {i}.</div>\n")  # fmt: skip
        out.write("</div></div></body></html>\n")


def nedb_file(path: Path, messages: int, rng: random.Random) -> None:
    """A Foundry world's messages.db of ``messages`` documents, one a line."""
    with path.open("w", encoding="utf-8") as out:
        for i in range(messages):
            who = rng.choice(SPEAKERS)
            doc: dict[str, Any] = {
                "_id": f"m{i:015d}", "type": 0, "user": "FRJk2q4bH9IdLZDf", "timestamp": 1658070074737 + i,
                "flavor": "", "content": f"We go on, message {i}.",
                "speaker": {"scene": "3bBBHUL9pFeTLFhM", "actor": "amSUwLGq692FRJp5", "token": None, "alias": who},
                "whisper": [], "blind": False, "emote": False, "flags": {}, "rolls": [],
            }  # fmt: skip
            if i % 10 < 6:
                mod = rng.randint(0, 6)
                adv = i % 10 == 0
                faces = [rng.randint(1, 20) for _ in range(2 if adv else 1)]
                kept = max(faces)
                results = [{"result": f, "active": True} for f in faces]
                if adv:
                    drop = 1 if faces[0] == kept else 0
                    results[drop] = {"result": faces[drop], "active": False, "discarded": True}
                roll = {
                    "class": "D20Roll", "options": {"flavor": "Strength Check"}, "dice": [],
                    "formula": f"{'2d20kh' if adv else '1d20'} + {mod}",
                    "terms": [
                        {"class": "Die", "options": {}, "evaluated": True, "number": len(faces), "faces": 20,
                         "modifiers": ["kh"] if adv else [], "results": results},
                        {"class": "OperatorTerm", "options": {}, "evaluated": True, "operator": "+"},
                        {"class": "NumericTerm", "options": {}, "evaluated": True, "number": mod},
                    ],
                    "total": kept + mod, "evaluated": True,
                }  # fmt: skip
                doc |= {"type": 5, "flavor": "Strength Check", "content": str(kept + mod), "rolls": [json.dumps(roll)]}
            out.write(json.dumps(doc) + "\n")


def new_campaign(db: Path) -> dict[str, str]:
    env = {**os.environ, "CAMPAIGN_DB": str(db)}
    for args in (
        ["new", "vault", "--system", "d20-world"],
        ["character", "add", "--sheet", str(SHEETS / "isa.toml")],
        ["character", "add", "--sheet", str(SHEETS / "bram.toml")],
    ):
        subprocess.run([campaign_exe(), *args], check=True, env=env, stdout=subprocess.DEVNULL)
    return env


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB) of the child, its standard output."""
    t = time.perf_counter()
    child = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = child.stdout.read(), child.stderr.read()  # type: ignore[union-attr]
    _pid, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} failed: {err.decode()[-400:]}")
    return wall, usage.ru_maxrss / 1024, out.decode()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--messages", type=int, default=50_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    load_start = os.getloadavg()
    results: dict[str, Any] = {"messages": args.messages, "rounds": args.rounds, "load_start": load_start}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        rng = random.Random(7)
        files = {"roll20": tmp / "Chat Log.html", "foundry": tmp / "messages.db"}
        roll20_page(files["roll20"], args.messages, rng)
        nedb_file(files["foundry"], args.messages, rng)
        floors = {"roll20": ROLL20_FLOOR, "foundry": NEDB_FLOOR}
        maps = [a for s, c in zip(SPEAKERS, ("isa", "bram"), strict=True) for a in ("--map", f"{s}={c}")]
        for tool, path in files.items():
            size = path.stat().st_size / 1e6
            runs: dict[str, list[tuple[float, float]]] = {"import": [], "floor": []}
            for r in range(args.rounds):
                env = new_campaign(tmp / f"{tool}-{r}.db")
                wall, rss, out = timed([campaign_exe(), "import", "--from", tool, str(path), *maps, "--json"], env)
                got = json.loads(out)
                assert len(got["report"]) == args.messages and got["counts"]["refused"] == 0, got["counts"]
                runs["import"].append((wall, rss))
                wall, rss, out = timed([sys.executable, "-c", floors[tool], str(path)], env)
                assert int(out) == args.messages
                runs["floor"].append((wall, rss))
            row = {
                "file_mb": round(size, 1),
                "rolls": got["rolls"],
                **{f"{k}_s": round(statistics.median(w for w, _ in v), 2) for k, v in runs.items()},
                **{f"{k}_peak_rss_mb": round(max(m for _, m in v), 1) for k, v in runs.items()},
            }
            results[tool] = row
            print(f"{tool}: {args.messages:,} messages ({size:.1f} MB, {row['rolls']:,} rolls): import "
                  f"{row['import_s']} s, peak {row['import_peak_rss_mb']} MB; floor (parse only) "
                  f"{row['floor_s']} s, peak {row['floor_peak_rss_mb']} MB")  # fmt: skip
    results["load_end"] = os.getloadavg()
    print(f"load average at start {load_start[0]:.2f}, at end {results['load_end'][0]:.2f} (on {os.cpu_count()} cores)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
