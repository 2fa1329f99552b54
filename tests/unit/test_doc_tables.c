// The code's tables and the documents that describe them must agree, both ways:
// - messages.def and the message table of PROTOCOL.md §2 (code, name, direction, channel),
// - shapes.def and the shape table of PROTOCOL.md §4.2 (code, name),
// - sv_metrics.def and the metric table of docs/SERVER.md (every name).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <arbiter/protocol.h>

#include "../common/read_file.h"
#include "../common/test_main.h"

// The documents, by path from the build (test_doc_tables.cmake).
static const char* const protocol_md = ARB_PROTOCOL_MD;
static const char* const server_md = ARB_SERVER_MD;
static char* protocol_text;
static char* server_text;

#define MAX_ROWS 128  // enough for the longest table, the metrics of docs/SERVER.md
#define MAX_CELL 96

// A markdown table row split into trimmed cells (without the outer bars).
typedef struct md_row {
  char cells[6][MAX_CELL];
  int count;
} md_row;

static char* read_text(const char* path) {
  char* s = arb_test_read_file(path, NULL);
  if (!s) fail_msg("cannot read %s", path);
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
    for (const char* bar; (bar = memchr(p, '|', (size_t)(end - p))) != NULL && r->count < 6;
         p = bar + 1)
      trim_into(r->cells[r->count++], p, bar);
    if (r->cells[0][0] != '-' && r->cells[0][0] != ':' && strcmp(r->cells[0], "code") != 0 &&
        strcmp(r->cells[0], "name") != 0 && strcmp(r->cells[0], "kind") != 0)
      n++;
    line = end;
  }
  return n;
}

// The tables, as rows.
static const struct {
  const char* name;
  int code, channel, direction;
} messages[] = {
#define ARB_PROTO_MSG(NAME, name, code, channel, direction) \
  {#name, code, ARB_PROTO_CHANNEL_##channel, ARB_PROTO_##direction},
#include <arbiter/messages.def>
#undef ARB_PROTO_MSG
};
static const struct {
  const char* name;
  int code;
} shape_kinds[] = {
#define ARB_PROTO_SHAPE(NAME, name, code, type, min_points, max_points, has_radius) {#name, code},
#include <arbiter/shapes.def>
#undef ARB_PROTO_SHAPE
};
static const char* const metric_names[] = {
#define SV_METRIC(KIND, field, name, extra, help) name,
#include "sv_metrics.def"
#undef SV_METRIC
};
#define COUNT(a) (int)(sizeof a / sizeof a[0])

// The document's row whose first cell is `first`, or NULL.
static const md_row* row_named(const md_row* rows, int n, const char* first) {
  for (int i = 0; i < n; i++)
    if (strcmp(rows[i].cells[0], first) == 0) return &rows[i];
  return NULL;
}

static void test_messages_match_protocol_md(void** state) {
  (void)state;
  md_row rows[MAX_ROWS];
  int n = table_after(protocol_text, "## 2. Encoding", rows, MAX_ROWS);
  for (int k = 0; k < COUNT(messages); k++) {
    char code[16], chan[16], heading[64];
    snprintf(code, sizeof code, "%d", messages[k].code);
    snprintf(chan, sizeof chan, "%d", messages[k].channel);
    const char* dir =
        messages[k].direction == ARB_PROTO_TO_SERVER ? "client → server" : "server → client";
    const md_row* r = row_named(rows, n, code);
    if (!r) fail_msg("message %s (%s) is missing from PROTOCOL.md §2", messages[k].name, code);
    if (strcmp(r->cells[1], messages[k].name) || strcmp(r->cells[2], dir) ||
        strcmp(r->cells[3], chan))
      fail_msg("PROTOCOL.md §2, code %s: '%s | %s | %s', messages.def says '%s | %s | %s'", code,
               r->cells[1], r->cells[2], r->cells[3], messages[k].name, dir, chan);
    snprintf(heading, sizeof heading, "%s (%s)", messages[k].name, code);
    if (!strstr(protocol_text, heading))
      fail_msg("PROTOCOL.md §4 has no section naming '%s'", heading);
  }
  if (n != COUNT(messages))
    fail_msg("PROTOCOL.md §2 lists %d messages, messages.def %d", n, COUNT(messages));
}

static void test_shapes_match_protocol_md(void** state) {
  (void)state;
  md_row rows[MAX_ROWS];
  int n = table_after(protocol_text, "**Shape**", rows, MAX_ROWS);
  for (int k = 0; k < COUNT(shape_kinds); k++) {
    char want[32];
    snprintf(want, sizeof want, "%d %s", shape_kinds[k].code, shape_kinds[k].name);
    if (!row_named(rows, n, want))
      fail_msg("shape kind '%s' is missing from the shape table of PROTOCOL.md", want);
  }
  if (n != COUNT(shape_kinds))
    fail_msg("PROTOCOL.md lists %d shape kinds, shapes.def %d", n, COUNT(shape_kinds));
}

// `name` or `name{label}` in the first cell of a SERVER.md metric row.
static void metric_of_row(const md_row* r, char* name) {
  if (sscanf(r->cells[0], "`%95[a-z_]", name) != 1)
    fail_msg("SERVER.md metric row '%s'", r->cells[0]);
}

static void test_metrics_match_server_md(void** state) {
  (void)state;
  md_row rows[MAX_ROWS];
  int n = table_after(server_text, "### Metrics", rows, MAX_ROWS);
  char name[MAX_CELL];
  for (int i = 0; i < n; i++) {  // every documented name is a metric of the table...
    metric_of_row(&rows[i], name);
    int known = 0;
    for (int k = 0; k < COUNT(metric_names); k++) known |= strcmp(metric_names[k], name) == 0;
    if (!known) fail_msg("SERVER.md documents '%s', which sv_metrics.def does not have", name);
  }
  for (int k = 0; k < COUNT(metric_names); k++) {  // ...and every metric has its own row
    int found = 0;
    for (int i = 0; i < n; i++) {
      metric_of_row(&rows[i], name);
      found |= strcmp(name, metric_names[k]) == 0;
    }
    if (!found)
      fail_msg("metric '%s' is missing from the table in docs/SERVER.md", metric_names[k]);
  }
  assert_int_equal(n, COUNT(metric_names));
}

static int load_docs(void** state) {
  (void)state;
  protocol_text = read_text(protocol_md);
  server_text = read_text(server_md);
  return 0;
}

static int free_docs(void** state) {
  (void)state;
  free(protocol_text);
  free(server_text);
  return 0;
}

int main(void) {
  return ARB_RUN_TESTS(load_docs, free_docs, cmocka_unit_test(test_messages_match_protocol_md),
                       cmocka_unit_test(test_shapes_match_protocol_md),
                       cmocka_unit_test(test_metrics_match_server_md));
}
