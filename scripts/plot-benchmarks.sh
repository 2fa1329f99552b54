#!/usr/bin/env bash
# Plots the CSV that `bench-physics --csv FILE` writes into the PNG charts of
# docs/BENCHMARKS.md: CPU time per step of each scene for arbiter and Box2D v3 (and any
# other engine in the file), and each world's energy at the end against the start.
#   scripts/plot-benchmarks.sh CSV [OUTDIR]      (OUTDIR default docs/images)
# Writes OUTDIR/bench-physics-cpu.png and OUTDIR/bench-physics-energy.png. Needs gnuplot
# (Debian: apt-get install gnuplot-nox); nothing else of the build.
# Rows: the compared engines only (arbiter and box2d-v3 by default; PLOT_ENGINES="a b c"
# to choose), scenes in the file's order. The energy chart spans -105..40 % (scenes with a
# motor go far above it: their figures are in the table); PLOT_ENERGY_RANGE="lo:hi" to change.
set -euo pipefail
[ $# -ge 1 ] && [ -f "$1" ] || { echo "usage: plot-benchmarks.sh CSV [OUTDIR]" >&2; exit 2; }
csv=$1
out=${2:-$(cd "$(dirname "$0")/.." && pwd)/docs/images}
command -v gnuplot >/dev/null || {
  echo "plot-benchmarks: gnuplot is not installed (Debian: apt-get install gnuplot-nox)" >&2
  exit 2
}
read -r -a engines <<<"${PLOT_ENGINES:-arbiter box2d-v3}"
work=$(mktemp -d "${TMPDIR:-/tmp}/arb-plot.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# One table per figure: scene, then one column per engine (empty where it did not run).
table() {  # table FIELD FILE: FIELD is a CSV header name
  awk -F, -v field="$1" -v list="${engines[*]}" '
    NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
    { v[$1, $2] = $(col[field]); if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
    END {
      ne = split(list, e, " ")
      printf "scene"; for (k = 1; k <= ne; ++k) printf "\t%s", e[k]; printf "\n"
      for (i = 1; i <= n; ++i) {
        printf "%s", order[i]
        for (k = 1; k <= ne; ++k) { x = v[order[i], e[k]]; printf "\t%s", (x == "" ? "NaN" : x) }
        printf "\n"
      }
    }' "$csv" >"$2"
}
table cpu_ms_per_step "$work/cpu.tsv"
table energy_end_vs_start "$work/energy.tsv"
columns=$((${#engines[@]} + 1))

plot() {  # plot TSV PNG TITLE YLABEL [SCALE] [YRANGE]
  gnuplot <<EOF
set terminal pngcairo size 1000,420 font ",10" noenhanced
set output "$2"
set title "$3"
set ylabel "$4"
set datafile separator "\t"
set datafile missing "NaN"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set rmargin 8
set bmargin 6
set xtics rotate by -30 nomirror
set grid ytics
set key top left
set yrange [${6:-*:*}]
plot for [i=2:$columns] "$1" using (column(i) * ${5:-1}):xtic(1) title columnheader(i)
EOF
}
plot "$work/cpu.tsv" "$out/bench-physics-cpu.png" \
  "bench-physics: CPU time per step (lower is faster)" "ms per step (thread CPU)"
plot "$work/energy.tsv" "$out/bench-physics-energy.png" \
  "bench-physics: energy at the end against the start (passive scenes at or below 0; motors, kinematic bodies: off the scale)" \
  "percent" 100 "${PLOT_ENERGY_RANGE:--105:40}"
echo "plot-benchmarks: $out/bench-physics-cpu.png, $out/bench-physics-energy.png"
