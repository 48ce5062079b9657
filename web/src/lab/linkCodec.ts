// A compact binary form of JSON values, for permalinks (permalink.ts): what
// the link holds is this, deflated.  It keeps the JSON data model (null,
// booleans, numbers, strings, lists, objects), so whatever a link holds is
// still checked afterwards by the result's schema (experiments/runner/
// result.ts) exactly as a JSON link was; the encoding only makes it small:
//
//   - one tag byte per value, small whole numbers (0..95) and references to
//     the first 128 strings inside it;
//   - numbers as varints (zigzag for negatives), decimals as a varint and a
//     count of decimal places, float64 only when neither is exact;
//   - a dictionary of strings: LINK_WORDS (the result's field names, counter
//     names, common values), then every string in the order it first
//     appears, each written once and referred to after;
//   - strings of digits (instruction counts) as the number they spell;
//   - lists of numbers as deltas of scaled integers ("series"): exactly, or
//     quantised to a step the caller chooses (the counter series of a link:
//     a chart needs no more than 1/64 of its height).
//
// Decoding checks every length against what is left, nests at most
// MAX_DEPTH deep, refuses __proto__, constructor and prototype as keys, and
// counts the strings and items it makes against a budget, so a crafted link
// cannot make it allocate much more than its own size.  Every failure is a
// CodecError whose message says what is wrong, for permalink.ts to word.
//
// Browser and Node: no DOM, no Node APIs.

/** A decoding failure: the data is not a value this codec wrote (damaged, or crafted). */
export class CodecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CodecError';
  }
}

/**
 * The dictionary every link starts with: LINK_WORDS[i] is string i.  Links
 * refer to these by position, so the list is append-only — a word is never
 * removed, moved or changed, or old links would read other words (the
 * permalink test checks the list's first entries against a checksum).  New
 * words go at the end; a link that refers past the end of this list (made by
 * a newer vaxlab) is refused as such.
 */
export const LINK_WORDS: readonly string[] = Object.freeze([
  // 0: a run and its configuration
  'experiment', 'config', 'cpu', 'memoryMB', 'set', 'parameters', 'disk', 'result', 'reduction', 'ranAt',
  // 10: the result
  'format', 'vaxlab-experiment-result', 'version', 'title', 'machine', 'nsPerInstruction', 'memoryNote', 'boot', 'direct', 'image',
  'name', 'sha256', 'kernelSettings', 'compare', 'status', 'rows', 'group', 'paperRef', 'view', 'iterations',
  // 30: a row
  'divisor', 'test', 'command', 'limitSeconds', 'paper', 'elapsed', 'user', 'system', 'scale', 'source',
  'column', 'scaled', 'step', 'counters', 't', 'values', 'totals', 'emulator', 'instructions', 'virtualSeconds',
  'machineInstructions', 'machineVirtualSeconds', 'guest', 'real', 'sys', 'line', 'failure', 'kind', 'message', 'output',
  'readback', 'derived', 'pageFaults', 'pfst', 'pfstMs', 'paperPfstMs', 'nchsize',
  // 67: values
  'ok', 'failed', 'single', '750', '780', 'table2', 'paging', 'namecache', 'Table 2', '4.3BSD', '4.2BSD', 'Table 7',
  'Tables 7 and 8', '§4.1.1', '43bsd.dsk.gz',
  // 82: counter totals (CounterSampler.totals)
  'seconds', 'syscalls', 'cs', 'intr', 'traps', 'faults', 'pgin', 'pgout', 'pgpgin', 'pgpgout', 'pgrec', 'zfod', 'exfod',
  'swpin', 'swpout', 'cp_time.user', 'cp_time.nice', 'cp_time.sys', 'cp_time.idle', 'cpu.us', 'cpu.sy', 'cpu.id',
  'namei.lookups', 'namei.hits', 'namei.misses', 'namei.hitRate', 'namei.badhits', 'namei.falsehits', 'namei.miss',
  'namei.long', 'namei.pass2', 'namei.offsetHitRate', 'disk.hp0.xfers', 'disk.hp0.seeks', 'disk.hp0.kb',
  'disk.hp0.busyTicks', 'hw.instructions.user', 'hw.instructions.kernel', 'hw.instructions.idle', 'hw.syscalls', 'hw.intr',
  'hw.softintr', 'hw.cs', 'hw.pf', 'hw.disk.hp0.xfers', 'hw.disk.hp0.seeks',
  // 128: (two-byte references from here)
  'hw.disk.hp0.kb', 'hw.disk.hp0.busyMs',
  // 130: chart counters
  'hw.mips', 'faults.sy', 'faults.cs', 'faults.in', 'faults.tr', 'faults.pf', 'paging.pi', 'paging.po', 'paging.sr',
  'memory.freemem', 'memory.avm',
  // 141: what a link adds
  'counterPoints', 'before', 'after', 'failureOutputs', 'kept', 'quantised', 'thinned', 'dropped', 'truncated', 'note',
  'rounded', 'a', 'b', 'eagle', 'ideal', 'rp06', 'per-process cache only', 'both caches', 'time limit', 'stopped',
  // 161: the processor models' results (spin seeds, calibration rows, their spread), another kernel
  'spinSeeds', 'calibration', 'spread', 'seeds', 'min', 'max', 'kernel', 'rm05',
  // 169: a profiled run's rows (experiments/profile/summaryFormat.ts), and what a link did to them
  'profile', 'vaxlab-profile-summary', 'cost', 'idleCost', 'minShare', 'names', 'tree', 'top', 'notes', 'calls',
  'selfMs', 'totalMs', 'profiles', 'reduced',
]);

