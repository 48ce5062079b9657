/*
 * profile.c — the profiler (profile.h): the calling-context tree, the shadow
 * stacks per process context, and the JSON dump.
 *
 * The dump ("vaxlab-profile-raw", version 1) is one JSON object:
 *   format, version
 *   nsPerInstruction, costDenominator   virtual ns = cost * nsPerInstruction
 *                                       / costDenominator (machine.c)
 *   instructions, cost                  totals since the profile was started
 *                                       or cleared: the nodes add up to them
 *   kernelPath
 *   slots    the cost columns: kernel, exec, super, user, interrupt, idle
 *   kinds    node kinds by number (profile.h)
 *   images   [{name, path, note, symbols: [[value, name], ...]}]: 0 the
 *            kernel, 1 code run unmapped, then programs by name; of the
 *            symbols, those that name a node (the last at or below its
 *            address)
 *   nodes    [[parent, kind, image, addr, aux, calls, instructions,
 *             cost by slot x6], ...]; parent -1 for a root; a node's parent
 *            always comes before it; only nodes that ran something since the
 *            profile was started or cleared, and their ancestors
 *   overflow, limits, contexts, walks, unmatchedReturns   bookkeeping
 * Everything in it is integers and names from the guest's disk, so native
 * and WebAssembly builds write the same bytes.
 */
#include "profile/profile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "machine.h"
#include "vax.h"
#include "le.h"

#define NONE 0xFFFFFFFFu
/* The key of a frame whose return cannot be predicted (the outermost frame
 * a stack walk finds, a root met running): any REI on its stack ends it,
 * nothing else does. */
#define KEY_TOP 0xFFFFFFFFu
#define WALK_MAX 64
#define NAME_LEN 24

typedef struct {
    uint32_t parent, addr, aux;
    uint16_t image;
    uint8_t kind;
    uint64_t calls, instructions;
    uint64_t cost[PROFILE_NSLOTS];
} pnode;

typedef struct {
    uint32_t node, key, entry;
} pframe;

typedef struct {
    pframe *f;
    uint32_t n, cap;
} pstack;

typedef struct {
    uint32_t pcbb;
    uint32_t image;            /* the program it runs */
    uint32_t user_resume_pc;   /* where it last left user mode */
    int exec_pending;          /* it called the exec routine since */
    int user_unknown;          /* resumed anew: its user stack is not what the shadow holds */
    pstack st[4];              /* kernel, executive, supervisor, user */
} pctx;

typedef struct {
    char name[NAME_LEN];
    char path[128];
    char note[128];
    profile_symbols sym;       /* sorted by value, then name */
} pimage;

struct vax_profile {
    profile_config cfg;
    char kernel_path[128];

    pnode *nodes;
    uint32_t nnodes, cap_nodes;
    uint32_t *hash;            /* node index + 1, 0 = empty */
    uint32_t hash_size;

    pctx *ctx;                 /* ctx[0]: before any LDPCTX (boot) */
    uint32_t nctx, cap_ctx;
    uint32_t *ctx_hash;        /* context index + 1 by PCBB */
    uint32_t ctx_hash_size;
    uint32_t cur_ctx;

    pstack is;                 /* the interrupt stack */
    uint32_t cur;              /* the node being charged, or NONE */
    uint64_t last_cost, last_icount;
    uint64_t start_cost, start_icount;

    pimage *images;
    uint32_t nimages, cap_images;

    uint64_t overflow_nodes, overflow_depth, overflow_contexts, overflow_images;
    uint64_t walks, unmatched;
};

/* ------------------------------------------------------------ symbols */

void profile_symbols_free(profile_symbols *s)
{
    if (!s)
        return;
    free(s->value);
    free(s->name);
    free(s->names);
    memset(s, 0, sizeof *s);
}

int profile_symbols_add(profile_symbols *s, uint32_t value, const char *name)
{
    size_t len = strlen(name) + 1;
    if (s->n >= PROFILE_MAX_SYMBOLS || len > 256)
        return -1;
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 256;
        uint32_t *v = realloc(s->value, sizeof *v * cap);
        if (!v)
            return -1;
        s->value = v;
        uint32_t *nm = realloc(s->name, sizeof *nm * cap);
        if (!nm)
            return -1;
        s->name = nm;
        s->cap = cap;
    }
    if (s->names_len + len > s->names_cap) {
        uint32_t cap = s->names_cap ? s->names_cap * 2 : 4096;
        while (cap < s->names_len + len)
            cap *= 2;
        char *nn = realloc(s->names, cap);
        if (!nn)
            return -1;
        s->names = nn;
        s->names_cap = cap;
    }
    memcpy(s->names + s->names_len, name, len);
    s->value[s->n] = value;
    s->name[s->n++] = s->names_len;
    s->names_len += (uint32_t)len;
    return 0;
}

/* Sorting: by value, then name, then position, a total order, so that any
 * sort (the host C library's qsort differs between builds) gives the same
 * table. */
typedef struct {
    uint32_t value, name, index;
    const char *names;
} sym_sort;

