// The profile as the emulator writes it (emu/src/profile/profile.c,
// "vaxlab-profile-raw" version 1): a calling-context tree of addresses with
// the symbol tables needed to name them.  This module only reads and checks
// it; symbolize.ts names it, aggregate.ts sums it up.
//
// Costs are the timing model's units (emu/src/cpu/timing.h): virtual ns =
// cost * nsPerInstruction / costDenominator (1:1 on a 780, 1/0.6 on a 750).
// Every instruction of the profiled interval is charged to exactly one node
// in exactly one slot, so the nodes add up to `instructions` and `cost`.

export const RAW_FORMAT = 'vaxlab-profile-raw';
export const RAW_VERSION = 1;

/** The cost columns, in the dump's order (stats.h's modes, then idle). */
export const SLOTS = ['kernel', 'exec', 'super', 'user', 'interrupt', 'idle'] as const;
export type Slot = (typeof SLOTS)[number];

/** Node kinds (emu/src/profile/profile.h PROFILE_*). */
export const KINDS = ['program', 'interrupt', 'exception', 'call', 'jsb', 'resume', 'start'] as const;
export type Kind = (typeof KINDS)[number];

/** Images: 0 is the kernel, 1 code run unmapped (the boot), then programs by name. */
export const IMAGE_KERNEL = 0;
export const IMAGE_UNMAPPED = 1;

export interface RawImage {
  /** The kernel's "vmunix", "(unmapped)", or a program's name (u.u_comm). */
  name: string;
  /** Where its symbols came from ("/vmunix", "/lab/bin/syscall"), '' if nowhere. */
  path: string;
  /** Why it has no symbols ("no symbol table (stripped)", "not found in ..."), or ''. */
  note: string;
  /** [value, name], sorted by value, then name. */
  symbols: [number, string][];
}

export interface RawNode {
  /** Index of the parent node, -1 for a root; always below this node's index. */
  parent: number;
  kind: Kind;
  image: number;
  /** The function's entry (call, jsb), the handler (interrupt, exception), the
   *  function found (resume) or the code started (start); unused for program. */
  addr: number;
  /** SCB offset of an interrupt or exception; for start, 0 = after exec, 1 = a
   *  signal trampoline. */
  aux: number;
  calls: number;
  instructions: number;
  /** Cost by slot (SLOTS order). */
  cost: number[];
}

export interface RawProfile {
  format: typeof RAW_FORMAT;
  version: typeof RAW_VERSION;
  nsPerInstruction: number;
  costDenominator: number;
  instructions: number;
  cost: number;
  kernelPath: string;
  overflow: { nodes: number; depth: number; contexts: number; images: number };
  limits: { nodes: number; depth: number; contexts: number; images: number; symbols: number };
  contexts: number;
  walks: number;
  unmatchedReturns: number;
  images: RawImage[];
  nodes: RawNode[];
}

