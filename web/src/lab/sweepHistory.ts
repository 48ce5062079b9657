// Finished sweeps kept in the browser's IndexedDB, beside the run history
// (history.ts) but in a database of their own ('vaxlab-sweeps', store
// 'sweeps', key 'id'), so the run history's database and its versions stay
// as they are.  Entries are checked on the way out (validateSweep); one this
// vaxlab cannot read is left out with a console warning.  Failures reject
// with a HistoryError whose message the page shows as it is.  Browser only
// (tested in e2e/sweep.spec.ts).

import { validateSweep, type SweepResult } from '../../../experiments/runner/sweep';
import { HistoryError } from './history';

export interface SweepHistoryEntry {
  id: string;
  /** ISO 8601, UTC. */
  savedAt: string;
  /** Host seconds the sweep took, and on how many workers. */
  hostSeconds?: number;
  jobs?: number;
  result: SweepResult;
}

export const SWEEP_DB = 'vaxlab-sweeps';
const STORE = 'sweeps';

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

async function withStore<T>(mode: IDBTransactionMode, doing: string, fn: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  let db: IDBDatabase;
  try {
    const factory = globalThis.indexedDB;
    if (!factory) throw new Error('no IndexedDB');
    const open = factory.open(SWEEP_DB, 1);
    open.onupgradeneeded = () => {
      if (!open.result.objectStoreNames.contains(STORE)) open.result.createObjectStore(STORE, { keyPath: 'id' });
    };
    db = await request(open);
  } catch (e) {
    throw new HistoryError(`Sweep history is not available (${e instanceof Error ? e.message : String(e)}); export a sweep as JSON to keep it.`, { cause: e });
  }
  try {
    const tx = db.transaction(STORE, mode);
    const result = await request(fn(tx.objectStore(STORE)));
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error('the transaction was aborted'));
    });
    return result;
  } catch (e) {
    const quota = e instanceof DOMException && e.name === 'QuotaExceededError';
    throw new HistoryError(quota ? 'Sweep history is full: delete some saved sweeps and try again.'
      : `Could not ${doing} the sweep history (${e instanceof Error ? e.message : String(e)}).`, { cause: e });
  } finally {
    db.close();
  }
}

function newId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export async function saveSweep(result: SweepResult, extra: { hostSeconds?: number; jobs?: number } = {}): Promise<SweepHistoryEntry> {
  const entry: SweepHistoryEntry = { id: newId(), savedAt: new Date().toISOString(), ...extra, result };
  await withStore('readwrite', 'save to', (s) => s.add(entry));
  return entry;
}

/** Every saved sweep, newest first. */
export async function listSweeps(): Promise<SweepHistoryEntry[]> {
  const all = (await withStore<unknown[]>('readonly', 'read', (s) => s.getAll())) ?? [];
  const out: SweepHistoryEntry[] = [];
  for (const item of all) {
    const e = item as Partial<SweepHistoryEntry> | null;
    if (!e || typeof e.id !== 'string' || typeof e.savedAt !== 'string') continue;
    try {
      out.push({
        id: e.id, savedAt: e.savedAt, result: validateSweep(e.result, 'sweep'),
        ...(typeof e.hostSeconds === 'number' ? { hostSeconds: e.hostSeconds } : {}), ...(typeof e.jobs === 'number' ? { jobs: e.jobs } : {}),
      });
    } catch (err) {
      console.warn(`vaxlab sweep history: skipping entry ${e.id} (${(err as Error).message})`);
    }
  }
  return out.sort((a, b) => (a.savedAt < b.savedAt ? 1 : a.savedAt > b.savedAt ? -1 : 0));
}

export async function deleteSweep(id: string): Promise<void> {
  await withStore('readwrite', 'delete from', (s) => s.delete(id));
}
