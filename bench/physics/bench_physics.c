// bench-physics: step the benchmark scenes (scenes.c) with arbiter and, when they were
// found at build time, Chipmunk2D and Box2D 2.4; print ms/step side by side.
// Benchmarks print figures; they never fail.
#define _POSIX_C_SOURCE 200809L
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
  double ms_per_step;  // minimum over runs
  double cpu_per_step; // thread CPU ms per timed step, minimum over runs
  double p99;          // p99 single step of the best run
  float sink;          // top box: initial y - final y
  int bodies;
  char report[512];
} result;

static result run_scene(const bench_engine* e, const bench_scene* s, int steps, int runs) {
  result r = {1e30, 1e30, 0.0, 0.0f, s->count, ""};
  double* times = malloc((size_t)steps * sizeof *times);
  for (int run = 0; run < runs; ++run) {
    void* w = e->create(s);
    float y0 = s->top_body >= 0 ? e->body_y(w, s->top_body) : 0.0f;
    // The first step (pair creation) or the scene's warm-up steps are not timed.
    int warmup = s->warmup > 0 ? s->warmup : 1;
    for (int i = 0; i < warmup; ++i) e->step(w, s->dt);
    double total = 0.0;
    double c0 = bench_cpu_ms();
    for (int i = 0; i < steps - warmup; ++i) {
      double t0 = bench_wall_ms();
      e->step(w, s->dt);
      times[i] = bench_wall_ms() - t0;
      total += times[i];
    }
    int timed = steps - warmup;
    double cpu = (bench_cpu_ms() - c0) / (double)timed;
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

static void usage(FILE* f) {
  fprintf(f,
          "usage: bench-physics [--scene NAME] [--runs N] [--other-runs N] [--quick] [--engine NAME]\n"
          "                     [--solve-iterations N] [--relax-iterations N] [--sleep]\n"
          "                     [--continuous on|off]\n"
          "  Steps the benchmark scenes and prints ms/step (timed steps / count, minimum of\n"
          "  N runs, default 4; the first step is not timed), the thread CPU time per step\n"
          "  (robust on a shared machine), the p99 single step and the pyramid's top-box\n"
          "  sink. Scenes: large_pyramid many_pyramids rain_circles free_field resting_10k\n"
          "  (default: all; resting_10k: 10 000 bodies, 1 %% moving, 60 untimed warm-up steps,\n"
          "  arbiter with sleeping on, then again as \"arbiter no-sleep\"; every other scene\n"
          "  runs with sleeping off, as Box2D v3 defines them). --other-runs N: runs for the\n"
          "  other engines\n"
          "  (default 1: they are 3-20x slower). --quick: 1 run and a fifth of the steps.\n"
          "  --engine arbiter|chipmunk|box2d: only that engine (default: all built in).\n"
          "  Other engines are compared with the same scene and substeps (see\n"
          "  docs/BENCHMARKS.md); the ratio column is other/arbiter CPU time per step\n"
          "  (> 1: arbiter faster).\n"
          "  Physics extras (arbiter only, scenes_extras.c): cloth_50x50 vehicles_100\n"
          "  bullets_1000, printed after the others (--scene selects them too).\n"
          "  --solve-iterations N, --relax-iterations N: arbiter's soft-solve and relax\n"
          "  passes per substep (arb_world_def, 1..8, default 1 each).\n"
          "  --sleep: arbiter with sleeping on in every scene (as the product runs: islands at\n"
          "  rest fall asleep).\n"
          "  --continuous on|off: arbiter's enable_continuous (default on), for measuring\n"
          "  what continuous collision costs.\n");
}

int main(int argc, char** argv) {
  const char* only_scene = NULL;
  const char* only_engine = NULL;
  int runs = 4;
  int other_runs = 1;
  int quick = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc) {
      only_scene = argv[++i];
    } else if (strcmp(argv[i], "--engine") == 0 && i + 1 < argc) {
      only_engine = argv[++i];
    } else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = atoi(argv[++i]);
      if (runs < 1) runs = 1;
    } else if (strcmp(argv[i], "--other-runs") == 0 && i + 1 < argc) {
      other_runs = atoi(argv[++i]);
      if (other_runs < 1) other_runs = 1;
    } else if (strcmp(argv[i], "--sleep") == 0) {
      bench_arbiter_sleep_all = 1;
    } else if (strcmp(argv[i], "--quick") == 0) {
      quick = 1;
    } else if (strcmp(argv[i], "--continuous") == 0 && i + 1 < argc) {
      const char* v = argv[++i];
      if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0) {
        fprintf(stderr, "bench-physics: --continuous must be on or off, got '%s'\n", v);
        return 2;
      }
      bench_arbiter_continuous = strcmp(v, "on") == 0;
    } else if ((strcmp(argv[i], "--solve-iterations") == 0 || strcmp(argv[i], "--relax-iterations") == 0) &&
               i + 1 < argc) {
      int n = atoi(argv[i + 1]);
      if (n < 1 || n > 8) {
        fprintf(stderr, "bench-physics: %s must be 1..8, got '%s'\n", argv[i], argv[i + 1]);
        return 2;
      }
      if (argv[i][2] == 's') bench_arbiter_solve_iterations = n;
      else bench_arbiter_relax_iterations = n;
      i++;
    } else {
      usage(stderr);
      return 2;
    }
  }
  if (quick) runs = other_runs = 1;
  const bench_engine* engines[5];
  int n_engines = 0;
  engines[n_engines++] = &bench_engine_arbiter;
  engines[n_engines++] = &bench_engine_arbiter_no_sleep;  // only for compare_sleep scenes
