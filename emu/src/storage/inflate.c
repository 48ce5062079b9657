/*
 * inflate.c — raw DEFLATE decoding (inflate.h), after RFC 1951.
 *
 * Bits are taken least significant first from each byte (RFC 1951, 3.1.1);
 * Huffman codes are packed starting with their most significant bit, so a
 * code read bit by bit arrives in its natural order, and one looked up in a
 * table indexed by the next FAST_BITS stream bits must be indexed by its
 * bits reversed.  Codes up to FAST_BITS long are found with one table
 * look-up; longer ones (rare: the lengths of at most a few symbols) are
 * decoded canonically, a bit at a time, from the count of codes of each
 * length.
 */
#include "storage/inflate.h"

#include <string.h>

#define MAX_BITS 15       /* the longest code DEFLATE allows */
#define FAST_BITS 9
#define MAX_LITLEN 288    /* literal/length alphabet (286 used, 288 for the fixed code) */
#define MAX_DIST 32       /* distance alphabet (30 used, 32 for the fixed code) */

typedef struct {
    const uint8_t *in, *end;
    uint64_t bits;        /* bits not yet used, the next one in bit 0 */
    int nbits;
    int pad;              /* of those, zeros put in past the end of the input (the top ones) */
} bit_reader;

/* Bits were used that the input does not have. */
#define OVERRUN(b) ((b)->nbits < (b)->pad)

typedef struct {
    uint16_t count[MAX_BITS + 1];   /* codes of each length */
    uint16_t symbol[MAX_LITLEN];    /* symbols in canonical order (by length, then value) */
    /* FAST_BITS stream bits -> symbol | length << 12; 0 = not a short code */
    uint16_t fast[1u << FAST_BITS];
} huffman;

/* Base values and extra bits of the length codes 257..285 and the distance
 * codes 0..29 (RFC 1951, 3.2.5). */
