#!/bin/sh
set -eu
DB="$1"; SALT="$2"
rm -f "$DB"
c() { uv run campaign --db "$DB" "$@"; }
c new salt --system decision-dice --title "The Salt Road"
c character add --sheet "$SALT/characters/jen.toml"
c character add --sheet "$SALT/characters/oskar.toml"
c session start
c roll jen might --target 8 --bonus -2 --penalty 1 --dice 4,4
c roll jen agility --target challenging --adjust 2 --modifier 1 --advantage --dice 2,3,6
c roll jen wits --target challenging --supply 'climbing kit' --dice 4,5,3
c roll jen might --opponent 'Bandit captain' --opponent-modifier 1 --opponent-advantage --bonus 1 --dice 2,5,4,3,1
c roll jen agility --vs-character oskar --modifier -1 --opponent-modifier 1 --dice 6,1,1,1
c roll jen 'climbing kit' --dice 4
c roll jen grit --target 8
c roll jen wits --target 8 --bonus 1 --dice 3,3
c correct 12 --set base_target=6 --reason "the wall was lower"
c session end
c verify
c --as gm export > "${DB%.db}.gm.ndjson"
