// The lab's additions to the image: the benchmark programs whose K&R C
// sources are in experiments/guest, compiled inside the guest by its own cc,
// and a directory of 600 small files for the name-translation experiment
// (McKusick, Leffler and Karels, section 4.1.1: "ls -l" of a directory with
// 600 files).
//
// The set of programs is data: every NAME.c in the folder (when the
// installer runs) is a program, built in /usr/lab/src into /usr/lab/bin/NAME
// by, in order of precedence,
//   1. a comment line "/* build: COMMAND */" in the file's first 20 lines
//      (run as it is, in /usr/lab/src; "/* build: none */" keeps the file
//      as a source only, e.g. one that other files #include);
//   2. the folder's README: the first line of a fenced code block that
//      starts with "cc " and names NAME.c, e.g. "cc -O -I/sys/h -o NAME
//      NAME.c" — NAME becomes the program, "-o NAME" becomes
//      "-o /usr/lab/bin/NAME";
//   3. cc -O -o /usr/lab/bin/NAME NAME.c.
// NAME.h and NAME.s files are carried along (for #include, or for a build
// command to assemble: the README's links start1985.s) but are not
// programs of their own.  A
// comment line "/* check: ARGS */" names the arguments for the acceptance
// check's short run of that program.
//
// The programs named in LAB_TOOLS (vmstat, iostat, w, uptime: the lab's
// tools for watching the system, not benchmarks) are built the same way
// but last, after the benchmarks, the names directory and the benchmarks'
// copy to /lab/bin, and copied after them: files made later take later
// blocks, so the benchmarks and the names sit where they did before the
// tools came, and the experiments' times (which depend on where on the
// disk their programs and files are) stay the same.
//
// The sources reach the guest as a tar archive (old V7 format, lib/tar.ts)
// written onto the installation tape as one more tape file, and are
// extracted by the guest's tar.  (Typing them with here-documents works
// too, but a line at a time, waiting for the shell's "> " each time: slow,
// and fragile for lines the terminal treats specially; tar moves the
// bytes exactly.)

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readmeBuildTemplate } from '../../experiments/guest/buildLine';

export const LAB_DIR = '/usr/lab';
export const LAB_BIN = '/usr/lab/bin';
/** A copy of every program on the root file system (hp0a, next to the swap
 * partition), where the experiments run them: the paper's Table 2 machine
 * had "paging localized to the drive where the root file system was
 * located", and a program's text pages in from the file system it lives on,
 * so programs in /usr (hp0g, far out on the pack) cost a long seek per
 * page-in that the paper's did not.  The root has room: about 2.5 MB free
 * before, the programs take about 0.4 MB. */
export const LAB_ROOT_BIN = '/lab/bin';
export const LAB_SRC = '/usr/lab/src';
export const LAB_NAMES = '/usr/lab/names';
/** Files in LAB_NAMES (section 4.1.1's directory of 600 files). */
export const NAMES_COUNT = 600;
/** The sources' modification time in the archive: 6 June 1986, 12:00 UTC
 * (the date of 4.3BSD's maketape), fixed so that the image is reproducible. */
export const LAB_MTIME = Date.UTC(1986, 5, 6, 12, 0, 0) / 1000;

export const DEFAULT_BUILD = 'cc -O -o /usr/lab/bin/NAME NAME.c';

/** The lab's tools (experiments/guest/README.md), built after everything
 * else (see the top); they are on root's path in /lab/bin. */
export const LAB_TOOLS: readonly string[] = ['iostat', 'uptime', 'vmstat', 'w'];

/** Programs run briefly by the acceptance check when no source names its
 * own check arguments: the first of these that was built. */
export const CHECK_PREFERENCES: readonly (readonly [string, string])[] = [
  ['syscall', '1000'],
  ['pipeself', '100 4'],
  ['nulljob', ''],
];

export interface LabFile {
  /** file name in experiments/guest and in /usr/lab/src */
  name: string;
  path: string;
  sha256: string;
  bytes: number;
  /** the contents as read (the archive carries exactly what was hashed) */
  data: Buffer;
}

export interface LabProgram {
  name: string;
  source: string;
  /** the guest command that builds it, run in /usr/lab/src */
  build: string;
  /** where the build command came from */
  buildFrom: 'source comment' | 'README' | 'default';
  /** arguments for the acceptance check, from a check comment */
  checkArgs: string | null;
  /** "null job" or "big job" (the exec tests' jobs), by name */
  role: string | null;
  /** one of LAB_TOOLS: built and copied after the rest */
  tool: boolean;
}

