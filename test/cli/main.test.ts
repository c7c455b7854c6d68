/**
 * The built bin as a user runs it (`node dist/cli/main.js`): what only a real process shows, its exit
 * status, that it exits at all, and which modules it loads. What each command does is tested
 * in-process (test/cli/commands/verify.test.ts, doctor.test.ts, ...).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  CLI,
  jsonOf,
  keySetDeploymentPerFile,
  runBin,
  runBinThroughHead,
  type CliOptions,
  type CliResult,
} from '../support/cli';
import { randomSecret, timed } from '../support/claims';
import type { TestKeyPair } from '../support/keys';
import { signToken } from '../support/tokens';

const SECRET = randomSecret(32);
let key: TestKeyPair;
let env: Record<string, string>;
keySetDeploymentPerFile(SECRET, (deployment) => ({ key, env } = deployment));

/** Runs the bin and checks that neither the secret nor a whole token reached its output. */
async function bin(args: string[], tokens: string[] = [], options: CliOptions = {}): Promise<CliResult> {
  return runBin(args, { env, ...options, secrets: [SECRET, ...tokens] });
}

describe('cube-dual-auth, the built bin', () => {
  it('prints the overview with --help, exit 0', async () => {
    const result = await bin(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: cube-dual-auth <command>/);
    for (const name of ['verify', 'doctor', 'token', 'provider', 'versions', 'security-token'])
      expect(result.stdout).toContain(`  ${name} `);
  });

  it('exits 0 on an accepted token, as soon as the answer is printed (the key store is closed)', async () => {
    const token = signToken(timed({ sub: 'user-1' }), { key });
    const result = await bin(['verify', token, '--json'], [token]);
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toMatchObject({ accepted: true, path: 'key-set' });
    // It exits once it has answered; a leftover JWKS socket or timer would hold it for seconds after its last word.
    expect(result.ms - result.outputEndMs!).toBeLessThan(1_000 + result.lateMs);
  });

  it('exits 1 on a refused token', async () => {
    const token = signToken(timed({}), { alg: 'HS256', key: SECRET });
    const result = await bin(['verify', token], [token]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^Verdict {2}REJECTED ERR_ALG_NOT_ALLOWED/m);
  });

  it('exits 2 on a wrong command line, pointing to --help', async () => {
    const result = await bin(['verify', '--bogus', 'x']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^cube-dual-auth verify: Unknown option '--bogus'/);
    expect(result.stderr).toMatch(/\nRun 'cube-dual-auth verify --help' for usage\.\n$/);
  });
});

describe('cube-dual-auth piped into a reader that stops early (| head -1)', () => {
  it('ends quietly, without a stack trace, with the exit status the command has (doctor: 0)', async () => {
    // An audience and an issuer of 100 000 characters each make doctor print over 200 KB: more than the pipe holds.
    const long = {
      CUBEJS_JWT_AUDIENCE: 'a'.repeat(100_000),
      CUBEJS_JWT_ISSUER: 'https://idp.example/'.padEnd(100_000, 'i'),
    };
    const result = await runBinThroughHead(['doctor'], { env: { ...env, ...long } });
    expect(result.stdout).toMatch(/^ {2}OK {4}configuration {2}the checkAuth hook accepts this environment\n/);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});

describe('cube-dual-auth, finished: version, help, suggestions, colour (as a process)', () => {
  const { version } = JSON.parse(readFileSync(join(dirname(dirname(dirname(CLI))), 'package.json'), 'utf8')) as {
    version: string;
  };

  it.each([['--version'], ['-v']])('%s prints the version of the package, exit 0', async (flag) => {
    expect(await bin([flag])).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it.each([
    ['versions', '--help'],
    ['provider', 'list', '--help'],
    ['versions', 'publish', '-h'],
    ['token', '-h'],
  ])('%s %s %s prints the help, exit 0', async (...args) => {
    const result = await bin(args);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(new RegExp(`^Usage: cube-dual-auth ${args[0]} `));
  });

  it('a misspelt command: did you mean, exit 2', async () => {
    const result = await bin(['verfy', 'x']);
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `cube-dual-auth: unknown command "verfy"; did you mean "verify"?\nRun 'cube-dual-auth --help' for the commands.\n`,
    });
  });

  it('a misspelt action: did you mean, exit 2', async () => {
    const result = await bin(['versions', 'promte', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('got "promte"; did you mean "promote"?');
  });

  /** verify's verdict line: red when coloured. */
  async function verdictOf(extra: Record<string, string>): Promise<string> {
    const result = await bin(['verify', 'not-a-token'], [], { env: { ...env, ...extra } });
    expect(result.code).toBe(1);
    return result.stdout.split('\n').find((line) => line.includes('Verdict')) ?? '';
  }

  it('colours a pipe with FORCE_COLOR, not with FORCE_COLOR=0, NO_COLOR or by default', async () => {
    expect(await verdictOf({ FORCE_COLOR: '1' })).toContain('\x1b[31mREJECTED\x1b[0m');
    expect(await verdictOf({ FORCE_COLOR: '1', NO_COLOR: '1' })).toContain('\x1b[31mREJECTED');
    const plainEnvironments: Array<Record<string, string>> = [
      {},
      { FORCE_COLOR: '0' },
      { FORCE_COLOR: 'false' },
      { NO_COLOR: '1' },
    ];
    for (const plain of plainEnvironments) {
      expect(await verdictOf(plain)).toMatch(/^Verdict {2}REJECTED ERR_TOKEN_MALFORMED/);
    }
  });
});

describe('cube-dual-auth loads a command only when it is used', () => {
  const dist = dirname(dirname(CLI));

  /** The package's own modules (relative to dist/) and its dependencies loaded once `run(argv)` is done. */
  async function loadedBy(argv: readonly string[]): Promise<string[]> {
    const script = `
      const { Readable, Writable } = require('node:stream');
      const { run } = require(${JSON.stringify(join(dist, 'cli/run.js'))});
      const sink = () => new Writable({ write: (_chunk, _encoding, done) => done() });
      const io = { stdout: sink(), stderr: sink(), stdin: Readable.from([]), env: {}, cwd: process.cwd() };
      run(${JSON.stringify(argv)}, io).then(() => console.log(JSON.stringify(Object.keys(require.cache))));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script]);
    const files = JSON.parse(stdout) as string[];
    return files.flatMap((file) => {
      if (file.startsWith(`${dist}/`)) return [file.slice(dist.length + 1)];
      const dependency = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
      return dependency?.[1] === undefined ? [] : [dependency[1]];
    });
  }

  it('the overview loads no command module, so neither the hook nor the service client', async () => {
    const loaded = await loadedBy(['--help']);
    expect(loaded).toContain('cli/registry.js');
    expect(loaded.filter((file) => file.startsWith('cli/commands/'))).toEqual([]);
    expect(loaded).not.toContain('check-auth.js');
    expect(loaded.filter((file) => file.startsWith('service/'))).toEqual([]);
    // No dependency either: jsonwebtoken and jwks-rsa come with the commands.
    expect(loaded.filter((file) => !file.endsWith('.js'))).toEqual([]);
  });

  it("a command's --help loads that command's module and what it uses, not the others'", async () => {
    const loaded = await loadedBy(['versions', '--help']);
    expect(loaded.filter((file) => file.startsWith('cli/commands/'))).toEqual(['cli/commands/versions.js']);
    expect(loaded).toContain('service/index.js');
    expect(loaded).not.toContain('check-auth.js');
    expect(loaded).not.toContain('jwks-rsa');
  });
});
