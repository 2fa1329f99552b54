// bench-physics: step the benchmark scenes (scenes.c) with arbiter and, when they were
// found at build time, Box2D v3, Chipmunk2D and Box2D 2.4; print ms/step side by side. The
// own-construction scenes run on every engine with a builder of its own for them
// (bench_engine.builds_own).
// Benchmarks print figures; they never fail.
#define _POSIX_C_SOURCE 200809L
#include <arbiter/world.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"
#include "scenes.h"
#include "scenes_extras.h"

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

typedef struct result {
  double ms_per_step;   // minimum over runs
  double cpu_per_step;  // thread CPU ms per timed step, minimum over runs
  double p99;           // p99 single step of the best run
  float sink;           // top box: initial y - final y
  int bodies;
  char report[512];
  int stopped;            // steps done when the run was given up (0: all of them)
  double e_start, e_end;  // bench_engine.energy before the first and after the last step of
                          // the first run (NAN: the engine has no hook)
  char probe[448];        // the untimed sampling run's line (scenes with probe_every), or ""
} result;

void bench_format_energy(double start, double end, char* out, int cap) {
  if (!isfinite(start) || !isfinite(end))
    snprintf(out, (size_t)cap, "-");
  else if (fabs(start) < 1e-9)
    snprintf(out, (size_t)cap, "%.3g J", end);
  else
    snprintf(out, (size_t)cap, "%+.1f %%", 100.0 * (end - start) / fabs(start));
}

// --max-seconds: a run gives up once its timed steps have taken this long at over
// GIVE_UP_MS per step on average (30 times slower than real time); 0: never.
static double max_seconds = 60.0;
enum { GIVE_UP_MS = 500 };

static result run_scene(const bench_engine* e, const bench_scene* s, int steps, int runs) {
  result r = {1e30, 1e30, 0.0, 0.0f, s->count, "", 0, NAN, NAN, ""};
  double* times = malloc((size_t)steps * sizeof *times);
  for (int run = 0; run < runs; ++run) {
    void* w = e->create(s);
    // The energy of the first run, before its first step and after its last, out of the
    // timed steps (and after their CPU time is read below).
    if (run == 0 && e->energy) r.e_start = e->energy(w);
    float y0 = s->top_body >= 0 ? e->body_y(w, s->top_body) : 0.0f;
    // The first step (pair creation) or the scene's warm-up steps are not timed.
    int warmup = s->warmup > 0 ? s->warmup : 1;
    for (int i = 0; i < warmup; ++i) e->step(w, s->dt);
    double total = 0.0;
    double c0 = bench_cpu_ms();
    int timed = steps - warmup;
    for (int i = 0; i < steps - warmup; ++i) {
      double t0 = bench_wall_ms();
      e->step(w, s->dt);
      times[i] = bench_wall_ms() - t0;
      total += times[i];
      if (max_seconds > 0.0 && total > 1000.0 * max_seconds && total > GIVE_UP_MS * (i + 1.0) &&
          i + 1 < timed) {
        timed = i + 1;  // far slower than real time: the steps so far tell enough
        r.stopped = warmup + timed;
        break;
      }
    }
    double cpu = (bench_cpu_ms() - c0) / (double)timed;
    if (run == 0 && e->energy) r.e_end = e->energy(w);
    if (cpu < r.cpu_per_step) r.cpu_per_step = cpu;
    double ms = total / (double)timed;
    if (ms < r.ms_per_step) {
      r.ms_per_step = ms;
      qsort(times, (size_t)timed, sizeof *times, cmp_double);
      int k = (int)((double)timed * 0.99);
      if (k >= timed) k = timed - 1;
      r.p99 = times[k];
      r.sink = s->top_body >= 0 ? y0 - e->body_y(w, s->top_body) : 0.0f;
      if (e->report) e->report(w, r.report, (int)sizeof r.report);
    }
    e->destroy(w);
  }
  free(times);
  return r;
}