/** Nesting deeper than this is refused (results nest about 6 deep). */
export const MAX_DEPTH = 32;

// Tags.  0x20-0x7f: the whole number tag - 0x20; 0x80-0xff: string reference tag - 0x80.
const T_NULL = 0;
const T_FALSE = 1;
const T_TRUE = 2;
const T_INT = 3;
const T_DECIMAL = 4;
const T_FLOAT = 5;
const T_STRING = 6;
const T_REF = 7;
const T_ARRAY = 8;
const T_OBJECT = 9;
const T_DIGITS = 10;
const T_SERIES = 11;
const T_QSERIES = 12;
const SMALL_INT = 0x20;
const SMALL_INT_MAX = 0x7f - SMALL_INT;
const SMALL_REF = 0x80;
const SMALL_REF_MAX = 0x7f;
/** Decimal places a decimal or series may have. */
const MAX_PLACES = 12;
/** Series stored as a float64 each. */
const FLOAT_SERIES = 0xff;

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

// ------------------------------------------------------------ bytes

class Writer {
  private buf = new Uint8Array(1024);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.length++] = b;
  }

  /** An unsigned whole number, 7 bits a byte, low first (up to 2^53). */
  varint(n: number): void {
    while (n >= 0x80) {
      this.byte((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
    }
    this.byte(n);
  }

  zigzag(n: number): void {
    this.varint(n < 0 ? -2 * n - 1 : 2 * n);
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }

  float(x: number): void {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, x, true);
    this.bytes(b);
  }

  result(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

class Reader {
  at = 0;
  constructor(private readonly buf: Uint8Array) {}

  get left(): number {
    return this.buf.length - this.at;
  }

  byte(): number {
    if (this.at >= this.buf.length) throw new CodecError('its data ends too early');
    return this.buf[this.at++]!;
  }

  varint(): number {
    let n = 0;
    let mul = 1;
    for (let i = 0; ; i++) {
      const b = this.byte();
      n += (b & 0x7f) * mul;
      if (!(b & 0x80)) break;
      mul *= 0x80;
      if (i >= 7) throw new CodecError('a number in it is too long');
    }
    if (n > Number.MAX_SAFE_INTEGER) throw new CodecError('a number in it is too large');
    return n;
  }

  zigzag(): number {
    const n = this.varint();
    return n % 2 === 1 ? -(n + 1) / 2 : n / 2;
  }

  bytes(n: number): Uint8Array {
    if (n > this.left) throw new CodecError('its data ends too early');
    const out = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  float(): number {
    const b = this.bytes(8);
    return new DataView(b.buffer, b.byteOffset, 8).getFloat64(0, true);
  }
}

// ------------------------------------------------------------ numbers

/** Whole numbers a varint carries after zigzag: |n| up to 2^52. */
const MAX_ZIGZAG = 2 ** 52;
const fitsZigzag = (n: number) => Number.isSafeInteger(n) && Math.abs(n) <= MAX_ZIGZAG;

/** x as k / 10^places with the fewest places (at most MAX_PLACES) that give x back exactly; null if none do. */
export function decimalOf(x: number): { k: number; places: number } | null {
  for (let places = 0; places <= MAX_PLACES; places++) {
    const k = Math.round(x * 10 ** places);
    if (!fitsZigzag(k)) return null;
    if (fromDecimal(k, places) === x) return { k, places };
  }
  return null;
}

/** k / 10^places, rounded as a decimal number is read (so 0.1 is the double JSON gives for "0.1"). */
function fromDecimal(k: number, places: number): number {
  return places === 0 ? k : Number(`${k}e-${places}`);
}

/** How a list of numbers may be stored (the caller's choice, by where the list is). */
export type SeriesPolicy =
  /** Exactly (deltas of scaled integers when the numbers allow, else a float64 each). */
  | { kind: 'exact' }
  /** To a step of `step` (a power of ten times 1, 2 or 5; what the decoder gets back). */
  | { kind: 'quantised'; step: number };

/** The smallest step of two significant digits (10..99 × 10^e) that is at least `raw`: at most 10% coarser. */
export function niceStep(raw: number): number {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  let e = Math.floor(Math.log10(raw)) - 1;
  let m = Math.ceil(Number((raw / 10 ** e).toPrecision(12)));
  if (m >= 100) {
    m = Math.ceil(m / 10);
    e++;
  }
  return Number(`${m}e${e}`);
}

// ------------------------------------------------------------ encoding

export interface EncodeOptions {
  /** How the list of numbers at `path` (keys from the top, list items as their index) is stored; null: as a list. */
  series?: (path: readonly (string | number)[], values: readonly number[]) => SeriesPolicy | null;
}

/** The value in binary (see the top of this file). */
export function encodeValue(value: unknown, options: EncodeOptions = {}): Uint8Array {
  const w = new Writer();
  const dictionary = new Map<string, number>(LINK_WORDS.map((s, i) => [s, i]));
  const encoder = new TextEncoder();

  const string = (s: string): void => {
    const ref = dictionary.get(s);
    if (ref !== undefined) {
      if (ref <= SMALL_REF_MAX) w.byte(SMALL_REF + ref);
      else {
        w.byte(T_REF);
        w.varint(ref);
      }
      return;
    }
    // A canonical string of digits: the number it spells (instruction counts).
    if (/^(0|[1-9]\d{0,14})$/.test(s)) {
      w.byte(T_DIGITS);
      w.varint(Number(s));
      return;
    }
    const bytes = encoder.encode(s);
    w.byte(T_STRING);
    w.varint(bytes.length);
    w.bytes(bytes);
    dictionary.set(s, dictionary.size);
  };

  const number = (x: number): void => {
    if (!Number.isFinite(x)) throw new CodecError(`cannot store ${x} (not a JSON number)`);
    if (fitsZigzag(x) && !Object.is(x, -0)) {
      if (x >= 0 && x <= SMALL_INT_MAX) w.byte(SMALL_INT + x);
      else {
        w.byte(T_INT);
        w.zigzag(x);
      }
      return;
    }
    const d = decimalOf(x);
    if (d && d.places > 0) {
      w.byte(T_DECIMAL);
      w.zigzag(d.k);
      w.byte(d.places);
      return;
    }
    w.byte(T_FLOAT);
    w.float(x);
  };

  const series = (xs: number[], policy: SeriesPolicy): void => {
    // A step too fine to write as a decimal (a series of tiny numbers): stored exactly instead.
    const stepSize = policy.kind === 'quantised' ? policy.step : 0;
    const step = stepSize > 0 ? decimalOf(stepSize) : null;
    const quanta = step ? xs.map((x) => Math.round(x / stepSize)) : [];
    if (step && quanta.every((q, i) => fitsZigzag(q) && fitsZigzag(q - (quanta[i - 1] ?? 0)) && fitsZigzag(q * step.k))) {
      // step = s.k / 10^s.places; each value is q × step.
      w.byte(T_QSERIES);
      w.varint(xs.length);
      w.varint(step.k);
      w.byte(step.places);
      let prev = 0;
      for (const q of quanta) {
        w.zigzag(q - prev);
        prev = q;
      }
      return;
    }
    let places = 0;
    const exact = xs.every((x) => {
      const d = decimalOf(x);
      if (!d || Object.is(x, -0)) return false;
      places = Math.max(places, d.places);
      return true;
    }) && xs.every((x, i) => {
      const k = Math.round(x * 10 ** places);
      const prev = i === 0 ? 0 : Math.round(xs[i - 1]! * 10 ** places);
      return fitsZigzag(k) && fitsZigzag(k - prev) && fromDecimal(k, places) === x;
    });
    w.byte(T_SERIES);
    w.varint(xs.length);
    if (!exact) {
      w.byte(FLOAT_SERIES);
      for (const x of xs) w.float(x);
      return;
    }
    w.byte(places);
    let prev = 0;
    for (const x of xs) {
      const k = Math.round(x * 10 ** places);
      w.zigzag(k - prev);
      prev = k;
    }
  };

  const path: (string | number)[] = [];
  const put = (v: unknown, depth: number): void => {
    if (depth > MAX_DEPTH) throw new CodecError(`values nest more than ${MAX_DEPTH} deep`);
    if (v === null || v === undefined) w.byte(T_NULL);
    else if (v === false) w.byte(T_FALSE);
    else if (v === true) w.byte(T_TRUE);
    else if (typeof v === 'number') number(v);
    else if (typeof v === 'string') string(v);
    else if (Array.isArray(v)) {
      const numbers = v.length > 0 && v.every((x) => typeof x === 'number' && Number.isFinite(x));
      const policy = numbers ? options.series?.(path, v as number[]) ?? null : null;
      if (policy) {
        series(v as number[], policy);
        return;
      }
      w.byte(T_ARRAY);
      w.varint(v.length);
      v.forEach((x, i) => {
        path.push(i);
        put(x, depth + 1);
        path.pop();
      });
    } else if (typeof v === 'object') {
      // As JSON.stringify would: fields that are undefined are left out.
      const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
      w.byte(T_OBJECT);
      w.varint(entries.length);
      for (const [k, x] of entries) {
        string(k);
        path.push(k);
        put(x, depth + 1);
        path.pop();
      }
    } else throw new CodecError(`cannot store a ${typeof v}`);
  };
  put(value, 0);
  return w.result();
}

// ------------------------------------------------------------ decoding

export interface DecodeLimits {
  /** The most list items, object fields and series numbers all together. */
  maxItems: number;
  /** The most characters in all the strings made (a reference to a long string counts each time). */
  maxStringChars: number;
}

/** Reads what encodeValue wrote; throws CodecError.  The whole input must be one value. */
export function decodeValue(bytes: Uint8Array, limits: DecodeLimits): unknown {
  const r = new Reader(bytes);
  const strings: string[] = [...LINK_WORDS];
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let items = 0;
  let chars = 0;
  const count = (n: number) => {
    items += n;
    if (items > limits.maxItems) throw new CodecError(`it holds more than ${limits.maxItems.toLocaleString('en-US')} values, far more than any vaxlab result`);
  };
  const spend = (s: string) => {
    chars += s.length;
    if (chars > limits.maxStringChars) {
      throw new CodecError(`it spells out more than ${limits.maxStringChars.toLocaleString('en-US')} characters of text, far more than any vaxlab result`);
    }
    return s;
  };
  const ref = (i: number): string => {
    if (i >= strings.length) {
      throw new CodecError(i >= LINK_WORDS.length && strings.length === LINK_WORDS.length
        ? 'it uses a word this vaxlab does not know (a newer vaxlab made it)'
        : `it refers to text #${i}, which it never gave`);
    }
    return spend(strings[i]!);
  };
  /** A length or count: each item takes at least a byte, so never more than the bytes left. */
  const length = (): number => {
    const n = r.varint();
    if (n > r.left) throw new CodecError('a length in it is longer than the data');
    return n;
  };

  const get = (depth: number): unknown => {
    if (depth > MAX_DEPTH) throw new CodecError(`its values nest more than ${MAX_DEPTH} deep`);
    const tag = r.byte();
    if (tag >= SMALL_REF) return ref(tag - SMALL_REF);
    if (tag >= SMALL_INT) return tag - SMALL_INT;
    switch (tag) {
      case T_NULL: return null;
      case T_FALSE: return false;
      case T_TRUE: return true;
      case T_INT: return r.zigzag();
      case T_DECIMAL: {
        const k = r.zigzag();
        const places = r.byte();
        if (places > MAX_PLACES) throw new CodecError('a decimal in it has too many places');
        return fromDecimal(k, places);
      }
      case T_FLOAT: {
        const x = r.float();
        if (!Number.isFinite(x)) throw new CodecError('it holds a number JSON cannot (infinite or NaN)');
        return x;
      }
      case T_STRING: {
        const n = length();
        let s: string;
        try {
          s = decoder.decode(r.bytes(n));
        } catch {
          throw new CodecError('its text is not valid UTF-8');
        }
        strings.push(s);
        return spend(s);
      }
      case T_REF: return ref(r.varint());
      case T_DIGITS: return spend(String(r.varint()));
      case T_ARRAY: {
        const n = length();
        count(n);
        const out: unknown[] = [];
        for (let i = 0; i < n; i++) out.push(get(depth + 1));
        return out;
      }
      case T_OBJECT: {
        const n = length();
        count(n);
        const out: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) {
          const key = get(depth + 1);
          if (typeof key !== 'string') throw new CodecError('an object in it has a key that is not text');
          if (FORBIDDEN_KEYS.has(key)) throw new CodecError(`it has a field named "${key}", which no vaxlab result has`);
          if (Object.hasOwn(out, key)) throw new CodecError(`an object in it has the field "${key}" twice`);
          out[key] = get(depth + 1);
        }
        return out;
      }
      case T_SERIES: {
        const n = length();
        count(n);
        const places = r.byte();
        const out: number[] = [];
        if (places === FLOAT_SERIES) {
          for (let i = 0; i < n; i++) {
            const x = r.float();
            if (!Number.isFinite(x)) throw new CodecError('it holds a number JSON cannot (infinite or NaN)');
            out.push(x);
          }
          return out;
        }
        if (places > MAX_PLACES) throw new CodecError('a series in it has too many decimal places');
        let k = 0;
        for (let i = 0; i < n; i++) {
          k += r.zigzag();
          if (!Number.isSafeInteger(k)) throw new CodecError('a series in it runs out of range');
          out.push(fromDecimal(k, places));
        }
        return out;
      }
      case T_QSERIES: {
        const n = length();
        count(n);
        const stepK = r.varint();
        const places = r.byte();
        if (places > MAX_PLACES || stepK === 0) throw new CodecError('a series in it has an impossible step');
        const out: number[] = [];
        let q = 0;
        for (let i = 0; i < n; i++) {
          q += r.zigzag();
          const k = q * stepK;
          if (!Number.isSafeInteger(k)) throw new CodecError('a series in it runs out of range');
          out.push(fromDecimal(k, places));
        }
        return out;
      }
      default:
        throw new CodecError(`it has a value of a kind this vaxlab does not know (${tag})`);
    }
  };
  const value = get(0);
  if (r.left !== 0) throw new CodecError(`${r.left} bytes follow its end`);
  return value;
}
