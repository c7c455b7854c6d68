import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/cli/io';
import { apiBaseUrl, endpoint } from '../../../src/cli/probe/target';

describe("probe's <cube-api-url>", () => {
  it.each([
    ['https://cube.example.com/cubejs-api/v1', 'https://cube.example.com/cubejs-api/v1'],
    ['https://cube.example.com/cubejs-api/v1/', 'https://cube.example.com/cubejs-api/v1'],
    ['https://cube.example.com', 'https://cube.example.com/cubejs-api/v1'],
    ['https://cube.example.com/', 'https://cube.example.com/cubejs-api/v1'],
    ['https://cube.example.com/cubejs-api', 'https://cube.example.com/cubejs-api/v1'],
    ['http://localhost:4000', 'http://localhost:4000/cubejs-api/v1'],
    // Behind a proxy prefix, and with a custom basePath (Cube's `basePath: '/api'`): a path ending in /v1 is the base.
    ['https://example.com/analytics', 'https://example.com/analytics/cubejs-api/v1'],
    ['https://example.com/api/v1', 'https://example.com/api/v1'],
  ])('%s is the REST base %s', (given, base) => {
    expect(apiBaseUrl(given).href).toBe(base);
  });

  it("puts an endpoint under the base, keeping the base's path", () => {
    expect(endpoint(apiBaseUrl('https://example.com/analytics'), 'meta').href).toBe(
      'https://example.com/analytics/cubejs-api/v1/meta',
    );
  });

  it.each([
    ['my-cube-host', 'is not a URL'],
    ['eyJhbGciOiJIUzI1NiJ9.eyJ0ZW5hbnQiOiJhY21lIn0.c2lnbmF0dXJl', 'is not a URL'],
    ['file:///etc/passwd', 'must be an http(s) URL'],
    ['https://user:secret@cube.example.com', 'must not carry credentials'],
    ['https://cube.example.com/cubejs-api/v1#meta', 'must not have a query or a fragment'],
  ])('refuses %s without repeating it', (given, problem) => {
    const error = (() => {
      try {
        apiBaseUrl(given);
      } catch (caught) {
        return caught as Error;
      }
      throw new Error('accepted');
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain(`<cube-api-url> ${problem}`);
    expect(error.message).not.toContain(given);
  });
});
