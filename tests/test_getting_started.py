"""docs/getting-started.md runs as written: every ```bash block after "Install", line by
line, in a fresh folder with the repository's example campaigns, as a new GM would."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "getting-started.md"


def guide_blocks() -> list[str]:
    text = GUIDE.read_text()
    text = text[text.index("## A campaign from scratch") :]  # Install clones the repo
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def test_the_guide_has_the_steps_of_a_whole_evening():
    commands = "\n".join(guide_blocks())
    for step in ("character add", "session start", "roll", "damage felix", "session end",
                 "recap", "audit", "verify --receipt", "backup", "import", "export",
                 "time pass", "encounter start", "encounter next", "encounter end"):  # fmt: skip
        assert step in commands, step


def test_getting_started_runs_as_written(tmp_path):
    (tmp_path / "campaigns").symlink_to(ROOT / "campaigns")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "NO_COLOR": "1",
    }
    env.pop("CAMPAIGN_DB", None)
    script = "set -euo pipefail\n" + "\n".join(guide_blocks())
    result = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    out = result.stdout
    assert "Added Felix Cavendish" in out and "Added NPC Thug" in out
    assert "Investigate +3, dice [+ + − ·] = +1" in out
    assert "Encounter started." in out and "Encounter ended" in out  # one night: a fight too
    assert "Time passes: a night's sleep" in out or "night's sleep" in out
    assert "Receipt: " in (tmp_path / "session-1.txt").read_text()
    assert "holds" in out  # verify --receipt: the receipt holds
    assert (tmp_path / "recap.html").exists() and (tmp_path / "restored.db").exists()
    assert out.count("OK: ") >= 2  # verify of the ledger and of the players' copy
    assert len((tmp_path / "players.ndjson").read_text().splitlines()) > 10
