import { useEffect, useRef, type KeyboardEvent } from 'react';

import { groupedExperiments } from '../config';
import type { LabController } from '../controller';
import { useAtom } from '../state/atom';

/** "Table 2, syscall: perform 100,000 getpid system calls" → "perform 100,000 getpid system calls". */
function shortTitle(title: string, id: string): string {
  const i = title.indexOf(`${id}: `);
  if (i >= 0) return title.slice(i + id.length + 2);
  return title.replace(/^(Table \d+|Name cache), /, '').replace(/^Name cache: /, '');
}

/**
 * The experiments by paper section, with a search.  One Tab stop for the
 * whole list (the selected experiment): the arrow keys, Home and End move in
 * it, Enter or Space picks.  Down from the search goes into the list, Enter
 * there picks the first match.
 */
export function ExperimentPicker({ lab }: { lab: LabController }) {
  const filter = useAtom(lab.form.filter);
  const selected = useAtom(lab.form.form).experimentId;
  const groups = groupedExperiments(filter);
  const visible = groups.flatMap((g) => g.experiments.map((e) => e.id));
  const tabStop = visible.includes(selected) ? selected : visible[0];
  const list = useRef<HTMLDivElement>(null);
  const count = visible.length;

  // The selected experiment in view in the list (one chosen by a link may be far down); only the list scrolls.
  useEffect(() => {
    const box = list.current;
    const el = box?.querySelector<HTMLElement>(`[data-id="${CSS.escape(selected)}"]`);
    if (!box || !el) return;
    const top = el.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
    const heading = 28;
    if (top - heading < box.scrollTop || top + el.offsetHeight > box.scrollTop + box.clientHeight) {
      box.scrollTop = Math.max(0, top - box.clientHeight / 3);
    }
  }, [selected]);

  const focusItem = (id: string | undefined) => {
    if (!id) return;
    list.current?.querySelector<HTMLButtonElement>(`[data-testid="experiment-${CSS.escape(id)}"]`)?.focus();
  };
  const onListKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const id = (e.target as HTMLElement).dataset.id;
    if (!id) return;
    const i = visible.indexOf(id);
    const to = e.key === 'ArrowDown' ? i + 1 : e.key === 'ArrowUp' ? i - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? count - 1 : null;
    if (to === null) return;
    e.preventDefault();
    focusItem(visible[Math.max(0, Math.min(count - 1, to))]);
  };

  return (
    <nav className="picker" aria-label="Experiments">
      <div className="picker-top">
        <h2>Experiments <span className="muted count">{count === 0 ? '' : filter ? `${count} found` : count}</span></h2>
        <label className="search">
          <span className="visually-hidden">Search experiments</span>
          <input
            type="search" data-testid="experiment-search" placeholder="Search: pipe, fork, paging…"
            value={filter} onChange={(e) => lab.form.setFilter(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'ArrowDown') {
                e.preventDefault();
                focusItem(tabStop);
              } else if (e.key === 'Enter' && visible[0]) {
                e.preventDefault();
                lab.form.select(visible[0]);
                focusItem(visible[0]);
              }
            }}
          />
        </label>
      </div>
      <div className="picker-list" ref={list} onKeyDown={onListKey}>
        {groups.length === 0 ? <p className="muted">No experiment matches “{filter}”.</p> : null}
        {groups.map(({ group, experiments }) => (
          <section key={group} className="picker-group" aria-label={group}>
            <h3>{group}</h3>
            <ul>
              {experiments.map((e) => (
                <li key={e.id}>
                  <button
                    type="button" data-testid={`experiment-${e.id}`} data-id={e.id}
                    className={e.id === selected ? 'experiment selected' : 'experiment'} tabIndex={e.id === tabStop ? 0 : -1}
                    aria-pressed={e.id === selected} onClick={() => lab.form.select(e.id)}
                    title={`${e.title}\n\n${e.description}\n\n${e.paperRef}`}
                  >
                    <span className="experiment-id">{e.id}</span>
                    <span className="experiment-desc">{shortTitle(e.title, e.id)}</span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
        ))}
      </div>
    </nav>
  );
}
