// Small pieces shared by the server's TCP listeners (see sv_tcp.h).
#include "sv_tcp.h"

#include <arpa/inet.h>
#include <netinet/in.h>

uint16_t sv_tcp_bound_port(const uv_tcp_t* listener) {
  struct sockaddr_storage bound;
  int len = (int)sizeof bound;
  if (uv_tcp_getsockname(listener, (struct sockaddr*)&bound, &len) != 0) return 0;
  return ntohs(((const struct sockaddr_in*)&bound)->sin_port);
}
