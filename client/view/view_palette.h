// arbiter-view — the colour palette. One place, because the gui test checks that these
// exact colours appear in screenshots (fills are drawn opaque and without anti-aliasing,
// so a fill colour shows up in the PNG bit for bit).
#pragma once

#define VIEW_RGB_BACKGROUND 0x181b22u   ///< clear colour
#define VIEW_RGB_GRID 0x22262fu         ///< 1 m grid lines
#define VIEW_RGB_STATIC 0x7c808cu       ///< fill of static geometry
#define VIEW_RGB_STATIC_EDGE 0xb4b8c4u  ///< outline of static geometry and segments
#define VIEW_RGB_WORLD 0x3f7fd0u        ///< fill of dynamic and kinematic world bodies
#define VIEW_RGB_WORLD_EDGE 0x9cc4f4u   ///< outline of world bodies
#define VIEW_RGB_OWN 0x38d860u          ///< fill of the player's own (or followed) avatar
#define VIEW_RGB_OWN_EDGE 0xc0ffd0u
#define VIEW_RGB_OTHER 0xe05a48u  ///< fill of other players' avatars
#define VIEW_RGB_OTHER_EDGE 0xffc4b8u
#define VIEW_RGB_SENSOR 0x40c8b0u      ///< outline of sensors (trigger zones)
#define VIEW_RGB_PARTICLE 0xf0d060u    ///< Verlet particles and their constraints
#define VIEW_RGB_JOINT 0xd070e0u       ///< springs and joints
#define VIEW_RGB_WHEEL 0x202020u       ///< vehicle wheels
#define VIEW_RGB_AABB 0xc8c850u        ///< debug: bounding boxes
#define VIEW_RGB_CONTACT 0xff3050u     ///< debug: contact points and normals
#define VIEW_RGB_VELOCITY 0x50e0e0u    ///< debug: velocity vectors
#define VIEW_RGB_GHOST 0xa0a0a0u       ///< debug: raw last snapshot
#define VIEW_RGB_CORRECTION 0xff60c0u  ///< debug: the own avatar's fading prediction correction
#define VIEW_RGB_TEXT 0xe8e8e8u
#define VIEW_RGB_TEXT_DIM 0x9098a8u
#define VIEW_RGB_WARN 0xffb040u
#define VIEW_RGB_ERROR 0xff6060u
#define VIEW_RGB_OK 0x60e080u

#define VIEW_R(rgb) ((uint8_t)(((rgb) >> 16) & 0xffu))
#define VIEW_G(rgb) ((uint8_t)(((rgb) >> 8) & 0xffu))
#define VIEW_B(rgb) ((uint8_t)((rgb)&0xffu))
