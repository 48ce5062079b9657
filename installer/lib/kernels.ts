// Kernels built in the guest: GENERIC from /usr/src/sys with the guest's own
// config and make, and the variants of experiments/kernels (variants.ts), each
// a copy of the sources with our patches applied by applydiff (a small C
// program compiled in the guest: the image has no patch(1)) and GENERIC's
// objects, of which make compiles again only what the patches changed.
//
// The sources go to the guest as a tar archive on a tape of their own
// (kernels.tar), extracted into /usr/lab/kernels on a scratch copy of the
// installed image; nothing of the build stays in the shipped image.  The
// kernels are read back from the scratch disk's /usr on the host (bsdfs) and
// ship beside the image as IMAGE-kernel-NAME.gz, so that the lab page fetches
// only the one chosen; the emulator boots them with --kernel-file (the CLI)
// or vax780w_set_kernel (WebAssembly).

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { KERNELS, isSpring1985Label, isWithoutLabel } from '../../experiments/kernels/variants';

export { isSpring1985Label, isWithoutLabel };
import type { KernelVariant } from '../../experiments/kernels/variants';
import type { TarEntry } from './tar';

/** Where the kernel sources are extracted in the guest. */
export const KERNEL_GUEST_DIR = '/usr/lab/kernels';
/** The build script the installer writes from variants.ts. */
export const BUILD_SCRIPT = 'build-kernels.sh';
/** The directories of /usr/src/sys a kernel build reads (mkvariant.sh copies them). */
export const KERNEL_SOURCE_DIRS = 'conf h machine net netimp netinet netns sys vax vaxif vaxmba vaxuba';

export interface KernelSourceFile {
  /** the name in experiments/kernels (patches/X.patch) and, without the folder, in the guest */
  path: string;
  guestName: string;
  sha256: string;
  bytes: number;
  data: Buffer;
}

export interface PatchInfo {
  file: string;
  sha256: string;
  /** the header's fields */
  variant: string;
  label: string;
  paper: string;
  /** the files it changes, relative to /usr/src/sys */
  touches: string[];
}

export interface KernelSources {
  dir: string;
  /** applydiff.c, mkvariant.sh and the patches, as carried to the guest */
  files: KernelSourceFile[];
  patches: PatchInfo[];
  kernels: readonly KernelVariant[];
}

export class KernelSourceError extends Error {}

function sha256(b: Buffer | string): string {
  return createHash('sha256').update(b).digest('hex');
}

/** A patch's header fields ("Variant: ...", "Label: ...", "Paper: ...")
 * and the files it changes (its "+++ b/PATH" lines). */
export function parsePatch(file: string, text: string): Omit<PatchInfo, 'sha256'> {
  const lines = text.split('\n');
  const first = lines.findIndex((l) => l.startsWith('--- '));
  if (first < 0) throw new KernelSourceError(`${file}: no "--- " line: not a unified diff`);
  const field = (name: string): string => {
    const l = lines.slice(0, first).find((x) => x.startsWith(`${name}: `));
    if (!l) throw new KernelSourceError(`${file}: the header has no "${name}:" line`);
    return l.slice(name.length + 2).trim();
  };
  const touches: string[] = [];
  for (const l of lines.slice(first)) {
    const m = /^\+\+\+ b\/(\S+)/.exec(l);
    if (m) {
      if (m[1]!.startsWith('/') || m[1]!.split('/').includes('..'))
        throw new KernelSourceError(`${file}: ${m[1]} is not a path inside the kernel sources`);
      touches.push(m[1]!);
    }
  }
  if (touches.length === 0) throw new KernelSourceError(`${file}: no "+++ b/PATH" line`);
  return { file, variant: field('Variant'), label: field('Label'), paper: field('Paper'), touches };
}

/** experiments/kernels as it is now: the files to carry, every patch's header
 * checked against variants.ts (a patch of one variant names that variant and
 * its label), every patch a variant lists present. */
