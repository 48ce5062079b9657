// Boot once, restore many: every step of an experiment starts from a fresh
// machine booted single-user to its prompt, and every step whose machine is
// configured alike (memory, processor, disks, their timing and spin seed,
// kernel and kernel settings, image) boots the very same way.  So the runner boots such
// a machine once, saves a machine snapshot at the prompt
// (Vax780System.snapshot; emu/src/snapshot/snap.h) and gives each later
// step a machine restored from it, which runs on exactly as a freshly
// booted one would: the same instructions, virtual time, console output and
// counters, so the same result bytes.  A snapshot can also come from
// elsewhere: the image builder ships the machines the page starts most
// often (shippedBoots; installer/lib/shipped.ts makes them, the page's
// worker fetches them).
//
// What the boot printed travels in the snapshot (its host bytes), so a
// restored step's console shows the boot as a booted one's does and its
// transcript continues from the same place.

import type { DiskImage } from '../../emu/js/diskImage';
import { readSnapshotInfo } from '../../emu/js/snapshotFile';
import { CONSOLE_SLICE, CPU_NS_PER_INSTRUCTION } from '../../emu/js/constants';
import type { Vax780Api, Vax780Options } from '../../emu/js/vax780';
import { ConsoleSession } from './session';

/** A machine at the prompt its boot waited for. */
export interface BootSnapshot {
  /** Vax780System.snapshot's bytes, the console transcript in their host part. */
  bytes: Uint8Array;
  /** What the console printed from power-on (ConsoleSession.transcript)... */
  transcript: string;
  /** ...and where the prompt's match ended in it (ConsoleSession's mark). */
  mark: number;
  /** Made in this process ('here'), or brought from elsewhere ('shipped':
   *  a snapshot another emulator build made is refused, and the runner then
   *  boots instead). */
  origin?: 'here' | 'shipped';
}

/** How a boot is waited for: until the console shows `prompt`, looked for
 *  after each slice of `slice` instructions (the first slice boundary after
 *  it decides where the boot ends), within limitSeconds of virtual time. */
export interface BootRecipe {
  prompt: string;
  slice: number;
  limitSeconds: number;
}

/** The runner's: a step's machine at its single-user prompt (runner.ts). */
export const SINGLE_USER_BOOT: BootRecipe = { prompt: '\n# ', slice: CONSOLE_SLICE, limitSeconds: 300 };
/** The Terminal tab's: the multi-user machine at its first login prompt
 *  (web/src/worker/terminal.ts runs in slices of this size). */
export const TERMINAL_BOOT: BootRecipe = { prompt: 'login: ', slice: 1_000_000, limitSeconds: 600 };

export function recipeKey(r: BootRecipe): string {
  return `expect ${JSON.stringify(r.prompt)} in slices of ${r.slice}`;
}

/** The host part of a snapshot the runner saves. */
interface HostPart {
  format: 'vaxlab-boot';
  version: 1;
  transcript: string;
  mark: number;
}

export function encodeHostPart(transcript: string, mark: number): Uint8Array {
  const part: HostPart = { format: 'vaxlab-boot', version: 1, transcript, mark };
  return new TextEncoder().encode(JSON.stringify(part));
}

/** The transcript and mark of a snapshot's host part; throws on anything else. */
export function decodeHostPart(bytes: Uint8Array | null): { transcript: string; mark: number } {
  if (!bytes) throw new Error('the snapshot carries no boot transcript');
  let part: Partial<HostPart> | null = null;
  try {
    part = JSON.parse(new TextDecoder().decode(bytes)) as Partial<HostPart>;
  } catch {
    // not JSON: refused below, as anything else that is not ours
  }
  if (!part || typeof part !== 'object' || part.format !== 'vaxlab-boot' || part.version !== 1 || typeof part.transcript !== 'string' ||
    typeof part.mark !== 'number' || !Number.isInteger(part.mark) || part.mark < 0 || part.mark > part.transcript.length) {
    throw new Error('the snapshot\'s host part is not a vaxlab boot transcript');
  }
  return { transcript: part.transcript, mark: part.mark };
}

/** A BootSnapshot from a snapshot file saved by bootAndSave (or the runner). */
export function bootSnapshotFromFile(bytes: Uint8Array, origin: BootSnapshot['origin'] = 'shipped'): BootSnapshot {
  const { transcript, mark } = decodeHostPart(readSnapshotInfo(bytes).host);
  return { bytes, transcript, mark, origin };
}

/** Boots a machine the way `recipe` says and saves it at the prompt. */
export async function bootAndSave(api: Vax780Api, options: Vax780Options, recipe: BootRecipe): Promise<BootSnapshot> {
  const sys = api.create(options);
  try {
    const session = new ConsoleSession(sys, (r) => api.stopName(r));
    await session.expect(recipe.prompt, recipe.limitSeconds, recipe.slice);
    const bytes = sys.snapshot(encodeHostPart(session.transcript, session.matchEnd));
    return { bytes, transcript: session.transcript, mark: session.matchEnd, origin: 'here' };
  } finally {
    sys.destroy();
  }
}

