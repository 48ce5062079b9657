/*
 * mscp.h — the Mass Storage Control Protocol as a UDA50 speaks it with its
 * host: message layouts (byte offsets into the message text), opcodes,
 * modifiers, status codes, and the envelope the UNIBUS port wraps around
 * each message.
 *
 * Sources (facts only): DEC, "MSCP Basic Disk Functions Manual" and "Mass
 * Storage Control Protocol" (version 2.x specification); "UNIBUS/Q-bus
 * Storage Systems Port (UQSSP) Definition"; "UDA50 User's Guide"
 * (EK-UDA50-UG).  Layouts cross-checked against what 4.3BSD's uda driver
 * (vaxuba/uda.c, vax/mscp.h) and DEC's own VMB and Diagnostic Supervisor
 * read and write when they run on this emulator.
 *
 * All multi-byte fields are little-endian, as the VAX stores them.
 */
#ifndef VAX_UNIBUS_MSCP_H
#define VAX_UNIBUS_MSCP_H

/* ---- The port's envelope: 4 bytes in front of every message text ----
 * The ring descriptor points at the text; the envelope is at text - 4:
 *   -4 word  message length (text bytes; the host sets a response slot's
 *            to the room it has, the port writes the length it used)
 *   -2 byte  credits (bits 3:0) and message type (bits 7:4)
 *   -1 byte  connection id (0: the MSCP disk server) */
#define MSCP_ENV_BYTES 4
#define MSCP_MT_SEQ 0          /* sequential message (commands, end messages) */
#define MSCP_MT_DATAGRAM 1     /* error log datagram */
#define MSCP_MT_CREDIT 2       /* credit notification */
#define MSCP_MT_MAINT 15       /* maintenance */

/* ---- Every command and end message starts so ---- */
#define MSCP_CMDREF 0          /* long: command reference number, echoed */
#define MSCP_UNIT 4            /* word: unit number */
#define MSCP_OPCODE 8          /* byte: opcode (command) / endcode (end message) */
#define MSCP_FLAGS 9           /* byte: end message flags */
#define MSCP_MODIFIER 10       /* word: modifiers (command) */
#define MSCP_STATUS 10         /* word: status (end message): code 4:0, subcode 15:5 */
#define MSCP_HEADER_BYTES 12

/* Transfer commands and their end messages. */
#define MSCP_BYTECNT 12        /* long: byte count (end: bytes transferred) */
#define MSCP_BUFFER 16         /* 12 bytes: buffer descriptor; a UNIBUS port uses
                                  the first long: bits 17:0 the UNIBUS address,
                                  bits 27:24 a buffered data path number */
#define MSCP_LBN 28            /* long: logical block number (end: first bad block) */
#define MSCP_XFER_BYTES 32

/* ABORT and GET COMMAND STATUS. */
#define MSCP_OUTREF 12         /* long: the outstanding command's reference number */
#define MSCP_CMDSTS 16         /* long (end of GET COMMAND STATUS): its progress */

/* SET CONTROLLER CHARACTERISTICS (command and end message). */
#define MSCP_VERSION 12        /* word: MSCP version (0) */
#define MSCP_CNTFLGS 14        /* word: controller flags */
#define MSCP_HSTTMO 16         /* word: host timeout, seconds (end: controller timeout) */
#define MSCP_TIME 20           /* quad: time and date (command) */
#define MSCP_CNTID 20          /* quad: controller id (end message) */
#define MSCP_CNTSVR 28         /* byte: controller software version (end message) */
#define MSCP_CNTHVR 29         /* byte: controller hardware version (end message) */
#define MSCP_STCON_BYTES 32

/* ONLINE, SET UNIT CHARACTERISTICS, GET UNIT STATUS (end messages). */
#define MSCP_MULTUNT 12        /* word: multi-unit code */
#define MSCP_UNITFLGS 14       /* word: unit flags */
#define MSCP_UNITID 20         /* quad: unit identifier: 6 bytes serial, model, class */
#define MSCP_MEDIAID 28        /* long: media type identifier */
#define MSCP_UNTSIZE 36        /* long: unit size in LBNs (ONLINE / SET UNIT CHAR.) */
#define MSCP_VOLSER 40         /* long: volume serial number (ONLINE / SET UNIT CHAR.) */
#define MSCP_ONLINE_BYTES 44
#define MSCP_TRACK 36          /* word: LBNs per track (GET UNIT STATUS) */
#define MSCP_GROUP 38          /* word: tracks per group */
#define MSCP_CYLINDER 40       /* word: groups per cylinder */
#define MSCP_USVR 42           /* byte: unit software version */
#define MSCP_UHVR 43           /* byte: unit hardware version */
#define MSCP_RCTSIZE 44        /* word: replacement and caching table size (blocks) */
#define MSCP_RBNS 46           /* byte: replacement blocks per track */
#define MSCP_RCTCPYS 47        /* byte: copies of the RCT */
#define MSCP_GTUNT_BYTES 48

/* The most a command may carry that the port looks at. */
#define MSCP_MAX_COMMAND 64

