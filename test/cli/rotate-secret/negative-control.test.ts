/**
 * `provider rotate-secret`'s negative control: against a Cube stand-in on 127.0.0.1 that answers 200 to any token (a
 * proxy, a cache, the wrong service), the new secret is never sent to the service, in text and in `--json`.
 */
import { verify } from 'jsonwebtoken';
import { describe, expect, test } from 'vitest';
import { jsonOf } from '../../support/cli';
import { answer, META_BODY, type Deployment } from '../../support/deployment';
import { PROVIDER as NAME, rotateSecretBed } from '../../support/rotate-secret';

const bed = rotateSecretBed('negative-control-');
const { oldSecret: OLD, newSecret: NEW } = bed;

/** A server that answers Cube's /meta to every request, whatever its token; the first `hang` requests get nothing. */
async function acceptsAnyToken({ hang = 0 } = {}): Promise<Deployment> {
  let seen = 0;
  return bed.standIn((_request, response) => {
    if (seen++ >= hang) answer(response, 200, META_BODY);
  });
}

const rotate = (cube: Deployment, ...extra: string[]) => bed.rotate(cube.url, ...extra);
const updates = () => bed.updates();

describe('provider rotate-secret against a URL that accepts any token', () => {
  test('stops with exit 1 after one question, saying the URL does not judge tokens; nothing sent', async () => {
    const cube = await acceptsAnyToken();
    const result = await rotate(cube);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toEqual([
      `cube-dual-auth provider rotate-secret: the URL ${cube.url}/cubejs-api/v1 does not judge tokens: it accepted a ` +
        'service token signed with a random secret (200 /meta lists 1 cube).',
      "The new secret was not sent to the service. Give --cube the URL of a Cube whose checkAuth is cube-dual-auth's, " +
        'not a proxy, a cache or another service that answers any token.',
      '',
    ]);
    // One question, with a token of no secret the deployment holds; the service only read.
    expect(cube.requests).toHaveLength(1);
    const token = String(cube.requests[0]?.headers.authorization);
    expect(token).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    for (const secret of [OLD, NEW]) expect(() => verify(token, secret, { algorithms: ['HS256'] })).toThrow();
    expect(cube.requests[0]?.headers['request-origin']).toBe('embeddable');
    expect(updates()).toEqual([]);
    expect(bed.server.requests.map((r) => r.method)).toEqual(['GET']);
    expect(bed.server.dataProviders.get(NAME)?.credentials.secretKey).toBe(OLD);
  });

  test('--json says so, --dry-run too', async () => {
    const cube = await acceptsAnyToken();
    const result = await rotate(cube, '--json', '--dry-run');
    expect(result.code).toBe(1);
    expect(jsonOf(result)).toEqual({
      name: NAME,
      cube: `${cube.url}/cubejs-api/v1`,
      control: expect.objectContaining({ name: 'service-token', status: 200, verdict: 'PASS' }),
      judgesTokens: false,
      accepted: false,
      dryRun: true,
      updated: false,
    });
    expect(result.stderr).toMatch(/^cube-dual-auth provider rotate-secret: the URL \S+ does not judge tokens/);
    expect(updates()).toEqual([]);
  });

  test('a URL that did not answer the control is asked it again once it answers, before anything changes', async () => {
    const cube = await acceptsAnyToken({ hang: 1 });
    const result = await rotate(cube, '--wait', '1500ms');
    expect(result.code).toBe(1);
    // The control (no answer), the new secret's question (accepted), the control again (accepted: stop).
    expect(cube.requests).toHaveLength(3);
    expect(result.stderr).toMatch(/^cube-dual-auth provider rotate-secret: the URL \S+ does not judge tokens: /);
    expect(updates()).toEqual([]);
    // Bounded: the control waits no longer than --wait.
    expect(result.ms).toBeLessThan(1_500 + 1_000 + result.lateMs);
  });
});
