/**
 * The scrubber against real echoes on 127.0.0.1: a service that quotes back the secret it was sent, a Cube that
 * quotes back the token it was sent, and a cube.js whose error quotes the secrets directory's API secret; in text and
 * `--json`, no form of the secret or token is printed (scrub.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckAuth, type CheckAuth } from '../../src';
import { runCli, type CliResult } from '../support/cli';
import { randomSecret } from '../support/claims';
import { cubeJsIn, gatewayIn } from '../support/cube';
import { answer, cubeGateway, startDeployment, type Deployment } from '../support/deployment';

const OLD = randomSecret(32);
const NEW = randomSecret(32);
const API_KEY = 'emb_echo_5b8e1f0c2a7d9e3b4c61';
const NAME = 'cube-main';

/** The forms of `value` an echo gives: base64 and base64url, URL-encoded, upper case, split by a line break, halves. */
function echoesOf(value: string): string[] {
  const half = Math.floor(value.length / 2);
  return [
    Buffer.from(`{"secretKey":"${value}"}`).toString('base64'),
    Buffer.from(value).toString('base64url'),
    encodeURIComponent(`k=${value}&x=1`),
    value.toUpperCase(),
    `${value.slice(0, half)}\n${value.slice(half)}`,
    `first ${value.slice(0, half)}, then ${value.slice(half)}`,
  ];
}

/** Which of the 16-character parts of `value` (in any case, or base64-encoded) `printed` shows; none is the aim. */
function shownParts(printed: string, value: string): string[] {
  const flat = printed.replace(/\s|\\n|\\u000a/gi, '').toLowerCase();
  const parts: string[] = [];
  for (let i = 0; i + 16 <= value.length; i += 4) parts.push(value.slice(i, i + 16).toLowerCase());
  const encoded = Buffer.from(value).toString('base64').slice(0, 16);
  return [...parts.filter((part) => flat.includes(part)), ...(printed.includes(encoded) ? [encoded] : [])];
}

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

let hook: CheckAuth;
let cube: Deployment;
let dir: string;
const servers: Deployment[] = [];
beforeAll(async () => {
  hook = createCheckAuth({ apiSecret: [OLD, NEW] });
  cube = await startDeployment(cubeGateway(hook));
  dir = mkdtempSync(join(tmpdir(), 'scrub-echo-'));
  writeFileSync(join(dir, 'new-api-secret'), `${NEW}\n`);
});
afterAll(async () => {
  await Promise.all([cube, ...servers].map((server) => server.close()));
  hook.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('provider rotate-secret against a service that echoes the new secret in its refusal', () => {
  /** A service whose PUT is refused with a message quoting the secret it was sent, in the form `form` gives. */
  async function echoingService(form: (secret: string) => string): Promise<Deployment> {
    const service = await startDeployment((request, response) => {
      if (request.method === 'GET')
        return answer(response, 200, JSON.stringify({ name: NAME, type: 'cube', version: 'v1.4.0', credentials: {} }));
      void readBody(request).then((body) => {
        const secret = (JSON.parse(body) as { credentials: { secretKey: string } }).credentials.secretKey;
        answer(response, 400, JSON.stringify({ errorMessage: `refused secretKey ${form(secret)}` }));
      });
    });
    servers.push(service);
    return service;
  }

  it('prints no form of it, in text and --json', async () => {
    const forms = echoesOf(NEW);
    for (let i = 0; i < forms.length; i++) {
      const service = await echoingService((secret) => echoesOf(secret)[i] as string);
      for (const json of [[], ['--json']]) {
        const result: CliResult = await runCli(
          [
            'provider',
            'rotate-secret',
            NAME,
            '--cube',
            cube.url,
            '--new-secret-file',
            join(dir, 'new-api-secret'),
            '--credential',
            'secret',
            ...json,
          ],
          { env: { EMBEDDABLE_API_KEY: API_KEY, EMBEDDABLE_BASE_URL: service.url }, secrets: [API_KEY, NEW] },
        );
        expect(result.code).toBe(1);
        // The service's message is printed, with the secret taken out (by the service client for its exact and
        // URL-encoded forms, [redacted]; by the scrubber for the others).
        expect(result.stderr).toContain('refused secretKey');
        expect(result.stdout + result.stderr).toMatch(/\[secret\]|\[redacted\]/);
        expect(shownParts(result.stdout + result.stderr, NEW)).toEqual([]);
      }
    }
  });
});

describe('probe against a Cube that echoes the token it was sent', () => {
  it('prints no form of the token it minted, nor of the API secret', async () => {
    let sent: string[] = [];
    const echoing = await startDeployment((request, response) => {
      const token = String(request.headers.authorization ?? '');
      sent.push(token);
      const echo = `${Buffer.from(token).toString('base64')} ${token.split('.')[2] ?? ''}`;
      answer(response, 403, JSON.stringify({ error: `no: ${echo}` }));
    });
    servers.push(echoing);
    for (const json of [[], ['--json']]) {
      sent = [];
      const result = await runCli(['probe', echoing.url, ...json], {
        env: { CUBEJS_API_SECRET: OLD },
        secrets: [OLD],
      });
      expect(result.code).toBe(1);
      const serviceToken = sent.find((token) => token.split('.').length === 3 && !token.startsWith('eyJnYXJiYWdl'));
      expect(serviceToken).toBeDefined();
      const printed = result.stdout + result.stderr;
      expect(printed).toContain('[token]');
      expect(shownParts(printed, serviceToken as string)).toEqual([]);
      expect(shownParts(printed, OLD)).toEqual([]);
    }
  });
});

describe("doctor with a cube.js whose error quotes the secrets directory's API secret", () => {
  it('prints no form of it, in text and --json', async () => {
    const project = mkdtempSync(join(tmpdir(), 'scrub-echo-doctor-'));
    try {
      const secrets = join(project, 'secrets');
      mkdirSync(secrets);
      writeFileSync(join(secrets, 'api-secrets'), `${NEW}\n`);
      gatewayIn(project, 'module.exports = {};\n');
      cubeJsIn(
        project,
        `const secret = require('fs').readFileSync(process.env.CUBE_DUAL_AUTH_SECRETS_DIR + '/api-secrets', 'utf8').trim();
const half = secret.length / 2;
throw new Error('cannot connect with ' + secret + ', ' + Buffer.from(secret).toString('base64') + ', ' +
  secret.toUpperCase() + ', ' + secret.slice(0, half) + '\\n' + secret.slice(half));
`,
      );
      for (const json of [[], ['--json']]) {
        const result = await runCli(['doctor', ...json], {
          env: { CUBE_DUAL_AUTH_SECRETS_DIR: secrets },
          cwd: project,
          secrets: [NEW],
        });
        expect(result.code).toBe(1);
        expect(result.stdout).toContain('cannot connect with [secret], [secret]');
        expect(shownParts(result.stdout + result.stderr, NEW)).toEqual([]);
      }
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
