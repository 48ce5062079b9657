// Node: where the installer writes a kernel variant (beside the disk image it
// was built for, web/public/images/IMAGE-kernel-NAME.gz) and its bytes as a
// run takes them (RunOptions.kernel: the name a result records, the bytes and
// their SHA-256, which the boot key and a snapshot check).  One definition for
// the CLI and the benchmarks; the page fetches the same files by the image's
// manifest.

import { createHash } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

import { loadDiskImage } from '../../emu/js/vaxNode';
import { kernelFileName } from './variants';

/** The file of variant `name` beside the image at `imagePath` (IMAGE.dsk or IMAGE.dsk.gz). */
export function kernelFileBeside(imagePath: string, name: string): string {
  return join(dirname(imagePath), kernelFileName(basename(imagePath).replace(/\.dsk(\.gz)?$/, ''), name));
}

/** A kernel file (gzipped or not) read as a run takes it, under the name its result will record. */
export async function readKernel(file: string, name: string): Promise<{ name: string; bytes: Uint8Array; sha256: string }> {
  const bytes = await loadDiskImage(file);
  return { name, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}
