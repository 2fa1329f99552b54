// arbiter-view — live mode (see view_live.h).
#include "view_live.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arbiter/protocol.h>

struct view_live {
  view_live_config cfg;
  char host[256];
  char name[64];
  arb_client* client;
  // Connection story for the on-screen messages.
  double state_since;  // when the current connect attempt started
  double retry_at;     // > 0: reconnect ourselves at this time (after a reject/failure)
  char problem[512];   // last thing that went wrong ("" = nothing)
  uint32_t problem_rgb;
  int attempts;
  bool ever_connected;
  arb_avatar_kind kind;  // our avatar's kind once we have seen it
  // Grow-only buffers.
  arb_client_entity_desc* descs;
  int desc_cap;
  arb_client_entity_state* states;
  int state_cap;
  arb_client_entity_state* latest;  // raw newest snapshot, for ghosts
  int latest_cap;
  arb_client_particle* particles;
  int particle_cap;
  arb_client_link* links;
  int link_cap;
  arb_client_wheel* wheels;
  int wheel_cap;
  // The camera box last reported to the server (view_live_set_camera).
  arb_vec2 box_lo, box_hi;
  bool box_sent;
};

static void start_connect(view_live* l, double now) {
  l->attempts++;
  l->state_since = now;
  l->retry_at = 0.0;
  int rc = arb_client_connect(l->client);
  if (rc != 0 && rc != ARB_E_STATE) {
    snprintf(l->problem, sizeof l->problem, "cannot connect to %s:%u: %s", l->host,
             (unsigned)l->cfg.port, arb_strerror(rc));
    l->problem_rgb = VIEW_RGB_ERROR;
    l->retry_at = now + l->cfg.retry_delay;
  }
}

int view_live_create(const view_live_config* cfg, view_live** out, char* err, size_t err_cap) {
  *out = NULL;
  view_live* l = calloc(1, sizeof *l);
  if (!l) {
    snprintf(err, err_cap, "out of memory");
    return ARB_E_NOMEM;
  }
  l->cfg = *cfg;
  snprintf(l->host, sizeof l->host, "%s", cfg->host ? cfg->host : "127.0.0.1");
  snprintf(l->name, sizeof l->name, "%s", cfg->name ? cfg->name : "viewer");
  l->cfg.host = l->host;
  l->cfg.name = l->name;
  if (l->cfg.retry_delay <= 0.0f) l->cfg.retry_delay = 2.0f;
  l->kind = cfg->avatar;
  arb_client_config cc = arb_client_default_config();
  cc.host = l->host;
  cc.port = cfg->port;
  cc.name = l->name;
  cc.avatar = cfg->avatar;
  cc.spectate = cfg->spectate;
  cc.auto_reconnect = true;
  cc.connect_timeout = 3.0f;
  int rc = arb_client_create(&cc, &l->client);
  if (rc != 0) {
    snprintf(err, err_cap, "client: %s", arb_strerror(rc));
    free(l);
    return rc;
  }
  *out = l;
  return 0;
}

void view_live_destroy(view_live* l) {
  if (!l) return;
  if (l->client) {
    arb_client_disconnect(l->client, "viewer closed");
    arb_client_destroy(l->client);
  }
  free(l->descs);
  free(l->states);
  free(l->latest);
  free(l->particles);
  free(l->links);
  free(l->wheels);
  free(l);
}

bool view_live_connected(const view_live* l) {
  return arb_client_get_state(l->client) == ARB_CLIENT_CONNECTED;
}

arb_avatar_kind view_live_avatar_kind(const view_live* l) {
  return l->kind;
}

void view_live_retry(view_live* l, double now) {
  arb_client_state st = arb_client_get_state(l->client);
  if (st == ARB_CLIENT_CONNECTED) return;
  if (st != ARB_CLIENT_DISCONNECTED) arb_client_disconnect(l->client, "retry");
  start_connect(l, now);
}

