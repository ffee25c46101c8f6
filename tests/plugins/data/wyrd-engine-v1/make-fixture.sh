#!/bin/sh
# The Wyrd Engine ledger of README.md, made with the code of a2b0cc1 (run from its checkout).
set -eu
DB="$1"; CASEBOOK="$2"
rm -f "$DB"
c() { uv run campaign --db "$DB" "$@"; }
c new casebook --system wyrd-engine --title "The Grand Casebook" --option stress_boxes=5
c character add --sheet "$CASEBOOK/characters/julian.toml"
c character add --sheet "$CASEBOOK/characters/felix.toml"
c character add --sheet "$CASEBOOK/characters/jonathan.toml"
c session start
c roll julian investigate --dr good --dice ++-0
c roll julian notice --dr 1 --dice +--0
c roll felix crafts --dr great --trait 'master tinkerer' --dice +000
c record boost-gained --character julian --value 2 --description 'a clue in the ash'
c roll julian rapport --dr good --boost 2 --teamwork 1 --dice +---
c roll julian provoke --vs 1 --opponent thief --dice ++00,0000
c roll jonathan fight --vs 1 --opponent thug --attack --physical --dice 00000000
c roll julian athletics --vs 2 --defend --dice +0+0,00-0
c roll felix athletics --vs-character julian --vs-skill notice --trait 'A Calculated Risk' --dice ++00,-000
c roll julian fight --vs-character jonathan --attack --vs-skill fight --vs-trait 'reinforced cane' --dice 0+00,0000
c roll julian notice --initiative --dice +0+0
c roll felix notice --initiative --vs 2 --opponent 'the watch' --dice 0000,+000
c roll julian stealth --dr fair --situational 1 --situation 'the fog' --dice 0-00
c roll felix lore --dr good
c correct 7 --set dr=2 --reason 'the notice was harder'
c session end
c verify
c --as gm export > "${DB%.db}.gm.ndjson"
uv run python "$(dirname "$0")/../requests_of.py" "$DB" casebook > "${DB%.db}.requests.json"
