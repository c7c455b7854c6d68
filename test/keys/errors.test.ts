import { describe, expect, it } from 'vitest';
import { DualAuthError } from '../../src/errors';
import {
  copyFailure,
  discoveryWording,
  isJwksFailure,
  jwksInvalid,
  jwksUnreachable,
  jwksWording,
  kidUnknown,
} from '../../src/keys/errors';

const JWKS_URL = 'https://idp.internal.example/jwks.json';

describe('a failed key-set load', () => {
  it('tells the caller the kind of failure only; the operator gets the JWKS URL and the cause', () => {
    const failure = jwksUnreachable(JWKS_URL, 'ECONNREFUSED');
    expect(failure).toBeInstanceOf(DualAuthError);
    expect(failure).toMatchObject({
      code: 'ERR_JWKS_UNREACHABLE',
      path: 'key-set',
      message: "The identity provider's key set could not be reached",
      detail: `JWKS URL ${JWKS_URL} unreachable: ECONNREFUSED`,
    });
    expect(failure.message).not.toContain(JWKS_URL);
  });

  it('words each failure of a JWKS by its URL', () => {
    const wording = jwksWording(JWKS_URL);
    expect(wording.timedOut(5_000)).toMatchObject({
      code: 'ERR_JWKS_TIMEOUT',
      message: "The identity provider's key set did not answer in time",
      detail: `JWKS request to ${JWKS_URL} timed out after 5000 ms`,
    });
    expect(wording.invalid('not JSON')).toMatchObject({
      code: 'ERR_JWKS_INVALID',
      detail: `JWKS response from ${JWKS_URL} is invalid: not JSON`,
    });
    expect(wording.unreachable('ENOTFOUND')).toMatchObject({
      code: 'ERR_JWKS_UNREACHABLE',
      detail: `JWKS URL ${JWKS_URL} unreachable: ENOTFOUND`,
    });
  });

  it("words discovery's failures with the same codes and public messages, the document named in the detail", () => {
    const document = 'https://idp.example/.well-known/openid-configuration';
    const wording = discoveryWording(document, 'https://idp.example/');
    const named = `discovery document of issuer "https://idp.example/" (${document})`;
    expect(wording.unreachable('ECONNRESET')).toMatchObject({
      code: 'ERR_JWKS_UNREACHABLE',
      message: "The identity provider's key set could not be reached",
      detail: `The ${named} is unreachable: ECONNRESET`,
    });
    expect(wording.timedOut(300)).toMatchObject({
      code: 'ERR_JWKS_TIMEOUT',
      detail: `The ${named} did not answer within 300 ms`,
    });
    expect(wording.invalid('HTTP 500')).toMatchObject({
      code: 'ERR_JWKS_INVALID',
      detail: `The ${named} is unusable: HTTP 500`,
    });
  });

  it('is copied anew for each refusal, with the same code and detail', () => {
    const failure = jwksInvalid(JWKS_URL, 'no keys');
    const copy = copyFailure(failure);
    expect(copy).not.toBe(failure);
    expect(copy).toMatchObject({
      code: failure.code,
      message: failure.message,
      detail: failure.detail,
      path: 'key-set',
    });
  });

  it('is told from any other refusal', () => {
    expect(isJwksFailure(jwksInvalid(JWKS_URL, 'no keys'))).toBe(true);
    expect(isJwksFailure(new DualAuthError('ERR_KID_UNKNOWN', 'No key'))).toBe(false);
    expect(isJwksFailure(new Error('ERR_JWKS_INVALID'))).toBe(false);
  });
});

describe('kidUnknown', () => {
  it('names the kid, quoted, and the JWKS URL only in the detail', () => {
    expect(kidUnknown(JWKS_URL, 'k-9')).toMatchObject({
      code: 'ERR_KID_UNKNOWN',
      path: 'key-set',
      message: `No key for kid "k-9" in the identity provider's key set`,
      detail: `No key for kid "k-9" in the JWKS at ${JWKS_URL}`,
    });
  });

  it('adds why looking again did not help: the refresh failed, and when the next is allowed (whole seconds, rounded up)', () => {
    const refreshFailure = jwksUnreachable(JWKS_URL, 'ECONNREFUSED');
    expect(kidUnknown(JWKS_URL, 'k-9', { refreshFailure, retryInMs: 1_200 }).detail).toBe(
      `No key for kid "k-9" in the JWKS at ${JWKS_URL}; refreshing the key set failed: JWKS URL ${JWKS_URL} unreachable: ECONNREFUSED; next refresh allowed in 2 s`,
    );
  });

  it('quotes a kid taken from a token as printable text, capped', () => {
    const { message } = kidUnknown(JWKS_URL, `\u001b[2J${'k'.repeat(100)}`);
    expect(message).toBe(`No key for kid "?[2J${'k'.repeat(60)}..." in the identity provider's key set`);
  });
});
