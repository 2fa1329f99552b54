// The client's particles, links and wheels (client/src/cl_extras.c) on hand-made
// snapshot parts fed to a client's snapshot views: at the newest snapshot they are the
// wire's state exactly; at a sample time between two snapshots particles are interpolated,
// past the newest they are predicted for at most extrapolation_limit; joint ends and
// wheels sit on their bodies (or on the world for an end 0), links whose body is unknown
// are left out, and a removed link is gone.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/snapshot_part.h"
#include "cl_client.h"

#define P1 0x40000000u  // particle ids as arbiter's server numbers them
#define P2 0x40000001u
#define ROPE 0x50000000u
#define WHEEL 0x60000000u
#define JOINT 0x78000000u
#define JOINT_LOST 0x78000001u
#define BODY 5u

static arb_snapshot_part g_snap;
static uint8_t g_buf[ARB_PROTO_MAX_PAYLOAD];

static arb_snapshot_record* record(uint32_t id, uint8_t op, uint8_t cls) {
  return snapshot_part_record(&g_snap, id, op, cls);
}

static arb_snapshot_desc* enter(uint32_t id, uint8_t cls, arb_snapshot_state v) {
  return snapshot_part_enter(&g_snap, id, cls, v);
}

static void deliver(arb_client* c) {
  int n = arb_proto_encode_snapshot(&g_snap, g_buf, sizeof g_buf);
  assert_true(n > 0);
  cl_snap_result res;
  arb_proto_error err;
  assert_int_equal(cl_snapshots_receive(&c->snaps, g_buf, (size_t)n, &res, &err), 1);
  assert_true(res.completed);
}

// Tick 10 (full): a body at (1, 0) turned a quarter turn, two particles (one moving at
// 1 m/s, one pinned) with a rope between them, a wheel on the body, a revolute joint from
// the body to a world point and one to a body the client does not know.
static void first_snapshot(arb_client* c) {
  snapshot_part_begin(&g_snap, 10, 0, 0, 1);
  arb_snapshot_desc* d =
      enter(BODY, ARB_SNAPSHOT_BODY, (arb_snapshot_state){.x = 128, .angle = 16384});
  d->shape_count = 1;
  d->shapes[0] = (arb_proto_shape){.kind = ARB_PROTO_SHAPE_CIRCLE, .count = 1, .radius = 0.5f};
  d = enter(P1, ARB_SNAPSHOT_PARTICLE, (arb_snapshot_state){.x = 0, .vx = 256});
  d->radius = 0.05f;
  enter(P2, ARB_SNAPSHOT_PARTICLE,
        (arb_snapshot_state){.x = 256, .y = 128, .flags = ARB_SNAPSHOT_FLAG_PINNED});
  d = enter(ROPE, ARB_SNAPSHOT_LINK, (arb_snapshot_state){0});
  *d = (arb_snapshot_desc){
      .cls = ARB_SNAPSHOT_LINK, .link_kind = ARB_SNAPSHOT_LINK_ROPE, .a = P1, .b = P2};
  d = enter(WHEEL, ARB_SNAPSHOT_WHEEL,
            (arb_snapshot_state){.angle = 8192, .aux = 4096, .flags = ARB_SNAPSHOT_FLAG_SKID});
  *d = (arb_snapshot_desc){
      .cls = ARB_SNAPSHOT_WHEEL, .a = BODY, .anchor_a = {0.5f, 0.0f}, .radius = 0.3f};
  d = enter(JOINT, ARB_SNAPSHOT_LINK, (arb_snapshot_state){0});
  *d = (arb_snapshot_desc){.cls = ARB_SNAPSHOT_LINK,
                           .link_kind = ARB_SNAPSHOT_LINK_JOINT,
                           .joint_type = 2,
                           .a = BODY,
                           .b = 0,
                           .anchor_a = {1.0f, 0.0f},
                           .anchor_b = {3.0f, 4.0f}};
  d = enter(JOINT_LOST, ARB_SNAPSHOT_LINK, (arb_snapshot_state){0});
  *d = (arb_snapshot_desc){.cls = ARB_SNAPSHOT_LINK,
                           .link_kind = ARB_SNAPSHOT_LINK_JOINT,
                           .joint_type = 4,
                           .a = 99,
                           .b = BODY};
  deliver(c);
}

static arb_client* make_client(void) {
  arb_client_config cfg = arb_client_default_config();
  arb_client* c = NULL;
  assert_int_equal(arb_client_create(&cfg, &c), 0);
  c->session.tick_rate = 60;
  first_snapshot(c);
  return c;
}

static void close_to(arb_vec2 got, float x, float y) {
  assert_true(arb_distance(got, arb_v2(x, y)) < 1e-5f);
}

