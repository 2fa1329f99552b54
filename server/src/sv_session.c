// Sessions: connect (ENet or WebSocket, through sv_link.h) -> hello (bounded time) -> version and
// capacity checks -> queued join (applied at the next tick boundary) -> inputs -> leave queued on
// disconnect, timeout or kick. Everything a client sends is validated here; a client
// can only ever touch its own input slot.
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sv_server.h"

// ENet closes a connection when one reliable command has gone unacknowledged through
// log2(LIMIT) doublings of its wait, or when a single wait reaches MAX ms; each try waits
// twice the one before, from about the round trip plus four deviations (0.3-0.6 s at
// 100 +- 100 ms), so MAX = 1 h is reached at the 13th or 14th try, LIMIT at the 15th.
#define SV_ENET_TIMEOUT_LIMIT 16384
#define SV_ENET_TIMEOUT_MIN_MS 5000
#define SV_ENET_TIMEOUT_MAX_MS 3600000
#define SV_ENET_PING_INTERVAL_MS 30000

static sv_session* session_of(sv_server* s, const ENetPeer* peer) {
  size_t idx = (size_t)(peer - s->net.host->peers);
  if (idx >= (size_t)s->peer_capacity) return NULL;
  return &s->sessions[idx];
}

// A WebSocket connection's session: its slot after the ENet peers.
static sv_session* ws_session(sv_server* s, const sv_ws_conn* c) {
  int slot = sv_ws_slot(c);
  if (slot < 0 || slot >= s->session_count - s->peer_capacity) return NULL;
  return &s->sessions[s->peer_capacity + slot];
}

// WebSocket connections of an address: they count against --peers-per-address with its
// ENet peers.
int sv_session_ws_count(void* user, uint32_t ip) {
  sv_server* s = user;
  return s->ws_on ? sv_ws_open_of(&s->ws, ip) : 0;
}

sv_session* sv_session_by_client(sv_server* s, uint32_t client_id) {
  if (client_id == 0) return NULL;
  for (int i = 0; i < s->session_count; ++i) {
    sv_session* ss = &s->sessions[i];
    if ((ss->state == SV_SESSION_ACTIVE || ss->state == SV_SESSION_JOINING) &&
        ss->client_id == client_id)
      return ss;
  }
  return NULL;
}

int sv_session_send_control(sv_server* s, sv_session* ss, const uint8_t* data, size_t len) {
  return sv_link_send(&ss->link, ARB_PROTO_CHANNEL_CONTROL, data, len);
}

static void remove_from_join_queue(sv_server* s, int idx) {
  int w = 0;
  for (int i = 0; i < s->join_count; ++i)
    if (s->join_queue[i] != idx) s->join_queue[w++] = s->join_queue[i];
  s->join_count = w;
}

// An avatar in the game despawns at the next tick boundary; the left event says who and why.
static void queue_leave(sv_server* s, uint32_t client_id, arb_proto_reason why, const char* name) {
  s->leave_reason[s->leave_count] = (uint8_t)why;
  snprintf(s->leave_name[s->leave_count], sizeof s->leave_name[0], "%s", name);
  s->leave_queue[s->leave_count++] = client_id;
}

// The session stops holding a player slot; an avatar already in the game despawns at the
// next tick boundary, and everyone is told who left and why (event "left").
static void release_slot(sv_server* s, sv_session* ss, arb_proto_reason why) {
  int idx = (int)(ss - s->sessions);
  if (ss->spectator) {  // no avatar, no player slot: nobody is told
    if (ss->state == SV_SESSION_ACTIVE) {
      s->spectator_count--;
      s->metrics.spectators_connected--;
      s->metrics.clients_left_total++;
    }
    ss->spectator = false;
  } else if (ss->state == SV_SESSION_JOINING) {
    remove_from_join_queue(s, idx);
    s->active_count--;
  } else if (ss->state == SV_SESSION_ACTIVE) {
    queue_leave(s, ss->client_id, why, ss->name);
    s->active_count--;
    s->metrics.clients_connected--;
    s->metrics.clients_left_total++;
  }
}

// An event about this session's client and its avatar, with `text`.
static arb_proto_event session_event(const sv_session* ss, arb_proto_event_kind kind, uint32_t tick,
                                     const char* text) {
  arb_proto_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = (uint8_t)kind;
  ev.tick = tick;
  ev.client_id = ss->client_id;
  ev.entity_id = ss->entity_id;
  snprintf(ev.text, sizeof ev.text, "%s", text);
  return ev;
}

static void send_event(sv_server* s, sv_session* ss, const arb_proto_event* ev) {
  int n = arb_proto_encode_event(ev, s->msg_buf, s->msg_buf_cap);
  if (n > 0 && (size_t)n <= s->msg_buf_cap) sv_session_send_control(s, ss, s->msg_buf, (size_t)n);
}

// The goodbye (event or reject) is queued: ENet sends the DISCONNECT once it is delivered
// (a WebSocket connection its close frame after it), and the connection is reset
// SV_CLOSE_GRACE_MS from now if that has not finished by then (sv_session_check_timeouts),
// so its slot never waits for ENet's own timeout.
static void start_closing(sv_session* ss, arb_proto_reason reason) {
  ss->state = SV_SESSION_CLOSING;
  ss->closing_ns = uv_hrtime();
  ss->close_reason = (uint8_t)reason;
  sv_link_close(&ss->link, (uint8_t)reason);
}

