// Installing without the npm registry, as the README offers: from a git URL and from a folder (a checkout). npm runs
// the package's `prepare` script for both (for a git URL, after installing its devDependencies in a clone of its
// own), which builds dist/. Each install is a real `npm install` into a scratch project; what it gives is then used
// as a user's code uses it: require(), import, the types, the service entry and the bin.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnosticsOf, messageOf } from '../support/typescript';

const root = join(__dirname, '../..');
const { version, files } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  files: string[];
};
/** What an installed copy of the package holds at its top: what package.json's `files` names, and package.json. */
const SHIPPED = [...files, 'package.json'].sort();
// A git install runs `npm install` of every devDependency before `prepare`: about half a minute with a warm npm cache.
const INSTALL_TIMEOUT_MS = 10 * 60_000;

/** Runs a command to completion and resolves with its stdout; rejects with the end of its output when it fails. */
function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = userEnvironment(),
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd, env, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`${command} ${args.join(' ')} failed in ${cwd}: ${error.message}\n${stderr.slice(-3000)}`));
        else resolve(stdout);
      },
    );
  });
}

/**
 * The environment of a user's shell: without what `npm test` sets for its scripts (npm_config_*, npm_lifecycle_*,
 * INIT_CWD), without vitest's NODE_ENV, and without Cube's and the hook's settings of the shell running the tests.
 */
function userEnvironment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(
    ([name]) => !/^(npm_|INIT_CWD$|NODE_ENV$|CUBEJS_|CUBE_DUAL_AUTH_)/i.test(name),
  );
  return { ...Object.fromEntries(inherited), ...extra };
}

/** A deployment's environment: reading the root's `checkAuth` checks it, as Cube does when it loads cube.js. */
const CONFIGURED = { CUBEJS_API_SECRET: randomBytes(32).toString('hex') };

/**
 * A scratch project as `npm init` leaves one, approving the install scripts of `source` (npm ≥ 11.19 runs a
 * dependency's `prepare` only with a notice unless its `allowScripts` names it, and not at all under
 * --strict-allow-scripts, which the installs here use to show that the README's entry is the one npm wants).
 */
function scratchProject(dir: string, source: string): string {
  mkdirSync(dir, { recursive: true });
  const manifest = { name: 'scratch', version: '1.0.0', private: true, allowScripts: { [source]: true } };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return dir;
}

const NPM_INSTALL = ['install', '--no-audit', '--no-fund', '--strict-allow-scripts'];

/** Runs `source` as an ES module with Node in the scratch project, with a deployment's environment; its JSON output. */
async function evaluate(project: string, source: string): Promise<unknown> {
  return JSON.parse(
    await run(process.execPath, ['--input-type=module', '-e', source], project, userEnvironment(CONFIGURED)),
  );
}

/** What the hook's and the service's entries export, by require() and by import, and whether both give one instance. */
const LOAD_BOTH_WAYS = `
  import { createRequire } from 'node:module';
  const require = createRequire(process.cwd() + '/');
  const summary = async (specifier) => {
    const required = require(specifier);
    const imported = await import(specifier);
    const names = Object.keys(required).sort();
    return {
      file: require.resolve(specifier),
      functions: names.filter((name) => typeof required[name] === 'function'),
      sameInstance: imported.default === required && names.every((name) => imported[name] === required[name]),
    };
  };
  console.log(JSON.stringify({ hook: await summary('cube-dual-auth'), service: await summary('cube-dual-auth/service') }));
`;

/** A user's TypeScript using both entries; the @ts-expect-error lines fail to compile if the types were lost (any). */
const TYPED_USE = `
import { checkAuth, createCheckAuth, type CheckAuth } from 'cube-dual-auth';
import { createEmbeddableClient } from 'cube-dual-auth/service';

const hook: CheckAuth = createCheckAuth({ apiSecret: 'a-secret-of-thirty-two-characters!!' });
// @ts-expect-error apiSecret is a string (or a list of them)
createCheckAuth({ apiSecret: 42 });
const client = createEmbeddableClient({ apiKey: 'key', region: 'us' });
// @ts-expect-error the client has no such method
client.noSuchMethod();
export const used = [checkAuth, hook, client];
`;

/** The compiler's complaints about `source` as a file of the scratch project, resolved as Node resolves it (Node16). */
function typeErrors(project: string, fileName: string, source: string): string[] {
  const file = join(project, fileName);
  writeFileSync(file, source);
  return diagnosticsOf(file).map((d) => `${d.file?.fileName ?? ''}: ${messageOf(d)}`);
}

