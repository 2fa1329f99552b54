// arbiter-view — internal interfaces between the viewer's files.
//
// Data flow, once per displayed frame:
//
//   source (live client | replay re-simulation | local scene sandbox)
//      └─ fills a view_frame: plain drawable things in world coordinates (metres)
//   camera (follows the frame's focus, or free) ─ world → screen
//   render (shapes, links, particles, wheels, debug layers) + overlays (text, graph)
//   optional screenshot (SDL_RenderReadPixels → PNG)
//
// The frame is rebuilt every displayed frame and never feeds back into a simulation, so
// drawing can not disturb determinism. Arrays in the frame grow once and are reused.
#pragma once

#include <SDL.h>
#include <arbiter/world.h>

#include "view_palette.h"

// ---- the drawable frame ---------------------------------------------------------------

typedef enum view_role {
  VIEW_ROLE_WORLD = 0,  ///< dynamic or kinematic body owned by the world
  VIEW_ROLE_STATIC,     ///< static geometry
  VIEW_ROLE_OWN,        ///< the player's own avatar (in a replay: the followed one)
  VIEW_ROLE_OTHER,      ///< any other player's avatar
} view_role;

typedef arb_shape_geometry view_shape;  ///< ARB_SHAPE_NONE: unknown shape, drawn as a small marker

typedef struct view_body {
  uint32_t id;  ///< entity id (live) or 1-based body slot order (local worlds)
  view_role role;
  bool sensor;        ///< a sensor (trigger zone): drawn as an outline (local worlds only:
                      ///< the wire does not say)
  view_shape shape;   ///< in the body frame
  arb_transform xf;   ///< interpolated (live) or simulated (local) pose
  arb_vec2 velocity;  ///< m/s, valid when has_velocity
  bool has_velocity;
  arb_transform ghost;  ///< raw newest snapshot pose, valid when has_ghost (live only)
  bool has_ghost;
  arb_vec2 correction;  ///< own predicted avatar: drawn − simulated, fading (live only)
  bool has_correction;
} view_body;

typedef enum view_link_kind {
  VIEW_LINK_ROD = 0,     ///< rigid or soft distance joint
  VIEW_LINK_SPRING,      ///< drawn as a zig-zag
  VIEW_LINK_PIN,         ///< revolute joint: a small ring at the anchor (a == b)
  VIEW_LINK_CONSTRAINT,  ///< Verlet particle distance constraint
  VIEW_LINK_SLIDER,      ///< prismatic or wheel joint: the axis through a, a rod to b
  VIEW_LINK_WELD,        ///< weld joint: a small square at the anchor
  VIEW_LINK_TARGET,      ///< motor or mouse joint: a thin line from a to a cross at b
} view_link_kind;

typedef struct view_link {
  arb_vec2 a, b;
  arb_vec2 axis;  ///< VIEW_LINK_SLIDER: unit axis in world axes
  view_link_kind kind;
} view_link;

typedef struct view_particle {
  arb_vec2 p;
  float radius;  ///< metres (0: drawn as a dot)
  bool pinned;
} view_particle;

/// A vehicle wheel seen from above: a small rectangle.
typedef struct view_wheel {
  arb_vec2 center;
  arb_rot rot;        ///< chassis rotation times steering
  float half_length;  ///< along the rolling direction
  float half_width;
} view_wheel;

typedef struct view_contact {
  arb_vec2 point;
  arb_vec2 normal;
} view_contact;

typedef struct view_frame {
  view_body* bodies;
  int body_count, body_cap;
  view_link* links;
  int link_count, link_cap;
  view_particle* particles;
  int particle_count, particle_cap;
  view_wheel* wheels;
  int wheel_count, wheel_cap;
  view_contact* contacts;
  int contact_count, contact_cap;
  arb_aabb bounds;  ///< extent of static geometry (or of everything), for the camera
  bool has_bounds;
  arb_vec2 focus;  ///< own avatar position, followed by the camera
  bool has_focus;
  void* scratch;  ///< grow-only work space of the frame builders
  int scratch_cap;
} view_frame;