static int sym_cmp(const void *a, const void *b)
{
    const sym_sort *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    int c = strcmp(x->names + x->name, y->names + y->name);
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

static void sort_symbols(profile_symbols *s)
{
    if (s->n > PROFILE_MAX_SYMBOLS)
        s->n = PROFILE_MAX_SYMBOLS;
    if (s->n < 2)
        return;
    sym_sort *t = malloc(sizeof *t * s->n);
    if (!t) {
        profile_symbols_free(s);   /* unsorted is unusable: none rather than wrong */
        return;
    }
    for (uint32_t i = 0; i < s->n; i++)
        t[i] = (sym_sort){ s->value[i], s->name[i], i, s->names };
    qsort(t, s->n, sizeof *t, sym_cmp);
    for (uint32_t i = 0; i < s->n; i++) {
        s->value[i] = t[i].value;
        s->name[i] = t[i].name;
    }
    free(t);
}

/* The value of the last symbol at or below addr in image img, or NONE. */
static uint32_t entry_of(const vax_profile *p, uint32_t img, uint32_t addr)
{
    if (img >= p->nimages)
        return NONE;
    const profile_symbols *s = &p->images[img].sym;
    uint32_t lo = 0, hi = s->n;   /* the answer is below hi */
    if (hi == 0 || s->value[0] > addr)
        return NONE;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->value[mid] <= addr)
            lo = mid;
        else
            hi = mid;
    }
    return s->value[lo];
}

/* ------------------------------------------------------------ reading the guest, without side effects */

static int phys_peek(const vax_machine *m, uint32_t pa, uint8_t *b)
{
    if (pa >= m->bus.mem_size)
        return -1;   /* never I/O space: reading a device register can change it */
    *b = m->bus.mem[pa];
    return 0;
}

static int phys_peek_l(const vax_machine *m, uint32_t pa, uint32_t *v)
{
    if (pa > m->bus.mem_size || m->bus.mem_size - pa < 4)
        return -1;
    const uint8_t *b = m->bus.mem + pa;
    *v = le32_get(b);
    return 0;
}

/* The physical address of va through the page tables as they are, without
 * the TB, faults or costs. */
static int peek_pa(const vax_machine *m, uint32_t va, uint32_t *pa)
{
    const vax_cpu *c = &m->cpu;
    if (!c->mapen) {
        *pa = va & 0x3FFFFFFFu;
        return 0;
    }
    uint32_t vpn = (va >> 9) & 0x1FFFFFu, pte = 0, ptva;
    switch (va >> 30) {
    case 2:
        if (vpn >= c->slr || phys_peek_l(m, c->sbr + 4 * vpn, &pte))
            return -1;
        break;
    case 0:
    case 1:
        if ((va >> 30) == 0 ? vpn >= c->p0lr : vpn < c->p1lr)
            return -1;
        ptva = ((va >> 30) == 0 ? c->p0br : c->p1br) + 4 * vpn;   /* a system address */
        uint32_t svpn = (ptva >> 9) & 0x1FFFFFu, spte;
        if ((ptva >> 30) != 2 || svpn >= c->slr || phys_peek_l(m, c->sbr + 4 * svpn, &spte) ||
            !(spte & 0x80000000u) || phys_peek_l(m, ((spte & 0x1FFFFFu) << 9) | (ptva & 511u), &pte))
            return -1;
        break;
    default:
        return -1;
    }
    if (!(pte & 0x80000000u))
        return -1;
    *pa = ((pte & 0x1FFFFFu) << 9) | (va & 511u);
    return 0;
}

static int peek(const vax_machine *m, uint32_t va, uint32_t *v, int size)
{
    uint32_t x = 0;
    for (int i = 0; i < size; i++) {
        uint32_t pa;
        uint8_t b;
        if (peek_pa(m, va + (uint32_t)i, &pa) || phys_peek(m, pa, &b))
            return -1;
        x |= (uint32_t)b << (8 * i);
    }
    *v = x;
    return 0;
}

/* ------------------------------------------------------------ nodes */

static uint32_t node_hash(uint32_t parent, uint32_t kind, uint32_t image, uint32_t addr, uint32_t aux)
{
    uint32_t h = parent * 0x9E3779B1u;
    h ^= addr * 0x85EBCA77u;
    h ^= ((kind << 24) ^ (image << 8) ^ aux) * 0xC2B2AE3Du;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 13;
    return h;
}

static int rehash(vax_profile *p, uint32_t size)
{
    uint32_t *h = calloc(size, sizeof *h);
    if (!h)
        return -1;
    for (uint32_t i = 0; i < p->nnodes; i++) {
        const pnode *n = &p->nodes[i];
        uint32_t j = node_hash(n->parent, n->kind, n->image, n->addr, n->aux) & (size - 1);
        while (h[j])
            j = (j + 1) & (size - 1);
        h[j] = i + 1;
    }
    free(p->hash);
    p->hash = h;
    p->hash_size = size;
    return 0;
}

/* The node for (parent, kind, image, addr, aux), made if new.  When the
 * tree is full (or memory is), the parent stands in for it. */
