// What `npm run demo -- --keep-running` leaves for the CLI: .cache/demo.env (mode 0600) and the commands it prints.
// That those commands work against a real Cube is what the integration suites run (real-cube-scenarios.ts).
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CUBE_API_URL,
  demoCliCommands,
  demoEnvText,
  writeDemoEnv,
  writePrivateFile,
} from '../../scripts/lib/demo-env.mjs';
import { scratchDirs } from '../support/scratch';

const VARIABLES = {
  CUBEJS_API_SECRET: 'Zm9vYmFyLXNlY3JldC1vZi10aGlzLXJ1bg_-',
  CUBEJS_JWK_URL: 'http://127.0.0.1:40123/jwks',
  CUBEJS_JWT_CLAIMS_NAMESPACE: 'https://cube.example/claims',
  [CUBE_API_URL]: 'http://127.0.0.1:40124/cubejs-api/v1',
};

const tempDir = scratchDirs('demo-env-');

const modeOf = (file: string) => statSync(file).mode & 0o777;

describe('the demo environment file', () => {
  it('is written with mode 0600, in a directory it creates, as comment lines and NAME=value lines', () => {
    const file = join(tempDir(), '.cache/demo.env');
    expect(writeDemoEnv(file, VARIABLES)).toBe(file);
    expect(modeOf(file)).toBe(0o600);
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.filter((line) => line.startsWith('# '))).toHaveLength(2);
    expect(lines.filter((line) => !line.startsWith('#'))).toEqual([
      'CUBEJS_API_SECRET=Zm9vYmFyLXNlY3JldC1vZi10aGlzLXJ1bg_-',
      'CUBEJS_JWK_URL=http://127.0.0.1:40123/jwks',
      'CUBEJS_JWT_CLAIMS_NAMESPACE=https://cube.example/claims',
      'CUBE_API_URL=http://127.0.0.1:40124/cubejs-api/v1',
      '',
    ]);
  });

  it('replaces an older file readable by others with a new one of mode 0600', () => {
    const file = join(tempDir(), 'demo.env');
    writeFileSync(file, 'OLD=1\n');
    chmodSync(file, 0o644);
    writeDemoEnv(file, VARIABLES);
    expect(modeOf(file)).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toContain('OLD=1');
  });

  it('exports every variable to a POSIX shell with set -a, unchanged', () => {
    const file = writeDemoEnv(join(tempDir(), 'demo.env'), VARIABLES);
    const script = `set -a; . "$1"; set +a; exec "${process.execPath}" -e 'console.log(JSON.stringify(process.env))'`;
    const seen = JSON.parse(
      execFileSync('sh', ['-c', script, 'sh', file], { env: { PATH: process.env.PATH }, encoding: 'utf8' }),
    ) as Record<string, string>;
    expect(seen).toMatchObject(VARIABLES);
  });

  it('reads the same with node --env-file (a dotenv reader)', () => {
    const file = writeDemoEnv(join(tempDir(), 'demo.env'), VARIABLES);
    const seen = JSON.parse(
      execFileSync(process.execPath, [`--env-file=${file}`, '-e', 'console.log(JSON.stringify(process.env))'], {
        env: {},
        encoding: 'utf8',
      }),
    ) as Record<string, string>;
    expect(seen).toMatchObject(VARIABLES);
  });

  it.each([
    ['a space', 'two words'],
    ['a quote', "it's"],
    ['a dollar sign', 'pa$$word'],
    ['a line break', 'one\nCUBEJS_API_SECRET=two'],
    ['a backtick', '`id`'],
  ])('refuses a value with %s rather than write what a shell reads otherwise, without showing it', (_what, value) => {
    expect(() => demoEnvText({ CUBEJS_API_SECRET: value })).toThrow(
      /^demo\.env: the value of CUBEJS_API_SECRET has characters a shell would read differently$/,
    );
  });

  it('refuses a name that is not a variable name', () => {
    expect(() => demoEnvText({ 'NOT-A-NAME': 'x' })).toThrow('demo.env: "NOT-A-NAME" is not a variable name');
  });
});

describe('private files (the demo tokens)', () => {
  it('are written with mode 0600 whatever the umask leaves', () => {
    const file = join(tempDir(), 'a/b/service.token');
    const umask = process.umask(0o000);
    try {
      writePrivateFile(file, 'eyJ.x.y');
    } finally {
      process.umask(umask);
    }
    expect(modeOf(file)).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe('eyJ.x.y');
  });
});

describe('the CLI commands the demo prints', () => {
  it('load the file, then probe, verify both tokens and mint one, reading tokens from files only', () => {
    const commands = demoCliCommands(
      { envFile: '.cache/demo.env', serviceTokenFile: '.cache/s.token', customerTokenFile: '.cache/c.token' },
      { tenant: 'acme' },
    );
    expect(commands.filter((line) => !line.startsWith('#'))).toEqual([
      'set -a; . .cache/demo.env; set +a',
      `npx cube-dual-auth probe "$CUBE_API_URL" --claims '{"tenant":"acme"}' --token-file .cache/c.token`,
      'npx cube-dual-auth verify - --origin < .cache/s.token',
      'npx cube-dual-auth verify - < .cache/c.token',
      `npx cube-dual-auth token --claims '{"tenant":"acme"}'`,
    ]);
  });
});
