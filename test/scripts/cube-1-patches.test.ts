// The preload that lets Cube 1.x run without its native binary: it replaces exactly what it says, and refuses to
// start a Cube whose files moved. Its effect on a real Cube 1.7.43 is what test/integration/cube-1.integration.test.ts runs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratchDirs } from '../support/scratch';

const require = createRequire(import.meta.url);
const { applyPatches, getFinalQueryResult } = require('../../scripts/lib/cube-1-patches.cjs') as {
  applyPatches(projectDir: string): string[];
  getFinalQueryResult(transformData: object, rows: Buffer, resultData: object): Promise<Buffer>;
};

const CUBE_FILES: Record<string, string> = {
  '@cubejs-backend/api-gateway/dist/src/gateway.js':
    'class ApiGateway { createSQLServerInstance() { throw new Error("native"); } }\nexports.ApiGateway = ApiGateway;',
  '@cubejs-backend/schema-compiler/dist/src/compiler/YamlCompiler.js':
    'class YamlCompiler { initFromPythonContext() { throw new Error("native"); } }\nexports.YamlCompiler = YamlCompiler;',
  '@cubejs-backend/native/dist/js/index.js': 'exports.getFinalQueryResult = () => { throw new Error("native"); };',
};

const projectDir = scratchDirs('cube-1-patches-');

/** A project directory holding Cube's files as given (undefined leaves a file out). */
function cubeProject(files: Record<string, string | undefined>): string {
  const dir = projectDir();
  for (const [path, content] of Object.entries(files)) {
    if (content === undefined) continue;
    const file = join(dir, 'node_modules', path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return dir;
}

describe('applyPatches', () => {
  it('replaces the SQL API server, the Jinja initialisation and the result serialiser, and says so', () => {
    const dir = cubeProject(CUBE_FILES);
    expect(applyPatches(dir)).toEqual([
      '@cubejs-backend/api-gateway/dist/src/gateway.js: ApiGateway.prototype.createSQLServerInstance',
      '@cubejs-backend/schema-compiler/dist/src/compiler/YamlCompiler.js: YamlCompiler.prototype.initFromPythonContext',
      '@cubejs-backend/native/dist/js/index.js: export "getFinalQueryResult"',
    ]);
    const requireFromProject = createRequire(join(dir, 'cube.js'));
    const { ApiGateway } = requireFromProject('@cubejs-backend/api-gateway/dist/src/gateway.js');
    const sqlServer = new ApiGateway().createSQLServerInstance();
    expect(() => sqlServer.init({})).toThrow(
      /The SQL API needs @cubejs-backend\/native, which this test setup replaces/,
    );
    const { YamlCompiler } = requireFromProject('@cubejs-backend/schema-compiler/dist/src/compiler/YamlCompiler.js');
    expect(new YamlCompiler().initFromPythonContext({})).toBeUndefined();
  });

  it('fails loudly, naming the file and the export, when a Cube version moved what it replaces', () => {
    const renamed = cubeProject({
      ...CUBE_FILES,
      '@cubejs-backend/native/dist/js/index.js': 'exports.getFinalResult = () => {};',
    });
    expect(() => applyPatches(renamed)).toThrow(
      'cube-1-preload: export "getFinalQueryResult" in @cubejs-backend/native/dist/js/index.js is missing; this Cube version moved what the preload replaces, update scripts/lib/cube-1-patches.cjs',
    );
    const moved = cubeProject({
      ...CUBE_FILES,
      '@cubejs-backend/schema-compiler/dist/src/compiler/YamlCompiler.js': undefined,
    });
    expect(() => applyPatches(moved)).toThrow(
      /the file @cubejs-backend\/schema-compiler\/dist\/src\/compiler\/YamlCompiler\.js is not found from /,
    );
    const notAMethod = cubeProject({
      ...CUBE_FILES,
      '@cubejs-backend/api-gateway/dist/src/gateway.js': 'exports.ApiGateway = class {};',
    });
    expect(() => applyPatches(notAMethod)).toThrow(
      /ApiGateway\.prototype\.createSQLServerInstance in @cubejs-backend\/api-gateway\/dist\/src\/gateway\.js is not a function/,
    );
  });
});

describe('getFinalQueryResult in JavaScript', () => {
  const transformData = {
    aliasToMemberNameMap: {
      orders__tenant: 'orders.tenant',
      orders__count: 'orders.count',
      orders__created_at_month: 'orders.created_at.month',
    },
    annotation: {
      'orders.tenant': { type: 'string' },
      'orders.count': { type: 'number' },
      'orders.created_at.month': { type: 'time' },
    },
    query: { dimensions: ['orders.tenant'] },
    queryType: 'regularQuery',
  };
  const rows = Buffer.from(
    JSON.stringify({
      members: ['orders__tenant', 'orders__count', 'orders__created_at_month'],
      columns: [
        ['acme', 'globex'],
        [4, 3],
        ['2024-01-01 00:00:00', null],
      ],
    }),
  );

  it('answers the rows by member name inside the result object, time dimensions also under their name without granularity', async () => {
    const answer = JSON.parse(
      (await getFinalQueryResult(transformData, rows, { query: { limit: 1 }, dbType: 'sqlite' })).toString(),
    );
    expect(answer).toEqual({
      query: { limit: 1 },
      dbType: 'sqlite',
      data: [
        {
          'orders.tenant': 'acme',
          'orders.count': 4,
          'orders.created_at.month': '2024-01-01T00:00:00.000',
          'orders.created_at': '2024-01-01T00:00:00.000',
        },
        { 'orders.tenant': 'globex', 'orders.count': 3, 'orders.created_at.month': null, 'orders.created_at': null },
      ],
    });
  });

  it('refuses what it does not implement, saying so', async () => {
    await expect(
      getFinalQueryResult({ ...transformData, queryType: 'compareDateRangeQuery' }, rows, {}),
    ).rejects.toThrow(/only regular queries in the default result format are served \(got compareDateRangeQuery/);
    await expect(getFinalQueryResult({ ...transformData, resType: 'compact' }, rows, {})).rejects.toThrow(
      /got regularQuery, compact/,
    );
  });
});