static uint32_t child(vax_profile *p, uint32_t parent, int kind, uint32_t image, uint32_t addr, uint32_t aux)
{
    uint32_t mask = p->hash_size - 1;
    uint32_t j = node_hash(parent, (uint32_t)kind, image, addr, aux) & mask;
    for (uint32_t e; (e = p->hash[j]) != 0; j = (j + 1) & mask) {
        const pnode *n = &p->nodes[e - 1];
        if (n->parent == parent && n->addr == addr && n->kind == kind && n->image == image && n->aux == aux)
            return e - 1;
    }
    if (p->nnodes >= PROFILE_MAX_NODES)
        goto full;
    if (p->nnodes == p->cap_nodes) {
        uint32_t cap = p->cap_nodes * 2;
        pnode *nn = realloc(p->nodes, sizeof *nn * cap);
        if (!nn)
            goto full;
        p->nodes = nn;
        p->cap_nodes = cap;
    }
    if (2 * (p->nnodes + 1) > p->hash_size) {
        if (rehash(p, p->hash_size * 2) < 0)
            goto full;
        mask = p->hash_size - 1;
        j = node_hash(parent, (uint32_t)kind, image, addr, aux) & mask;
        while (p->hash[j])
            j = (j + 1) & mask;
    }
    uint32_t id = p->nnodes++;
    pnode *n = &p->nodes[id];
    memset(n, 0, sizeof *n);
    n->parent = parent;
    n->kind = (uint8_t)kind;
    n->image = (uint16_t)image;
    n->addr = addr;
    n->aux = aux;
    p->hash[j] = id + 1;
    return id;
full:
    p->overflow_nodes++;
    return parent != NONE ? parent : 0;
}

/* ------------------------------------------------------------ images and contexts */

static uint32_t add_image(vax_profile *p, const char *name)
{
    if (p->nimages >= PROFILE_MAX_IMAGES)
        return NONE;
    if (p->nimages == p->cap_images) {
        uint32_t cap = p->cap_images ? p->cap_images * 2 : 16;
        pimage *ni = realloc(p->images, sizeof *ni * cap);
        if (!ni)
            return NONE;
        p->images = ni;
        p->cap_images = cap;
    }
    pimage *im = &p->images[p->nimages];
    memset(im, 0, sizeof *im);
    snprintf(im->name, sizeof im->name, "%s", name);
    return p->nimages++;
}

/* The image of the program called name, looked up once. */
static uint32_t image_named(vax_profile *p, const char *name)
{
    for (uint32_t i = PROFILE_IMAGE_UNMAPPED + 1; i < p->nimages; i++)
        if (strcmp(p->images[i].name, name) == 0)
            return i;
    uint32_t id = add_image(p, name);
    if (id == NONE) {
        p->overflow_images++;
        return PROFILE_IMAGE_KERNEL;
    }
    pimage *im = &p->images[id];
    if (p->cfg.find_program) {
        profile_symbols s;
        memset(&s, 0, sizeof s);
        if (p->cfg.find_program(p->cfg.find_ctx, name, &s, im->path, sizeof im->path, im->note, sizeof im->note) == 0) {
            im->sym = s;
            sort_symbols(&im->sym);
        } else {
            profile_symbols_free(&s);
        }
    } else {
        snprintf(im->note, sizeof im->note, "no symbols for programs in this session");
    }
    return id;
}

/* The program a context runs, by the name in its u area; the kernel's image
 * when it has none. */
static uint32_t context_image(const vax_machine *m, vax_profile *p, uint32_t pcbb)
{
    if (p->cfg.comm_len == 0)
        return PROFILE_IMAGE_KERNEL;
    char name[NAME_LEN];
    uint32_t n = 0, len = p->cfg.comm_len < NAME_LEN - 1 ? p->cfg.comm_len : NAME_LEN - 1;
    for (; n < len; n++) {
        uint8_t b;
        if (phys_peek(m, pcbb + p->cfg.comm_offset + n, &b) || b == 0)
            break;
        name[n] = (char)(b > 0x20 && b < 0x7F && b != '"' && b != '\\' ? b : '?');
    }
    name[n] = 0;
    return n ? image_named(p, name) : PROFILE_IMAGE_KERNEL;
}

static uint32_t context_for(vax_machine *m, vax_profile *p, uint32_t pcbb)
{
    uint32_t mask = p->ctx_hash_size - 1;
    uint32_t j = (pcbb * 0x9E3779B1u >> 7) & mask;
    for (uint32_t e; (e = p->ctx_hash[j]) != 0; j = (j + 1) & mask)
        if (p->ctx[e - 1].pcbb == pcbb)
            return e - 1;
    if (p->nctx >= PROFILE_MAX_CONTEXTS) {
        p->overflow_contexts++;
        return 0;
    }
    if (p->nctx == p->cap_ctx) {
        uint32_t cap = p->cap_ctx * 2;
        pctx *nc = realloc(p->ctx, sizeof *nc * cap);
        if (!nc) {
            p->overflow_contexts++;
            return 0;
        }
        p->ctx = nc;
        p->cap_ctx = cap;
    }
    if (2 * (p->nctx + 1) > p->ctx_hash_size) {
        uint32_t size = p->ctx_hash_size * 2;
        uint32_t *h = calloc(size, sizeof *h);
        if (!h) {
            p->overflow_contexts++;
            return 0;
        }
        for (uint32_t i = 1; i < p->nctx; i++) {
            uint32_t k = (p->ctx[i].pcbb * 0x9E3779B1u >> 7) & (size - 1);
            while (h[k])
                k = (k + 1) & (size - 1);
            h[k] = i + 1;
        }
        free(p->ctx_hash);
        p->ctx_hash = h;
        p->ctx_hash_size = size;
        mask = size - 1;
        j = (pcbb * 0x9E3779B1u >> 7) & mask;
        while (p->ctx_hash[j])
            j = (j + 1) & mask;
    }
    uint32_t id = p->nctx++;
    pctx *cx = &p->ctx[id];
    memset(cx, 0, sizeof *cx);
    cx->pcbb = pcbb;
    cx->image = context_image(m, p, pcbb);
    p->ctx_hash[j] = id + 1;
    return id;
}

