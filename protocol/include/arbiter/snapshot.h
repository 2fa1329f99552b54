// arbiter — the snapshot stream: the state of every drawable thing (bodies, particles,
// links, vehicle wheels) as a bit-packed delta against the client's acknowledged baseline,
// carried in a msgpack `bin` inside the `snapshot` message. PROTOCOL.md §6 specifies
// every bit; this header is its C binding.
//
// The idea (after Fiedler's snapshot compression): both sides predict every baseline
// entity forward to the new tick with the same integer formula (position + velocity·Δt,
// plus gravity·Δt²/2 for entities flagged ballistic), so an entity that moves as predicted
// -- at rest, sliding steadily, or flying -- costs nothing. Only entities whose state left
// the prediction, entered or left are written, by id gap (relative index), with small
// residuals in small buckets. Descriptions (shapes, link endpoints, wheel mounts) travel
// once, with the entity's `enter` record, as msgpack.
//
// Nothing here allocates except arb_snapshot_builder_create.
#pragma once

#include <arbiter/base.h>
#include <arbiter/protocol.h>

ARB_C_BEGIN

#define ARB_SNAPSHOT_MAX_SHAPES 8           ///< shapes per body description
#define ARB_SNAPSHOT_MAX_PART_ENTERED 128   ///< descriptions (enter records) per part
#define ARB_SNAPSHOT_MAX_PART_RECORDS 4096  ///< records per part
#define ARB_SNAPSHOT_MAX_DT 4096            ///< ticks between baseline and tick
#define ARB_SNAPSHOT_MAX_GRAVITY 256000     ///< |gravity| component, 1/256 m/s^2 (1000 m/s^2)

/// What kind of thing an entity is; decides which state fields exist.
typedef enum arb_snapshot_class {
  ARB_SNAPSHOT_BODY = 1,      ///< x, y, angle, vx, vy, w; flag ballistic
  ARB_SNAPSHOT_PARTICLE = 2,  ///< x, y, vx, vy; flags ballistic, pinned
  ARB_SNAPSHOT_LINK = 3,      ///< no state: drawn between two other entities (joint, spring, rope)
  ARB_SNAPSHOT_WHEEL = 4,     ///< angle = spin, w = spin rate, aux = steer angle; flag skid
} arb_snapshot_class;

/// Flags of an entity state.
#define ARB_SNAPSHOT_FLAG_BALLISTIC 1u  ///< prediction includes gravity
#define ARB_SNAPSHOT_FLAG_PINNED 2u     ///< particle held in place
#define ARB_SNAPSHOT_FLAG_SKID 4u       ///< wheel skidding
#define ARB_SNAPSHOT_FLAGS_ALL 7u

/// Quantized state (PROTOCOL.md §6.2): position 1/128 m, velocity 1/256 m/s,
/// angles 1/65536 turn, angular velocity 1/65536 turn per second. In a view the state is
/// an *origin*: its values at tick t0, from which both sides evaluate it at any later tick
/// (arb_snapshot_eval). Evaluating from one origin instead of from the previous evaluation
/// keeps rounding from accumulating while an entity moves as predicted.
typedef struct arb_snapshot_state {
  int32_t x, y;
  int32_t vx, vy;
  int32_t w;
  uint16_t angle;
  uint16_t aux;
  uint8_t flags;
  uint32_t t0;  ///< tick of the origin (not on the wire: the tick of the record that set it)
} arb_snapshot_state;

/// Angular velocity quantization (turn fractions per second, round half away):
/// units per rad/s (32768 / pi, the angle quantization's steps per radian).
#define ARB_SNAPSHOT_ANGVEL_SCALE 10430.378350470453
ARB_API int32_t arb_snapshot_quantize_angvel(float radians_per_second);
ARB_API float arb_snapshot_dequantize_angvel(int32_t q);

/// Link kinds (arb_snapshot_desc.link_kind).
typedef enum arb_snapshot_link_kind {
  ARB_SNAPSHOT_LINK_ROPE = 1,    ///< particle constraint (rope, cloth, soft body)
  ARB_SNAPSHOT_LINK_SPRING = 2,  ///< spring between two bodies
  ARB_SNAPSHOT_LINK_JOINT = 3,   ///< joint between two bodies; `joint_type` says which
} arb_snapshot_link_kind;

