import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { randomSecret } from './support/claims';

const root = join(__dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** A strong secret, so that the root's `checkAuth` can be read: reading it checks the environment. */
const CONFIGURED = { CUBEJS_API_SECRET: randomSecret() };

/** The environment without any CUBEJS_ or CUBE_DUAL_AUTH_ variable of the shell running the tests, plus `vars`. */
function envWith(vars: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(CUBEJS_|CUBE_DUAL_AUTH_)/.test(name))),
    ...vars,
  };
}

function node(args: string[], vars: Record<string, string> = CONFIGURED): string {
  return execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', env: envWith(vars) });
}

/** Runs a script in a fresh process that prints one JSON line, and parses it. */
function nodeJson<T>(args: string[], vars: Record<string, string>): T {
  return JSON.parse(node(args, vars)) as T;
}

/** What a script says about what it threw: the error's class and message, or null. */
const THROWN = 'const thrown = (error) => error && { name: error.name, message: error.message };';

/** Loads `specifier` by require() and by import in a fresh process, as a user of the installed package would. */
function load(specifier: string): { same: boolean; requireExports: string[]; importExports: string[] } {
  const script = `
    const viaRequire = require(${JSON.stringify(specifier)});
    import(${JSON.stringify(specifier)}).then((viaImport) => {
      const importExports = Object.keys(viaImport).filter((k) => k !== 'default').sort();
      console.log(JSON.stringify({
        same: viaImport.default === viaRequire && importExports.every((k) => viaImport[k] === viaRequire[k]),
        requireExports: Object.keys(viaRequire).sort(),
        importExports,
      }));
    });`;
  return JSON.parse(node(['-e', script]));
}