/* ------------------------------------------------------------ shadow stacks */

static void push(vax_profile *p, pstack *st, uint32_t node, uint32_t key, uint32_t entry)
{
    if (st->n == st->cap) {
        if (st->cap >= PROFILE_MAX_DEPTH) {
            /* Deeper than any real stack: forget the outermost frame. */
            p->overflow_depth++;
            memmove(st->f, st->f + 1, sizeof *st->f * (st->n - 1));
            st->n--;
        } else {
            uint32_t cap = st->cap ? st->cap * 2 : 16;
            pframe *nf = realloc(st->f, sizeof *nf * cap);
            if (!nf) {
                p->overflow_depth++;
                return;
            }
            st->f = nf;
            st->cap = cap;
        }
    }
    st->f[st->n++] = (pframe){ node, key, entry };
}

static pstack *stack_for(vax_profile *p, int slot)
{
    return slot == SP_INTERRUPT ? &p->is : &p->ctx[p->cur_ctx].st[slot & 3];
}

/* Frames whose key is below sp are no longer on the stack. */
static void pop_dead(pstack *st, uint32_t sp)
{
    while (st->n && st->f[st->n - 1].key < sp)
        st->n--;
}

static uint32_t image_at(const vax_machine *m, const vax_profile *p, uint32_t addr)
{
    if (!m->cpu.mapen)
        return PROFILE_IMAGE_UNMAPPED;
    return addr >= 0x80000000u ? PROFILE_IMAGE_KERNEL : p->ctx[p->cur_ctx].image;
}

static uint32_t program_node(vax_profile *p)
{
    return child(p, NONE, PROFILE_PROGRAM, p->ctx[p->cur_ctx].image, 0, 0);
}

/* Where roots of a stack hang: the interrupt stack's at the top, the
 * others' under their context's program. */
static uint32_t root_parent(vax_profile *p, int slot)
{
    return slot == SP_INTERRUPT ? NONE : program_node(p);
}

/* Does the frame hold pc (is pc in the function it entered)?  Without
 * symbols there is no telling: yes. */
static int holds(const vax_profile *p, uint32_t img, const pframe *f, uint32_t pc)
{
    uint32_t e = entry_of(p, img, pc);
    return e == NONE || e == f->entry;
}

/* Is the CALLS frame at fp one of the procedure entered at entry?  Its
 * mask/PSW longword has the entry mask's registers in <27:16> and zeros in
 * <28> and <4:0>; the entry mask has zeros in <13:12>. */
static int frame_of(const vax_machine *m, uint32_t entry, uint32_t fp)
{
    uint32_t mask, save;
    if (peek(m, entry, &mask, 2) || peek(m, fp + 4, &save, 4))
        return 0;
    return !(mask & 0x3000u) && !(save & 0x1000001Fu) && ((save >> 16) & 0xFFFu) == (mask & 0xFFFu);
}

/* The same, or a frame whose mask/PSW longword was overwritten but whose
 * caller's frame is its caller's: 4.3BSD's resume() of a new process
 * writes the PC and PSL it returns with over the top of the stack, which is
 * where procdup's frame begins (locore.s: "cheating"). */
static int frame_of_or_caller(const vax_machine *m, const vax_profile *p, uint32_t img, uint32_t entry, uint32_t fp)
{
    if (frame_of(m, entry, fp))
        return 1;
    uint32_t npc, nfp;
    if (peek(m, fp + 16, &npc, 4) || peek(m, fp + 12, &nfp, 4) || nfp <= fp || nfp - fp > 0x10000u)
        return 0;
    uint32_t ne = entry_of(p, img, npc);
    return ne != 0xFFFFFFFFu && frame_of(m, ne, nfp);
}

typedef struct {
    uint32_t entry, key;
} wframe;

/* The VAX call frames from (pc, fp) outwards, innermost first: the
 * function holding pc with frame fp, its caller (the frame's saved PC) with
 * the saved FP, and so on while each frame is its function's; the first
 * that is not ends the walk with key KEY_TOP.  Without symbols: one frame
 * at pc. */
static int walk(const vax_machine *m, vax_profile *p, uint32_t img, uint32_t pc, uint32_t fp, wframe *out)
{
    int n = 0;
    p->walks++;
    while (n < WALK_MAX) {
        uint32_t e = entry_of(p, img, pc);
        if (e == NONE || !frame_of_or_caller(m, p, img, e, fp)) {
            out[n++] = (wframe){ e == NONE ? pc : e, KEY_TOP };
            break;
        }
        out[n++] = (wframe){ e, fp };
        uint32_t npc, nfp;
        if (peek(m, fp + 16, &npc, 4) || peek(m, fp + 12, &nfp, 4))
            break;
        if (nfp <= fp || nfp - fp > 0x10000u) {
            e = entry_of(p, img, npc);
            if (n < WALK_MAX)
                out[n++] = (wframe){ e == NONE ? npc : e, KEY_TOP };
            break;
        }
        pc = npc;
        fp = nfp;
        if ((pc >= 0x80000000u) != (img == PROFILE_IMAGE_KERNEL))
            break;
    }
    return n;
}

/* Make stack st describe execution at pc with frame fp: walk the real
 * stack, keep the shadow frames down to the innermost one the walk also
 * found (same place, same function) or none if splice is 0, and add the
 * walked frames above it; cur is then the top. */
