#!/usr/bin/env python3
"""Serial share of a physics step, from a perf profile with call chains.

Reads `perf script -F comm,tid,ip,sym` on stdin (a profile taken with
`perf record -g --call-graph dwarf` of bench-physics with --workers 1) and prints, of the
stepping thread's samples inside arb_world_step, the fraction that is not inside a loop the
worker pool splits (the functions below), and where that serial time goes. With serial
share s, N workers cannot be more than 1/(s + (1 - s)/N) times faster (Amdahl).

    perf record -F 499 -g --call-graph dwarf,16384 -o step.data \\
        build/release/bin/bench-physics --runs 1 --scene many_pyramids --engine arbiter --workers 1
    perf script -i step.data -F comm,tid,ip,sym | scripts/serial-share.py
"""
import collections
import sys

# What the pool runs: arb_pool_for (through which every parallel loop goes), the solver's
# colour passes (arb__run_pass calls its ranges directly without a pool) and the range
# functions themselves (a tail call can hide arb_pool_for from the call chain).
PARALLEL = {
    "arb_pool_for", "arb__run_pass", "arb__pass_range", "arb__collide_range",
    "arb__body_range", "arb__clear_range", "arb__fill_range", "arb__store_range",
    "arb__finalize_range", "arb__ccd_start_range", "arb__ccd_scan_range",
    "arb__pairs_range", "arb__ends_range",
}


def samples(lines):
    current = None
    for line in lines:
        if not line.strip():
            if current:
                yield current
            current = None
        elif not line[0].isspace():
            current = (int(line.split()[1]), [])
        elif current is not None:
            fields = line.split()
            if len(fields) >= 2:
                current[1].append(fields[1].split("+")[0])
    if current:
        yield current


def main():
    if len(sys.argv) > 1:
        print(__doc__.strip())
        return 0 if sys.argv[1] in ("-h", "--help") else 2
    all_samples = list(samples(sys.stdin))
    if not all_samples:
        print("serial-share: no samples on stdin (see --help)", file=sys.stderr)
        return 1
    main_tid = min(tid for tid, _ in all_samples)  # the process's first thread steps
    step = parallel = 0
    serial_by_phase = collections.Counter()
    for tid, chain in all_samples:
        if tid != main_tid or "arb_world_step" not in chain:
            continue
        step += 1
        if any(name in PARALLEL for name in chain):
            parallel += 1
        else:
            at = chain.index("arb_world_step")
            serial_by_phase[chain[at - 1] if at > 0 else chain[0]] += 1
    if step == 0:
        print("serial-share: no samples inside arb_world_step", file=sys.stderr)
        return 1
    share = (step - parallel) / step
    print(f"step samples {step}, in parallel loops {parallel}, serial share {share:.3f}, "
          f"2-worker bound {1 / (share + (1 - share) / 2):.2f}x")
    for name, count in serial_by_phase.most_common(10):
        print(f"  {100 * count / step:5.1f}% {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
