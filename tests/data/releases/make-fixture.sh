#!/bin/sh
# Build one release's fixture ledger with that release's own CLI.
# Usage: make-fixture.sh RELEASE_WORKTREE OUT_PREFIX
# Writes OUT_PREFIX.db, OUT_PREFIX.gm.ndjson, OUT_PREFIX.player.ndjson and, when the
# release has `campaign backup`, OUT_PREFIX.backup.ndjson (taken with session 2 open).
set -eu
REL=$1
OUT=$2
cd "$REL"
SHEETS=campaigns/grand-casebook/characters
export CAMPAIGN_DB="$OUT.db"
rm -f "$OUT".db "$OUT".*.ndjson
c() { echo "+ campaign $*" >&2; uv run --quiet campaign "$@" >/dev/null; }
c new fixture --system wyrd-engine --title "Release fixture" --option stress_boxes=5
c character add --sheet $SHEETS/julian.toml                      # seq 2
c character add --sheet $SHEETS/cornelius.toml                   # seq 3
c session start                                                  # seq 4
c roll julian investigate --dr good --dice ++-0                  # seq 5 physical
c roll julian notice --dr fair                                   # seq 6 engine
c roll cornelius deceive --dr great --trait 'Master of Misdirection' --client-seed 'dice of Jo'  # 7 engine
c roll cornelius notice --dr fair --blind                        # seq 8 engine, GM-only
c note "The butler was seen at the docks." --blind               # seq 9 GM-only note
c note "Julian keeps the ledger of the case." --character julian # seq 10
c correct 5 --reason "entered against the wrong difficulty"      # seq 11 retract
c roll julian investigate --dr fair --dice ++-0                  # seq 12 physical again
c record damage-taken --character cornelius --amount 2 --description 'a thug with a cosh'
c scene end
c session end
if uv run --quiet campaign backup --help >/dev/null 2>&1; then
  c session start
  c roll julian notice --dr fair
  c roll cornelius burglary --dr good --dice +0-0
  c --as gm backup "$OUT.backup.ndjson"
fi
c --as gm export -o "$OUT.gm.ndjson"
c --as player export -o "$OUT.player.ndjson"
c verify