/// What a client needs to draw an entity, sent with its enter record.
typedef struct arb_snapshot_desc {
  uint8_t cls;  ///< arb_snapshot_class
  // body
  uint8_t body_type, avatar_kind;
  uint32_t owner;
  uint8_t shape_count;  ///< 1..ARB_SNAPSHOT_MAX_SHAPES
  arb_proto_shape shapes[ARB_SNAPSHOT_MAX_SHAPES];
  // particle
  float radius;  ///< wheel radius (> 0) or particle radius (>= 0; 0 = a point), meters
  // link
  uint8_t link_kind, joint_type;
  uint32_t a, b;                ///< link: the entities it joins; wheel: a = vehicle body
  arb_vec2 anchor_a, anchor_b;  ///< local anchors (wheel: anchor_a = mount point)
} arb_snapshot_desc;

/// One part's header (the msgpack fields before the descriptions and the stream).
typedef struct arb_snapshot_header {
  uint32_t tick;           ///< > 0
  uint32_t baseline_tick;  ///< 0 = full; else tick - ARB_SNAPSHOT_MAX_DT <= baseline < tick
  uint32_t last_input_seq;
  uint8_t part_index, part_count;
  uint16_t tick_rate;            ///< 1..1000, for the prediction's Δt
  int32_t gravity_x, gravity_y;  ///< 1/256 m/s^2, |v| <= ARB_SNAPSHOT_MAX_GRAVITY
} arb_snapshot_header;

/// Record operations.
typedef enum arb_snapshot_op {
  ARB_SNAPSHOT_UPDATE = 0,
  ARB_SNAPSHOT_ENTER = 1,
  ARB_SNAPSHOT_REMOVE = 2
} arb_snapshot_op;

/// Update mask bits: which groups differ from the prediction.
#define ARB_SNAPSHOT_M_POS 1u     ///< x, y
#define ARB_SNAPSHOT_M_ANGLE 2u   ///< angle
#define ARB_SNAPSHOT_M_VEL 4u     ///< vx, vy
#define ARB_SNAPSHOT_M_ANGVEL 8u  ///< w
#define ARB_SNAPSHOT_M_AUX 16u    ///< aux
#define ARB_SNAPSHOT_M_FLAGS 32u  ///< flags
#define ARB_SNAPSHOT_M_ALL 63u

/// One record. UPDATE: `v` holds residuals (new - evaluated at the part's tick; angles mod
/// 65536) for the groups in `mask`, zero elsewhere; applying it makes the corrected state
/// at the part's tick the entity's new origin. ENTER: `v` is the absolute state, `desc` its
/// description index in the part. REMOVE: nothing else.
typedef struct arb_snapshot_record {
  uint32_t id;
  uint8_t op, cls, mask;
  uint8_t
      desc;  ///< ENTER: index in the part's descs; a new one (the next unused) or one already named
  arb_snapshot_state v;
} arb_snapshot_record;

/// A decoded part. Large (~200 KiB): keep one per client or decoder, not on the stack.
typedef struct arb_snapshot_part {
  arb_snapshot_header h;
  int desc_count;  ///< descriptions, in the order enter records first name them (identical ones
                   ///< shared)
  arb_snapshot_desc descs[ARB_SNAPSHOT_MAX_PART_ENTERED];
  int record_count;
  arb_snapshot_record records[ARB_SNAPSHOT_MAX_PART_RECORDS];
} arb_snapshot_part;

/// The codec of a part is the `snapshot` message's: arb_proto_encode_snapshot (record ids
/// strictly increasing; bytes needed, or a negative ARB_E_* when the part breaks the spec)
/// and arb_proto_decode_snapshot (bounded and total), declared in arbiter/protocol.h with
/// arb_proto_snapshot = arb_snapshot_part.

// ---- views ------------------------------------------------------------------------------

