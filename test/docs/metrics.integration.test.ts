/**
 * The operations files for Prometheus and Grafana work, as docs/metrics.md says: `promtool` (Debian's prometheus
 * package) checks deploy/prometheus's rules and runs their unit tests, and a real Prometheus loading those rules and
 * scraping three hook replicas (each a process of its own, test/support/hook-replicas.ts) runs every query of
 * deploy/grafana's dashboard, sees the alerts of an identity-provider outage and a secret rotated without the
 * service, and those of a secrets file that vanished and a fourth replica on its environment's secret, which clear
 * once the file is back.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { freePort } from '../../scripts/lib/ports.mjs';
import { randomSecret } from '../support/claims';
import { startHookReplica, type HookReplica } from '../support/hook-replicas';
import { startJwksServer, type JwksServer } from '../support/jwks-server';
import { generateKeyPair, jwks } from '../support/keys';
import { startPrometheus, type RunningPrometheus, type Sample } from '../support/prometheus';
import { AtomicWriterDir } from '../support/secrets-dir';
import { signToken } from '../support/tokens';

const root = join(__dirname, '..', '..');
const RULES = join(root, 'deploy', 'prometheus', 'cube-dual-auth.rules.yml');
const RULE_TESTS = join(root, 'deploy', 'prometheus', 'cube-dual-auth.rules.test.yml');
const page = readFileSync(join(root, 'docs', 'metrics.md'), 'utf8');
const rules = parse(readFileSync(RULES, 'utf8')) as { groups: Array<{ rules: Array<{ alert: string }> }> };
const alertNames = rules.groups.flatMap((group) => group.rules.map((rule) => rule.alert));

interface Panel {
  readonly type: string;
  readonly title: string;
  readonly targets?: ReadonlyArray<{ expr: string }>;
}
const dashboard = JSON.parse(readFileSync(join(root, 'deploy', 'grafana', 'cube-dual-auth.json'), 'utf8')) as {
  panels: Panel[];
};
/**
 * Each panel's queries as Prometheus runs them once Grafana has put in its variables: every job, and a rate window
 * that spans the whole test.
 */
const panels = dashboard.panels
  .filter((panel) => panel.type !== 'row')
  .map((panel) => ({
    title: panel.title,
    queries: (panel.targets ?? []).map(({ expr }) =>
      expr.replaceAll('$job', '.+').replaceAll('$__rate_interval', '5m'),
    ),
  }));

const ISSUER = 'https://idp.example/';
const SCRAPED_WITHIN_MS = 30_000;
const REPLICAS = 3;
const service = { headers: { 'request-origin': 'embeddable' } };

/**
 * Polls `check` until it holds, or fails naming `what` after {@link SCRAPED_WITHIN_MS}, with what `state` says then.
 */
