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
  // Each event built whole, without spreads: with metrics on, this runs for every request.
  const kid = outcome.kid === undefined ? undefined : quotedText(outcome.kid);
  const { issuer } = outcome;
  const durationMs = performance.now() - started;
  if (outcome.accepted) {
    const { path, cached } = outcome;
    emit(
      onEvent,
      issuer === undefined
        ? { type: 'accepted', path, kid, cached, durationMs }
        : { type: 'accepted', path, kid, issuer, cached, durationMs },
    );
    return;
  }
  const { code, detail: message } = outcome.error;
  const path = outcome.path ?? outcome.error.path;
  emit(
    onEvent,
    issuer === undefined
      ? { type: 'rejected', path, code, message, kid, durationMs }
      : { type: 'rejected', path, code, message, kid, issuer, durationMs },
  );
}
