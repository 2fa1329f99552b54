// DETERMINISM-CRITICAL: results must be bit-identical on server and client.
//
// Ray casts against single shapes in their local frame. Only hits with
// 0 <= fraction <= max_fraction count: a shape behind the origin is a miss (unlike the
// tutorial snippet that returned t < 0 as a hit), and the slab test for boxes takes the
// largest entry and the smallest exit (not min for both).
#include <arbiter/collision.h>

#include <float.h>

static arb_cast_output arb__miss(void) {
  arb_cast_output out = {{0.0f, 0.0f}, {0.0f, 0.0f}, 0.0f, false};
  return out;
}

static arb_cast_output arb__hit(const arb_ray_input* in, float fraction, arb_vec2 normal) {
  arb_cast_output out;
  out.fraction = fraction;
  out.point = arb_mul_add(in->origin, fraction, in->translation);
  out.normal = normal;
  out.hit = true;
  return out;
}

static bool arb__input_ok(const arb_ray_input* in) {
  return arb_vec2_is_valid(in->origin) && arb_vec2_is_valid(in->translation) &&
         isfinite(in->max_fraction) && in->max_fraction >= 0.0f;
}

// A rounded outline (a capsule: 2 points, a rounded polygon: its vertices, grown by
// radius) is bounded by one circle per point and by each edge moved out by the radius.
// From outside, the ray enters through the nearest of those pieces: every hit on any of
// them is a point of the shape, so the smallest fraction among them is the entry.
static arb_cast_output arb__ray_cast_rounded(const arb_ray_input* input, const arb_vec2* points,
                                             int count, float radius) {
  arb_cast_output best = arb__miss();
  arb_ray_input in = *input;
  for (int i = 0; i < count; ++i) {
    arb_vec2 a = points[i], b = points[i + 1 < count ? i + 1 : 0];
    arb_vec2 out = arb_scale(radius, arb_normalize(arb_right_perp(arb_sub(b, a))));
    arb_circle corner = {a, radius};
    arb_segment side = {arb_add(a, out), arb_add(b, out)};
    for (int k = 0; k < 2; ++k) {
      arb_cast_output o =
          k == 0 ? arb_ray_cast_circle(&in, &corner) : arb_ray_cast_segment(&in, &side);
      if (!o.hit || (best.hit && o.fraction >= best.fraction)) continue;
      best = o;
      in.max_fraction = o.fraction;
    }
  }
  return best;
}

arb_cast_output arb_ray_cast_capsule(const arb_ray_input* input, const arb_capsule* shape) {
  if (!arb__input_ok(input)) return arb__miss();
  if (arb_point_in_capsule(input->origin, shape)) return arb__hit(input, 0.0f, arb_vec2_zero);
  arb_vec2 points[2] = {shape->center1, shape->center2};
  return arb__ray_cast_rounded(input, points, 2, shape->radius);
}

arb_cast_output arb_ray_cast_circle(const arb_ray_input* input, const arb_circle* shape) {
  if (!arb__input_ok(input)) return arb__miss();
  arb_vec2 m = arb_sub(input->origin, shape->center);  // centre to origin
  float rr = shape->radius * shape->radius;
  if (arb_dot(m, m) <= rr) return arb__hit(input, 0.0f, arb_vec2_zero);
  float length;
  arb_vec2 d = arb_get_length_and_normalize(&length, input->translation);
  if (length == 0.0f) return arb__miss();
  // Distance along the ray to the point closest to the centre, then back off by the
  // half chord. Working with the unit direction avoids the cancellation of the textbook
  // quadratic for long rays.
  float along = -arb_dot(m, d);
  if (along < 0.0f) return arb__miss();  // outside and moving away: behind the ray
  arb_vec2 closest = arb_mul_add(m, along, d);
  float h2 = rr - arb_dot(closest, closest);
  if (h2 < 0.0f) return arb__miss();
  float t = along - sqrtf(h2);
  float fraction = t / length;
  if (fraction < 0.0f || fraction > input->max_fraction) return arb__miss();
  arb_vec2 hit_rel = arb_mul_add(m, t, d);
  return arb__hit(input, fraction, arb_normalize(hit_rel));
}