static void rebuild(vax_machine *m, vax_profile *p, pstack *st, int slot, uint32_t pc, uint32_t fp, int splice)
{
    uint32_t img = image_at(m, p, pc);
    wframe w[WALK_MAX];
    int n = walk(m, p, img, pc, fp, w);
    int from = n;   /* walked frames [0, from) go on top */
    uint32_t keep = 0;
    if (splice) {
        for (int i = 0; i < n && from == n; i++) {
            if (w[i].key == KEY_TOP)
                break;
            for (uint32_t k = st->n; k-- > 0;)
                if (st->f[k].key == w[i].key && st->f[k].entry == w[i].entry) {
                    from = i;
                    keep = k + 1;
                    break;
                }
        }
    }
    st->n = keep;
    uint32_t parent = keep ? st->f[keep - 1].node : root_parent(p, slot);
    for (int i = from - 1; i >= 0; i--) {
        uint32_t node = child(p, parent, PROFILE_RESUME, img, w[i].entry, 0);
        push(p, st, node, w[i].key, w[i].entry);
        parent = node;
    }
    if (st->n == 0)   /* nothing could be pushed (out of memory) */
        push(p, st, child(p, root_parent(p, slot), PROFILE_RESUME, img, pc, 0), KEY_TOP, pc);
    p->cur = st->n ? st->f[st->n - 1].node : program_node(p);
}

/* A root for code met running with nothing known about it. */
static void start_root(vax_machine *m, vax_profile *p)
{
    uint32_t pc = m->cpu.instr_pc, img = image_at(m, p, pc), e = entry_of(p, img, pc);
    int slot = psl_sp_slot(m->cpu.psl_without_cc);
    uint32_t node = child(p, root_parent(p, slot), PROFILE_RESUME, img, e == NONE ? pc : e, 0);
    push(p, stack_for(p, slot), node, KEY_TOP, e == NONE ? pc : e);
    p->cur = node;
}

/* ------------------------------------------------------------ hooks */

void profile_account(vax_machine *m, int slot, uint64_t boundary)
{
    vax_profile *p = m->prof;
    if (boundary < p->last_icount)
        boundary = p->last_icount;
    uint64_t dc = m->cost - p->last_cost, di = boundary - p->last_icount;
    if (!(dc | di))
        return;
    if (p->cur == NONE)
        start_root(m, p);
    pnode *n = &p->nodes[p->cur];
    n->cost[slot] += dc;
    n->instructions += di;
    p->last_cost = m->cost;
    p->last_icount = boundary;
}

void profile_idle(vax_machine *m)
{
    profile_account(m, PROFILE_SLOT_IDLE, m->icount);
}

void profile_call(vax_machine *m, uint32_t entry, uint32_t key, int jsb)
{
    vax_profile *p = m->prof;
    profile_account(m, m->acct_slot, m->icount + 1);
    if (p->cur == NONE)
        start_root(m, p);
    uint32_t node = child(p, p->cur, jsb ? PROFILE_JSB : PROFILE_CALL, image_at(m, p, entry), entry, 0);
    p->nodes[node].calls++;
    push(p, stack_for(p, psl_sp_slot(m->cpu.psl_without_cc)), node, key, entry);
    p->cur = node;
    if (entry == p->cfg.exec_routine && entry != 0)
        p->ctx[p->cur_ctx].exec_pending = 1;
}

void profile_return(vax_machine *m, uint32_t key, uint32_t pc)
{
    vax_profile *p = m->prof;
    profile_account(m, m->acct_slot, m->icount + 1);
    int slot = psl_sp_slot(m->cpu.psl_without_cc);
    pstack *st = stack_for(p, slot);
    while (st->n && st->f[st->n - 1].key < key)
        st->n--;
    if (st->n && st->f[st->n - 1].key == key) {
        st->n--;
        if (st->n)
            p->cur = st->f[st->n - 1].node;
        else
            rebuild(m, p, st, slot, pc, m->cpu.r[13], 0);
        return;
    }
    /* A return from a frame never seen called (a longjmp, a context we met
     * running): if the frame on top holds pc, carry on in it. */
    p->unmatched++;
    if (st->n && holds(p, image_at(m, p, pc), &st->f[st->n - 1], pc))
        p->cur = st->f[st->n - 1].node;
    else
        rebuild(m, p, st, slot, pc, m->cpu.r[13], 1);
}

void profile_exception(vax_machine *m, uint32_t scb_offset, uint32_t handler, uint32_t key, uint32_t old_psl,
                       uint32_t saved_pc, int interrupt, uint64_t boundary)
{
    vax_profile *p = m->prof;
    profile_account(m, m->acct_slot, boundary);
    pctx *cx = &p->ctx[p->cur_ctx];
    if (PSL_GET_CUR(old_psl) == MODE_USER)
        cx->user_resume_pc = saved_pc;
    uint32_t parent = interrupt ? NONE : program_node(p);
    uint32_t node = child(p, parent, interrupt ? PROFILE_INTERRUPT : PROFILE_EXCEPTION, image_at(m, p, handler),
                          handler, scb_offset);
    p->nodes[node].calls++;
    push(p, stack_for(p, psl_sp_slot(m->cpu.psl_without_cc)), node, key, handler);
    p->cur = node;
}