/** The checks every install must pass: one `it` per way a user reaches the package. */
function usableAsInstalled(project: () => string, installedDir: () => string): void {
  it('loads by require() and by import, as one instance, for the hook and for cube-dual-auth/service', async () => {
    const loaded = (await evaluate(project(), LOAD_BOTH_WAYS)) as Record<
      'hook' | 'service',
      { file: string; functions: string[]; sameInstance: boolean }
    >;
    expect(loaded.hook.file).toBe(join(realpathSync(installedDir()), 'dist/index.js'));
    expect(loaded.hook.functions).toEqual(
      expect.arrayContaining(['checkAuth', 'createCheckAuth', 'forbidden', 'optionsFromEnv']),
    );
    expect(loaded.hook.sameInstance).toBe(true);
    expect(loaded.service.file).toBe(join(realpathSync(installedDir()), 'dist/service/index.js'));
    expect(loaded.service.functions).toContain('createEmbeddableClient');
    expect(loaded.service.sameInstance).toBe(true);
  });

  it('has types for require() (a .cts file) and for import (a .mts file) that the compiler uses', () => {
    expect(typeErrors(project(), 'use.cts', TYPED_USE)).toEqual([]);
    expect(typeErrors(project(), 'use.mts', TYPED_USE)).toEqual([]);
  });

  it('installs the cube-dual-auth bin, which runs', async () => {
    const bin = join(project(), 'node_modules/.bin/cube-dual-auth');
    expect((await run(bin, ['--version'], project())).trim()).toBe(version);
    const token = (
      await run(bin, ['token', '--claims', '{"tenant":"acme"}'], project(), userEnvironment(CONFIGURED))
    ).trim();
    expect(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())).toMatchObject({ tenant: 'acme' });
  });
}

let work: string;
/** A clone of this repository's committed HEAD: what a git URL gives, and the checkout installed as a folder. */
let clone: string;
let head: string;
let gitUrl: string;
/** Scratch projects: the package installed from the git URL, from the folder (a link), from the folder copied. */
let fromGit: string;
let linked: string;
let copied: string;

// The installs run side by side: the git one spends most of its time in npm's own `npm install` of the devDependencies.
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cube-dual-auth-install-'));
  clone = join(work, 'cube-dual-auth');
  head = (await run('git', ['rev-parse', 'HEAD'], root)).trim();
  await run('git', ['clone', '--quiet', '--no-checkout', root, clone], work);
  await run('git', ['checkout', '--quiet', '--detach', head], clone);
  gitUrl = `git+file://${clone}`;
  fromGit = scratchProject(join(work, 'from-git'), gitUrl);
  linked = scratchProject(join(work, 'from-folder'), `file:${clone}`);
  copied = scratchProject(join(work, 'from-folder-copied'), `file:${clone}`);
  await Promise.all([
    // NODE_ENV=production, as in a container build (Cube's image sets it): npm still installs the devDependencies
    // that `prepare` needs to build, in its own clone, and keeps none of them.
    run('npm', [...NPM_INSTALL, `${gitUrl}#${head}`], fromGit, userEnvironment({ NODE_ENV: 'production' })),
    (async () => {
      // `npm ci` in a checkout runs `prepare` too: dist/ is there afterwards, and the folder can be installed.
      await run('npm', ['ci', '--no-audit', '--no-fund'], clone);
      await run('npm', [...NPM_INSTALL, clone], linked);
      await run('npm', [...NPM_INSTALL, '--install-links', clone], copied);
    })(),
  ]);
}, INSTALL_TIMEOUT_MS);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('npm install git+file://… (a clone of the committed HEAD)', () => {
  it('records the commit in the lock file and installs the built package without sources, tests or devDependencies', () => {
    const lock = JSON.parse(readFileSync(join(fromGit, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string }>;
    };
    expect(lock.packages['node_modules/cube-dual-auth']?.resolved).toBe(`${gitUrl}#${head}`);
    const installed = join(fromGit, 'node_modules/cube-dual-auth');
    expect(lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(readdirSync(installed).sort()).toEqual(SHIPPED);
    expect(existsSync(join(installed, 'dist/index.js'))).toBe(true);
    for (const devDependency of ['typescript', 'vitest', 'oidc-provider'])
      expect(existsSync(join(fromGit, 'node_modules', devDependency))).toBe(false);
  });

  usableAsInstalled(
    () => fromGit,
    () => join(fromGit, 'node_modules/cube-dual-auth'),
  );
});

describe('npm install <folder> (a checkout after npm ci)', () => {
  it('builds dist/ in the checkout on npm ci', () => {
    expect(existsSync(join(clone, 'dist/index.js'))).toBe(true);
    expect(existsSync(join(clone, 'dist/cli/main.js'))).toBe(true);
  });

  describe('by default: a link to the checkout', () => {
    it('links node_modules/cube-dual-auth to the checkout', () => {
      expect(lstatSync(join(linked, 'node_modules/cube-dual-auth')).isSymbolicLink()).toBe(true);
      expect(realpathSync(join(linked, 'node_modules/cube-dual-auth'))).toBe(realpathSync(clone));
    });

    usableAsInstalled(
      () => linked,
      () => clone,
    );
  });

  describe('with --install-links: a copy of the package, as from a tarball', () => {
    it('installs a directory holding only what the package ships', () => {
      const installed = join(copied, 'node_modules/cube-dual-auth');
      expect(lstatSync(installed).isSymbolicLink()).toBe(false);
      expect(readdirSync(installed).sort()).toEqual(SHIPPED);
    });

    usableAsInstalled(
      () => copied,
      () => join(copied, 'node_modules/cube-dual-auth'),
    );
  });
});
