import { describe, expect, it } from 'vitest';
import { accessPolicyCheck } from '../../../src/doctor/checks/authorization';
import type { DataModelReading } from '../../../src/doctor/data-model';

const model = (rolePolicies: string[]): DataModelReading => ({
  kind: 'read',
  dir: '/srv/cube/model',
  files: 4,
  compileContext: [],
  groupPolicies: [],
  rolePolicies,
});

describe('accessPolicyCheck: a policy keyed by role on Cube 1.7 and later', () => {
  it('fails naming the files, group:/groups: and the Cube version', () => {
    expect(accessPolicyCheck({ cubeVersion: '1.7.43', model: model(['model/views/customers.yml']) })).toEqual({
      id: 'access-policies',
      status: 'fail',
      message:
        'model/views/customers.yml keys an access policy by role:, which Cube 1.7.43 refuses to compile ("accessPolicy[0].role" is not allowed: Cube 1.7.0 removed role): key it by group: (or groups: for several), which Cube matches against what contextToGroups returns',
    });
    const five = ['a.yml', 'b.yml', 'c.yml', 'd.yml', 'e.yml'];
    expect(accessPolicyCheck({ cubeVersion: '2.0.1', model: model(five) })?.message).toMatch(
      /^a\.yml, b\.yml, c\.yml and 2 more key an access policy by role:, which Cube 2\.0\.1 refuses/,
    );
  });

  it.each<[string | undefined, DataModelReading]>([
    ['1.7.43', model([])],
    ['1.6.9', model(['model/orders.yml'])],
    ['0.33.65', model(['schema/orders.yml'])],
    [undefined, model(['model/orders.yml'])],
    ['1.7.43', { kind: 'unread', why: 'there is no model directory /srv/cube/model' }],
  ])('says nothing on Cube %s with %j', (cubeVersion, reading) => {
    expect(accessPolicyCheck({ cubeVersion, model: reading })).toBeUndefined();
  });
});
