/**
 * `cube-dual-auth provider rotate-secret`, against the service's contract server and a Cube stand-in: a server on
 * 127.0.0.1 answering as Cube's gateway does around this package's checkAuth, whose list of API secrets the test
 * changes. No run prints the API key, the old secret or the new one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { verify } from 'jsonwebtoken';
import { describe, expect, test } from 'vitest';
import type { CheckAuth } from '../../../src';
import type { CliIO } from '../../../src/cli/io';
import { rotateSecret } from '../../../src/cli/rotate-secret/action';
import type { Clock } from '../../../src/cli/rotate-secret/wait';
import { jsonOf, runBin, runCli, type CliResult } from '../../support/cli';
import { createClock } from '../../support/clock';
import { cubeGateway, startDeployment, type Deployment } from '../../support/deployment';
import { PROVIDER as NAME, rotateSecretBed } from '../../support/rotate-secret';

const bed = rotateSecretBed('rotate-secret-');
const { oldSecret: OLD, newSecret: NEW, secrets: SECRETS } = bed;

/** A Cube whose API secrets are `secrets`; `add` puts another in force, as a reload of api-secrets would. */
interface TestCube {
  readonly deployment: Deployment;
  /** Service tokens it refused and accepted, in order. */
  readonly answers: Array<'accepted' | 'refused'>;
  add(secret: string): void;
}

async function startCube(secrets: string[], onRefused?: (cube: TestCube) => void): Promise<TestCube> {
  let hook: CheckAuth = bed.checkAuth(secrets);
  const answers: TestCube['answers'] = [];
  const cube: TestCube = {
    deployment: await bed.standIn(
      cubeGateway(async (req, token) => {
        try {
          const context = await hook(req, token);
          answers.push('accepted');
          return context;
        } catch (error) {
          answers.push('refused');
          onRefused?.(cube);
          throw error;
        }
      }),
    ),
    answers,
    add(secret) {
      secrets.push(secret);
      hook = bed.checkAuth([...secrets]);
    },
  };
  return cube;
}

const rotate = (cube: TestCube, ...extra: string[]): Promise<CliResult> => bed.rotate(cube.deployment.url, ...extra);
const updates = () => bed.updates();

