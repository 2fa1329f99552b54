// Helpers for the client integration tests: child processes (arbiter-server,
// arbiter-netem, arbiter-bot) with their output in a temporary directory, bounded waits,
// and pumping library clients. Everything on 127.0.0.1 with ephemeral ports.
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include <jansson.h>

#include <arbiter/client.h>

typedef struct cu_proc {
  pid_t pid;      ///< 0 = not running
  char out[512];  ///< stdout file
  char err[512];  ///< stderr file
} cu_proc;

/// A fresh temporary directory for this test program (removed by cu_cleanup).
const char* cu_tmpdir(void);
void cu_cleanup(void);
double cu_now(void);
void cu_sleep(double seconds);

/// SIGKILL and reap every child still running (test teardown: a failed assert must not
/// leave servers behind).
void cu_kill_all(void);
/// cmocka teardown calling cu_kill_all.
int cu_teardown(void** state);
/// cmocka group teardown: cu_kill_all, then cu_cleanup (after a program's last test).
int cu_group_teardown(void** state);

/// Start argv[0] with argv; stdout/stderr go to <tmpdir>/<tag>.out/.err. 0 or -1.
int cu_spawn(cu_proc* p, const char* tag, char* const argv[]);
/// Wait up to timeout seconds; returns the exit status (>= 0), 128+signal, or -1 on timeout.
int cu_wait(cu_proc* p, double timeout);
/// Send sig and wait up to 3 s (then SIGKILL). Returns the exit status as cu_wait.
int cu_stop(cu_proc* p, int sig);

/// arbiter-server on 127.0.0.1, port 0 (ephemeral) unless port > 0, HTTP off, plus extra
/// args (NULL-terminated, may be NULL). Waits for its startup line; returns the UDP port
/// or -1.
int cu_server_start(cu_proc* p, const char* exe, int port, const char* const* extra);
/// cu_server_start on an ephemeral port for a test that needs the server: the test fails
/// when it does not start. Returns the UDP port.
int cu_server_up(cu_proc* p, const char* exe, const char* const* extra);
/// arbiter-netem in front of server_port with extra args; returns its listen port or -1.
int cu_netem_start(cu_proc* p, const char* exe, int server_port, const char* const* extra);
/// Run arbiter-bot to completion (bounded by duration + 20 s) and parse its JSON summary.
/// *exit_status receives the exit status. Returns the JSON object (json_decref it) or NULL.
json_t* cu_run_bot(const char* exe, int port, int clients, double duration, const char* behaviour,
                   int* exit_status);
/// The number at `key` of a JSON object such as a bot summary (fails the test when absent).
double cu_jnum(const json_t* object, const char* key);
/// Copy to stderr the lines of a file that contain `needle` (a child's log, on failure).
void cu_print_lines(const char* path, const char* needle);
/// cu_run_bot with one more arbiter-bot flag (NULL: none).
json_t* cu_run_bot_flag(const char* exe, int port, int clients, double duration,
                        const char* behaviour, const char* flag, int* exit_status);
/// The same with any extra arguments (a NULL-terminated list; NULL = none).
json_t* cu_run_bot_args(const char* exe, int port, int clients, double duration,
                        const char* behaviour, const char* const* extra, int* exit_status);

/// A library client to 127.0.0.1:port with the test's defaults.
arb_client* cu_client(int port, const char* name);
/// A library client and what its events have said so far (cu_poll_events keeps it current).
typedef struct cu_watched {
  arb_client* c;
  bool connected;  ///< a CONNECTED event came
  bool rejected;   ///< a REJECTED event came, with this code and text:
  int reject_code;
  char reject_text[128];
  int hits;                          ///< HIT events
  uint32_t hit_shooter, hit_entity;  ///< of the last HIT
} cu_watched;
/// Polls every pending event of w->c into *w.
void cu_poll_events(cu_watched* w);
/// Polls and drops every pending event of c.
void cu_discard_events(arb_client* c);
/// Update every client (NULL entries skipped) for `seconds`, every 2 ms, returning early
/// when done(user) says so (done may be NULL; it may poll events). Returns true when done.
bool cu_pump(arb_client** cs, int n, double seconds, bool (*done)(void* user), void* user);
