// The state image of a moving match (server/src/sv_migrate_image.h): round trip, and every
// input the receiver must refuse (cut at every length, any flipped bit, a count or a
// length past the limits, a field out of range) is refused with a reason.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/test_main.h"
#include "sv_migrate_image.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

static const uint8_t game_bytes[40] = {'A', 'R', 'B', 'G', 1, 2, 3, 4, 5};

static sv_mig_player players[2] = {
    {3, 40, 1, true, 77, "ada", "rj1.AAAAAAAAAAAAAAAAAAAAAA"},
    {5, 41, 2, false, 0, "grace", "rj1.BBBBBBBBBBBBBBBBBBBBBB"},
};

static sv_mig_image sample(void) {
  sv_mig_image m;
  memset(&m, 0, sizeof m);
  m.sim_version = 0x1234;
  m.scene_hash = 0x5678;
  m.seed = 9;
  m.tick = 1000;
  m.game_hash = 0xabcdef;
  m.tick_rate = 60;
  m.next_client_id = 6;
  m.match_state = 2;
  m.match_age_ns = 5000000000u;
  m.max_duration_ns = 60000000000u;
  snprintf(m.record_path, sizeof m.record_path, "/rec/a.arbrec");
  m.players = players;
  m.player_count = 2;
  m.game = game_bytes;
  m.game_len = sizeof game_bytes;
  return m;
}

static size_t encode(const sv_mig_image* m, uint8_t* buf, size_t cap) {
  size_t n = sv_mig_image_encode(m, buf, cap);
  assert_true(n > 0 && n == sv_mig_image_size(m));
  return n;
}

// Re-seal the checksum after a deliberate change, so the change itself is what is judged.
static void reseal(uint8_t* buf, size_t n) {
  uint64_t sum = XXH3_64bits(buf, n - 8);
  for (int i = 0; i < 8; ++i) buf[n - 8 + (size_t)i] = (uint8_t)(sum >> (8 * i));
}

static void round_trip(void** state) {
  (void)state;
  sv_mig_image m = sample(), d;
  uint8_t buf[1024];
  size_t n = encode(&m, buf, sizeof buf);
  char err[192] = "";
  assert_int_equal(sv_mig_image_decode(buf, n, &d, err, sizeof err), 0);
  assert_int_equal(d.tick, 1000);
  assert_int_equal(d.game_hash, 0xabcdef);
  assert_int_equal(d.match_state, 2);
  assert_int_equal(d.max_duration_ns, 60000000000u);
  assert_string_equal(d.record_path, "/rec/a.arbrec");
  assert_int_equal(d.player_count, 2);
  assert_string_equal(d.players[1].name, "grace");
  assert_string_equal(d.players[0].rejoin_token, players[0].rejoin_token);
  assert_true(d.players[0].has_token && d.players[0].token_client_id == 77);
  assert_memory_equal(d.game, game_bytes, sizeof game_bytes);
  sv_mig_image_free(&d);
  assert_int_equal(sv_mig_image_encode(&m, buf, n - 1), 0);  // no room: nothing written
}

static void every_cut_and_flip_is_refused(void** state) {
  (void)state;
  sv_mig_image m = sample(), d;
  uint8_t buf[1024], copy[1024];
  size_t n = encode(&m, buf, sizeof buf);
  char err[192];
  for (size_t len = 0; len < n; ++len) {
    err[0] = '\0';
    assert_int_not_equal(sv_mig_image_decode(buf, len, &d, err, sizeof err), 0);
    assert_true(err[0] != '\0' && d.players == NULL);
  }
  for (size_t bit = 0; bit < n * 8; ++bit) {
    memcpy(copy, buf, n);
    copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    err[0] = '\0';
    assert_int_not_equal(sv_mig_image_decode(copy, n, &d, err, sizeof err), 0);
    assert_true(err[0] != '\0');
  }
}

static int decode_changed(sv_mig_image* m, char* err, size_t cap) {
  uint8_t buf[1024];
  size_t n = encode(m, buf, sizeof buf);
  sv_mig_image d;
  int rc = sv_mig_image_decode(buf, n, &d, err, cap);
  sv_mig_image_free(&d);
  return rc;
}

static void fields_out_of_range_are_refused(void** state) {
  (void)state;
  char err[192];
  sv_mig_image m = sample();
  m.match_state = 4;
  assert_int_equal(decode_changed(&m, err, sizeof err), ARB_E_CORRUPT);
  assert_non_null(strstr(err, "match state"));
  m = sample();
  m.next_client_id = 5;  // a player's id must be below it
  assert_int_equal(decode_changed(&m, err, sizeof err), ARB_E_CORRUPT);
  m = sample();
  players[1].client_id = 3;  // twice
  assert_int_equal(decode_changed(&m, err, sizeof err), ARB_E_CORRUPT);
  assert_non_null(strstr(err, "twice"));
  players[1].client_id = 5;
  m.tick_rate = 0;
  assert_int_equal(decode_changed(&m, err, sizeof err), ARB_E_CORRUPT);
  m = sample();
  m.game_len = 0;
  assert_int_equal(decode_changed(&m, err, sizeof err), ARB_E_CORRUPT);
  // Counts and lengths past the limits: the encoder refuses, and so does the decoder
  // when someone else wrote them.
  m = sample();
  m.player_count = SV_MIG_MAX_PLAYERS + 1;
  assert_int_equal(sv_mig_image_size(&m), 0);
  uint8_t buf[1024];
  m = sample();
  size_t n = encode(&m, buf, sizeof buf);
  size_t count_at = 8 + 4 + 5 * 8 + 2 + 4 + 1 + 5 * 8 + 2 + strlen(m.record_path);
  buf[count_at + 3] = 0x7f;  // 2^30 players
  reseal(buf, n);
  sv_mig_image d;
  assert_int_equal(sv_mig_image_decode(buf, n, &d, err, sizeof err), ARB_E_TOO_BIG);
  buf[count_at + 3] = 0;
  buf[count_at] = 200;  // more than the bytes left can hold
  reseal(buf, n);
  assert_int_equal(sv_mig_image_decode(buf, n, &d, err, sizeof err), ARB_E_TRUNCATED);
  assert_int_equal(sv_mig_image_decode(buf, SV_MIG_MAX_IMAGE + 1, &d, err, sizeof err),
                   ARB_E_TOO_BIG);
  buf[8] = 2;  // another format version
  assert_int_equal(sv_mig_image_decode(buf, n, &d, err, sizeof err), ARB_E_VERSION);
}

ARB_TEST_MAIN(cmocka_unit_test(round_trip), cmocka_unit_test(every_cut_and_flip_is_refused),
              cmocka_unit_test(fields_out_of_range_are_refused))
