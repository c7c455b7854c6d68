/** A line of doctor's checklist, as every check of checks/ returns it (docs/cli-output.md#doctors-checks). */
import type { FindingStatus } from './cube-js';

export type CheckStatus = FindingStatus;

/** One line of the checklist. `id` is stable; `message` may be reworded between releases. */
export interface Check {
  readonly id: CheckId;
  readonly status: CheckStatus;
  readonly message: string;
  /** The identity provider checked, by issuer, when it has one (discovery, or several providers). */
  readonly issuer?: string;
}

export type CheckId =
  | 'dotenv'
  | 'node'
  | 'configuration'
  | 'api-secret'
  | 'additional-api-secrets'
  | 'origin'
  | 'jwks-url'
  | 'discovery'
  | 'jwks-keys'
  | 'audience'
  | 'issuer'
  | 'authorization'
  | 'sql-api'
  | 'sql-key'
  | 'secrets-dir'
  | 'metrics'
  | 'refresh-worker'
  | 'example-token'
  | 'cube-gateway'
  | 'cube-js'
  | 'logger'
  | 'cube-options'
  | 'cube-start'
  | 'access-policies'
  | 'service-connections';

export const check = (id: CheckId, status: CheckStatus, message: string): Check => ({ id, status, message });
