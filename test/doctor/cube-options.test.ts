import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CubeJsExport, CubeJsReading } from '../../src/doctor/cube-js';
import { cubeOptionsFinding } from '../../src/doctor/cube-options';
import { readDataModel, type DataModelReading } from '../../src/doctor/data-model';

const FILE = '/srv/cube/cube.js';
const loaded = (...exports: CubeJsExport[]): CubeJsReading => ({ kind: 'loaded', file: FILE, exports });
const own = (name: string): CubeJsExport => ({ name, function: true, fromPackage: true });
const theirs = (name: string): CubeJsExport => ({ name, function: true, fromPackage: false });

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A Cube project whose `model/` holds `files` (name: text). */
function projectWith(files: Record<string, string>, directory = 'model'): string {
  const dir = mkdtempSync(join(tmpdir(), 'cube-options-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, directory, name, '..'), { recursive: true });
    writeFileSync(join(dir, directory, name), text);
  }
  return dir;
}

// Model files as Cube's docs write them: a row filter by securityContext (per query), access policies by group, and a
// model compiled from COMPILE_CONTEXT (once per app id).
const ROW_FILTER =
  "cube('orders', { sql: `SELECT * FROM orders WHERE ${SECURITY_CONTEXT.tenant.filter('tenant')}` });\n";
const POLICY_BY_GROUP =
  'cubes:\n  - name: orders\n    sql_table: orders\n    access_policy:\n      - group: analyst\n        row_level:\n          filters:\n            - member: tenant\n              operator: equals\n              values: [ "{ securityContext.tenant }" ]\n';
const COMPILED_PER_TENANT =
  "cube('orders', { sql: `SELECT * FROM ${COMPILE_CONTEXT.securityContext.tenant}_orders` });\n";

const read = (dir: string, version = '1.7.43', env: NodeJS.ProcessEnv = {}, exported: string[] = []) =>
  readDataModel(dir, env, version, exported);

describe('readDataModel: what the model asks of cube.js, read as text where Cube reads it', () => {
  it('finds the files that read COMPILE_CONTEXT and those with access policies by group', () => {
    const dir = projectWith({
      'orders.js': ROW_FILTER,
      'cubes/policies.yml': POLICY_BY_GROUP,
      'x.js': COMPILED_PER_TENANT,
    });
    expect(read(dir)).toEqual({
      kind: 'read',
      dir: join(dir, 'model'),
      files: 3,
      compileContext: [join('model', 'x.js')],
      groupPolicies: [join('model', 'cubes', 'policies.yml')],
      rolePolicies: [],
    });
  });

  it('finds the files with an access policy keyed by role, as the handbook writes them, in YAML and JavaScript', () => {
    const dir = projectWith({
      'views/customers.yml': POLICY_BY_GROUP.replace('- group: analyst', '- role: customer'),
      'orders.js': "cube('orders', { access_policy: [{ 'role': '*', row_level: { allow_all: true } }] });\n",
      'people.js': "cube('people', { dimensions: { role: { sql: 'role', type: 'string' } } });\n",
      'groups.yml': POLICY_BY_GROUP,
    });
    expect(read(dir)).toMatchObject({
      rolePolicies: [join('model', 'orders.js'), join('model', 'views', 'customers.yml')],
      groupPolicies: [join('model', 'groups.yml')],
    });
  });

  it('reads where Cube does: CUBEJS_SCHEMA_PATH, else model/ on Cube 1.x and schema/ on 0.33; not what cube.js moves', () => {
    const schema = projectWith({ 'orders.js': COMPILED_PER_TENANT }, 'schema');
    expect(read(schema, '0.33.65')).toMatchObject({ kind: 'read', compileContext: [join('schema', 'orders.js')] });
    expect(read(schema, '1.7.43')).toEqual({
      kind: 'unread',
      why: `there is no model directory ${join(schema, 'model')}`,
    });
    expect(read(schema, '1.7.43', { CUBEJS_SCHEMA_PATH: 'schema' })).toMatchObject({ kind: 'read', files: 1 });
    expect(read(schema, '0.33.65', {}, ['checkAuth', 'repositoryFactory'])).toEqual({
      kind: 'unread',
      why: 'cube.js sets repositoryFactory, which doctor does not follow',
    });
  });
});

describe('cubeOptionsFinding', () => {
  const on = { authorization: true, tenant: true, cubeVersion: '1.7.43' };
  const model = (files: Record<string, string>): DataModelReading => read(projectWith(files));

  it("is ok for the README's Cube 1.x set-up: contextToGroups, no contextToAppId, a model that reads securityContext per query", () => {
    const finding = cubeOptionsFinding(loaded(own('checkAuth'), own('contextToGroups'), own('logger')), {
      ...on,
      model: model({ 'orders.yml': POLICY_BY_GROUP, 'more.js': ROW_FILTER }),
    });
    expect(finding).toEqual({
      status: 'ok',
      message: expect.stringMatching(
        /^cube\.js exports contextToGroups \(Cube 1\.7\.43\); exports no contextToAppId: one compiled model serves every tenant, which is safe, as Cube evaluates securityContext \(in SQL and access policies\) per query; no file of .* reads COMPILE_CONTEXT$/,
      ) as string,
    });
  });

  it('warns, naming the file, where the model reads COMPILE_CONTEXT and cube.js exports no contextToAppId', () => {
    const finding = cubeOptionsFinding(loaded(own('checkAuth'), own('contextToGroups')), {
      ...on,
      model: model({ 'orders.js': COMPILED_PER_TENANT }),
    });
    expect(finding).toEqual({
      status: 'warn',
      message: `cube.js exports no contextToAppId, and ${join('model', 'orders.js')} reads COMPILE_CONTEXT, which Cube evaluates once per app id: without contextToAppId it refuses to compile the model; export cube-dual-auth's contextToAppId`,
    });
  });

  it('asks contextToGroups of Cube 1.x only where access policies name groups', () => {
    const noPolicies = cubeOptionsFinding(loaded(own('checkAuth'), own('contextToAppId')), {
      ...on,
      model: model({ 'orders.js': ROW_FILTER }),
    });
    expect(noPolicies?.status).toBe('ok');
    const byGroup = cubeOptionsFinding(loaded(own('checkAuth'), own('contextToAppId')), {
      ...on,
      model: model({ 'orders.yml': POLICY_BY_GROUP }),
    });
    expect(byGroup).toEqual({
      status: 'warn',
      message: `cube.js exports no contextToGroups, and ${join('model', 'orders.yml')} has access policies by group: Cube 1.7.43 matches access policies by the groups contextToGroups returns, so a policy by group matches no request (its queries answer no rows)`,
    });
  });

  it('says that a warning rests on the model, and how to check it, when the model was not read', () => {
    const unread: DataModelReading = { kind: 'unread', why: 'there is no model directory /srv/cube/model' };
    const finding = cubeOptionsFinding(loaded(own('checkAuth')), { ...on, model: unread });
    expect(finding?.status).toBe('warn');
    expect(finding?.message).toMatch(
      /^cube\.js exports no contextToGroups: this depends on the data model, which doctor did not read \(there is no model directory \/srv\/cube\/model\): if its access policies name groups, .*; check the model's files, or what a token sees with "cube-dual-auth access"$/,
    );
    // No contextToAppId is never a warning by itself: Cube refuses to compile a model that would need it.
    const appId = cubeOptionsFinding(loaded(own('checkAuth'), own('contextToGroups')), { ...on, model: unread });
    expect(appId?.status).toBe('ok');
    expect(appId?.message).toMatch(
      /a model that reads COMPILE_CONTEXT would need contextToAppId \(doctor did not read/,
    );
  });

  it('is ok when both are exported, whoever wrote them; asks nothing of Cube 0.33 but contextToAppId', () => {
    const unread: DataModelReading = { kind: 'unread', why: 'x' };
    expect(
      cubeOptionsFinding(loaded(own('contextToGroups'), theirs('contextToAppId')), { ...on, model: unread }),
    ).toEqual({
      status: 'ok',
      message: 'cube.js exports contextToGroups (Cube 1.7.43); exports contextToAppId (a tenant claim is configured)',
    });
    expect(
      cubeOptionsFinding(loaded(), { ...on, cubeVersion: '0.33.65', tenant: false, model: unread }),
    ).toBeUndefined();
    expect(cubeOptionsFinding(loaded(), { ...on, cubeVersion: undefined, model: unread })?.message).not.toContain(
      'contextToGroups',
    );
  });

  it('says nothing with authorization off, or cube.js unread', () => {
    const unread: DataModelReading = { kind: 'unread', why: 'x' };
    expect(cubeOptionsFinding(loaded(), { ...on, authorization: false, tenant: false, model: unread })).toBeUndefined();
    expect(cubeOptionsFinding({ kind: 'missing', file: FILE }, { ...on, model: unread })).toBeUndefined();
  });
});
