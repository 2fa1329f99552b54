/* DETERMINISM-CRITICAL: results must be bit-identical on server, clients and replay tools.
 * Every formula here is written out in PROTOCOL.md, "Quantization", so that clients in
 * other languages agree. Intermediate values are float64 where the product of a float32
 * and the scale is exact (powers of two, 127, 255 and the angle factor all leave a
 * float64 product of a float32 exact or correctly rounded once). */
#include <math.h>

#include <arbiter/protocol.h>

/* Round half away from zero, for |d| < 2^52 (callers clamp first). */
static int64_t round_half_away(double d) {
  return (int64_t)(d >= 0.0 ? d + 0.5 : d - 0.5);
}

static int32_t quantize_scaled(float v, double scale) {
  if (isnan(v)) return 0;
  double d = (double)v * scale;
  if (d >= 2147483647.0) return INT32_MAX;
  if (d <= -2147483647.0) return -INT32_MAX;
  return (int32_t)round_half_away(d);
}

int32_t arb_proto_quantize_pos(float meters) {
  return quantize_scaled(meters, 128.0);
}
float arb_proto_dequantize_pos(int32_t q) {
  return (float)((double)q / 128.0);
}
int32_t arb_proto_quantize_vel(float mps) {
  return quantize_scaled(mps, 256.0);
}
float arb_proto_dequantize_vel(int32_t q) {
  return (float)((double)q / 256.0);
}

/* 32768 / pi and pi / 32768 as float64 (PROTOCOL.md gives the same literals). */
#define ANGLE_TO_STEPS 10430.378350470453
#define STEPS_TO_ANGLE 9.587379924285257e-05

uint16_t arb_proto_quantize_angle(float radians) {
  if (!isfinite(radians)) return 0;
  /* fmod is exact, so huge angles reduce without losing determinism. */
  double d = fmod((double)radians * ANGLE_TO_STEPS, 65536.0);
  int64_t r = round_half_away(d);
  return (uint16_t)((uint64_t)r & 0xFFFFu);
}

float arb_proto_dequantize_angle(uint16_t q) {
  int32_t s = q >= 32768u ? (int32_t)q - 65536 : (int32_t)q;
  return (float)((double)s * STEPS_TO_ANGLE);
}

static float clampf(float v, float lo, float hi) {
  if (isnan(v)) return 0.0f;
  return v < lo ? lo : (v > hi ? hi : v);
}

static int8_t quantize_axis(float v) {
  return (int8_t)round_half_away((double)clampf(v, -1.0f, 1.0f) * 127.0);
}
static uint8_t quantize_unit(float v) {
  return (uint8_t)round_half_away((double)clampf(v, 0.0f, 1.0f) * 255.0);
}

arb_proto_controls_q arb_proto_quantize_controls(const arb_controls* c) {
  arb_proto_controls_q q;
  q.move_x = quantize_axis(c->move_x);
  q.move_y = quantize_axis(c->move_y);
  q.aim = arb_proto_quantize_angle(c->aim);
  q.buttons = (uint16_t)(c->buttons & ARB_PROTO_MAX_BUTTONS);
  q.steer = quantize_axis(c->steer);
  q.throttle = quantize_unit(c->throttle);
  q.brake = quantize_unit(c->brake);
  return q;
}

arb_controls arb_proto_dequantize_controls(const arb_proto_controls_q* q) {
  arb_controls c;
  /* Clamp the int8 -128 (never produced by the quantizer) so the range stays [-1, 1]. */
  c.move_x = (float)((double)(q->move_x < -127 ? -127 : q->move_x) / 127.0);
  c.move_y = (float)((double)(q->move_y < -127 ? -127 : q->move_y) / 127.0);
  c.aim = arb_proto_dequantize_angle(q->aim);
  c.buttons = q->buttons;
  c.steer = (float)((double)(q->steer < -127 ? -127 : q->steer) / 127.0);
  c.throttle = (float)((double)q->throttle / 255.0);
  c.brake = (float)((double)q->brake / 255.0);
  return c;
}

arb_controls arb_proto_snap_controls(const arb_controls* c) {
  arb_proto_controls_q q = arb_proto_quantize_controls(c);
  return arb_proto_dequantize_controls(&q);
}