void sv_session_kick(sv_server* s, sv_session* ss, arb_proto_reason reason, const char* text) {
  if (ss->state == SV_SESSION_FREE || ss->state == SV_SESSION_CLOSING) return;
  arb_proto_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = ARB_PROTO_EVENT_DISCONNECT;
  ev.tick = (uint32_t)arb_game_get_tick(s->game);
  ev.code = (uint8_t)reason;
  snprintf(ev.text, sizeof ev.text, "%s", text);
  send_event(s, ss, &ev);
  SV_LOG(&s->log, SV_LOG_INFO, "client_kicked", SV_LU("client", ss->client_id),
         SV_LS("addr", ss->addr), SV_LS("reason", arb_proto_reason_name(reason)),
         SV_LS("text", text));
  if (reason != ARB_PROTO_REASON_SHUTDOWN) s->metrics.clients_kicked_total++;
  release_slot(s, ss, reason);
  start_closing(ss, reason);
}

static void reject(sv_server* s, sv_session* ss, arb_proto_reason reason, const char* text) {
  arb_proto_reject r;
  memset(&r, 0, sizeof r);
  r.reason = (uint8_t)reason;
  r.server_version = ARB_PROTO_VERSION;
  snprintf(r.text, sizeof r.text, "%s", text);
  int n = arb_proto_encode_reject(&r, s->msg_buf, s->msg_buf_cap);
  if (n > 0 && (size_t)n <= s->msg_buf_cap) sv_session_send_control(s, ss, s->msg_buf, (size_t)n);
  s->metrics.clients_rejected_total++;
  SV_LOG(&s->log, SV_LOG_INFO, "client_rejected", SV_LS("addr", ss->addr),
         SV_LS("reason", arb_proto_reason_name(reason)), SV_LS("text", text));
  release_slot(s, ss, reason);
  start_closing(ss, reason);
}

// A malformed or out-of-place message: counted, logged at debug, and a strike.
static void strike(sv_server* s, sv_session* ss, sv_reject_reason why, const char* detail) {
  s->metrics.messages_rejected_total[why]++;
  ss->input.strikes++;
  SV_LOG(&s->log, SV_LOG_DEBUG, "message_rejected", SV_LU("client", ss->client_id),
         SV_LS("addr", ss->addr), SV_LS("reason", sv_reject_reason_name(why)),
         SV_LS("detail", detail), SV_LU("strikes", ss->input.strikes));
  if (ss->input.strikes >= (uint32_t)s->cfg.strike_limit) {
    char text[128];
    snprintf(text, sizeof text, "too many malformed messages (%u)", ss->input.strikes);
    sv_session_kick(s, ss, ARB_PROTO_REASON_MALFORMED, text);
  }
}

// A new connection's session, waiting for its hello (either transport).
static void open_session(sv_server* s, sv_session* ss, sv_link link, uint32_t ip,
                         const char* addr) {
  memset(ss, 0, sizeof *ss);
  ss->state = SV_SESSION_AWAIT_HELLO;
  ss->link = link;
  ss->ip = ip;
  snprintf(ss->addr, sizeof ss->addr, "%s", addr);
  ss->connected_ns = uv_hrtime();
  ss->last_heard_ns = ss->connected_ns;
  sv_input_init(&ss->input, &s->limits, ss->connected_ns);
}

static void on_connect(sv_server* s, ENetPeer* peer) {
  sv_session* ss = session_of(s, peer);
  char ip[20];
  if (enet_address_get_host_ip(&peer->address, ip, sizeof ip) != 0) snprintf(ip, sizeof ip, "?");
  if (ss == NULL || s->stopping) {
    enet_peer_disconnect_now(peer, ARB_PROTO_REASON_SHUTDOWN);
    return;
  }
  char addr[32];
  snprintf(addr, sizeof addr, "%s:%u", ip, (unsigned)peer->address.port);
  open_session(s, ss, sv_link_enet(&s->net, peer), peer->address.host, addr);
  peer->data = ss;
  // ENet gives up on a peer when one reliable command stays unacknowledged too long. At
  // 20 % loss each way with 100 +- 100 ms jitter, a 3 s limit left time for only two
  // retransmissions (13 % of reliable messages failed), so ENet gets generous limits and
  // dead clients are noticed by the session's own silence check (--peer-timeout-ms of
  // nothing at all received; a live client sends inputs every tick). At that loss a try
  // and its acknowledgement both arrive 64 % of the time, so a command fails all of n
  // tries with probability 0.36^n. With 8 or 9 tries (256 and 60 s before) one of the
  // server's two pings a second per client (sv_tick.c, ping_peers) did so about once an
  // hour per client, which ended one of the 4 clients of the 10-minute soak in about half
  // its runs; with 13 or 14, about once in 80-230 hours. A client that never
  // acknowledges anything (its silence check does not fire while it sends inputs) is
  // closed about an hour after its first unacknowledged command, and meanwhile holds no
  // scene slot (SV_SCENE_SLOT_NS).
  enet_peer_timeout(peer, SV_ENET_TIMEOUT_LIMIT, SV_ENET_TIMEOUT_MIN_MS, SV_ENET_TIMEOUT_MAX_MS);
  // ENet's own pings (after this long without an acknowledgement from the peer) are for
  // liveness, which is the silence check's job: rarely. The round trip is kept fresh by
  // the pings of sv_tick.c (ping_peers).
  enet_peer_ping_interval(peer, SV_ENET_PING_INTERVAL_MS);
  // ENet's packet throttle drops unreliable packets at random when the RTT rises. A
  // snapshot split in parts is only usable whole, and an unacked client gets full
  // (multi-part) snapshots, so random drops under load can starve it for good. Keep the
  // throttle at "send everything": snapshot size is bounded by our own payload budget.
  enet_peer_throttle_configure(peer, ENET_PEER_PACKET_THROTTLE_INTERVAL, 0, 0);
  s->metrics.peers_connected++;
  SV_LOG(&s->log, SV_LOG_DEBUG, "peer_connected", SV_LS("addr", ss->addr));
}

