#!/usr/bin/env bash
# ctest replay_verify_<name>: one committed log must re-simulate bit for bit.
#   verify_log.sh ARBITER_REPLAY LOG      (LOG may be xz-compressed: *.arbrec.xz)
log=$2
if [[ $log == *.xz ]]; then
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/arb-verify.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  xz -dc "$log" >"$tmp/log.arbrec" || { echo "verify_log: cannot unpack $log" >&2; exit 2; }
  log=$tmp/log.arbrec
fi
"$1" verify "$log" && exit 0
status=$?
cat <<'MSG'

A committed replay log no longer re-simulates bit for bit with this build.
 - If you changed physics, the game rules, the hash or the save format ON PURPOSE: re-record
   the logs with scripts/record-replays.sh (about 2 minutes, needs a release build; the
   10-minute soak.arbrec.xz with scripts/record-replays.sh --soak) and commit them with
   your change (docs/DETERMINISM.md, "What breaks determinism").
 - If not: this is a determinism bug; see "Investigating a divergence" in docs/DETERMINISM.md.
MSG
exit $status
