/**
 * How a request or a SQL login fared, as one event: `checkAuth` and the SQL login report alike, and metrics hear it.
 */
import { performance } from 'node:perf_hooks';
import { quotedText, type AuthPath, type DualAuthError } from '../errors';
import { emit, type AuthEventListener } from '../events';

/** What is reported of an outcome, besides its time. `kid` is the token's own: it is quoted here. */
export type ReportedOutcome = {
  readonly path?: AuthPath;
  readonly kid?: string;
  readonly issuer?: string;
} & (
  | { readonly accepted: true; readonly path: AuthPath; readonly cached: boolean }
  | { readonly accepted: false; readonly error: DualAuthError }
);

/** The time a report measures from: read only when someone listens. */
export const reportStart = (onEvent: AuthEventListener | undefined): number => (onEvent ? performance.now() : 0);

/** Emits the `accepted` or `rejected` event of an outcome, with its duration since `started`. */
export function reportOutcome(onEvent: AuthEventListener | undefined, started: number, outcome: ReportedOutcome): void {
  if (!onEvent) return;
  const about = {
    ...(outcome.kid !== undefined && { kid: quotedText(outcome.kid) }),
    ...(outcome.issuer !== undefined && { issuer: outcome.issuer }),
  };
  if (outcome.accepted) {
    const { path, cached } = outcome;
    emit(onEvent, { type: 'accepted', path, ...about, cached, durationMs: performance.now() - started });
    return;
  }
  const { code, detail } = outcome.error;
  const path = outcome.path ?? outcome.error.path;
  emit(onEvent, { type: 'rejected', path, code, message: detail, ...about, durationMs: performance.now() - started });
}
