// The web page's path rules in-process (sv_http_static_path, sv_http_mime_type;
// docs/WEB.md): which request paths reach which files below a web root made here, and
// which are refused before the file system is asked or after the file is resolved.
#define _XOPEN_SOURCE 700  // realpath, mkdtemp
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../common/test_main.h"
#include "sv_http.h"

static char base[PATH_MAX];  // a temporary directory: root/ and outside/ in it
static char root[PATH_MAX];  // resolved, as sv_http_start_web keeps it

static void write_file(const char* rel, const char* text) {
  char p[PATH_MAX * 2];
  snprintf(p, sizeof p, "%s/%s", base, rel);
  FILE* f = fopen(p, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static int setup(void** state) {
  (void)state;
  snprintf(base, sizeof base, "%s/arb-web-paths.XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(base)) return -1;
  char p[PATH_MAX * 2];
  const char* dirs[] = {"root", "root/sub", "root/sub/deeper", "outside"};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
    snprintf(p, sizeof p, "%s/%s", base, dirs[i]);
    if (mkdir(p, 0755) != 0) return -1;
  }
  write_file("root/index.html", "<p>index</p>\n");
  write_file("root/app.js", "1;\n");
  write_file("root/.hidden", "secret\n");
  write_file("root/-dash.js", "1;\n");
  write_file("root/sub/index.html", "<p>sub</p>\n");
  write_file("root/sub/deeper/a.wasm", "\0asm");
  write_file("outside/secret.txt", "secret\n");
  char target[PATH_MAX * 2];
  snprintf(target, sizeof target, "%s/outside/secret.txt", base);
  snprintf(p, sizeof p, "%s/root/link.txt", base);
  if (symlink(target, p) != 0) return -1;
  snprintf(target, sizeof target, "%s/root/app.js", base);
  snprintf(p, sizeof p, "%s/root/inside-link.js", base);
  if (symlink(target, p) != 0) return -1;
  snprintf(p, sizeof p, "%s/root", base);
  return realpath(p, root) ? 0 : -1;
}

static int teardown(void** state) {
  (void)state;
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
  return system(cmd) == 0 ? 0 : -1;
}

// The file a path maps to, relative to the root ("" when refused).
static const char* maps_to(const char* path) {
  static char out[PATH_MAX];
  if (sv_http_static_path(root, path, out, sizeof out) != 0) return "";
  size_t rl = strlen(root);
  assert_true(strncmp(out, root, rl) == 0 && out[rl] == '/');
  return out + rl + 1;
}

// An input and the string a rule must give for it.
typedef struct mapping {
  const char* in;
  const char* want;
} mapping;

// Checks rule(in) == want for each case, naming the input that fails.
static void expect_mappings(const char* (*rule)(const char*), const mapping* cases, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const char* got = rule(cases[i].in);
    if (strcmp(got, cases[i].want) != 0) print_error("\"%s\" gave \"%s\"\n", cases[i].in, got);
    assert_string_equal(got, cases[i].want);
  }
}

// Request paths that are served, and the file below the root each one reaches.
static const mapping served[] = {
    {"/", "index.html"},
    {"/index.html", "index.html"},
    {"/app.js", "app.js"},
    {"/sub/", "sub/index.html"},
    {"/sub/deeper/a.wasm", "sub/deeper/a.wasm"},
    {"/inside-link.js", "app.js"},  // a symbolic link that stays inside the root: its target
};
ARB_TEST_CASE(test_served, expect_mappings, maps_to, served, sizeof served / sizeof served[0])

static void test_refused(void** state) {
  (void)state;
  const char* refused[] = {
      "",  // not absolute
      "app.js",
      "/missing.js",
      "/sub",          // a directory without its '/'
      "/sub/deeper/",  // a directory without index.html
      "/..",
      "/../outside/secret.txt",
      "/sub/../app.js",
      "/sub/./index.html",
      "/./app.js",
      "/.hidden",
      "/-dash.js",
      "//app.js",
      "/sub//index.html",
      "/%2e%2e/outside/secret.txt",
      "/app%2ejs",
      "/..%2fapp.js",
      "/sub\\..\\app.js",
      "/app.js?x=1",  // the parser strips queries; one left here is a character refused
      "/app.js#top",
      "/a b.js",
      "/link.txt",  // a symbolic link out of the root
  };
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    char out[PATH_MAX];
    int rc = sv_http_static_path(root, refused[i], out, sizeof out);
    if (rc != 404) print_error("\"%s\" was served as %s\n", refused[i], out);
    assert_int_equal(rc, 404);
  }
  // No root: nothing is served.
  char out[PATH_MAX];
  assert_int_equal(sv_http_static_path("", "/app.js", out, sizeof out), 404);
  // A result that does not fit is refused, not cut.
  assert_int_equal(sv_http_static_path(root, "/app.js", out, 4), 404);
}

// File names and the Content-Type each one is served with.
static const mapping mime_types[] = {
    {"/x/index.html", "text/html; charset=utf-8"},
    {"/x/app.js", "text/javascript; charset=utf-8"},
    {"/x/APP.JS", "text/javascript; charset=utf-8"},
    {"/x/page.css", "text/css; charset=utf-8"},
    {"/x/dist/arbiter_web.wasm", "application/wasm"},
    {"/x/package.json", "application/json"},
    {"/x/icon.png", "image/png"},
    {"/x/log.arbrec", "application/octet-stream"},
    {"/x.d/README", "application/octet-stream"},
    {"/x/noext", "application/octet-stream"},
};
ARB_TEST_CASE(test_mime_types, expect_mappings, sv_http_mime_type, mime_types,
              sizeof mime_types / sizeof mime_types[0])

int main(void) {
  return ARB_RUN_TESTS(setup, teardown, cmocka_unit_test(test_served),
                       cmocka_unit_test(test_refused), cmocka_unit_test(test_mime_types));
}
