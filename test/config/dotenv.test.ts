import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDotenv, withDotenv } from '../../src/config/dotenv';
import { jsonOf, keySetDeploymentPerFile, runCli } from '../support/cli';
import { randomSecret } from '../support/claims';
import { cubeJsIn, gatewayIn, RECOMMENDED_CUBE_JS } from '../support/cube';

interface DoctorJson {
  ok: boolean;
  checks: { id: string; status: 'ok' | 'warn' | 'fail'; message: string }[];
}

describe("parseDotenv: Cube's own .env reader (@cubejs-backend/dotenv 9.0.2, multiline: 'line-breaks')", () => {
  it('reads names and values: quotes stripped, \\n expanded in double quotes only, unquoted values trimmed', () => {
    const { values } = parseDotenv(
      [
        '# a comment line',
        'PLAIN=  abc  ',
        'DOUBLE="a\\nb"',
        "SINGLE='a\\nb'",
        'EMPTY=',
        '  SPACED = value',
        'not a variable line',
        'PLAIN=later wins',
      ].join('\n'),
    );
    expect(Object.fromEntries(values)).toEqual({
      PLAIN: 'later wins',
      DOUBLE: 'a\nb',
      SINGLE: 'a\\nb',
      EMPTY: '',
      SPACED: 'value',
    });
  });

  it('runs a quoted value that does not end on its line on to the line that ends with its quote', () => {
    const text = 'KEY="-----BEGIN KEY-----\nMIGT\n-----END KEY-----"\nNEXT=1\n';
    expect(Object.fromEntries(parseDotenv(text).values)).toEqual({
      KEY: '-----BEGIN KEY-----\nMIGT\n-----END KEY-----',
      NEXT: '1',
    });
  });

  it('reads CRLF files, skips `export` lines as Cube does, and keeps an inline comment in an unquoted value', () => {
    const parsed = parseDotenv('A=1\r\nexport B=2\r\nC=3 # the third\r\nD="4 # quoted"\r\n');
    expect(Object.fromEntries(parsed.values)).toEqual({ A: '1', C: '3 # the third', D: '4 # quoted' });
    expect(parsed.exported).toEqual(['B']);
    expect(parsed.inlineComments).toEqual(['C']);
  });
});

describe('withDotenv: the environment Cube runs with', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'dotenv-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('adds what the environment lacks; a variable set in the environment, even empty, keeps its value', () => {
    writeFileSync(join(dir, '.env'), 'A=from-file\nB=from-file\nC=from-file\nD=same\n');
    const { env, findings } = withDotenv({ B: 'from-env', C: '', D: 'same' }, dir);
    expect(env).toEqual({ A: 'from-file', B: 'from-env', C: '', D: 'same' });
    expect(findings).toEqual([
      {
        status: 'ok',
        message: `${join(dir, '.env')} read, as Cube reads it: A from it, the rest from the environment`,
      },
      {
        status: 'ok',
        message: `B is set both in the environment and in ${join(dir, '.env')}, with different values: the environment's is in force, as in Cube`,
      },
      {
        status: 'ok',
        message: `C is set both in the environment and in ${join(dir, '.env')}, with different values: the environment's is in force, as in Cube`,
      },
    ]);
  });

  it('warns of the lines Cube reads otherwise than a shell does, by name only', () => {
    writeFileSync(
      join(dir, '.env'),
      'export CUBEJS_JWK_URL=https://idp.example/jwks\nCUBEJS_JWT_AUDIENCE=api # ours\n',
    );
    const { env, findings } = withDotenv({}, dir);
    expect(env).toEqual({ CUBEJS_JWT_AUDIENCE: 'api # ours' });
    expect(findings.map(({ status }) => status)).toEqual(['ok', 'warn', 'warn']);
    expect(findings[1]?.message).toMatch(/skips lines that start with "export", so CUBEJS_JWK_URL is not set from it/);
    expect(findings[2]?.message).toMatch(/the value of CUBEJS_JWT_AUDIENCE holds " #"/);
    expect(JSON.stringify(findings)).not.toContain('idp.example');
  });

  it('says nothing without a .env, and warns when one cannot be read, a FIFO included', () => {
    expect(withDotenv({ A: '1' }, join(dir, 'missing'))).toEqual({ env: { A: '1' }, findings: [] });
    const unreadable = mkdtempSync(join(tmpdir(), 'dotenv-dir-'));
    try {
      // A directory named .env: Cube's reader fails on it and goes on without.
      mkdirSync(join(unreadable, '.env'));
      expect(withDotenv({}, unreadable).findings).toEqual([
        {
          status: 'warn',
          message: expect.stringMatching(
            /\.env is a directory, not a regular file: a \.env file is a regular file, or a symlink to one; it is not read$/,
          ),
        },
      ]);
      // A FIFO would block a plain read for good: it is refused by its type, before anything is read.
      rmSync(join(unreadable, '.env'), { recursive: true });
      execFileSync('mkfifo', [join(unreadable, '.env')]);
      expect(withDotenv({ A: '1' }, unreadable)).toEqual({
        env: { A: '1' },
        findings: [
          { status: 'warn', message: expect.stringMatching(/\.env is a FIFO \(named pipe\), not a regular file/) },
        ],
      });
    } finally {
      rmSync(unreadable, { recursive: true, force: true });
    }
  });
});

