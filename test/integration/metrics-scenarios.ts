// Metrics proven end to end on both Cube lines: the package installed in a real Cube (its ready-made hook, metrics on
// through CUBE_DUAL_AUTH_METRICS_PORT), scraped by a real Prometheus, while the test sends a known mix: accepted
// requests on each path, refusals of several codes, and an identity-provider outage. The values are then read back
// through Prometheus' HTTP query API and compared with what was sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCube } from '../../scripts/ensure-cube.mjs';
import { CUBE_AUDIENCE, ORDERS_BY_TENANT_AND_REGION, startStack, type Stack } from '../../scripts/lib/stack.mjs';
import { generateKeyPair } from '../support/keys';
import { freePort } from '../../scripts/lib/ports.mjs';
import { startPrometheus, type RunningPrometheus, type Sample } from '../support/prometheus';
import { loadOverHttp } from '../support/real-cube';
import { signToken } from '../support/tokens';
import { randomSecret } from '../support/claims';

const INSTALL_AND_START_TIMEOUT_MS = 15 * 60_000;
/** Prometheus scrapes every second; a busy machine may delay a scrape by a few. */
const SCRAPED_WITHIN_MS = 30_000;

export function metricsScenarios(lineId: string): void {
  describe(`metrics of Cube line ${lineId}, scraped by a real Prometheus`, () => {
    let stack: Stack;
    let prometheus: RunningPrometheus;
    let metricsPort: number;

    beforeAll(async () => {
      const { projectDir, line } = await ensureCube({ line: lineId });
      metricsPort = await freePort();
      // No cooldown: a token naming an unknown kid asks the identity provider at once, so the outage shows at once.
      stack = await startStack({
        projectDir,
        line,
        env: { CUBE_DUAL_AUTH_METRICS_PORT: String(metricsPort), CUBE_DUAL_AUTH_JWKS_COOLDOWN_MS: '0' },
      });
      prometheus = await startPrometheus([`127.0.0.1:${metricsPort}`]);
    }, INSTALL_AND_START_TIMEOUT_MS);

    afterAll(async () => {
      await prometheus?.stop();
      await stack?.stop();
    });

    const load = (headers: Record<string, string>) =>
      loadOverHttp(stack.cube.apiUrl, ORDERS_BY_TENANT_AND_REGION, headers);

    /** The value of the one sample `query` gives, or undefined when it gives none. */
    async function valueOf(query: string): Promise<number | undefined> {
      const samples = await prometheus.query(query);
      expect(samples.length, `${query}: ${JSON.stringify(samples)}`).toBeLessThanOrEqual(1);
      return samples[0]?.value;
    }

    it("serves GET /metrics on its own port only: another path is a 404, and Cube's API port has no /metrics of ours", async () => {
      const ours = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(ours.status).toBe(200);
      expect(await ours.text()).toContain('# TYPE cube_dual_auth_requests_total counter');
      expect((await fetch(`http://127.0.0.1:${metricsPort}/cubejs-api/v1/load`)).status).toBe(404);
      expect(await (await fetch(`${stack.cube.url}/metrics`)).text()).not.toContain('cube_dual_auth_');
    });

    it('counts in Prometheus exactly the accepted requests per path, the refusals per code, and the outage that was sent', async () => {
      const { identityProvider: idp } = stack;
      const sent = {
        serviceAccepted: 3,
        customerAccepted: 3,
        noToken: 2,
        wrongSecret: 2,
        serviceWithoutOrigin: 1,
        unknownKid: 1,
      };
      const expectStatus = async (headers: Record<string, string>, status: number) => {
        const answer = await load(headers);
        expect(answer.status, answer.text).toBe(status);
      };

      for (let i = 0; i < sent.serviceAccepted; i++)
        await expectStatus(
          { Authorization: stack.serviceToken({ tenant: 'acme', n: i }), ...stack.serviceHeaders },
          200,
        );
      await expectStatus({ Authorization: await stack.customerToken() }, 200);
      await expectStatus({ Authorization: await stack.customerToken() }, 200);
      for (let i = 0; i < sent.noToken; i++) await expectStatus({}, 403);
      for (let i = 0; i < sent.wrongSecret; i++) {
        const forged = signToken(
          { tenant: 'acme', exp: Math.floor(Date.now() / 1000) + 60 },
          { alg: 'HS256', key: randomSecret() },
        );
        await expectStatus({ Authorization: forged, ...stack.serviceHeaders }, 403);
      }
      await expectStatus({ Authorization: stack.serviceToken({ tenant: 'acme' }) }, 403);

      // The identity provider goes down. Its key set keeps serving (stale-if-error); a token signed with a key it never
      // published makes the hook ask for the key set again, which fails, and the token is refused.
      const lastCustomerToken = await stack.customerToken();
      const published = ((await (await fetch(idp.jwksUrl)).json()) as { keys: unknown[] }).keys.length;
      await idp.close();
      const rotated = generateKeyPair('RS256', { kid: 'never-published' });
      const claims = {
        iss: idp.issuer,
        aud: CUBE_AUDIENCE,
        exp: Math.floor(Date.now() / 1000) + 60,
        'https://cube.example/claims': { tenant: 'globex' },
      };
      await expectStatus({ Authorization: signToken(claims, { key: rotated }) }, 403);
      await expectStatus({ Authorization: lastCustomerToken }, 200);

      const total = Object.values(sent).reduce((sum, count) => sum + count, 0);
      const deadline = Date.now() + SCRAPED_WITHIN_MS;
      // Polled until a scrape after the last request has landed, within a deadline.
      while ((await valueOf('sum(cube_dual_auth_requests_total)')) !== total) {
        if (Date.now() > deadline)
          throw new Error(
            `Prometheus did not see ${total} requests within ${SCRAPED_WITHIN_MS} ms:\n${prometheus.output()}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 250));
      }

      const issuer = idp.issuer;
      const expected: Record<string, number> = {
        'cube_dual_auth_requests_total{path="shared-secret",outcome="accepted"}': sent.serviceAccepted,
        'cube_dual_auth_requests_total{path="key-set",outcome="accepted"}': sent.customerAccepted,
        'cube_dual_auth_requests_total{path="none",outcome="refused"}': sent.noToken,
        'cube_dual_auth_requests_total{path="shared-secret",outcome="refused"}': sent.wrongSecret,
        'cube_dual_auth_requests_total{path="key-set",outcome="refused"}': sent.serviceWithoutOrigin + sent.unknownKid,
        'cube_dual_auth_refusals_total{path="none",code="ERR_TOKEN_MISSING"}': sent.noToken,
        'cube_dual_auth_refusals_total{path="shared-secret",code="ERR_SIGNATURE_INVALID"}': sent.wrongSecret,
        'cube_dual_auth_refusals_total{path="key-set",code="ERR_ALG_NOT_ALLOWED"}': sent.serviceWithoutOrigin,
        'cube_dual_auth_refusals_total{path="key-set",code="ERR_KID_UNKNOWN"}': sent.unknownKid,
        'sum(cube_dual_auth_refusals_total)':
          sent.noToken + sent.wrongSecret + sent.serviceWithoutOrigin + sent.unknownKid,
        'sum by (path) (cube_dual_auth_verification_duration_seconds_count{path="shared-secret"})':
          sent.serviceAccepted + sent.wrongSecret,
        [`cube_dual_auth_key_set_fetches_total{issuer="${issuer}",outcome="ok"}`]: 1,
        [`cube_dual_auth_key_set_fetches_total{issuer="${issuer}",outcome="ERR_JWKS_UNREACHABLE"}`]: 1,
        [`cube_dual_auth_key_set_fetch_duration_seconds_count{issuer="${issuer}"}`]: 2,
        [`cube_dual_auth_key_set_keys{issuer="${issuer}"}`]: published,
        [`cube_dual_auth_key_set_serving_stale{issuer="${issuer}"}`]: 1,
      };
      const found: Record<string, number | undefined> = {};
      for (const query of Object.keys(expected)) found[query] = await valueOf(query);
      expect(found).toEqual(expected);

      // The age of the key set grows from the one successful fetch; no scrape can be older than the test.
      const age = (await valueOf(`cube_dual_auth_key_set_age_seconds{issuer="${issuer}"}`)) as number;
      expect(age).toBeGreaterThanOrEqual(0);
      expect(age).toBeLessThan(INSTALL_AND_START_TIMEOUT_MS / 1000);

      // Every label is one the operator configured or the package defines: no kid, no token, no unknown issuer.
      const all: Sample[] = await prometheus.query('{__name__=~"cube_dual_auth_.+"}');
      const labelNames = new Set(all.flatMap(({ labels }) => Object.keys(labels)));
      const allowed = new Set(['__name__', 'instance', 'job', 'le', 'path', 'outcome', 'code', 'result', 'issuer']);
      // What each replica holds of the secrets files: the package's file names and sources, a 16-digit fingerprint.
      for (const label of ['file', 'source', 'fingerprint']) allowed.add(label);
      expect([...labelNames].filter((name) => !allowed.has(name))).toEqual([]);
      const held = all.filter(({ labels }) => labels['file'] !== undefined);
      expect(new Set(held.map(({ labels }) => labels['file']))).toEqual(
        new Set(['api-secrets', 'sql-key-secrets', 'sql-keys-revoked', 'sql-password']),
      );
      for (const { labels } of held) {
        if (labels['source'] !== undefined) expect(['file', 'environment', 'none']).toContain(labels['source']);
        if (labels['fingerprint'] !== undefined) expect(labels['fingerprint']).toMatch(/^(?:[0-9a-f]{16})?$/);
      }
      expect(new Set(all.flatMap(({ labels }) => (labels['issuer'] === undefined ? [] : [labels['issuer']])))).toEqual(
        new Set([issuer]),
      );
      expect(JSON.stringify(all)).not.toContain('never-published');
    });
  });
}
