/**
 * The operations files of deploy/ hold together with the package: every variable they name is an option of the
 * options table and resolves with the hook's own code, the secrets volume is where CUBE_DUAL_AUTH_SECRETS_DIR points,
 * the ports are the metrics options', and the readiness probe is a command line `probe` accepts. No kubelet and no
 * Docker run here (docs/deploying.md#what-was-run); test/docs/metrics.integration.test.ts runs the rules and the
 * dashboard against a real Prometheus.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { ENV_NAMES, OPTIONS } from '../../src/config/option-table';
import { optionsFromEnv } from '../../src/config/env';
import { resolveAtStart, SECRET_FILES } from '../../src/config/secrets-dir';
import { DualAuthConfigError } from '../../src/errors';
import { METRICS } from '../../src/metrics/catalog';
import { freePort } from '../../scripts/lib/ports.mjs';
import { randomSecret } from '../support/claims';
import { runCli } from '../support/cli';
import { scratchDirs } from '../support/scratch';

const root = join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string };

/** The fields of the manifests that the tests read. */
type Labels = Record<string, string>;
interface Metadata {
  readonly name: string;
  readonly labels?: Labels;
  readonly annotations?: Labels;
}
interface Secret {
  readonly kind: string;
  readonly metadata: Metadata;
  readonly stringData: Record<string, string>;
}
interface Container {
  readonly env: ReadonlyArray<{ name: string; value: string }>;
  readonly ports: ReadonlyArray<{ name: string; containerPort: number }>;
  readonly volumeMounts: ReadonlyArray<{ name: string; mountPath: string; readOnly?: boolean; subPath?: string }>;
  readonly readinessProbe: { exec: { command: string[] }; timeoutSeconds: number };
}
interface Deployment {
  readonly kind: string;
  readonly spec: {
    replicas: number;
    selector: { matchLabels: Labels };
    template: {
      metadata: Metadata;
      spec: {
        containers: Container[];
        volumes: ReadonlyArray<{ name: string; secret?: { secretName: string; items?: unknown } }>;
      };
    };
  };
}
interface Service {
  readonly kind: string;
  readonly spec: { selector: Labels; ports: ReadonlyArray<{ name: string; targetPort: string }> };
}
interface Compose {
  readonly services: {
    cube_api: {
      deploy: { replicas: number };
      environment: Record<string, string>;
      secrets: ReadonlyArray<{ source: string; target: string }>;
      expose: string[];
      healthcheck: { test: string[] };
    };
  };
  readonly secrets: Record<string, { file: string }>;
}

/** Every document of a YAML file, parsed as kubectl and Compose read them; a parse error fails the test. */
function yamlDocuments<T>(path: string): T[] {
  const documents = parseAllDocuments(readFileSync(join(root, 'deploy', path), 'utf8'));
  if (!Array.isArray(documents)) return [];
  for (const document of documents) expect(document.errors, path).toEqual([]);
  return documents.map((document) => document.toJS() as T);
}

function only<T>(items: T[], what: string): T {
  expect(items, what).toHaveLength(1);
  return items[0] as T;
}

/** The series names the catalog's metrics are scraped as: a histogram's `_bucket`, `_sum` and `_count`. */
const scraped = new Set(
  Object.values(METRICS).flatMap(({ name, kind }) =>
    kind === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name],
  ),
);
/** The package's metric names an expression reads. */
const metricsOf = (expr: string) => [...expr.matchAll(/\bcube_dual_auth_\w+/g)].map(([name]) => name);

const variables = new Set(Object.values(OPTIONS).flatMap((spec) => spec.env));
const secretFiles: string[] = Object.values(SECRET_FILES);
const newDir = scratchDirs('cda-deploy-');

/** The Secret's files written as the volume holds them, placeholders as they are or replaced by strong secrets. */
function secretsDirOf(stringData: Record<string, string>, strong: boolean): string {
  const dir = newDir();
  for (const [file, content] of Object.entries(stringData))
    writeFileSync(join(dir, file), strong ? content.replace(/replace-with-\S+/g, () => randomSecret()) : content);
  return dir;
}