void view_live_update(view_live* l, double now, const arb_controls* controls) {
  if (l->attempts == 0) start_connect(l, now);
  if (l->retry_at > 0.0 && now >= l->retry_at) start_connect(l, now);
  arb_client_update(l->client, now);
  arb_client_event ev;
  while (arb_client_poll_event(l->client, &ev) > 0) {
    switch (ev.type) {
      case ARB_CLIENT_EVENT_CONNECTED:
        l->problem[0] = '\0';
        l->ever_connected = true;
        l->attempts = 1;
        break;
      case ARB_CLIENT_EVENT_REJECTED:
        // The library never reconnects after a reject; we do, slowly, on a timer.
        snprintf(l->problem, sizeof l->problem, "rejected by %s:%u: %s", l->host,
                 (unsigned)l->cfg.port, ev.text[0] ? ev.text : "no reason given");
        l->problem_rgb = VIEW_RGB_ERROR;
        l->retry_at = now + 2.0 * l->cfg.retry_delay;
        break;
      case ARB_CLIENT_EVENT_DISCONNECTED:
        snprintf(l->problem, sizeof l->problem, "disconnected: %s",
                 ev.text[0] ? ev.text : "link lost");
        l->problem_rgb = VIEW_RGB_WARN;
        l->state_since = now;
        break;
      default:
        break;
    }
  }
  arb_client_state st = arb_client_get_state(l->client);
  // A connect that gave up (or a drop without auto-reconnect) leaves the client idle:
  // schedule our own retry so the window keeps trying.
  if (st == ARB_CLIENT_DISCONNECTED && l->retry_at <= 0.0) {
    if (!l->problem[0]) {
      snprintf(l->problem, sizeof l->problem, "no answer from %s:%u", l->host,
               (unsigned)l->cfg.port);
      l->problem_rgb = VIEW_RGB_WARN;
    }
    l->retry_at = now + l->cfg.retry_delay;
  }
  if (st == ARB_CLIENT_CONNECTED && controls) arb_client_set_controls(l->client, controls);
}

static bool grow(void** p, int* cap, int need, size_t elem) {
  if (need <= *cap) return true;
  int c = *cap ? *cap : 256;
  while (c < need) c *= 2;
  void* np = realloc(*p, (size_t)c * elem);
  if (!np) return false;
  *p = np;
  *cap = c;
  return true;
}

// Room for n items (the count a getter returned); 0 when memory runs out.
static int reserve(void** buf, int* cap, int n, size_t elem) {
  return n > 0 && grow(buf, cap, n, elem) ? n : 0;
}

// Particles, ropes, springs, joints and wheels at the time the bodies were just sampled
// at, into the same drawables a replay's world gives (view_extras.c).
static void add_live_extras(view_live* l, view_frame* f) {
  const arb_client_when at = ARB_CLIENT_AT_SAMPLE;
  int np = reserve((void**)&l->particles, &l->particle_cap,
                   arb_client_get_particles(l->client, at, NULL, 0), sizeof *l->particles);
  np = np ? arb_client_get_particles(l->client, at, l->particles, np) : 0;
  if (np > l->particle_cap) np = l->particle_cap;
  for (int i = 0; i < np; i++) {
    view_particle* p = view_frame_add_particle(f);
    if (!p) break;
    p->p = l->particles[i].position;
    p->radius = l->particles[i].radius;
    p->pinned = l->particles[i].pinned;
  }
  int nl = reserve((void**)&l->links, &l->link_cap, arb_client_get_links(l->client, at, NULL, 0),
                   sizeof *l->links);
  nl = nl ? arb_client_get_links(l->client, at, l->links, nl) : 0;
  if (nl > l->link_cap) nl = l->link_cap;
  for (int i = 0; i < nl; i++) {
    const arb_client_link* k = &l->links[i];
    view_link* v = view_frame_add_link(f);
    if (!v) break;
    v->a = k->anchor_a;
    v->b = k->anchor_b;
    v->axis = arb_vec2_zero;  // not on the wire: a slider is drawn as its rod
    v->kind = k->kind == ARB_CLIENT_LINK_ROPE     ? VIEW_LINK_CONSTRAINT
              : k->kind == ARB_CLIENT_LINK_SPRING ? VIEW_LINK_SPRING
                                                  : view_joint_link_kind(k->joint_type);
  }
  int nw = reserve((void**)&l->wheels, &l->wheel_cap, arb_client_get_wheels(l->client, at, NULL, 0),
                   sizeof *l->wheels);
  nw = nw ? arb_client_get_wheels(l->client, at, l->wheels, nw) : 0;
  if (nw > l->wheel_cap) nw = l->wheel_cap;
  for (int i = 0; i < nw; i++)
    view_frame_put_wheel(f, (arb_transform){l->wheels[i].position, l->wheels[i].rotation},
                         l->wheels[i].radius);
}

