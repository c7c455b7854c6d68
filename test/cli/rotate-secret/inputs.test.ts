/** What `provider rotate-secret` reads: the new secret's file, --wait, and how long old tokens can live. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { UsageError } from '../../../src/cli/io';
import { parseReplicas, parseWait, readNewSecret, tokenLifetime } from '../../../src/cli/rotate-secret/inputs';
import { randomSecret } from '../../support/claims';

const dir = mkdtempSync(join(tmpdir(), 'rotate-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fileWith(text: string): string {
  const file = join(dir, `secret-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, text);
  return file;
}

/** The usage error `promise` rejects with; its message must not hold `secret`. */
async function refusal(promise: Promise<unknown>, secret?: string): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UsageError);
  const message = (error as Error).message;
  if (secret !== undefined) expect(message).not.toContain(secret);
  return message;
}

describe('readNewSecret', () => {
  test('reads one line, its line break dropped, as openssl rand -hex 32 > file writes it', async () => {
    const secret = randomSecret(32);
    await expect(readNewSecret(fileWith(`${secret}\n`))).resolves.toBe(secret);
    await expect(readNewSecret(fileWith(secret))).resolves.toBe(secret);
  });

  test('refuses a weak secret by the rule the hook holds API secrets to, without quoting it', async () => {
    const weak = `changeme-${randomSecret(32)}`;
    expect(await refusal(readNewSecret(fileWith(`${weak}\n`)), weak)).toBe(
      'the new secret contains a placeholder word such as "secret", "password" or "changeme": anyone can choose ' +
        'the shared-secret path, so use at least 32 random bytes (openssl rand -hex 32)',
    );
    const short = randomSecret(16);
    expect(await refusal(readNewSecret(fileWith(short)), short)).toMatch(
      /^the new secret is 32 hex digits, 16 bytes: 128 bits of key material, under 32 bytes: /,
    );
  });

  test('refuses a missing file without naming it (a secret pasted as the path must not be printed)', async () => {
    const pasted = randomSecret(32);
    expect(await refusal(readNewSecret(join(dir, pasted)), pasted)).toBe(
      'cannot read the file of --new-secret-file (ENOENT)',
    );
  });

  test('refuses an empty file, several lines, white space and commas', async () => {
    const secret = randomSecret(32);
    expect(await refusal(readNewSecret(fileWith('\n')))).toMatch(/is empty/);
    expect(await refusal(readNewSecret(fileWith(`${secret}\n${secret}\n`)), secret)).toMatch(/one line/);
    expect(await refusal(readNewSecret(fileWith(`${secret} x`)), secret)).toMatch(/white space/);
    expect(await refusal(readNewSecret(fileWith(`${secret},x`)), secret)).toMatch(/comma/);
  });
});

describe('parseWait', () => {
  test('takes ms, s and m, 60 s when not given, at most an hour', () => {
    expect(parseWait(undefined)).toBe(60_000);
    expect(parseWait('1500ms')).toBe(1_500);
    expect(parseWait('90s')).toBe(90_000);
    expect(parseWait('2m')).toBe(120_000);
    expect(parseWait('60m')).toBe(3_600_000);
    for (const bad of ['61m', '60', '0s', '-1s', '1h', '1.5s', ''])
      expect(() => parseWait(bad), bad).toThrow(/^--wait must be a whole number of ms, s or m/);
  });
});

describe('parseReplicas', () => {
  test('1 when not given, at most 100', () => {
    expect(parseReplicas(undefined)).toBe(1);
    expect(parseReplicas('3')).toBe(3);
    expect(parseReplicas('100')).toBe(100);
    for (const bad of ['0', '101', '-1', '2.5', 'three', '03', ''])
      expect(() => parseReplicas(bad), bad).toThrow(/^--replicas must be a whole number from 1 to 100, got /);
  });
});

describe('tokenLifetime', () => {
  test('unknown without --token-lifetime or the maximum token age', () => {
    expect(tokenLifetime(undefined, {})).toEqual({
      seconds: undefined,
      source: 'neither --token-lifetime nor CUBE_DUAL_AUTH_MAX_TOKEN_AGE is given',
    });
  });

  test("the deployment's maximum age plus its clock tolerance (5 s by default)", () => {
    expect(tokenLifetime(undefined, { CUBE_DUAL_AUTH_MAX_TOKEN_AGE: '3600' })).toEqual({
      seconds: 3605,
      source: 'CUBE_DUAL_AUTH_MAX_TOKEN_AGE 3600 s, plus 5 s of clock tolerance (CUBE_DUAL_AUTH_CLOCK_TOLERANCE)',
    });
    expect(
      tokenLifetime(undefined, { CUBE_DUAL_AUTH_MAX_TOKEN_AGE: '600', CUBE_DUAL_AUTH_CLOCK_TOLERANCE: '0' }).seconds,
    ).toBe(600);
  });

  test('the shorter of --token-lifetime and the maximum age', () => {
    expect(tokenLifetime('15m', { CUBE_DUAL_AUTH_MAX_TOKEN_AGE: '3600' })).toMatchObject({
      seconds: 905,
      source: expect.stringMatching(/^--token-lifetime 900 s, plus 5 s/),
    });
    expect(tokenLifetime('1d', { CUBE_DUAL_AUTH_MAX_TOKEN_AGE: '3600' }).seconds).toBe(3605);
    expect(() => tokenLifetime('soon', {})).toThrow(/^--token-lifetime must be a whole number of s, m, h or d/);
  });
});