/**
 * The environment as the hook reads it: each variable an option of the table, which resolves at start with the
 * package's own code; with the Secret's placeholders, the start stops naming the file.
 */
function expectResolves(env: Record<string, string>, stringData: Record<string, string>, where: string) {
  for (const name of Object.keys(env)) expect(variables, `${where}: ${name}`).toContain(name);
  const dirName = ENV_NAMES.secretsDir;
  const unchanged = { ...env, [dirName]: secretsDirOf(stringData, false) };
  expect(() => resolveAtStart(optionsFromEnv(unchanged), ENV_NAMES)).toThrow(DualAuthConfigError);
  expect(() => resolveAtStart(optionsFromEnv(unchanged), ENV_NAMES)).toThrow(/api-secrets/);
  const resolved = resolveAtStart(optionsFromEnv({ ...env, [dirName]: secretsDirOf(stringData, true) }), ENV_NAMES);
  expect(resolved.metricsPort, where).toBe(9464);
  // Prometheus scrapes the pod's or the container's address, so the listener must not be on loopback only.
  expect(resolved.metricsHost, where).toBe('0.0.0.0');
  return resolved;
}

/** The probe's command line as the manifest runs it, against a port nobody listens on: `probe` accepts it (exit 1, unreachable, not 2). */
async function expectProbeAccepts(command: string[], env: Record<string, string>) {
  const [bin, subcommand, url, ...rest] = command;
  expect(bin).toBe(`/cube/conf/node_modules/.bin/${manifest.name}`);
  expect(subcommand).toBe('probe');
  // Cube's API port in the same pod or container.
  expect(new URL(url as string).port).toBe('4000');
  const closed = `http://127.0.0.1:${await freePort()}`;
  const result = await runCli(['probe', closed, ...rest, '--json'], { env });
  expect(result.code, result.stderr).toBe(1);
  const checks = (JSON.parse(result.stdout) as { checks: Array<{ reason: string }> }).checks;
  expect(checks[0]?.reason).toMatch(/refused|unreachable/i);
}

describe('deploy/kubernetes', () => {
  const secret = only(yamlDocuments<Secret>('kubernetes/secret.yaml'), 'secret.yaml');
  const deployment = only(yamlDocuments<Deployment>('kubernetes/deployment.yaml'), 'deployment.yaml');
  const service = only(yamlDocuments<Service>('kubernetes/service.yaml'), 'service.yaml');
  const pod = deployment.spec.template;
  const container = only(pod.spec.containers, 'containers');
  const env: Record<string, string> = Object.fromEntries(container.env.map(({ name, value }) => [name, value]));

  it('is a Secret of the secrets directory files, and a Deployment of three replicas and a Service', () => {
    expect([secret.kind, deployment.kind, service.kind]).toEqual(['Secret', 'Deployment', 'Service']);
    for (const file of Object.keys(secret.stringData)) expect(secretFiles).toContain(file);
    expect(Object.keys(secret.stringData)).toEqual(expect.arrayContaining(['api-secrets', 'sql-key-secrets']));
    expect(deployment.spec.replicas).toBe(3);
    expect(pod.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels);
    expect(pod.metadata.labels).toMatchObject(service.spec.selector);
  });

  it('names only options of the table, which resolve at start, and stop it while the Secret holds placeholders', () => {
    expectResolves(env, secret.stringData, 'deployment.yaml');
  });

  it('mounts the whole Secret read-only where CUBE_DUAL_AUTH_SECRETS_DIR points', () => {
    const volume = only(
      pod.spec.volumes.filter((v) => v.secret?.secretName === secret.metadata.name),
      'the Secret volume',
    );
    const mount = only(
      container.volumeMounts.filter((m) => m.name === volume.name),
      'its mount',
    );
    expect(mount.mountPath).toBe(env[ENV_NAMES.secretsDir]);
    expect(mount.readOnly).toBe(true);
    // A subPath mount is never updated (docs/rotation.md#kubernetes); items would drop the files not listed.
    expect(mount.subPath).toBeUndefined();
    expect(volume.secret?.items).toBeUndefined();
  });

  it('exposes the metrics port of CUBE_DUAL_AUTH_METRICS_PORT, annotated for Prometheus, and through the Service', () => {
    const ports = container.ports;
    const metrics = only(
      ports.filter((p) => p.name === 'metrics'),
      'metrics port',
    );
    expect(metrics.containerPort).toBe(Number(env[ENV_NAMES.metricsPort]));
    expect(pod.metadata.annotations).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(metrics.containerPort),
      'prometheus.io/path': '/metrics',
    });
    const servicePorts = service.spec.ports;
    for (const { targetPort } of servicePorts) expect(ports.map((p) => p.name)).toContain(targetPort);
    expect(servicePorts.map((p) => p.targetPort).sort()).toEqual(['http', 'metrics']);
  });

  it("has the readiness probe `cube-dual-auth probe` against the pod's own Cube, a command line probe accepts", async () => {
    const dir = secretsDirOf(secret.stringData, true);
    await expectProbeAccepts(container.readinessProbe.exec.command, { ...env, [ENV_NAMES.secretsDir]: dir });
    // The probe sends six requests, each with its own timeout: the kubelet's must leave room for them.
    const timeoutMs = Number(container.readinessProbe.exec.command.at(-1));
    expect(container.readinessProbe.timeoutSeconds * 1000).toBeGreaterThan(4 * timeoutMs);
  });
});

