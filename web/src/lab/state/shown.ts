// What the Results panel shows — this page's last run, a run opened from a
// permalink, or one from the history — and sharing it: the permalink's value
// (the address's r=, see address.ts; the controller writes the address),
// making one and copying it, reading one, and the runs this page has seen
// (its own finished runs, and the runs links brought), which "Compare with…"
// offers besides the history.

import type { RunRef, SessionRun } from '../compare';
import { decodeLink, encodeLinkDetailed, PermalinkError, type LinkPayload, type RunsPayload, type SharedRun } from '../permalink';
import { Atom, batch, ObjectAtom } from './atom';

/** What the Results panel shows. */
export interface ViewState {
  source: 'run' | 'permalink' | 'history';
  shared: SharedRun;
  historyId?: string;
  /** Host seconds the run took (runs of this page only). */
  hostSeconds?: number;
}

export interface ShareState {
  /** The address just copied (or to copy by hand), with the link. */
  url: string | null;
  busy: boolean;
  message: string | null;
  /** What the link holds: one run, or two compared. */
  kind: RunsPayload['kind'] | null;
}

/** The page's address and clipboard (the browser's; a test gives its own). */
export interface PageAddress {
  /** The fragment, with its '#' (location.hash). */
  hash(): string;
  /** The address without the fragment. */
  base(): string;
  /** Shows another address without loading it (history.replaceState). */
  replace(url: string): void;
  /** Puts text on the clipboard; rejects when the page may not. */
  copy(text: string): Promise<void>;
}

export function browserAddress(): PageAddress {
  return {
    hash: () => location.hash,
    base: () => `${location.origin}${location.pathname}${location.search}`,
    replace: (url) => history.replaceState(history.state, '', url),
    copy: (text) => navigator.clipboard.writeText(text),
  };
}

/** How many of this page's runs (and of the links it opened) "Compare with…" offers. */
export const SESSION_RUNS = 10;
const NO_SHARE: ShareState = { url: null, busy: false, message: null, kind: null };

export class Shown {
  readonly view = new Atom<ViewState | null>(null);
  readonly share = new ObjectAtom<ShareState>(NO_SHARE);
  readonly permalinkError = new Atom<string | null>(null);
  /** Runs finished in this page, newest first (SESSION_RUNS at most). */
  readonly sessionRuns = new Atom<SessionRun[]>([]);
  /** Runs links opened in this page brought, newest first (SESSION_RUNS at most): to compare your own with. */
  readonly linkRuns = new Atom<SessionRun[]>([]);
  /** The permalink in the address (its r= value), or null. */
  readonly link = new Atom<string | null>(null);

  /** The last run of this page, to go back to when a shared run is closed. */
  private lastRunView: ViewState | null = null;

  constructor(private readonly now: () => Date = () => new Date()) {}

  /** A run started: nothing is shown until it ends, and the address holds no link. */
  runStarted(): void {
    batch(() => {
      this.view.set(null);
      this.link.set(null);
      this.permalinkError.set(null);
      this.share.set(NO_SHARE);
    });
  }

  /** A run of this page finished: shown (unless a shared run was opened meanwhile) and listed for comparing. */
  runFinished(shared: SharedRun, hostSeconds: number): void {
    const view: ViewState = { source: 'run', shared, hostSeconds };
    this.lastRunView = view;
    const showing = this.view.get();
    batch(() => {
      this.view.set(showing && showing.source !== 'run' ? showing : view);
      this.sessionRuns.update((runs) => [{ shared, at: shared.ranAt ?? this.now().toISOString() }, ...runs].slice(0, SESSION_RUNS));
    });
  }

  /** Shows a shared run (from a link, with the link's value, or from the history). */
  open(view: ViewState, link: string | null = null): void {
    batch(() => {
      this.view.set(view);
      this.link.set(link);
      this.permalinkError.set(null);
      this.share.set(NO_SHARE);
    });
  }

  /** Remembers the runs a link brought, to compare others with. */
  rememberLinkRuns(runs: SharedRun[]): void {
    const at = this.now().toISOString();
    this.linkRuns.update((list) => [...runs.map((shared) => ({ shared, at })), ...list].slice(0, SESSION_RUNS));
  }

  /** Closes a shared run: back to this page's last run (none while one runs).  False if a run of this page is shown. */
  close(running: boolean): boolean {
    if (!this.view.get() || this.view.get()!.source === 'run') return false;
    batch(() => {
      this.view.set(running ? null : this.lastRunView);
      this.link.set(null);
      this.share.set(NO_SHARE);
    });
    return true;
  }

  /** The run shown as a reference for comparing (a run of this page's, from the session). */
  shownRef(savedAt?: string): RunRef | null {
    const view = this.view.get();
    if (!view) return null;
    if (view.source === 'run') return { shared: view.shared, source: 'session', at: view.shared.ranAt };
    return { shared: view.shared, source: view.source, at: savedAt, historyId: view.historyId };
  }

  /**
   * Makes the permalink of `payload` (the run shown, or it and the run it is compared with): into the address
   * (link), and onto the clipboard as `url(link)` when the page may.
   */
  async makeLink(payload: RunsPayload, url: (link: string) => string, copy: (text: string) => Promise<void>): Promise<void> {
    this.share.set({ url: null, busy: true, message: null, kind: payload.kind });
    try {
      const { value, runs } = await encodeLinkDetailed(payload);
      this.link.set(value);
      const address = url(value);
      const reduced = runs.some((r) => r.reduction);
      let message = `Copied to the clipboard (${value.length.toLocaleString('en-US')} characters${reduced ? '; reduced to fit, the banner of the page it opens says how' : ''}).`;
      try {
        await copy(address);
      } catch {
        message = 'Select the link and copy it (the clipboard was not available).';
      }
      this.share.set({ url: address, busy: false, message, kind: payload.kind });
    } catch (e) {
      this.share.set({ url: null, busy: false, message: `No link: ${e instanceof Error ? e.message : String(e)}`, kind: null });
    }
  }

  /** What a permalink's value holds; null when it cannot be read (permalinkError says why). */
  async read(value: string): Promise<LinkPayload | null> {
    try {
      return await decodeLink(value);
    } catch (e) {
      this.permalinkError.set(e instanceof PermalinkError
        ? e.message
        : `This link could not be read (${e instanceof Error ? e.message : String(e)}).`);
      return null;
    }
  }

  dismissPermalinkError(): void {
    batch(() => {
      this.permalinkError.set(null);
      this.link.set(null);
    });
  }
}
