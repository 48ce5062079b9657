; workload.s — the CPU benchmark's guest program.
;
; A kernel prologue builds a system page table and a P0 page table, turns
; memory management on and drops into user mode with REI; the user program
; then loops for ever over a mix of what compiled C does on a VAX: array
; loops with autoincrement and index modes, procedure calls (CALLS/RET),
; byte and string work (MOVC3, CMPC3, LOCC), bit fields, CASEL, F_floating
; arithmetic and a system call (CHMK, handled by the kernel with REI).
; The benchmark runs it for a fixed number of instructions.
;
; Physical layout:  0x00000 SCB        0x01000 kernel code
;                   0x08000 kernel stack top (S0 0x80008000)
;                   0x09000 interrupt stack top
;                   0x10000 system page table (maps S0 0..1 MB to physical 0..1 MB)
;                   0x20000 P0 page table (S0 0x80020000): P0 0..256 KB -> physical 0x40000..
;                   0x30000 boot P0 page table: P0 0..8 KB -> physical 0..8 KB, so
;                           the instruction after MTPR MAPEN is still where we are
;                   0x40000 user program (P0 address 0), position independent

SPT = 0x10000           ; physical address of the system page table
SPT_PAGES = 2048        ; 1 MB of S0
P0PT = 0x20000
P0_PAGES = 512          ; 256 KB of P0
BOOT_P0PT = 0x30000
USER_PHYS = 0x40000

        .org 0x1000
start:
        ; SCB: every vector to `trap`, CHMK (0x40) to `syscall`.
        clrl r0
scb_fill:
        moval trap+0x80000000, (r0)+
        cmpl r0, $0x200
        blss scb_fill
        moval syscall+0x80000000, @#0x40
        mtpr $0, $17                        ; SCBB = 0
        mtpr $4, $19                        ; ASTLVL: no AST pending

        ; System page table: valid, kernel write (code 2)... user code never
        ; touches S0, except through the process page table walk.
        movl $SPT, r1
        clrl r2
spt_fill:
        bisl3 $0x90000000, r2, (r1)+        ; V | prot KW(2) << 27 ... = 0x90000000
        aoblss $SPT_PAGES, r2, spt_fill

        ; P0 page table: valid, modified, user write (4), PFN from USER_PHYS.
        movl $P0PT, r1
        movl $USER_PHYS/512, r2
        clrl r3
p0_fill:
        bisl3 $0xA4000000, r2, (r1)+        ; V | UW(4) << 27 | M
        incl r2
        aoblss $P0_PAGES, r3, p0_fill

        ; Boot P0 page table: identity for the first 16 pages, kernel write.
        movl $BOOT_P0PT, r1
        clrl r2
boot_fill:
        bisl3 $0x90000000, r2, (r1)+
        aoblss $16, r2, boot_fill

        mtpr $SPT, $12                      ; SBR
        mtpr $SPT_PAGES, $13                ; SLR
        mtpr $BOOT_P0PT+0x80000000, $8      ; P0BR (S0 address)
        mtpr $16, $9                        ; P0LR
        mtpr $0x200000, $11                 ; P1LR: no P1 pages
        mtpr $0x80008000, $0                ; KSP
        mtpr $0x80009000, $4                ; ISP
        mtpr $P0_PAGES*512, $3              ; USP: top of P0
        movl $0x80009000, sp                ; we are on the interrupt stack
        mtpr $1, $56                        ; MAPEN
        jmp @#mapped+0x80000000             ; continue in S0
mapped:
        mtpr $P0PT+0x80000000, $8           ; the user's P0 page table
        mtpr $P0_PAGES, $9
        mtpr $0, $57                        ; TBIA
        pushl $0x03C00000                   ; PSL: user mode, previous user, IPL 0
        pushl $0                            ; PC: P0 address 0
        rei

        .align 4                            ; SCB vectors need longword-aligned handlers
trap:   halt                                ; anything unexpected stops the benchmark

        .align 4
syscall:
        addl2 $4, sp                        ; pop the CHMK code
        incl @#0x80000600                   ; count system calls (physical 0x600)
        rei

; ---------------------------------------------------------------- user
        .org USER_PHYS
user:
        movab array, r11                    ; PC-relative: works at P0 address 0
        movab bytes, r10
loop:
        ; 1. sum an array of 256 longwords, autoincrement
        movl r11, r1
        clrl r0
        movl $256, r2
sum:    addl2 (r1)+, r0
        sobgtr r2, sum
        movl r0, total

        ; 2. fill and scan it with index mode
        clrl r3
fill:   addl3 r3, r0, (r11)[r3]
        aoblss $256, r3, fill

        ; 3. procedure calls, the C way
        movl $64, r6
calls_loop:
        pushl r6
        pushl r0
        calls $2, add2
        movl r0, r7
        sobgtr r6, calls_loop

        ; 4. bytes: sieve-like marking with tstb/movb and a branchy loop
        clrl r4
mark:   movb r4, (r10)[r4]
        bicb2 $0xF0, (r10)[r4]
        tstb (r10)[r4]
        bneq mark_next
        incl r9
mark_next:
        aoblss $512, r4, mark

        ; 5. strings
        movc3 $256, (r10), 512(r10)
        cmpc3 $256, (r10), 512(r10)
        locc $15, $512, (r10)

        ; 6. bit fields and a switch
        clrl r5
fields:
        extzv r5, $5, (r11), r1
        insv r1, $3, $5, r8
        casel r5, $0, $3
case_table:
        .word c0-case_table
        .word c1-case_table
        .word c2-case_table
        .word c3-case_table
        brb field_next
c0:     incl r2
        brb field_next
c1:     addl2 $2, r2
        brb field_next
c2:     subl2 $3, r2
        brb field_next
c3:     mull2 $3, r2
field_next:
        aoblss $32, r5, fields

        ; 7. F_floating: a small recurrence
        movf onef, r0
        movl $16, r2
flt:    mulf2 halff, r0
        addf2 onef, r0
        sobgtr r2, flt

        ; 8. a system call
        chmk $1
        brw loop

add2:   .word 0x0C0                         ; entry mask: save r6, r7
        movl 4(ap), r6
        addl3 8(ap), r6, r7
        movl r7, r0
        ret

        .align 4
onef:   .long 0x4080                        ; 1.0
halff:  .long 0x4000                        ; 0.5
total:  .long 0
array:  .space 1024
bytes:  .space 1024