/* After an REI into user mode (at pc, stack sp). */
static void land_user(vax_machine *m, vax_profile *p, uint32_t pc, uint32_t sp)
{
    pctx *cx = &p->ctx[p->cur_ctx];
    pstack *st = &cx->st[MODE_USER];
    int exec = cx->exec_pending;
    cx->exec_pending = 0;
    if (exec && pc != cx->user_resume_pc) {
        /* A new program: its user code starts afresh at its entry. */
        st->n = 0;
        cx->image = context_image(m, p, m->cpu.pcbb);
        uint32_t e = entry_of(p, cx->image, pc);
        if (e == NONE)
            e = pc;
        uint32_t node = child(p, program_node(p), PROFILE_START, cx->image, e, 0);
        p->nodes[node].calls++;
        push(p, st, node, KEY_TOP, e);
        p->cur = node;
        return;
    }
    pop_dead(st, sp);
    if (st->n == 0 || cx->user_unknown) {
        cx->user_unknown = 0;
        rebuild(m, p, st, SP_USER, pc, m->cpu.r[13], 0);
        return;
    }
    if (pc >= 0x40000000u && pc != cx->user_resume_pc) {
        /* A signal: the kernel's trampoline in the u area calls the handler
         * on the stack below what was interrupted; sigreturn comes back
         * above it, which ends this root. */
        uint32_t node = child(p, program_node(p), PROFILE_START, cx->image, pc, 1);
        p->nodes[node].calls++;
        push(p, st, node, sp, pc);
        p->cur = node;
        return;
    }
    p->cur = st->f[st->n - 1].node;
}

void profile_rei(vax_machine *m, uint32_t key, int old_slot)
{
    vax_profile *p = m->prof;
    profile_account(m, m->acct_slot, m->icount + 1);
    pstack *st = stack_for(p, old_slot);
    while (st->n && st->f[st->n - 1].key < key)
        st->n--;
    int exact = 0;
    if (st->n && st->f[st->n - 1].key == key) {
        st->n--;
        exact = 1;
    } else if (st->n && st->f[st->n - 1].key == KEY_TOP) {
        st->n--;
    }
    int slot = psl_sp_slot(m->cpu.psl_without_cc);
    uint32_t pc = m->cpu.r[15], sp = m->cpu.r[14];
    if (slot == SP_USER) {
        land_user(m, p, pc, sp);
        return;
    }
    pstack *to = stack_for(p, slot);
    pop_dead(to, sp);
    if (!exact) {
        /* Not a return from what this stack holds: 4.3BSD resuming a
         * process through savectx's context (a new process, a swapped-in
         * one), whose kernel stack is a copy or a reused one.  Whatever
         * holds pc, the process may be another: its name again. */
        if (slot == SP_KERNEL) {
            p->ctx[p->cur_ctx].image = context_image(m, p, m->cpu.pcbb);
            p->ctx[p->cur_ctx].user_unknown = 1;
        }
        if (!(to->n && holds(p, image_at(m, p, pc), &to->f[to->n - 1], pc))) {
            rebuild(m, p, to, slot, pc, m->cpu.r[13], 0);
            return;
        }
    }
    if (to->n)
        p->cur = to->f[to->n - 1].node;
    else
        rebuild(m, p, to, slot, pc, m->cpu.r[13], 0);
}

void profile_ldpctx(vax_machine *m)
{
    vax_profile *p = m->prof;
    profile_account(m, m->acct_slot, m->icount + 1);
    uint32_t before = p->nctx;
    p->cur_ctx = context_for(m, p, m->cpu.pcbb);
    pctx *cx = &p->ctx[p->cur_ctx];
    if (p->nctx == before && p->cur_ctx != 0) {
        /* A PCB the profiler has seen: if its process has another name, the
         * PCB's memory went to a new process (the old one exited), and the
         * stacks it left are not this one's. */
        uint32_t image = context_image(m, p, m->cpu.pcbb);
        if (image != cx->image) {
            for (int s = 0; s < 4; s++)
                cx->st[s].n = 0;
            cx->image = image;
        }
    }
    pstack *st = &cx->st[SP_KERNEL];
    if (st->n == 0) {
        /* A context never seen: until its REI, this is the code switching
         * to it. */
        uint32_t pc = m->cpu.instr_pc, e = entry_of(p, PROFILE_IMAGE_KERNEL, pc);
        uint32_t node = child(p, program_node(p), PROFILE_RESUME, image_at(m, p, pc), e == NONE ? pc : e, 0);
        push(p, st, node, KEY_TOP, e == NONE ? pc : e);
    }
    p->cur = st->n ? st->f[st->n - 1].node : program_node(p);
}

static void clear_stacks(vax_profile *p)
{
    for (uint32_t i = 0; i < p->nctx; i++)
        for (int s = 0; s < 4; s++)
            free(p->ctx[i].st[s].f);
    free(p->is.f);
    memset(&p->is, 0, sizeof p->is);
    free(p->ctx_hash);
    p->ctx_hash = NULL;
}

/* Contexts: only the boot one, with no stacks. */
static int init_contexts(vax_profile *p)
{
    p->cap_ctx = 16;
    p->ctx = calloc(p->cap_ctx, sizeof *p->ctx);
    p->ctx_hash_size = 32;
    p->ctx_hash = calloc(p->ctx_hash_size, sizeof *p->ctx_hash);
    if (!p->ctx || !p->ctx_hash)
        return -1;
    p->nctx = 1;
    p->ctx[0].image = PROFILE_IMAGE_KERNEL;
    p->ctx[0].pcbb = NONE;
    p->cur_ctx = 0;
    return 0;
}