describe('cube-dual-auth doctor with a .env in the Cube project', () => {
  const SECRET = randomSecret(32);
  let project: string;
  let sound: Record<string, string>;
  keySetDeploymentPerFile(SECRET, (deployment) => {
    sound = { ...deployment.env, CUBEJS_JWT_AUDIENCE: 'cube-api', CUBEJS_JWT_ISSUER: 'https://idp.example/' };
  });
  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'doctor-dotenv-'));
    gatewayIn(project, 'module.exports = {};\n');
    cubeJsIn(project, RECOMMENDED_CUBE_JS);
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  const dotenv = (vars: Record<string, string>): void =>
    writeFileSync(
      join(project, '.env'),
      Object.entries(vars)
        .map(([name, value]) => `${name}=${value}`)
        .join('\n'),
    );
  const doctor = async (env: Record<string, string>) => {
    const result = await runCli(['doctor', '--json'], { env, cwd: project, secrets: [SECRET] });
    return { result, json: jsonOf<DoctorJson>(result) };
  };
  const statusOf = (json: DoctorJson, id: string) => json.checks.find((c) => c.id === id)?.status;

  it('with the variables only in .env: reads them as Cube does, cube.js loads with them, and no value is printed', async () => {
    dotenv(sound);
    const { result, json } = await doctor({});
    expect(result.code).toBe(0);
    expect(json.checks[0]).toEqual({
      id: 'dotenv',
      status: 'ok',
      message: `${join(project, '.env')} read, as Cube reads it: CUBEJS_API_SECRET, CUBEJS_JWK_URL, CUBEJS_JWT_AUDIENCE, CUBEJS_JWT_ISSUER from it, the rest from the environment`,
    });
    for (const id of ['configuration', 'api-secret', 'jwks-keys', 'audience', 'issuer', 'cube-js'])
      expect(statusOf(json, id)).toBe('ok');
    // Names only: the secret is checked by runCli; no other value of .env is in the line either.
    expect(json.checks[0]?.message).not.toMatch(/cube-api|idp\.example|127\.0\.0\.1/);
  });

  it('with the variables only in the environment: no .env line, the same verdict', async () => {
    rmSync(join(project, '.env'), { force: true });
    const { result, json } = await doctor(sound);
    expect(result.code).toBe(0);
    expect(json.checks.some((c) => c.id === 'dotenv')).toBe(false);
    expect(statusOf(json, 'cube-js')).toBe('ok');
  });

  it('with a variable in both, of different values: one line for it, and the environment’s value in force', async () => {
    dotenv(sound);
    const { json } = await doctor({ ...sound, CUBEJS_JWT_AUDIENCE: 'other-api' });
    const lines = json.checks.filter((c) => c.id === 'dotenv');
    expect(lines.map((c) => c.message)).toEqual([
      `${join(project, '.env')} read: it sets no variable the environment lacks`,
      `CUBEJS_JWT_AUDIENCE is set both in the environment and in ${join(project, '.env')}, with different values: the environment's is in force, as in Cube`,
    ]);
    expect(json.checks.find((c) => c.id === 'audience')?.message).toBe('CUBEJS_JWT_AUDIENCE: "other-api"');
  });

  it('without the variables anywhere, cube.js fails as Cube would', async () => {
    rmSync(join(project, '.env'), { force: true });
    const { result, json } = await doctor({});
    expect(result.code).toBe(1);
    expect(statusOf(json, 'cube-js')).toBe('fail');
  });
});

