// Fuzz target: any bytes as a state image received from another server (the
// --migrate-port, sv_mig_image_decode). Decoding must end in an image or a clear error,
// within its limits; a decoded image must encode back to the very same bytes. Built as
// fuzz-migrate-image in the fuzz preset; otherwise the same function runs over the seed
// corpus (a real transfer's image, tests/fuzz/corpus/migrate-image).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sv_migrate_image.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sv_mig_image m;
  char err[192];
  int rc = sv_mig_image_decode(data, size, &m, err, sizeof err);
  if (rc != 0) {
    if (err[0] == '\0' || m.players != NULL) abort();
    return 0;
  }
  if (m.player_count < 0 || m.player_count > SV_MIG_MAX_PLAYERS || m.game_len == 0 ||
      m.game < data || m.game + m.game_len > data + size)
    abort();
  uint8_t* again = malloc(size);
  if (again == NULL) abort();
  if (sv_mig_image_encode(&m, again, size) != size || memcmp(again, data, size) != 0) abort();
  free(again);
  sv_mig_image_free(&m);
  return 0;
}
