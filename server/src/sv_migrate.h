// Moving a running match to another server (docs/SCALING.md, "Moving a match").
//
// The sending server (POST /admin/migrate/<ip>:<port>[/<clients' ip>:<port>], or SIGUSR2
// with --migrate-to)
// stops simulating at a tick boundary, encodes the state image (sv_migrate_image.h) and
// sends it, from a libuv worker thread, to the receiving server's --migrate-port:
//
//   "ARBMOVE1" | u16 credential length | credential (the admin token) | u32 image length |
//   image
//
// The receiver reads at most SV_MIG_MAX_IMAGE bytes within SV_MIG_RECEIVE_MS, checks the
// credential, decodes the image, checks the simulation version, the scene and the tick
// rate, restores the game into a scratch game first and compares its hash with the one
// sent, and only then takes the match over: the game is restored, every player is held
// for a rejoin with its own token, and the next tick is the one after the image's. It
// answers one line: "ok tick=<T> port=<udp port>[ ws_port=<WebSocket port>]\n" or
// "refused <reason>\n". A connection
// that ends or stalls before the whole image arrived is discarded.
//
// On "ok" the sender tells every client where to go (event `moved`, PROTOCOL.md §4.5) and
// keeps the connection open, still paused: the move is not settled until a player got
// there. The receiver writes "arrived\n" when the first moved player rejoins it; the move
// is then committed, and the sender stops once its clients have gone (at most
// SV_MIG_LINGER_MS later), ending its replay log at the hand-off tick. When nobody
// arrives within SV_MIG_ARRIVE_MS the sender writes "cancel\n": a receiver that has had no
// arrival yet drops the match (it restores its own game and is empty again) and answers
// "cancelled\n"; one that had, already wrote "arrived\n", which the sender reads first
// and commits. A connection that ends without "arrived" cancels on both sides (the
// receiver also gives up after SV_MIG_SETTLE_MS), but for a sender that stops while it
// waits: it writes "commit\n" first, and the match stays with the receiver. So the
// receiver runs the match only if a player reached it (or the sender is gone), and the
// sender resumes otherwise; clients that cannot reach the receiver come back to the
// sender with their rejoin token (the client library, CL_MOVE_FALLBACK_S).
// The sender's side of this settling is sv_migrate_settle.c.
// On anything but "ok", or no answer within SV_MIG_CONFIRM_MS, the sender logs why and
// resumes the match where it paused: nothing is lost.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include <arbiter/protocol.h>

#define SV_MIG_CONFIRM_MS 5000   ///< the sender waits this long for the receiver's answer
#define SV_MIG_RECEIVE_MS 10000  ///< the receiver drops a transfer unfinished after this
#define SV_MIG_LINGER_MS 2000    ///< after the commit, the sender stays this long for its clients
#define SV_MIG_ARRIVE_MS 1500    ///< after "ok", the first player must reach the receiver this soon
#define SV_MIG_CANCEL_MS 1000    ///< the sender waits this long for "cancelled" (or "arrived")
/// The receiver drops a match no player reached and no sender settled after this.
#define SV_MIG_SETTLE_MS (SV_MIG_ARRIVE_MS + SV_MIG_CANCEL_MS + 2000)
#define SV_MIG_WIRE_MAGIC "ARBMOVE1"

struct sv_server;

typedef enum sv_mig_state {
  SV_MIG_IDLE = 0,
  SV_MIG_SENDING,     ///< paused at a tick boundary, the image on its way
  SV_MIG_MOVED,       ///< the receiver took the match, clients told: waiting for one to arrive
  SV_MIG_CANCELLING,  ///< nobody arrived in time: the receiver is asked to drop the match
  SV_MIG_COMMITTED,   ///< a player reached the receiver: stopping
} sv_mig_state;

typedef struct sv_migrate {
  sv_mig_state state;
  char target[24];                      ///< "ip:port" of the receiver's --migrate-port
  char client_addr[64];                 ///< "ip:port" where the clients go
  char ws_url[ARB_PROTO_MAX_TEXT + 1];  ///< where WebSocket clients go ("": B's ws port, or none)
  uint8_t* image;                       ///< the encoded transfer (header + image)
  size_t image_len;
  uv_work_t work;
  char answer[256];  ///< the receiver's line, or why there was none
  bool answered_ok;
  uint64_t pause_ns, moved_ns, commit_ns, tick;
  int fd;                 ///< the connection to the receiver while the move settles; -1 none
  uv_poll_t settle_poll;  ///< readable: a line from the receiver
  bool settle_polling;
  uv_timer_t settle_timer;  ///< the arrival window, then the wait for "cancelled"
  char settle_line[32];
  size_t settle_len;
  /// Stop the server when the move does not happen (a drain that tried to move first).
  const char* stop_if_failed;
  // receiving
  uv_tcp_t listener;
  bool listening;
  int port;
  uv_tcp_t conn;
  bool conn_open;
  uv_timer_t conn_timer;
  uint8_t* in;
  size_t in_len, in_cap;
  bool adopted;      ///< this server took a match over (it takes one at most)
  bool provisional;  ///< ... and no player of it has arrived yet: the sender may cancel
  uint8_t* before;   ///< this server's own game before it took the match (for a cancel)
  int before_len;
  uv_signal_t sig_usr2;
  bool sig_on;
} sv_migrate;

/// Open --migrate-port (needs --admin-token) and watch SIGUSR2. 0, or -1 with err.
int sv_migrate_start(struct sv_server* s, char* err, size_t err_cap);
/// Close the listener, a transfer in progress and the signal handler.
void sv_migrate_close(struct sv_server* s);
/// Begin moving the match to `spec`: "ipv4:port" of the receiver's --migrate-port, then
/// optionally "/ipv4:port" where the clients reach it (default: that host at the UDP port
/// the receiver reports), then optionally "?ws=<ws:// or wss:// URL>" where WebSocket
/// clients reach it (default: ws://<that host>:<the receiver's --ws-port>/ when it has
/// one). 0, or -1 with why in err.
int sv_migrate_begin(struct sv_server* s, const char* spec, char* err, size_t err_cap);
/// Called at the start of every tick: true while the match is paused for a hand-off (the
/// network is serviced, nothing is simulated).
bool sv_migrate_paused(struct sv_server* s, uint64_t now_ns);
/// A player of a moved-in match rejoined here: the first one commits the move.
void sv_migrate_player_arrived(struct sv_server* s);