// ---- rejoin (PROTOCOL.md §4.6) ---------------------------------------------------------

#define SV_REJOIN_PREFIX "rj1."

// A lost session's avatar is held for a rejoin only if its inputs were applied for this
// long (in ticks at the configured rate). A real client sends an input every tick from
// its welcome on, so 2 s of play is 2 s of a live, input-sending connection per hold,
// where connect, hello, welcome and a disconnect with code 0 took a few milliseconds and
// held a slot for the whole window. A player lost within its first 2 s
// loses a freshly spawned avatar and joins again as a new player.
#define SV_REJOIN_MIN_PLAY_MS 2000

static bool played_enough(const sv_server* s, const sv_session* ss) {
  return (uint64_t)ss->played_ticks * 1000u >=
         (uint64_t)SV_REJOIN_MIN_PLAY_MS * (uint64_t)s->tick_rate;
}

// The avatar leaves now: expired, or its address needed the room.
static void release_hold(sv_server* s, sv_rejoin* r, arb_proto_reason why, const char* event) {
  r->used = false;
  queue_leave(s, r->client_id, why, r->name);  // lost, never came back
  s->active_count--;
  s->metrics.rejoins_pending--;
  s->metrics.clients_left_total++;
  SV_LOG(&s->log, SV_LOG_INFO, event, SV_LU("client", r->client_id));
}

// Holds of avatars lost from `ip`, and the oldest of them (the first to expire).
static int holds_of(sv_server* s, uint32_t ip, sv_rejoin** oldest) {
  int n = 0;
  *oldest = NULL;
  for (int i = 0; i < s->cfg.max_clients; ++i) {
    sv_rejoin* r = &s->rejoins[i];
    if (!r->used || r->ip != ip) continue;
    n++;
    if (*oldest == NULL || r->expires_ns < (*oldest)->expires_ns) *oldest = r;
  }
  return n;
}

// What an address holds (peers, half-open handshakes and avatars held for a rejoin) counts
// against one budget, --peers-per-address: release the oldest holds of `ip` until `peers`
// of its peers plus `extra` more fit beside the holds. The present player wins over the
// absent one: a newcomer is never refused for a hold, and a released player that does
// come back joins again as a new one.
static void make_budget_room(sv_server* s, uint32_t ip, int peers, int extra) {
  int budget = s->cfg.peers_per_address;
  if (budget <= 0) return;
  sv_rejoin* oldest = NULL;
  for (int held = holds_of(s, ip, &oldest); held > 0 && peers + held + extra > budget;
       held = holds_of(s, ip, &oldest)) {
    release_hold(s, oldest, ARB_PROTO_REASON_FULL, "rejoin_released");
    s->metrics.rejoin_holds_released_total++;
  }
}

void sv_session_on_connect_budget(void* user, uint32_t ip, int peers) {
  make_budget_room(user, ip, peers + sv_session_ws_count(user, ip), 1);
}

void sv_rejoin_fill(sv_rejoin* r, const char* token, uint32_t client_id, uint32_t entity_id,
                    uint8_t avatar_kind, const char* name, bool has_token, uint64_t token_client_id,
                    uint64_t expires_ns) {
  memset(r, 0, sizeof *r);
  r->used = true;
  snprintf(r->token, sizeof r->token, "%s", token);
  r->client_id = client_id;
  r->entity_id = entity_id;
  r->avatar_kind = avatar_kind;
  snprintf(r->name, sizeof r->name, "%s", name);
  r->has_token = has_token;
  r->token_client_id = token_client_id;
  r->expires_ns = expires_ns;
}

// Keep a lost client's avatar and player slot for the rejoin window. False when the
// session has no avatar yet, did not play long enough, rejoining is off, or the table is
// full.
static bool hold_for_rejoin(sv_server* s, sv_session* ss, const char* cause) {
  if (ss->state != SV_SESSION_ACTIVE || s->cfg.rejoin_window_ms <= 0 || ss->rejoin_token[0] == '\0')
    return false;
  if (!played_enough(s, ss)) {
    s->metrics.rejoin_holds_skipped_total++;
    return false;
  }
  // The hold takes the place of its peer in the address's budget.
  int peers = sv_net_peers_of(&s->net, ss->ip) + sv_session_ws_count(s, ss->ip) -
              (sv_link_live(&ss->link) ? 1 : 0);
  make_budget_room(s, ss->ip, peers, 1);
  for (int i = 0; i < s->cfg.max_clients; ++i) {
    sv_rejoin* r = &s->rejoins[i];
    if (r->used) continue;
    sv_rejoin_fill(r, ss->rejoin_token, ss->client_id, ss->entity_id, ss->avatar_kind, ss->name,
                   ss->has_token, ss->token_client_id,
                   uv_hrtime() + (uint64_t)s->cfg.rejoin_window_ms * 1000000u);
    r->ip = ss->ip;
    s->metrics.clients_connected--;  // the slot (active_count) stays taken
    s->metrics.rejoins_pending++;
    SV_LOG(&s->log, SV_LOG_INFO, "client_lost", SV_LU("client", ss->client_id),
           SV_LS("addr", ss->addr), SV_LS("cause", cause),
           SV_LU("silent_ms", (uv_hrtime() - ss->last_heard_ns) / 1000000u),
           SV_LI("rejoin_window_ms", s->cfg.rejoin_window_ms));
    ss->state = SV_SESSION_CLOSING;  // nothing left to release
    return true;
  }
  return false;
}

