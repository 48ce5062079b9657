// What a machine snapshot file says about itself, read without a machine:
// its header (format, the emulator build and the disk image it belongs to)
// and its sections, among them the host's bytes (HOST).  The layout is
// emu/src/snapshot/snap.h's; only the C side reads the sections' contents
// (a restore checks everything again, checksums included).

export const SNAPSHOT_MAGIC = 'VAXSNAP\0';
export const SNAPSHOT_FORMAT_VERSION = 1;
export const SNAPSHOT_HEADER_BYTES = 96;

export interface SnapshotInfo {
  formatVersion: number;
  /** The emulator build that wrote it (SHA-256 of emu/src, hex). */
  buildId: string;
  /** The identity of the disk image under it (its SHA-256, hex). */
  diskId: string;
  /** The sections in order: 4-character tag, where the contents start, length. */
  sections: { tag: string; offset: number; length: number }[];
  /** The host's bytes (the HOST section's data), a view into the file. */
  host: Uint8Array;
}

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

/** Reads the header and the section list; throws with the reason when the bytes are not a snapshot of this format. */
export function readSnapshotInfo(bytes: Uint8Array): SnapshotInfo {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = String.fromCharCode(...bytes.subarray(0, 8));
  if (bytes.length < SNAPSHOT_HEADER_BYTES || magic !== SNAPSHOT_MAGIC) throw new Error('not a vaxlab machine snapshot');
  const formatVersion = view.getUint32(8, true);
  if (formatVersion !== SNAPSHOT_FORMAT_VERSION || view.getUint32(12, true) !== SNAPSHOT_HEADER_BYTES) {
    throw new Error(`snapshot format ${formatVersion}; this reader knows format ${SNAPSHOT_FORMAT_VERSION}`);
  }
  const payload = Number(view.getBigUint64(80, true));
  if (payload !== bytes.length - SNAPSHOT_HEADER_BYTES) throw new Error('snapshot damaged: its length');
  const sections: SnapshotInfo['sections'] = [];
  let host: Uint8Array | null = null;
  for (let at = SNAPSHOT_HEADER_BYTES; at < bytes.length;) {
    if (bytes.length - at < 8) throw new Error('snapshot damaged: a section header is cut off');
    const tag = String.fromCharCode(...bytes.subarray(at, at + 4));
    const length = view.getUint32(at + 4, true);
    if (length > bytes.length - at - 8) throw new Error(`snapshot damaged: section ${tag} runs past the end`);
    sections.push({ tag, offset: at + 8, length });
    if (tag === 'HOST') {
      // A blob: its own length, then the bytes.
      const n = length >= 4 ? view.getUint32(at + 8, true) : -1;
      if (n !== length - 4) throw new Error('snapshot damaged: the host section');
      host = bytes.subarray(at + 12, at + 12 + n);
    }
    at += 8 + length;
  }
  if (!host) throw new Error('snapshot damaged: no host section');
  return {
    formatVersion, buildId: hex(bytes.subarray(16, 48)), diskId: hex(bytes.subarray(48, 80)), sections, host,
  };
}