void view_live_fill(view_live* l, double now, view_frame* f, bool ghosts) {
  view_frame_clear(f);
  int ns = 0;
  const arb_client_static_body* st = arb_client_get_static_geometry(l->client, &ns);
  for (int i = 0; i < ns; i++) {
    view_body* b = view_frame_add_body(f);
    if (!b) break;
    b->role = VIEW_ROLE_STATIC;
    b->shape = st[i].shape;
    b->xf.p = st[i].position;
    b->xf.q = arb_rot_from_angle(st[i].angle);
  }
  int nd = arb_client_get_entities(l->client, NULL, 0);
  if (nd > 0 && grow((void**)&l->descs, &l->desc_cap, nd, sizeof *l->descs))
    nd = arb_client_get_entities(l->client, l->descs, nd);
  else
    nd = 0;
  if (nd > l->desc_cap) nd = l->desc_cap;
  int want = nd > 0 ? nd : 1;
  int n = 0;
  if (grow((void**)&l->states, &l->state_cap, want, sizeof *l->states)) {
    n = arb_client_sample(l->client, now, l->states, l->state_cap);
    if (n > l->state_cap) n = l->state_cap;
  }
  int nl = 0;
  if (ghosts) {
    nl = arb_client_get_latest(l->client, NULL, 0);
    if (nl > 0 && grow((void**)&l->latest, &l->latest_cap, nl, sizeof *l->latest))
      nl = arb_client_get_latest(l->client, l->latest, l->latest_cap);
    else
      nl = 0;
    if (nl > l->latest_cap) nl = l->latest_cap;
  }
  const arb_client_session* ses = arb_client_get_session(l->client);
  uint32_t own = ses ? ses->client_id : 0;
  uint32_t own_entity = ses ? ses->avatar_entity : 0;
  // All lists are in id order: merge.
  int k = 0, g = 0;
  for (int i = 0; i < n; i++) {
    const arb_client_entity_state* s = &l->states[i];
    while (k < nd && l->descs[k].id < s->id) k++;
    if (k >= nd || l->descs[k].id != s->id) continue;  // described later
    const arb_client_entity_desc* d = &l->descs[k];
    view_body* b = view_frame_add_body(f);
    if (!b) break;
    b->id = s->id;
    b->shape = d->shape;
    b->xf.p = s->position;
    b->xf.q = s->rotation;
    b->velocity = s->linear_velocity;
    b->has_velocity = true;
    while (g < nl && l->latest[g].id < s->id) g++;
    if (g < nl && l->latest[g].id == s->id) {
      b->ghost.p = l->latest[g].position;
      b->ghost.q = l->latest[g].rotation;
      b->has_ghost = true;
    }
    if (d->body_type == ARB_BODY_STATIC)
      b->role = VIEW_ROLE_STATIC;
    else if (d->owner == 0)
      b->role = VIEW_ROLE_WORLD;
    else if ((own && d->owner == own) || (own_entity && s->id == own_entity))
      b->role = VIEW_ROLE_OWN;
    else
      b->role = VIEW_ROLE_OTHER;
    if (b->role == VIEW_ROLE_OWN) {
      b->has_correction = (s->flags & ARB_CLIENT_SAMPLE_PREDICTED) &&
                          arb_client_get_correction(l->client, &b->correction);
      f->focus = s->position;
      f->has_focus = true;
      // The server says what our avatar is (the scene's choice when we asked for the
      // default): the keys then drive only that controller's inputs.
      if (d->avatar_kind > ARB_AVATAR_DEFAULT && d->avatar_kind < ARB_AVATAR_KIND_COUNT)
        l->kind = (arb_avatar_kind)d->avatar_kind;
    }
    // A compound body's other shapes, drawn at the same pose.
    for (int p = 1; p < d->shape_count; p++) {
      view_shape part;
      if (arb_client_get_entity_shape(l->client, d->id, p, &part) != 0) continue;
      if (!view_frame_add_part(f, b, part, false)) break;
    }
  }
  add_live_extras(l, f);
  view_frame_compute_bounds(f);
}