/// One entity of a view. desc_version is server bookkeeping (not on the wire).
typedef struct arb_snapshot_entity {
  uint32_t id;
  uint8_t cls;
  uint32_t desc_version;
  arb_snapshot_state s;
} arb_snapshot_entity;

/// Entities by strictly increasing id, caller-owned storage.
typedef struct arb_snapshot_set {
  arb_snapshot_entity* items;
  int count, cap;
} arb_snapshot_set;

ARB_API const arb_snapshot_entity* arb_snapshot_set_find(const arb_snapshot_set* set, uint32_t id);
/// The state both sides predict for `base` after dt ticks (integer formula of the spec).
ARB_API arb_snapshot_state arb_snapshot_predict(const arb_snapshot_state* base, uint8_t cls,
                                                uint32_t dt, uint16_t tick_rate, int32_t gravity_x,
                                                int32_t gravity_y);
/// Longest prediction: ticks since the origin are clamped to this.
#define ARB_SNAPSHOT_MAX_AGE 65535
/// An origin-form state evaluated at `tick` with the part header's rate and gravity
/// (predict over tick - t0, clamped to [0, ARB_SNAPSHOT_MAX_AGE]); the result's t0 is tick.
ARB_API arb_snapshot_state arb_snapshot_eval(const arb_snapshot_state* s, uint8_t cls,
                                             uint32_t tick, const arb_snapshot_header* h);
/// dst = src (a tick's work view starts as a copy of its baseline; empty when the part is
/// a full snapshot). ARB_E_NOSPACE when dst is too small.
ARB_API int arb_snapshot_set_copy(arb_snapshot_set* dst, const arb_snapshot_set* src);
/// Apply a decoded part's records to the work view of its tick. Either all records apply
/// or the view is unchanged and an error names the record (update/remove of an id the
/// view lacks, an update of a field the entity's class does not have, no room).
ARB_API int arb_snapshot_set_apply(arb_snapshot_set* view, const arb_snapshot_part* part,
                                   arb_proto_error* err);

ARB_C_END

ARB_C_BEGIN

// ---- builder (server side) -----------------------------------------------------------------

/// How far the client's predicted state may drift from the true quantized state before a
/// correction is sent, per group, in wire units. All zero = the client always holds the
/// exact quantized state. The error a client sees is at most tolerance + half a unit.
typedef struct arb_snapshot_tolerance {
  int32_t pos;     ///< 1/128 m
  int32_t angle;   ///< 1/65536 turn
  int32_t vel;     ///< 1/256 m/s
  int32_t angvel;  ///< 1/65536 turn per second
} arb_snapshot_tolerance;

/// pos 1 (error <= 11.7 mm), angle 16 (<= 1.6 mrad), vel 1 (3.9 mm/s), angvel 32 (3.1 mrad/s).
ARB_API arb_snapshot_tolerance arb_snapshot_default_tolerance(void);

/// Fills the description of an entity entering a client's view. 0 or a negative ARB_E_*.
typedef int arb_snapshot_describe_fn(void* user, uint32_t id, arb_snapshot_desc* desc);

/// Error (meters) of an entity the client does not draw at all, for ordering.
#define ARB_SNAPSHOT_ABSENT_ERROR 30.0f
/// Meters of error one unit of accumulated priority counts as (the age term).
#define ARB_SNAPSHOT_AGE_RATE 0.05f

