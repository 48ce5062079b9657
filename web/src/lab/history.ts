// Run history: finished runs kept in the browser's IndexedDB (database
// 'vaxlab', object store 'runs', key 'id'), so they survive a reload.
//
// Every failure rejects with a HistoryError whose message the page can show
// as it is: IndexedDB missing or refused (private browsing, storage turned
// off, a sandboxed frame), the storage quota full, another tab holding an
// older version of the database open.  Entries are checked on the way out
// with the permalink codec's validation: one written by a different vaxlab
// that this one cannot show is left out of listRuns (with a console warning)
// rather than breaking the list.
//
// Browser only (Node has no IndexedDB): tested in e2e/lab.spec.ts.

import { PermalinkError, ShapeError, validateSharedRun, type SharedRun } from './permalink';

export interface HistoryEntry {
  id: string;
  /** ISO 8601, UTC. */
  savedAt: string;
  run: SharedRun;
  /** The run had not finished when this was saved: kept row by row while it ran, it was cut short (the page
   *  was reloaded or closed) unless it is still running (in another tab). */
  interrupted?: boolean;
}

export const HISTORY_DB = 'vaxlab';
export const HISTORY_STORE = 'runs';
const DB_VERSION = 1;

export class HistoryError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HistoryError';
  }
}

const UNAVAILABLE =
  'Run history is not available: this browser does not let the page store data (private browsing, or site ' +
  'storage turned off). Runs still work; keep a result with its permalink or Export JSON.';

function describeDomError(e: unknown): string {
  if (e && typeof e === 'object' && 'name' in e) {
    const { name, message } = e as { name: string; message?: string };
    return message ? `${name}: ${message}` : name;
  }
  return String(e);
}

/** The error to show for a failed request or transaction. */
function toHistoryError(e: unknown, doing: string): HistoryError {
  if (e instanceof HistoryError) return e;
  const name = e && typeof e === 'object' && 'name' in e ? (e as { name: string }).name : '';
  if (name === 'QuotaExceededError') {
    return new HistoryError(
      'Run history is full: the browser\'s storage quota for this site is used up. Delete some saved runs and try again.',
      { cause: e },
    );
  }
  if (name === 'SecurityError' || name === 'InvalidStateError') return new HistoryError(`${UNAVAILABLE} (${describeDomError(e)})`, { cause: e });
  return new HistoryError(`Could not ${doing} the run history (${describeDomError(e)}).`, { cause: e });
}

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    let factory: IDBFactory | undefined;
    try {
      factory = globalThis.indexedDB;
    } catch (e) {
      // Some browsers throw on merely reading indexedDB when storage is blocked.
      reject(toHistoryError(e, 'open'));
      return;
    }
    if (!factory) {
      reject(new HistoryError(UNAVAILABLE));
      return;
    }
    let request: IDBOpenDBRequest;
    try {
      request = factory.open(HISTORY_DB, DB_VERSION);
    } catch (e) {
      reject(toHistoryError(e, 'open'));
      return;
    }
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains(HISTORY_STORE)) db.createObjectStore(HISTORY_STORE, { keyPath: 'id' });
    };
    let blocked = false;
    request.onsuccess = () => {
      const db = request.result;
      if (blocked) {
        db.close(); // the caller was already told; do not keep it open
        return;
      }
      // Let a newer vaxlab in another tab upgrade the database.
      db.onversionchange = () => db.close();
      resolve(db);
    };
    request.onerror = () => {
      const err = request.error;
      if (err?.name === 'VersionError') {
        reject(new HistoryError('Run history was written by a newer vaxlab in this browser; reload the page to use it.', { cause: err }));
      } else {
        reject(toHistoryError(err, 'open'));
      }
    };
    request.onblocked = () => {
      blocked = true;
      reject(new HistoryError('Run history is busy: another vaxlab tab holds it open. Close the other tabs and reload.'));
    };
  });
}

/** Runs fn in one transaction on the store; resolves with what it produced once the transaction commits. */
async function withStore<T>(mode: IDBTransactionMode, doing: string, fn: (store: IDBObjectStore) => IDBRequest<T> | void): Promise<T | undefined> {
  const db = await openDb();
  try {
    return await new Promise<T | undefined>((resolve, reject) => {
      let tx: IDBTransaction;
      let request: IDBRequest<T> | void;
      try {
        tx = db.transaction(HISTORY_STORE, mode);
        request = fn(tx.objectStore(HISTORY_STORE));
      } catch (e) {
        reject(toHistoryError(e, doing));
        return;
      }
      tx.oncomplete = () => resolve(request ? request.result : undefined);
      tx.onerror = () => reject(toHistoryError(tx.error ?? (request ? request.error : null), doing));
      tx.onabort = () => reject(toHistoryError(tx.error ?? new Error('the transaction was aborted'), doing));
    });
  } finally {
    db.close();
  }
}

function newId(): string {
  // crypto.randomUUID needs a secure context (not plain http from another host).
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function' && globalThis.isSecureContext !== false) {
    return crypto.randomUUID();
  }
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Saves a run (a new entry, or entry `id` again: a run kept row by row); resolves with its entry. */
export async function saveRun(run: SharedRun, options: { id?: string; interrupted?: boolean } = {}): Promise<HistoryEntry> {
  let clean: SharedRun;
  try {
    clean = validateSharedRun(run);
  } catch (e) {
    if (e instanceof ShapeError) throw new HistoryError(`Could not save this run: its result is not in the expected form (${e.detail}).`, { cause: e });
    if (e instanceof PermalinkError) throw new HistoryError(`Could not save this run: ${e.message}`, { cause: e });
    throw e;
  }
  const entry: HistoryEntry = {
    id: options.id ?? newId(), savedAt: new Date().toISOString(), run: clean, ...(options.interrupted ? { interrupted: true } : {}),
  };
  await withStore('readwrite', 'save to', (store) => (options.id ? store.put(entry) : store.add(entry)));
  return entry;
}

/** Every saved run, newest first. */
export async function listRuns(): Promise<HistoryEntry[]> {
  const all = ((await withStore<unknown[]>('readonly', 'read', (store) => store.getAll())) ?? []) as unknown[];
  const entries: HistoryEntry[] = [];
  for (const item of all) {
    const e = item as Partial<HistoryEntry> | null;
    if (!e || typeof e.id !== 'string' || typeof e.savedAt !== 'string') {
      console.warn('vaxlab history: skipping a malformed entry', item);
      continue;
    }
    try {
      entries.push({ id: e.id, savedAt: e.savedAt, run: validateSharedRun(e.run), ...(e.interrupted === true ? { interrupted: true } : {}) });
    } catch (err) {
      console.warn(`vaxlab history: skipping entry ${e.id} (${(err as Error).message})`);
    }
  }
  return entries.sort((a, b) => (a.savedAt < b.savedAt ? 1 : a.savedAt > b.savedAt ? -1 : a.id < b.id ? 1 : -1));
}

/** Deletes a saved run (no error if it is already gone). */
export async function deleteRun(id: string): Promise<void> {
  await withStore('readwrite', 'delete from', (store) => store.delete(id));
}