// A scene with probe_every (the bouncy crowds): one more run of the same steps, untimed and
// after the timed ones, so their times are unchanged: every probe_every steps (and after the
// last) the energy against the start, and every step the bodies whose centre is outside
// probe_box and the fastest body; the largest climb is the most any sample rose above an
// earlier lower one. The engines are deterministic: it repeats the timed runs.
static void probe_scene(const bench_engine* e, const bench_scene* s, int steps, result* r) {
  void* w = e->create(s);
  double e0 = e->energy(w), high = -INFINITY, low = INFINITY, fastest = 0.0;
  int high_step = 0, low_step = 0, outside_at_high = 0, outside_most = 0, outside_most_step = 0;
  double climb = 0.0;
  int climb_from = 0, climb_to = 0;
  for (int i = 1; i <= steps; ++i) {
    e->step(w, s->dt);
    double speed;
    int outside = e->census(w, s->probe_box, &speed);
    if (speed > fastest) fastest = speed;
    if (outside > outside_most) {
      outside_most = outside;
      outside_most_step = i;
    }
    if (i % s->probe_every != 0 && i != steps) continue;
    double en = e->energy(w);
    if (en > high) {
      high = en;
      high_step = i;
      outside_at_high = outside;
    }
    if (en - low > climb) {  // against the lowest sample before this one
      climb = en - low;
      climb_from = low_step;
      climb_to = i;
    }
    if (en < low) {
      low = en;
      low_step = i;
    }
  }
  e->destroy(w);
  char hi[32], lo[32], up[32], most[48] = "";
  if (fabs(e0) < 1e-9) {  // as the column, but to 0.01 %: the +0.1 % that matters shows
    bench_format_energy(e0, high, hi, (int)sizeof hi);
    bench_format_energy(e0, low, lo, (int)sizeof lo);
    snprintf(up, sizeof up, "%.3g J", climb);
  } else {
    snprintf(hi, sizeof hi, "%+.2f %%", 100.0 * (high - e0) / fabs(e0));
    snprintf(lo, sizeof lo, "%+.2f %%", 100.0 * (low - e0) / fabs(e0));
    snprintf(up, sizeof up, "%+.2f %%", 100.0 * climb / fabs(e0));
  }
  char climbed[64] = "none";
  if (climb > 0.0) snprintf(climbed, sizeof climbed, "%s (steps %d-%d)", up, climb_from, climb_to);
  if (outside_most > 0) snprintf(most, sizeof most, " (first at step %d)", outside_most_step);
  snprintf(r->probe, sizeof r->probe,
           "energy every %d steps: highest %s (step %d), lowest %s (step %d), largest climb %s; "
           "centres outside the box: %d at the highest, at most %d in any "
           "step%s; fastest %.1f m/s",
           s->probe_every, hi, high_step, lo, low_step, climbed, outside_at_high, outside_most,
           most, fastest);
}

// --engine takes a comma-separated list of name prefixes ("arbiter,box2d-v3").
static bool engine_selected(const char* only, const char* name) {
  if (!only) return true;
  for (const char* p = only; *p;) {
    size_t n = strcspn(p, ",");
    if (n > 0 && strncmp(p, name, n) == 0) return true;
    p += n;
    if (*p == ',') p++;
  }
  return false;
}