void view_frame_clear(view_frame* f);  ///< counts to zero, keeps the arrays
void view_frame_free(view_frame* f);
/// Append slots; return NULL when memory runs out (the item is then not drawn).
view_body* view_frame_add_body(view_frame* f);
/// Another shape of a compound body: a copy of `whole` (pose, role, ghost...) with that
/// shape. False when the frame is full.
bool view_frame_add_part(view_frame* f, const view_body* whole, view_shape shape, bool sensor);
view_link* view_frame_add_link(view_frame* f);
view_particle* view_frame_add_particle(view_frame* f);
view_wheel* view_frame_add_wheel(view_frame* f);
view_contact* view_frame_add_contact(view_frame* f);
/// Bounding box of a shape placed at xf.
arb_aabb view_shape_aabb(const view_shape* s, arb_transform xf);
/// Recompute f->bounds from the static bodies (or from all bodies when there are none).
void view_frame_compute_bounds(view_frame* f);

// ---- camera ---------------------------------------------------------------------------

typedef struct view_camera {
  arb_vec2 center;    ///< world point at the middle of the window
  float zoom;         ///< pixels per metre
  float fit_zoom;     ///< the zoom that shows the whole of the bounds
  bool free;          ///< true: the user pans; false: follow the focus
  bool fitted;        ///< fit_zoom computed from real bounds
  int width, height;  ///< window size in pixels
} view_camera;

void view_camera_init(view_camera* c, int width, int height);
/// Follow the focus (clamped so the view stays on the bounds when it can), fit once.
void view_camera_update(view_camera* c, const view_frame* f, float dt);
/// Zoom by factor keeping the world point under (sx, sy) in place.
void view_camera_zoom_at(view_camera* c, float factor, float sx, float sy);
void view_camera_pan_pixels(view_camera* c, float dx, float dy);
void view_camera_reset(view_camera* c);
SDL_FPoint view_camera_to_screen(const view_camera* c, arb_vec2 p);
arb_vec2 view_camera_to_world(const view_camera* c, float sx, float sy);

// ---- rendering ------------------------------------------------------------------------

typedef struct view_debug {
  bool aabbs;
  bool contacts;
  bool velocities;
  bool ghosts;
  bool corrections;
  bool grid;
} view_debug;

void view_set_rgb(SDL_Renderer* r, uint32_t rgb, uint8_t alpha);
void view_draw_circle(SDL_Renderer* r, const view_camera* c, arb_vec2 center, float radius,
                      uint32_t fill, uint32_t edge, bool filled);
void view_draw_polygon(SDL_Renderer* r, const view_camera* c, const arb_vec2* pts, int n,
                       uint32_t fill, uint32_t edge, bool filled);
void view_draw_segment(SDL_Renderer* r, const view_camera* c, arb_vec2 a, arb_vec2 b, uint32_t rgb);
void view_draw_arrow(SDL_Renderer* r, const view_camera* c, arb_vec2 from, arb_vec2 to,
                     uint32_t rgb);
/// Filled screen-space rectangle; alpha < 255 blends.
void view_fill_rect(SDL_Renderer* r, int x, int y, int w, int h, uint32_t rgb, uint8_t alpha);
void view_render_frame(SDL_Renderer* r, const view_camera* c, const view_frame* f,
                       const view_debug* d);

// ---- text -----------------------------------------------------------------------------

#define VIEW_GLYPH_COLS 5
#define VIEW_GLYPH_ROWS 7
#define VIEW_FONT_SCALE 2
#define VIEW_CHAR_W ((VIEW_GLYPH_COLS + 1) * VIEW_FONT_SCALE)  ///< advance, pixels
#define VIEW_LINE_H ((VIEW_GLYPH_ROWS + 3) * VIEW_FONT_SCALE)  ///< line height, pixels

typedef struct view_font {
  SDL_Texture* atlas;  ///< every glyph side by side, white on transparent
} view_font;

