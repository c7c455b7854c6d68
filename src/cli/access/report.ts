/** What `access` reports (`--json` prints it as it is: docs/cli-output.md, "access --json"). */
import type { AuthPath, RejectionCode } from '../../errors';
import { rowsSummary, type Difference, type Side } from './compare';
import type { VisibleCube } from './cube-answers';
import type { CubeRows } from './inspect';

/** The token as `verify` judges it in this environment. */
export interface VerifiedHere {
  /** false: this environment holds no configuration to judge the token's path with (error says why). */
  readonly known: boolean;
  readonly accepted: boolean;
  readonly path: AuthPath | null;
  /** The tenant and groups the hook gives; null when not accepted here or no authorization is configured here. */
  readonly authorization: { readonly tenant: string | null; readonly groups: readonly string[] } | null;
  readonly error: { readonly code: RejectionCode; readonly message: string; readonly hint: string } | null;
}

/** One caller's part of the report (`--json`'s `callers[]`). */
export interface CallerReport {
  readonly side: Side;
  /** How the token was given; the token itself is never shown. */
  readonly token: string;
  readonly requestOrigin: string | null;
  readonly verifiedHere: VerifiedHere;
  /** Cube's verdict on the token, from /meta. */
  readonly cube: {
    readonly accepted: boolean;
    readonly status: number | null;
    readonly message: string | null;
    /** The fix, when Cube refused the token: verify's, or why none is known here. */
    readonly hint: string | null;
  };
  readonly cubes: readonly VisibleCube[];
  /** Set when Cube accepted the token and /meta shows it nothing. */
  readonly noCubeVisible: string | null;
  readonly rows: readonly RowsReport[];
}

/** The row conditions of one cube (`--json`'s `rows[]`). */
export interface RowsReport {
  readonly cube: string;
  /** Whether /meta shows this caller the cube. */
  readonly shown: boolean;
  /** The member queried; null: none to query (neither caller is shown one). */
  readonly member: string | null;
  readonly status: 'conditions' | 'refused' | 'failed' | 'not-asked' | 'not-checked';
  readonly conditions: readonly { readonly sql: string; readonly params: readonly unknown[] }[];
  /** A condition is Cube's denial, `1 = 0`: no row. */
  readonly denied: boolean;
  /** Cube's refusal or failure, or why nothing was asked; null for conditions. */
  readonly message: string | null;
  /** The row conditions in one line, as the comparison compares them. */
  readonly summary: string;
}

export interface AccessReport {
  readonly url: string;
  readonly timeoutMs: number;
  readonly deadlineMs: number;
  /** The deadline passed: what it left is not checked. */
  readonly deadlinePassed: boolean;
  readonly ok: boolean;
  readonly callers: readonly CallerReport[];
  readonly comparison: { readonly same: boolean; readonly differences: readonly Difference[] } | null;
}

/** A cube's rows as the report gives them. */
export function rowsReport(rows: CubeRows, shown: boolean): RowsReport {
  const summary = rowsSummary(rows);
  const { outcome, member } = rows;
  const base = { cube: rows.cube, shown, member, summary };
  if (outcome === null)
    return { ...base, status: 'not-asked', conditions: [], denied: false, message: 'no member of it is shown' };
  if (outcome.kind !== 'answered')
    return {
      ...base,
      status: outcome.kind,
      conditions: [],
      denied: false,
      message: outcome.message,
    };
  return { ...base, status: 'conditions', conditions: outcome.conditions, denied: outcome.denied, message: null };
}