describe('provider rotate-secret', () => {
  test('waits until the Cube accepts the new secret, then updates the secretKey with the version', async () => {
    // The new secret comes into force after the Cube has refused it once, as when the secrets directory is swapped;
    // the first refusal is of the random secret's token (the negative control).
    let refusals = 0;
    const cube = await startCube([OLD], (refusing) => {
      if (++refusals === 2) refusing.add(NEW);
    });
    const result = await rotate(cube, '--json');
    expect(result.code).toBe(0);
    expect(cube.answers).toEqual(['refused', 'refused', 'accepted']);
    expect(jsonOf(result)).toMatchObject({
      name: NAME,
      cube: `${cube.deployment.url}/cubejs-api/v1`,
      attempts: 2,
      accepted: true,
      dryRun: false,
      updated: true,
      version: 'v1.4.0',
      check: { name: 'service-token', status: 200, verdict: 'PASS', reason: '/meta lists 1 cube' },
      control: { name: 'service-token', status: 403, verdict: 'FAIL' },
      lastStep: { removeOldSecretAfter: null, tokenLifetimeSeconds: null },
    });
    // The version is read from the service's record, then sent with the new secret alone.
    expect(bed.server.requestsTo('GET', `/data-providers/${NAME}`)).toHaveLength(1);
    expect(updates().map((r) => r.body)).toEqual([
      { type: 'cube', version: 'v1.4.0', credentials: { secretKey: NEW } },
    ]);
    expect(bed.server.dataProviders.get(NAME)?.credentials).toEqual({
      secretKey: NEW,
      instanceUrl: 'https://main.cubecloudapp.dev',
    });
  });

  test('prints the last step with how long the old tokens live, from the maximum token age', async () => {
    const cube = await startCube([OLD, NEW]);
    const before = Date.now();
    const result = await runCli(
      ['provider', 'rotate-secret', NAME, '--cube', cube.deployment.url, '--new-secret-file', bed.newSecretFile],
      { env: { ...bed.env, CUBE_DUAL_AUTH_MAX_TOKEN_AGE: '3600' }, secrets: SECRETS },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'The Cube accepts the new secret (200 /meta lists 1 cube).',
      `Updated data provider ${NAME}: credentials.secretKey to the new secret, version v1.4.0. The service signs ` +
        'with the new secret from now on.',
      '',
    ]);
    expect(lines[3]).toMatch(
      new RegExp(
        "^Last step: the service's tokens signed with the old secret stay in use until they expire; then remove " +
          'the old secret from api-secrets in CUBE_DUAL_AUTH_SECRETS_DIR \\(or CUBEJS_API_SECRETS\\) on every ' +
          'replica\\. That is in 3605 s \\(CUBE_DUAL_AUTH_MAX_TOKEN_AGE 3600 s, plus 5 s of clock tolerance ' +
          '\\(CUBE_DUAL_AUTH_CLOCK_TOLERANCE\\)\\): after (\\S+Z)\\.$',
      ),
    );
    const after = Date.parse(/after (\S+Z)\.$/.exec(lines[3] as string)?.[1] as string);
    expect(after).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 3605_000);
    expect(after).toBeLessThanOrEqual(Date.now() + 3605_000);
  });

  test('a Cube that never accepts it: exit 1 after --wait, the service not updated, no secret printed', async () => {
    const cube = await startCube([OLD]);
    const result = await rotate(cube, '--wait', '1500ms');
    expect(result.code).toBe(1);
    // How many questions fit in 1.5 s depends on the machine: the count printed is the count the Cube saw, less the
    // negative control's.
    const attempts = cube.answers.length - 1;
    expect(attempts).toBeGreaterThanOrEqual(1);
    expect(cube.answers).toEqual(Array(attempts + 1).fill('refused'));
    expect(updates()).toEqual([]);
    expect(bed.server.dataProviders.get(NAME)?.credentials.secretKey).toBe(OLD);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toEqual([
      'The Cube has not accepted the new secret yet: expected 200, got 403: "Invalid signature: the token is not ' +
        'signed with the API secret".',
      'Asking again every 1 s for up to 1500 ms: add the new secret to api-secrets in CUBE_DUAL_AUTH_SECRETS_DIR ' +
        '(or CUBEJS_API_SECRETS) on every replica.',
      `cube-dual-auth provider rotate-secret: the Cube at ${cube.deployment.url}/cubejs-api/v1 did not accept a ` +
        `service token signed with the new secret within 1500 ms (${attempts} attempt${attempts === 1 ? '' : 's'}; ` +
        'last: expected 200, got 403: "Invalid signature: the token is not signed with the API secret").',
      'Nothing was changed at the service. Add the new secret to api-secrets in CUBE_DUAL_AUTH_SECRETS_DIR (or ' +
        'CUBEJS_API_SECRETS) on every replica, then run this again.',
      '',
    ]);
    // Bounded: the wait, plus one pause at most, plus how late this process ran meanwhile.
    expect(result.ms).toBeLessThan(1_500 + 1_000 + result.lateMs + 500);
  });

  test('the default wait is 60 s, asked every second, on the clock given', async () => {
    const cube = await startCube([OLD]);
    const time = createClock(0);
    const clock: Clock = { now: time.now, epochMs: () => Date.now(), sleep: async (ms) => time.advance(ms) };
    const result = await runRotateSecret(
      [NAME, '--cube', cube.deployment.url, '--new-secret-file', bed.newSecretFile, '--json'],
      clock,
    );
    expect(result.code).toBe(1);
    // The negative control, then 60 questions with the new secret.
    expect(cube.answers).toEqual(Array(61).fill('refused'));
    expect(time.now()).toBe(59_000);
    expect(JSON.parse(result.stdout)).toMatchObject({ accepted: false, attempts: 60, updated: false });
    expect(updates()).toEqual([]);
  });

  test('the bin, against a Cube that never answers: exit 1 within the wait, and nothing keeps it alive', async () => {
    const hung = await startDeployment(() => undefined);
    try {
      const result = await runBin(
        [
          'provider',
          'rotate-secret',
          NAME,
          '--cube',
          hung.url,
          '--new-secret-file',
          bed.newSecretFile,
          '--wait',
          '1500ms',
        ],
        { env: bed.env, secrets: SECRETS },
      );
      expect(result.code).toBe(1);
      // The question gets what is left of the wait when it starts: 1500 ms less the moment it took to start it.
      expect(result.stderr).toMatch(
        /^The Cube has not accepted the new secret yet: no complete answer within 1\d{3} ms\.\n/,
      );
      expect(result.stderr).toMatch(/within 1500 ms \(1 attempt; last: no complete answer within 1\d{3} ms\)\.\n/);
      expect(updates()).toEqual([]);
      // The one question took the whole wait; the process ends with its last word.
      expect(result.ms - result.outputEndMs!).toBeLessThan(1_000 + result.lateMs);
    } finally {
      await hung.close();
    }
  });

  test('--replicas: answers in a row from two replicas behind one address, one of them without the new secret', async () => {
    const hooks2 = { with: bed.checkAuth([OLD, NEW]), without: bed.checkAuth([OLD]) };
    // A round-robin balancer: each connection (probe closes every one) goes to the next replica.
    let next = 0;
    const answers: string[] = [];
    const balancer = await startDeployment(
      cubeGateway(async (req, token) => {
        // The negative control's token, which every replica refuses, is not one of the answers in a row.
        if (!signedWithOneOf(token, [OLD, NEW])) return hooks2.with(req, token);
        const replica = next++ % 2 === 0 ? 'with' : 'without';
        answers.push(replica);
        return hooks2[replica](req, token);
      }),
    );
    try {
      const args = ['provider', 'rotate-secret', NAME, '--cube', balancer.url, '--new-secret-file', bed.newSecretFile];
      const alone = await runCli([...args, '--dry-run'], { env: bed.env, secrets: SECRETS });
      // One answer, from the replica that has the secret: enough without --replicas.
      expect(alone.code).toBe(0);
      expect(answers).toEqual(['with']);
      const both = await runCli([...args, '--dry-run', '--replicas', '2', '--wait', '1500ms'], {
        env: bed.env,
        secrets: SECRETS,
      });
      expect(both.code).toBe(1);
      // Each round stops at its refusal, and none is all accepted: the replicas alternate.
      expect(answers[1]).toBe('without');
      expect(answers.slice(1).every((replica, i) => replica === (i % 2 === 0 ? 'without' : 'with'))).toBe(true);
      expect(both.stderr).toMatch(/^The Cube has not accepted the new secret yet: expected 200, got 403: "Invalid/);
      hooks2.without = bed.checkAuth([OLD, NEW]);
      const after = await runCli([...args, '--replicas', '2'], { env: bed.env, secrets: SECRETS });
      expect(after.code).toBe(0);
      expect(after.stdout).toMatch(
        /^The Cube accepts the new secret, 2 answers in a row \(200 \/meta lists 1 cube\)\.\n/,
      );
      expect(updates()).toHaveLength(1);
    } finally {
      await balancer.close();
    }
  });

  test('--dry-run asks the Cube and says what it would change, changing nothing', async () => {
    const cube = await startCube([OLD, NEW]);
    const result = await rotate(cube, '--dry-run', '--provider-version', 'v1.5.0');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'The Cube accepts the new secret (200 /meta lists 1 cube).\n' +
        `Dry run: would update data provider ${NAME}: credentials.secretKey to the new secret, version v1.5.0. ` +
        'Nothing was changed.\n',
    );
    expect(cube.answers).toEqual(['refused', 'accepted']);
    // The version given is sent as it is; the record is read for the Cube's URL alone, nothing is written.
    expect(bed.server.requests.map((r) => r.method)).toEqual(['GET']);
    expect(bed.server.dataProviders.get(NAME)?.credentials.secretKey).toBe(OLD);
  });

  test('a --provider-version the service would refuse stops the command before the Cube is asked', async () => {
    const cube = await startCube([OLD, NEW]);
    const result = await rotate(cube, '--provider-version', 'v2');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^cube-dual-auth provider rotate-secret: version: must be vMAJOR\.MINOR\.PATCH such as v1\.0\.0 /,
    );
    expect(cube.answers).toEqual([]);
    expect(bed.server.requests).toEqual([]);
  });

  test('refuses a weak new secret before asking anyone', async () => {
    const cube = await startCube([OLD]);
    const weak = join(bed.dir, 'weak');
    writeFileSync(weak, 'correct-horse-battery-staple\n');
    const result = await runCli(
      ['provider', 'rotate-secret', NAME, '--cube', cube.deployment.url, '--new-secret-file', weak],
      { env: bed.env, secrets: [...SECRETS, 'correct-horse-battery-staple'] },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^cube-dual-auth provider: the new secret (is [^\n]* bits of key material|looks like words)[^\n]*\(openssl rand -hex 32\)\n/,
    );
    expect(cube.answers).toEqual([]);
    expect(bed.server.requests).toEqual([]);
  });

  test('refuses a missing file before asking anyone', async () => {
    const cube = await startCube([OLD]);
    const result = await runCli(
      ['provider', 'rotate-secret', NAME, '--cube', cube.deployment.url, '--new-secret-file', join(bed.dir, 'nothing')],
      { env: bed.env, secrets: SECRETS },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'cube-dual-auth provider: cannot read the file of --new-secret-file (ENOENT)\n' +
        "Run 'cube-dual-auth provider --help' for usage.\n",
    );
    expect(cube.answers).toEqual([]);
    expect(bed.server.requests).toEqual([]);
  });

  test('an unknown data provider: exit 1, the Cube not asked, nothing sent to change', async () => {
    const cube = await startCube([OLD, NEW]);
    const result = await runCli(
      [
        'provider',
        'rotate-secret',
        'cube-nowhere',
        '--cube',
        cube.deployment.url,
        '--new-secret-file',
        bed.newSecretFile,
      ],
      { env: bed.env, secrets: SECRETS },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^cube-dual-auth provider rotate-secret: getDataProvider refused: HTTP 404/);
    expect(cube.answers).toEqual([]);
    expect(updates()).toEqual([]);
  });

  test('a version conflict from the service: exit 1, told that both secrets must stay', async () => {
    const cube = await startCube([OLD, NEW]);
    bed.server.fail({
      method: 'PUT',
      path: `/data-providers/${NAME}`,
      times: 1,
      action: { status: 409, body: JSON.stringify({ errorMessage: 'version v1.4.0 is not the latest' }) },
    });
    const result = await rotate(cube);
    expect(result.code).toBe(1);
    expect(cube.answers).toEqual(['refused', 'accepted']);
    expect(updates()).toHaveLength(1);
    expect(bed.server.dataProviders.get(NAME)?.credentials.secretKey).toBe(OLD);
    const [refused, advice] = result.stderr.split('\n');
    expect(refused).toMatch(/^cube-dual-auth provider rotate-secret: updateDataProvider refused: HTTP 409\b/);
    expect(refused).toContain('version v1.4.0 is not the latest');
    expect(advice).toBe(
      'The Cube accepts the new secret, but the service still signs with the old one: keep both in api-secrets in ' +
        'CUBE_DUAL_AUTH_SECRETS_DIR (or CUBEJS_API_SECRETS).',
    );
  });
});

/** Whether `token` is signed with one of `secrets`. */
function signedWithOneOf(token: string | undefined, secrets: readonly string[]): boolean {
  return secrets.some((secret) => {
    try {
      verify(token ?? '', secret, { algorithms: ['HS256'] });
      return true;
    } catch {
      return false;
    }
  });
}

/** A stream that keeps what is written to it. */
class Collected extends Writable {
  text = '';

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

/** The action called with a clock of the test's own; no secret in what it printed. */
async function runRotateSecret(args: string[], clock: Clock): Promise<{ code: number; stdout: string }> {
  const stdout = new Collected();
  const stderr = new Collected();
  const io: CliIO = { stdout, stderr, stdin: Readable.from([]), env: bed.env, cwd: bed.dir };
  const code = await rotateSecret(args, io, clock);
  for (const secret of SECRETS) expect(stdout.text + stderr.text).not.toContain(secret);
  return { code, stdout: stdout.text };
}
