/*
 * inflate.h — decoding raw DEFLATE data (RFC 1951, "DEFLATE Compressed Data
 * Format Specification version 1.3"): stored, fixed-Huffman and
 * dynamic-Huffman blocks, as zlib's deflate writes them without a zlib or
 * gzip wrapper.  The chunked disk image (chunked.h) stores each chunk this
 * way, so a chunk is decompressed only when the machine first reads it.
 *
 * Any input is safe: a malformed stream (a bad block type, an impossible
 * code, a distance before the start of the output, more output than room,
 * input that ends early) is an error, never a read or write outside the
 * buffers.
 */
#ifndef VAX_STORAGE_INFLATE_H
#define VAX_STORAGE_INFLATE_H

#include <stddef.h>
#include <stdint.h>

/* Decode in_len bytes of raw DEFLATE into out (room for out_cap bytes).
 * Returns the number of bytes written, or -1 with a reason in *why (a
 * constant string) when the stream is not valid or does not fit. */
long inflate_raw(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, const char **why);

#endif
