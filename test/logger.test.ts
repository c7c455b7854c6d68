import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { signToken } from './support/tokens';

const TOKEN = signToken({ sub: 'u-1' }, { alg: 'HS256', key: 'k'.repeat(32) });

/** A Cube project whose logger module records what it is asked to make and to write (in `globalThis.cubeLog`). */
function cubeProject(loggerSource: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cda-logger-')));
  const core = join(dir, 'node_modules/@cubejs-backend/server-core/dist/src/core');
  mkdirSync(core, { recursive: true });
  writeFileSync(
    join(dir, 'node_modules/@cubejs-backend/server-core/package.json'),
    '{"name": "@cubejs-backend/server-core", "version": "0.0.0"}',
  );
  writeFileSync(join(core, 'logger.js'), loggerSource);
  writeFileSync(join(dir, 'package.json'), '{}');
  return dir;
}

/** Cube 1.x's logger module: createLogger(production, level). */
const CUBE_1 = `const log = (globalThis.cubeLog ??= []);
exports.createLogger = (production, level = 'info') => (message, params) => log.push({ made: { production, level }, message, params });`;
/** Cube 0.33's: devLogger(level) or prodLogger(level), chosen by NODE_ENV. */
const CUBE_033 = `const log = (globalThis.cubeLog ??= []);
exports.devLogger = (level) => (message, params) => log.push({ made: { dev: level }, message, params });
exports.prodLogger = (level) => (message, params) => log.push({ made: { prod: level }, message, params });`;

const written = () => (globalThis as { cubeLog?: unknown[] }).cubeLog ?? [];
let dirs: string[] = [];

async function freshLogger(project?: string) {
  if (project !== undefined) vi.spyOn(process, 'cwd').mockReturnValue(project);
  vi.resetModules();
  return (await import('../src/logger')).logger;
}

beforeEach(() => {
  delete (globalThis as { cubeLog?: unknown[] }).cubeLog;
  vi.stubEnv('CUBEJS_LOG_LEVEL', '');
  vi.stubEnv('NODE_ENV', 'development');
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  // The logger prefers a Cube logger module already loaded (the running Cube's): forget the fake ones.
  const { cache } = createRequire(import.meta.url);
  for (const dir of dirs) {
    for (const file of Object.keys(cache)) if (file.startsWith(dir)) delete cache[file];
    rmSync(dir, { recursive: true, force: true });
  }
  dirs = [];
});

