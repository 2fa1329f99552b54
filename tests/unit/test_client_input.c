// The client's input stream (client/src/cl_input.c): one command per server tick, each
// packet carrying every command made since the last one (so a client that sends every
// few ticks, arb_client_config.input_rate, skips none) plus the newest `redundancy`;
// a stall makes at most a packet's worth of commands.
#include "../common/test_main.h"
#include "cl_input.h"

static void expect_seqs(const arb_proto_input* msg, uint32_t newest, int count) {
  assert_int_equal(msg->count, count);
  for (int i = 0; i < count; i++) assert_int_equal(msg->cmds[i].seq, newest - (uint32_t)i);
}

static void test_client_input_one_command_per_tick(void** state) {
  (void)state;
  cl_input in;
  cl_input_init(&in, 2);
  arb_proto_input msg;
  assert_int_equal(cl_input_make(&in, 100), 1);  // the first: only its own tick
  assert_int_equal(cl_input_make(&in, 100), 0);  // nothing new in the same tick
  cl_input_packet(&in, 7, &msg);
  assert_int_equal(msg.packet_seq, 1);
  assert_int_equal(msg.ack_tick, 7);
  expect_seqs(&msg, 100, 1);
  assert_int_equal(cl_input_make(&in, 101), 1);
  cl_input_packet(&in, 7, &msg);
  assert_int_equal(msg.packet_seq, 2);
  expect_seqs(&msg, 101, 2);  // the newest two: redundancy
}

static void test_client_input_batched_packet_carries_every_tick(void** state) {
  (void)state;
  cl_input in;
  cl_input_init(&in, 1);  // redundancy 1: the batch alone decides the count
  arb_proto_input msg;
  assert_int_equal(cl_input_make(&in, 10), 1);
  cl_input_packet(&in, 0, &msg);
  // Three ticks pass with a packet only at the third: it holds all three.
  arb_controls c = {0};
  for (uint32_t t = 11; t <= 13; t++) {
    c.move_x = (float)(t - 10) * 0.25f;
    assert_int_equal(cl_input_set(&in, &c), 0);
    assert_int_equal(cl_input_make(&in, t), 1);
  }
  assert_int_equal(in.unsent, 3);
  cl_input_packet(&in, 0, &msg);
  expect_seqs(&msg, 13, 3);
  // Each command has the controls of its own tick.
  for (int i = 0; i < 3; i++) {
    c.move_x = (float)(3 - i) * 0.25f;
    assert_int_equal(msg.cmds[i].controls.move_x, arb_proto_quantize_controls(&c).move_x);
  }
  assert_int_equal(in.unsent, 0);
  assert_int_equal(cl_input_make(&in, 14), 1);
  cl_input_packet(&in, 0, &msg);
  expect_seqs(&msg, 14, 1);
}

static void test_client_input_stall_makes_one_packet_worth(void** state) {
  (void)state;
  cl_input in;
  cl_input_init(&in, 3);
  arb_proto_input msg;
  assert_int_equal(cl_input_make(&in, 50), 1);
  cl_input_packet(&in, 0, &msg);
  // 100 ticks later: the commands skip ahead to the newest ARB_PROTO_MAX_INPUTS.
  assert_int_equal(cl_input_make(&in, 150), ARB_PROTO_MAX_INPUTS);
  cl_input_packet(&in, 0, &msg);
  expect_seqs(&msg, 150, ARB_PROTO_MAX_INPUTS);
  // Two batches made without a packet between them: still one packet's worth, the newest.
  assert_int_equal(cl_input_make(&in, 155), 5);
  assert_int_equal(cl_input_make(&in, 160), 5);
  assert_int_equal(in.unsent, ARB_PROTO_MAX_INPUTS);
  cl_input_packet(&in, 0, &msg);
  expect_seqs(&msg, 160, ARB_PROTO_MAX_INPUTS);
  // A new connection starts over.
  cl_input_restart(&in);
  assert_int_equal(cl_input_make(&in, 3), 1);
  cl_input_packet(&in, 0, &msg);
  assert_int_equal(msg.packet_seq, 1);
  expect_seqs(&msg, 3, 1);
}

ARB_TEST_MAIN(cmocka_unit_test(test_client_input_one_command_per_tick),
              cmocka_unit_test(test_client_input_batched_packet_carries_every_tick),
              cmocka_unit_test(test_client_input_stall_makes_one_packet_worth))
