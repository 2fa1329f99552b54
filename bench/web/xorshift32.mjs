// xorshift32: a tiny seeded generator for the web benchmarks, so the same seed gives the
// same bot behaviour and the same proxy delays from run to run.

// A function that returns the next uniform number in [0, 1) of the sequence of `seed`
// (any number; taken as a 32-bit unsigned integer, 0 as 1).
export function xorshift32(seed) {
  let s = (Number(seed) >>> 0) || 1;
  return function uniform() {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}