static void usage(FILE* f) {
  fprintf(f,
          "usage: bench-physics [--scene NAME] [--runs N] [--other-runs N] [--quick] [--steps N]\n"
          "                     [--engine NAME] [--solve-iterations N] [--relax-iterations N]\n"
          "                     [--sleep] [--workers N] [--continuous on|off|static]\n"
          "                     [--recycling on|off] [--max-seconds S] [--csv FILE]\n"
          "  Steps the benchmark scenes and prints ms/step (timed steps / count, minimum of\n"
          "  N runs, default 4; the first step is not timed), the thread CPU time per step\n"
          "  (robust on a shared machine), the p99 single step and the pyramid's top-box\n"
          "  sink. Scenes: large_pyramid many_pyramids rain_circles free_field resting_10k\n"
          "  (default: all; resting_10k: 10 000 bodies, 1 %% moving, 60 untimed warm-up steps,\n"
          "  arbiter with sleeping on, then again as \"arbiter no-sleep\"; every other scene\n"
          "  but smash, rain, tumbler, spinner, washer and arena runs with sleeping off, as\n"
          "  Box2D v3 defines them). --other-runs N: runs for the other engines\n"
          "  (default 1: they are 1.5-200x slower). --quick: 1 run and a fifth of the steps.\n"
          "  --steps N: N steps of each scene of the table instead of its own count (a check).\n"
          "  --engine NAME[,NAME]: only those engines, by name prefix (arbiter, box2d-v3,\n"
          "  chipmunk, box2d-2.4; default: all built in).\n"
          "  Other engines are compared with the same scene and substeps (see\n"
          "  docs/BENCHMARKS.md); \"vs arb\" is the row's CPU time per step over arbiter's\n"
          "  (> 1: arbiter faster), \"vs b2v3\" over Box2D v3's in the same run (arbiter's\n"
          "  row < 1: arbiter faster), or \"not built\" when bench-physics was configured\n"
          "  without -DBOX2D_V3_SRC=/path/to/box2d (a Box2D v3 source tree, built with its own\n"
          "  CMake project, 1 worker; its own benchmark code builds the scenes it defines).\n");
  fprintf(f,
          "  \"E end/start\": the total mechanical energy of the dynamic rigid bodies after the\n"
          "  last step of the first run against before its first step, (end - start) / |start|\n"
          "  (sum of 0.5 m |v|^2 + 0.5 I w^2 - m g.p, centre of mass p, zero at the origin,\n"
          "  in double, read outside the timed steps; the end value in J when |start| < 1e-9 J,\n"
          "  \"-\" for an engine without it). Friction and inelastic contacts only take energy\n"
          "  away, so a passive scene ends at or below 0 %% (a settled pile about -1 %%, falls\n"
          "  lower): a rise, or a smaller loss than Box2D v3's on the same scene, is energy the\n"
          "  solver added (compare engines on one scene: the figure depends on where it sits).\n"
          "  Rigid bodies only: particles (cloth_50x50), vehicles' wheels, joints and springs\n"
          "  are not counted. Scenes with an energy source may rise, and that is no defect there:\n"
          "  motors (tumbler, spinner), kinematic bodies (washer's drum, arena's mixers),\n"
          "  forces (arena's walkers, vehicles_100's throttle), bodies spawned while it runs\n"
          "  (rain: the figure counts the bodies alive at each end).\n");
  fprintf(f,
          "  Bouncy crowds (arbiter: scene_bouncy.c, Box2D v3: scene_bouncy_box2d_v3.c, the\n"
          "  layout in scenes_shared.c; not for Box2D 2.4 or Chipmunk): bouncy_circles\n"
          "  bouncy_circles_095 bouncy_topdown bouncy_boxes bouncy_mixed: a closed box (4\n"
          "  static walls, inner 24 x 18 m, restitution 1, friction 0) holding 400 bodies on a\n"
          "  1 m grid, each with a seeded velocity of up to 4 m/s, friction 0, density 1;\n"
          "  circles r 0.4 (restitution 1, gravity -10; the same at restitution 0.95;\n"
          "  restitution 1 without gravity), boxes 0.8 x 0.8 (restitution 1, gravity), or 200\n"
          "  circles and 200 boxes of sizes 0.15-0.45 (restitution 1, gravity). Sleeping off,\n"
          "  1200 steps; arbiter also runs them as \"arbiter dyn-ccd\" (unless --continuous is\n"
          "  given). Each engine then runs the scene once more, untimed: a line under its row\n"
          "  gives, of the energy sampled every 30 steps, the highest and the lowest sample\n"
          "  against the start and the largest climb (a sample above an earlier, lower one),\n"
          "  the bodies whose centre is outside the box at the highest sample and at most in\n"
          "  any step, and the fastest body of any step. Nothing in them adds energy: a sample\n"
          "  above the start, or a climb, is energy the engine added.\n");
  fprintf(f,
          "  Box2D v3 benchmark scenes: large_pyramid many_pyramids smash rain tumbler\n"
          "  spinner washer joint_grid, on every engine (arbiter, box2d-v3, box2d-2.4,\n"
          "  chipmunk, chipmunk-defaults). smash, rain, tumbler, spinner and washer run with\n"
          "  sleeping on in every engine, as Box2D v3 defines them (arbiter then again as\n"
          "  \"arbiter no-sleep\"). large_pyramid, many_pyramids and smash come from the body\n"
          "  list of scenes.c; rain, tumbler, spinner, washer and joint_grid are built by each\n"
          "  engine's own code as Box2D v3's benchmark code builds them (arbiter: scene_*.c,\n"
          "  Box2D 2.4: scenes_box2d.cpp, Chipmunk: scenes_chipmunk.c; no body count, no\n"
          "  sink): rain: up to 1000 ragdolls of capsules spawned and destroyed while it\n"
          "  runs; tumbler: 2025 boxes in a motor-driven drum of four walls on one body;\n"
          "  spinner: 6076 bodies stirred by a motor-driven bar in a 360-point chain loop;\n"
          "  washer: 8100 boxes in a turning kinematic drum of 40 quads (arbiter: five bodies\n"
          "  of 8 moving as one); joint_grid (arbiter's run is in this table too:\n"
          "  scene_joint_grid.c): 10 000 circles, 19 800 revolute joints (arbiter and Chipmunk:\n"
          "  19 794, without the 6 between two static bodies), no contacts, sleeping off.\n"
          "  Where an engine lacks a feature: Box2D 2.4 builds a capsule as a box and two\n"
          "  circles on one body (weighed as the capsule), the spinner's rounded bar as an\n"
          "  octagon, and rain's joint springs as torques applied before each step;\n"
          "  Chipmunk's revolute joint is a pivot joint with rotary limit, simple motor and\n"
          "  damped rotary spring constraints, and it has no continuous collision (the top\n"
          "  of each of those files says the rest).\n"
          "  arena: the capacity benchmark's world (bench/capacity/make_scene.py, built by\n"
          "  scene_arena.c and for Box2D v3 by scene_arena_box2d_v3.c; not for Box2D 2.4 or\n"
          "  Chipmunk): 10 000 bodies top down, 100 kinematic mixers stirring 8 balls each,\n"
          "  7 896 damped crates and balls created asleep, 256 walkers pushed by the game's\n"
          "  top-down force controller in a direction that changes every 2 s; sleeping on,\n"
          "  60 untimed steps, then 540.\n"
          "  Physics extras (arbiter only, scenes_extras.c): cloth_50x50 vehicles_100\n"
          "  bullets_1000 ragdolls_100 (900 limited revolute joints), sensors_100\n"
          "  (2000 circles through 100 sensor boxes) and sensors_none (the same without them),\n"
          "  printed after the others (--scene selects them too).\n"
          "  --solve-iterations N, --relax-iterations N: arbiter's soft-solve and relax\n"
          "  passes per substep (arb_world_def, 1..8, default 1 each).\n"
          "  --workers N: arbiter worlds step with N threads (arb_world_def.worker_count,\n"
          "  default 1; the same results); the ms/step column is then the figure (cpu ms\n"
          "  counts only the stepping thread). Box2D v3 always runs with 1 worker.\n"
          "  --sleep: arbiter with sleeping on in every scene (as the product runs: islands at\n"
          "  rest fall asleep).\n"
          "  --continuous on|off|static: arbiter's continuous collision in the compared\n"
          "  rows. Default static: against static bodies only (continuous_dynamic false),\n"
          "  what Box2D v3's enableContinuous does, so every engine runs the same policy;\n"
          "  the sleeping scenes then run again as \"arbiter dyn-ccd\" with arbiter's own\n"
          "  default (on: fast dynamic bodies also kept from passing through each other).\n"
          "  The physics extras run arbiter's default unless --continuous is given.\n"
          "  --recycling on|off: arbiter's enable_contact_recycling (default on): off collides\n"
          "  every contact's shapes every step.\n"
          "  --max-seconds S: a run gives up once its timed steps have taken S seconds at over\n"
          "  0.5 s per step on average (30 times slower than real time; default 60, 0: never),\n"
          "  and its row says after how many steps: its figures cover those.\n"
          "  --csv FILE: also write the table's rows to FILE as CSV (scene, engine, bodies,\n"
          "  ms/step, cpu ms, p99, sink, the two ratios, energy end vs start as a fraction;\n"
          "  the physics extras are not in it); scripts/plot-benchmarks.sh plots it.\n");
}

