/**
 * docs/metrics.md holds rules and queries that work: `promtool` (Debian's prometheus package, as the metrics
 * integration test uses) checks the alert rules, and a real Prometheus scraping a real hook's metrics listener runs
 * every query of the dashboard and the alerts' expressions after a secret rotation and an identity-provider outage,
 * which the rules about them must see.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckAuth, type CheckAuth } from '../../src';
import { randomSecret } from '../support/claims';
import { startJwksServer, type JwksServer } from '../support/jwks-server';
import { generateKeyPair, jwks } from '../support/keys';
import { freePort } from '../../scripts/lib/ports.mjs';
import { startPrometheus, type RunningPrometheus } from '../support/prometheus';
import { signToken } from '../support/tokens';

const page = readFileSync(join(__dirname, '..', '..', 'docs', 'metrics.md'), 'utf8');
// The rules are the first YAML block of their section: the page's scrape configuration comes before them.
const rules = /^## Alert rules\n[\s\S]*?^```yaml\n([\s\S]*?)^```/m.exec(page)?.[1] ?? '';
/** Each alert's name and expression, read from the rules as written (inline, or a `|` block). */
const alerts = new Map(
  [...rules.matchAll(/- alert: (\S+)\n\s+expr: (?:\|\n((?:\s{10,}.*\n)+)|(.*)\n)/g)].map((m) => [
    m[1] as string,
    (m[2] ?? m[3] ?? '').trim(),
  ]),
);
/** The dashboard's queries: the second column of the page's table. */
const queries = [...page.matchAll(/^\| [^|]+ \| `(.+)` \|$/gm)].map((m) => m[1] as string);

const ISSUER = 'https://idp.example/';
const SCRAPED_WITHIN_MS = 30_000;

describe('docs/metrics.md', () => {
  let prometheus: RunningPrometheus;
  let jwksServer: JwksServer;
  let checkAuth: CheckAuth;
  const secret = randomSecret();

  beforeAll(async () => {
    const key = generateKeyPair('RS256');
    jwksServer = await startJwksServer(jwks(key));
    const metricsPort = await freePort();
    checkAuth = createCheckAuth({
      apiSecret: secret,
      providers: [{ issuer: ISSUER, jwksUri: jwksServer.url }],
      jwksCooldownMs: 0,
      metricsPort,
    });
    prometheus = await startPrometheus([`127.0.0.1:${metricsPort}`]);
  });

  afterAll(async () => {
    await prometheus?.stop();
    checkAuth?.close();
    await jwksServer?.close();
  });

  it('has alert rules promtool accepts, and a dashboard', () => {
    expect([...alerts.keys()]).toEqual([
      'CubeDualAuthKeySetServedStale',
      'CubeDualAuthKeySetOld',
      'CubeDualAuthNoKeys',
      'CubeDualAuthRefusalRate',
      'CubeDualAuthServiceTokensRefused',
    ]);
    expect(queries.length).toBeGreaterThanOrEqual(10);
    const dir = mkdtempSync(join(tmpdir(), 'cda-rules-'));
    try {
      writeFileSync(join(dir, 'rules.yml'), rules);
      expect(execFileSync('promtool', ['check', 'rules', join(dir, 'rules.yml')], { encoding: 'utf8' })).toMatch(
        /SUCCESS: 5 rules found/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has queries and alert expressions that run, and alerts that see a rotated secret and an identity-provider outage', async () => {
    const service = { headers: { 'request-origin': 'embeddable' } };
    const now = Math.floor(Date.now() / 1000);
    await checkAuth(service, signToken({ tenant: 'acme', iat: now, exp: now + 60 }, { alg: 'HS256', key: secret }));
    await checkAuth.prefetch();
    await jwksServer.stop();
    const rotated = signToken({ iss: ISSUER, exp: now + 60 }, { key: generateKeyPair('RS256', { kid: 'rotated-in' }) });
    await checkAuth({}, rotated).catch(() => undefined);

    // The secret is rotated without the service: its tokens fail, one a second, over several scrapes.
    const deadline = Date.now() + SCRAPED_WITHIN_MS;
    const firing = async (alert: string) => (await prometheus.query(alerts.get(alert) as string)).length > 0;
    while (!(await firing('CubeDualAuthServiceTokensRefused'))) {
      if (Date.now() > deadline)
        throw new Error(`The rotation alert's expression found nothing within ${SCRAPED_WITHIN_MS} ms`);
      const stale = signToken({ tenant: 'acme', iat: now, exp: now + 60 }, { alg: 'HS256', key: randomSecret() });
      await checkAuth(service, stale).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }

    expect(await prometheus.query(alerts.get('CubeDualAuthKeySetServedStale') as string)).toEqual([
      { labels: { issuer: ISSUER }, value: 1 },
    ]);
    expect(
      (await prometheus.query(alerts.get('CubeDualAuthRefusalRate') as string)).map(({ labels }) => labels),
    ).toContainEqual({ code: 'ERR_SIGNATURE_INVALID' });
    // Young and full: these two stay quiet.
    expect(await prometheus.query(alerts.get('CubeDualAuthKeySetOld') as string)).toEqual([]);
    expect(await prometheus.query(alerts.get('CubeDualAuthNoKeys') as string)).toEqual([]);
    for (const query of queries) await expect(prometheus.query(query), query).resolves.toBeInstanceOf(Array);
  });
});
