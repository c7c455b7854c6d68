/**
 * What one replica says it holds of each secrets file, read from its metrics' text: the four
 * `cube_dual_auth_secret_*` gauges (docs/metrics.md#what-each-replica-holds). Nothing else of the text is kept.
 */
import { SECRET_FILES, type SecretFile } from '../../config/secrets-dir';
import type { SecretSource } from '../../config/secret-state';
import { METRICS } from '../../metrics/catalog';

/** The files, in the order the metrics list them. */
export const FILES: readonly SecretFile[] = Object.values(SECRET_FILES);
const SOURCES: readonly string[] = ['file', 'environment', 'none'] satisfies SecretSource[];

/** One file on one replica; a part its metrics do not show stays undefined. */
export interface FileHeld {
  readonly source: SecretSource | undefined;
  /** 16 hex digits, `''` with no value in force; undefined while the replica computes it. */
  readonly fingerprint: string | undefined;
  /** Whether the file is kept at its last good content (invalid or vanished). */
  readonly kept: boolean | undefined;
  /** Unix seconds since which it is kept; undefined while it is current. */
  readonly keptSince: number | undefined;
  readonly generation: number | undefined;
}

/** One sample line: `name{label="value",…} number`, label values escaped as the text format escapes them. */
const SAMPLE = /^([a-z_]+)\{((?:[a-z_]+="(?:[^"\\]|\\.)*",?)*)\}\s+(\S+)/;
const LABEL = /([a-z_]+)="((?:[^"\\]|\\.)*)"/g;

function labelsOf(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [, name, value] of text.matchAll(LABEL))
    labels[name as string] = (value as string).replace(/\\(.)/g, (_, char: string) => (char === 'n' ? '\n' : char));
  return labels;
}

const isFile = (file: string | undefined): file is SecretFile => FILES.includes(file as SecretFile);

/**
 * The files the text shows, or undefined when it shows none of them (not cube-dual-auth's metrics, or a version
 * before they were added). A label value the package never writes is not taken.
 * @example
 * heldOf('cube_dual_auth_secret_generation{file="api-secrets"} 2\n')?.['api-secrets']?.generation // 2
 */
export function heldOf(text: string): Partial<Record<SecretFile, FileHeld>> | undefined {
  const found: Partial<Record<SecretFile, { -readonly [K in keyof FileHeld]: FileHeld[K] }>> = {};
  const of = (file: SecretFile) =>
    (found[file] ??= {
      source: undefined,
      fingerprint: undefined,
      kept: undefined,
      keptSince: undefined,
      generation: undefined,
    });
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (match === null) continue;
    const [, name, labelText, valueText] = match as unknown as [string, string, string, string];
    const labels = labelsOf(labelText);
    const value = Number(valueText);
    if (!isFile(labels.file) || !Number.isFinite(value)) continue;
    const held = of(labels.file);
    if (name === METRICS.secretInForce.name && value === 1) {
      if (SOURCES.includes(labels.source ?? '') && /^(?:[0-9a-f]{16})?$/.test(labels.fingerprint ?? '-')) {
        held.source = labels.source as SecretSource;
        held.fingerprint = labels.fingerprint;
      }
    } else if (name === METRICS.secretKept.name) held.kept = value === 1;
    else if (name === METRICS.secretKeptSince.name) held.keptSince = value;
    else if (name === METRICS.secretGeneration.name && Number.isInteger(value) && value >= 0) held.generation = value;
  }
  for (const held of Object.values(found)) if (held.kept !== true || held.keptSince === 0) held.keptSince = undefined;
  return Object.keys(found).length === 0 ? undefined : found;
}