describe('deploy/compose.yaml', () => {
  const compose = only(yamlDocuments<Compose>('compose.yaml'), 'compose.yaml');
  const cube = compose.services.cube_api;
  const env = cube.environment;
  const mounted = cube.secrets;
  const stringData = Object.fromEntries(
    mounted.map(({ target }) => [target, target === 'sql-keys-revoked' ? '' : 'replace-with-openssl-rand-hex-32\n']),
  );

  it('runs three replicas with Docker secrets in /run/secrets, each named as its file of the secrets directory', () => {
    expect(cube.deploy.replicas).toBe(3);
    expect(env[ENV_NAMES.secretsDir]).toBe('/run/secrets');
    for (const { source, target } of mounted) {
      expect(secretFiles).toContain(target);
      expect(Object.keys(compose.secrets)).toContain(source);
    }
    expect(mounted.map(({ target }) => target)).toEqual(expect.arrayContaining(['api-secrets', 'sql-key-secrets']));
  });

  it('names only options of the table, which resolve at start, and exposes the metrics port', () => {
    const resolved = expectResolves(env, stringData, 'compose.yaml');
    expect(cube.expose).toContain(String(resolved.metricsPort));
  });

  it('has the health check `cube-dual-auth probe`, a command line probe accepts', async () => {
    const [kind, ...command] = cube.healthcheck.test;
    expect(kind).toBe('CMD');
    await expectProbeAccepts(command, { ...env, [ENV_NAMES.secretsDir]: secretsDirOf(stringData, true) });
  });
});

