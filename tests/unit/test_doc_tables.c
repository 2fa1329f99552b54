// The code's tables and the documents that describe them must agree, both ways:
// - messages.def and the message table of PROTOCOL.md §2 (code, name, direction, channel),
// - shapes.def and the shape table of PROTOCOL.md §4.2 (code, name),
// - sv_metrics.def and the metric table of docs/SERVER.md (every name).
// argv: PROTOCOL.md, SERVER.md.
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arbiter/protocol.h>

static const char* protocol_md;
static const char* server_md;

#define MAX_ROWS 64
#define MAX_CELL 96

// A markdown table row split into trimmed cells (without the outer bars).
typedef struct md_row {
  char cells[6][MAX_CELL];
  int count;
} md_row;

static char* read_text(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* s = malloc((size_t)n + 1);
  assert_non_null(s);
  assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
  s[n] = '\0';
  fclose(f);
  return s;
}

static void trim_into(char* dst, const char* from, const char* to) {
  while (from < to && *from == ' ') from++;
  while (to > from && to[-1] == ' ') to--;
  size_t n = (size_t)(to - from) < MAX_CELL - 1 ? (size_t)(to - from) : MAX_CELL - 1;
  memcpy(dst, from, n);
  dst[n] = '\0';
}

// The rows of the first table after the line that starts with `heading`.
static int table_after(const char* text, const char* heading, md_row* rows, int cap) {
  const char* at = strstr(text, heading);
  if (!at) fail_msg("heading '%s' not found", heading);
  const char* line = strchr(at, '\n');
  while (line && line[1] != '|') line = strchr(line + 1, '\n');  // skip prose to the table
  int n = 0;
  while (line && line[1] == '|' && n < cap) {
    const char* p = line + 2;
    const char* end = strchr(p, '\n');
    md_row* r = &rows[n];
    r->count = 0;
    for (const char* bar; (bar = memchr(p, '|', (size_t)(end - p))) != NULL && r->count < 6; p = bar + 1)
      trim_into(r->cells[r->count++], p, bar);
    if (r->cells[0][0] != '-' && r->cells[0][0] != ':' && strcmp(r->cells[0], "code") != 0 &&
        strcmp(r->cells[0], "name") != 0 && strcmp(r->cells[0], "kind") != 0)
      n++;
    line = end;
  }
  return n;
}

static void test_messages_match_protocol_md(void** state) {
  (void)state;
  char* text = read_text(protocol_md);
  md_row rows[MAX_ROWS];
  int n = table_after(text, "## 2. Encoding", rows, MAX_ROWS);
  int listed = 0;
#define ARB_PROTO_MSG(NAME, name, code, channel, direction)                                               \
  {                                                                                                       \
    const char* dir = ARB_PROTO_##direction == ARB_PROTO_TO_SERVER ? "client → server" : "server → client"; \
    char chan[8];                                                                                         \
    snprintf(chan, sizeof chan, "%d", ARB_PROTO_CHANNEL_##channel);                                       \
    int found = 0;                                                                                        \
    for (int i = 0; i < n; i++)                                                                           \
      if (atoi(rows[i].cells[0]) == code) {                                                               \
        found = 1;                                                                                        \
        if (strcmp(rows[i].cells[1], #name) || strcmp(rows[i].cells[2], dir) || strcmp(rows[i].cells[3], chan)) \
          fail_msg("PROTOCOL.md §2, code %d: '%s | %s | %s', the table says '%s | %s | %s'", code,       \
                   rows[i].cells[1], rows[i].cells[2], rows[i].cells[3], #name, dir, chan);             \
      }                                                                                                   \
    if (!found) fail_msg("message %s (%d) is missing from PROTOCOL.md §2", #name, code);                  \
    char heading[64];                                                                                     \
    snprintf(heading, sizeof heading, "%s (%d)", #name, code);                                            \
    if (!strstr(text, heading)) fail_msg("PROTOCOL.md §4 has no section naming '%s'", heading);           \
    listed++;                                                                                             \
  }
#include <arbiter/messages.def>
#undef ARB_PROTO_MSG
  if (n != listed) fail_msg("PROTOCOL.md §2 lists %d messages, messages.def %d", n, listed);
  free(text);
}

static void test_shapes_match_protocol_md(void** state) {
  (void)state;
  char* text = read_text(protocol_md);
  md_row rows[MAX_ROWS];
  int n = table_after(text, "**Shape**", rows, MAX_ROWS);
  int listed = 0;
#define ARB_PROTO_SHAPE(NAME, name, code, type, min_points, max_points, has_radius)              \
  {                                                                                              \
    char want[32];                                                                               \
    snprintf(want, sizeof want, "%d %s", code, #name);                                           \
    int found = 0;                                                                               \
    for (int i = 0; i < n; i++) found |= strcmp(rows[i].cells[0], want) == 0;                    \
    if (!found) fail_msg("shape kind '%s' is missing from the shape table of PROTOCOL.md", want); \
    listed++;                                                                                    \
  }
#include <arbiter/shapes.def>
#undef ARB_PROTO_SHAPE
  if (n != listed) fail_msg("PROTOCOL.md lists %d shape kinds, shapes.def %d", n, listed);
  free(text);
}

static const char* const metric_names[] = {
#define SV_METRIC(KIND, field, name, extra, help) name,
#include "sv_metrics.def"
#undef SV_METRIC
};
#define METRIC_COUNT (int)(sizeof metric_names / sizeof metric_names[0])

static void test_metrics_match_server_md(void** state) {
  (void)state;
  char* text = read_text(server_md);
  md_row rows[MAX_ROWS];
  int n = table_after(text, "### Metrics", rows, MAX_ROWS);
  // Every documented name (`name` or `name{label}`) is a metric of the table...
  for (int i = 0; i < n; i++) {
    char name[MAX_CELL];
    if (sscanf(rows[i].cells[0], "`%95[a-z_]", name) != 1) fail_msg("SERVER.md metric row '%s'", rows[i].cells[0]);
    int known = 0;
    for (int k = 0; k < METRIC_COUNT; k++) known |= strcmp(metric_names[k], name) == 0;
    if (!known) fail_msg("SERVER.md documents '%s', which sv_metrics.def does not have", name);
  }
  // ...and every metric of the table has its own row.
  for (int k = 0; k < METRIC_COUNT; k++) {
    int found = 0;
    for (int i = 0; i < n; i++) {
      char name[MAX_CELL];
      found |= sscanf(rows[i].cells[0], "`%95[a-z_]", name) == 1 && strcmp(name, metric_names[k]) == 0;
    }
    if (!found) fail_msg("metric '%s' is missing from the table in docs/SERVER.md", metric_names[k]);
  }
  assert_int_equal(n, METRIC_COUNT);
  free(text);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s PROTOCOL.md SERVER.md\n", argv[0]);
    return 2;
  }
  protocol_md = argv[1];
  server_md = argv[2];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_messages_match_protocol_md),
      cmocka_unit_test(test_shapes_match_protocol_md),
      cmocka_unit_test(test_metrics_match_server_md),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