/* ---- Opcodes ---- */
enum {
    MSCP_OP_ABORT = 001,
    MSCP_OP_GTCMD = 002,   /* get command status */
    MSCP_OP_GTUNT = 003,   /* get unit status */
    MSCP_OP_STCON = 004,   /* set controller characteristics */
    MSCP_OP_SEREX = 007,   /* serious exception end message */
    MSCP_OP_AVAIL = 010,   /* available */
    MSCP_OP_ONLIN = 011,   /* online */
    MSCP_OP_STUNT = 012,   /* set unit characteristics */
    MSCP_OP_DTACP = 013,   /* determine access paths */
    MSCP_OP_ACCES = 020,   /* access (read and check, no transfer) */
    MSCP_OP_CMPCD = 021,   /* compare controller data */
    MSCP_OP_ERASE = 022,
    MSCP_OP_FLUSH = 023,
    MSCP_OP_REPLC = 024,   /* replace */
    MSCP_OP_COMP = 040,    /* compare host data */
    MSCP_OP_READ = 041,
    MSCP_OP_WRITE = 042,
    MSCP_OP_AVATN = 0100,  /* available attention message */
    MSCP_OP_END = 0200     /* end message flag, ORed into the endcode */
};

/* ---- Modifiers ---- */
#define MSCP_MD_EXPRS 0100000u   /* express request */
#define MSCP_MD_COMP 0040000u    /* compare (transfers) */
#define MSCP_MD_CLSEX 0020000u   /* clear serious exception */
#define MSCP_MD_ERROR 0010000u   /* force error (WRITE) */
#define MSCP_MD_SPNDW 0000001u   /* spin down (AVAILABLE) */
#define MSCP_MD_NXUNT 0000001u   /* next unit (GET UNIT STATUS) */
#define MSCP_MD_STWRP 0000004u   /* set write protect (ONLINE, SET UNIT CHAR.) */

/* ---- End message flags ---- */
#define MSCP_EF_SEREX 0020u

/* ---- Controller flags (SET CONTROLLER CHARACTERISTICS) ---- */
#define MSCP_CF_ATTN 0200u       /* enable attention messages */
#define MSCP_CF_MISC 0100u       /* enable miscellaneous error log messages */
#define MSCP_CF_OTHER 0040u      /* enable other hosts' error log messages */
#define MSCP_CF_THIS 0020u       /* enable this host's error log messages */
#define MSCP_CF_576 0001u        /* 576-byte sectors */

/* ---- Unit flags ---- */
#define MSCP_UF_WRTPH 0020000u   /* write protected (hardware) */
#define MSCP_UF_WRTPS 0010000u   /* write protected (software) */
#define MSCP_UF_RMVBL 0000200u   /* removable media */
#define MSCP_UF_576 0000004u

/* ---- Status codes (bits 4:0) and the subcodes used here (bits 15:5) ---- */
enum {
    MSCP_ST_SUCC = 000,
    MSCP_ST_ICMD = 001,    /* invalid command; subcode: byte offset of the bad field << 3
                              (i.e. status = 1 | offset << 8) */
    MSCP_ST_ABRTD = 002,   /* command aborted */
    MSCP_ST_OFFLN = 003,   /* unit offline */
    MSCP_ST_AVLBL = 004,   /* unit available */
    MSCP_ST_MFMTE = 005,   /* media format error */
    MSCP_ST_WRTPR = 006,   /* write protected */
    MSCP_ST_COMP = 007,    /* compare error */
    MSCP_ST_DATA = 010,    /* data error */
    MSCP_ST_HSTBF = 011,   /* host buffer access error */
    MSCP_ST_CNTLR = 012,   /* controller error */
    MSCP_ST_DRIVE = 013    /* drive error */
};
#define MSCP_STATUS_CODE_MASK 037u
#define MSCP_SUBCODE(s) ((unsigned)(s) << 5)
#define MSCP_SC_SUCC_ONLINE MSCP_SUBCODE(8)   /* ONLINE: the unit was already online */
#define MSCP_SC_OFFLN_UNKNOWN MSCP_SUBCODE(0) /* no such unit */
#define MSCP_SC_WRTPR_HW MSCP_SUBCODE(256)    /* hardware write protect */
#define MSCP_SC_WRTPR_SW MSCP_SUBCODE(128)    /* software write protect */
#define MSCP_SC_HSTBF_NXM MSCP_SUBCODE(3)     /* non-existent memory */
/* Invalid command: the byte offset of the offending field in the high byte. */
#define MSCP_ICMD_AT(offset) (MSCP_ST_ICMD | ((unsigned)(offset) << 8))

/* ---- Identifiers ----
 * A media type identifier spells the controller's and the drive's names in
 * five 5-bit letters (A = 1) and a number: "DU" (disk on a UDA) + "RA" +
 * the model, e.g. DU RA81.  Unit and controller identifiers are 6 bytes
 * of serial number, a model byte and a class byte. */
#define MSCP_LETTER(c) ((unsigned)((c) - 'A' + 1) & 037u)
#define MSCP_MEDIA_ID(d0, d1, m0, m1, m2, num)                                                  \
    ((MSCP_LETTER(d0) << 27) | (MSCP_LETTER(d1) << 22) | (MSCP_LETTER(m0) << 17) |              \
     (MSCP_LETTER(m1) << 12) | ((m2) ? MSCP_LETTER(m2) << 7 : 0u) | ((unsigned)(num) & 0177u))
#define MSCP_CLASS_CONTROLLER 1   /* mass storage controller */
#define MSCP_CLASS_DISK 2

#endif
