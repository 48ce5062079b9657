// The Terminal tab's machine: 4.3BSD booted multi-user on a copy-on-write
// overlay of the pristine image, run in slices with an await between them so
// the worker keeps taking messages.  It boots as fast as the host can — or,
// when a snapshot of this machine at its login prompt is at hand (the one
// the image builder ships, or the one it saved itself the first time:
// experiments/runner/bootSnapshots.ts), it starts from that at once, its
// boot messages shown as they were printed; from the first "login: " on it
// follows wall time (virtual time may lead by at most MAX_LEAD_S), unless the
// page asks for full speed — but for the guest's answer to what was typed,
// which runs at full speed until the guest has printed nothing for QUIET_S
// of virtual time (`sleep 5` still takes 5 s, less QUIET_S).  A login
// (what is typed on a line that a login prompt began) is answered whole:
// it is silent for longer than that, so it runs at full speed until the
// guest is idle too (LOGIN_IDLE_SHARE), and the shell's prompt comes at
// once.
//
// What is typed is queued here and handed to the console as its input queue
// takes it (the C side then paces it by the guest's tty queues), so a paste
// of any length arrives whole — but for a single line longer than the
// guest's tty takes at the shell, which the kernel cuts short as a real VAX
// did (the page says so: GUEST_TTY_LINE_MAX, lab/state/terminal.ts).  The terminal's size is the console tty's
// window size: written into the running kernel's `cons` tty (its t_winsize),
// as TIOCSWINSZ would, when it changes and whenever the kernel has none (at
// boot, and after login's vhangup() clears it), so `stty size` and
// full-screen programs see the xterm's rows and columns.  A size the user
// sets with stty stays until the terminal's own changes.

import type { CpuModel } from '../../../emu/js/constants';
import type { DiskImage } from '../../../emu/js/diskImage';
import { Vax780Stop, type Vax780Api, type Vax780Options, type Vax780System } from '../../../emu/js/vax780';
import {
  TERMINAL_BOOT, bootKey, encodeHostPart, type BootSnapshot, type BootSnapshots,
} from '../../../experiments/runner/bootSnapshots';
import { terminalMachineOptions } from '../../../experiments/runner/shippedBoots';
import type { FromWorker } from './protocol';

export interface TerminalOptions {
  memoryMB: number;
  cpuModel: CpuModel;
  nsPerInstruction: number;
  realtime: boolean;
}

export interface TerminalEvents {
  output(text: string): void;
  status(phase: 'booting' | 'running' | 'stopped' | 'error', virtualSeconds: number, message?: string): void;
  /** Instructions executed by one slice (for the worker's speed meter). */
  executed(instructions: number): void;
}

/** Instructions per slice while booting or at full speed (a few ms of host
 *  time): the boot recipe's, so that a booted terminal stops where a
 *  snapshot of one was taken. */
const FAST_SLICE = TERMINAL_BOOT.slice;
/** Per slice when following wall time: 0.1 virtual s on a 780. */
const REALTIME_SLICE = 50_000;
/** How far virtual time may run ahead of wall time. */
const MAX_LEAD_S = 0.25;
/** Behind by more than this (a busy host), the clocks are re-anchored instead of catching up. */
const MAX_LAG_S = 1;
/** After a keystroke the guest runs at full speed until it has been silent this long (virtual s). */
const QUIET_S = 0.5;
/** A slice in which the guest spent less than this share of its virtual time in the idle loop, or moved a disk
 *  block, is busy.  Logging in as root on this image, the guest prints nothing for 2.6 virtual s between the echo of
 *  `root` and the shell's first words (login reads the password file and writes utmp and wtmp; csh reads /.cshrc,
 *  which runs `hostname | sed`, and /.login, which runs stty: the distribution's dot files), busy or waiting for
 *  the disk throughout; idle, the guest spends about 0.98 of its time in the idle loop. */