void profile_machine_reset(vax_machine *m)
{
    vax_profile *p = m->prof;
    profile_account(m, m->acct_slot, m->icount);
    clear_stacks(p);
    free(p->ctx);
    p->ctx = NULL;
    p->nctx = p->cap_ctx = 0;
    if (init_contexts(p) < 0) {   /* out of host memory: stop profiling */
        profile_disable(m);
        return;
    }
    p->cur = NONE;
}

/* ------------------------------------------------------------ control */

static void free_profile(vax_profile *p)
{
    if (!p)
        return;
    clear_stacks(p);
    free(p->ctx);
    for (uint32_t i = 0; i < p->nimages; i++)
        profile_symbols_free(&p->images[i].sym);
    free(p->images);
    free(p->nodes);
    free(p->hash);
    free(p);
}

int profile_enable(vax_machine *m, const profile_config *cfg, profile_symbols *kernel)
{
    profile_disable(m);
    vax_profile *p = calloc(1, sizeof *p);
    if (!p)
        goto fail;
    p->cfg = *cfg;
    snprintf(p->kernel_path, sizeof p->kernel_path, "%s", cfg->kernel_path ? cfg->kernel_path : "");
    p->cfg.kernel_path = p->kernel_path;
    p->cap_nodes = 1024;
    p->nodes = malloc(sizeof *p->nodes * p->cap_nodes);
    p->hash_size = 4096;
    p->hash = calloc(p->hash_size, sizeof *p->hash);
    if (!p->nodes || !p->hash || init_contexts(p) < 0 || add_image(p, "vmunix") == NONE ||
        add_image(p, "(unmapped)") == NONE)
        goto fail;
    if (kernel) {
        p->images[PROFILE_IMAGE_KERNEL].sym = *kernel;
        memset(kernel, 0, sizeof *kernel);
        sort_symbols(&p->images[PROFILE_IMAGE_KERNEL].sym);
    }
    snprintf(p->images[PROFILE_IMAGE_KERNEL].path, sizeof p->images[0].path, "%s", p->kernel_path);
    snprintf(p->images[PROFILE_IMAGE_UNMAPPED].note, sizeof p->images[1].note,
             "code run with memory management off (the boot), by physical address");
    p->cur = NONE;
    p->last_cost = p->start_cost = m->cost;
    p->last_icount = p->start_icount = m->icount;
    m->prof = p;
    /* Met running: the current process (if any) and its stack as it is. */
    if (m->cpu.mapen && m->icount > 0) {
        p->cur_ctx = context_for(m, p, m->cpu.pcbb);
        int slot = psl_sp_slot(m->cpu.psl_without_cc);
        rebuild(m, p, stack_for(p, slot), slot, m->cpu.r[15], m->cpu.r[13], 0);
    }
    return 0;
fail:
    free_profile(p);
    profile_symbols_free(kernel);
    return -1;
}

void profile_disable(vax_machine *m)
{
    free_profile(m->prof);
    m->prof = NULL;
}

void profile_clear(vax_machine *m)
{
    vax_profile *p = m->prof;
    if (!p)
        return;
    profile_account(m, m->acct_slot, m->icount);
    for (uint32_t i = 0; i < p->nnodes; i++) {
        pnode *n = &p->nodes[i];
        n->calls = n->instructions = 0;
        memset(n->cost, 0, sizeof n->cost);
    }
    p->start_cost = p->last_cost = m->cost;
    p->start_icount = p->last_icount = m->icount;
    p->overflow_nodes = p->overflow_depth = p->overflow_contexts = p->overflow_images = 0;
    p->walks = p->unmatched = 0;
}

/* ------------------------------------------------------------ JSON */

typedef struct {
    char *s;
    size_t n, cap;
    int failed;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->failed = 1;
            return;
        }
        if ((size_t)k < b->cap - b->n) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap * 2 + (size_t)k;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->failed = 1;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
}

/* A JSON string of name: printable ASCII, quotes and backslashes escaped,
 * anything else as \u00XX. */
static void sb_string(sbuf *b, const char *name)
{
    sb_printf(b, "\"");
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        if (*c == '"' || *c == '\\')
            sb_printf(b, "\\%c", *c);
        else if (*c < 0x20 || *c >= 0x7F)
            sb_printf(b, "\\u%04x", *c);
        else
            sb_printf(b, "%c", *c);
    }
    sb_printf(b, "\"");
}

/* The index of the symbol naming addr in image img (the last at or
 * below it), or NONE. */
static uint32_t symbol_index(const vax_profile *p, uint32_t img, uint32_t addr)
{
    const profile_symbols *s = &p->images[img].sym;
    if (s->n == 0 || s->value[0] > addr)
        return NONE;
    uint32_t lo = 0, hi = s->n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->value[mid] <= addr)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