export interface LabSources {
  dir: string;
  /** every file carried to /usr/lab/src (the .c, .h and .s files), sorted */
  files: LabFile[];
  programs: LabProgram[];
  /** the README's build line, if it has one */
  readmeBuild: string | null;
  /** remarks for the log */
  notes: string[];
}

const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/;
/** Longest guest command line the installer types (the terminal's input
 * queue, TTYHOG, holds 255 characters with the carriage return). */
const MAX_LINE = 250;

/** A README build template for one program: "-o NAME" installs into
 * /usr/lab/bin; every other NAME is the program's name. */
export function commandFromTemplate(template: string, name: string): string {
  if (!/(^|\s)-o\s+(\/usr\/lab\/bin\/)?NAME(\s|$)/.test(template))
    throw new Error(`the build line ${JSON.stringify(template)} has no "-o NAME"`);
  return template
    .replace(/(^|\s)-o\s+(\/usr\/lab\/bin\/)?NAME(?=\s|$)/, `$1-o ${LAB_BIN}/NAME`)
    .replace(/\bNAME\b/g, name);
}

/** "/* KEY: VALUE *\/" comment lines in the first 20 lines of a source. */
export function sourceDirective(text: string, key: 'build' | 'check'): string | null {
  const re = new RegExp(`^\\s*/\\*\\s*${key}:\\s*(.*?)\\s*\\*/\\s*$`);
  for (const line of text.split('\n').slice(0, 20)) {
    const m = re.exec(line);
    if (m) return m[1]!;
  }
  return null;
}

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

/** What experiments/guest holds now: the files to carry and the programs to build. */
export function findLabSources(dir: string): LabSources {
  const out: LabSources = { dir, files: [], programs: [], readmeBuild: null, notes: [] };
  if (!existsSync(dir)) {
    out.notes.push(`${dir} does not exist: no benchmark programs to install`);
    return out;
  }
  const readme = readdirSync(dir).find((n) => /^README(\.md|\.txt)?$/i.test(n));
  if (readme) {
    out.readmeBuild = readmeBuildTemplate(readFileSync(join(dir, readme), 'utf8'));
    if (out.readmeBuild && !/(^|\s)-o\s+(\/usr\/lab\/bin\/)?NAME(\s|$)/.test(out.readmeBuild)) {
      out.notes.push(`${readme}'s build line ${JSON.stringify(out.readmeBuild)} has no "-o NAME": not used`);
      out.readmeBuild = null;
    }
  }
  const names = readdirSync(dir).filter((n) => /\.[chs]$/.test(n)).sort();
  for (const name of names) {
    const path = join(dir, name);
    if (!statSync(path).isFile()) continue;
    if (!SAFE_NAME.test(name) || name.length > 99) {
      out.notes.push(`${name}: not a plain file name (letters, digits, _ . + -): left out`);
      continue;
    }
    const data = readFileSync(path);
    out.files.push({ name, path, sha256: sha256(data), bytes: data.length, data });
    if (!name.endsWith('.c')) continue;
    const prog = name.slice(0, -2);
    const text = data.toString('latin1');
    const own = sourceDirective(text, 'build');
    let build: string;
    let buildFrom: LabProgram['buildFrom'];
    if (own !== null) {
      if (own === 'none') continue;
      build = own;
      buildFrom = 'source comment';
    } else if (out.readmeBuild) {
      build = commandFromTemplate(out.readmeBuild, prog);
      buildFrom = 'README';
    } else {
      build = DEFAULT_BUILD.replace(/NAME/g, prog);
      buildFrom = 'default';
    }
    const role = prog === 'nulljob' ? 'null job' : prog === 'bigjob' ? 'big job' : null;
    const p: LabProgram = {
      name: prog, source: name, build, buildFrom, checkArgs: sourceDirective(text, 'check'), role, tool: LAB_TOOLS.includes(prog),
    };
    if (buildCommandLine(p).length > MAX_LINE || /[\x00-\x1f\x7f]/.test(build)) {
      out.notes.push(`${name}: its build command line would be longer than ${MAX_LINE} characters or has control characters: left out`);
      continue;
    }
    out.programs.push(p);
  }
  if (out.files.length === 0) out.notes.push(`no .c files in ${dir}: no benchmark programs to install`);
  return out;
}

/** The program the acceptance check runs, and with what arguments. */
export function checkRun(lab: LabSources): { program: string; args: string } | null {
  const own = lab.programs.find((p) => p.checkArgs !== null);
  if (own) return { program: own.name, args: own.checkArgs! };
  for (const [program, args] of CHECK_PREFERENCES)
    if (lab.programs.some((p) => p.name === program)) return { program, args };
  return null;
}

