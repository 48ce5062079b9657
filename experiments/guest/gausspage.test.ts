// gausspage's log, sqrt and cos (gausspage.c: the algorithms of 4.2BSD's
// libm, since the guest has none) compiled on the host with gcc and checked
// two ways: against the host's libm, to a few units in the last place of a
// double; and by the walk itself — the paper's rand() and gauss() run on
// the host with these routines and with the host's libm take the same
// steps, draw for draw, for every standard deviation the paper ran, so the
// walk does not hang on how the last bit of a logarithm rounds.  The
// number of gauss() draws of the sd 1 walk, 30139, is also what the
// kernel profiler counts in the guest (`npx vaxlab profile table7 --step
// gausspage.1 --mode user`), which ties this host model to the guest run.
// Host doubles are IEEE, the guest's D_floating: the checks are about the
// algorithms, not the guest's rounding.  Skipped, saying why, without gcc.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SOURCE = fileURLToPath(new URL('./gausspage.c', import.meta.url));
const gcc = spawnSync('gcc', ['--version'], { encoding: 'utf8' });
const skip = gcc.status === 0 ? false : 'gcc is not installed (it builds the native emulator too)';

const work = mkdtempSync(join(tmpdir(), 'vaxlab-gausspage-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** The math routines of gausspage.c: from its first constant to the paper's generator. */
function mathRoutines(): string {
  const c = readFileSync(SOURCE, 'utf8');
  const from = c.indexOf('#define LN2');
  const to = c.indexOf("/* The paper's generator");
  assert.ok(from >= 0 && to > from, 'gausspage.c: the math routines are not where this test looks for them');
  return c.slice(from, to);
}

// The paper's generator as the guest runs it (gausspage.c; 4.3BSD's cc:
// float expressions in double, only the stores into qa and qb rounded to
// float), over either set of routines; prints one line per standard
// deviation: the draws and a hash of the pages visited.
const HARNESS = `
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#define log lab_log
#define sqrt lab_sqrt
#define cos lab_cos
ROUTINES
#undef log
#undef sqrt
#undef cos

static int randx = 1;
static int rand43(void) { randx = (int)((unsigned)randx * 1103515245u + 12345u); return randx & 0x7fffffff; }
static double rnd(void) { return (double)(float)rand43() / (double)(float)0x7fffffff; }
static int host;
static double gauss(float sd) {
  float qa, qb;
  double u1 = rnd();
  qa = (float)(host ? sqrt(log(u1) * -2.0) : lab_sqrt(lab_log(u1) * -2.0));
  qb = (float)(3.14159 * rnd());
  return qa * (host ? cos(qb) : lab_cos(qb)) * sd + 0.0;
}

int main(int argc, char **argv) {
  static const float sds[] = { 1, 10, 30, 40, 50, 60, 80, 10000 };
  double worst[3] = { 0, 0, 0 };
  (void)argc; (void)argv;
  for (int i = 1; i <= 200000; i++) {
    double u = i / 200000.0;
    double e[3] = { fabs(lab_log(u) - log(u)) / fmax(fabs(log(u)), 1e-300),
                    fabs(lab_sqrt(43 * u) - sqrt(43 * u)) / sqrt(43 * u),
                    fabs(lab_cos(3.2 * u) - cos(3.2 * u)) };
    for (int k = 0; k < 3; k++) if (e[k] > worst[k]) worst[k] = e[k];
  }
  printf("worst %.3g %.3g %.3g\\n", worst[0], worst[1], worst[2]);
  for (int s = 0; s < 8; s++)
    for (host = 0; host < 2; host++) {
      unsigned long h = 1469598103934665603ul;
      long draws = 0;
      int pn = 0, delta;
      randx = 1;
      for (int n = 0; n < 30000; n++) {
        do { delta = (int)gauss(sds[s]); draws++; } while (pn + delta < 0 || pn + delta > 7500);
        pn += delta;
        h = (h ^ (unsigned)pn) * 1099511628211ul;
      }
      printf("%s sd=%g draws=%ld walk=%016lx\\n", host ? "host" : "lab", sds[s], draws, h);
    }
  return 0;
}
`;

test('gausspage: log, sqrt and cos as 4.2BSD computed them, accurate to the last bits, and the walk the same as with the host libm', { skip }, () => {
  const c = join(work, 'walk.c');
  writeFileSync(c, HARNESS.replace('ROUTINES', mathRoutines()));
  const exe = join(work, 'walk');
  const cc = spawnSync('gcc', ['-std=gnu11', '-O1', '-w', '-o', exe, c, '-lm'], { encoding: 'utf8' });
  assert.equal(cc.status, 0, `gcc failed:\n${cc.stderr}`);
  const run = spawnSync(exe, [], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stdout.trim().split('\n');

  const [logErr, sqrtErr, cosErr] = lines[0]!.split(' ').slice(1).map(Number);
  assert.ok(logErr! < 1e-14, `log's worst relative error ${logErr}`);
  assert.ok(sqrtErr! < 1e-15, `sqrt's worst relative error ${sqrtErr}`);
  assert.ok(cosErr! < 1e-15, `cos's worst absolute error ${cosErr}`);

  const walks = new Map<string, { draws: number; walk: string }>();
  for (const line of lines.slice(1)) {
    const m = /^(lab|host) sd=(\S+) draws=(\d+) walk=(\w+)$/.exec(line);
    assert.ok(m, `unexpected line ${line}`);
    walks.set(`${m[1]} ${m[2]}`, { draws: Number(m[3]), walk: m[4]! });
  }
  for (const sd of ['1', '10', '30', '40', '50', '60', '80', '10000']) {
    const lab = walks.get(`lab ${sd}`);
    assert.ok(lab, `no walk for sd ${sd}`);
    assert.deepEqual(lab, walks.get(`host ${sd}`), `sd ${sd}: the walk depends on which routines compute it`);
    // Every step is one draw, plus the draws that would have left the pages.
    assert.ok(lab.draws >= 30000, `sd ${sd}: ${lab.draws} draws`);
  }
  // The guest's own count of gauss() calls in the sd 1 walk (the kernel profiler, above).
  assert.equal(walks.get('lab 1')!.draws, 30139);
  // With a standard deviation of 10,000 pages most steps would leave 7,500 of them: about 3.5 draws a step.
  assert.ok(walks.get('lab 10000')!.draws > 100000, `sd 10000: ${walks.get('lab 10000')!.draws} draws`);
});
