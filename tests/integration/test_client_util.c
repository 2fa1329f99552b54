// Helpers for the client integration tests (see test_client_util.h).
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE

#include "test_client_util.h"
#include "../common/exit_status.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

static char g_tmp[256];
static pid_t g_children[64];
static int g_nchildren;

void cu_kill_all(void) {
  for (int i = 0; i < g_nchildren; i++) {
    if (g_children[i] > 0 && waitpid(g_children[i], NULL, WNOHANG) == 0) {
      kill(g_children[i], SIGKILL);
      waitpid(g_children[i], NULL, 0);
    }
  }
  g_nchildren = 0;
}

int cu_teardown(void** state) {
  (void)state;
  cu_kill_all();
  return 0;
}

int cu_group_teardown(void** state) {
  (void)state;
  cu_kill_all();
  cu_cleanup();
  return 0;
}

const char* cu_tmpdir(void) {
  if (!g_tmp[0]) {
    snprintf(g_tmp, sizeof g_tmp, "/tmp/arbiter-client-test-XXXXXX");
    if (!mkdtemp(g_tmp)) {
      perror("mkdtemp");
      exit(1);
    }
  }
  return g_tmp;
}

void cu_cleanup(void) {
  if (!g_tmp[0]) return;
  DIR* d = opendir(g_tmp);
  if (d) {
    struct dirent* e;
    while ((e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.') continue;
      char path[600];
      snprintf(path, sizeof path, "%s/%s", g_tmp, e->d_name);
      unlink(path);
    }
    closedir(d);
  }
  rmdir(g_tmp);
  g_tmp[0] = '\0';
}

double cu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cu_sleep(double seconds) {
  struct timespec ts;
  ts.tv_sec = (time_t)seconds;
  ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
  nanosleep(&ts, NULL);
}

int cu_spawn(cu_proc* p, const char* tag, char* const argv[]) {
  memset(p, 0, sizeof *p);
  snprintf(p->out, sizeof p->out, "%s/%s.out", cu_tmpdir(), tag);
  snprintf(p->err, sizeof p->err, "%s/%s.err", cu_tmpdir(), tag);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int o = open(p->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(p->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0) _exit(126);
    dup2(o, 1);
    dup2(e, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  p->pid = pid;
  if (g_nchildren < 64) g_children[g_nchildren++] = pid;
  return 0;
}

int cu_wait(cu_proc* p, double timeout) {
  if (p->pid <= 0) return -1;
  double end = cu_now() + timeout;
  for (;;) {
    int status = 0;
    pid_t r = waitpid(p->pid, &status, WNOHANG);
    if (r == p->pid) {
      p->pid = 0;
      return exit_status_of(status);
    }
    if (cu_now() > end) return -1;
    cu_sleep(0.01);
  }
}

int cu_stop(cu_proc* p, int sig) {
  if (p->pid <= 0) return -1;
  kill(p->pid, sig);
  int rc = cu_wait(p, 3.0);
  if (rc < 0 && p->pid > 0) {
    kill(p->pid, SIGKILL);
    rc = cu_wait(p, 3.0);
  }
  return rc;
}

static long read_file(const char* path, char* buf, size_t cap) {
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, cap - 1, f);
  buf[n] = '\0';
  fclose(f);
  return (long)n;
}

// The last cap - 1 bytes of a file, from a line start when it is longer.
static long read_tail(const char* path, char* buf, size_t cap) {
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  long start = 0;
  if (fseek(f, 0, SEEK_END) == 0) {
    long size = ftell(f);
    if (size > (long)cap - 1) start = size - ((long)cap - 1);
  }
  fseek(f, start, SEEK_SET);
  size_t n = fread(buf, 1, cap - 1, f);
  buf[n] = '\0';
  fclose(f);
  char* nl = start > 0 ? strchr(buf, '\n') : NULL;
  if (nl) memmove(buf, nl + 1, strlen(nl + 1) + 1);
  return (long)strlen(buf);
}

void cu_print_lines(const char* path, const char* needle) {
  FILE* f = fopen(path, "r");
  if (!f) return;
  char line[1024];
  while (fgets(line, sizeof line, f))
    if (strstr(line, needle)) fprintf(stderr, "%s", line);
  fclose(f);
}

// Poll a child's output file for `key` followed by digits; returns the number or -1.
static int wait_for_number(cu_proc* p, const char* file, const char* key, double timeout) {
  static char buf[65536];
  double end = cu_now() + timeout;
  while (cu_now() < end) {
    if (read_file(file, buf, sizeof buf) > 0) {
      const char* at = strstr(buf, key);
      if (at) return atoi(at + strlen(key));
    }
    if (p->pid > 0 && waitpid(p->pid, NULL, WNOHANG) == p->pid) {
      p->pid = 0;
      return -1;
    }
    cu_sleep(0.02);
  }
  return -1;
}

static int build_argv(char** argv, int at, int cap, const char* const* extra) {
  for (int i = 0; extra && extra[i] && at < cap - 1; i++) argv[at++] = (char*)extra[i];
  argv[at] = NULL;
  return at;
}

// Starts the child and waits up to 10 s for the port it logs after `marker` in `file`;
// returns the port, or -1 (the child killed).
static int spawn_for_port(cu_proc* p, const char* tag, char* const argv[], const char* file,
                          const char* marker) {
  if (cu_spawn(p, tag, argv) != 0) return -1;
  int got = wait_for_number(p, file, marker, 10.0);
  if (got <= 0) {
    cu_stop(p, SIGKILL);
    return -1;
  }
  return got;
}

int cu_server_start(cu_proc* p, const char* exe, int port, const char* const* extra) {
  static int count;
  char tag[32], portbuf[16];
  snprintf(tag, sizeof tag, "server%d", count++);
  snprintf(portbuf, sizeof portbuf, "%d", port > 0 ? port : 0);
  char* argv[64] = {(char*)exe, "--port", portbuf, "--bind", "127.0.0.1", "--http-port", "0"};
  build_argv(argv, 7, 64, extra);
  return spawn_for_port(p, tag, argv, p->err, " port=");
}

int cu_server_up(cu_proc* p, const char* exe, const char* const* extra) {
  int port = cu_server_start(p, exe, 0, extra);
  assert_true(port > 0);
  return port;
}

int cu_netem_start(cu_proc* p, const char* exe, int server_port, const char* const* extra) {
  static int count;
  char tag[32], server[64];
  snprintf(tag, sizeof tag, "netem%d", count++);
  snprintf(server, sizeof server, "127.0.0.1:%d", server_port);
  char* argv[64] = {(char*)exe, "--server", server, "--listen", "127.0.0.1:0"};
  build_argv(argv, 5, 64, extra);
  return spawn_for_port(p, tag, argv, p->out, "listening on 127.0.0.1:");
}

json_t* cu_run_bot(const char* exe, int port, int clients, double duration, const char* behaviour,
                   int* exit_status) {
  return cu_run_bot_flag(exe, port, clients, duration, behaviour, NULL, exit_status);
}

json_t* cu_run_bot_flag(const char* exe, int port, int clients, double duration,
                        const char* behaviour, const char* flag, int* exit_status) {
  const char* extra[] = {flag, NULL};
  return cu_run_bot_args(exe, port, clients, duration, behaviour, extra, exit_status);
}

json_t* cu_run_bot_args(const char* exe, int port, int clients, double duration,
                        const char* behaviour, const char* const* extra, int* exit_status) {
  static int count;
  char tag[32], portbuf[16], nbuf[16], dbuf[32];
  snprintf(tag, sizeof tag, "bot%d", count++);
  snprintf(portbuf, sizeof portbuf, "%d", port);
  snprintf(nbuf, sizeof nbuf, "%d", clients);
  snprintf(dbuf, sizeof dbuf, "%g", duration);
  char* argv[24] = {(char*)exe,       "--host", "127.0.0.1",  "--port",      portbuf,
                    "--clients",      nbuf,     "--duration", dbuf,          "--behaviour",
                    (char*)behaviour, "--seed", "5",          "--per-client"};
  int argc = 14;
  for (int i = 0; extra && extra[i] && argc < 23; i++) argv[argc++] = (char*)extra[i];
  argv[argc] = NULL;
  cu_proc p;
  *exit_status = -1;
  if (cu_spawn(&p, tag, argv) != 0) return NULL;
  int rc = cu_wait(&p, duration + 20.0);
  if (rc < 0) {
    cu_stop(&p, SIGKILL);
    return NULL;
  }
  *exit_status = rc;
  json_error_t jerr;
  json_t* j = json_load_file(p.out, 0, &jerr);
  if (!j) fprintf(stderr, "bot summary %s: %s (line %d)\n", p.out, jerr.text, jerr.line);
  // Show the progress lines in the test log: they are the first thing to look at (the
  // last ones of a long run, which lead up to its end).
  static char buf[16384];
  if (read_tail(p.err, buf, sizeof buf) > 0) fprintf(stderr, "%s", buf);
  return j;
}

void cu_poll_events(cu_watched* w) {
  arb_client_event ev;
  while (arb_client_poll_event(w->c, &ev) > 0) {
    if (ev.type == ARB_CLIENT_EVENT_CONNECTED) w->connected = true;
    if (ev.type == ARB_CLIENT_EVENT_REJECTED) {
      w->rejected = true;
      w->reject_code = ev.code;
      snprintf(w->reject_text, sizeof w->reject_text, "%s", ev.text);
    }
    if (ev.type == ARB_CLIENT_EVENT_HIT) {
      w->hits++;
      w->hit_shooter = ev.client_id;
      w->hit_entity = ev.entity_id;
    }
  }
}

void cu_discard_events(arb_client* c) {
  arb_client_event ev;
  while (arb_client_poll_event(c, &ev) > 0) {
  }
}

arb_client* cu_client(int port, const char* name) {
  arb_client_config cfg = arb_client_default_config();
  cfg.host = "127.0.0.1";
  cfg.port = (uint16_t)port;
  cfg.name = name;
  arb_client* c = NULL;
  if (arb_client_create(&cfg, &c) != 0) return NULL;
  if (arb_client_connect(c) != 0) {
    arb_client_destroy(c);
    return NULL;
  }
  return c;
}

bool cu_pump(arb_client** cs, int n, double seconds, bool (*done)(void* user), void* user) {
  double end = cu_now() + seconds;
  for (;;) {
    double now = cu_now();
    for (int i = 0; i < n; i++)
      if (cs[i]) arb_client_update(cs[i], now);
    if (done && done(user)) return true;
    if (now >= end) return false;
    cu_sleep(0.002);
  }
}

double cu_jnum(const json_t* object, const char* key) {
  const json_t* v = json_object_get(object, key);
  assert_non_null(v);
  return json_number_value(v);
}