char *profile_json(vax_machine *m, size_t *len)
{
    vax_profile *p = m->prof;
    if (!p)
        return NULL;
    profile_account(m, m->acct_slot, m->icount);
    /* Only nodes that did something, or have such a node below them, are
     * written (renumbered in order: parents still come first); nodes made
     * before the profile was cleared and idle since are not.  Of each
     * image's symbols, those that name a node written. */
    uint32_t *newid = malloc(sizeof *newid * (p->nnodes ? p->nnodes : 1));
    uint8_t **used = calloc(p->nimages, sizeof *used);
    sbuf b = { malloc(65536), 0, 65536, 0 };
    if (!newid || !used || !b.s)
        goto fail;
    for (uint32_t i = 0; i < p->nimages; i++)
        if (p->images[i].sym.n && !(used[i] = calloc(p->images[i].sym.n, 1)))
            goto fail;
    for (uint32_t i = 0; i < p->nnodes; i++)
        newid[i] = 0;
    for (uint32_t i = p->nnodes; i-- > 0;) {
        const pnode *n = &p->nodes[i];
        int active = newid[i] != 0 || n->calls || n->instructions;
        for (int s = 0; s < PROFILE_NSLOTS && !active; s++)
            active = n->cost[s] != 0;
        if (active) {
            newid[i] = 1;
            if (n->parent != NONE)
                newid[n->parent] = 1;
        }
    }
    uint32_t written = 0;
    for (uint32_t i = 0; i < p->nnodes; i++) {
        if (!newid[i]) {
            newid[i] = NONE;
            continue;
        }
        newid[i] = written++;
        const pnode *n = &p->nodes[i];
        uint32_t k = n->kind == PROFILE_PROGRAM ? NONE : symbol_index(p, n->image, n->addr);
        if (k != NONE)
            used[n->image][k] = 1;
    }
    b.s[0] = 0;
    sb_printf(&b, "{\"format\":\"vaxlab-profile-raw\",\"version\":1,\"nsPerInstruction\":%u,\"costDenominator\":%u,",
              m->ns_per_instruction, MACHINE_COST_SCALE_DEN);
    sb_printf(&b, "\"instructions\":%llu,\"cost\":%llu,\"kernelPath\":",
              (unsigned long long)(m->icount - p->start_icount), (unsigned long long)(m->cost - p->start_cost));
    sb_string(&b, p->kernel_path);
    sb_printf(&b, ",\"slots\":[\"kernel\",\"exec\",\"super\",\"user\",\"interrupt\",\"idle\"],"
                  "\"kinds\":[\"program\",\"interrupt\",\"exception\",\"call\",\"jsb\",\"resume\",\"start\"],");
    sb_printf(&b, "\"limits\":{\"nodes\":%u,\"depth\":%u,\"contexts\":%u,\"images\":%u,\"symbols\":%u},",
              PROFILE_MAX_NODES, PROFILE_MAX_DEPTH, PROFILE_MAX_CONTEXTS, PROFILE_MAX_IMAGES, PROFILE_MAX_SYMBOLS);
    sb_printf(&b, "\"overflow\":{\"nodes\":%llu,\"depth\":%llu,\"contexts\":%llu,\"images\":%llu},",
              (unsigned long long)p->overflow_nodes, (unsigned long long)p->overflow_depth,
              (unsigned long long)p->overflow_contexts, (unsigned long long)p->overflow_images);
    sb_printf(&b, "\"contexts\":%u,\"walks\":%llu,\"unmatchedReturns\":%llu,\"images\":[", p->nctx,
              (unsigned long long)p->walks, (unsigned long long)p->unmatched);
    for (uint32_t i = 0; i < p->nimages; i++) {
        const pimage *im = &p->images[i];
        sb_printf(&b, "%s{\"name\":", i ? "," : "");
        sb_string(&b, im->name);
        sb_printf(&b, ",\"path\":");
        sb_string(&b, im->path);
        sb_printf(&b, ",\"note\":");
        sb_string(&b, im->note);
        sb_printf(&b, ",\"symbols\":[");
        int first = 1;
        for (uint32_t k = 0; k < im->sym.n; k++) {
            if (!used[i][k])
                continue;
            sb_printf(&b, "%s[%u,", first ? "" : ",", im->sym.value[k]);
            sb_string(&b, im->sym.names + im->sym.name[k]);
            sb_printf(&b, "]");
            first = 0;
        }
        sb_printf(&b, "]}");
    }
    sb_printf(&b, "],\"nodes\":[");
    for (uint32_t i = 0, first = 1; i < p->nnodes; i++) {
        if (newid[i] == NONE)
            continue;
        const pnode *n = &p->nodes[i];
        sb_printf(&b, "%s[%lld,%u,%u,%u,%u,%llu,%llu", first ? "" : ",",
                  n->parent == NONE ? -1ll : (long long)newid[n->parent], n->kind, n->image, n->addr, n->aux,
                  (unsigned long long)n->calls, (unsigned long long)n->instructions);
        for (int s = 0; s < PROFILE_NSLOTS; s++)
            sb_printf(&b, ",%llu", (unsigned long long)n->cost[s]);
        sb_printf(&b, "]");
        first = 0;
    }
    sb_printf(&b, "]}\n");
    if (b.failed)
        goto fail;
    for (uint32_t i = 0; i < p->nimages; i++)
        free(used[i]);
    free(used);
    free(newid);
    *len = b.n;
    return b.s;
fail:
    if (used)
        for (uint32_t i = 0; i < p->nimages; i++)
            free(used[i]);
    free(used);
    free(newid);
    free(b.s);
    return NULL;
}

/* ------------------------------------------------------------ vax.h */

int vax_profile_start(vax_machine *m)
{
    profile_config cfg;
    memset(&cfg, 0, sizeof cfg);
    return profile_enable(m, &cfg, NULL);
}

void vax_profile_clear(vax_machine *m) { profile_clear(m); }

void vax_profile_stop(vax_machine *m) { profile_disable(m); }

char *vax_profile_json(vax_machine *m, size_t *len)
{
    size_t n = 0;
    char *s = profile_json(m, &n);
    if (len)
        *len = n;
    return s;
}
