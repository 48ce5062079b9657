// Parsing what the guest's /bin/time prints (4.3BSD /usr/src/bin/time.c):
//
//         1.5 real         0.1 user         1.3 sys
//
// on stderr after the timed command ends.  We use /bin/time rather than
// csh's `time` because it gives elapsed time in tenths (csh prints whole
// seconds, "0:14"), and Table 2's main column is elapsed time.

import { SessionFailure } from './session';

export interface GuestTimes {
  /** Seconds, as printed. */
  real: number;
  user: number;
  sys: number;
  /** The line, as printed (trimmed). */
  line: string;
}

const NUM = '(\\d+(?:\\.\\d+)?)';
const TIME_LINE = new RegExp(`^\\s*${NUM} real\\s+${NUM} user\\s+${NUM} sys\\s*$`);

/** One /bin/time line, or null if the line is not one. */
export function parseTimeLine(line: string): GuestTimes | null {
  const m = TIME_LINE.exec(line);
  if (!m) return null;
  return { real: Number(m[1]), user: Number(m[2]), sys: Number(m[3]), line: line.trim() };
}

/** What a timed command printed, split up. */
export interface TimedOutput {
  times: GuestTimes;
  /** The exit status the runner's `; echo exit $?` printed. */
  exitStatus: number;
  /** Any other lines (the benchmark programs print nothing when all is well). */
  other: string[];
}

/**
 * Parses the console output of `/bin/time CMD; echo exit $?` up to and
 * including the next prompt: the echoed command line, then the program's
 * output, the time line, "exit N", "# ".  Throws SessionFailure('parse
 * failure') unless there is exactly one time line and one exit line.
 */
export function parseTimedOutput(output: string, command: string): TimedOutput {
  const lines = output.split(/\r?\n|\r/).map((l) => l.replace(/\r/g, ''));
  // The first line is the shell echoing what we typed; the last the prompt.
  const body = lines.slice(1).filter((l, i, a) => !(i === a.length - 1 && /^#\s*$/.test(l)) && l.trim() !== '');
  const times: GuestTimes[] = [];
  const exits: number[] = [];
  const other: string[] = [];
  for (const l of body) {
    const t = parseTimeLine(l);
    const e = /^exit (\d+)$/.exec(l.trim());
    if (t) times.push(t);
    else if (e) exits.push(Number(e[1]));
    else other.push(l);
  }
  if (times.length !== 1 || exits.length !== 1) {
    const what = times.length !== 1
      ? `${times.length === 0 ? 'no' : times.length} /bin/time lines ("N real N user N sys")`
      : `${exits.length === 0 ? 'no' : exits.length} "exit N" lines`;
    throw new SessionFailure('parse failure', `${what} in the output of \`${command}\`: ${JSON.stringify(output)}`, output);
  }
  return { times: times[0]!, exitStatus: exits[0]!, other };
}