describe('deploy/grafana/cube-dual-auth.json', () => {
  interface GrafanaPanel {
    readonly id: number;
    readonly type: string;
    readonly title: string;
    readonly datasource?: { type: string; uid: string };
    readonly gridPos: { x: number; y: number; w: number; h: number };
    readonly targets?: ReadonlyArray<{ expr: string; datasource: { uid: string } }>;
  }
  const dashboard = JSON.parse(readFileSync(join(root, 'deploy', 'grafana', 'cube-dual-auth.json'), 'utf8')) as {
    uid: string;
    panels: GrafanaPanel[];
    templating: { list: ReadonlyArray<{ name: string; type: string }> };
  };
  const panels = dashboard.panels.filter((panel) => panel.type !== 'row');

  it('imports anywhere: its data source and job are variables, and every panel has a place of its own', () => {
    expect(dashboard.uid).toBe('cube-dual-auth');
    expect(dashboard.templating.list.map(({ name, type }) => `${name}:${type}`)).toEqual([
      'datasource:datasource',
      'job:query',
    ]);
    expect(new Set(dashboard.panels.map((panel) => panel.id)).size).toBe(dashboard.panels.length);
    for (const { title, gridPos } of dashboard.panels) expect(gridPos.x + gridPos.w, title).toBeLessThanOrEqual(24);
    const cells = dashboard.panels.map(({ gridPos }) => `${gridPos.x},${gridPos.y}`);
    expect(new Set(cells).size).toBe(cells.length);
  });

  it('queries the chosen data source, and every metric of the chosen jobs only', () => {
    for (const panel of panels) {
      expect(panel.datasource?.uid, panel.title).toBe('${datasource}');
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const { expr, datasource } of panel.targets ?? []) {
        expect(datasource.uid, panel.title).toBe('${datasource}');
        const selectors = [...expr.matchAll(/\b(cube_dual_auth_\w+)(\{[^}]*\})?/g)];
        expect(selectors.length, expr).toBeGreaterThan(0);
        for (const name of metricsOf(expr)) expect(scraped, panel.title).toContain(name);
        for (const [whole, , labels] of selectors) expect(labels ?? '', whole).toMatch(/^\{job=~"\$job"/);
      }
    }
  });

  it('shows requests by path and reason, the key sets, what each replica holds, and the SQL API', () => {
    const rows = dashboard.panels.filter((panel) => panel.type === 'row').map((panel) => panel.title);
    expect(rows).toEqual([
      'Requests',
      "Identity providers' key sets",
      'Secrets directory: what each replica holds',
      'SQL API',
    ]);
    const queried = panels.flatMap((panel) => (panel.targets ?? []).map(({ expr }) => expr)).join('\n');
    for (const shown of [
      'sum by (path, outcome) (rate(cube_dual_auth_requests_total',
      'sum by (path, code) (rate(cube_dual_auth_refusals_total',
      'cube_dual_auth_key_set_age_seconds',
      'cube_dual_auth_key_set_serving_stale',
      'cube_dual_auth_key_set_fetches_total',
      'cube_dual_auth_secret_reloads_total',
      'max by (instance, file, source, fingerprint) (cube_dual_auth_secret_in_force',
      'cube_dual_auth_secret_kept',
      'cube_dual_auth_secret_generation',
      'cube_dual_auth_sql_logins_total',
      'cube_dual_auth_sql_reauthentications_total',
      'cube_dual_auth_sql_refusals_total',
    ])
      expect(queried).toContain(shown);
  });
});

describe('deploy/prometheus', () => {
  interface Rule {
    readonly alert: string;
    readonly expr: string;
    readonly for?: string;
    readonly labels: { severity: string };
    readonly annotations: { summary: string; description?: string };
  }
  const read = (file: string) => readFileSync(join(root, 'deploy', 'prometheus', file), 'utf8');
  const rules = (parse(read('cube-dual-auth.rules.yml')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap(
    (group) => group.rules,
  );
  const tests = parse(read('cube-dual-auth.rules.test.yml')) as {
    rule_files: string[];
    tests: Array<{ alert_rule_test: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
  };

  it('has alerts on metrics of the catalog, each with a severity and a summary', () => {
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) {
      expect(rule.alert).toMatch(/^CubeDualAuth[A-Z]\w+$/);
      expect(['warning', 'critical'], rule.alert).toContain(rule.labels.severity);
      expect(rule.annotations.summary, rule.alert).toBeTruthy();
      expect(metricsOf(rule.expr).length, rule.alert).toBeGreaterThan(0);
      for (const name of metricsOf(rule.expr)) expect(scraped, rule.alert).toContain(name);
    }
  });

  it('has unit tests of its own rules file in which every alert fires once and is quiet once', () => {
    expect(tests.rule_files).toEqual(['cube-dual-auth.rules.yml']);
    const cases = tests.tests.flatMap((test) => test.alert_rule_test);
    for (const { alert } of rules) {
      const own = cases.filter(({ alertname }) => alertname === alert);
      expect(
        own.some(({ exp_alerts }) => exp_alerts.length > 0),
        `${alert} fires`,
      ).toBe(true);
      expect(
        own.some(({ exp_alerts }) => exp_alerts.length === 0),
        `${alert} is quiet`,
      ).toBe(true);
    }
  });
});
