/*
 * chunked.h — a disk image compressed in chunks, decompressed as the
 * machine reads them.
 *
 * Why: the lab's 4.3BSD pack is 174 MB and compresses to about 5 MB; a boot
 * and an experiment read a small part of it.  Gunzipping the whole pack
 * before the first instruction costs its time and its 174 MB of memory in
 * every page and every runner; this format keeps the compressed bytes and
 * decompresses a chunk the first time something reads it, keeping it for
 * the next read (a chunk no one reads is never decompressed).  Any number of
 * systems share one chunked image (each writes into its own overlay,
 * overlay.h, over it).
 *
 * The file (all integers little-endian):
 *
 *   header, CHUNKED_HEADER_BYTES bytes:
 *     0  magic "VAXDSKZ\0"
 *     8  u32 format version (1)
 *    12  u32 chunk bytes (OVERLAY_CHUNK, 65536: the overlay's chunk)
 *    16  u64 image bytes
 *    24  u32 chunks (image bytes / chunk bytes, rounded up)
 *    28  u32 CRC-32 of the index
 *    32  32 bytes: SHA-256 of the image (its identity, as the manifest and
 *        machine snapshots name it)
 *    64  u32 CRC-32 of bytes 0..63 (with this field zero)
 *    68  60 bytes of zeros
 *   the index, from CHUNKED_HEADER_BYTES: per chunk 16 bytes —
 *        u64 where its stored bytes are in the file, u32 how many,
 *        u32 CRC-32 of the chunk's decompressed bytes.  Stored 0 bytes: a
 *        chunk of zeros; stored as many bytes as the chunk has: the bytes
 *        as they are; otherwise raw DEFLATE (RFC 1951, inflate.h).  Chunks
 *        with the same bytes may share their stored bytes.
 *   the stored bytes (anywhere after the index).
 *
 * Checked when opened: the header, its CRC, the index's CRC, every chunk's
 * stored bytes lying inside the file.  Checked when a chunk is first read:
 * that it decompresses to exactly its length with its CRC-32; a chunk that
 * does not reads as an I/O error (the disk controller reports it to the
 * guest) and the reason is kept (chunked_error).
 */
#ifndef VAX_STORAGE_CHUNKED_H
#define VAX_STORAGE_CHUNKED_H

#include <stddef.h>
#include <stdint.h>

#include "storage/blockdev.h"

#define CHUNKED_HEADER_BYTES 128u
#define CHUNKED_INDEX_ENTRY 16u

typedef struct chunked_image chunked_image;

/* Open a chunked image over file (len bytes), which it keeps: freed by
 * chunked_close when own is set, else the caller's until then.  NULL with a
 * message in err when it is not a valid chunked image. */
chunked_image *chunked_open(uint8_t *file, size_t len, int own, char *err, size_t errlen);
void chunked_close(chunked_image *ci);

uint64_t chunked_size(const chunked_image *ci);
/* The image's SHA-256 as the header gives it (32 bytes). */
const uint8_t *chunked_sha256(const chunked_image *ci);

/* Read len bytes from off, decompressing the chunks not read before. 0, or
 * -1 (out of range, a damaged chunk, out of host memory). */
int chunked_read(chunked_image *ci, uint64_t off, void *buf, size_t len);

/* Chunk i decompressed into out (room for the chunk bytes; the last chunk
 * may be shorter) without keeping it: for callers that keep chunks
 * elsewhere (the browser's and Node's workers share one copy of each in a
 * SharedArrayBuffer: emu/js/sharedChunkCache.ts).  0; 1 for a chunk of
 * zeros (out not written); -1 when i is out of range or the chunk is
 * damaged (the reason as chunked_error's). */
int chunked_inflate_chunk(chunked_image *ci, uint32_t i, uint8_t *out);
/* Only the header and index (head: the file's first head_len bytes, at
 * least CHUNKED_HEADER_BYTES + 16 per chunk; kept, freed by chunked_close
 * when own is set) of a file of file_len bytes, checked as chunked_open
 * checks the whole file (the index's CRC, every chunk inside file_len):
 * for callers that hold the stored bytes elsewhere (in memory shared by
 * several workers) and hand each chunk's to chunked_inflate_stored.  Its
 * chunked_read and chunked_inflate_chunk fail. */
chunked_image *chunked_open_index(uint8_t *head, size_t head_len, size_t file_len, int own, char *err, size_t errlen);
/* Chunk i from its stored bytes (stored_len of them, which must be what the
 * index gives), into out: as chunked_inflate_chunk. */
int chunked_inflate_stored(chunked_image *ci, uint32_t i, const uint8_t *stored, size_t stored_len, uint8_t *out);
uint32_t chunked_chunk_bytes(const chunked_image *ci);
uint32_t chunked_chunks(const chunked_image *ci);

/* The first damaged chunk's reason, or NULL. */
const char *chunked_error(const chunked_image *ci);
/* Forgets it: the next damaged chunk read is kept (whoever reports damage
 * step by step asks chunked_error after each step and clears it). */
void chunked_clear_error(chunked_image *ci);

/* What it holds: chunks decompressed so far and their bytes, and the file's. */
typedef struct {
    uint64_t chunks, chunks_inflated, bytes_inflated, file_bytes;
} chunked_stats;
void chunked_get_stats(const chunked_image *ci, chunked_stats *out);

/* A read-only block device over it (the base of a system's overlay). */
void blockdev_chunked(vax_blockdev *bd, chunked_image *ci);

#endif
