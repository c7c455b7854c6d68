import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHECK_NAMES, runChecks } from '../../../src/cli/probe/checks';
import { freePort } from '../../../scripts/lib/ports.mjs';
import { createClock } from '../../support/clock';

const ORIGIN = 'embeddable';
const SERVICE_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJ0ZW5hbnQiOiJhY21lIn0.service-signature-0123456789';
const IDP_TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.idp-signature-0123456789abcdef';

/** A deployment that answers as this package's hook does: 200 with /meta for a token on its path, else 403. */
let server: Server;
let base: URL;
let received: { path: string; headers: IncomingHttpHeaders }[];

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push({ path: req.url ?? '', headers: req.headers });
    const { authorization, 'request-origin': origin } = req.headers;
    const accepted =
      (authorization === SERVICE_TOKEN && origin === ORIGIN) || (authorization === IDP_TOKEN && origin === undefined);
    if (authorization === undefined) res.writeHead(403).end('{"error":"Authentication required"}');
    else if (accepted) res.writeHead(200).end('{"cubes":[{"name":"orders"}]}');
    else res.writeHead(403).end('{"error":"Refused"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/cubejs-api/v1`);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  received = [];
});

/** The plan of a probe of `at`, with both tokens unless left out; its clock stands still, so every `ms` is 0. */
function plan(
  at: URL,
  tokens: { serviceToken?: string; idpToken?: string } = { serviceToken: SERVICE_TOKEN, idpToken: IDP_TOKEN },
) {
  return {
    base: at,
    origin: ORIGIN,
    serviceToken: tokens.serviceToken,
    noServiceToken: 'no API secret',
    idpToken: tokens.idpToken,
    noIdpToken: 'no identity-provider token',
    timeoutMs: 5_000,
    env: {},
    now: createClock().now,
  };
}

describe('runChecks', () => {
  it('sends the six checks one after the other to /meta, each with its token and Request-Origin, and judges each', async () => {
    const results = await runChecks(plan(base));
    expect(results.map(({ name, expected, status, ms, verdict }) => ({ name, expected, status, ms, verdict }))).toEqual(
      [
        { name: 'no-token', expected: 403, status: 403, ms: 0, verdict: 'PASS' },
        { name: 'garbage-token', expected: 403, status: 403, ms: 0, verdict: 'PASS' },
        { name: 'service-token', expected: 200, status: 200, ms: 0, verdict: 'PASS' },
        { name: 'service-token-without-origin', expected: 403, status: 403, ms: 0, verdict: 'PASS' },
        { name: 'idp-token', expected: 200, status: 200, ms: 0, verdict: 'PASS' },
        { name: 'idp-token-with-origin', expected: 403, status: 403, ms: 0, verdict: 'PASS' },
      ],
    );
    expect(results.map((result) => result.name)).toEqual([...CHECK_NAMES]);
    expect(received.map(({ path }) => path)).toEqual(Array(6).fill('/cubejs-api/v1/meta'));
    const sent = received.map(({ headers }) => [headers.authorization ?? null, headers['request-origin'] ?? null]);
    expect(sent).toEqual([
      [null, null],
      [expect.stringMatching(/^eyJnYXJiYWdlIjp0cnVlfQ\.[\w-]+\.[\w-]+$/), null],
      [SERVICE_TOKEN, ORIGIN],
      [SERVICE_TOKEN, null],
      [IDP_TOKEN, null],
      [IDP_TOKEN, ORIGIN],
    ]);
    expect(received.every(({ headers }) => headers['user-agent'] === 'cube-dual-auth-probe')).toBe(true);
  });

  it('makes a new garbage token for every run, so that an answer giving one back is known for an echo', async () => {
    await runChecks(plan(base));
    await runChecks(plan(base));
    const garbage = received.filter(({ headers }) => headers.authorization?.startsWith('eyJnYXJiYWdlIjp0cnVlfQ.'));
    expect(garbage).toHaveLength(2);
    expect(garbage[0]?.headers.authorization).not.toBe(garbage[1]?.headers.authorization);
  });

  it('skips, with the reason given, the checks of a token it does not have, and sends nothing for them', async () => {
    const results = await runChecks(plan(base, { idpToken: IDP_TOKEN }));
    const skipped = results.filter((result) => result.verdict === 'SKIP');
    expect(skipped).toEqual([
      { name: 'service-token', expected: 200, status: null, ms: null, verdict: 'SKIP', reason: 'no API secret' },
      {
        name: 'service-token-without-origin',
        expected: 403,
        status: null,
        ms: null,
        verdict: 'SKIP',
        reason: 'no API secret',
      },
    ]);
    expect(received).toHaveLength(4);
  });

  it('sends nothing more when the first request gets no answer: each other check fails, saying so', async () => {
    const port = await freePort();
    const results = await runChecks(
      plan(new URL(`http://127.0.0.1:${port}/cubejs-api/v1`), { serviceToken: SERVICE_TOKEN }),
    );
    expect(results[0]).toMatchObject({
      name: 'no-token',
      status: null,
      verdict: 'FAIL',
      reason: expect.stringContaining(`cannot reach 127.0.0.1:${port}`),
    });
    expect(results.slice(1)).toEqual([
      {
        name: 'garbage-token',
        expected: 403,
        status: null,
        ms: null,
        verdict: 'FAIL',
        reason: 'not sent: no-token got no answer',
      },
      {
        name: 'service-token',
        expected: 200,
        status: null,
        ms: null,
        verdict: 'FAIL',
        reason: 'not sent: no-token got no answer',
      },
      {
        name: 'service-token-without-origin',
        expected: 403,
        status: null,
        ms: null,
        verdict: 'FAIL',
        reason: 'not sent: no-token got no answer',
      },
      {
        name: 'idp-token',
        expected: 200,
        status: null,
        ms: null,
        verdict: 'SKIP',
        reason: 'no identity-provider token',
      },
      {
        name: 'idp-token-with-origin',
        expected: 403,
        status: null,
        ms: null,
        verdict: 'SKIP',
        reason: 'no identity-provider token',
      },
    ]);
  });
});
