// What the Results panel shows — this page's last run, a run opened from a
// permalink, or one from the history — and sharing it: making its permalink
// (put in the address bar and copied), reading one from the address, and
// this page's finished runs (what "Compare with…" offers besides the
// history).

import type { RunRef, SessionRun } from '../compare';
import { decodePermalink, encodePermalink, PermalinkError, type SharedRun } from '../permalink';
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
  url: string | null;
  busy: boolean;
  message: string | null;
}

/** The page's address and clipboard (the browser's; a test gives its own). */
export interface PageAddress {
  /** The whole address (location.href). */
  href(): string;
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
    href: () => location.href,
    hash: () => location.hash,
    base: () => `${location.origin}${location.pathname}${location.search}`,
    replace: (url) => history.replaceState(null, '', url),
    copy: (text) => navigator.clipboard.writeText(text),
  };
}

/** How many of this page's runs "Compare with…" offers. */
export const SESSION_RUNS = 10;
const NO_SHARE: ShareState = { url: null, busy: false, message: null };

export class Shown {
  readonly view = new Atom<ViewState | null>(null);
  readonly share = new ObjectAtom<ShareState>(NO_SHARE);
  readonly permalinkError = new Atom<string | null>(null);
  /** Runs finished in this page, newest first (SESSION_RUNS at most). */
  readonly sessionRuns = new Atom<SessionRun[]>([]);

  /** The last run of this page, to go back to when a shared run is closed. */
  private lastRunView: ViewState | null = null;

  constructor(private readonly address: PageAddress, private readonly now: () => Date = () => new Date()) {}

  /** A run started: nothing is shown until it ends, and the address holds no link. */
  runStarted(): void {
    this.clearHash();
    batch(() => {
      this.view.set(null);
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
      this.sessionRuns.update((runs) => [{ shared, at: this.now().toISOString() }, ...runs].slice(0, SESSION_RUNS));
    });
  }

  /** Shows a shared run (from a link or the history). */
  open(view: ViewState): void {
    batch(() => {
      this.view.set(view);
      this.permalinkError.set(null);
      this.share.set({ ...NO_SHARE, url: view.source === 'permalink' ? this.address.href() : null });
    });
  }

  /** Closes a shared run: back to this page's last run (none while one runs).  False if a run of this page is shown. */
  close(running: boolean): boolean {
    if (!this.view.get() || this.view.get()!.source === 'run') return false;
    this.clearHash();
    batch(() => {
      this.view.set(running ? null : this.lastRunView);
      this.share.set(NO_SHARE);
    });
    return true;
  }

  /** The run shown as a reference for comparing (null for a run of this page, which has no other origin). */
  shownRef(savedAt?: string): RunRef | null {
    const view = this.view.get();
    return view && view.source !== 'run' ? { shared: view.shared, source: view.source, at: savedAt } : null;
  }

  /** Makes the shown run's permalink: into the address bar, and onto the clipboard when the page may. */
  async copyPermalink(): Promise<void> {
    const view = this.view.get();
    if (!view) return;
    this.share.set({ url: null, busy: true, message: null });
    try {
      const fragment = await encodePermalink(view.shared);
      const url = `${this.address.base()}#r=${fragment}`;
      this.address.replace(url);
      let message = 'Copied to the clipboard.';
      try {
        await this.address.copy(url);
      } catch {
        message = 'Select the link and copy it (the clipboard was not available).';
      }
      this.share.set({ url, busy: false, message });
    } catch (e) {
      this.share.set({ url: null, busy: false, message: `No link: ${e instanceof Error ? e.message : String(e)}` });
    }
  }

  /** The run the address's permalink holds; null without one, or when it cannot be read (permalinkError says why). */
  async fromAddress(): Promise<SharedRun | null> {
    const hash = this.address.hash();
    if (!hash.startsWith('#r=')) return null;
    try {
      return await decodePermalink(hash.slice(3));
    } catch (e) {
      this.permalinkError.set(e instanceof PermalinkError
        ? e.message
        : `This link could not be read (${e instanceof Error ? e.message : String(e)}).`);
      return null;
    }
  }

  dismissPermalinkError(): void {
    this.permalinkError.set(null);
    this.clearHash();
  }

  /** The address without its link. */
  clearHash(): void {
    if (this.address.hash()) this.address.replace(this.address.base());
  }
}
