// arbiter-server: the authoritative server. Parses the configuration, runs the loop,
// and is the only place that decides the exit status (0 clean stop, 1 runtime failure,
// 2 invalid configuration). Everything else lives in src/ (see sv_server.h).
#include <enet/enet.h>
#include <signal.h>
#include <stdio.h>
#include <uv.h>

#include "sv_config.h"
#include "sv_server.h"

int main(int argc, char** argv) {
  sv_config cfg = sv_default_config();
  char err[1024];
  int rc = sv_config_parse(&cfg, argc, argv, err, sizeof err, stdout);
  if (rc > 0) return 0;
  if (rc < 0) {
    fprintf(stderr, "arbiter-server: %s\n", err);
    return 2;
  }
  // A client vanishing mid-send must not kill the server.
  signal(SIGPIPE, SIG_IGN);
  if (enet_initialize() != 0) {
    fprintf(stderr, "arbiter-server: enet_initialize failed\n");
    return 1;
  }
  uv_loop_t loop;
  uv_loop_init(&loop);
  static sv_server server;  // large; keep it off the stack
  rc = sv_server_init(&server, &loop, &cfg, err, sizeof err);
  if (rc != 0) {
    fprintf(stderr, "arbiter-server: %s\n", err);
    // The failed init undid itself; the loop only finishes closing its handles.
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    enet_deinitialize();
    return rc == ARB_E_INVAL ? 2 : 1;
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  int code = server.exit_code;
  sv_server_deinit(&server);
  uv_loop_close(&loop);
  enet_deinitialize();
  return code;
}