export function findKernelSources(dir: string, kernels: readonly KernelVariant[] = KERNELS): KernelSources {
  const read = (path: string, guestName: string): KernelSourceFile => {
    const full = join(dir, path);
    if (!existsSync(full)) throw new KernelSourceError(`${full} is missing`);
    const data = readFileSync(full);
    return { path, guestName, sha256: sha256(data), bytes: data.length, data };
  };
  const files = [read('applydiff.c', 'applydiff.c'), read('mkvariant.sh', 'mkvariant.sh')];
  const patchDir = join(dir, 'patches');
  const present = existsSync(patchDir) ? readdirSync(patchDir).filter((n) => n.endsWith('.patch')).sort() : [];
  const patches: PatchInfo[] = [];
  for (const name of present) {
    const f = read(`patches/${name}`, name);
    if (!/^[a-z0-9][a-z0-9.-]*\.patch$/.test(name)) throw new KernelSourceError(`${name}: not a plain file name`);
    files.push(f);
    patches.push({ ...parsePatch(name, f.data.toString('latin1')), sha256: f.sha256 });
  }
  if (kernels[0]?.name !== 'generic' || kernels[0].patches.length !== 0)
    throw new KernelSourceError('the kernels must include generic (GENERIC from source, no patches), first: the variants start from its objects');
  const names = new Set<string>();
  for (const k of kernels) {
    if (!/^[a-z0-9][a-z0-9.-]*$/.test(k.name) || names.has(k.name))
      throw new KernelSourceError(`kernel variant ${JSON.stringify(k.name)}: names are unique, of a-z 0-9 . -`);
    names.add(k.name);
    if (k.name !== 'generic' && !isWithoutLabel(k.label) && !isSpring1985Label(k.label))
      throw new KernelSourceError(`kernel variant ${k.name}: its label must start "4.3BSD without " (it is not 4.2BSD), ` +
        'or be "4.3BSD with ..., as of spring 1985" (it is not the paper\'s kernel)');
    for (const p of k.patches)
      if (!patches.some((x) => x.file === p))
        throw new KernelSourceError(`kernel variant ${k.name}: patch ${p} is not in ${patchDir}`);
    if (k.patches.length === 1) {
      const p = patches.find((x) => x.file === k.patches[0])!;
      if (p.variant !== k.name || p.label !== k.label)
        throw new KernelSourceError(`${p.file}: its header says variant ${JSON.stringify(p.variant)}, ` +
          `label ${JSON.stringify(p.label)}; variants.ts says ${JSON.stringify(k.name)}, ${JSON.stringify(k.label)}`);
    }
  }
  return { dir, files, patches, kernels };
}

/** The objects a variant's build removes before make: those of the C files
 * its patches change (for conf/X.c, the build directory's copy X.c too);
 * anything else (a header, an assembler file) means every object. */
export function objectsToRebuild(touches: readonly string[]): string[] {
  const out = new Set<string>();
  for (const t of touches) {
    const base = t.split('/').pop()!;
    if (!base.endsWith('.c')) return ['*.o', 'locore.c', 'assym.s'];
    if (t.startsWith('conf/')) out.add(base);
    out.add(base.replace(/\.c$/, '.o'));
  }
  return [...out].sort();
}

/** Where each kernel is in the guest (relative to /usr, for bsdfs on the
 * hp0g slice, and absolute). */
export function kernelGuestPath(k: KernelVariant): string {
  return k.patches.length === 0 ? '/usr/src/sys/GENERIC/vmunix' : `/usr/src/sys-${k.name}/GENERIC/vmunix`;
}

/** The build directory the kernel's banner names (newvers.sh's pwd). */
export function kernelBuildDir(k: KernelVariant): string {
  return kernelGuestPath(k).replace(/\/vmunix$/, '');
}

/** build-kernels.sh: GENERIC from source (config, make clean, make), then
 * each variant with mkvariant.sh, stopping at the first failure; the last
 * line it prints is "kernels: finished with status N". */