// The client's snapshot rate: the server's per-client ceiling, or less if it asked.
static int client_kbps(const sv_server* s, const arb_proto_hello* h) {
  int kbps = s->cfg.client_kbps;
  if (h->max_kbps != 0 && h->max_kbps < (uint32_t)kbps) kbps = (int)h->max_kbps;
  return kbps;
}

// A hello carrying a rejoin token: true when it named a held avatar and the session now
// owns it again (welcomed at once).
static bool try_rejoin(sv_server* s, sv_session* ss, const arb_proto_hello* h) {
  uint64_t now = uv_hrtime();
  for (int i = 0; i < s->cfg.max_clients; ++i) {
    sv_rejoin* r = &s->rejoins[i];
    if (!r->used || r->expires_ns < now || strlen(r->token) != h->token_len ||
        memcmp(r->token, h->token, h->token_len) != 0)
      continue;
    if (!ss->snap_ready) {
      if (sv_snap_client_init(&ss->snap, s->max_entities) != 0) return false;
      ss->snap_ready = true;
    }
    // A new connection holds nothing yet: its snapshots start from scratch (full), at the
    // rate this hello asks for, whatever this session slot sent before.
    sv_snap_client_reset(&ss->snap, client_kbps(s, h));
    ss->client_id = r->client_id;
    ss->entity_id = r->entity_id;
    ss->avatar_kind = r->avatar_kind;
    snprintf(ss->name, sizeof ss->name, "%s", r->name);
    ss->has_token = r->has_token;
    ss->token_client_id = r->token_client_id;
    ss->state = SV_SESSION_ACTIVE;
    // The same player: lost again, it is held again without a new stretch of play.
    ss->played_ticks = (uint32_t)((uint64_t)SV_REJOIN_MIN_PLAY_MS * (uint64_t)s->tick_rate / 1000u);
    sv_link_set_greeted(&ss->link);
    r->used = false;
    s->metrics.clients_connected++;
    s->metrics.rejoins_pending--;
    s->metrics.rejoins_total++;
    SV_LOG(&s->log, SV_LOG_INFO, "client_rejoined", SV_LU("client", ss->client_id),
           SV_LU("entity", ss->entity_id), SV_LS("addr", ss->addr));
    sv_session_send_welcome(s, ss, (uint32_t)arb_game_get_tick(s->game));
    sv_migrate_player_arrived(s);  // the first player of a moved-in match commits the move
    return true;
  }
  return false;
}

static void expire_rejoins(sv_server* s, uint64_t now_ns) {
  for (int i = 0; i < s->cfg.max_clients; ++i) {
    sv_rejoin* r = &s->rejoins[i];
    if (!r->used || r->expires_ns >= now_ns) continue;
    release_hold(s, r, ARB_PROTO_REASON_TIMEOUT, "rejoin_expired");
  }
}