/** Every file the exports map can resolve to, whatever the conditions. */
function exportTargets(entry: unknown): string[] {
  if (typeof entry === 'string') return [entry.replace(/^\.\//, '')];
  return Object.values(entry as Record<string, unknown>).flatMap(exportTargets);
}

let packed: string[] | undefined;
/** The files `npm pack` puts in the tarball (asked once: it takes seconds). */
function packedFiles(): string[] {
  if (!packed) {
    const [pack]: [{ files: { path: string }[] }] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
    );
    packed = pack.files.map((f) => f.path);
  }
  return packed;
}

describe('the published package', () => {
  it('is built (npm test builds first)', () => {
    expect(existsSync(join(root, 'dist/index.js')), 'dist/index.js is missing: run `npm run build`').toBe(true);
  });

  it('is the hook at its root: require() (cube.js is CommonJS) and import share one instance', () => {
    const result = load('cube-dual-auth');
    expect(result.same).toBe(true);
    expect(result.requireExports).toEqual(
      expect.arrayContaining([
        'checkAuth',
        'createCheckAuth',
        'DualAuthError',
        'DualAuthConfigError',
        'optionsFromEnv',
      ]),
    );
    expect(result.importExports).toEqual(result.requireExports);
  });

  describe('checks the environment when cube.js takes checkAuth, so a configuration that cannot work stops Cube at start', () => {
    it('require: reading checkAuth throws the DualAuthConfigError naming the variable; the rest of the root checks nothing', () => {
      const script = `${THROWN}
        const root = require('cube-dual-auth');
        const { createCheckAuth, optionsFromEnv, forbidden } = root;
        let error = null;
        try { root.checkAuth; } catch (e) { error = thrown(e); }
        console.log(JSON.stringify({ rest: [typeof createCheckAuth, typeof optionsFromEnv, typeof forbidden], error }));`;
      expect(nodeJson(['-e', script], { CUBEJS_JWK_URL: 'ftp://idp.example/jwks' })).toEqual({
        rest: ['function', 'function', 'function'],
        error: {
          name: 'DualAuthConfigError',
          message: 'cube-dual-auth: CUBEJS_JWK_URL must be an http(s) URL, not "ftp://idp.example/jwks"',
        },
      });
      expect(nodeJson<{ error: unknown }>(['-e', script], { CUBEJS_API_SECRET: 'too-short' }).error).toEqual({
        name: 'DualAuthConfigError',
        message: expect.stringMatching(
          /^cube-dual-auth: CUBEJS_API_SECRET is \d+ base64 characters, \d+ bytes: \d+ bits of key material, under 32 bytes: .*set CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET to true$/,
        ),
      });
      expect(nodeJson<{ error: unknown }>(['-e', script], {}).error).toMatchObject({
        message: expect.stringMatching(/CUBEJS_API_SECRET and CUBEJS_JWK_URL are both unset/),
      });
      expect(nodeJson<{ error: unknown }>(['-e', script], CONFIGURED).error).toBeNull();
    });

    it('import: `import { createCheckAuth }` works in an environment that configures nothing, `import { checkAuth }` too (checked on first use)', () => {
      const script = `import('cube-dual-auth').then(({ createCheckAuth, checkAuth }) => console.log(JSON.stringify([typeof createCheckAuth, typeof checkAuth])));`;
      expect(nodeJson(['-e', script], {})).toEqual(['function', 'function']);
      expect(nodeJson(['-e', script], { CUBE_DUAL_AUTH_LOG: 'all', CUBEJS_JWT_AUDIENCE: 'cube-api' })).toEqual([
        'function',
        'function',
      ]);
    });

    it('import: once the environment configures a path, a configuration that cannot work fails the import', () => {
      const script = `${THROWN}
        import('cube-dual-auth').then(() => console.log(JSON.stringify(null)), (e) => console.log(JSON.stringify(thrown(e))));`;
      expect(
        nodeJson(['-e', script], { CUBEJS_API_SECRET: randomSecret(), CUBE_DUAL_AUTH_PROVIDERS: '[{"issuer": }]' }),
      ).toEqual({
        name: 'DualAuthConfigError',
        message: expect.stringMatching(/^cube-dual-auth: CUBE_DUAL_AUTH_PROVIDERS is not valid JSON: /),
      });
      expect(
        nodeJson(['-e', script], { CUBEJS_API_SECRET: 'too-short', CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET: 'true' }),
      ).toBeNull();
    });
  });

  it("keeps the service's client out of the root, under cube-dual-auth/service (require() and import share one instance)", () => {
    const service = load('cube-dual-auth/service');
    expect(service.same).toBe(true);
    expect(service.requireExports).toEqual(
      expect.arrayContaining(['createEmbeddableClient', 'EmbeddableApiError', 'embeddableEndpoints']),
    );
    expect(service.importExports).toEqual(service.requireExports);
    expect(load('cube-dual-auth').requireExports.filter((name) => service.requireExports.includes(name))).toEqual([]);
  });

  it('packs exactly the intended files: dist, the docs, the operations files of deploy/, README, LICENSE, CHANGELOG and SECURITY', () => {
    const files = packedFiles();
    const compiled = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .flatMap((f) => {
        const base = `dist/${f.split(sep).join('/').replace(/\.ts$/, '')}`;
        return [`${base}.js`, `${base}.d.ts`];
      });
    const named = [
      ...exportTargets(manifest.exports),
      ...Object.values<string>(manifest.bin).map((f) => f.replace(/^\.\//, '')),
    ];
    const docs = readdirSync(join(root, 'docs')).map((f) => `docs/${f}`);
    const deploy = readdirSync(join(root, 'deploy'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) =>
        join(entry.parentPath, entry.name)
          .slice(root.length + 1)
          .split(sep)
          .join('/'),
      );
    const intended = [
      ...new Set([
        ...compiled,
        ...named,
        ...docs,
        ...deploy,
        'README.md',
        'LICENSE',
        'CHANGELOG.md',
        'SECURITY.md',
        'package.json',
      ]),
    ];
    expect(docs.filter((f) => !f.endsWith('.md'))).toEqual([]);
    // The operations files docs/deploying.md, docs/rotation.md and docs/metrics.md point at.
    expect(deploy).toEqual(
      expect.arrayContaining([
        'deploy/prometheus/cube-dual-auth.rules.yml',
        'deploy/prometheus/cube-dual-auth.rules.test.yml',
        'deploy/grafana/cube-dual-auth.json',
        'deploy/kubernetes/deployment.yaml',
        'deploy/kubernetes/secret.yaml',
        'deploy/kubernetes/service.yaml',
        'deploy/compose.yaml',
      ]),
    );
    expect(named).toEqual(
      expect.arrayContaining(['dist/service/index.mjs', 'dist/service/index.d.mts', 'dist/cli/main.js']),
    );
    expect([...files].sort()).toEqual(intended.sort());
    // The README's links into docs/ resolve in node_modules too.
    const linkedDocs = [
      ...readFileSync(join(root, 'README.md'), 'utf8').matchAll(/\]\((docs\/[\w.-]+\.md)(?:#[^)]*)?\)/g),
    ].map((m) => m[1] as string);
    expect(linkedDocs.length).toBeGreaterThan(0);
    expect(files).toEqual(expect.arrayContaining(linkedDocs));
  });

  it('holds no local path of the machine that packed it', () => {
    const local = [root, homedir()].filter((path) => path.length > 1);
    const leaking = packedFiles().filter((f) => {
      const text = readFileSync(join(root, f), 'utf8');
      return local.some((path) => text.includes(path));
    });
    expect(leaking).toEqual([]);
  });

  it('has no source map comment pointing at a file the package lacks', () => {
    const files = packedFiles();
    const dangling = files
      .filter((f) => /\.m?js$/.test(f))
      .flatMap((f) => {
        const map = /^\/\/# sourceMappingURL=(.+)$/m.exec(readFileSync(join(root, f), 'utf8'))?.[1];
        return map && !files.includes(join(f, '..', map)) ? [`${f} -> ${map}`] : [];
      });
    expect(dangling).toEqual([]);
  });

  it('ships a working bin', () => {
    const bin = join(root, manifest.bin['cube-dual-auth']);
    expect(execFileSync(bin, ['--help'], { cwd: root, encoding: 'utf8' })).toMatch(/^Usage: cube-dual-auth <command>/);
  });
});