const LOGIN_IDLE_SHARE = 0.9;
/** The model's counters that tell busy from idle (emu/src/system/vax780_stats.c names them). */
const IDLE_NS = 'ns.idle';
const TOTAL_NS = 'ns.total';
const DRIVE_TRANSFERS = /^disk\..*\.xfers$/;
/** The line being typed on begins with a login prompt, as getty and login print them ("login: ", "Password:",
 *  perhaps after a host name). */
const LOGIN_LINE = /(^|[\r\n])(\S+ )?(login: |Password:)[^\r\n]*$/;
/** At most this much typed text waits (a paste larger than this is refused with the bell). */
export const MAX_PENDING_INPUT = 4 * 1024 * 1024;
/** Where 4.3BSD's struct tty keeps its window size (t_winsize: rows, columns, x and y pixels, 16 bits each,
 *  little-endian), in bytes from the start of the struct (sys/h/tty.h as the VAX compiler lays it out). */
export const TTY_WINSIZE_OFFSET = 92;
/** How often the console tty's size is looked at (ms of host time). */
const SIZE_CHECK_MS = 200;

export class TerminalSession {
  private sys: Vax780System | null = null;
  private stopped = false;
  private loggedInPrompt = false;
  /** What the boot printed, until the login prompt (for a snapshot of it). */
  private bootTranscript = '';
  private typedBeforeLogin = false;
  /** Answering what was typed (full speed), and when it last printed (virtual ns). */
  private answering = false;
  private lastOutputNs = 0n;
  /** Answering a login (LOGIN_LINE): until the guest is idle as well as quiet; and when it was last busy (virtual ns). */
  private answeringLogin = false;
  private lastBusyNs = 0n;
  /** The guest's idle time and disk transfers (hardwareStats) after the last slice, while answering a login. */
  private busyCounters: { idleNs: number; totalNs: number; transfers: number } | null = null;
  /** The counters busyCounters reads: idle and total time, and every drive's transfers (whatever the drives are
   *  named), found once in the machine's whole set so that each slice reads only these. */
  private busyCounterNames: readonly string[] | null = null;
  /** The end of what the guest printed (for LOGIN_LINE). */
  private outputTail = '';
  private pending = '';
  private size: { cols: number; rows: number } | null = null;
  private sizeCheckedAt = 0;
  /** The console tty (_cons) in the kernel, once looked up (null: this kernel has none). */
  private consAddress: number | null | undefined = undefined;
  private wake: (() => void) | null = null;
  private anchorWall = 0;
  private anchorVirtual = 0n;
  private realtime: boolean;
  /** What status() last said. */
  phase: 'booting' | 'running' | 'stopped' | 'error' = 'booting';

  constructor(
    private readonly api: Vax780Api,
    private readonly disk: DiskImage,
    private readonly options: TerminalOptions,
    events: TerminalEvents,
    private readonly yieldNow: () => Promise<void>,
    /** Snapshots of machines at their prompts: this one's, if there, saves the boot. */
    private readonly snapshots: BootSnapshots | null = null,
  ) {
    this.realtime = options.realtime;
    this.events = {
      ...events,
      status: (phase, virtualSeconds, message) => {
        this.phase = phase;
        events.status(phase, virtualSeconds, message);
      },
    };
  }

  private readonly events: TerminalEvents;

