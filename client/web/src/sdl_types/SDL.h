// The few SDL2 type names the native viewer's internal header (client/view/view.h)
// declares its drawing functions with. The WebAssembly replay module compiles the
// viewer's frame builders and replay driver, which call no SDL function, so these names
// are all it needs from SDL; the browser draws with the canvas instead.
#pragma once

#include <stdint.h>

typedef uint8_t Uint8;
typedef struct SDL_Renderer SDL_Renderer;
typedef struct SDL_Texture SDL_Texture;
typedef struct SDL_FPoint {
  float x, y;
} SDL_FPoint;
typedef struct SDL_Rect {
  int x, y, w, h;
} SDL_Rect;
