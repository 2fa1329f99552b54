#!/usr/bin/env bash
# ctest replay_verify_<name>: one committed log must re-simulate bit for bit.
#   verify_log.sh ARBITER_REPLAY LOG
"$1" verify "$2" && exit 0
status=$?
cat <<'MSG'

A committed replay log no longer re-simulates bit for bit with this build.
 - If you changed physics, the game rules, the hash or the save format ON PURPOSE: re-record
   the logs with scripts/record-replays.sh (about 2 minutes, needs a release build) and
   commit them with your change (docs/DETERMINISM.md, "What breaks determinism").
 - If not: this is a determinism bug; see "Investigating a divergence" in docs/DETERMINISM.md.
MSG
exit $status