async function eventually(
  what: string,
  check: () => Promise<boolean>,
  { meanwhile, state }: { meanwhile?: () => Promise<unknown>; state?: () => Promise<unknown> } = {},
) {
  const deadline = Date.now() + SCRAPED_WITHIN_MS;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${SCRAPED_WITHIN_MS} ms; then ${JSON.stringify(await state?.())}`);
    await meanwhile?.();
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('deploy/prometheus and deploy/grafana, against a real Prometheus scraping three replicas', () => {
  let prometheus: RunningPrometheus;
  let jwksServer: JwksServer;
  let secretsDir: string;
  let writer: AtomicWriterDir;
  const replicas: HookReplica[] = [];
  const targets: string[] = [];
  let fourthPort: number;
  const apiSecret = randomSecret();
  const keySecret = randomSecret();
  const idpKey = generateKeyPair('RS256');
  const files = { 'api-secrets': `${apiSecret}\n`, 'sql-key-secrets': `${keySecret}\n` };

  const envOf = (metricsPort: number, more: Record<string, string> = {}) => ({
    CUBE_DUAL_AUTH_SECRETS_DIR: secretsDir,
    CUBE_DUAL_AUTH_SECRETS_POLL_MS: '500',
    CUBEJS_JWK_URL: jwksServer.url,
    CUBEJS_JWT_ISSUER: ISSUER,
    // No cooldown: a token naming an unknown kid asks the identity provider at once, so the outage shows at once.
    CUBE_DUAL_AUTH_JWKS_COOLDOWN_MS: '0',
    CUBE_DUAL_AUTH_METRICS_PORT: String(metricsPort),
    ...more,
  });

  /** The alerts Prometheus holds now (pending or firing) for `alert`, by their labels. */
  async function alerting(alert: string): Promise<Sample[]> {
    return prometheus.query(`ALERTS{alertname="${alert}"}`);
  }

  /** What Prometheus and the replicas hold of api-secrets, for a failure's message. */
  const secretsState = async () => ({
    alerts: (await prometheus.query('ALERTS')).map(({ labels }) => labels),
    held: await prometheus.query(
      '{__name__=~"cube_dual_auth_secret_(in_force|kept|reloads_total)",file="api-secrets"}',
    ),
    logs: replicas.map((replica) => replica.output().slice(-400)),
  });

  beforeAll(async () => {
    jwksServer = await startJwksServer(jwks(idpKey));
    secretsDir = mkdtempSync(join(tmpdir(), 'cda-metrics-secrets-'));
    writer = new AtomicWriterDir(secretsDir);
    writer.write(files);
    for (let i = 0; i < REPLICAS; i++) {
      const metricsPort = await freePort();
      replicas.push(await startHookReplica(envOf(metricsPort)));
      targets.push(`127.0.0.1:${metricsPort}`);
    }
    // The fourth replica's port is scraped from the start (down until it starts), so Prometheus keeps one history.
    fourthPort = await freePort();
    prometheus = await startPrometheus([...targets, `127.0.0.1:${fourthPort}`], { ruleFiles: [RULES] });
  });

  afterAll(async () => {
    await prometheus?.stop();
    await Promise.all(replicas.map((replica) => replica.stop()));
    await jwksServer?.close();
    if (secretsDir !== undefined) rmSync(secretsDir, { recursive: true, force: true });
  });

  it('has rules promtool accepts and whose unit tests pass, shown by docs/metrics.md rather than copied', () => {
    expect(execFileSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' })).toMatch(/SUCCESS: 8 rules found/);
    expect(execFileSync('promtool', ['test', 'rules', RULE_TESTS], { encoding: 'utf8' })).toMatch(/SUCCESS/);
    expect(alertNames).toEqual([
      'CubeDualAuthKeySetServedStale',
      'CubeDualAuthKeySetOld',
      'CubeDualAuthNoKeys',
      'CubeDualAuthRefusalRate',
      'CubeDualAuthServiceTokensRefused',
      'CubeDualAuthSecretNotApplied',
      'CubeDualAuthSecretKept',
      'CubeDualAuthReplicasDisagree',
    ]);
    // The page links the file and describes each alert by name; it holds no copy of a rule.
    expect(page).toContain('(../deploy/prometheus/cube-dual-auth.rules.yml)');
    expect(page).toContain('(../deploy/grafana/cube-dual-auth.json)');
    for (const alert of alertNames) expect(page).toContain(`\`${alert}\``);
    expect(page).not.toMatch(/^\s*- alert:/m);
  });

  it('loads the rules in Prometheus', async () => {
    const answer = (await (await fetch(`${prometheus.url}/api/v1/rules`)).json()) as {
      data: { groups: Array<{ rules: Array<{ name: string; health: string }> }> };
    };
    const loaded = answer.data.groups.flatMap((group) => group.rules);
    expect(loaded.map((rule) => rule.name)).toEqual(alertNames);
  });

  it('sees an identity-provider outage and a secret rotated without the service, in every replica', async () => {
    const now = Math.floor(Date.now() / 1000);
    const serviceToken = signToken({ tenant: 'acme', iat: now, exp: now + 120 }, { alg: 'HS256', key: apiSecret });
    const idpToken = signToken({ iss: ISSUER, sub: 'alice', exp: now + 120 }, { key: idpKey });
    for (const replica of replicas) {
      await replica.prefetch();
      // Twice the same token: the second from the verified-token cache.
      expect(await replica.checkAuth(service, serviceToken)).toEqual({ ok: true });
      expect(await replica.checkAuth(service, serviceToken)).toEqual({ ok: true });
      expect(await replica.checkAuth({ headers: {} }, idpToken)).toEqual({ ok: true });
      expect((await replica.checkAuth({ headers: {} }, '')).ok).toBe(false);
      // The SQL API: a token login, Cube's re-authentication, a refused login, and a password-less call over xmla.
      expect(await replica.checkSqlAuth({ protocol: 'postgres', method: 'password' }, 'alice', idpToken)).toEqual({
        ok: true,
      });
      expect(await replica.checkSqlAuth({ protocol: 'postgres', method: 'password' }, 'alice', null)).toEqual({
        ok: true,
      });
      expect((await replica.checkSqlAuth({ protocol: 'postgres', method: 'password' }, 'bob', 'not-a-token')).ok).toBe(
        false,
      );
      expect((await replica.checkSqlAuth({ protocol: 'xmla', method: 'password' }, 'alice', null)).ok).toBe(false);
    }
    await jwksServer.stop();
    const rotatedIn = signToken({ iss: ISSUER, exp: now + 120 }, { key: generateKeyPair('RS256', { kid: 'rotated' }) });
    for (const replica of replicas) expect((await replica.checkAuth({ headers: {} }, rotatedIn)).ok).toBe(false);

    // The secret is rotated without the service: its tokens fail, several a second, over several scrapes.
    const signedWithAnother = () =>
      signToken({ tenant: 'acme', iat: now, exp: now + 120 }, { alg: 'HS256', key: randomSecret() });
    await eventually(
      'CubeDualAuthServiceTokensRefused',
      async () => (await alerting('CubeDualAuthServiceTokensRefused')).length > 0,
      { meanwhile: () => Promise.all(replicas.map((replica) => replica.checkAuth(service, signedWithAnother()))) },
    );
    await eventually(
      'CubeDualAuthKeySetServedStale',
      async () => (await alerting('CubeDualAuthKeySetServedStale')).length > 0,
    );
    expect((await alerting('CubeDualAuthKeySetServedStale')).map(({ labels }) => labels.issuer)).toEqual([ISSUER]);
    expect((await alerting('CubeDualAuthRefusalRate')).map(({ labels }) => labels.code)).toContain(
      'ERR_SIGNATURE_INVALID',
    );
    // Young and full: these two stay quiet.
    expect(await alerting('CubeDualAuthKeySetOld')).toEqual([]);
    expect(await alerting('CubeDualAuthNoKeys')).toEqual([]);
  }, 60_000);

  it('names a vanished file and a fourth replica on its environment, and clears once the file is back', async () => {
    const appliedBefore = await prometheus.query(
      'sum by (instance) (cube_dual_auth_secret_reloads_total{file="api-secrets",outcome="applied"})',
    );
    writer.write({ 'sql-key-secrets': files['sql-key-secrets'] });
    // Started while the Secret lacks api-secrets: it takes CUBEJS_API_SECRET from its environment, another secret.
    replicas.push(await startHookReplica(envOf(fourthPort, { CUBEJS_API_SECRET: randomSecret() })));
    targets.push(`127.0.0.1:${fourthPort}`);

    const instances = (samples: Sample[]) => samples.map(({ labels }) => labels.instance).sort();
    await eventually(
      'the vanished file is kept on the three replicas',
      async () => {
        const kept = await alerting('CubeDualAuthSecretKept');
        const notApplied = await alerting('CubeDualAuthSecretNotApplied');
        return instances(kept).length === REPLICAS && instances(notApplied).length === REPLICAS;
      },
      { state: secretsState },
    );
    expect(instances(await alerting('CubeDualAuthSecretKept'))).toEqual(targets.slice(0, REPLICAS).sort());
    expect((await alerting('CubeDualAuthSecretKept')).map(({ labels }) => labels.alertstate)).toEqual([
      'pending',
      'pending',
      'pending',
    ]);
    await eventually(
      'the fourth replica disagrees',
      async () => (await alerting('CubeDualAuthReplicasDisagree')).length > 0,
      { state: secretsState },
    );
    expect((await alerting('CubeDualAuthReplicasDisagree')).map(({ labels }) => labels.file)).toEqual(['api-secrets']);

    writer.write(files);
    await eventually(
      'every replica holds the file, and every alert of the secrets directory clears',
      async () => {
        // A replica's fingerprint is computed after the change, off the requests' path: until then it has no series.
        const held = await prometheus.query('cube_dual_auth_secret_in_force{file="api-secrets",source="file"}');
        const left = await Promise.all(
          ['CubeDualAuthSecretNotApplied', 'CubeDualAuthSecretKept', 'CubeDualAuthReplicasDisagree'].map(alerting),
        );
        return held.length === targets.length && left.every((samples) => samples.length === 0);
      },
      { state: secretsState },
    );
    // The return to good content is counted as applied on each of the three, and the fourth took the file.
    const appliedAfter = await prometheus.query(
      'sum by (instance) (cube_dual_auth_secret_reloads_total{file="api-secrets",outcome="applied"})',
    );
    for (const instance of targets) {
      const before = appliedBefore.find(({ labels }) => labels.instance === instance)?.value ?? 0;
      const after = appliedAfter.find(({ labels }) => labels.instance === instance)?.value ?? 0;
      expect(after, instance).toBeGreaterThan(before);
    }
    const sources = await prometheus.query('cube_dual_auth_secret_in_force{file="api-secrets"}');
    expect(sources.map(({ labels }) => labels.source)).toEqual(['file', 'file', 'file', 'file']);
    expect(new Set(sources.map(({ labels }) => labels.fingerprint)).size).toBe(1);
  }, 90_000);

  it('has a dashboard whose every panel query returns series from the replicas', async () => {
    expect(panels.length).toBeGreaterThanOrEqual(15);
    for (const { title, queries } of panels) {
      expect(queries.length, title).toBeGreaterThan(0);
      for (const query of queries)
        expect((await prometheus.query(query)).length, `${title}: ${query}`).toBeGreaterThan(0);
    }
  });
});
