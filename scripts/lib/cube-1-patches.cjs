// What scripts/lib/cube-1-preload.cjs replaces in Cube 1.x, and how; see there for why.
'use strict';

/** What the preload replaces, by module (resolved from the Cube project) and export. */
const PATCHES = [
  {
    module: '@cubejs-backend/api-gateway/dist/src/gateway.js',
    export: 'ApiGateway',
    member: 'prototype.createSQLServerInstance',
    replace: () =>
      function createSQLServerInstance() {
        return inertSqlServer();
      },
  },
  {
    module: '@cubejs-backend/schema-compiler/dist/src/compiler/YamlCompiler.js',
    export: 'YamlCompiler',
    member: 'prototype.initFromPythonContext',
    replace: () =>
      function initFromPythonContext() {
        // No Jinja engine: a Jinja template would fail to render, which the example has none of.
      },
  },
  {
    module: '@cubejs-backend/native/dist/js/index.js',
    export: 'getFinalQueryResult',
    replace: () => getFinalQueryResult,
  },
];

/** Thrown when the installed Cube does not have what the preload replaces: the preload must be updated. */
class CubeLayoutChanged extends Error {
  constructor(problem) {
    super(
      `cube-1-preload: ${problem}; this Cube version moved what the preload replaces, update scripts/lib/cube-1-patches.cjs`,
    );
    this.name = 'CubeLayoutChanged';
  }
}

/**
 * Applies every patch to the Cube installed in `projectDir`. Returns what was replaced, for the record.
 * @param {string} projectDir  the directory whose node_modules holds Cube
 */
function applyPatches(projectDir) {
  return PATCHES.map((patch) => {
    const file = resolveIn(projectDir, patch.module);
    const exports = require(file);
    const what = patch.member ? `${patch.export}.${patch.member}` : `export "${patch.export}"`;
    if (!(patch.export in exports))
      throw new CubeLayoutChanged(`export "${patch.export}" in ${patch.module} is missing`);
    const path = patch.member ? patch.member.split('.') : [];
    let owner = patch.member ? exports[patch.export] : exports;
    for (const step of path.slice(0, -1)) owner = owner?.[step];
    const name = path.at(-1) ?? patch.export;
    if (typeof owner?.[name] !== 'function')
      throw new CubeLayoutChanged(`${what} in ${patch.module} is not a function`);
    const descriptor = Object.getOwnPropertyDescriptor(owner, name);
    if (descriptor && !descriptor.writable && !descriptor.set)
      throw new CubeLayoutChanged(`${what} in ${patch.module} cannot be replaced`);
    owner[name] = patch.replace();
    return `${patch.module}: ${what}`;
  });
}

function resolveIn(projectDir, request) {
  try {
    return require.resolve(request, { paths: [projectDir] });
  } catch {
    throw new CubeLayoutChanged(`the file ${request} is not found from ${projectDir}`);
  }
}

function inertSqlServer() {
  const unavailable = () => {
    throw new Error(
      'The SQL API needs @cubejs-backend/native, which this test setup replaces (scripts/lib/cube-1-preload.cjs)',
    );
  };
  return {
    init: unavailable,
    execSql: unavailable,
    sql4sql: unavailable,
    rest4sql: unavailable,
    getNativeGatewayPort: unavailable,
    shutdown: async () => {},
    close: async () => {},
  };
}

const REGULAR_QUERY = 'regularQuery';

/**
 * What the binary answers for one query: the result object with `data` holding one row per database row, each keyed
 * by member name (the SQL aliases mapped back through `aliasToMemberNameMap`), time values as Cube formats them,
 * and a time dimension with a granularity also under its name without it. Resolves to the JSON bytes.
 * @param {object} transformData  what the gateway prepared: aliasToMemberNameMap, annotation, query, queryType, resType
 * @param {Buffer} rows  the rows, as the columnar JSON the gateway hands the binary ({ members, columns })
 * @param {object} resultData  the rest of the answer (query, annotation, dataSource...)
 */
async function getFinalQueryResult(transformData, rows, resultData) {
  const { aliasToMemberNameMap, annotation, query, queryType, resType } = transformData;
  if (queryType !== REGULAR_QUERY || (resType !== undefined && resType !== 'default')) {
    throw new Error(
      `cube-1-preload: only regular queries in the default result format are served (got ${queryType}, ${resType})`,
    );
  }
  if (!Buffer.isBuffer(rows))
    throw new Error('cube-1-preload: rows from Cube Store (a native reference) cannot be read without the binary');
  const { members, columns } = JSON.parse(rows.toString('utf8'));
  const count = columns[0]?.length ?? 0;
  const data = [];
  for (let i = 0; i < count; i++) {
    const row = {};
    members.forEach((alias, j) => {
      const member = aliasToMemberNameMap[alias];
      const type = annotation[member]?.type;
      if (type === undefined) throw new Error(`cube-1-preload: no annotation for "${member}" (alias "${alias}")`);
      const value = formatValue(columns[j][i], type);
      row[member] = value;
      const [cube, name, granularity] = member.split('.');
      if (granularity !== undefined && !(query.dimensions ?? []).includes(`${cube}.${name}`))
        row[`${cube}.${name}`] = value;
    });
    data.push(row);
  }
  return Buffer.from(JSON.stringify({ ...resultData, data }));
}

/** Time values as Cube answers them: local ISO time with milliseconds and no zone ("2024-01-03T00:00:00.000"). */
function formatValue(value, type) {
  if (type !== 'time' || value === null || value === undefined || value === '') return value;
  const date = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(String(value)) ? value : `${value}Z`);
  return Number.isNaN(date.getTime()) ? value : date.toISOString().slice(0, 23);
}

module.exports = { applyPatches, getFinalQueryResult, PATCHES };
