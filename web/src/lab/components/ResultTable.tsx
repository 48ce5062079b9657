import type { ResultTable as Table } from '../../../../experiments/runner/resultView';

/**
 * A result's table as HTML: the runner's view model (resultView.ts), the
 * same columns and cells the command line prints; the paper's group starts
 * with a rule, figures align right, a failed row is marked.
 */
export function ResultTable({ table, caption }: { table: Table; caption: string }) {
  const numeric = (j: number) => table.columns[j]?.numeric;
  const paperStart = (j: number) => table.columns[j]?.paper;
  return (
    <>
      <div className="table-wrap">
        <table data-testid="result-table" className="result-table" aria-describedby={table.footnote ? 'results-footnote' : undefined}>
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {table.columns.map((c, i) => (
                <th key={i} scope="col" className={`${c.numeric ? 'num' : ''}${c.paper ? ' paper-start' : ''}`} title={c.title}>
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.rows.map((r, i) => (
              <tr key={`${r.test}-${i}`} data-testid="result-row" className={r.status === 'ok' ? '' : 'failed'}>
                {r.cells.map((cell, j) =>
                  j === 0 ? (
                    <th key={j} scope="row">{cell.text}</th>
                  ) : (
                    <td
                      key={j} title={cell.title}
                      className={[numeric(j) ? 'num' : '', paperStart(j) ? 'paper-start' : '', cell.className ?? '']
                        .filter(Boolean).join(' ') || undefined}
                    >
                      {cell.text}
                    </td>
                  ),
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {table.footnote ? <p className="table-footnote" id="results-footnote">{table.footnote}</p> : null}
      {table.notes.map((n) => <p key={n} className="hint">{n}</p>)}
    </>
  );
}
