// `replicas`: each replica's metrics read over real HTTP on 127.0.0.1, compared file by file; the verdicts on a
// replica kept at its last good content, a generation behind, in force from the environment, or unreachable.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { compareReplicas } from '../../../src/cli/replicas/compare';
import { heldOf } from '../../../src/cli/replicas/held';
import { jsonOf, runCli } from '../../support/cli';

const FP = { a: '0123456789abcdef', b: 'fedcba9876543210' };

interface Held {
  source?: string;
  fingerprint?: string;
  kept?: number;
  since?: number;
  generation?: number;
}

/** A replica's metrics text, as the hook writes the four gauges, for the API secrets (and the others as none). */
function metricsText(api: Held): string {
  const { source = 'file', fingerprint = FP.a, kept = 0, since = 0, generation = 1 } = api;
  const none = ['sql-key-secrets', 'sql-keys-revoked', 'sql-password'];
  return [
    '# TYPE cube_dual_auth_requests_total counter',
    'cube_dual_auth_requests_total{path="none",outcome="refused"} 3',
    `cube_dual_auth_secret_in_force{file="api-secrets",source="${source}",fingerprint="${fingerprint}"} 1`,
    ...none.map((file) => `cube_dual_auth_secret_in_force{file="${file}",source="none",fingerprint=""} 1`),
    `cube_dual_auth_secret_kept{file="api-secrets"} ${kept}`,
    ...none.map((file) => `cube_dual_auth_secret_kept{file="${file}"} 0`),
    `cube_dual_auth_secret_kept_since_seconds{file="api-secrets"} ${since}`,
    ...none.map((file) => `cube_dual_auth_secret_kept_since_seconds{file="${file}"} 0`),
    `cube_dual_auth_secret_generation{file="api-secrets"} ${generation}`,
    ...none.map((file) => `cube_dual_auth_secret_generation{file="${file}"} 0`),
    '',
  ].join('\n');
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A metrics endpoint on 127.0.0.1 answering `body` (or never answering); its URL. */
async function replica(body: string | 'silent', status = 200): Promise<string> {
  const server = createServer((req, res) => {
    if (body === 'silent') return;
    res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}/metrics`;
}

const held = (api: Held) => ({ url: 'r', held: heldOf(metricsText(api)) ?? {} });

describe('comparing replicas', () => {
  it('reads the four gauges and nothing else of the text', () => {
    expect(heldOf(metricsText({ kept: 1, since: 1_800_000_000, generation: 3 }))?.['api-secrets']).toEqual({
      source: 'file',
      fingerprint: FP.a,
      kept: true,
      keptSince: 1_800_000_000,
      generation: 3,
    });
    expect(heldOf('cube_dual_auth_requests_total{path="none",outcome="refused"} 3\n')).toBeUndefined();
    // A fingerprint the package never writes (not 16 hex digits) is not taken as one.
    expect(heldOf(metricsText({ fingerprint: 'secret!' }))?.['api-secrets']?.fingerprint).toBeUndefined();
  });

  it('names each way a replica differs, against what most hold', () => {
    const [api] = compareReplicas([
      { ...held({}), url: 'one' },
      { ...held({}), url: 'two' },
      { ...held({ source: 'environment', fingerprint: FP.b, generation: 0 }), url: 'env' },
      { ...held({ fingerprint: FP.b, generation: 0 }), url: 'behind' },
      { ...held({ fingerprint: FP.b, generation: 4 }), url: 'other' },
      { ...held({ kept: 1, since: 1_800_000_000 }), url: 'kept' },
      { url: 'down', unreachable: 'cannot reach 10.0.0.9:9464: connection refused (ECONNREFUSED)' },
    ]);
    expect(api?.agree).toBe(false);
    expect(api?.inForce).toEqual({ source: 'file', fingerprint: FP.a, generation: 1 });
    expect(api?.agreeing).toEqual(['one', 'two']);
    expect(api?.differing.map(({ url, how, words }) => [url, how, words])).toEqual([
      ['env', 'source', 'in force from the environment rather than the file'],
      ['behind', 'behind', 'a generation behind (at generation 0, the others at 1)'],
      ['other', 'other', `holds other content (fingerprint ${FP.b}, generation 4)`],
      ['kept', 'kept', 'kept at its last good content since 2027-01-15T08:00:00Z'],
      ['down', 'unreachable', 'unreachable: cannot reach 10.0.0.9:9464: connection refused (ECONNREFUSED)'],
    ]);
  });
});

describe('cube-dual-auth replicas', () => {
  it('exits 0 when every replica holds the same of every file', async () => {
    const urls = [await replica(metricsText({})), await replica(metricsText({ generation: 1 }))];
    const result = await runCli(['replicas', ...urls]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`OK    api-secrets       all agree (file, fingerprint ${FP.a}, generation 1)`);
    expect(result.stdout).toContain('OK    sql-password      all agree (none, generation 0)');
    expect(result.stdout).toMatch(/\nOK: every replica holds the same of every file\n$/);
    expect(result.code).toBe(0);
  });

  it('exits 1 naming the replica that differs and how, in text and JSON', async () => {
    const agreeing = [await replica(metricsText({})), await replica(metricsText({}))];
    const env = await replica(metricsText({ source: 'environment', fingerprint: FP.b, generation: 0 }));
    const result = await runCli(['replicas', ...agreeing, env]);
    const name = new URL(env).host;
    expect(result.stdout).toContain(`DIFF  api-secrets       2 of 3 agree (file, fingerprint ${FP.a}, generation 1): `);
    expect(result.stdout).toContain(`${name}: in force from the environment rather than the file\n`);
    expect(result.stdout).toMatch(/\nFAIL: the replicas differ on api-secrets\n$/);
    expect(result.code).toBe(1);
    const json = jsonOf<{
      ok: boolean;
      files: { file: string; agree: boolean; differing: { url: string; how: string }[] }[];
    }>(await runCli(['replicas', ...agreeing, env, '--json']));
    expect(json.ok).toBe(false);
    expect(json.files.map(({ file, agree }) => [file, agree])).toEqual([
      ['api-secrets', false],
      ['sql-key-secrets', true],
      ['sql-keys-revoked', true],
      ['sql-password', true],
    ]);
    expect(json.files[0]?.differing).toMatchObject([
      { url: name, how: 'source', source: 'environment', expected: 'file' },
    ]);
  });

  it('prints null in --json for what a replica does not show, as every --json member is always present', async () => {
    const current = metricsText({ generation: 2 });
    const noGenerations = (text: string) =>
      text
        .split('\n')
        .filter((line) => !line.startsWith('cube_dual_auth_secret_generation'))
        .join('\n');
    const keptSince = (text: string) =>
      noGenerations(text).replace(/^cube_dual_auth_secret_kept_since_seconds\{file="api-secrets"\} .*$/m, '');
    const urls = [
      await replica(current),
      await replica(current),
      await replica(noGenerations(metricsText({ fingerprint: FP.b }))),
      await replica(keptSince(metricsText({ kept: 1 }))),
    ];
    const json = jsonOf<{ files: { file: string; differing: Record<string, unknown>[] }[] }>(
      await runCli(['replicas', ...urls, '--json']),
    );
    const api = json.files.find(({ file }) => file === 'api-secrets');
    expect(api?.differing.map(({ how, generation, since }) => ({ how, generation, since }))).toEqual([
      { how: 'behind', generation: null, since: undefined },
      { how: 'kept', generation: undefined, since: null },
    ]);
  });

  it('names a silent replica unreachable within --deadline, and one that is not the metrics endpoint', async () => {
    const urls = [await replica(metricsText({})), await replica('silent'), await replica('Not found\n', 404)];
    const result = await runCli(['replicas', ...urls, '--deadline', '500']);
    expect(result.ms).toBeLessThan(5_000 + result.lateMs);
    expect(result.stdout).toContain(
      `${new URL(urls[1] as string).host}: unreachable: no answer within the deadline (500 ms)`,
    );
    expect(result.stdout).toContain(
      `${new URL(urls[2] as string).host}: unreachable: its metrics endpoint answered 404`,
    );
    expect(result.code).toBe(1);
  });

  it('refuses a command line without URLs, with credentials in one, or one twice', async () => {
    expect(await runCli(['replicas'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('give at least one <metrics-url>'),
    });
    expect(await runCli(['replicas', 'http://u:p@127.0.0.1:1/metrics'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('must not hold a user name or password'),
    });
    expect(await runCli(['replicas', 'http://127.0.0.1:9/', 'http://127.0.0.1:9/metrics'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('http://127.0.0.1:9/metrics is given twice'),
    });
  });
});