#ifdef BENCH_HAVE_CHIPMUNK
  engines[n_engines++] = &bench_engine_chipmunk;
  engines[n_engines++] = &bench_engine_chipmunk_defaults;
#endif
#ifdef BENCH_HAVE_BOX2D
  engines[n_engines++] = &bench_engine_box2d;
#endif
  if (bench_arbiter_solve_iterations != 1 || bench_arbiter_relax_iterations != 1)
    printf("arbiter with %d solve and %d relax passes per substep (the configuration column says 1, 1)\n",
           bench_arbiter_solve_iterations, bench_arbiter_relax_iterations);
  if (!bench_arbiter_continuous) printf("arbiter with continuous collision off\n");
  printf("%-14s %-17s %7s %9s %9s %9s %9s %8s  %s\n", "scene", "engine", "bodies", "ms/step", "cpu ms",
         "p99 ms", "sink m", "ratio", "configuration");
  for (int si = 0; bench_scene_names[si]; ++si) {
    if (only_scene && strcmp(only_scene, bench_scene_names[si]) != 0) continue;
    bench_scene s;
    if (bench_scene_build(bench_scene_names[si], &s) != 0) continue;
    int steps = quick ? s.steps / 5 : s.steps;
    double base = 0.0;
    for (int ei = 0; ei < n_engines; ++ei) {
      const bench_engine* e = engines[ei];
      if (e == &bench_engine_arbiter_no_sleep && !s.sleeping && !bench_arbiter_sleep_all) continue;
      if (only_engine && strncmp(only_engine, e->name, strlen(only_engine)) != 0) continue;
      bool ours = e == &bench_engine_arbiter || e == &bench_engine_arbiter_no_sleep;
      result r = run_scene(e, &s, steps, ours ? runs : other_runs);
      if (ei == 0) base = r.cpu_per_step;
      char sink[32] = "-";
      if (s.top_body >= 0) snprintf(sink, sizeof sink, "%.3f", (double)r.sink);
      char ratio[32] = "1.00";
      if (ei > 0) {
        if (base > 0.0) {
          snprintf(ratio, sizeof ratio, "%.2f", r.cpu_per_step / base);
        } else {
          snprintf(ratio, sizeof ratio, "-");
        }
      }
      printf("%-14s %-17s %7d %9.3f %9.3f %9.3f %9s %8s  %s\n", s.name, e->name, r.bodies, r.ms_per_step,
             r.cpu_per_step, r.p99, sink, ratio, e->config);
      if (r.report[0]) printf("%-14s %-17s %s\n", "", "", r.report);
      fflush(stdout);
      fflush(stdout);
    }
    bench_scene_free(&s);
  }
  if (!only_engine || strncmp(only_engine, "arbiter", strlen(only_engine)) == 0) {
    bench_extras_run(only_scene, quick, runs);  // physics extras: arbiter only
  }
  return 0;
}
