// The profile summary's form (summary.ts makes and reads it): a module of
// its own without the code that computes one, so that what checks a result
// (experiments/runner/result.ts) and the page's first load do not carry it.

export const SUMMARY_FORMAT = 'vaxlab-profile-summary';
export const SUMMARY_VERSION = 1;

/** A function of the flat profile, as a summary keeps it. */
export interface SummaryEntry {
  name: string;
  calls: number;
  /** Virtual ms, all modes (idle: the (idle) row). */
  selfMs: number;
  totalMs: number;
}

export interface ProfileSummary {
  format: typeof SUMMARY_FORMAT;
  version: typeof SUMMARY_VERSION;
  nsPerInstruction: number;
  /** Virtual ns per cost unit. */
  scale: number;
  instructions: number;
  cost: number;
  idleCost: number;
  /** The least share of the run's cost a calling context kept has. */
  minShare: number;
  /** Names used by `tree`. */
  names: string[];
  /** A node per string, "parent,name,kind,calls,cost,cost,cost,cost,cost,cost":
   *  the parent's index in this array or -1, the name's index in `names`, the
   *  kind's in KINDS, the calls and the self cost by slot (integers; a string
   *  each so that a result file stays a line per node). */
  tree: string[];
  /** The flat profile's first entries (all modes), exact over the whole profile. */
  top: SummaryEntry[];
  notes: string[];
}
