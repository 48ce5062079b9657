import { useEffect, useRef, useState } from 'react';

import { columnGroups, startsGroup, type ResultTable as Table } from '../../../../experiments/runner/resultView';

/** Whether the element is wider inside than it shows (its content scrolls sideways). */
function useOverflow(): [React.RefObject<HTMLDivElement | null>, boolean] {
  const ref = useRef<HTMLDivElement>(null);
  const [overflow, setOverflow] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const check = () => setOverflow(el.scrollWidth > el.clientWidth + 1);
    const ro = new ResizeObserver(check);
    ro.observe(el);
    if (el.firstElementChild) ro.observe(el.firstElementChild);
    check();
    return () => ro.disconnect();
  }, []);
  return [ref, overflow];
}

/**
 * A result's table as HTML: the runner's view model (resultView.ts), the
 * same columns and cells the command line prints.  Its groups of columns
 * (ours, the paper's, the counters) are named in a row over the labels and
 * start with a rule; figures align right; a failed row is marked.  A wide
 * table scrolls inside its box, its first column (the row's name) kept in
 * view; the box is a focusable region so the keyboard can scroll it too.
 */
export function ResultTable({ table, caption, testId = 'result' }: { table: Table; caption: string; testId?: string }) {
  const cls = (j: number, numeric: boolean | undefined, extra?: string) =>
    [j === 0 ? 'sticky-col' : '', numeric ? 'num' : '', startsGroup(table.columns, j) ? 'group-start' : '', extra ?? '']
      .filter(Boolean).join(' ') || undefined;
  const groups = columnGroups(table.columns);
  const [wrap, overflow] = useOverflow();
  const named = groups.some((g) => g.label.trim() !== '');
  let at = 0;
  return (
    <>
      <div className="table-wrap" role="region" aria-label={caption} tabIndex={0} data-testid={`${testId}-table-box`} ref={wrap}>
        <table data-testid={`${testId}-table`} className="result-table" aria-describedby={table.footnote ? `${testId}s-footnote` : undefined}>
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            {named ? (
              <tr className="group-row">
                {groups.map((g, i) => {
                  const first = at;
                  at += g.span;
                  return (
                    <th key={i} scope="colgroup" colSpan={g.span} className={cls(first, false)}>
                      {g.label.trim()}
                    </th>
                  );
                })}
              </tr>
            ) : null}
            <tr>
              {table.columns.map((c, j) => (
                <th key={j} scope="col" data-col={c.key} className={cls(j, c.numeric)}
                  title={c.title ? `${c.group.trim() ? `${c.group.trim()}: ` : ''}${c.title}` : undefined}>
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.rows.map((r, i) => (
              <tr key={`${r.test}-${i}`} data-testid={`${testId}-row`} className={r.status === 'ok' ? '' : 'failed'}>
                {r.cells.map((cell, j) =>
                  j === 0 ? (
                    <th key={j} scope="row" className={cls(0, false, cell.className)} title={cell.title} data-col={table.columns[0]?.key}>{cell.text}</th>
                  ) : (
                    <td key={j} title={cell.title} data-col={table.columns[j]?.key} className={cls(j, table.columns[j]?.numeric, cell.className)}>
                      {cell.text}
                    </td>
                  ),
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {overflow ? (
        <p className="hint table-more" data-testid={testId === 'result' ? 'table-scroll-hint' : `${testId}-scroll-hint`}>
          {table.columns.length} columns, wider than the panel: scroll the table sideways for the rest (the first column stays).
        </p>
      ) : null}
      {table.footnote ? <p className="table-footnote" id={`${testId}s-footnote`}>{table.footnote}</p> : null}
      {table.notes.map((n) => <p key={n} className="hint">{n}</p>)}
    </>
  );
}
