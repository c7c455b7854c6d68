/**
 * Every metric the hook records, described once: the Prometheus and the OpenTelemetry side create their instruments
 * from this table, and the table of docs/metrics.md lists the same rows (test/metrics/catalog.test.ts holds them
 * together).
 * Labels take only values the operator configured or the package defines (paths, outcomes, rejection codes,
 * configured issuers): nothing read from a token ever becomes one, so no caller can add a series. A secrets file's
 * fingerprint is one series per file, read from the operator's own files.
 */

/** The Prometheus text exposition format, as prom-client writes it. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type MetricKind = 'counter' | 'histogram' | 'gauge';

export interface MetricSpec {
  /** The Prometheus name; OpenTelemetry's drops a counter's `_total`, which its Prometheus exporters add back. */
  readonly name: string;
  readonly kind: MetricKind;
  readonly help: string;
  readonly labels: readonly string[];
  /** Histograms: upper bounds of the buckets, in seconds. */
  readonly buckets?: readonly number[];
}

/**
 * A verification from the cache takes microseconds, one against a fresh key set under a millisecond; a wait for keys,
 * seconds.
 */
const VERIFICATION_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];
/** A fetch ends by its deadline (CUBE_DUAL_AUTH_JWKS_TIMEOUT_MS, 5 s unless set). */
const FETCH_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const METRICS = {
  requests: {
    name: 'cube_dual_auth_requests_total',
    kind: 'counter',
    help: 'Requests the hook answered, by path (shared-secret, key-set, or none without a token) and outcome (accepted, refused).',
    labels: ['path', 'outcome'],
  },
  refusals: {
    name: 'cube_dual_auth_refusals_total',
    kind: 'counter',
    help: 'Requests refused with a 403, by path and rejection code.',
    labels: ['path', 'code'],
  },
  verificationDuration: {
    name: 'cube_dual_auth_verification_duration_seconds',
    kind: 'histogram',
    help: 'Time from the call to the answer, by path, accepted and refused alike.',
    labels: ['path'],
    buckets: VERIFICATION_BUCKETS,
  },
  tokenCache: {
    name: 'cube_dual_auth_token_cache_lookups_total',
    kind: 'counter',
    help: 'Verified-token cache lookups, by path and result (hit, miss); none while the cache is off.',
    labels: ['path', 'result'],
  },
  keySetFetches: {
    name: 'cube_dual_auth_key_set_fetches_total',
    kind: 'counter',
    help: "Fetches of an identity provider's key set, by issuer and outcome (ok, or the failure's code).",
    labels: ['issuer', 'outcome'],
  },
  keySetFetchDuration: {
    name: 'cube_dual_auth_key_set_fetch_duration_seconds',
    kind: 'histogram',
    help: "Time a fetch of an identity provider's key set took (discovery included), by issuer.",
    labels: ['issuer'],
    buckets: FETCH_BUCKETS,
  },
  keySetAge: {
    name: 'cube_dual_auth_key_set_age_seconds',
    kind: 'gauge',
    help: "Seconds since the identity provider's key set was last fetched successfully, by issuer; absent before the first success.",
    labels: ['issuer'],
  },
  keySetKeys: {
    name: 'cube_dual_auth_key_set_keys',
    kind: 'gauge',
    help: 'Signing keys held for the identity provider, by issuer.',
    labels: ['issuer'],
  },
  keySetServingStale: {
    name: 'cube_dual_auth_key_set_serving_stale',
    kind: 'gauge',
    help: "1 while the identity provider's last fetch failed and its last good key set still serves, else 0, by issuer.",
    labels: ['issuer'],
  },
  discoveryFetches: {
    name: 'cube_dual_auth_discovery_fetches_total',
    kind: 'counter',
    help: "Discovery documents asked for an issuer's JWKS URL, by issuer and outcome (ok, or the failure's code).",
    labels: ['issuer', 'outcome'],
  },
  sqlLogins: {
    name: 'cube_dual_auth_sql_logins_total',
    kind: 'counter',
    help: 'SQL API logins (checkSqlAuth with a password), by kind (token, key, static) and outcome (accepted, refused).',
    labels: ['kind', 'outcome'],
  },
  sqlReauthentications: {
    name: 'cube_dual_auth_sql_reauthentications_total',
    kind: 'counter',
    help: "Re-authentications of SQL API sessions (Cube's every CUBESQL_AUTH_EXPIRE_SECS, or a __user switch), by outcome (accepted, or the refusal's code).",
    labels: ['outcome'],
  },
  secretReloads: {
    name: 'cube_dual_auth_secret_reloads_total',
    kind: 'counter',
    help: 'Changes of a file of the secrets directory while Cube ran, by file and outcome (applied; invalid or vanished, which keep the last good content in force).',
    labels: ['file', 'outcome'],
  },
  sqlRefusals: {
    name: 'cube_dual_auth_sql_refusals_total',
    kind: 'counter',
    help: 'SQL API logins and re-authentications refused to keep one user name to one identity, by reason (protocol, ambiguous, drift, capacity, superuser), protocol (postgres, xmla, other) and method (password, ntlm, kerberos, token, other).',
    labels: ['reason', 'protocol', 'method'],
  },
  standingTokens: {
    name: 'cube_dual_auth_standing_tokens_total',
    kind: 'counter',
    help: 'Distinct standing service credentials accepted on the shared-secret path, each counted once, by kind (package: minted by cube-dual-auth; no-exp: another HS256 token without exp) and origin (header, or none when routed by shape): every request one carries gets one and the same security context.',
    labels: ['kind', 'origin'],
  },
  secretInForce: {
    name: 'cube_dual_auth_secret_in_force',
    kind: 'gauge',
    help: "1 for each secrets file (api-secrets, sql-key-secrets, sql-keys-revoked, sql-password), labelled with where its value in force comes from (file, environment, none) and the content's fingerprint (a scrypt of it, 16 hex digits, equal on replicas that hold the same content; empty with none).",
    labels: ['file', 'source', 'fingerprint'],
  },
  secretKept: {
    name: 'cube_dual_auth_secret_kept',
    kind: 'gauge',
    help: 'By secrets file: 1 while the file is kept at its last good content (invalid or vanished), else 0.',
    labels: ['file'],
  },
  secretKeptSince: {
    name: 'cube_dual_auth_secret_kept_since_seconds',
    kind: 'gauge',
    help: 'By secrets file: the Unix time since which the file is kept at its last good content; 0 while it is current.',
    labels: ['file'],
  },
  secretGeneration: {
    name: 'cube_dual_auth_secret_generation',
    kind: 'gauge',
    help: 'By secrets file: how many changes of it were applied since the hook started (0 at start).',
    labels: ['file'],
  },
} as const satisfies Readonly<Record<string, MetricSpec>>;

export type MetricName = keyof typeof METRICS;
export type GaugeName = { [K in MetricName]: (typeof METRICS)[K]['kind'] extends 'gauge' ? K : never }[MetricName];
export type RecordedName = Exclude<MetricName, GaugeName>;

/** One gauge reading: its labels' values in the table's order, and the value. */
export interface GaugeReading {
  readonly labels: readonly string[];
  readonly value: number;
}

/**
 * Where instruments live: prom-client's registry, or an OpenTelemetry meter. `series` binds one series (its labels'
 * values in the table's order) once, so a request costs a lookup and a call; gauges are read at collection time.
 */
export interface Sink {
  series(metric: RecordedName, labels: readonly string[]): (value: number) => void;
}

/** What every sink reads for its gauges when it is collected. */
export type GaugeSource = (metric: GaugeName) => readonly GaugeReading[];
