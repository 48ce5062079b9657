// Rounding to a number of decimals, exactly as `Number(x.toFixed(digits))`.
//
// Results are stored and compared as JSON bytes, so the rounding must be
// toFixed's to the last bit: the decimal nearest to x's exact binary value,
// ties away from zero, read back as the nearest double. toFixed builds a
// string and Number() parses it again, which made it most of a counter
// sample's cost (several dozen values a sample, every virtual second). The
// fast path below gives the same double without the strings, and falls back
// to toFixed wherever it could not prove that:
//
// - 10^digits is exact for digits <= 22, so s = x * 10^digits is within half
//   an ulp of the exact product. With |s| < 2^40 that is below 2^-13, so when
//   s's fraction is more than 1/1024 away from one half, rounding s and
//   rounding the exact product give the same integer n (ties, the only place
//   the direction matters, are never taken on this path).
// - n < 2^40 is an exact double and so is 10^digits, so n / 10^digits is the
//   double nearest to the rational n / 10^digits: the very number Number()
//   reads from toFixed's digits.
// - toFixed rounds the magnitude and puts the sign back, which gives -0 for a
//   small negative x; so does the negation here.

const POWERS_OF_TEN: readonly number[] = Array.from({ length: 23 }, (_, i) => 10 ** i);
const FAST_LIMIT = 2 ** 40;
const TIE_MARGIN = 1 / 1024;

/** `Number(x.toFixed(digits))`, bit for bit (NaN, infinities and -0 included). */
export function roundFixed(x: number, digits: number): number {
  return roundFixedFast(x, digits) ?? Number(x.toFixed(digits));
}

/** The fast path alone: the rounded value, or undefined where it cannot
 *  prove it equals toFixed's (near a tie, too large, too many digits, not
 *  finite). Exported so the tests can see that it is taken. */
export function roundFixedFast(x: number, digits: number): number | undefined {
  const scale = POWERS_OF_TEN[digits];
  if (scale === undefined) return undefined;
  const s = Math.abs(x) * scale;
  if (!(s < FAST_LIMIT)) return undefined;
  const whole = Math.floor(s);
  const frac = s - whole;
  if (Math.abs(frac - 0.5) <= TIE_MARGIN) return undefined;
  const r = (frac > 0.5 ? whole + 1 : whole) / scale;
  return x < 0 ? -r : r;
}
