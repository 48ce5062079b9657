// The Profile view of the shown result (when its run was profiled): for a
// row, the flame graph of its timed command (click to zoom, search to
// highlight, hover for self/total/calls), the flat profile as a sortable
// table, and the diff against another row's profile — of this run, or of
// the run it is compared with — with speedscope and folded-stack exports.

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';

import type { Mode } from '../../../../experiments/profile/index';
import type { ExperimentResult } from '../../../../experiments/runner/result';
import { frameTooltip, renderFlameGraph } from '../charts/flameGraph';
import type { LabController } from '../controller';
import { download } from '../exporting';
import {
  diffCandidates, flameTree, flatRows, matchedMs, nextSort, profiledRows, profileDiff, profileExports, profileOf,
  type FlameNode, type FlatColumn, type Sort,
} from '../profileView';
import { useAtom } from '../state/atom';
import { useWidth } from './useWidth';

const COLUMNS: { key: FlatColumn; label: string; numeric: boolean }[] = [
  { key: 'name', label: 'function', numeric: false },
  { key: 'calls', label: 'calls', numeric: true },
  { key: 'selfMs', label: 'self ms', numeric: true },
  { key: 'totalMs', label: 'total ms', numeric: true },
  { key: 'selfMsPerCall', label: 'self ms/call', numeric: true },
  { key: 'totalMsPerCall', label: 'total ms/call', numeric: true },
];
/** Rows the tables show until asked for all of them. */
const TABLE_ROWS = 25;

const f3 = (x: number | null | undefined): string => (x === null || x === undefined ? '' : x.toFixed(3));
const signed = (x: number): string => `${x > 0 ? '+' : ''}${x.toFixed(3)}`;

function FlameGraph({ root, search, zoom, onZoom, onHover }: {
  root: FlameNode; search: string; zoom: string; onZoom: (id: string) => void; onHover: (n: FlameNode | null) => void;
}) {
  const [box, width] = useWidth();
  const svg = useRef<SVGSVGElement>(null);
  useEffect(() => {
    if (svg.current && width > 0) renderFlameGraph(svg.current, root, { width, search, zoom, onZoom, onHover });
  }, [root, search, zoom, width, onZoom, onHover]);
  return (
    <div className="flame-box" ref={box}>
      <svg ref={svg} className="flame" data-testid="flame-graph" role="img"
        aria-label="Flame graph of the command's calling contexts: width is total virtual time; click a frame to zoom" />
    </div>
  );
}

