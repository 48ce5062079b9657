// Naming the code in a raw profile (raw.ts): each (image, address) is the
// function whose symbol is the last at or below it, in that image's table.
//
// Names are the symbol tables' own, as nm and the paper's gprof listings
// show them: the kernel's C functions with their underscore (_namei,
// _syscall), its assembly entries as locore.s names them (_Xsyscall for the
// system call vector, Idle, _Swtch).  A program's functions carry its name,
// DTrace-style: `syscall`_main`, `sh`0x2b84` for a program without symbols
// (4.3BSD's /bin is stripped), so that user code of different programs and
// the kernel never share a name.  A program's root in the tree is [name],
// [kernel] for processes with no program (the swapper, the pagedaemon, the
// boot).

import { IMAGE_KERNEL, IMAGE_UNMAPPED, type RawImage, type RawNode, type RawProfile } from './raw';

export interface FunctionName {
  /** Unique across the profile: the display name (see above). */
  key: string;
  /** The symbol (or hex address) without the program. */
  symbol: string;
  /** The program's name for user code and program roots, null for the kernel. */
  program: string | null;
  /** The program root pseudo-function [name] rather than code. */
  isProgram: boolean;
}

const hex = (n: number): string => `0x${(n >>> 0).toString(16)}`;

/** Processes without a program of their own show under this root. */
export const KERNEL_PROGRAM = '[kernel]';

export class Symbolizer {
  private readonly values: number[][];
  private readonly names: string[][];
  private readonly cache = new Map<string, FunctionName>();

  constructor(private readonly images: RawImage[]) {
    this.values = images.map((im) => im.symbols.map((s) => s[0]));
    this.names = images.map((im) => im.symbols.map((s) => s[1]));
  }

  /** The symbol at or below addr in image, or null. */
  symbolAt(image: number, addr: number): { name: string; offset: number } | null {
    const v = this.values[image];
    if (!v || v.length === 0 || v[0]! > addr) return null;
    let lo = 0, hi = v.length;   // the answer is below hi
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (v[mid]! <= addr) lo = mid;
      else hi = mid;
    }
    return { name: this.names[image]![lo]!, offset: addr - v[lo]! };
  }

  /** The function a node stands for. */
  nodeFunction(node: Pick<RawNode, 'kind' | 'image' | 'addr'>): FunctionName {
    const key = `${node.kind === 'program' ? 'p' : 'c'}:${node.image}:${node.addr}`;
    let f = this.cache.get(key);
    if (!f) {
      f = this.name(node);
      this.cache.set(key, f);
    }
    return f;
  }

  private name(node: Pick<RawNode, 'kind' | 'image' | 'addr'>): FunctionName {
    const image = this.images[node.image]!;
    if (node.kind === 'program') {
      const key = node.image === IMAGE_KERNEL ? KERNEL_PROGRAM : `[${image.name}]`;
      return { key, symbol: key, program: node.image === IMAGE_KERNEL ? null : image.name, isProgram: true };
    }
    if (node.image === IMAGE_UNMAPPED) return { key: '(unmapped)', symbol: '(unmapped)', program: null, isProgram: false };
    if (node.image === IMAGE_KERNEL) {
      const s = this.symbolAt(IMAGE_KERNEL, node.addr);
      const symbol = s ? s.name : hex(node.addr);
      return { key: symbol, symbol, program: null, isProgram: false };
    }
    // A program's code: P0 is its text; code in P1 is the signal trampoline
    // 4.3BSD copies into the u area (pcb_sigc).
    let symbol: string;
    if (node.addr >= 0x4000_0000) symbol = '(sigcode)';
    else {
      const s = this.symbolAt(node.image, node.addr);
      symbol = s ? s.name : hex(node.addr);
    }
    return { key: `${image.name}\`${symbol}`, symbol, program: image.name, isProgram: false };
  }
}

/** Images met (those of `used`, all by default) without symbols, and why
 *  ("sh: no symbols (no symbol table (stripped))"). */
export function symbolNotes(raw: RawProfile, used: Set<number> = new Set(raw.nodes.map((n) => n.image))): string[] {
  return raw.images
    .map((im, i) => ({ im, i }))
    .filter(({ im, i }) => used.has(i) && i !== IMAGE_UNMAPPED && im.symbols.length === 0)
    .map(({ im, i }) => `${i === IMAGE_KERNEL ? `the kernel${raw.kernelPath ? ` (${raw.kernelPath})` : ''}` : im.name}: ` +
      `no symbols${im.note ? ` (${im.note})` : ''}; its code is named by address`);
}
