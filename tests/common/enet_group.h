// tests — cmocka group fixtures for test programs that open ENet hosts of their own:
// ENet is initialised once before the first test and deinitialised after the last.
#pragma once

#include <enet/enet.h>

static inline int enet_group_setup(void** state) {
  (void)state;
  return enet_initialize();
}

static inline int enet_group_teardown(void** state) {
  (void)state;
  enet_deinitialize();
  return 0;
}
