import { groupedExperiments } from '../config';
import type { LabController, LabState } from '../controller';

export function ExperimentPicker({ state, lab }: { state: LabState; lab: LabController }) {
  const groups = groupedExperiments(state.filter);
  const selected = state.form.experimentId;
  return (
    <nav className="picker" aria-label="Experiments">
      <h2>Experiments</h2>
      <label className="search">
        <span className="visually-hidden">Search experiments</span>
        <input
          type="search" data-testid="experiment-search" placeholder="Search (e.g. pipe, fork, paging)"
          value={state.filter} onChange={(e) => lab.setFilter(e.target.value)}
        />
      </label>
      {groups.length === 0 ? <p className="muted">No experiment matches “{state.filter}”.</p> : null}
      {groups.map(({ group, experiments }) => (
        <section key={group} className="picker-group">
          <h3>{group}</h3>
          <ul>
            {experiments.map((e) => (
              <li key={e.id}>
                <button
                  type="button" data-testid={`experiment-${e.id}`} className={e.id === selected ? 'experiment selected' : 'experiment'}
                  aria-pressed={e.id === selected} onClick={() => lab.selectExperiment(e.id)} title={`${e.title}\n\n${e.description}`}
                >
                  <span className="experiment-id">{e.id}</span>
                  {e.description.split('\n').slice(0, 2).map((line, i) => (
                    <span key={i} className="experiment-desc">{line}</span>
                  ))}
                  <span className="experiment-ref">{e.paperRef}</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </nav>
  );
}
