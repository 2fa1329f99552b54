// The sender's side of a move after the receiver's "ok" (the protocol is in sv_migrate.h):
// the match stays paused until the receiver reports the first arrival ("arrived": commit)
// or SV_MIG_ARRIVE_MS pass without one ("cancel", then "cancelled" or the end of the
// connection: the match resumes here).
#pragma once

struct sv_server;

/// "ok" read, clients told: watch the connection (mig.fd) and start the arrival window.
void sv_mig_settle_start(struct sv_server* s);
/// The move did not happen: the match goes on here, or (a drain that tried to move first)
/// the server stops as it would have without the move.
void sv_mig_resume(struct sv_server* s);
/// The server is stopping: a move still waiting for its first arrival is committed (the
/// match is safer on the receiver, where the clients are going, than nowhere); close the
/// connection and the timer's work.
void sv_mig_settle_close(struct sv_server* s);