describe('logger: what Cube writes, tokens masked', () => {
  it("writes through Cube 1.x's own default logger, made as Cube makes it, with every token masked", async () => {
    const project = cubeProject(CUBE_1);
    dirs.push(project);
    vi.stubEnv('NODE_ENV', 'production');
    vi.stubEnv('CUBEJS_LOG_LEVEL', 'trace');
    const logger = await freshLogger(project);
    const error = new TypeError(`bad token ${TOKEN}`);
    const params = {
      requestId: 'r-1',
      query: { filters: [{ member: 'orders.token', operator: 'equals', values: [TOKEN, 'plain'] }] },
      authorization: `Bearer ${TOKEN}`,
      error,
      duration: 12,
    };
    logger(`Token ${TOKEN} seen`, params);
    expect(written()).toEqual([
      {
        made: { production: true, level: 'trace' },
        message: 'Token [token] seen',
        params: {
          requestId: 'r-1',
          query: { filters: [{ member: 'orders.token', operator: 'equals', values: ['[token]', 'plain'] }] },
          authorization: 'Bearer [token]',
          error: expect.any(TypeError),
          duration: 12,
        },
      },
    ]);
    const [{ params: logged }] = written() as [{ params: { error: TypeError } }];
    expect(logged.error.message).toBe('bad token [token]');
    expect(logged.error.stack).not.toContain(TOKEN);
    // What the caller passed is left as it was.
    expect(params.authorization).toBe(`Bearer ${TOKEN}`);
    expect(error.message).toContain(TOKEN);
  });

  it('keeps an own "__proto__" member of a logged object (a query parsed from JSON) a member, masked, never the prototype', async () => {
    const project = cubeProject(CUBE_1);
    dirs.push(project);
    const logger = await freshLogger(project);
    const query = JSON.parse(`{"__proto__": {"polluted": "${TOKEN}"}, "measures": ["orders.count"]}`) as Record<
      string,
      unknown
    >;
    logger('Load Request', { query });
    const [{ params }] = written() as [{ params: { query: Record<string, unknown> } }];
    expect(Object.getPrototypeOf(params.query)).toBe(Object.prototype);
    expect(Object.hasOwn(params.query, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(params.query, '__proto__')?.value).toEqual({ polluted: '[token]' });
    expect(params.query.measures).toEqual(['orders.count']);
    expect((params.query as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("uses the line's own default level when CUBEJS_LOG_LEVEL is unset", async () => {
    const project = cubeProject(CUBE_1);
    dirs.push(project);
    (await freshLogger(project))('Performing query', {});
    expect(written()).toEqual([
      { made: { production: false, level: 'info' }, message: 'Performing query', params: {} },
    ]);
  });

  it("chooses Cube 0.33's devLogger or prodLogger by NODE_ENV, as 0.33 does", async () => {
    const project = cubeProject(CUBE_033);
    dirs.push(project);
    (await freshLogger(project))('a', {});
    vi.stubEnv('NODE_ENV', 'production');
    vi.stubEnv('CUBEJS_LOG_LEVEL', 'warn');
    (await freshLogger(project))('b', {});
    expect(written()).toEqual([
      { made: { dev: undefined }, message: 'a', params: {} },
      { made: { prod: 'warn' }, message: 'b', params: {} },
    ]);
  });

  it('passes params that hold no token on as they are, and masks a token wherever it sits', async () => {
    const project = cubeProject(CUBE_1);
    dirs.push(project);
    const logger = await freshLogger(project);
    class Opaque {
      readonly token = TOKEN;
    }
    const opaque = new Opaque();
    const clean = {
      requestId: 'r-1',
      query: { measures: ['orders.count'], filters: [{ values: ['acme', 1, null] }] },
      opaque,
      error: new Error('no such member'),
    };
    const cycle: Record<string, unknown> = { token: TOKEN };
    cycle.self = cycle;
    let deep: Record<string, unknown> = { token: TOKEN };
    for (let i = 0; i < 100; i++) deep = { deep };
    const errorWithMember = Object.assign(new Error('plain'), { detail: [TOKEN] });
    const withoutPrototype = Object.assign(Object.create(null) as Record<string, unknown>, { token: TOKEN });
    const holding = { nested: { list: [[{ token: TOKEN }]] }, errorWithMember, withoutPrototype, cycle, deep };

    logger('Clean', clean);
    logger('Holding', holding);
    const [{ params: passed }, { params: logged }] = written() as [{ params: unknown }, { params: typeof holding }];
    expect(passed).toBe(clean);
    // The token of a class instance stays, as masking leaves such objects as they are.
    expect(clean.opaque.token).toBe(TOKEN);
    expect(logged.nested).toEqual({ list: [[{ token: '[token]' }]] });
    expect((logged.errorWithMember as unknown as { detail: unknown }).detail).toEqual(['[token]']);
    expect(logged.withoutPrototype['token']).toBe('[token]');
    expect(logged.cycle['token']).toBe('[token]');
    expect(logged.cycle['self']).toBe(logged.cycle);
    expect(JSON.stringify(logged.deep)).not.toContain(TOKEN);
    expect(JSON.stringify(logged.deep)).toContain('[token]');
  });

  it("outside Cube writes the JSON line of Cube's production logger; a cycle is copied, not followed forever", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'cda-logger-'));
    dirs.push(elsewhere);
    const lines = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const params: Record<string, unknown> = { token: TOKEN };
    params.self = params;
    const logger = await freshLogger(elsewhere);
    logger('Cycle', { list: [TOKEN, 1, null] });
    expect(() => logger('Cycle', params)).toThrow(TypeError); // JSON.stringify of a cycle, as Cube's own would
    expect(lines.mock.calls[0]).toEqual([JSON.stringify({ message: 'Cycle', list: ['[token]', 1, null] })]);
  });
});