static void latest_is_the_wire_state(void** state) {
  (void)state;
  arb_client* c = make_client();
  arb_client_particle p[4];
  assert_int_equal(arb_client_get_particles(c, ARB_CLIENT_AT_LATEST, p, 4), 2);
  assert_int_equal(p[0].id, P1);
  close_to(p[0].position, 0.0f, 0.0f);
  close_to(p[0].velocity, 1.0f, 0.0f);
  assert_true(p[0].radius == 0.05f && !p[0].pinned);
  close_to(p[1].position, 2.0f, 1.0f);
  assert_true(p[1].pinned);

  arb_client_link l[4];
  assert_int_equal(arb_client_get_links(c, ARB_CLIENT_AT_LATEST, l, 4),
                   2);  // not the one on body 99
  assert_int_equal(l[0].kind, ARB_CLIENT_LINK_ROPE);
  close_to(l[0].anchor_a, 0.0f, 0.0f);
  close_to(l[0].anchor_b, 2.0f, 1.0f);
  assert_int_equal(l[1].kind, ARB_CLIENT_LINK_JOINT);
  assert_int_equal(l[1].joint_type, 2);
  assert_true(l[1].a == BODY && l[1].b == 0);
  close_to(l[1].anchor_a, 1.0f, 1.0f);  // (1, 0) + (1, 0) turned a quarter turn
  close_to(l[1].anchor_b, 3.0f, 4.0f);  // the world end as sent

  arb_client_wheel w[2];
  assert_int_equal(arb_client_get_wheels(c, ARB_CLIENT_AT_LATEST, w, 2), 1);
  assert_int_equal(w[0].vehicle, BODY);
  close_to(w[0].position, 1.0f, 0.5f);
  assert_true(fabsf(w[0].steer - 3.14159265f / 8.0f) < 1e-5f &&
              fabsf(w[0].spin - 3.14159265f / 4.0f) < 1e-5f);
  assert_true(w[0].skid && w[0].radius == 0.3f);
  // Chassis (a quarter turn) turned by the steering (an eighth of a quarter): 5/8 pi.
  assert_true(fabsf(arb_rot_angle(w[0].rotation) - 5.0f * 3.14159265f / 8.0f) < 1e-4f);
  assert_int_equal(arb_client_get_wheels(c, ARB_CLIENT_AT_LATEST, NULL, 0), 1);  // count only
  arb_client_destroy(c);
}

static void sample_interpolates_and_extrapolates(void** state) {
  (void)state;
  arb_client* c = make_client();
  // Tick 12 against 10: the moving particle was pushed to x = 3 m, the joint removed.
  snapshot_part_begin(&g_snap, 12, 10, 0, 1);
  arb_snapshot_record* r = record(P1, ARB_SNAPSHOT_UPDATE, ARB_SNAPSHOT_PARTICLE);
  r->mask = ARB_SNAPSHOT_M_POS;
  r->v.x = 384 - 4;  // predicted 4/128 m after 2 ticks at 1 m/s
  record(JOINT, ARB_SNAPSHOT_REMOVE, 0);
  deliver(c);
  arb_client_particle p[2];
  c->sample_time = 11.0 / 60.0;  // halfway: between 0 and 3 m
  assert_int_equal(arb_client_get_particles(c, ARB_CLIENT_AT_SAMPLE, p, 2), 2);
  close_to(p[0].position, 1.5f, 0.0f);
  close_to(p[1].position, 2.0f, 1.0f);
  c->sample_time = 12.0 / 60.0 + 1.0;  // a second past the newest: 0.25 s of prediction
  arb_client_get_particles(c, ARB_CLIENT_AT_SAMPLE, p, 2);
  close_to(p[0].position, 3.25f, 0.0f);
  close_to(p[1].position, 2.0f, 1.0f);  // pinned: stays
  c->sample_time = 12.5 / 60.0;         // between two ticks past the newest: on the way
  arb_client_get_particles(c, ARB_CLIENT_AT_SAMPLE, p, 2);
  assert_true(p[0].position.x > 3.0f && p[0].position.x < 3.0f + 1.0f / 60.0f + 1e-5f);
  c->sample_time = 1.0 / 60.0;  // before every view held: the oldest
  arb_client_get_particles(c, ARB_CLIENT_AT_SAMPLE, p, 2);
  close_to(p[0].position, 0.0f, 0.0f);

  // The removed joint is gone; the body is not sampled yet, so nothing sits on it.
  arb_client_link l[4];
  assert_int_equal(arb_client_get_links(c, ARB_CLIENT_AT_LATEST, l, 4), 1);
  assert_int_equal(l[0].kind, ARB_CLIENT_LINK_ROPE);
  assert_int_equal(arb_client_get_wheels(c, ARB_CLIENT_AT_SAMPLE, NULL, 0), 0);
  // Drawn at (2, 0) by the last sample: the wheel follows the drawn body.
  arb_client_entity_desc desc = {.id = BODY};
  assert_int_equal(cl_interp_add(&c->interp, &desc), 0);
  cl_entity* e = cl_interp_find(&c->interp, BODY);
  e->has_out = true;
  e->out_p = arb_v2(2.0f, 0.0f);
  e->out_a = 0.0f;
  arb_client_wheel w;
  assert_int_equal(arb_client_get_wheels(c, ARB_CLIENT_AT_SAMPLE, &w, 1), 1);
  close_to(w.position, 2.5f, 0.0f);
  arb_client_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(latest_is_the_wire_state),
      cmocka_unit_test(sample_interpolates_and_extrapolates),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
