// libFuzzer target: arbiter-replay's whole verify path (read and index the log, load the
// recorded scene, re-simulate, compare checkpoints, localise a divergence) on arbitrary
// bytes, with --allow-truncated so damaged tails are re-simulated too. Any exit status
// is fine; a crash, a sanitizer report or a hang is not. Seeds: tests/fuzz/corpus/replay_verify.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rp_cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static FILE* sink;
  if (!sink) sink = fopen("/dev/null", "w");
  if (!sink) return 0;
  uint8_t* copy = malloc(size ? size : 1);  // rp_run owns its buffer
  if (!copy) return 0;
  if (size) memcpy(copy, data, size);
  rp_opts o = rp_default_opts();
  o.cmd = RP_CMD_VERIFY;
  o.allow_truncated = true;
  o.name = "fuzz";
  int status = rp_run(&o, copy, size, sink, sink);
  if (status < 0 || status > 2) abort();
  return 0;
}
