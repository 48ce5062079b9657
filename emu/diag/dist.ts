// DEC's own VAX diagnostics as test inputs: where they are and whether they
// are the files we expect.
//
// They are DEC's programs, kept beside the repository (../shared/diag, or
// $VAXLAB_DIAG) and never in it: we load and run them, nothing more.  Each
// file is checked against the directory's SHA256SUMS before it runs, so a
// short, damaged or different file is refused with its name instead of
// failing somewhere inside the emulated machine.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The diagnostics directory: $VAXLAB_DIAG if set, else ../shared/diag beside the repository. */
export function diagDir(): string {
  return resolve(process.env.VAXLAB_DIAG || join(REPO_ROOT, '..', 'shared', 'diag'));
}

/** Why the diagnostics cannot run here, or null when the directory and its SHA256SUMS exist. */
export function diagMissing(dir: string = diagDir()): string | null {
  if (!existsSync(dir)) return `no diagnostics directory ${dir} (DEC's diagnostics are not in the repository; set VAXLAB_DIAG)`;
  if (!existsSync(join(dir, 'SHA256SUMS'))) return `${dir} has no SHA256SUMS`;
  return null;
}

/** A diagnostic file that is not what SHA256SUMS says. */
export class DiagFileError extends Error {}

/** The bytes of one diagnostic file, checked against SHA256SUMS: throws a
 *  DiagFileError naming the file when it is missing, unlisted, or its size or
 *  digest differ (a short copy, a different revision). */
export function readDiagFile(name: string, dir: string = diagDir()): Uint8Array {
  const sums = readFileSync(join(dir, 'SHA256SUMS'), 'utf8');
  const line = sums.split('\n').find((l) => l.trim().split(/\s+\*?/)[1] === name);
  if (!line) throw new DiagFileError(`${name} is not listed in ${join(dir, 'SHA256SUMS')}`);
  const want = line.trim().split(/\s+/)[0]!.toLowerCase();
  const path = join(dir, name);
  if (!existsSync(path)) throw new DiagFileError(`${path} is missing`);
  if (!statSync(path).isFile()) throw new DiagFileError(`${path} is not a file`);
  const bytes = readFileSync(path);
  const got = createHash('sha256').update(bytes).digest('hex');
  if (got !== want) {
    throw new DiagFileError(`${path} (${bytes.length} bytes) is not the expected file: SHA-256 ${got.slice(0, 16)}…, ` +
      `SHA256SUMS says ${want.slice(0, 16)}… (short, damaged or another revision)`);
  }
  return bytes;
}
