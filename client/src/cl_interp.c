// Snapshot history and interpolation (design notes in cl_interp.h).
#include "cl_interp.h"

#include <arbiter/lower_bound.h>
#include <math.h>
#include <stddef.h>

#define CL_PI 3.14159265358979323846

// Delay controller gains (per newest snapshot) and slew rates (per second of render time).
#define CL_EWMA 0.1f
#define CL_DELAY_UP_RATE 0.10
// While rendering past the newest snapshot we are guessing: slow the timeline harder
// (half speed) so the data catches up, instead of extrapolating further.
#define CL_DELAY_UP_RATE_STARVED 0.5
#define CL_DELAY_DOWN_RATE 0.05
// Safety margin on top of the measured need (server timer and frame granularity).
#define CL_DELAY_MARGIN 0.002
// Arrivals before the target leaves its start value (2 nominal intervals).
#define CL_WARMUP_ARRIVALS 3
// Corrections below this (meters / radians) are quantization noise or the curvature of a
// short extrapolation: applied at once instead of fading for blend_time.
#define CL_OFFSET_SNAP 0.005f
// Slowest fade speed of a correction, m/s and rad/s (see cl_interp_push).
#define CL_FADE_MIN_SPEED 1.0f

static float wrap_angle(float a) {
  if (a > (float)CL_PI || a <= -(float)CL_PI) {
    double w = fmod((double)a + CL_PI, 2.0 * CL_PI);
    if (w <= 0.0) w += 2.0 * CL_PI;
    a = (float)(w - CL_PI);
  }
  return a;
}