arb_cast_output arb_ray_cast_polygon(const arb_ray_input* input, const arb_polygon* shape) {
  if (!arb__input_ok(input) || shape->count < 3) return arb__miss();
  if (shape->radius > 0.0f) {
    if (arb_point_in_polygon(input->origin, shape)) return arb__hit(input, 0.0f, arb_vec2_zero);
    return arb__ray_cast_rounded(input, shape->vertices, shape->count, shape->radius);
  }
  // Clip the ray against each face's half plane (Cyrus-Beck); the last face to move the
  // entry point forward is the one hit.
  float lower = 0.0f, upper = input->max_fraction;
  int index = -1;
  arb_vec2 o = input->origin, d = input->translation;
  for (int i = 0; i < shape->count; ++i) {
    // Inside the face's half plane where dot(n, x - v) <= 0.
    float numerator = arb_dot(shape->normals[i], arb_sub(shape->vertices[i], o));
    float denominator = arb_dot(shape->normals[i], d);
    if (denominator == 0.0f) {
      if (numerator < 0.0f) return arb__miss();  // parallel and outside this face
    } else if (denominator < 0.0f && numerator < lower * denominator) {
      lower = numerator / denominator;  // entering
      index = i;
    } else if (denominator > 0.0f && numerator < upper * denominator) {
      upper = numerator / denominator;  // leaving
    }
    if (upper < lower) return arb__miss();
  }
  if (index < 0) {
    // No face was crossed on the way in: the origin is inside (or on the boundary).
    return arb__hit(input, 0.0f, arb_vec2_zero);
  }
  return arb__hit(input, lower, shape->normals[index]);
}

arb_cast_output arb_ray_cast_segment(const arb_ray_input* input, const arb_segment* shape) {
  if (!arb__input_ok(input)) return arb__miss();
  arb_vec2 e = arb_sub(shape->b, shape->a);
  arb_vec2 d = input->translation;
  float denom = arb_cross(d, e);
  // Parallel (or degenerate) rays never hit a segment, even when collinear with it: the
  // segment has no area to enter.
  if (denom == 0.0f) return arb__miss();
  arb_vec2 ao = arb_sub(shape->a, input->origin);
  float t = arb_cross(ao, e) / denom;  // along the ray
  float s = arb_cross(ao, d) / denom;  // along the segment
  if (t < 0.0f || t > input->max_fraction || s < 0.0f || s > 1.0f) return arb__miss();
  arb_vec2 n = arb_normalize(arb_left_perp(e));
  if (arb_dot(n, d) > 0.0f) n = arb_neg(n);  // two-sided: face the ray
  return arb__hit(input, t, n);
}

arb_cast_output arb_ray_cast_aabb(const arb_ray_input* input, arb_aabb box) {
  if (!arb__input_ok(input)) return arb__miss();
  arb_vec2 o = input->origin, d = input->translation;
  if (arb_aabb_contains_point(box, o)) return arb__hit(input, 0.0f, arb_vec2_zero);
  float t_near = 0.0f, t_far = input->max_fraction;
  arb_vec2 normal = arb_vec2_zero;
  const float o_axis[2] = {o.x, o.y}, d_axis[2] = {d.x, d.y};
  const float lo[2] = {box.lower.x, box.lower.y}, hi[2] = {box.upper.x, box.upper.y};
  for (int axis = 0; axis < 2; ++axis) {
    if (d_axis[axis] == 0.0f) {
      if (o_axis[axis] < lo[axis] || o_axis[axis] > hi[axis]) return arb__miss();
      continue;
    }
    float inv = 1.0f / d_axis[axis];
    float t1 = (lo[axis] - o_axis[axis]) * inv;
    float t2 = (hi[axis] - o_axis[axis]) * inv;
    float sign = -1.0f;  // entering through the lower face: normal points to -axis
    if (t1 > t2) {
      float tmp = t1;
      t1 = t2;
      t2 = tmp;
      sign = 1.0f;
    }
    // Entry is the LATEST of the per-axis entries, exit the EARLIEST of the exits.
    if (t1 > t_near) {
      t_near = t1;
      normal = axis == 0 ? arb_v2(sign, 0.0f) : arb_v2(0.0f, sign);
    }
    if (t2 < t_far) t_far = t2;
    if (t_near > t_far) return arb__miss();
  }
  if (normal.x == 0.0f && normal.y == 0.0f) return arb__miss();  // origin outside, no entry
  return arb__hit(input, t_near, normal);
}