typedef struct arb_snapshot_build_args {
  arb_snapshot_header h;             ///< tick, baseline_tick, last_input_seq, tick_rate, gravity
  const arb_snapshot_set* baseline;  ///< the view sent for h.baseline_tick (ignored when 0)
  const arb_snapshot_set* current;   ///< true quantized state of what this client should see
  /// NULL, or one value per current item: higher goes first when the budget is short.
  /// Removals go first, then entities entering the client's view, then corrections;
  /// ties and NULL: id order.
  const float* priority;
  arb_snapshot_describe_fn* describe;
  void* describe_user;
  arb_snapshot_tolerance tol;
  /// NULL, or what the client draws (arbiter/snapshot_drawn.h; the server's model of it,
  /// sorted by id). Entities drawn wrong are ordered by how wrong (below); one drawn within
  /// the tolerances whose baseline prediction is off (a sibling snapshot corrected it) is
  /// written only after all of them, where the budget has room, and counts as up to date.
  /// Without it every entity whose baseline prediction is off is a candidate, ordered by
  /// `priority`.
  const arb_snapshot_set* drawn;
  /// With drawn: NULL (all 1) or one weight per current item (its relevance, e.g.
  /// arb_snapshot_weight). Candidates go by weight x the client's position error in meters
  /// (ARB_SNAPSHOT_ABSENT_ERROR when it draws nothing) + ARB_SNAPSHOT_AGE_RATE x priority, so
  /// the nearest worst-drawn go first and a waiting one's accumulator keeps it from
  /// starving. Entering entities' bytes are held to half of what is sent while
  /// corrections wait (descriptions are spread over snapshots, nearest first).
  const float* weight;
  /// NULL, or instead of `priority` and `weight`: fills current item j's priority and
  /// weight when the builder needs them: for the items that differ from the baseline or
  /// from what the client draws (every item it reports not up to date is one), by
  /// increasing j. Items held exactly as they are in both are never asked about, so a
  /// caller computes priorities only for what changed.
  void (*rank)(void* user, int j, float* priority, float* weight);
  void* rank_user;
  /// 0, or an entity held with zero tolerance: the client's own avatar, whose prediction
  /// the client checks against the exact quantized state.
  uint32_t exact_id;
  int byte_budget;      ///< bytes for this snapshot, 0 = none (max_parts still bounds it)
  int packet_overhead;  ///< bytes counted per packet on top of its payload (UDP/IP + ENet headers)
  int max_parts;        ///< 1..ARB_PROTO_MAX_PARTS, 0 = the maximum
  /// Out: the view the client holds after all parts; store it per tick as the baseline for
  /// when the client acks it. cap >= current->count + baseline->count.
  arb_snapshot_set* sent;
  /// Optional out, one per current item: 1 when the acknowledged baseline already holds it
  /// within the tolerances (nothing to write), 0 when a record was written or deferred.
  /// A written record is not acknowledged yet: until it is, every snapshot must carry it
  /// again or the client's view of that tick falls back to the old prediction, so its
  /// priority keeps growing. Lets a caller reset priorities.
  uint8_t* up_to_date;
  /// Optional out: the indexes of the current items that are not up to date (0 in
  /// up_to_date), increasing, and their count in the result's stale_count; room for
  /// current->count. A few per snapshot where most of the view is at rest, so a caller
  /// keeps priorities without reading a flag per item.
  int* stale;
  /// Bit (1u << class) set: describe() gives the same description for an (id,
  /// desc_version) of that class for as long as the builder lives, so the builder keeps
  /// those descriptions (and their encoded sizes) from one build to the next instead of
  /// asking again for every entering entity of every client. 0: all asked once per build.
  unsigned stable_classes;
} arb_snapshot_build_args;

typedef struct arb_snapshot_build_result {
  int packet_count;  ///< >= 1
  const uint8_t* packets[ARB_PROTO_MAX_PARTS];
  int sizes[ARB_PROTO_MAX_PARTS];
  int bytes;  ///< sum of sizes
  int entered, updated, removed;
  int deferred;     ///< records left for a later snapshot (budget or max_parts)
  int stale_count;  ///< indexes written to arb_snapshot_build_args.stale
} arb_snapshot_build_result;

typedef struct arb_snapshot_builder arb_snapshot_builder;

/// payload_limit: bytes per packet (0 = ARB_PROTO_DEFAULT_PAYLOAD); max_entities: the
/// largest baseline/current set. Allocates everything here; builds never allocate.
ARB_API int arb_snapshot_builder_create(int payload_limit, int max_entities,
                                        arb_snapshot_builder** out);
ARB_API void arb_snapshot_builder_destroy(arb_snapshot_builder* b);
ARB_API int arb_snapshot_build(arb_snapshot_builder* b, const arb_snapshot_build_args* a,
                               arb_snapshot_build_result* out);

ARB_C_END
