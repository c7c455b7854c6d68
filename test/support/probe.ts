import { expect } from 'vitest';

/** What `cube-dual-auth probe` prints for its six checks against a deployment running this package: all PASS. */
export const ALL_CHECKS_PASS = [
  expect.stringMatching(/^ {2}PASS {2}no-token {22}403 +\d+ ms {2}"Authentication required"$/),
  expect.stringMatching(/^ {2}PASS {2}garbage-token {17}403 +\d+ ms {2}"Malformed token/),
  expect.stringMatching(/^ {2}PASS {2}service-token {17}200 +\d+ ms {2}\/meta lists 1 cube$/),
  expect.stringMatching(
    /^ {2}PASS {2}service-token-without-origin {2}403 +\d+ ms {2}"Algorithm \\"HS256\\" is not accepted on the key-set path/,
  ),
  expect.stringMatching(/^ {2}PASS {2}idp-token {21}200 +\d+ ms {2}\/meta lists 1 cube$/),
  expect.stringMatching(
    /^ {2}PASS {2}idp-token-with-origin {9}403 +\d+ ms {2}"Algorithm \\"RS256\\" is not accepted on the shared-secret path/,
  ),
];
