// Shared types for the transcribed tables of McKusick, Leffler and Karels,
// "Measuring and Improving the Performance of Berkeley UNIX" (see README.md).

/** The paper, as we have it: a text rendering of the 4.4BSD-era troff source. */
export const PAPER = {
  title: 'Measuring and Improving the Performance of Berkeley UNIX',
  authors: ['Marshall Kirk McKusick', 'Samuel J. Leffler', 'Michael J. Karels'],
  /** The date printed on this revision (the 1985 paper, as revised for the 4.3BSD documentation). */
  revisionDate: 'April 17, 1991',
  /** Relative to the repository root. */
  file: '../shared/paper/mckusick-leffler-karels-1985-performance-of-berkeley-unix.txt',
  /** Lines in that file; every line number below is 1-based in it. */
  fileLines: 2927,
} as const;

/**
 * One number exactly as the paper prints it.  `raw` is the text of the cell
 * (or of the number in a sentence) character for character, so "28.0" keeps
 * its decimal and "100,000" its comma; `value` is what it means as a number
 * ("11.3%" is 11.3).
 */
export interface Cell {
  readonly raw: string;
  readonly value: number;
}

/** Parse a cell as printed: digits, an optional decimal part, thousands commas, an optional trailing %. */
export function cell(raw: string): Cell {
  if (!/^\d{1,3}(,\d{3})*(\.\d+)?%?$|^\d+(\.\d+)?%?$/.test(raw))
    throw new Error(`not a number as the paper prints them: "${raw}"`);
  return { raw, value: Number(raw.replace(/[,%]/g, '')) };
}

/** Where something is in the paper. */
export interface PaperRef {
  /** Section number as printed, e.g. "3.2.1". */
  readonly section: string;
  readonly sectionTitle: string;
  /** The paper's table number, for tables. */
  readonly table?: number;
  /** The caption, exactly as printed (for tables). */
  readonly caption?: string;
  /** The paper's own page number (the "- N -" page header above it). */
  readonly page: number;
  /** First and last line in the text file (1-based, inclusive): the table's top rule to its caption, or the passage. */
  readonly lines: readonly [number, number];
}

/**
 * A sentence quoted from the paper.  Line-break hyphenation is undone
 * ("phy-" + "sical" is "physical"), whitespace is collapsed to single spaces,
 * and page headers and footnotes that interrupt a sentence are left out;
 * otherwise the text is the paper's, typos included.
 */
export interface Quote {
  readonly text: string;
  /** The lines of the text file it spans. */
  readonly lines: readonly [number, number];
}

/** A command of the appendix's run script ("run (shell script)"), as typed there after `time`. */
export interface RunScriptCommand {
  /** The command line, e.g. "pipeself 10000 4". */
  readonly command: string;
  /** Its line in the text file. */
  readonly line: number;
  /** Whether the script had set the ~1 KB environment (15 `setenv`s) before it. */
  readonly largeEnvironment: boolean;
}
