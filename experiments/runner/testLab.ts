// What the runner's tests share: the wasm emulator and the lab's 4.3BSD
// image loaded once per test file, or the reason they are skipped (no
// wasm build, no image) so that a machine without them says so instead
// of failing.

import { existsSync } from 'node:fs';
import { after, before } from 'node:test';

import type { DiskImage } from '../../emu/js/diskImage';
import type { Vax780System } from '../../emu/js/vax780';
import type { VaxMachineApi } from '../../emu/js/vaxModule';
import { findLabImage, loadVaxNode, openDiskImage, wasmBuildExists } from '../../emu/js/vaxNode';
import { kernelFileBeside } from '../kernels/kernelFiles';
import { PROMPT } from './runner';
import { ConsoleSession, type SessionHooks } from './session';

export interface LabImage {
  /** false, or why the emulator tests are skipped. */
  skip: string | false;
  api: VaxMachineApi;
  /** One pristine image for every machine of the file (copy-on-write overlays). */
  disk: DiskImage;
}

/** Registers before/after hooks that load the emulator and the image for
 *  the calling test file; the fields are set once before() has run. */
export function useLabImage(testFile: string): LabImage {
  const imagePath = findLabImage();
  const lab = {
    skip: !wasmBuildExists()
      ? 'the WebAssembly emulator is not built (make -C emu wasm)'
      : imagePath ? false : 'no 4.3BSD image: build web/public/images/43bsd.dsk.gz with `npm run image` (or set VAXLAB_IMAGE)',
  } as LabImage;
  before(async () => {
    if (lab.skip) {
      console.log(`${testFile}: emulator tests skipped: ${lab.skip}`);
      return;
    }
    lab.api = await loadVaxNode();
    // Compressed in chunks when the installer wrote them (openDiskImage), named by its SHA-256.
    lab.disk = (await openDiskImage(lab.api.vax780, imagePath!)).disk;
  });
  after(() => lab.disk?.dispose());
  return lab;
}

/** The kernel variant files beside the lab image that a test boots, and why the test is skipped: the lab's own
 *  reason, or the first of `names` not built (the installer builds them beside the image). */
export function labKernels(lab: LabImage, names: readonly string[]): { file(name: string): string; skip: string | false } {
  const imagePath = findLabImage();
  const file = (name: string): string => {
    if (!imagePath) throw new Error('no lab image');
    return kernelFileBeside(imagePath, name);
  };
  if (lab.skip || !imagePath) return { file, skip: lab.skip || 'no lab image' };
  const missing = names.find((k) => !existsSync(file(k)));
  return { file, skip: missing ? `no kernel ${missing} beside the lab image: npm run image builds it` : false };
}

export interface BootedSystem {
  sys: Vax780System;
  session: ConsoleSession;
  /** Types a line and waits for the next prompt; the output in between. */
  run(line: string, limitSeconds?: number): Promise<string>;
}

/** A machine of the lab image booted single-user (directly, kernel
 *  variables patched; `kernel`: a kernel's bytes instead of the image's
 *  /vmunix) to its first prompt, with a session on its console. */
export async function bootSingleUser(lab: LabImage, options: {
  set?: Record<string, number>; memoryMB?: number; hooks?: SessionHooks; runLimitSeconds?: number; kernel?: Uint8Array;
} = {}): Promise<BootedSystem> {
  const { set = {}, memoryMB = 8, hooks = {}, runLimitSeconds = 120, kernel } = options;
  const sys = lab.api.vax780.create({ memoryMB, disk: lab.disk, boot: 'single', direct: true, set, ...(kernel ? { kernel } : {}) });
  const session = new ConsoleSession(sys, (r) => lab.api.vax780.stopName(r), hooks);
  await session.expect(PROMPT, 300);
  const run = async (line: string, limitSeconds = runLimitSeconds) => {
    session.send(line);
    return (await session.expect(PROMPT, limitSeconds)).output;
  };
  return { sys, session, run };
}

/** The lines a command printed, from BootedSystem.run's output: its echo and the next prompt cut off. */
export function printed(output: string): string[] {
  return output.replace(/\r/g, '').split('\n').slice(1, -1);
}