static double clampd(double x, double lo, double hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

cl_interp_params cl_interp_params_of(const arb_client_config* config, float nominal_interval) {
  return (cl_interp_params){.nominal_interval = nominal_interval,
                            .delay_min = config->interp_delay_min,
                            .delay_max = config->interp_delay_max,
                            .extrapolation_limit = config->extrapolation_limit,
                            .blend_time = config->blend_time,
                            .teleport_distance = config->teleport_distance,
                            .max_entities = config->max_entities};
}

int cl_interp_init(cl_interp* in, const cl_interp_params* p, const cl_mem* mem) {
  memset(in, 0, sizeof *in);
  in->p = *p;
  in->mem = *mem;
  if (!(in->p.nominal_interval > 0.0f)) in->p.nominal_interval = 1.0f / 30.0f;
  cl_interp_reset(in);
  return 0;
}

void cl_interp_deinit(cl_interp* in) {
  cl_blocks_free(&in->mem, &in->ents);
  cl_free(&in->mem, in->order);
  in->order = NULL;
  in->count = in->order_cap = 0;
}

void cl_interp_set_nominal_interval(cl_interp* in, float interval) {
  if (interval > 0.0f && isfinite(interval)) in->p.nominal_interval = interval;
  in->interval = in->p.nominal_interval;
  in->target = (float)clampd(2.0 * in->p.nominal_interval, in->p.delay_min, in->p.delay_max);
  in->delay = in->target;
}

void cl_interp_reset(cl_interp* in) {
  in->count = 0;
  in->have_newest = false;
  in->newest_t = 0.0;
  in->arrivals = 0;
  in->need_mean = in->need_dev = 0.0f;
  in->have_T = false;
  in->T = 0.0;
  in->last_render = 0.0;
  in->ntimes = 0;
  in->extrapolation = 0.0f;
  cl_interp_set_nominal_interval(in, in->p.nominal_interval);
}

// ---- entity table (indexed by id) ------------------------------------------------------

// The first position in id order whose entity's id is >= id.
static int lower_bound(const cl_interp* in, uint32_t id) {
  int lo = 0, hi = in->count;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (cl_interp_at(in, mid)->desc.id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

cl_entity* cl_interp_find(cl_interp* in, uint32_t id) {
  int i = lower_bound(in, id);
  return (i < in->count && cl_interp_at(in, i)->desc.id == id) ? cl_interp_at(in, i) : NULL;
}

const cl_entity* cl_interp_find_const(const cl_interp* in, uint32_t id) {
  int i = lower_bound(in, id);
  return (i < in->count && cl_interp_at(in, i)->desc.id == id) ? cl_interp_at(in, i) : NULL;
}

int cl_interp_add(cl_interp* in, const arb_client_entity_desc* desc) {
  int i = lower_bound(in, desc->id);
  if (i < in->count && cl_interp_at(in, i)->desc.id == desc->id) {
    cl_interp_at(in, i)->desc = *desc;
    return 0;
  }
  if (in->count >= in->p.max_entities) return ARB_E_FULL;
  int rc = cl_grow(&in->mem, (void**)&in->order, &in->order_cap, in->count + 1, sizeof(int));
  if (rc == 0) rc = cl_blocks_room(&in->mem, &in->ents, in->count + 1, sizeof(cl_entity));
  if (rc) return rc;
  memmove(&in->order[i + 1], &in->order[i], (size_t)(in->count - i) * sizeof(int));
  in->order[i] = in->count;
  cl_entity* e = cl_interp_ent(in, in->count++);
  memset(e, 0, sizeof *e);
  e->desc = *desc;
  return 0;
}

int cl_interp_remove(cl_interp* in, uint32_t id) {
  int i = lower_bound(in, id);
  if (i >= in->count || cl_interp_at(in, i)->desc.id != id) return ARB_E_NOT_FOUND;
  int slot = in->order[i];
  memmove(&in->order[i], &in->order[i + 1], (size_t)(in->count - i - 1) * sizeof(int));
  int last = --in->count;
  if (slot != last) {  // the last entity fills the hole
    *cl_interp_ent(in, slot) = *cl_interp_ent(in, last);
    in->order[lower_bound(in, cl_interp_ent(in, slot)->desc.id)] = slot;
  }
  return 0;
}

// ---- evaluation ------------------------------------------------------------------------

typedef struct cl_eval {
  arb_vec2 p, v;
  float a, w;
  uint32_t flags;
} cl_eval;

static cl_eval from_sample(const cl_sample* s, uint32_t flags) {
  cl_eval r = {s->p, s->v, s->a, s->w, flags};
  return r;
}

// A jump the velocities cannot explain: the server teleported the body.
static bool is_teleport(const cl_interp* in, const cl_sample* a, const cl_sample* b) {
  float dx = b->p.x - a->p.x, dy = b->p.y - a->p.y;
  float d = sqrtf(dx * dx + dy * dy);
  if (d <= in->p.teleport_distance) return false;
  float va = sqrtf(a->v.x * a->v.x + a->v.y * a->v.y);
  float vb = sqrtf(b->v.x * b->v.x + b->v.y * b->v.y);
  float vmax = va > vb ? va : vb;
  return d > 2.0f * vmax * (float)(b->t - a->t) + 0.1f;
}

_Static_assert((CL_HISTORY & (CL_HISTORY - 1)) == 0, "the history ring wraps by a mask");

// Sample k of e's history (0 = oldest).
static cl_sample* at(cl_entity* e, int k) {
  return &e->hist[(e->first + k) & (CL_HISTORY - 1)];
}
static const cl_sample* at_const(const cl_entity* e, int k) {
  return &e->hist[(e->first + k) & (CL_HISTORY - 1)];
}

static cl_eval eval_curve(const cl_interp* in, const cl_entity* e, double T) {
#define h(k) (*at_const(e, (k)))
  int n = e->count;
  if (T < h(0).t) {  // before its first snapshot: shown where it entered, still
    cl_eval r = from_sample(&h(0), ARB_CLIENT_SAMPLE_HELD);
    r.v = arb_vec2_zero;
    r.w = 0.0f;
    return r;
  }
  const cl_sample* last = &h(n - 1);
  if (T >= last->t) {
    double dt = T - last->t;
    if (dt == 0.0) return from_sample(last, 0u);
    uint32_t flags = ARB_CLIENT_SAMPLE_EXTRAPOLATED;
    if (dt > in->p.extrapolation_limit) {
      dt = in->p.extrapolation_limit;
      flags = ARB_CLIENT_SAMPLE_HELD;
    }
    cl_eval r = from_sample(last, flags);
    r.p.x = last->p.x + (float)dt * last->v.x;
    r.p.y = last->p.y + (float)dt * last->v.y;
    r.a = wrap_angle(last->a + (float)dt * last->w);
    if (flags == ARB_CLIENT_SAMPLE_HELD) {
      r.v = arb_vec2_zero;
      r.w = 0.0f;
    }
    return r;
  }
  // Binary search for the bracketing pair h[i].t <= T < h[i+1].t.
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    int mid = lo + (hi - lo) / 2;
    if (h(mid).t <= T)
      lo = mid;
    else
      hi = mid;
  }
  const cl_sample* a = &h(lo);
  const cl_sample* b = &h(lo + 1);
#undef h
  cl_eval r = from_sample(a, 0u);
  if (is_teleport(in, a, b)) {  // stays at a until b's time
    r.v = arb_vec2_zero;
    r.w = 0.0f;
    return r;
  }
  // The drawn motion is the chord a -> b; its velocity is what the entity is seen doing
  // (the snapshots' own velocities can disagree with it, e.g. across a bounce).
  float span = (float)(b->t - a->t);
  float da = wrap_angle(b->a - a->a);
  r.v = arb_v2((b->p.x - a->p.x) / span, (b->p.y - a->p.y) / span);
  r.w = da / span;
  if (T == a->t) return r;  // exactly the snapshot's position and angle
  float u = (float)((T - a->t) / (b->t - a->t));
  r.p.x = a->p.x + (b->p.x - a->p.x) * u;
  r.p.y = a->p.y + (b->p.y - a->p.y) * u;
  r.a = wrap_angle(a->a + da * u);
  return r;
}

// Curve plus the fading correction. The reported velocities are those of what is drawn
// (curve + fade), so a renderer's velocity vectors and a continuity check agree with the
// motion on screen.
static cl_eval eval_output(const cl_interp* in, const cl_entity* e, double T) {
  cl_eval r = eval_curve(in, e, T);
  if (e->blending) {
    double f = 1.0;
    if (e->off_dur > 0.0f) f = 1.0 - (T - e->off_t0) / e->off_dur;
    if (f > 1.0) f = 1.0;
    if (f > 0.0) {
      r.p.x += e->off_p.x * (float)f;
      r.p.y += e->off_p.y * (float)f;
      r.a = wrap_angle(r.a + e->off_a * (float)f);
      r.flags |= ARB_CLIENT_SAMPLE_BLENDING;
      if (T >= e->off_t0 && e->off_dur > 0.0f) {
        r.v.x -= e->off_p.x / e->off_dur;
        r.v.y -= e->off_p.y / e->off_dur;
        r.w -= e->off_a / e->off_dur;
      }
    }
  }
  return r;
}

static bool sample_is_finite(const cl_sample* s) {
  return isfinite(s->t) && isfinite(s->p.x) && isfinite(s->p.y) && isfinite(s->a) &&
         isfinite(s->v.x) && isfinite(s->v.y) && isfinite(s->w);
}

int cl_interp_push(cl_interp* in, uint32_t id, const cl_sample* s_in) {
  cl_entity* e = cl_interp_find(in, id);
  if (!e) return ARB_E_NOT_FOUND;
  if (!sample_is_finite(s_in)) return ARB_E_NONFINITE;
  cl_sample s = *s_in;
  s.a = wrap_angle(s.a);

  // How far the rendered output was extrapolating this entity, and how fast: a correction
  // up to what that guess could have got wrong is a blend, not a teleport.
  float guess = 0.0f, guess_speed = 0.0f;
  float fading = 0.0f;  // what is left of an earlier correction at out_t
  if (e->has_out && e->count > 0) {
    const cl_sample* last = at(e, e->count - 1);
    double ex = e->out_t - last->t;
    if (ex > in->p.extrapolation_limit) ex = in->p.extrapolation_limit;
    if (ex > 0.0) guess = (float)ex;
    guess_speed = sqrtf(last->v.x * last->v.x + last->v.y * last->v.y);
    if (e->blending) {
      double f = e->off_dur > 0.0f ? 1.0 - (e->out_t - e->off_t0) / e->off_dur : 0.0;
      if (f > 1.0) f = 1.0;
      if (f > 0.0) fading = (float)f * sqrtf(e->off_p.x * e->off_p.x + e->off_p.y * e->off_p.y);
    }
  }

  // Find the insertion point (histories are short; the common case is "append").
  int i = e->count;
  while (i > 0 && at(e, i - 1)->t > s.t) i--;
  if (i > 0 && at(e, i - 1)->t == s.t) return 0;  // duplicate
  if (e->count == CL_HISTORY) {
    if (i == 0) return 0;  // older than everything we keep
    // The oldest is dropped: sample k is now the one that was k + 1. Those from the
    // insertion point on move back up by one (none when appending, the common case).
    e->first = (e->first + 1) & (CL_HISTORY - 1);
    i--;
    for (int k = e->count - 1; k > i; k--) *at(e, k) = *at(e, k - 1);
  } else {
    for (int k = e->count; k > i; k--) *at(e, k) = *at(e, k - 1);
    e->count++;
  }
  *at(e, i) = s;

  // Keep the rendered path continuous: whatever the new sample changed at the last
  // rendered time becomes a fading offset (or a snap when it is a teleport).
  if (e->has_out) {
    cl_eval now = eval_curve(in, e, e->out_t);
    float ox = e->out_p.x - now.p.x, oy = e->out_p.y - now.p.y;
    float oa = wrap_angle(e->out_a - now.a);
    float d2 = ox * ox + oy * oy;
    float td = in->p.teleport_distance + 2.0f * guess_speed * guess + fading;
    if (d2 > td * td || (d2 < CL_OFFSET_SNAP * CL_OFFSET_SNAP && fabsf(oa) < CL_OFFSET_SNAP)) {
      e->blending = false;
      e->off_p = arb_vec2_zero;
      e->off_a = 0.0f;
    } else {
      // Fade over blend_time, or longer so that the correction never moves the entity
      // faster than the entity itself moves (at least 1 m/s, 1 rad/s): a correction
      // must not look like motion the body never had.
      float v = sqrtf(s.v.x * s.v.x + s.v.y * s.v.y);
      float w = fabsf(s.w);
      float dur = in->p.blend_time;
      float dp = sqrtf(d2) / (v > CL_FADE_MIN_SPEED ? v : CL_FADE_MIN_SPEED);
      float da = fabsf(oa) / (w > CL_FADE_MIN_SPEED ? w : CL_FADE_MIN_SPEED);
      if (dp > dur) dur = dp;
      if (da > dur) dur = da;
      e->blending = true;
      e->off_p = arb_v2(ox, oy);
      e->off_a = oa;
      e->off_t0 = e->out_t;
      e->off_dur = dur;
    }
  }
  return 0;
}

void cl_interp_on_snapshot(cl_interp* in, double t, double est_now) {
  // Recent snapshot times (for the buffer depth), ascending, duplicates skipped.
  int i = in->ntimes;
  while (i > 0 && in->times[i - 1] > t) i--;
  if (!(i > 0 && in->times[i - 1] == t)) {
    if (in->ntimes == CL_TIMES) {
      if (i > 0) {
        memmove(&in->times[0], &in->times[1], (size_t)(i - 1) * sizeof(double));
        in->times[i - 1] = t;
      }
    } else {
      memmove(&in->times[i + 1], &in->times[i], (size_t)(in->ntimes - i) * sizeof(double));
      in->times[i] = t;
      in->ntimes++;
    }
  }

  if (in->have_newest && t <= in->newest_t) return;  // late or duplicate: no timing info
  if (in->have_newest) {
    // Until this arrival the newest state we had was newest_t: rendering had to stay
    // `needed` behind the estimate to never run out. Outages are clamped: they are what
    // extrapolation is for, not the cadence to plan for.
    float needed = (float)(est_now - in->newest_t);
    float cap = in->need_mean + 4.0f * in->p.nominal_interval;
    if (in->arrivals > 1 && needed > cap) needed = cap;
    float interval = (float)(t - in->newest_t);
    if (interval > 4.0f * in->p.nominal_interval) interval = 4.0f * in->p.nominal_interval;
    float k = in->arrivals < 2 * CL_WARMUP_ARRIVALS ? CL_EWMA : 0.5f * CL_EWMA;
    if (in->arrivals == 1) {
      in->need_mean = needed;
      in->need_dev = 0.0f;
    } else {
      float dev = fabsf(needed - in->need_mean);
      in->need_mean += k * (needed - in->need_mean);
      in->need_dev += k * (dev - in->need_dev);
    }
    in->interval += k * (interval - in->interval);
  }
  in->have_newest = true;
  in->newest_t = t;
  in->arrivals++;
  if (in->arrivals > CL_WARMUP_ARRIVALS) {
    double target = (double)in->need_mean + 2.5 * in->need_dev + CL_DELAY_MARGIN;
    in->target = (float)clampd(target, in->p.delay_min, in->p.delay_max);
  }
}

double cl_interp_frame(cl_interp* in, double est_now, double render_time) {
  double dt = in->have_T ? render_time - in->last_render : 0.0;
  if (dt < 0.0) dt = 0.0;
  if (render_time > in->last_render || !in->have_T) in->last_render = render_time;
  double diff = (double)in->target - in->delay;
  double up = (in->extrapolation > 0.0f ? CL_DELAY_UP_RATE_STARVED : CL_DELAY_UP_RATE) * dt;
  double down = CL_DELAY_DOWN_RATE * dt;
  if (diff > up)
    in->delay += (float)up;
  else if (diff < -down)
    in->delay -= (float)down;
  else
    in->delay = in->target;

  double T = est_now - in->delay;
  if (in->have_T && T < in->T) T = in->T;
  in->T = T;
  in->have_T = true;
  double ex = in->have_newest ? T - in->newest_t : 0.0;
  in->extrapolation = ex > 0.0 ? (float)ex : 0.0f;
  return T;
}

static void fill_state(const cl_entity* e, const cl_eval* r, arb_client_entity_state* o) {
  o->id = e->desc.id;
  o->owner = e->desc.owner;
  o->position = r->p;
  o->angle = r->a;
  o->rotation = arb_rot_from_angle(r->a);
  o->linear_velocity = r->v;
  o->angular_velocity = r->w;
  o->flags = r->flags;
}

int cl_interp_sample(cl_interp* in, double T, arb_client_entity_state* out, int max, bool commit) {
  int n = 0;
  for (int i = 0; i < in->count; i++) {
    cl_entity* e = cl_interp_at(in, i);
    if (e->count == 0) continue;
    cl_eval r = eval_output(in, e, T);
    if (commit) {
      if (e->blending && T - e->off_t0 >= e->off_dur) {
        e->blending = false;
        r.flags &= ~ARB_CLIENT_SAMPLE_BLENDING;
      }
      e->has_out = true;
      e->out_t = T;
      e->out_p = r.p;
      e->out_a = r.a;
    }
    if (out && n < max) fill_state(e, &r, &out[n]);
    n++;
  }
  return n;
}

int cl_interp_eval(const cl_interp* in, uint32_t id, double T, arb_client_entity_state* out) {
  const cl_entity* e = cl_interp_find_const(in, id);
  if (!e || e->count == 0) return ARB_E_NOT_FOUND;
  cl_eval r = eval_curve(in, e, T);
  fill_state(e, &r, out);
  return 0;
}

int cl_interp_buffer_depth(const cl_interp* in, double T) {
  int n = 0;
  for (int i = in->ntimes - 1; i >= 0 && in->times[i] > T; i--) n++;
  return n;
}
