// The operator's address bans (server/src/sv_ban.c): a ban holds until its time, a lift
// ends it at once, a full table gives up the ban that ends first, and the quick answer
// for a table with no ban in force (checked for every datagram) never hides a live ban.
#include <stdint.h>

#include "../common/test_main.h"
#include "sv_ban.h"

static void ban_until_its_time(void** state) {
  (void)state;
  static sv_bans b;
  memset(&b, 0, sizeof b);
  assert_false(sv_ban_active(&b, 7, 0));
  assert_false(sv_ban_set(&b, 7, 1000, 100));  // banned from 100 to 1100
  assert_true(sv_ban_active(&b, 7, 100));
  assert_true(sv_ban_active(&b, 7, 1099));
  assert_false(sv_ban_active(&b, 7, 1100));
  assert_false(sv_ban_active(&b, 8, 500));  // another address
  assert_int_equal(sv_ban_count(&b, 500), 1);
  assert_int_equal(sv_ban_count(&b, 1100), 0);
}

static void lift_and_ban_again(void** state) {
  (void)state;
  static sv_bans b;
  memset(&b, 0, sizeof b);
  sv_ban_set(&b, 7, 10000, 0);
  sv_ban_set(&b, 9, 50, 0);
  assert_true(sv_ban_set(&b, 7, 0, 10));  // lifted: it was banned
  assert_false(sv_ban_active(&b, 7, 10));
  assert_true(sv_ban_active(&b, 9, 10));
  assert_false(sv_ban_active(&b, 9, 60));    // ended, while the lifted ban's time is ahead
  assert_false(sv_ban_set(&b, 7, 0, 70));    // lifting an address not banned
  assert_false(sv_ban_set(&b, 9, 100, 80));  // a new ban after the old one ended
  assert_true(sv_ban_active(&b, 9, 179));
  assert_false(sv_ban_active(&b, 9, 180));
  assert_true(sv_ban_set(&b, 9, 500, 100));  // extended
  assert_true(sv_ban_active(&b, 9, 599));
}

static void full_table_gives_up_the_soonest(void** state) {
  (void)state;
  static sv_bans b;
  memset(&b, 0, sizeof b);
  for (uint32_t i = 0; i < SV_BAN_SLOTS; ++i) sv_ban_set(&b, 1000 + i, 100 + i, 0);
  assert_int_equal(sv_ban_count(&b, 0), SV_BAN_SLOTS);
  sv_ban_set(&b, 5, 10, 0);  // ends before any other, and still replaces the soonest
  assert_false(sv_ban_active(&b, 1000, 0));
  assert_true(sv_ban_active(&b, 1001, 0));
  assert_true(sv_ban_active(&b, 5, 9));
  assert_false(sv_ban_active(&b, 5, 10));
  assert_true(sv_ban_active(&b, 1000 + SV_BAN_SLOTS - 1, 100 + SV_BAN_SLOTS - 2));
  assert_int_equal(sv_ban_count(&b, 100 + SV_BAN_SLOTS - 1), 0);
}

ARB_TEST_MAIN(cmocka_unit_test(ban_until_its_time), cmocka_unit_test(lift_and_ban_again),
              cmocka_unit_test(full_table_gives_up_the_soonest))
