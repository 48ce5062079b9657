// What the runner's tests share: the wasm emulator and the lab's 4.3BSD
// image loaded once per test file, or the reason they are skipped (no
// wasm build, no image) so that a machine without them says so instead
// of failing.

import { after, before } from 'node:test';

import type { DiskImage, VaxMachineApi } from '../../web/src/emulator/vaxModule';
import { findLabImage, loadDiskImage, loadVaxNode, wasmBuildExists } from '../../web/src/emulator/vaxNode';

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
    lab.disk = lab.api.vax780.loadImage(await loadDiskImage(imagePath!));
  });
  after(() => lab.disk?.dispose());
  return lab;
}