// Images and kernels without a SHA-256 are told apart by object: a number each.
const objectIds = new WeakMap<object, number>();
let nextObjectId = 1;
function objectId(o: object): number {
  let id = objectIds.get(o);
  if (id === undefined) objectIds.set(o, (id = nextObjectId++));
  return id;
}

/** What of Vax780Options decides a machine (all but the disk, restore and profile). */
export type MachineOptions = Omit<Vax780Options, 'disk' | 'restore' | 'profile' | 'console' | 'consoleBoot' | 'kernel'>;

/**
 * The key of a boot: everything that decides what the machine is when its
 * prompt appears — the image, the machine's options, and how the boot was
 * waited for.  Two boots with the same key end in the same state.  A kernel
 * from the host is named by `kernelSha256` when the caller knows it, else
 * by the object.
 */
export function bootKey(image: DiskImage, options: Omit<Vax780Options, 'kernel'> & { kernel?: Uint8Array }, recipe: BootRecipe,
  kernelSha256?: string): string {
  const o = options;
  return JSON.stringify({
    image: image.sha256 ?? `object ${objectId(image)}`,
    memoryMB: o.memoryMB,
    cpuModel: o.cpuModel ?? '780',
    nsPerInstruction: o.nsPerInstruction ?? CPU_NS_PER_INSTRUCTION['780'],
    diskTiming: o.diskTiming ?? null, // not 'rp06': the RP06's own figures are another profile by name
    diskSpinSeed: o.diskSpinSeed ?? 0,
    diskSpinLocked: o.diskSpinLocked === true,
    secondDrive: o.secondDrive === true,
    boot: o.boot ?? null,
    direct: o.direct === true,
    // In their order: the emulator patches them in that order, and a
    // snapshot checks them in it.
    set: Object.entries(o.set ?? {}),
    // By its SHA-256 when known, even without the bytes at hand (a shipped snapshot's manifest names its
    // kernel so: the page offers it before fetching the kernel).
    kernel: kernelSha256 ?? (o.kernel === undefined ? null : `object ${objectId(o.kernel)}`),
    recipe: recipeKey(recipe),
  });
}

/** Machines started: restored from a shipped snapshot or one saved in this process, or booted. */
export interface MachineStarts {
  shipped: number;
  here: number;
  booted: number;
}

/** b - a, field by field (the starts between two readings). */
export function startsSince(a: MachineStarts, b: MachineStarts): MachineStarts {
  return { shipped: b.shipped - a.shipped, here: b.here - a.here, booted: b.booted - a.booted };
}

/**
 * Snapshots by boot key, the most recently used kept (each about 1 MB), and
 * sources of more: a snapshot that can be fetched when it is first wanted
 * (the page's shipped ones).
 */
export class BootSnapshots {
  private readonly entries = new Map<string, BootSnapshot>();
  private readonly sources = new Map<string, () => Promise<BootSnapshot>>();
  private readonly loading = new Map<string, Promise<BootSnapshot | undefined>>();
  /** The machines the runner started with this store: restored from a shipped snapshot, from one saved here,
   *  or booted (noteStart).  What the page shows of a sweep's workers, and what its tests check. */
  readonly starts: MachineStarts = { shipped: 0, here: 0, booted: 0 };

  constructor(readonly capacity = 16) {}

  /** Counts a machine started from `from` (a snapshot's origin, or 'booted'). */
  noteStart(from: BootSnapshot['origin'] | 'booted'): void {
    this.starts[from ?? 'here']++;
  }

  /** The snapshot for key, fetching it from its source the first time;
   *  undefined when there is none (or its source failed). */
  async take(key: string): Promise<BootSnapshot | undefined> {
    const s = this.get(key);
    if (s) return s;
    const source = this.sources.get(key);
    if (!source) return undefined;
    let p = this.loading.get(key);
    if (!p) {
      p = source().then((snap) => {
        this.set(key, snap);
        return snap;
      }, () => undefined).finally(() => {
        this.loading.delete(key);
        this.sources.delete(key);
      });
      this.loading.set(key, p);
    }
    return p;
  }

  get(key: string): BootSnapshot | undefined {
    const s = this.entries.get(key);
    if (s) {
      this.entries.delete(key);
      this.entries.set(key, s);
    }
    return s;
  }

  set(key: string, snapshot: BootSnapshot): void {
    this.entries.delete(key);
    this.entries.set(key, snapshot);
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Where the snapshot for key can be had when first wanted. */
  addSource(key: string, load: () => Promise<BootSnapshot>): void {
    if (!this.entries.has(key)) this.sources.set(key, load);
  }

  has(key: string): boolean {
    return this.entries.has(key) || this.sources.has(key);
  }

  delete(key: string): void {
    this.entries.delete(key);
    this.sources.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