export default function ProfilePanel({ lab }: { lab: LabController }) {
  const view = useAtom(lab.shown.view);
  const against = useAtom(lab.comparison.against);
  const result: ExperimentResult | null = view?.shared.result ?? null;
  const rows = useMemo(() => (result ? profiledRows(result) : []), [result]);
  const [step, setStep] = useState<string>('');
  const [mode, setMode] = useState<Mode>('all');
  const [search, setSearch] = useState('');
  const [zoom, setZoom] = useState('');
  const [hover, setHover] = useState<FlameNode | null>(null);
  const [sort, setSort] = useState<Sort>({ column: 'selfMs', descending: true });
  const [diffWith, setDiffWith] = useState('');
  const [allFlat, setAllFlat] = useState(false);
  const [allDiff, setAllDiff] = useState(false);
  const row = rows.find((r) => r.step === step) ?? rows[0] ?? null;
  useEffect(() => {
    setZoom('');
    setHover(null);
  }, [row?.step, mode, result]);

  const profile = useMemo(() => (row?.profile ? profileOf(row.profile) : null), [row]);
  const tree = useMemo(() => (profile ? flameTree(profile, mode) : null), [profile, mode]);
  const flat = useMemo(() => (profile ? flatRows(profile, mode, sort) : []), [profile, mode, sort]);
  // What the diff can be against: the run's other profiled rows, and the compared run's.
  const candidates = useMemo(() => {
    if (!result || !row) return [];
    const own = diffCandidates(result, row.step).map((r) => ({ key: `row:${r.step}`, label: `${r.test} (this run)`, summary: r.profile! }));
    const other = against ? profiledRows(against.shared.result).map((r) => ({
      key: `against:${r.step}`, label: `${r.test} (the run compared with)`, summary: r.profile!,
    })) : [];
    return [...own, ...other];
  }, [result, row, against]);
  const chosen = candidates.find((c) => c.key === diffWith) ?? null;
  const diff = useMemo(() => (chosen && row?.profile ? profileDiff(chosen.summary, row.profile, mode) : null), [chosen, row, mode]);
  const onZoom = useCallback((id: string) => setZoom(id), []);
  const onHover = useCallback((n: FlameNode | null) => setHover(n), []);

  if (!result || !row || !profile || !tree) return null;
  const matched = search.trim() ? matchedMs(tree, search) : 0;
  const exportName = `${result.experiment}-${row.step}`;

  return (
    <section className="panel profile-panel" aria-labelledby="profile-title" data-testid="profile-panel">
      <div className="panel-head">
        <h2 id="profile-title">Profile</h2>
        <span className="hint">exact: every instruction charged to the function it ran in, calls counted by the processor; virtual time</span>
      </div>
      <div className="profile-controls">
        <label>Row{' '}
          <select data-testid="profile-row" value={row.step} onChange={(e) => setStep(e.target.value)}>
            {rows.map((r) => <option key={r.step} value={r.step}>{r.test}</option>)}
          </select>
        </label>
        <label>Mode{' '}
          <select data-testid="profile-mode" value={mode} onChange={(e) => setMode(e.target.value as Mode)}>
            <option value="all">all</option>
            <option value="kernel">kernel (system)</option>
            <option value="user">user</option>
          </select>
        </label>
        <label>Search{' '}
          <input data-testid="profile-search" type="search" value={search} placeholder="_namei" onChange={(e) => setSearch(e.target.value)} />
        </label>
        <button type="button" data-testid="profile-unzoom" disabled={zoom === ''} onClick={() => setZoom('')}>Reset zoom</button>
        <button type="button" data-testid="export-speedscope"
          onClick={() => download(`${exportName}.speedscope.json`, profileExports(result, row, mode).speedscope, 'application/json')}>
          Speedscope
        </button>
        <button type="button" data-testid="export-folded"
          onClick={() => download(`${exportName}.folded.txt`, profileExports(result, row, mode).folded, 'text/plain')}>
          Folded stacks
        </button>
      </div>
      <p className="hint">
        <code>{row.command}</code>: {(tree.totalMs / 1000).toFixed(3)} virtual s
        {search.trim() ? <span data-testid="profile-matched">; “{search.trim()}”: {(matched).toFixed(3)} ms ({tree.totalMs > 0 ? ((100 * matched) / tree.totalMs).toFixed(1) : '0.0'}%)</span> : null}
      </p>
      <FlameGraph root={tree} search={search} zoom={zoom} onZoom={onZoom} onHover={onHover} />
      <p className="flame-hover" data-testid="flame-hover" aria-live="polite">
        {hover ? frameTooltip(hover, tree.totalMs).replace(/\n/g, ' · ') : 'Hover a frame for its times; click to zoom.'}
      </p>

      <div className="profile-tables">
        {/* Each table scrolls sideways inside the panel when it is wider (a phone): the page itself never does. */}
        <div className="table-wrap" role="region" aria-label="Flat profile" tabIndex={0} data-testid="profile-flat-box">
        <table className="profile-flat" data-testid="profile-flat">
          <caption>Flat profile ({mode === 'all' ? 'all modes' : `${mode} mode`}), the calling contexts kept</caption>
          <thead>
            <tr>
              {COLUMNS.map((c) => (
                <th key={c.key} scope="col" className={c.numeric ? 'num' : undefined}
                  aria-sort={sort.column === c.key ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
                  <button type="button" data-testid={`sort-${c.key}`} onClick={() => setSort(nextSort(sort, c.key))}>{c.label}</button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {(allFlat ? flat : flat.slice(0, TABLE_ROWS)).map((e) => (
              <tr key={e.name} className={search.trim() && e.name.toLowerCase().includes(search.trim().toLowerCase()) ? 'matched' : undefined}>
                <td><code>{e.name}</code></td>
                <td className="num">{e.calls ? e.calls.toLocaleString('en-US') : ''}</td>
                <td className="num">{f3(e.selfMs)}</td>
                <td className="num">{f3(e.totalMs)}</td>
                <td className="num">{f3(e.selfMsPerCall)}</td>
                <td className="num">{f3(e.totalMsPerCall)}</td>
              </tr>
            ))}
          </tbody>
          {flat.length > TABLE_ROWS ? (
            <tfoot><tr><td colSpan={COLUMNS.length}>
              <button type="button" data-testid="profile-flat-more" onClick={() => setAllFlat(!allFlat)}>
                {allFlat ? `Show the first ${TABLE_ROWS}` : `Show all ${flat.length}`}
              </button>
            </td></tr></tfoot>
          ) : null}
        </table>
        </div>

        <div className="profile-diff">
          <label>Compare with{' '}
            <select data-testid="profile-diff-with" value={chosen?.key ?? ''} onChange={(e) => setDiffWith(e.target.value)}>
              <option value="">nothing</option>
              {candidates.map((c) => <option key={c.key} value={c.key}>{c.label}</option>)}
            </select>
          </label>
          {diff && chosen ? (
            <div className="table-wrap" role="region" aria-label="Profile diff" tabIndex={0} data-testid="profile-diff-box">
            <table data-testid="profile-diff">
              <caption>A: {chosen.label}; B: {row.test}. Biggest change of total time first</caption>
              <thead>
                <tr><th scope="col">function</th><th scope="col" className="num">A total ms</th><th scope="col" className="num">B total ms</th>
                  <th scope="col" className="num">B − A</th><th scope="col" className="num">A ms/call</th><th scope="col" className="num">B ms/call</th></tr>
              </thead>
              <tbody>
                {(allDiff ? diff : diff.slice(0, TABLE_ROWS)).map((d) => (
                  <tr key={d.name} className={d.deltaTotalMs < 0 ? 'faster' : d.deltaTotalMs > 0 ? 'slower' : undefined}>
                    <td><code>{d.name}</code></td>
                    <td className="num">{f3(d.a?.totalMs)}</td>
                    <td className="num">{f3(d.b?.totalMs)}</td>
                    <td className="num">{signed(d.deltaTotalMs)}</td>
                    <td className="num">{f3(d.a?.totalMsPerCall)}</td>
                    <td className="num">{f3(d.b?.totalMsPerCall)}</td>
                  </tr>
                ))}
              </tbody>
              {diff.length > TABLE_ROWS ? (
                <tfoot><tr><td colSpan={6}>
                  <button type="button" data-testid="profile-diff-more" onClick={() => setAllDiff(!allDiff)}>
                    {allDiff ? `Show the first ${TABLE_ROWS}` : `Show all ${diff.length}`}
                  </button>
                </td></tr></tfoot>
              ) : null}
            </table>
            </div>
          ) : <p className="hint">{candidates.length ? 'Pick another profile to see which functions got faster or slower.' : 'No other profiled row to compare with: profile a run with several rows, or compare with another profiled run.'}</p>}
        </div>
      </div>
      {row.profile!.notes.length ? <ul className="notes">{row.profile!.notes.map((n) => <li key={n}>{n}</li>)}</ul> : null}
    </section>
  );
}
