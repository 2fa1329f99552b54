// cl_predict_proxy — the other players' avatars near the own one, as bodies of the local
// game, so that running into them is predicted instead of corrected afterwards.
//
// Their inputs are unknown, so they are not simulated: each is a dynamic body that is put
// back before every predicted tick at the state its newest snapshot had, carried forward
// along its velocity to that tick (at most CL_PROXY_MAX_AHEAD ticks). Within the tick it is
// a full body (same shape and mass as on the server), so the push both ways is what the
// server computes for avatars in those places. Only avatars within CL_PROXY_RADIUS of the
// own one at the snapshot are placed; the others would cost steps and touch nothing.
//
// The bodies live in the local game's world, so they are in the per-tick game images too;
// they carry a mark in their user data, and after every rewind cl_proxy_sync destroys the
// marked bodies the table no longer holds and re-creates the ones the image predates.
#pragma once

#include <arbiter/game.h>
#include <arbiter/protocol.h>

#include "cl_snapshot.h"

#define CL_PROXY_MAX 32         ///< other avatars placed at once (the nearest are kept)
#define CL_PROXY_RADIUS 12.0f   ///< m, how far from the own avatar others are placed
#define CL_PROXY_MAX_AHEAD 15u  ///< ticks an avatar is carried past its snapshot at most

typedef struct cl_proxy {
  uint32_t entity;   ///< the other avatar's entity id
  arb_body_id body;  ///< its body in the local world (checked after every rewind)
  arb_proto_shape shape;
  uint32_t tick;  ///< the snapshot tick of the state below
  arb_vec2 position, velocity;
  float angle, angular_velocity;
} cl_proxy;

typedef struct cl_proxies {
  cl_proxy items[CL_PROXY_MAX];
  int count;
} cl_proxies;

/// Looks up the description of an entity (the snapshots keep them).
typedef const cl_body_desc* cl_proxy_desc_fn(const void* ctx, uint32_t entity);

/// Take the other avatars near `center` from the view of `tick`: the table then holds
/// exactly those (nearest first when there are more than CL_PROXY_MAX).
void cl_proxy_take(cl_proxies* px, uint32_t tick, const cl_body_set* view, uint32_t own_entity,
                   arb_vec2 center, cl_proxy_desc_fn* desc_of, const void* ctx);
/// Make the world's proxy bodies match the table (after a restore or a take). `like` is
/// the own avatar's body: its material and mass serve an avatar of the same shape.
int cl_proxy_sync(cl_proxies* px, arb_world* world, arb_body_id like);
/// Put every proxy at its state carried to `tick`, before that tick is stepped.
void cl_proxy_place(const cl_proxies* px, arb_world* world, uint32_t tick, float dt);