int main(int argc, char** argv) {
  const char* only_scene = NULL;
  const char* only_engine = NULL;
  int runs = 4;
  int other_runs = 1;
  int quick = 0;
  int only_steps = 0;
  FILE* csv = NULL;  // --csv FILE: the table's rows as CSV too (scripts/plot-benchmarks.sh)
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc) {
      only_scene = argv[++i];
    } else if (strcmp(argv[i], "--engine") == 0 && i + 1 < argc) {
      only_engine = argv[++i];
    } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
      if (csv) fclose(csv);
      csv = fopen(argv[++i], "w");
      if (!csv) {
        fprintf(stderr, "bench-physics: --csv %s: cannot write the file\n", argv[i]);
        return 2;
      }
      fprintf(csv,
              "scene,engine,bodies,ms_per_step,cpu_ms_per_step,p99_ms,sink_m,vs_arbiter,"
              "vs_box2d_v3,energy_end_vs_start\n");
    } else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = atoi(argv[++i]);
      if (runs < 1) runs = 1;
    } else if (strcmp(argv[i], "--other-runs") == 0 && i + 1 < argc) {
      other_runs = atoi(argv[++i]);
      if (other_runs < 1) other_runs = 1;
    } else if (strcmp(argv[i], "--workers") == 0 && i + 1 < argc) {
      bench_arbiter_workers = atoi(argv[++i]);
      if (bench_arbiter_workers < 1 || bench_arbiter_workers > 64) {
        fprintf(stderr, "bench-physics: --workers must be 1..64, got '%s'\n", argv[i]);
        return 2;
      }
    } else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
      only_steps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--max-seconds") == 0 && i + 1 < argc) {
      max_seconds = atof(argv[++i]);
      if (max_seconds < 0.0) max_seconds = 0.0;
    } else if (strcmp(argv[i], "--sleep") == 0) {
      bench_arbiter_sleep_all = 1;
    } else if (strcmp(argv[i], "--quick") == 0) {
      quick = 1;
    } else if ((strcmp(argv[i], "--continuous") == 0 || strcmp(argv[i], "--recycling") == 0) &&
               i + 1 < argc) {
      const char* v = argv[i + 1];
      bool continuous = argv[i][2] == 'c', is_static = continuous && strcmp(v, "static") == 0;
      if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0 && !is_static) {
        fprintf(stderr, "bench-physics: %s must be %s, got '%s'\n", argv[i],
                continuous ? "on, off or static" : "on or off", v);
        return 2;
      }
      if (continuous)
        bench_arbiter_continuous = is_static ? 2 : strcmp(v, "on") == 0;
      else
        bench_arbiter_recycling = strcmp(v, "on") == 0;
      i++;
    } else if ((strcmp(argv[i], "--solve-iterations") == 0 ||
                strcmp(argv[i], "--relax-iterations") == 0) &&
               i + 1 < argc) {
      int n = atoi(argv[i + 1]);
      if (n < 1 || n > 8) {
        fprintf(stderr, "bench-physics: %s must be 1..8, got '%s'\n", argv[i], argv[i + 1]);
        return 2;
      }
      if (argv[i][2] == 's')
        bench_arbiter_solve_iterations = n;
      else
        bench_arbiter_relax_iterations = n;
      i++;
    } else {
      usage(stderr);
      return 2;
    }
  }
  if (quick) runs = other_runs = 1;
  const bench_engine* engines[7];
  int n_engines = 0;
  engines[n_engines++] = &bench_engine_arbiter;
  engines[n_engines++] = &bench_engine_arbiter_no_sleep;     // only for compare_sleep scenes
  engines[n_engines++] = &bench_engine_arbiter_dynamic_ccd;  // sleeping scenes, no --continuous
