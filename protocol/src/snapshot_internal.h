// Internal: the bit layout of the snapshot stream (PROTOCOL.md §6),
// shared by the message codec and the builder (which sizes records before packing them).
#pragma once

#include <arbiter/bitstream.h>
#include <arbiter/snapshot.h>

/// Which state groups (ARB_SNAPSHOT_M_*) an entity class carries.
unsigned arb__snapshot_class_fields(uint8_t cls);
/// s with the fields its class does not carry set to zero (what an enter record holds).
arb_snapshot_state arb__snapshot_class_state(const arb_snapshot_state* s, uint8_t cls);
/// Exact bits of one record written after a record with id `prev_id` (0 for the first),
/// when `named` descriptions were introduced before it in the part.
int arb__snapshot_record_bits(const arb_snapshot_record* r, uint32_t prev_id, int named);
/// The same bits in three parts, for a search that sizes one record many times: always
/// arb__snapshot_record_bits(r, prev_id, named) == arb__snapshot_gap_bits(r->id, prev_id) +
/// arb__snapshot_fixed_bits(r) + arb__snapshot_desc_ref_bits(r, named).
int arb__snapshot_gap_bits(uint32_t id, uint32_t prev_id);
/// Bits of the record but its gap and its description reference (so an enter's does not
/// depend on r->desc).
int arb__snapshot_fixed_bits(const arb_snapshot_record* r);
/// Bits of an enter record's description reference after `named` descriptions (0 for
/// other records).
int arb__snapshot_desc_ref_bits(const arb_snapshot_record* r, int named);
/// Write the record stream (count, then records). Returns 0 or ARB_E_* (invalid record).
int arb__snapshot_write_stream(arb_bit_writer* w, const arb_snapshot_record* recs, int count);
/// Read it; checks ids increase and the padding is zero. 0 or ARB_E_* with a reason.
int arb__snapshot_read_stream(arb_bit_reader* r, arb_snapshot_part* out, arb_proto_error* err);
/// Bits of the stream's record count field.
int arb__snapshot_count_bits(int count);
/// The msgpack encoding of a description (buf may be NULL to size it): bytes needed, or
/// ARB_E_* when it breaks the spec.
int arb__snapshot_desc_encode(const arb_snapshot_desc* d, uint8_t* buf, size_t cap);
/// arb_snapshot_eval written to *out (the builder's form: no state copied through the stack).
void arb__snapshot_eval_into(arb_snapshot_state* out, const arb_snapshot_state* s, uint8_t cls,
                             uint32_t tick, const arb_snapshot_header* h);
/// The velocity arb__snapshot_eval_into gives a body or particle whose flags are
/// ballistic alone (gravity applied, not pinned), without evaluating the rest.
void arb__snapshot_gravity_velocity(const arb_snapshot_state* s, uint32_t tick,
                                    const arb_snapshot_header* h, int32_t* vx, int32_t* vy);
/// Add an update record's residuals to a state (wrapping, as the client does).
void arb__snapshot_apply_update(arb_snapshot_state* s, const arb_snapshot_record* r);
/// The builder's sort of candidate keys (tmp: n more; snapshot_keys.c): ascending, for keys
/// whose low 24 bits are distinct (a candidate index, ARB_PROTO_MAX_ENTITIES * 2 of them at
/// most), given in increasing order of those bits when n > ARB__SNAPSHOT_KEY_MERGE_MAX.
void arb__snapshot_sort_keys(uint64_t* keys, uint64_t* tmp, int n);
/// Up to this many keys arb__snapshot_sort_keys merges (any order given); more, a radix sort.
#define ARB__SNAPSHOT_KEY_MERGE_MAX 1024
/// Moves the p smallest of keys[0..n) (distinct) to keys[0..p), in no particular order.
void arb__snapshot_select_smallest(uint64_t* keys, int n, int p);
/// 1: the builder diffs every entity of the baseline and the view, as if none were
/// unchanged, keeps no prediction from one build to the next, and orders every candidate
/// and tries every size in its search for what fits (tests compare its packets with the
/// normal build's, which must be equal).
void arb__snapshot_builder_full_diff(arb_snapshot_builder* b, int on);
