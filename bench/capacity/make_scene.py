#!/usr/bin/env python3
"""Writes the capacity benchmark's scene: a top-down 300 m x 300 m arena (no gravity)
holding BODIES bodies in all (default 10 000; the walls and mixer parts count).

- Resting crates (1 m boxes) and balls (r 0.4 m) on a jittered grid over the whole
  arena, damped so that what the players push comes to rest again; they start asleep
  ("awake": false), as a large resting world should.
- MIXERS scripted movers (default 100): a static ring of 12 segments (r 4 m) with a
  kinematic rotor bar spinning inside at 2 rad/s and 8 balls in the ring. A moving
  kinematic body never lets what it touches sleep, so each mixer keeps its balls moving
  for ever: about 10 % of the world moves with the players' avatars and what they push.
- Spawn points spread over the arena so players start far apart.

The output is deterministic (no randomness but a fixed-seed generator):
    bench/capacity/make_scene.py [BODIES] [MIXERS] > capacity.json
"""
import json
import math
import random
import sys

HALF = 150.0  # arena half size, m


def body(shape, pos, **kw):
    b = {"shape": shape, "position": [round(pos[0], 3), round(pos[1], 3)]}
    b.update(kw)
    return b


def walls():
    t = 1.0
    return [
        body({"box": {"half_width": HALF + t, "half_height": t}}, (0, HALF + t), type="static"),
        body({"box": {"half_width": HALF + t, "half_height": t}}, (0, -HALF - t), type="static"),
        body({"box": {"half_width": t, "half_height": HALF + t}}, (HALF + t, 0), type="static"),
        body({"box": {"half_width": t, "half_height": HALF + t}}, (-HALF - t, 0), type="static"),
    ]


def mixer(cx, cy):
    out = []
    r, n = 4.0, 12
    for k in range(n):
        a0, a1 = 2 * math.pi * k / n, 2 * math.pi * (k + 1) / n
        seg = {"segment": {"a": [round(r * math.cos(a0), 4), round(r * math.sin(a0), 4)],
                           "b": [round(r * math.cos(a1), 4), round(r * math.sin(a1), 4)]}}
        out.append(body(seg, (cx, cy), type="static"))
    out.append(body({"box": {"half_width": 3.3, "half_height": 0.2}}, (cx, cy), type="kinematic",
                    angular_velocity=2.0))
    for k in range(8):
        a = 2 * math.pi * (k + 0.5) / 8
        out.append(body({"circle": {"radius": 0.4}}, (cx + 2.4 * math.cos(a), cy + 2.4 * math.sin(a)),
                        linear_damping=0.5, restitution=0.3))
    return out


def main():
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    mixers = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    rng = random.Random(14)
    bodies = walls()
    side = max(1, int(math.ceil(math.sqrt(mixers))))
    centres = []
    for i in range(mixers):
        gx, gy = i % side, i // side
        centres.append((-HALF + (gx + 0.5) * 2 * HALF / side, -HALF + (gy + 0.5) * 2 * HALF / side))
    for c in centres:
        bodies += mixer(*c)
    loose = total - len(bodies)
    cols = int(math.ceil(math.sqrt(loose)))
    step = 2 * HALF / cols
    placed = 0
    for j in range(cols):
        for i in range(cols):
            if placed == loose:
                break
            x = -HALF + (i + 0.5) * step + rng.uniform(-0.2, 0.2) * step
            y = -HALF + (j + 0.5) * step + rng.uniform(-0.2, 0.2) * step
            if any(abs(x - cx) < 5.5 and abs(y - cy) < 5.5 for cx, cy in centres):
                x += 6.0 if x < 0 else -6.0  # out of a mixer's ring, still in the arena
            if placed % 3 == 2:
                shape = {"circle": {"radius": 0.4}}
            else:
                shape = {"box": {"half_width": 0.5, "half_height": 0.5}}
            bodies.append(body(shape, (x, y), angle=round(rng.uniform(-1.5, 1.5), 3), linear_damping=2.0,
                               angular_damping=2.0, awake=False))
            placed += 1
    spawns = []
    for j in range(32):
        for i in range(32):
            spawns.append([round(-HALF + (i + 0.5) * 2 * HALF / 32, 2), round(-HALF + (j + 0.25) * 2 * HALF / 32, 2)])
    scene = {
        "version": 1,
        "name": "capacity",
        "seed": 14,
        "gravity": [0, 0],
        "tick_rate": 60,
        "substeps": 4,
        "bodies": bodies,
        "avatar": {"shape": {"circle": {"radius": 0.5}}, "density": 2, "linear_damping": 1,
                   "controller": {"type": "force", "mode": "top_down", "max_force": 60, "max_speed": 6}},
        "spawn_points": spawns,
    }
    json.dump(scene, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
