// arbiter-server configuration: --help lists every flag with its environment variable;
// invalid flags or environment values give one clear message on stderr and exit status 2.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/exit_status.h"
#include "test_server_common.h"

typedef struct run_result {
  int status;  ///< exit status, or 128+signal, -1 on timeout
  char out[16384];
  char err[4096];
} run_result;

// Run the server with args and env overrides ("NAME=value", NULL-terminated), at most 5 s.
static void run(run_result* r, const char* const* args, const char* const* env) {
  char out_path[64], err_path[64];
  snprintf(out_path, sizeof out_path, "/tmp/arb-cfg-out-%d", (int)getpid());
  snprintf(err_path, sizeof err_path, "/tmp/arb-cfg-err-%d", (int)getpid());
  const char* argv[32];
  int n = 0;
  argv[n++] = g_server_exe;
  for (int i = 0; args && args[i]; ++i) argv[n++] = args[i];
  argv[n] = NULL;
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fo, 1);
    dup2(fe, 2);
    for (int i = 0; env && env[i]; ++i) {
      char kv[256];
      snprintf(kv, sizeof kv, "%s", env[i]);
      char* eq = strchr(kv, '=');
      if (eq) {
        *eq = '\0';
        setenv(kv, eq + 1, 1);
      }
    }
    execv(g_server_exe, (char* const*)argv);
    _exit(127);
  }
  tc_server s = {.pid = pid};
  // A valid configuration starts a server: stop it after a moment.
  r->status = -1;
  uint64_t end = tc_now_ms() + 5000;
  int status;
  while (tc_now_ms() < end) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      r->status = exit_status_of(status);
      s.pid = 0;
      break;
    }
    tc_sleep_ms(5);
  }
  if (s.pid) r->status = tc_server_stop(&s, SIGKILL, 2000);
  char* text;
  long len = tc_read_file(out_path, &text);
  snprintf(r->out, sizeof r->out, "%s", len >= 0 ? text : "");
  free(text);
  len = tc_read_file(err_path, &text);
  snprintf(r->err, sizeof r->err, "%s", len >= 0 ? text : "");
  free(text);
  unlink(out_path);
  unlink(err_path);
}

static int count_lines(const char* s) {
  int n = 0;
  for (; *s; ++s) n += *s == '\n';
  return n;
}

static void expect_invalid(const char* const* args, const char* const* env,
                           const char* must_mention) {
  run_result* r = calloc(1, sizeof *r);
  run(r, args, env);
  if (r->status != 2 || count_lines(r->err) != 1 || strstr(r->err, must_mention) == NULL)
    print_error("status %d, stderr: %s\n", r->status, r->err);
  assert_int_equal(r->status, 2);
  assert_int_equal(count_lines(r->err), 1);
  assert_non_null(strstr(r->err, must_mention));
  free(r);
}

static void test_server_config_help_lists_every_flag(void** state) {
  (void)state;
  run_result* r = calloc(1, sizeof *r);
  const char* args[] = {"--help", NULL};
  run(r, args, NULL);
  assert_int_equal(r->status, 0);
  const char* expected[] = {"--port",
                            "ARBITER_PORT",
                            "--bind",
                            "ARBITER_BIND",
                            "--max-clients",
                            "ARBITER_MAX_CLIENTS",
                            "--tick-rate",
                            "ARBITER_TICK_RATE",
                            "--snapshot-rate",
                            "ARBITER_SNAPSHOT_RATE",
                            "--scene",
                            "ARBITER_SCENE",
                            "--record",
                            "ARBITER_RECORD",
                            "--http-port",
                            "ARBITER_HTTP_PORT",
                            "--log-level",
                            "ARBITER_LOG_LEVEL",
                            "--log-format",
                            "ARBITER_LOG_FORMAT",
                            "--view-radius",
                            "ARBITER_VIEW_RADIUS",
                            "--checkpoint-every",
                            "ARBITER_CHECKPOINT_EVERY",
                            "--physics-threads",
                            "ARBITER_PHYSICS_THREADS",
                            "--help"};
  for (size_t i = 0; i < sizeof expected / sizeof expected[0]; ++i) {
    if (strstr(r->out, expected[i]) == NULL) print_error("--help lacks %s\n", expected[i]);
    assert_non_null(strstr(r->out, expected[i]));
  }
  free(r);
}

// Each row: the arguments (NULL-terminated) and what the one-line error must mention.
typedef struct invalid_case {
  const char* args[8];
  const char* must_mention;
} invalid_case;

static const invalid_case invalid_cases[] = {
    {{"--port", "99999", NULL}, "--port"},
    {{"--log-level", "loud", NULL}, "--log-level"},
    {{"--log-format", "xml", NULL}, "--log-format"},
    {{"--no-such-flag", NULL}, "--no-such-flag"},
    {{"--max-clients", "0", NULL}, "--max-clients"},
    {{"--view-radius", "nan", NULL}, "--view-radius"},
    {{"--view-radius", "-1", NULL}, "--view-radius"},
    {{"--view-radius", "automatic", NULL}, "--view-radius"},
    {{"--bind", "localhost", NULL}, "--bind"},
    {{"--port", NULL}, "--port"},
    {{"--port", "0", "--http-port", "0", "--scene", "/nonexistent/scene.json", NULL}, "scene"},
    {{"--port", "0", "--http-port", "0", "--tick-rate", "1001", NULL}, "--tick-rate"},
    {{"--port", "0", "--http-port", "0", "--snapshot-rate", "100", NULL}, "--snapshot-rate"},
    {{"--port", "0", "--http-port", "0", "--physics-threads", "0", NULL}, "--physics-threads"},
    {{"--port", "0", "--http-port", "0", "--physics-threads", "65", NULL}, "--physics-threads"},
};

static void test_server_config_invalid_values_exit_2(void** state) {
  (void)state;
  for (size_t i = 0; i < sizeof invalid_cases / sizeof invalid_cases[0]; ++i)
    expect_invalid(invalid_cases[i].args, NULL, invalid_cases[i].must_mention);
}

static void test_server_config_env_values_are_checked(void** state) {
  (void)state;
  const char* e1[] = {"ARBITER_MAX_CLIENTS=lots", NULL};
  expect_invalid(NULL, e1, "ARBITER_MAX_CLIENTS");
  const char* e2[] = {"ARBITER_HTTP_PORT=-5", NULL};
  expect_invalid(NULL, e2, "ARBITER_HTTP_PORT");
}

static void test_server_config_env_and_flags_start_a_server(void** state) {
  (void)state;
  // The environment sets max-clients; a flag wins over its variable, so the invalid
  // ARBITER_PORT is never used (tc_server_start passes --port 0).
  tc_server s;
  const char* extra[] = {"--log-level", "debug", NULL};
  setenv("ARBITER_MAX_CLIENTS", "3", 1);
  setenv("ARBITER_PORT", "abc", 1);
  int rc = tc_server_start(&s, g_server_exe, extra);
  unsetenv("ARBITER_MAX_CLIENTS");
  unsetenv("ARBITER_PORT");
  assert_int_equal(rc, 0);
  char value[32];
  assert_true(tc_log_find(s.log_path, "server_started", "max_clients", value, sizeof value));
  assert_string_equal(value, "3");
  stop_server(&s);
}

SERVER_TEST_MAIN(cmocka_unit_test(test_server_config_help_lists_every_flag),
                 cmocka_unit_test(test_server_config_invalid_values_exit_2),
                 cmocka_unit_test(test_server_config_env_values_are_checked),
                 cmocka_unit_test(test_server_config_env_and_flags_start_a_server))