  /** Boots and runs until stop(); resolves when the machine is gone. */
  async run(): Promise<void> {
    const { memoryMB, cpuModel } = this.options;
    this.events.status('booting', 0);
    const options: Vax780Options = { ...terminalMachineOptions(cpuModel, memoryMB), disk: this.disk };
    if (options.nsPerInstruction !== this.options.nsPerInstruction) options.nsPerInstruction = this.options.nsPerInstruction;
    const key = bootKey(this.disk, options, TERMINAL_BOOT);
    let saved: BootSnapshot | undefined = (await this.snapshots?.take(key)) ?? undefined;
    try {
      if (saved) {
        try {
          this.sys = this.api.create({ ...options, restore: saved.bytes });
        } catch (e) {
          // One shipped by another emulator build: boot instead.
          if (saved.origin !== 'shipped') throw e;
          this.snapshots?.delete(key);
          saved = undefined;
        }
      }
      this.sys ??= this.api.create(options);
    } catch (e) {
      this.events.status('error', 0, e instanceof Error ? e.message : String(e));
      return;
    }
    const sys = this.sys;
    if (saved) {
      // At the login prompt already: its boot as it was printed, then on in wall time.
      this.events.output(saved.transcript);
      this.outputTail = saved.transcript.slice(-256);
      this.loggedInPrompt = true;
      this.anchor();
      this.events.status('running', this.virtualSeconds());
    }
    try {
      while (!this.stopped) {
        this.feedInput();
        const lastSign = this.answeringLogin && this.lastBusyNs > this.lastOutputNs ? this.lastBusyNs : this.lastOutputNs;
        if (this.answering && Number(sys.timeNs() - lastSign) / 1e9 > QUIET_S) {
          this.answering = false;
          this.answeringLogin = false;
          this.busyCounters = null;
          this.anchor();   // wall time from here: no catching up with the burst
        }
        const following = this.realtime && this.loggedInPrompt && !this.answering;
        if (following) {
          const wall = (performance.now() - this.anchorWall) / 1000;
          const virtual = Number(sys.timeNs() - this.anchorVirtual) / 1e9;
          if (virtual - wall > MAX_LEAD_S) {
            await this.sleep(Math.min(100, (virtual - wall) * 1000));
            continue;
          }
          if (wall - virtual > MAX_LAG_S) this.anchor();
        }
        const before = sys.instructionCount();
        const r = sys.run(following ? REALTIME_SLICE : FAST_SLICE);
        this.events.executed(Number(sys.instructionCount() - before));
        const out = sys.readConsole();
        if (this.answeringLogin && this.guestBusy()) this.lastBusyNs = sys.timeNs();
        if (out) {
          this.outputTail = (this.outputTail + out).slice(-256);
          this.lastOutputNs = sys.timeNs();
          this.events.output(out);
          if (!this.loggedInPrompt) {
            // Looked for in all the boot printed, as the runner's sessions do
            // (a prompt split between two slices' output counts).
            this.bootTranscript += out;
            const at = this.bootTranscript.indexOf(TERMINAL_BOOT.prompt);
            if (at >= 0) {
              this.loggedInPrompt = true;
              this.anchor();
              this.events.status('running', this.virtualSeconds());
              // Untouched by the user: the machine any later terminal of these
              // settings would boot to.  Saved for the next start.
              if (this.snapshots && !this.typedBeforeLogin && !this.snapshots.has(key)) {
                const mark = at + TERMINAL_BOOT.prompt.length;
                const bytes = sys.snapshot(encodeHostPart(this.bootTranscript, mark));
                this.snapshots.set(key, { bytes, transcript: this.bootTranscript, mark, origin: 'here' });
              }
            }
          }
        }
        // The kernel is up: its console tty gets the terminal's size when it has none.
        if (this.loggedInPrompt && performance.now() - this.sizeCheckedAt > SIZE_CHECK_MS) this.applySize(false);
        // A panic shows on the console in the kernel's own words; the
        // console then reboots it, as a 780's would: keep running.
        if (r !== Vax780Stop.Budget && r !== Vax780Stop.Rebooted && r !== Vax780Stop.Panicked) {
          this.events.status('stopped', this.virtualSeconds(), `${this.api.stopName(r)}: ${sys.stopDetail()}`);
          return;
        }
        await this.yieldNow();
      }
      this.events.status('stopped', this.virtualSeconds(), 'stopped');
    } catch (e) {
      this.events.status('error', this.virtualSeconds(), e instanceof Error ? e.message : String(e));
    } finally {
      this.sys = null;
      this.busyCounterNames = null;
      sys.destroy();
    }
  }

  input(text: string): void {
    if (this.pending.length + text.length > MAX_PENDING_INPUT) {
      this.events.output('\x07'); // the terminal's bell: too much at once
      return;
    }
    this.pending += text;
    this.wake?.();
  }

