// Test data: bytes that deflate cannot shrink (a linear congruential generator's high bytes), the same for a
// given seed on every run, for the tests and test vectors of the chunked image and the inflate.

/** n bytes of seeded noise. */
export function noise(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    b[i] = s >>> 24;
  }
  return b;
}
