#!/usr/bin/env bash
# arbiter-sim checks run by ctest (tests/unit/scene.cmake).
#   check_sim.sh golden SIM SCENES_DIR [--update]
#       run every scene listed in SCENES_DIR/golden_hashes.txt ("-" = the built-in scene)
#       for its tick count with --hash-only and compare the final hash; every good scene
#       (*.json without the bad_ prefix) must be listed. --update rewrites the file.
#   check_sim.sh bad SIM SCENES_DIR
#       every bad_*.json and every bad flag: exit status 2, nothing on stdout, exactly one
#       line on stderr (FILE: PATH: REASON for scenes).
set -u
mode=${1:?usage: check_sim.sh golden|bad SIM SCENES_DIR [--update]}
sim=${2:?SIM}
dir=${3:?SCENES_DIR}
update=${4:-}
golden="$dir/golden_hashes.txt"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

case "$mode" in
golden)
  out="$tmp/golden.new"
  : > "$out"
  while IFS= read -r raw; do
    case "$raw" in ''|'#'*) printf '%s\n' "$raw" >> "$out"; continue ;; esac
    read -r scene ticks hash rest <<< "$raw"
    if [ "$scene" = "-" ]; then
      line=$("$sim" --ticks "$ticks" --hash-only | tail -n 1)
    else
      line=$("$sim" "$dir/$scene" --ticks "$ticks" --hash-only | tail -n 1)
    fi
    got=$(printf '%s\n' "$line" | sed -n 's/.*"hash":"\([0-9a-f]\{16\}\)".*/\1/p')
    want_line="{\"tick\":$ticks,\"hash\":\"$got\"}"
    if [ -z "$got" ] || [ "$line" != "$want_line" ]; then
      echo "FAIL $scene: unexpected output: $line"; fail=1
    elif [ "$got" != "$hash" ]; then
      echo "FAIL $scene after $ticks ticks: hash $got, golden $hash"; fail=1
    else
      echo "ok   $scene $ticks $got"
    fi
    echo "$scene $ticks ${got:-MISSING}" >> "$out"
  done < "$golden"
  for f in "$dir"/*.json; do
    b=$(basename "$f")
    case "$b" in bad_*) continue ;; esac
    if ! grep -q "^$b " "$golden"; then echo "FAIL $b has no line in golden_hashes.txt"; fail=1; fi
  done
  if [ "$update" = "--update" ]; then
    cp "$out" "$golden"
    echo "updated $golden"
    exit 0
  fi
  ;;
bad)
  expect_2() {  # description, then the command line
    local what=$1; shift
    "$@" > "$tmp/out" 2> "$tmp/err"
    local rc=$?
    local lines
    lines=$(wc -l < "$tmp/err")
    if [ $rc -ne 2 ]; then
      echo "FAIL $what: exit $rc, expected 2"; fail=1
    elif [ -s "$tmp/out" ]; then
      echo "FAIL $what: wrote to stdout"; fail=1
    elif [ "$lines" -lt 1 ]; then
      echo "FAIL $what: no message on stderr"; fail=1
    else
      echo "ok   $what: $(head -n 1 "$tmp/err")"
    fi
  }
  for f in "$dir"/bad_*.json; do
    expect_2 "$(basename "$f")" "$sim" "$f" --ticks 10
    n=$(wc -l < "$tmp/err")
    if [ "$n" -ne 1 ]; then echo "FAIL $(basename "$f"): $n lines on stderr, expected 1"; fail=1; fi
    if ! grep -q "^$f:" "$tmp/err"; then echo "FAIL $(basename "$f"): message does not start with the file name"; fail=1; fi
  done
  expect_2 "missing file" "$sim" "$dir/does_not_exist.json" --ticks 1
  expect_2 "no --ticks" "$sim"
  expect_2 "--ticks without value" "$sim" --ticks
  expect_2 "--ticks -1" "$sim" --ticks -1
  expect_2 "--ticks abc" "$sim" --ticks abc
  expect_2 "--ticks too large" "$sim" --ticks 99999999999
  expect_2 "--every 0" "$sim" --ticks 5 --every 0
  expect_2 "unknown option" "$sim" --ticks 5 --fast
  expect_2 "two scene files" "$sim" "$dir/minimal.json" "$dir/stack.json" --ticks 5
  "$sim" --help > "$tmp/out" 2>&1 || { echo "FAIL --help exit status"; fail=1; }
  grep -q "usage: arbiter-sim" "$tmp/out" || { echo "FAIL --help text"; fail=1; }
  "$sim" --version > "$tmp/out" 2>&1 || { echo "FAIL --version exit status"; fail=1; }
  # --every: lines at K, 2K, ... and always the last tick.
  ticks=$("$sim" "$dir/minimal.json" --ticks 25 --every 10 --hash-only | sed 's/{"tick":\([0-9]*\),.*/\1/' | tr '\n' ' ')
  [ "$ticks" = "10 20 25 " ] || { echo "FAIL --every 10 --ticks 25 printed ticks: $ticks"; fail=1; }
  ;;
*)
  echo "usage: check_sim.sh golden|bad SIM SCENES_DIR [--update]"; exit 2 ;;
esac
exit $fail
