// What the runner's tests share: the wasm emulator and the lab's 4.3BSD
// image loaded once per test file, or the reason they are skipped (no
// wasm build, no image) so that a machine without them says so instead
// of failing.

import { after, before } from 'node:test';

import type { DiskImage } from '../../emu/js/diskImage';
import type { Vax780System } from '../../emu/js/vax780';
import type { VaxMachineApi } from '../../emu/js/vaxModule';
import { findLabImage, loadVaxNode, openDiskImage, wasmBuildExists } from '../../emu/js/vaxNode';
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

export interface BootedSystem {
  sys: Vax780System;
  session: ConsoleSession;
  /** Types a line and waits for the next prompt; the output in between. */
  run(line: string, limitSeconds?: number): Promise<string>;
}

/** A machine of the lab image booted single-user (directly, kernel
 *  variables patched) to its first prompt, with a session on its console. */
export async function bootSingleUser(lab: LabImage, options: {
  set?: Record<string, number>; memoryMB?: number; hooks?: SessionHooks; runLimitSeconds?: number;
} = {}): Promise<BootedSystem> {
  const { set = {}, memoryMB = 8, hooks = {}, runLimitSeconds = 120 } = options;
  const sys = lab.api.vax780.create({ memoryMB, disk: lab.disk, boot: 'single', direct: true, set });
  const session = new ConsoleSession(sys, (r) => lab.api.vax780.stopName(r), hooks);
  await session.expect(PROMPT, 300);
  const run = async (line: string, limitSeconds = runLimitSeconds) => {
    session.send(line);
    return (await session.expect(PROMPT, limitSeconds)).output;
  };
  return { sys, session, run };
}
