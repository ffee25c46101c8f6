#!/bin/sh
# make-fixture.sh OUT.db CAMPAIGN_DIR: a small Spellwoven ledger (see README.md)
set -eu
DB="$1"; JEN="$2"
rm -f "$DB"
c() { uv run campaign --db "$DB" "$@"; }
c new rooftops --system spellwoven --title "Rooftops"
c character add --sheet "$JEN/characters/jen.toml"
c character add --sheet "$JEN/characters/housewife.toml"
c session start
c roll jen Sprint --difficulty 1 --dice 6,6,10
c roll jen Climb --target 4 --effort --dice 1,2,3
c roll jen Sprint --weakness --disadvantage --dice 1,9,10
c roll jen Sprint --advantage --pool 2 --dice 5,6,7
c roll jen Manoeuvre --vs 'Irate Housewife:2' --dice 2,7,8,1,2,8
c roll jen Sprint --vs 'guard:4:advantage' --dice 1,2,3,4,5,6,7
c roll jen Manoeuvre --vs-character housewife --vs-skill Fighting --vs-effort --dice 2,7,8,1,2,8
c roll jen Climb --difficulty 2
c correct 5 --set difficulty=2 --reason "the roof was steeper"
c session end
c verify
c --as gm export > "${DB%.db}.gm.ndjson"