static const uint16_t LEN_BASE[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t LEN_EXTRA[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t DIST_BASE[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                       193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t DIST_EXTRA[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
/* The order in which a dynamic block gives the code-length code's lengths (3.2.7). */
static const uint8_t CLEN_ORDER[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

static void fill(bit_reader *b)
{
    while (b->nbits <= 56) {
        if (b->in < b->end)
            b->bits |= (uint64_t)*b->in++ << b->nbits;
        else
            b->pad += 8;   /* zeros past the end: a stream that uses them is bad (OVERRUN) */
        b->nbits += 8;
    }
}

static uint32_t get_bits(bit_reader *b, int n)
{
    if (n == 0)
        return 0;
    if (b->nbits < n)
        fill(b);
    uint32_t v = (uint32_t)(b->bits & ((1u << n) - 1));
    b->bits >>= n;
    b->nbits -= n;
    return v;
}

/* Build the decoding tables of a code from its symbols' lengths (0 = not
 * used).  Returns 0, or -1 for an over-subscribed set of lengths (an
 * incomplete one is allowed: a code that never occurs fails when met). */
static int build(huffman *h, const uint8_t *len, int n)
{
    uint16_t offs[MAX_BITS + 2];
    memset(h->count, 0, sizeof h->count);
    memset(h->fast, 0, sizeof h->fast);
    for (int i = 0; i < n; i++)
        h->count[len[i]]++;
    h->count[0] = 0;
    int left = 1;
    for (int l = 1; l <= MAX_BITS; l++) {
        left = left * 2 - h->count[l];
        if (left < 0)
            return -1;
    }
    offs[1] = 0;
    for (int l = 1; l <= MAX_BITS; l++)
        offs[l + 1] = (uint16_t)(offs[l] + h->count[l]);
    for (int i = 0; i < n; i++)
        if (len[i])
            h->symbol[offs[len[i]]++] = (uint16_t)i;
    /* The short codes into the fast table: canonical code values, reversed. */
    uint32_t code = 0;
    int k = 0;
    for (int l = 1; l <= MAX_BITS; l++) {
        for (int c = 0; c < h->count[l]; c++, k++, code++) {
            if (l > FAST_BITS)
                continue;
            uint32_t rev = 0;
            for (int i = 0; i < l; i++)
                rev |= ((code >> i) & 1u) << (l - 1 - i);
            for (uint32_t fill_bits = rev; fill_bits < (1u << FAST_BITS); fill_bits += 1u << l)
                h->fast[fill_bits] = (uint16_t)(h->symbol[k] | (unsigned)l << 12);
        }
        code <<= 1;
    }
    return 0;
}

/* The next symbol of code h, or -1 for a code that does not exist. */
static int decode(bit_reader *b, const huffman *h)
{
    if (b->nbits < MAX_BITS)
        fill(b);
    uint16_t e = h->fast[b->bits & ((1u << FAST_BITS) - 1)];
    if (e) {
        int l = e >> 12;
        b->bits >>= l;
        b->nbits -= l;
        return e & 0xFFF;
    }
    /* Canonically, a bit at a time: codes of length l run from first to
     * first + count[l] - 1, and the next length's first is twice the end. */
    int code = 0, first = 0, index = 0;
    for (int l = 1; l <= MAX_BITS; l++) {
        code |= (int)get_bits(b, 1);
        int count = h->count[l];
        if (code - first < count)
            return h->symbol[index + (code - first)];
        index += count;
        first = (first + count) << 1;
        code <<= 1;
    }
    return -1;
}

/* The compressed data of one block, literal/length code lit and distance
 * code dist, into out from *pos on. */
static const char *codes(bit_reader *b, const huffman *lit, const huffman *dist, uint8_t *out, size_t cap, size_t *pos)
{
    size_t p = *pos;
    for (;;) {
        int sym = decode(b, lit);
        if (OVERRUN(b))
            return "the data ends in the middle of a block";
        if (sym < 0)
            return "a code that does not exist";
        if (sym < 256) {
            if (p >= cap)
                return "more data than the output holds";
            out[p++] = (uint8_t)sym;
            continue;
        }
        if (sym == 256)
            break;
        sym -= 257;
        if (sym >= 29)
            return "a length code out of range";
        size_t len = LEN_BASE[sym] + get_bits(b, LEN_EXTRA[sym]);
        int d = decode(b, dist);
        if (d < 0 || d >= 30)
            return "a distance code out of range";
        size_t distance = DIST_BASE[d] + get_bits(b, DIST_EXTRA[d]);
        if (OVERRUN(b))
            return "the data ends in the middle of a block";
        if (distance > p)
            return "a distance back before the start of the data";
        if (len > cap - p)
            return "more data than the output holds";
        /* Byte by byte: the copy may overlap what it writes (a run). */
        for (size_t i = 0; i < len; i++, p++)
            out[p] = out[p - distance];
    }
    *pos = p;
    return NULL;
}

long inflate_raw(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap, const char **why)
{
    bit_reader b = {in, in + in_len, 0, 0, 0};
    huffman lit, dist, clen;
    uint8_t lengths[MAX_LITLEN + MAX_DIST];
    size_t pos = 0;
    const char *err = NULL;
    int last;
    do {
        last = (int)get_bits(&b, 1);
        int type = (int)get_bits(&b, 2);
        if (type == 0) {
            /* Stored: to the byte boundary, LEN and its complement, LEN bytes. */
            int skip = b.nbits % 8;
            get_bits(&b, skip);
            uint32_t len = get_bits(&b, 16), nlen = get_bits(&b, 16);
            if (OVERRUN(&b)) {
                err = "the data ends in a stored block's header";
                break;
            }
            if ((len ^ 0xFFFFu) != nlen) {
                err = "a stored block's length and its complement disagree";
                break;
            }
            /* The input's bytes still in the bit buffer come first. */
            while (len && b.nbits - b.pad >= 8) {
                if (pos >= out_cap) {
                    err = "more data than the output holds";
                    break;
                }
                out[pos++] = (uint8_t)get_bits(&b, 8);
                len--;
            }
            if (err)
                break;
            if (len > (size_t)(b.end - b.in)) {
                err = "the data ends in a stored block";
                break;
            }
            if (len > out_cap - pos) {
                err = "more data than the output holds";
                break;
            }
            memcpy(out + pos, b.in, len);
            b.in += len;
            pos += len;
        } else if (type == 1) {
            /* The fixed code (3.2.6). */
            int i = 0;
            for (; i < 144; i++)
                lengths[i] = 8;
            for (; i < 256; i++)
                lengths[i] = 9;
            for (; i < 280; i++)
                lengths[i] = 7;
            for (; i < 288; i++)
                lengths[i] = 8;
            build(&lit, lengths, 288);
            for (i = 0; i < 30; i++)
                lengths[i] = 5;
            build(&dist, lengths, 30);
            err = codes(&b, &lit, &dist, out, out_cap, &pos);
        } else if (type == 2) {
            /* A dynamic code: its lengths, themselves Huffman coded (3.2.7). */
            int nlit = (int)get_bits(&b, 5) + 257, ndist = (int)get_bits(&b, 5) + 1, nclen = (int)get_bits(&b, 4) + 4;
            if (nlit > 286 || ndist > 30) {
                err = "a dynamic block with too many codes";
                break;
            }
            uint8_t cl[19] = {0};
            for (int i = 0; i < nclen; i++)
                cl[CLEN_ORDER[i]] = (uint8_t)get_bits(&b, 3);
            if (build(&clen, cl, 19) < 0) {
                err = "an impossible code-length code";
                break;
            }
            int n = 0;
            while (n < nlit + ndist && !err) {
                int sym = decode(&b, &clen);
                if (OVERRUN(&b))
                    err = "the data ends in a block's code lengths";
                else if (sym < 0)
                    err = "a code that does not exist";
                else if (sym < 16)
                    lengths[n++] = (uint8_t)sym;
                else {
                    int repeat, value = 0;
                    if (sym == 16) {
                        if (n == 0) {
                            err = "a repeat of no previous length";
                            break;
                        }
                        value = lengths[n - 1];
                        repeat = 3 + (int)get_bits(&b, 2);
                    } else if (sym == 17) {
                        repeat = 3 + (int)get_bits(&b, 3);
                    } else {
                        repeat = 11 + (int)get_bits(&b, 7);
                    }
                    if (n + repeat > nlit + ndist) {
                        err = "code lengths beyond the codes";
                        break;
                    }
                    while (repeat--)
                        lengths[n++] = (uint8_t)value;
                }
            }
            if (err)
                break;
            if (lengths[256] == 0) {
                err = "a code without an end of block";
                break;
            }
            if (build(&lit, lengths, nlit) < 0 || build(&dist, lengths + nlit, ndist) < 0) {
                err = "an impossible code";
                break;
            }
            err = codes(&b, &lit, &dist, out, out_cap, &pos);
        } else {
            err = "a block of the reserved type 3";
        }
    } while (!last && !err);
    if (!err && OVERRUN(&b))
        err = "the data ends early";
    if (err) {
        if (why)
            *why = err;
        return -1;
    }
    return (long)pos;
}