#ifdef BENCH_HAVE_BOX2D_V3
  const bench_engine* reference = &bench_engine_box2d_v3;
  engines[n_engines++] = reference;
#else
  const bench_engine* reference = NULL;
#endif
#ifdef BENCH_HAVE_CHIPMUNK
  engines[n_engines++] = &bench_engine_chipmunk;
  engines[n_engines++] = &bench_engine_chipmunk_defaults;
#endif
#ifdef BENCH_HAVE_BOX2D
  engines[n_engines++] = &bench_engine_box2d;
#endif
  if (bench_arbiter_solve_iterations != 1 || bench_arbiter_relax_iterations != 1)
    printf(
        "arbiter with %d solve and %d relax passes per substep (the configuration column says 1, "
        "1)\n",
        bench_arbiter_solve_iterations, bench_arbiter_relax_iterations);
  if (bench_arbiter_continuous < 0)
    printf(
        "arbiter with continuous collision against static bodies only, as Box2D v3; \"arbiter "
        "dyn-ccd\": its own default, between dynamic bodies too\n");
  if (bench_arbiter_continuous == 0) printf("arbiter with continuous collision off\n");
  if (bench_arbiter_continuous == 1)
    printf("arbiter with continuous collision between dynamic bodies too (its default)\n");
  if (bench_arbiter_continuous == 2)
    printf("arbiter with continuous collision against static bodies only\n");
  if (!bench_arbiter_recycling) printf("arbiter with contact recycling off\n");
  if (bench_arbiter_workers != 1)
    printf("arbiter with %d worker threads per world\n", bench_arbiter_workers);
  printf("arbiter's contact solver: %d lanes (%s)\n", arb_contact_solver_lanes(),
         arb_contact_solver_lanes() == 8 ? "AVX2"
                                         : "SSE2 or portable C; ARBITER_SIMD=sse2 forces this");
  printf("%-14s %-17s %7s %9s %9s %9s %9s %8s %9s %11s  %s\n", "scene", "engine", "bodies",
         "ms/step", "cpu ms", "p99 ms", "sink m", "vs arb", "vs b2v3", "E end/start",
         "configuration");
  for (int si = 0; bench_scene_names[si]; ++si) {
    if (only_scene && strcmp(only_scene, bench_scene_names[si]) != 0) continue;
    bench_scene s;
    if (bench_scene_build(bench_scene_names[si], &s) != 0) continue;
    int steps = only_steps > 0 ? only_steps : quick ? s.steps / 5 : s.steps;
    int min_steps = (s.warmup > 0 ? s.warmup : 1) + 1;  // at least one timed step
    if (steps < min_steps) steps = min_steps;
    // Every engine runs first and the rows are printed after, so that each row carries its
    // ratio to the arbiter row and to the Box2D v3 row of the same run.
    const bench_engine* ran[7];
    result res[7];
    int n_ran = 0;
    double base = 0.0, ref = 0.0;
    for (int ei = 0; ei < n_engines; ++ei) {
      const bench_engine* e = engines[ei];
      if (e == &bench_engine_arbiter_no_sleep && !s.sleeping && !bench_arbiter_sleep_all) continue;
      if (e == &bench_engine_arbiter_dynamic_ccd &&
          (!(s.sleeping || s.probe_every > 0) || bench_arbiter_continuous >= 0))
        continue;
      if (!engine_selected(only_engine, e->name)) continue;
      bool ours = e == &bench_engine_arbiter || e == &bench_engine_arbiter_no_sleep ||
                  e == &bench_engine_arbiter_dynamic_ccd;
      // An own-construction scene runs on the engines with a builder of their own for it.
      if (s.own_construction && !(e->builds_own && e->builds_own(s.name))) continue;
      res[n_ran] = run_scene(e, &s, steps, ours ? runs : other_runs);
      if (s.probe_every > 0 && e->energy && e->census) probe_scene(e, &s, steps, &res[n_ran]);
      ran[n_ran] = e;
      if (e == &bench_engine_arbiter) base = res[n_ran].cpu_per_step;
      if (e == reference) ref = res[n_ran].cpu_per_step;
      n_ran++;
    }
    for (int k = 0; k < n_ran; ++k) {
      const result* r = &res[k];
      char sink[32] = "-", vs_arb[32] = "-", vs_ref[32] = "not built";
      if (s.top_body >= 0) snprintf(sink, sizeof sink, "%.3f", (double)r->sink);
      if (base > 0.0) snprintf(vs_arb, sizeof vs_arb, "%.2f", r->cpu_per_step / base);
      if (reference && ref > 0.0)
        snprintf(vs_ref, sizeof vs_ref, "%.2f", r->cpu_per_step / ref);
      else if (reference)
        snprintf(vs_ref, sizeof vs_ref, "-");
      char bodies[16] = "-";  // a scene only Box2D v3's own code builds has no neutral body list
      if (r->bodies > 0) snprintf(bodies, sizeof bodies, "%d", r->bodies);
      char energy[32];
      bench_format_energy(r->e_start, r->e_end, energy, (int)sizeof energy);
      printf("%-14s %-17s %7s %9.3f %9.3f %9.3f %9s %8s %9s %11s  %s\n", s.name, ran[k]->name,
             bodies, r->ms_per_step, r->cpu_per_step, r->p99, sink, vs_arb, vs_ref, energy,
             ran[k]->config);
      if (csv) {
        // Numbers only (empty where the table says "-"); the energy as a fraction.
        double rel = r->e_end - r->e_start;
        bool has_rel = (r->e_start > 1e-9 || r->e_start < -1e-9) && rel == rel;
        fprintf(csv, "%s,%s,%d,%.4f,%.4f,%.4f,%s,%s,%s,", s.name, ran[k]->name, r->bodies,
                r->ms_per_step, r->cpu_per_step, r->p99, s.top_body >= 0 ? sink : "",
                base > 0.0 ? vs_arb : "", reference && ref > 0.0 ? vs_ref : "");
        if (has_rel) fprintf(csv, "%.6f", rel / (r->e_start < 0.0 ? -r->e_start : r->e_start));
        fprintf(csv, "\n");
      }
      if (r->stopped) {
        printf(
            "%-14s %-17s gave up after %d of %d steps (over %.0f s at over %d ms per step, "
            "--max-seconds): the figures cover those\n",
            "", "", r->stopped, steps, max_seconds, (int)GIVE_UP_MS);
      }
      if (r->report[0]) printf("%-14s %-17s %s\n", "", "", r->report);
      if (r->probe[0]) printf("%-14s %-17s %s\n", "", "", r->probe);
    }
    fflush(stdout);
    bench_scene_free(&s);
  }
  if (engine_selected(only_engine, "arbiter")) {
    bench_extras_run(only_scene, quick, runs);  // physics extras: arbiter only
  }
  if (csv) fclose(csv);
  return 0;
}