void view_live_stats(view_live* l, view_stats* s) {
  memset(s, 0, sizeof *s);
  arb_client_stats cs;
  arb_client_get_stats(l->client, &cs);
  s->valid = true;
  s->rtt_ms = cs.rtt * 1000.0f;
  s->loss_pct = cs.packet_loss * 100.0f;
  s->snapshots_per_s = cs.snapshots_per_second;
  s->kbps_in = cs.bytes_in_per_second * 8.0f / 1000.0f;
  s->kbps_out = cs.bytes_out_per_second * 8.0f / 1000.0f;
  s->interp_delay_ms = cs.interp_delay * 1000.0f;
  s->extrapolation_ms = cs.extrapolation_time * 1000.0f;
  s->jitter_ms = cs.jitter * 1000.0f;
  s->buffer_depth = cs.buffer_depth;
  s->entity_count = cs.entity_count;
  s->server_tick = arb_client_get_snapshot_tick(l->client);
}

void view_live_messages(view_live* l, double now, view_text_lines* status,
                        view_text_lines* message) {
  arb_client_state st = arb_client_get_state(l->client);
  const arb_client_session* ses = arb_client_get_session(l->client);
  if (st == ARB_CLIENT_CONNECTED && ses) {
    view_lines_add(status, VIEW_RGB_OK, "live  %s:%u  scene '%s'", l->host, (unsigned)l->cfg.port,
                   ses->scene_name);
    static const char* const kinds[] = {"avatar", "force avatar", "vehicle avatar"};
    view_lines_add(
        status, VIEW_RGB_TEXT_DIM, "client %u (%s)  tick %llu  F1 help", ses->client_id,
        l->cfg.spectate ? "spectator" : kinds[l->kind < ARB_AVATAR_KIND_COUNT ? l->kind : 0],
        (unsigned long long)arb_client_get_snapshot_tick(l->client));
    return;
  }
  view_lines_add(status, VIEW_RGB_WARN, "live  %s:%u  not connected", l->host,
                 (unsigned)l->cfg.port);
  if (l->problem[0]) view_lines_add(message, l->problem_rgb, "%s", l->problem);
  switch (st) {
    case ARB_CLIENT_CONNECTING: {
      arb_client_stats cs;
      arb_client_get_stats(l->client, &cs);  // the library's own reconnects count as attempts
      view_lines_add(message, VIEW_RGB_TEXT, "connecting to %s:%u ... %.0f s (attempt %u)", l->host,
                     (unsigned)l->cfg.port, now - l->state_since,
                     (unsigned)l->attempts + cs.reconnects);
      if (now - l->state_since > 2.0)
        view_lines_add(message, VIEW_RGB_TEXT_DIM, "is arbiter-server running on that port?");
      break;
    }
    case ARB_CLIENT_RECONNECT_WAIT:
      view_lines_add(message, VIEW_RGB_TEXT, "connection lost - reconnecting shortly");
      break;
    default:
      if (l->retry_at > now)
        view_lines_add(message, VIEW_RGB_TEXT, "retrying in %.0f s", l->retry_at - now + 0.5);
      break;
  }
  view_lines_add(message, VIEW_RGB_TEXT_DIM, "R retry now   Esc quit");
}

// The box sent is the visible one with a quarter of its size added on each side, so a
// following camera reports again only when the view leaves it or zooms in to less than
// half of it: a few reliable messages a second at most, not one per frame.
void view_live_set_camera(view_live* l, arb_vec2 lo, arb_vec2 hi) {
  if (!(lo.x <= hi.x && lo.y <= hi.y)) return;
  arb_vec2 size = arb_sub(hi, lo);
  if (l->box_sent && lo.x >= l->box_lo.x && lo.y >= l->box_lo.y && hi.x <= l->box_hi.x &&
      hi.y <= l->box_hi.y && 2.0f * size.x >= l->box_hi.x - l->box_lo.x &&
      2.0f * size.y >= l->box_hi.y - l->box_lo.y)
    return;
  arb_vec2 c = arb_scale(0.5f, arb_add(lo, hi));
  arb_vec2 half = arb_scale(0.75f, size);  // half the visible size + a quarter of it
  half.x = arb_minf(half.x, 0.5f * ARB_PROTO_MAX_VIEW_SIDE);
  half.y = arb_minf(half.y, 0.5f * ARB_PROTO_MAX_VIEW_SIDE);
  arb_vec2 box_lo = arb_sub(c, half), box_hi = arb_add(c, half);
  if (arb_client_set_view_box(l->client, box_lo, box_hi) != ARB_OK) return;
  l->box_lo = box_lo;
  l->box_hi = box_hi;
  l->box_sent = true;
}