/** A dump that is not a profile, said in one line. */
export class ProfileFormatError extends Error {
  constructor(message: string) {
    super(`not a vaxlab profile: ${message}`);
    this.name = 'ProfileFormatError';
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function count(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new ProfileFormatError(`${what}: ${String(v)}`);
  return v;
}

/** Parses and checks a dump (text or an already parsed value). */
export function parseRawProfile(input: string | unknown): RawProfile {
  let v: unknown = input;
  if (typeof input === 'string') {
    try {
      v = JSON.parse(input);
    } catch (e) {
      throw new ProfileFormatError(`JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (!isObject(v)) throw new ProfileFormatError('not an object');
  if (v.format !== RAW_FORMAT) throw new ProfileFormatError(`format ${JSON.stringify(v.format)}`);
  if (v.version !== RAW_VERSION) throw new ProfileFormatError(`version ${String(v.version)} (this reads ${RAW_VERSION})`);
  const kinds = v.kinds, slots = v.slots;
  if (!Array.isArray(kinds) || kinds.join() !== KINDS.join()) throw new ProfileFormatError('unknown node kinds');
  if (!Array.isArray(slots) || slots.join() !== SLOTS.join()) throw new ProfileFormatError('unknown cost slots');
  if (!Array.isArray(v.images) || v.images.length < 2) throw new ProfileFormatError('images');
  const images: RawImage[] = v.images.map((im: unknown, i: number) => {
    if (!isObject(im) || typeof im.name !== 'string' || typeof im.path !== 'string' || typeof im.note !== 'string' ||
      !Array.isArray(im.symbols)) {
      throw new ProfileFormatError(`image ${i}`);
    }
    const symbols = im.symbols as unknown[];
    for (const s of symbols) {
      if (!Array.isArray(s) || typeof s[0] !== 'number' || typeof s[1] !== 'string') throw new ProfileFormatError(`image ${i} symbol`);
    }
    return { name: im.name, path: im.path, note: im.note, symbols: symbols as [number, string][] };
  });
  if (!Array.isArray(v.nodes)) throw new ProfileFormatError('nodes');
  const nodes: RawNode[] = v.nodes.map((n: unknown, i: number) => {
    if (!Array.isArray(n) || n.length !== 7 + SLOTS.length || !n.every((x) => typeof x === 'number')) {
      throw new ProfileFormatError(`node ${i}`);
    }
    const [parent, kind, image, addr, aux, calls, instructions, ...cost] = n as number[];
    if (!(parent! >= -1 && parent! < i) || kinds[kind!] === undefined || !(image! >= 0 && image! < images.length)) {
      throw new ProfileFormatError(`node ${i}: parent ${parent}, kind ${kind}, image ${image}`);
    }
    return { parent: parent!, kind: KINDS[kind!]!, image: image!, addr: addr! >>> 0, aux: aux!, calls: calls!, instructions: instructions!, cost };
  });
  const o = isObject(v.overflow) ? v.overflow : {};
  const l = isObject(v.limits) ? v.limits : {};
  return {
    format: RAW_FORMAT,
    version: RAW_VERSION,
    nsPerInstruction: count(v.nsPerInstruction, 'nsPerInstruction'),
    costDenominator: count(v.costDenominator, 'costDenominator') || 1,
    instructions: count(v.instructions, 'instructions'),
    cost: count(v.cost, 'cost'),
    kernelPath: typeof v.kernelPath === 'string' ? v.kernelPath : '',
    overflow: {
      nodes: count(o.nodes ?? 0, 'overflow.nodes'), depth: count(o.depth ?? 0, 'overflow.depth'),
      contexts: count(o.contexts ?? 0, 'overflow.contexts'), images: count(o.images ?? 0, 'overflow.images'),
    },
    limits: {
      nodes: count(l.nodes ?? 0, 'limits.nodes'), depth: count(l.depth ?? 0, 'limits.depth'),
      contexts: count(l.contexts ?? 0, 'limits.contexts'), images: count(l.images ?? 0, 'limits.images'),
      symbols: count(l.symbols ?? 0, 'limits.symbols'),
    },
    contexts: count(v.contexts ?? 0, 'contexts'),
    walks: count(v.walks ?? 0, 'walks'),
    unmatchedReturns: count(v.unmatchedReturns ?? 0, 'unmatchedReturns'),
    images,
    nodes,
  };
}

/** Virtual ns of a cost (floating point: for display and sums of ns). */
export function costToNs(raw: Pick<RawProfile, 'nsPerInstruction' | 'costDenominator'>, cost: number): number {
  return (cost / raw.costDenominator) * raw.nsPerInstruction;
}

/** A profile back in the dump's own form (what the emulator writes), e.g.
 *  to export it or keep it with a result. */
export function rawProfileJson(raw: RawProfile): string {
  const { nodes, images, ...rest } = raw;
  return `${JSON.stringify({
    ...rest, slots: SLOTS, kinds: KINDS, images,
    nodes: nodes.map((n) => [n.parent, KINDS.indexOf(n.kind), n.image, n.addr, n.aux, n.calls, n.instructions, ...n.cost]),
  })}\n`;
}