int view_font_init(view_font* font, SDL_Renderer* r);
void view_font_free(view_font* font);
/// Draw one line (no wrapping; '\n' starts a new line). Returns the width in pixels.
int view_text(const view_font* font, SDL_Renderer* r, int x, int y, uint32_t rgb, const char* s);
int view_textf(const view_font* font, SDL_Renderer* r, int x, int y, uint32_t rgb, const char* fmt,
               ...) __attribute__((format(printf, 6, 7)));
/// Pixel width of a string (longest line).
int view_text_width(const char* s);
/// Is a glyph (bit) set? For tests and the atlas builder; ch outside 32..126 draws '?'.
bool view_font_pixel(int ch, int col, int row);

// ---- overlays -------------------------------------------------------------------------

/// Network figures shown by the stats overlay (live mode); all optional.
typedef struct view_stats {
  bool valid;
  float rtt_ms;
  float loss_pct;
  float snapshots_per_s;
  float kbps_in, kbps_out;
  float interp_delay_ms;
  float extrapolation_ms;
  float jitter_ms;  ///< newest snapshot arrival jitter (deviation from the mean interval)
  int buffer_depth;
  int entity_count;
  uint64_t server_tick;
} view_stats;

#define VIEW_GRAPH_LEN 200

/// Rolling history for the stats graph (one sample per displayed frame).
typedef struct view_graph {
  float jitter_ms[VIEW_GRAPH_LEN];
  float delay_ms[VIEW_GRAPH_LEN];
  int head;   ///< next write position
  int count;  ///< samples held, <= VIEW_GRAPH_LEN
} view_graph;

void view_graph_push(view_graph* g, float jitter_ms, float delay_ms);

typedef struct view_text_lines {
  char line[12][96];
  uint32_t rgb[12];
  int count;
} view_text_lines;

void view_lines_add(view_text_lines* t, uint32_t rgb, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

void view_overlay_stats(SDL_Renderer* r, const view_font* font, const view_stats* s,
                        const view_graph* g, int x, int y);
/// The F1 help: every key of the current mode.
void view_overlay_help(SDL_Renderer* r, const view_font* font, int width, int height,
                       const char* const* lines);
/// A centred box with a title and lines (connection problems, errors).
void view_overlay_message(SDL_Renderer* r, const view_font* font, int width, int height,
                          const view_text_lines* t);
/// Lines in a box at the top-left corner (mode, tick, hints).
/// Returns the box drawn (w = h = 0 when there were no lines).
SDL_Rect view_overlay_status(SDL_Renderer* r, const view_font* font, int x, int y,
                             const view_text_lines* t);
/// Width in pixels of the stats panel.
int view_overlay_stats_width(void);

// ---- input ----------------------------------------------------------------------------

#include <arbiter/controls.h>

/// Map the keyboard state to controls for the avatar kind. aim: radians or 0.
void view_input_controls(const Uint8* keys, arb_avatar_kind kind, float aim, arb_controls* out);

// ---- PNG ------------------------------------------------------------------------------

/// Write 8-bit RGB pixels as a PNG file (zlib deflate). Returns 0 or ARB_E_*; on error
/// `err` gets a message naming the file and the reason.
int view_png_write(const char* path, const uint8_t* rgb, int width, int height, int stride,
                   char* err, size_t err_cap);

// ---- world → frame (replay and sandbox) -----------------------------------------------

typedef struct arb_game arb_game;

/// Fill a frame from a game's world: every body, avatars coloured by owner (own_client
/// gets VIEW_ROLE_OWN; 0 = nobody), contacts when want_contacts.
void view_frame_from_game(view_frame* f, arb_game* game, uint32_t own_client, bool want_contacts);
/// Append the world's Verlet particles, their constraints and vehicle wheels.
void view_frame_add_extras(view_frame* f, const arb_world* w);
/// How a joint of this type (arb_joint_type) is drawn; live and local frames share it.
view_link_kind view_joint_link_kind(int joint_type);
/// Append a wheel seen from above (as long as the tyre's diameter, 0.8 radius wide).
void view_frame_put_wheel(view_frame* f, arb_transform xf, float radius);
/// Lowest client id owning an entity (the avatar a replay follows by default), 0 = none.
uint32_t view_game_first_owner(const arb_game* game, view_frame* f);
