#!/bin/sh
# The Terran Engine ledger of README.md, made with the code of a2b0cc1 (run from its checkout).
set -eu
DB="$1"; MARCHES="$2"
rm -f "$DB"
c() { uv run campaign --db "$DB" "$@"; }
c new marches --system terran-engine --title "The Drowned Marches"
c character add --sheet "$MARCHES/characters/jen.toml"
c character add --sheet "$MARCHES/characters/kit.toml"
c character add --sheet "$MARCHES/characters/bo.toml"
c session start
c roll bo Strength --creation --dice 2,3
c roll bo Agility --creation --dice 1,5
c roll bo Insight --creation --dice 6,2
c roll bo Charisma --creation
c record challenge-opened --character jen --challenge 'Greywater ford' --level Dangerous
c roll jen consequence --challenge 'Greywater ford' --consequence complication --dice 5
c roll jen Exploration --attribute Agility --dark 1 --montage --pooled 1 --challenge 'Greywater ford' --dice 2,3,1,4
c record challenge-opened --character kit --challenge wolves --level Dangerous --count 3
c roll kit Violence --attribute Strength --dark 2 --position -1 --extra 1 --improvised --challenge wolves --dice 2,3,1,5
c roll kit consequence --challenge wolves --effect 1d --dice 3
c roll kit effect --weapon axe --twohands --challenge wolves --dice 6,6,2
c roll kit consequence --challenge wolves --consequence fork --fork 'the pack leader' --dice 2,6,4
c roll jen Agility --dark 1 --dice 2,3,5
c roll jen effect --effect 'd/2' --vs-character bo --dice 3
c record challenge-opened --character jen --challenge 'chapel guardian' --level Serious
c roll jen consequence --challenge 'chapel guardian' --sacrifice --dice 6,3,3
c roll jen Exploration --attribute Insight --dice 6,1
c roll jen effect --weapon sword --dice 6,2
c roll kit fortune --fortune '1-3 the wolves come back at dawn; 4-6 the marsh stays quiet'
c roll bo Strength
c roll bo Social --attribute Charisma --dark 1
c correct 18 --set 'dark=[5,1]' --dice 2,3,5,1 --reason 'she risked a second Dark die'
c session end
c advance --session 1 --choice jen.advance=1
c verify
c --as gm export > "${DB%.db}.gm.ndjson"
uv run python "$(dirname "$0")/../requests_of.py" "$DB" marches > "${DB%.db}.requests.json"