  /** The terminal's size: the console tty's window size from now on. */
  setSize(cols: number, rows: number): void {
    if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < 1 || rows < 1 || cols > 999 || rows > 999) return;
    this.size = { cols, rows };
    if (this.loggedInPrompt) this.applySize(true);
  }

  /** Characters typed that the console has not taken yet. */
  get pendingInput(): number {
    return this.pending.length;
  }

  setRealtime(realtime: boolean): void {
    this.realtime = realtime;
    this.anchor();
    this.wake?.();
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  /** Stops it, and what the worker tells the page then: off, with the speed setting it had (the page's "Follow
   *  wall-clock time" box shows it, and the next boot follows it), not a guess. */
  powerOff(): Extract<FromWorker, { type: 'terminal-status' }> {
    this.stop();
    return { type: 'terminal-status', phase: 'off', virtualSeconds: 0, realtime: this.realtime };
  }

  get isRealtime(): boolean {
    return this.realtime;
  }

  virtualSeconds(): number {
    return this.sys ? Number(this.sys.timeNs()) / 1e9 : 0;
  }

  private anchor(): void {
    if (!this.sys) return;
    this.anchorWall = performance.now();
    this.anchorVirtual = this.sys.timeNs();
  }

  /** Types what the page sent, as much as the console's input queue takes; the rest waits for the next slice. */
  private feedInput(): void {
    if (!this.sys || this.pending === '') return;
    // What is typed next may ask the size (stty size, vi): the tty has it first.
    if (this.loggedInPrompt) this.applySize(false);
    if (!this.loggedInPrompt) this.typedBeforeLogin = true;
    this.answering = true;
    this.lastOutputNs = this.sys.timeNs();
    if (!this.answeringLogin && this.loggedInPrompt && LOGIN_LINE.test(this.outputTail)) {
      this.answeringLogin = true;
      this.lastBusyNs = this.lastOutputNs;
      this.busyCounters = this.readBusyCounters();
    }
    const taken = this.sys.typeSome(this.pending.slice(0, 8192));
    if (taken > 0) this.pending = this.pending.slice(taken);
  }

  /** Whether the guest was busy (LOGIN_IDLE_SHARE) since the last call. */
  private guestBusy(): boolean {
    const before = this.busyCounters;
    const now = this.readBusyCounters();
    this.busyCounters = now;
    if (!before || !now) return false;
    const total = now.totalNs - before.totalNs;
    return now.transfers > before.transfers || (total > 0 && (now.idleNs - before.idleNs) / total < LOGIN_IDLE_SHARE);
  }

  private readBusyCounters(): { idleNs: number; totalNs: number; transfers: number } | null {
    if (!this.sys) return null;
    this.busyCounterNames ??= [IDLE_NS, TOTAL_NS, ...Object.keys(this.sys.hardwareStats()).filter((name) => DRIVE_TRANSFERS.test(name))];
    const stats = this.sys.hardwareStatsOf(this.busyCounterNames);
    let transfers = 0;
    for (const [name, n] of Object.entries(stats)) if (DRIVE_TRANSFERS.test(name)) transfers += n;
    return { idleNs: stats[IDLE_NS] ?? 0, totalNs: stats[TOTAL_NS] ?? 0, transfers };
  }

  /** Writes the terminal's size into the console tty's t_winsize: always, or (`always` false) only if it has none. */
  private applySize(always: boolean): void {
    this.sizeCheckedAt = performance.now();
    if (!this.sys || !this.size) return;
    if (this.consAddress === undefined) this.consAddress = this.sys.kernelSymbols(['_cons'])._cons ?? null;
    if (this.consAddress === null) return;
    const at = this.consAddress + TTY_WINSIZE_OFFSET;
    if (!always) {
      const now = this.sys.readKernel(at, 4);
      if (now.some((b) => b !== 0)) return;
    }
    const { cols, rows } = this.size;
    this.sys.writeKernel(at, Uint8Array.from([rows & 0xff, rows >> 8, cols & 0xff, cols >> 8, 0, 0, 0, 0]));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        this.wake = null;
        resolve();
      };
    });
  }
}
