// Dependencies run one way: web -> experiments -> emu.  The emulator and
// its TypeScript binding (emu/) import nothing outside emu/; the paper's
// experiments (experiments/) import only emu/; the installer (installer/),
// which builds the image with the experiments' programs and kernels, imports
// emu/ and experiments/; the page (web/) anything below it but the installer.  The command-line scripts
// (scripts/) and the end-to-end tests (e2e/) sit on top and may import
// anything.  This reads every import of every TypeScript file in the
// repository and fails naming the file and line of an import that goes the
// wrong way.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** What each top-level folder may import besides itself. */
export const ALLOWED: Record<string, readonly string[]> = {
  emu: [],
  experiments: ['emu'],
  installer: ['experiments', 'emu'],
  web: ['experiments', 'emu'],
  scripts: ['web', 'experiments', 'installer', 'emu'],
  e2e: ['web', 'experiments', 'installer', 'emu'],
};

const SKIP_DIRS = new Set(['node_modules', 'build', 'dist', '.git', 'test-results', 'playwright-report']);

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) out.push(...sources(join(dir, e.name)));
    } else if (/\.(ts|tsx|mts|mjs)$/.test(e.name)) out.push(join(dir, e.name));
  }
  return out;
}

export interface ImportLine {
  line: number;
  specifier: string;
}

/** The module specifiers of a source text: import/export ... from, side-effect imports, import(). */
export function importsOf(text: string): ImportLine[] {
  const out: ImportLine[] = [];
  const re = /(?:^|[\s;{}])(?:import|export)\b[^'"`;]*?\bfrom\s*(['"])([^'"]+)\1|(?:^|[\s;])import\s*(['"])([^'"]+)\3|\bimport\(\s*(['"])([^'"]+)\5\s*\)/gm;
  for (const m of text.matchAll(re)) {
    const specifier = m[2] ?? m[4] ?? m[6]!;
    const start = m.index + m[0].search(/\S/); // the keyword, after what the pattern needed before it
    out.push({ line: text.slice(0, start).split('\n').length, specifier });
  }
  return out;
}

/** The top-level folder of a path relative to the repository ('' for a file at the top). */
function area(path: string): string {
  const parts = path.split(sep);
  return parts.length > 1 ? parts[0]! : '';
}

/** The imports of `file` (relative to the root) that leave its folder for one it may not use. */
export function violations(file: string, text: string): string[] {
  const from = area(file);
  const allowed = ALLOWED[from];
  if (!allowed) return [];
  const out: string[] = [];
  for (const { line, specifier } of importsOf(text)) {
    if (!specifier.startsWith('.')) continue; // a package or node: builtin
    const target = normalize(join(dirname(file), specifier));
    const to = target.startsWith('..') ? '(outside the repository)' : area(target);
    if (to !== from && !allowed.includes(to)) out.push(`${file}:${line}: ${from}/ imports ${to || 'the top level'} (${specifier})`);
  }
  return out;
}

/** Which folder imports which, with how many import lines: "web -> experiments: 24". */
function picture(files: string[]): Map<string, number> {
  const edges = new Map<string, number>();
  for (const f of files) {
    const rel = relative(REPO_ROOT, f);
    for (const { specifier } of importsOf(readFileSync(f, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const to = area(normalize(join(dirname(rel), specifier)));
      if (to !== area(rel)) edges.set(`${area(rel)} -> ${to}`, (edges.get(`${area(rel)} -> ${to}`) ?? 0) + 1);
    }
  }
  return edges;
}

test('the checker finds imports of every form, with their lines, and flags one that goes the wrong way', () => {
  const text = [
    "import { a } from '../../web/src/x';",
    "import type { B } from './b';",
    "export { c } from '../experiments/c';",
    "import './side-effect';",
    'const m = await import(\'../web/dynamic\');',
    "import assert from 'node:assert/strict';",
    '// a comment saying from \'nowhere\' is not an import line of its own',
  ].join('\n');
  assert.deepEqual(importsOf(text).map((i) => [i.line, i.specifier]), [
    [1, '../../web/src/x'], [2, './b'], [3, '../experiments/c'], [4, './side-effect'], [5, '../web/dynamic'], [6, 'node:assert/strict'],
  ]);
  assert.deepEqual(violations('emu/js/x.ts', "import { y } from '../../web/src/y';\nimport { z } from './z';"), [
    "emu/js/x.ts:1: emu/ imports web (../../web/src/y)",
  ]);
  assert.deepEqual(violations('experiments/runner/x.ts', "import { y } from '../../emu/js/y';"), []);
  assert.equal(violations('experiments/runner/x.ts', "import { y } from '../../web/src/lab/y';").length, 1);
  assert.deepEqual(violations('web/src/lab/x.ts', "import { y } from '../../../experiments/runner/y';"), []);
});

test('dependencies run one way: web -> experiments -> emu (emu/ and experiments/ import nothing above them)', () => {
  const files = Object.keys(ALLOWED).flatMap((d) => sources(join(REPO_ROOT, d)));
  assert.ok(files.length > 50, `only ${files.length} source files found under ${REPO_ROOT}`);
  const bad = files.flatMap((f) => violations(relative(REPO_ROOT, f), readFileSync(f, 'utf8')));
  assert.deepEqual(bad, [], `imports against the direction web -> experiments -> emu:\n${bad.join('\n')}`);
  // The layers do use each other (so the check above saw real imports).
  const edges = picture(files);
  for (const e of ['web -> experiments', 'web -> emu', 'experiments -> emu']) assert.ok(edges.get(e), `no import ${e} found`);
});