describe('parseDotenv against @cubejs-backend/dotenv 9.0.2 itself, on generated .env texts', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const cube = require('@cubejs-backend/dotenv') as { parse(text: string, options: object): Record<string, string> };
  const PIECES = [
    'NAME',
    'CUBEJS_API_SECRET',
    'A.B-C',
    'export ',
    '#',
    ' # c',
    '=',
    '==',
    '"',
    "'",
    '`',
    '\\n',
    ' ',
    '\t',
    '\n',
    '\r\n',
    '\r',
    '\uFEFF',
    'value',
    'x y',
    '""',
    "''",
    '"a"',
    "'b'",
    '"multi',
    "line'",
    'é',
    '\u2028',
    '$X',
  ];
  /** A small deterministic generator (xorshift), so that a failure names a reproducible input. */
  function generator(seed: number): () => number {
    let state = seed >>> 0 || 1;
    return () => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return (state >>> 0) / 0x1_0000_0000;
    };
  }
  function text(random: () => number): string {
    const lines: string[] = [];
    const count = 1 + Math.floor(random() * 5);
    for (let l = 0; l < count; l++) {
      let line = random() < 0.2 ? 'export ' : '';
      line += random() < 0.5 ? 'NAME' : (PIECES[Math.floor(random() * 3)] as string);
      line += random() < 0.9 ? (random() < 0.5 ? '=' : ' = ') : '';
      const parts = Math.floor(random() * 4);
      for (let p = 0; p < parts; p++) line += PIECES[Math.floor(random() * PIECES.length)] as string;
      lines.push(line);
    }
    const eol = ['\n', '\r\n', '\r'][Math.floor(random() * 3)] as string;
    return (random() < 0.05 ? '\uFEFF' : '') + lines.join(eol);
  }

  it('gives the same variables and values on 100,000 texts: quotes, export, #, multiline, BOM, CRLF, duplicates, lone quotes', () => {
    const random = generator(49);
    const differing: string[] = [];
    for (let i = 0; i < 100_000 && differing.length < 5; i++) {
      const input = text(random);
      const ours = Object.fromEntries(parseDotenv(input).values);
      const theirs = { ...cube.parse(input, { multiline: 'line-breaks' }) };
      if (JSON.stringify(ours) !== JSON.stringify(theirs)) differing.push(JSON.stringify(input));
    }
    expect(differing).toEqual([]);
  });

  it('reads a value that is one quote character as that character, as Cube does', () => {
    for (const quote of ['"', "'"]) {
      const input = `CUBE_DUAL_AUTH_SECRETS_DIR=${quote}\nCUBEJS_SQL_PASSWORD=${quote}\n`;
      expect(Object.fromEntries(parseDotenv(input).values)).toEqual({
        ...cube.parse(input, { multiline: 'line-breaks' }),
      });
      expect(parseDotenv(input).values.get('CUBEJS_SQL_PASSWORD')).toBe(quote);
    }
  });
});
