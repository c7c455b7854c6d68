import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretsInForce as inForce } from '../../src/config/deployment';
import { randomSecret } from '../support/claims';

const secretsInForce = (env: NodeJS.ProcessEnv) => inForce({ env });

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'secrets-in-force-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('secretsInForce', () => {
  it('gathers the API secrets, SQL key secrets and SQL password of the environment and of the directory', () => {
    const [api, additional, sqlKey, fileApi, fileOld, fileSqlKey] = Array.from({ length: 6 }, () => randomSecret());
    writeFileSync(join(dir, 'api-secrets'), `# rotated\n${fileApi}\n${fileOld}\n`);
    writeFileSync(join(dir, 'sql-key-secrets'), `${fileSqlKey}\n`);
    writeFileSync(join(dir, 'sql-password'), 'file-password-1\n');
    writeFileSync(join(dir, 'sql-keys-revoked'), 'key-id-1\n');
    const found = secretsInForce({
      CUBEJS_API_SECRET: api,
      CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS: additional,
      CUBE_DUAL_AUTH_SQL_KEY_SECRETS: sqlKey,
      CUBEJS_SQL_PASSWORD: 'env-password-1',
      CUBE_DUAL_AUTH_SECRETS_DIR: dir,
    });
    expect(found.sort()).toEqual(
      [api, additional, sqlKey, 'env-password-1', fileApi, fileOld, fileSqlKey, 'file-password-1'].sort(),
    );
  });

  it("gives an unusable file's lines too, and never throws on a bad configuration", () => {
    const bad = mkdtempSync(join(tmpdir(), 'secrets-in-force-bad-'));
    try {
      const secret = randomSecret();
      writeFileSync(join(bad, 'sql-password'), `${secret}\nsecond-line\n`);
      expect(secretsInForce({ CUBE_DUAL_AUTH_SECRETS_DIR: bad, CUBE_DUAL_AUTH_MAX_TOKEN_AGE: 'soon' })).toEqual([
        secret,
        'second-line',
      ]);
      expect(secretsInForce({ CUBE_DUAL_AUTH_SECRETS_DIR: join(bad, 'nowhere') })).toEqual([]);
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });
});
