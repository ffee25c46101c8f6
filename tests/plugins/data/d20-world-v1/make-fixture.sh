#!/bin/sh
# The d20-world ledger of README.md, made with the code of a2b0cc1 (run from its checkout).
set -eu
DB="$1"; WORLD="$2"
rm -f "$DB"
c() { uv run campaign --db "$DB" "$@"; }
c new world --system d20-world --title "The Warden's Vault"
c character add --sheet "$WORLD/characters/isa.toml"
c character add --sheet "$WORLD/characters/bram.toml"
c session start
c record objective-opened --character isa --objective 'Open the vault' --required-good 2
c roll isa Lockpicking --time --objective 'open the vault' --dice 16
c roll isa Forage --time --trait Wiry:hinder --dice 1,15
c roll isa Forage --time --trait stubborn:help --advantage --disadvantage --dice 17
c roll bram Mending --time --spell --dice 10
c roll isa Swim --practice --time --tools --dice 7
c roll isa Sing --time --help-from bram --dice 6,19
c roll bram Mending --time --tools --auto
c roll bram Brawl --vs-character isa --weapon Cudgel --dice 12
c record damage-taken --character isa --amount 2
c roll isa --shock --dice 3
c record condition-added --blind --character isa --condition cursed --check-penalty 1
c roll isa Lockpicking --time --dice 11
c roll isa Lockpicking --time --blind --dice 9
c roll bram Brawl --time
c correct 11 --set 'help_from=' --dice 19 --reason 'Bram was not there to help'
c session end
c verify
c --as gm export > "${DB%.db}.gm.ndjson"
uv run python "$(dirname "$0")/../requests_of.py" "$DB" world > "${DB%.db}.requests.json"
