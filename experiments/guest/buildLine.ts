// The guest programs' build line, written once: the first line of a fenced
// code block of this folder's README that starts with "cc " and names
// NAME.c.  The installer builds every program of the lab image with it
// (installer/lib/lab.ts, which points its "-o NAME" at /usr/lab/bin) and
// verify.ts builds the programs with it as written, so the two cannot
// drift apart.

/** The README's build line, whitespace folded, or null when it has none. */
export function readmeBuildTemplate(text: string): string | null {
  let inFence = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('```')) {
      inFence = !inFence;
      continue;
    }
    if (inFence && /^cc\s/.test(line) && /\bNAME\.c\b/.test(line)) return line.replace(/\s+/g, ' ');
  }
  return null;
}

/** The build line for one program, as written: every NAME is the program's name. */
export function buildLineFor(template: string, name: string): string {
  return template.replace(/\bNAME\b/g, name);
}
