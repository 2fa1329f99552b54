// SIGTERM mid-session: exit 0, clients are told why, the replay log is complete (end
// record) and its last tick record is the last tick the server ran. kill -9 mid-session:
// the log reads back, up to its last whole record, to within one second of the kill.
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arbiter/replay_log.h>

#include "test_server_common.h"

typedef struct log_summary {
  int open_rc;
  arb_replay_stop stop;
  uint64_t ticks, first_tick, last_tick, last_hash;
  bool contiguous;
  bool has_end;
  arb_replay_end end;
  char why[256];
} log_summary;

static void read_log(const char* path, log_summary* out) {
  memset(out, 0, sizeof *out);
  char* data;
  long len = tc_read_file(path, &data);
  assert_true(len > 0);
  arb_replay_reader r;
  arb_proto_error err;
  out->open_rc = arb_replay_reader_open(&r, (const uint8_t*)data, (size_t)len, &err);
  if (out->open_rc != 0) {
    print_error("open: %s\n", err.reason);
    free(data);
    return;
  }
  out->contiguous = true;
  static arb_replay_tick t;
  arb_replay_record rec;
  while (arb_replay_reader_next(&r, &rec) == 1) {
    if (rec.kind == ARB_REPLAY_TICK) {
      assert_int_equal(arb_replay_decode_tick(&rec, &t, &err), 0);
      if (out->ticks == 0)
        out->first_tick = t.tick;
      else if (t.tick != out->last_tick + 1)
        out->contiguous = false;
      out->last_tick = t.tick;
      out->last_hash = t.world_hash;
      out->ticks++;
    } else if (rec.kind == ARB_REPLAY_END) {
      assert_int_equal(arb_replay_decode_end(&rec, &out->end, &err), 0);
      out->has_end = true;
    }
  }
  out->stop = r.stop;
  arb_replay_reader_describe(&r, out->why, sizeof out->why);
  free(data);
}

// A server recording a session to a log, with two clients connected.
typedef struct recording {
  char path[128];  ///< the replay log, /tmp/arbiter-test-<tag>-<pid>.arbrec
  tc_server s;
  tc_client* cs[2];
} recording;

static void start_recording(recording* r, const char* tag) {
  snprintf(r->path, sizeof r->path, "/tmp/arbiter-test-%s-%d.arbrec", tag, (int)getpid());
  const char* extra[] = {"--record", r->path, NULL};
  start_server(&r->s, extra);
  r->cs[0] = tc_create();
  r->cs[1] = tc_create();
  connect_all(r->cs, 2, (uint16_t)r->s.port, tag);
}

static void test_server_shutdown_sigterm_closes_the_log(void** state) {
  (void)state;
  recording r;
  start_recording(&r, "term");
  arb_controls ctl[2];
  memset(ctl, 0, sizeof ctl);
  ctl[0].move_x = 1.0f;
  ctl[1].buttons = ARB_BUTTON_JUMP;
  drive(r.cs, 2, ctl, 1500);

  kill(r.s.pid, SIGTERM);
  // Clients hear why before the connection closes.
  tc_pump(r.cs, 2, 500);
  for (int i = 0; i < 2; ++i) {
    assert_int_equal(r.cs[i]->disconnect_event.kind, ARB_PROTO_EVENT_DISCONNECT);
    assert_int_equal(r.cs[i]->disconnect_event.code, ARB_PROTO_REASON_SHUTDOWN);
  }
  assert_int_equal(tc_server_stop(&r.s, 0, 3000), 0);  // signal 0: already sent, just wait

  char value[64];
  assert_true(tc_log_find(r.s.log_path, "server_stopped", "tick", value, sizeof value));
  uint64_t stopped_tick = strtoull(value, NULL, 10);
  assert_true(tc_log_find(r.s.log_path, "server_stopped", "hash", value, sizeof value));
  uint64_t stopped_hash = strtoull(value, NULL, 16);

  log_summary sum;
  read_log(r.path, &sum);
  print_message("log: %llu ticks %llu..%llu, %s\n", (unsigned long long)sum.ticks,
                (unsigned long long)sum.first_tick, (unsigned long long)sum.last_tick, sum.why);
  assert_int_equal(sum.open_rc, 0);
  assert_int_equal(sum.stop, ARB_REPLAY_STOP_CLEAN);
  assert_true(sum.has_end);
  assert_true(sum.contiguous);
  assert_int_equal(sum.first_tick, 1);
  assert_int_equal(sum.last_tick, stopped_tick);
  assert_int_equal(sum.end.last_tick, stopped_tick);
  assert_int_equal(sum.end.tick_count, sum.ticks);
  assert_true(sum.last_hash == stopped_hash);
  assert_true(sum.ticks > 60);

  close_all(r.cs, 2);
  unlink(r.path);
  unlink(r.s.log_path);
}

static void test_server_shutdown_kill9_log_readable(void** state) {
  (void)state;
  recording r;
  start_recording(&r, "kill");
  drive(r.cs, 2, NULL, 2300);

  // The tick just before the kill, as the server itself reports it.
  char* text = NULL;
  assert_int_equal(tc_http_get(r.s.http_port, "/metrics", &text), 200);
  double tick_before = tc_metric(text, "arbiter_tick");
  free(text);
  assert_true(tick_before > 60);
  assert_int_equal(tc_server_stop(&r.s, SIGKILL, 3000), 128 + SIGKILL);

  log_summary sum;
  read_log(r.path, &sum);
  print_message("killed at tick >= %.0f; log reads %llu ticks up to %llu (%s)\n", tick_before,
                (unsigned long long)sum.ticks, (unsigned long long)sum.last_tick, sum.why);
  assert_int_equal(sum.open_rc, 0);
  // No end record, and nothing torn: the file ends at (or inside) a record boundary.
  assert_false(sum.has_end);
  assert_true(sum.stop == ARB_REPLAY_STOP_EOF || sum.stop == ARB_REPLAY_STOP_TRUNCATED);
  assert_true(sum.contiguous);
  // Within one second (60 ticks) of the kill.
  assert_true((double)sum.last_tick + 60.0 >= tick_before);

  close_all(r.cs, 2);
  unlink(r.path);
  unlink(r.s.log_path);
}

SERVER_TEST_MAIN(cmocka_unit_test(test_server_shutdown_sigterm_closes_the_log),
                 cmocka_unit_test(test_server_shutdown_kill9_log_readable))