static void send_rejoin_token(sv_server* s, sv_session* ss, uint32_t tick) {
  if (s->cfg.rejoin_window_ms <= 0) return;
  uint8_t raw[16];
  randombytes_buf(raw, sizeof raw);
  char b64[32];
  sodium_bin2base64(b64, sizeof b64, raw, sizeof raw, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  snprintf(ss->rejoin_token, sizeof ss->rejoin_token, SV_REJOIN_PREFIX "%s", b64);
  arb_proto_event ev = session_event(ss, ARB_PROTO_EVENT_REJOIN, tick, ss->rejoin_token);
  send_event(s, ss, &ev);
}

// The connection is gone (`code` as an ENet DISCONNECT's data; PROTOCOL.md §1.2 maps a
// WebSocket end onto it): the session is freed.
static void session_gone(sv_server* s, sv_session* ss, uint32_t code) {
  // Lost (timeout, code 0) rather than ended by the client: keep the avatar for a while,
  // if it played (hold_for_rejoin). code 0: ENet gave up on a reliable command, or the
  // client closed without a reason. Any other code (PROTOCOL.md §4.5: a client that ends
  // the session itself says why) leaves at once.
  if (code == 0 && hold_for_rejoin(s, ss, sv_link_kind_name(&ss->link))) {
  } else if (ss->state == SV_SESSION_ACTIVE || ss->state == SV_SESSION_JOINING) {
    SV_LOG(&s->log, SV_LOG_INFO, "client_disconnected", SV_LU("client", ss->client_id),
           SV_LS("addr", ss->addr), SV_LU("snapshots_sent", ss->snapshots_sent));
  }
  release_slot(s, ss, ARB_PROTO_REASON_NONE);  // the client disconnected itself
  if (ss->snap_ready) sv_snap_client_free(&ss->snap);
  memset(ss, 0, sizeof *ss);
}

// The session's connection ended (reported by its transport, or reset by the session).
static void link_gone(sv_server* s, sv_session* ss, uint32_t code) {
  sv_link link = ss->link;
  switch (link.kind) {
    case SV_LINK_NONE:
      return;
    case SV_LINK_ENET:
      session_gone(s, ss, code);
      link.peer->data = NULL;
      s->metrics.peers_connected--;
      return;
    case SV_LINK_WS:
      session_gone(s, ss, code);
      return;
  }
}

static void on_disconnect(sv_server* s, ENetPeer* peer, uint32_t code) {
  sv_session* ss = session_of(s, peer);
  if (ss == NULL || ss->state == SV_SESSION_FREE) return;
  link_gone(s, ss, code);
}

// --auth-key: the hello's token must be valid, unexpired, for this server and unused.
static bool check_token(sv_server* s, sv_session* ss, const arb_proto_hello* h) {
  arb_token t;
  sv_auth_result r = sv_auth_check(&s->auth, h->token, h->token_len, (uint64_t)time(NULL), &t);
  if (r != SV_AUTH_OK) {
    s->metrics.tokens_rejected_total[r]++;
    reject(s, ss, ARB_PROTO_REASON_BAD_TOKEN, sv_auth_result_text(r));
    return false;
  }
  s->metrics.tokens_accepted_total++;
  ss->has_token = true;
  ss->token_client_id = t.client_id;
  SV_LOG(&s->log, SV_LOG_INFO, "token_accepted", SV_LS("addr", ss->addr),
         SV_LU("token_client", t.client_id), SV_LU("expires_at", t.expires_at));
  return true;
}

// A spectator is welcomed at once: no avatar, no join in the game or the replay log, and
// its own cap (--max-spectators) instead of a player slot. It sees the whole world.
static void admit_spectator(sv_server* s, sv_session* ss, const arb_proto_hello* h) {
  if (s->spectator_count >= s->cfg.max_spectators) {
    char text[64];
    snprintf(text, sizeof text, "spectators full (%d)", s->cfg.max_spectators);
    reject(s, ss, ARB_PROTO_REASON_FULL, text);
    return;
  }
  if (!ss->snap_ready) {
    if (sv_snap_client_init(&ss->snap, s->max_entities) != 0) {
      reject(s, ss, ARB_PROTO_REASON_OTHER, "server out of memory");
      return;
    }
    ss->snap_ready = true;
  }
  sv_snap_client_reset(&ss->snap, client_kbps(s, h));
  ss->client_id = s->next_client_id++;
  ss->entity_id = 0;
  ss->avatar_kind = ARB_AVATAR_DEFAULT;
  ss->spectator = true;
  snprintf(ss->name, sizeof ss->name, "%s", h->name);
  ss->state = SV_SESSION_ACTIVE;
  sv_link_set_greeted(&ss->link);
  s->spectator_count++;
  s->metrics.spectators_connected++;
  uint32_t tick = (uint32_t)arb_game_get_tick(s->game);
  SV_LOG(&s->log, SV_LOG_INFO, "spectator_joined", SV_LU("client", ss->client_id),
         SV_LS("addr", ss->addr), SV_LS("name", ss->name), SV_LU("tick", tick));
  sv_session_send_welcome(s, ss, tick);
}

static void on_hello(sv_server* s, sv_session* ss, const uint8_t* data, size_t len) {
  arb_proto_hello h;
  arb_proto_error perr;
  int rc = arb_proto_decode_hello(data, len, &h, &perr);
  if (rc == ARB_E_VERSION) {
    s->metrics.messages_rejected_total[SV_REJECT_VERSION]++;
    char text[96];
    snprintf(text, sizeof text, "protocol version %u not supported; server speaks %u", h.version,
             ARB_PROTO_VERSION);
    reject(s, ss, ARB_PROTO_REASON_VERSION, text);
    return;
  }
  // A client whose hello is refused is told why (PROTOCOL.md §8) instead of waiting for
  // the hello timeout: bad_name when the name is the problem, malformed otherwise.
  if (rc != 0) {
    s->metrics.messages_rejected_total[SV_REJECT_DECODE]++;
    bool name = strstr(perr.reason, "field 'name'") != NULL;
    reject(s, ss, name ? ARB_PROTO_REASON_BAD_NAME : ARB_PROTO_REASON_MALFORMED, perr.reason);
    return;
  }
  ss->no_scene = (h.flags & ARB_PROTO_HELLO_NO_SCENE) != 0;  // a client that does not predict
  bool spectate = h.avatar_kind == ARB_PROTO_SPECTATOR;
  if (h.avatar_kind >= ARB_AVATAR_KIND_COUNT && !spectate) {
    s->metrics.messages_rejected_total[SV_REJECT_UNEXPECTED]++;
    reject(s, ss, ARB_PROTO_REASON_MALFORMED, "hello: field 'avatar_kind': unknown avatar kind");
    return;
  }
  // A lost player coming back is not a new player: rejoining works while draining too.
  bool rejoin = h.token_len > strlen(SV_REJOIN_PREFIX) &&
                memcmp(h.token, SV_REJOIN_PREFIX, strlen(SV_REJOIN_PREFIX)) == 0;
  if (rejoin && try_rejoin(s, ss, &h)) return;
  if (!sv_lifecycle_accepting(s)) {
    reject(s, ss, ARB_PROTO_REASON_SHUTDOWN, "server draining: no new players");
    return;
  }
  if (rejoin && s->auth.enabled) {
    s->metrics.tokens_rejected_total[SV_AUTH_INVALID]++;
    reject(s, ss, ARB_PROTO_REASON_BAD_TOKEN, "rejoin token unknown or expired");
    return;
  }
  if (!rejoin && s->auth.enabled && !check_token(s, ss, &h)) return;
  if (spectate) {
    admit_spectator(s, ss, &h);
    return;
  }
  if (s->active_count >= s->cfg.max_clients) {
    reject(s, ss, ARB_PROTO_REASON_FULL, "server full");
    return;
  }
  int idx = (int)(ss - s->sessions);
  int kbps = client_kbps(s, &h);
  if (!ss->snap_ready) {
    if (sv_snap_client_init(&ss->snap, s->max_entities) != 0) {
      reject(s, ss, ARB_PROTO_REASON_OTHER, "server out of memory");
      return;
    }
    ss->snap_ready = true;
  }
  sv_snap_client_reset(&ss->snap, kbps);
  ss->client_id = s->next_client_id++;
  ss->avatar_kind = h.avatar_kind;
  snprintf(ss->name, sizeof ss->name, "%s", h.name);
  ss->state = SV_SESSION_JOINING;
  sv_link_set_greeted(&ss->link);
  s->active_count++;
  s->join_queue[s->join_count++] = idx;
  SV_LOG(&s->log, SV_LOG_DEBUG, "hello_accepted", SV_LU("client", ss->client_id),
         SV_LS("addr", ss->addr), SV_LS("name", ss->name));
}

static void on_input(sv_server* s, sv_session* ss, const uint8_t* data, size_t len) {
  arb_proto_input in;
  arb_proto_error perr;
  int rc = arb_proto_decode_input(data, len, &in, &perr);
  if (rc == ARB_E_NONFINITE) {
    strike(s, ss, SV_REJECT_NONFINITE, perr.reason);
    return;
  }
  if (rc != 0) {
    strike(s, ss, SV_REJECT_DECODE, perr.reason);
    return;
  }
  if (ss->snap_ready) sv_snap_client_ack(&ss->snap, in.ack_tick);
  if (ss->spectator) {  // nothing to control: the acknowledgement is all that counts
    if (in.count > 0) s->metrics.spectator_inputs_ignored_total++;
    return;
  }
  if (sv_input_offer(&ss->input, &in))
    s->metrics.inputs_applied_total++;
  else if (in.count > 0)
    s->metrics.inputs_dropped_total[SV_DROP_STALE]++;  // count 0: just an ack
}

static void on_ping(sv_server* s, sv_session* ss, const uint8_t* data, size_t len) {
  arb_proto_ping p;
  arb_proto_error perr;
  if (arb_proto_decode_ping(data, len, &p, &perr) != 0) {
    strike(s, ss, SV_REJECT_DECODE, perr.reason);
    return;
  }
  arb_proto_pong pong = {p.ping_id, p.client_time_us, (uint32_t)arb_game_get_tick(s->game),
                         uv_hrtime() / 1000u};
  uint8_t buf[64];
  int n = arb_proto_encode_pong(&pong, buf, sizeof buf);
  if (n > 0 && (size_t)n <= sizeof buf)
    sv_link_send(&ss->link, ARB_PROTO_CHANNEL_INPUT, buf, (size_t)n);
}

// The client's camera box: kept for its snapshots until changed or cleared. A bad one is
// a malformed message (a strike); the previous box stays.
static void on_view(sv_server* s, sv_session* ss, const uint8_t* data, size_t len) {
  arb_proto_view v;
  arb_proto_error perr;
  int rc = arb_proto_decode_view(data, len, &v, &perr);
  if (rc != 0) {
    strike(s, ss, rc == ARB_E_NONFINITE ? SV_REJECT_NONFINITE : SV_REJECT_DECODE, perr.reason);
    return;
  }
  ss->has_view = v.active;
  ss->view = (arb_aabb){v.min, v.max};
}

// The handler of every message clients send, generated from messages.def: a new
// client -> server message does not compile until its on_<name> exists.
typedef void sv_msg_handler(sv_server* s, sv_session* ss, const uint8_t* data, size_t len);
#define SV_HANDLER_TO_SERVER(name, code) [code] = on_##name,
#define SV_HANDLER_TO_CLIENT(name, code)
static sv_msg_handler* const handlers[ARB_PROTO_MSG_TYPE_COUNT] = {
#define ARB_PROTO_MSG(NAME, name, code, channel, direction) SV_HANDLER_##direction(name, code)
#include <arbiter/messages.def>
#undef ARB_PROTO_MSG
};

// One message from a client, whichever transport carried it.
static void on_receive(sv_server* s, sv_session* ss, const uint8_t* data, size_t len) {
  if (ss == NULL || ss->state == SV_SESSION_FREE || ss->state == SV_SESSION_CLOSING) return;
  ss->last_heard_ns = uv_hrtime();
  // Rate limits come first and cost no decoding; over-limit packets are dropped, not struck.
  sv_admit a = sv_input_admit(&ss->input, &s->limits, len, uv_hrtime());
  if (a != SV_ADMIT_OK) {
    s->metrics.inputs_dropped_total[a == SV_ADMIT_OVER_PACKETS ? SV_DROP_RATE_PACKETS
                                                               : SV_DROP_RATE_BYTES]++;
    return;
  }
  arb_proto_msg_type type;
  if (arb_proto_peek_type(data, len, &type) != 0) {
    strike(s, ss, SV_REJECT_DECODE, "not a protocol message");
    return;
  }
  // A hello opens a session and nothing else may come before it.
  bool expected = ss->state == SV_SESSION_AWAIT_HELLO
                      ? type == ARB_PROTO_MSG_HELLO
                      : type != ARB_PROTO_MSG_HELLO && handlers[type] != NULL;
  if (!expected) {
    strike(s, ss, SV_REJECT_UNEXPECTED,
           ss->state == SV_SESSION_AWAIT_HELLO ? "expected hello" : arb_proto_msg_name((int)type));
    return;
  }
  handlers[type](s, ss, data, len);
}

void sv_session_on_net_event(void* user, const ENetEvent* ev) {
  sv_server* s = user;
  switch (ev->type) {
    case ENET_EVENT_TYPE_CONNECT:
      on_connect(s, ev->peer);
      break;
    case ENET_EVENT_TYPE_DISCONNECT:
      on_disconnect(s, ev->peer, ev->data);
      break;
    case ENET_EVENT_TYPE_RECEIVE:
      on_receive(s, session_of(s, ev->peer), ev->packet->data, ev->packet->dataLength);
      break;
    default:
      break;
  }
}

// A client that has gone silent is gone: tell it (in case only its uplink died), free
// its connection at once, and let its avatar leave at the next tick.
static void drop_silent(sv_server* s, sv_session* ss) {
  char text[64];
  snprintf(text, sizeof text, "nothing received for %d ms", s->cfg.peer_timeout_ms);
  if (!hold_for_rejoin(s, ss, "silence")) sv_session_kick(s, ss, ARB_PROTO_REASON_TIMEOUT, text);
  sv_link_close_now(&ss->link, ARB_PROTO_REASON_TIMEOUT);  // no close event follows
  s->metrics.clients_timed_out_total++;
  link_gone(s, ss, ARB_PROTO_REASON_TIMEOUT);
}

// A closing session whose goodbye was not acknowledged within SV_CLOSE_GRACE_MS: reset its
// peer (one more DISCONNECT with the reason if ENet had not sent its own yet) and free the
// session the way ENet's DISCONNECT event would have; no such event follows a reset. The
// session released its player slot and avatar when it started closing.
static void close_now(sv_server* s, sv_session* ss) {
  uint8_t reason = ss->close_reason;
  sv_link_close_now(&ss->link, reason);
  s->metrics.closing_peers_reset_total++;
  SV_LOG(&s->log, SV_LOG_DEBUG, "peer_reset", SV_LU("client", ss->client_id),
         SV_LS("addr", ss->addr), SV_LS("reason", arb_proto_reason_name((arb_proto_reason)reason)));
  link_gone(s, ss, reason);
}

// Time from `then` to `now`, 0 when `then` is later: the tick reads the clock before its
// own service call, so a client connected or heard during that call has a later stamp.
static uint64_t elapsed_ns(uint64_t now_ns, uint64_t then_ns) {
  return now_ns > then_ns ? now_ns - then_ns : 0u;
}

void sv_session_check_timeouts(sv_server* s, uint64_t now_ns) {
  uint64_t hello_limit = (uint64_t)s->cfg.hello_timeout_ms * 1000000u;
  uint64_t silence_limit = (uint64_t)s->cfg.peer_timeout_ms * 1000000u;
  expire_rejoins(s, now_ns);
  for (int i = 0; i < s->session_count; ++i) {
    sv_session* ss = &s->sessions[i];
    if (ss->state == SV_SESSION_AWAIT_HELLO && elapsed_ns(now_ns, ss->connected_ns) > hello_limit) {
      char text[64];
      snprintf(text, sizeof text, "no hello within %d ms", s->cfg.hello_timeout_ms);
      sv_session_kick(s, ss, ARB_PROTO_REASON_TIMEOUT, text);
    } else if ((ss->state == SV_SESSION_ACTIVE || ss->state == SV_SESSION_JOINING) &&
               elapsed_ns(now_ns, ss->last_heard_ns) > silence_limit &&
               sv_link_silent_ms(&ss->link) * 1000000u > silence_limit) {
      drop_silent(s, ss);
    }
    // Not else: a session kicked just above is closing from now on.
    if (ss->state == SV_SESSION_CLOSING &&
        elapsed_ns(now_ns, ss->closing_ns) > (uint64_t)SV_CLOSE_GRACE_MS * 1000000u)
      close_now(s, ss);
  }
}

// The avatar's exact state at its join tick, kept for the scene message: with it and the
// scene text a predicting client builds the same world and starts its avatar exactly
// where the server has it, whenever the message gets its turn (sv_session_send_scenes).
static void note_scene(sv_server* s, sv_session* ss, uint32_t tick) {
  arb_entity e;
  if (arb_game_find_entity(s->game, ss->entity_id, &e) != ARB_OK) return;
  const arb_world* world = arb_game_get_world(s->game);
  arb_vec2 p = arb_body_get_position(world, e.body),
           v = arb_body_get_linear_velocity(world, e.body);
  float state[6] = {p.x, p.y, arb_body_get_angle(world, e.body),
                    v.x, v.y, arb_body_get_angular_velocity(world, e.body)};
  memcpy(ss->scene_avatar, state, sizeof state);
  ss->scene_tick = tick;
  ss->scene_state = SV_SCENE_PENDING;
}

static void send_scene(sv_server* s, sv_session* ss) {
  arb_proto_scene m;
  memset(&m, 0, sizeof m);
  size_t len = 0;
  m.text = arb_scene_get_text(s->scene, &len);
  m.text_len = (uint32_t)(len > ARB_PROTO_MAX_SCENE_TEXT ? 0 : len);  // too big: not sent
  m.tick = ss->scene_tick;
  m.scene_hash = arb_scene_get_hash(s->scene);
  const float* a = ss->scene_avatar;
  m.avatar_position = (arb_vec2){a[0], a[1]};
  m.avatar_angle = a[2];
  m.avatar_velocity = (arb_vec2){a[3], a[4]};
  m.avatar_angular_velocity = a[5];
  ss->scene_state = SV_SCENE_NONE;
  int n = arb_proto_encode_scene(&m, s->scene_buf, s->scene_buf_cap);
  if (n <= 0 || (size_t)n > s->scene_buf_cap) {
    // The client still plays, interpolated only; say why once.
    SV_LOG(&s->log, SV_LOG_WARN, "scene_not_sent", SV_LU("client", ss->client_id), SV_LI("rc", n));
    return;
  }
  if (sv_session_send_control(s, ss, s->scene_buf, (size_t)n) == 0) {
    ss->scene_state = SV_SCENE_SENDING;
    ss->scene_sent_ns = uv_hrtime();
  }
}

void sv_session_send_scenes(sv_server* s) {
  int sending = 0;
  uint64_t now = uv_hrtime();
  for (int i = 0; i < s->session_count; ++i) {
    sv_session* ss = &s->sessions[i];
    // Acknowledged, or on the way for so long that the client is too slow or never
    // acknowledges: ENet goes on delivering it, without holding a slot from the others.
    if (ss->scene_state == SV_SCENE_SENDING &&
        (sv_link_reliable_idle(&ss->link) || now - ss->scene_sent_ns > SV_SCENE_SLOT_NS))
      ss->scene_state = SV_SCENE_NONE;
    sending += ss->scene_state == SV_SCENE_SENDING;
  }
  for (int i = 0; i < s->session_count && sending < SV_SCENES_IN_FLIGHT; ++i) {
    sv_session* ss = &s->sessions[i];
    if (ss->state != SV_SESSION_ACTIVE || ss->scene_state != SV_SCENE_PENDING) continue;
    send_scene(s, ss);
    sending += ss->scene_state == SV_SCENE_SENDING;
  }
}

void sv_session_send_welcome(sv_server* s, sv_session* ss, uint32_t tick) {
  arb_proto_welcome w;
  memset(&w, 0, sizeof w);
  w.client_id = ss->client_id;
  w.entity_id = ss->entity_id;
  w.tick_rate = (uint16_t)s->tick_rate;
  w.snapshot_rate = (uint16_t)(s->tick_rate / s->snapshot_every);
  if (w.snapshot_rate == 0) w.snapshot_rate = 1;
  w.server_tick = tick;
  snprintf(w.scene_name, sizeof w.scene_name, "%s", arb_scene_get_name(s->scene));
  w.scene_hash = arb_scene_get_hash(s->scene);
  w.statics = s->statics;
  w.static_count = s->static_count;
  int n = arb_proto_encode_welcome(&w, s->msg_buf, s->msg_buf_cap);
  if (n <= 0 || (size_t)n > s->msg_buf_cap) {
    SV_LOG(&s->log, SV_LOG_ERROR, "welcome_encode_failed", SV_LI("rc", n));
    sv_session_kick(s, ss, ARB_PROTO_REASON_OTHER, "server could not encode the welcome");
    return;
  }
  sv_session_send_control(s, ss, s->msg_buf, (size_t)n);
  if (ss->spectator) return;  // no avatar to predict, hold or announce
  if (!ss->no_scene) note_scene(s, ss, tick);
  send_rejoin_token(s, ss, tick);
  // Tell the others; they learn the avatar's shape from their next snapshot.
  arb_proto_event ev = session_event(ss, ARB_PROTO_EVENT_JOINED, tick, ss->name);
  int en = arb_proto_encode_event(&ev, s->msg_buf, s->msg_buf_cap);
  if (en > 0 && (size_t)en <= s->msg_buf_cap) {
    for (int i = 0; i < s->session_count; ++i) {
      sv_session* o = &s->sessions[i];
      if (o != ss && o->state == SV_SESSION_ACTIVE)
        sv_session_send_control(s, o, s->msg_buf, (size_t)en);
    }
  }
}

// ---- the WebSocket transport's hooks (sv_ws.h) ------------------------------------------

// One more connection from `ip`: the same per-address budget as an ENet CONNECT (its ENet
// peers, WebSocket connections and rejoin holds; the holds give way to the newcomer).
static bool ws_admit(void* user, uint32_t ip) {
  sv_server* s = user;
  if (s->stopping) return false;
  int budget = s->cfg.peers_per_address;
  int peers = sv_net_peers_of(&s->net, ip) + sv_session_ws_count(s, ip);
  make_budget_room(s, ip, peers, 1);
  sv_rejoin* oldest = NULL;
  return budget <= 0 || peers + holds_of(s, ip, &oldest) + 1 <= budget;
}

static void ws_open(void* user, sv_ws_conn* c) {
  sv_server* s = user;
  sv_session* ss = ws_session(s, c);
  if (ss == NULL) return;
  open_session(s, ss, sv_link_ws(c), sv_ws_ip(c), sv_ws_addr(c));
  SV_LOG(&s->log, SV_LOG_DEBUG, "peer_connected", SV_LS("addr", ss->addr),
         SV_LS("transport", "ws"));
}

static void ws_message(void* user, sv_ws_conn* c, const uint8_t* data, size_t len) {
  sv_server* s = user;
  on_receive(s, ws_session(s, c), data, len);
}

static void ws_closed(void* user, sv_ws_conn* c, uint32_t code) {
  sv_server* s = user;
  sv_session* ss = ws_session(s, c);
  if (ss == NULL || ss->state == SV_SESSION_FREE) return;
  link_gone(s, ss, code);
}

const sv_ws_hooks sv_session_ws_hooks = {ws_admit, ws_open, ws_message, ws_closed, NULL};