// ------------------------------------------------------------------ console script blocks
// Lines of vax780 script for the {{LAB_...}} placeholders of
// scripts/4-lab-additions.vax and scripts/5-check-single.vax.  Every command
// ends at the single-user shell's prompt.

const PROMPT = 'expect \\n# ';

/** Extract the archive (tape file `file`) into the current directory. */
export function extractLines(file: number | null): string[] {
  if (file === null) return ['# no sources: nothing on the tape for /usr/lab/src'];
  return [
    'send mt -f /dev/rmt12 rew', PROMPT,
    `send mt -f /dev/rmt12 fsf ${file}`, PROMPT,
    'send tar xpbf 20 /dev/rmt12', PROMPT,
    'send mt -f /dev/rmt12 rew', PROMPT,
  ];
}

/** The marker a build prints: "NAME: built" or "NAME: FAILED" on a line of
 * its own.  The programs but the tools (toolLines). */
export function buildLines(lab: LabSources): string[] {
  const programs = lab.programs.filter((p) => !p.tool);
  if (programs.length === 0) return ['# no programs to build'];
  return programs.flatMap((p) => [`send ${buildCommandLine(p)}`, PROMPT]);
}

/** The tools, last: built in LAB_SRC like the rest, then copied to
 * LAB_ROOT_BIN; the shell is left in /. */
export function toolLines(lab: LabSources): string[] {
  const tools = lab.programs.filter((p) => p.tool);
  if (tools.length === 0) return ['# no tools to build'];
  return [
    `send cd ${LAB_SRC}`, PROMPT,
    ...tools.flatMap((p) => [`send ${buildCommandLine(p)}`, PROMPT]),
    'send cd /', PROMPT,
    `send cp ${tools.map((p) => `${LAB_BIN}/${p.name}`).join(' ')} ${LAB_ROOT_BIN}`, PROMPT,
  ];
}

/** The line typed to build a program (a source's own command in a subshell). */
export function buildCommandLine(p: LabProgram): string {
  const cmd = p.buildFrom === 'source comment' ? `(${p.build})` : p.build;
  return `${cmd} && echo "${p.name}: built" || echo "${p.name}: FAILED"`;
}

/** The shell loop that makes NAMES_COUNT files f000, f001, ... in the current directory. */
export function namesLoop(count = NAMES_COUNT): string {
  if (count <= 0 || count % 100 !== 0 || count > 1000) throw new Error(`names: ${count} is not a multiple of 100 up to 1000`);
  const digits = (n: number) => Array.from({ length: n }, (_, i) => i).join(' ');
  return `for a in ${digits(count / 100)}; do for b in ${digits(10)}; do for c in ${digits(10)}; do ` +
    'echo $a$b$c > f$a$b$c; done; done; done';
}

/** The count, printed as "names: N" (wc is in /usr/bin, which the image lacks; awk is in /bin). */
export const NAMES_COUNT_COMMAND = `echo names: \`ls ${LAB_NAMES} | awk 'END{print NR}'\``;

/** The acceptance check's lines: the listing of /usr/lab/bin, the count of
 * /usr/lab/names, and a short run of one program under /bin/time. */
export function checkLines(lab: LabSources): string[] {
  const lines = [`send ls -l ${LAB_BIN}`, PROMPT, `send ${NAMES_COUNT_COMMAND}`, PROMPT];
  const run = checkRun(lab);
  if (run) {
    const cmd = `${LAB_BIN}/${run.program}${run.args ? ' ' + run.args : ''}`;
    lines.push(`send /bin/time ${cmd} && echo "check ${run.program}: ran" || echo "check ${run.program}: FAILED"`, PROMPT);
  }
  return lines;
}

export interface InstalledProgram {
  name: string;
  mode: string;
  bytes: number;
}

/** The programs of an "ls -l /usr/lab/bin" (or of another directory, e.g.
 * LAB_ROOT_BIN) in a transcript (after the command's echo). */
export function parseBinListing(transcript: string, dir: string = LAB_BIN): InstalledProgram[] {
  const text = transcript.replace(/\r/g, '');
  const at = text.lastIndexOf(`# ls -l ${dir}\n`);
  if (at < 0) return [];
  const end = text.indexOf('\n# ', at + 1);
  const out: InstalledProgram[] = [];
  for (const line of text.slice(at, end < 0 ? undefined : end).split('\n')) {
    const m = /^(-[rwxsStT-]{9})\s+\d+\s+\S+\s+(\d+)\s+\w{3}\s+\d+\s+[\d:]+\s+(\S+)$/.exec(line);
    if (m) out.push({ mode: m[1]!, bytes: Number(m[2]), name: m[3]! });
  }
  return out;
}