export function buildScript(src: KernelSources): string {
  const lines = [
    '#!/bin/sh',
    '# Written by the vaxlab installer (installer/lib/kernels.ts) from experiments/kernels/variants.ts.',
    '# GENERIC from source, then every variant (mkvariant.sh); stops at the first failure.',
    '(',
  ];
  for (const k of src.kernels) {
    if (k.patches.length === 0) {
      lines.push(
        `\techo "===== kernel ${k.name}: config GENERIC; make clean; make vmunix"`,
        '\tcd /usr/src/sys/conf || exit 1',
        `\tconfig GENERIC || { echo "kernel ${k.name}: FAILED (config)"; exit 1; }`,
        '\tcd ../GENERIC || exit 1',
        `\tmake clean || { echo "kernel ${k.name}: FAILED (make clean)"; exit 1; }`,
        `\tmake vmunix || { echo "kernel ${k.name}: FAILED (make)"; exit 1; }`,
        `\ttest -f vmunix || { echo "kernel ${k.name}: FAILED (no vmunix)"; exit 1; }`,
        '\tsize vmunix',
        `\techo "kernel ${k.name}: built"`,
      );
    } else {
      const touches = k.patches.flatMap((p) => src.patches.find((x) => x.file === p)!.touches);
      const objs = objectsToRebuild(touches).join(' ');
      lines.push(`\tsh ${KERNEL_GUEST_DIR}/mkvariant.sh ${k.name} "${objs}" ` +
        k.patches.map((p) => `${KERNEL_GUEST_DIR}/${p}`).join(' ') + ' || exit 1');
    }
  }
  lines.push(')', 's=$?', 'echo "kernels: finished with status $s"', '');
  return lines.join('\n');
}

/** The archive's members: the sources, the patches and build-kernels.sh. */
export function kernelTarEntries(src: KernelSources, mtime: number): TarEntry[] {
  const entries: TarEntry[] = src.files.map((f) => ({ name: f.guestName, data: f.data, mode: 0o644, mtime }));
  entries.push({ name: BUILD_SCRIPT, data: Buffer.from(buildScript(src), 'latin1'), mode: 0o644, mtime });
  return entries;
}

/** The digest of everything the kernels depend on besides the image. */
export function kernelSourcesDigest(src: KernelSources): string {
  return sha256(JSON.stringify({
    files: src.files.map((f) => [f.path, f.sha256]),
    kernels: src.kernels.map((k) => [k.name, k.label, k.patches]),
    script: sha256(buildScript(src)),
  }));
}

// ------------------------------------------------------------------ transcripts

export interface KernelBuildFailure {
  kernel: string;
  why: string;
  /** the console output of that kernel's build, from its "=====" line */
  output: string;
}

/** The first "kernel NAME: FAILED (...)" of a build transcript, with that
 * kernel's part of the output (the guest's own messages). */
export function findBuildFailure(transcript: string): KernelBuildFailure | null {
  const text = transcript.replace(/\r/g, '');
  const m = /^kernel (\S+): FAILED \((.*)\)$/m.exec(text);
  if (!m) return null;
  const start = text.lastIndexOf(`===== kernel ${m[1]}:`, m.index);
  return { kernel: m[1]!, why: m[2]!, output: text.slice(start < 0 ? 0 : start, m.index + m[0].length) };
}

/** The C files make compiled for a kernel (its "cc -c ... FILE.c" lines). */
export function compiledFiles(transcript: string, kernel: string): string[] {
  const text = transcript.replace(/\r/g, '');
  const start = text.indexOf(`===== kernel ${kernel}:`);
  const end = text.indexOf(`\nkernel ${kernel}: built`, start);
  if (start < 0 || end < 0) return [];
  const out: string[] = [];
  for (const l of text.slice(start, end).split('\n')) {
    const m = /^cc -c .*\s(\S+\.c)$/.exec(l);
    if (m) out.push(m[1]!.replace(/^\.\.\//, ''));
  }
  return out;
}

export interface TimeLine {
  real: number;
  user: number;
  sys: number;
}

/** The /bin/time line after a "# /bin/time COMMAND" line of a transcript. */
export function timeOf(transcript: string, command: string): TimeLine | null {
  const text = transcript.replace(/\r/g, '');
  const at = text.indexOf(`# /bin/time ${command}\n`);
  if (at < 0) return null;
  const end = text.indexOf('\n# ', at + 1);
  const m = /(\d+\.\d+) real\s+(\d+\.\d+) user\s+(\d+\.\d+) sys/.exec(text.slice(at, end < 0 ? undefined : end));
  return m ? { real: Number(m[1]), user: Number(m[2]), sys: Number(m[3]) } : null;
}

/** text, data, bss of an a.out header. */
export function aoutSizes(file: Buffer): { magic: number; text: number; data: number; bss: number } | null {
  if (file.length < 32) return null;
  const magic = file.readUInt32LE(0);
  if (magic !== 0o407 && magic !== 0o410 && magic !== 0o413) return null;
  return { magic, text: file.readUInt32LE(4), data: file.readUInt32LE(8), bss: file.readUInt32LE(12) };
}
