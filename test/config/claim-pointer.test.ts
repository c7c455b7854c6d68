import { describe, expect, it } from 'vitest';
import { claimPointer, readClaim } from '../../src/config/claim-pointer';

const fail = (problem: string): never => {
  throw new Error(problem);
};

describe('claimPointer', () => {
  it('reads text without a leading "/" as the name of a top-level claim, slashes and all', () => {
    expect(claimPointer('org_id', fail)).toEqual({ text: 'org_id', path: ['org_id'] });
    expect(claimPointer('https://example.com/roles', fail)).toEqual({
      text: 'https://example.com/roles',
      path: ['https://example.com/roles'],
    });
  });

  it('reads text with a leading "/" as an RFC 6901 JSON Pointer, unescaping ~1 and ~0', () => {
    expect(claimPointer('/realm_access/roles', fail).path).toEqual(['realm_access', 'roles']);
    expect(claimPointer('/https:~1~1example.com~1roles', fail).path).toEqual(['https://example.com/roles']);
    // ~01 is "~1" escaped: "~0" becomes "~" after "~1" was read, never "/".
    expect(claimPointer('/a~01b', fail).path).toEqual(['a~1b']);
    expect(claimPointer('/', fail).path).toEqual(['']);
  });

  it.each([[''], ['  '], [42], [null]])('refuses %j: no claim', (value) => {
    expect(() => claimPointer(value, fail)).toThrow(
      'must be a claim name or a JSON Pointer (RFC 6901) such as "/realm_access/roles"',
    );
  });

  it.each([['/a~2b'], ['/a~'], ['/x/~']])('refuses %j: a "~" that is no escape', (value) => {
    expect(() => claimPointer(value, fail)).toThrow(
      `is not a JSON Pointer (RFC 6901): ${JSON.stringify(value)} has a "~" that is not "~0" or "~1"`,
    );
  });
});

describe('readClaim', () => {
  const read = (payload: Record<string, unknown>, text: string) => readClaim(payload, claimPointer(text, fail));

  it('follows own members of objects and indexes of arrays', () => {
    const payload = { realm_access: { roles: ['a', 'b'] }, 'https://example.com/roles': ['x'] };
    expect(read(payload, '/realm_access/roles')).toEqual(['a', 'b']);
    expect(read(payload, '/realm_access/roles/1')).toBe('b');
    expect(read(payload, '/https:~1~1example.com~1roles')).toEqual(['x']);
    expect(read(payload, 'https://example.com/roles')).toEqual(['x']);
  });

  it('finds nothing where the payload has no such own member: never the prototype, never a length', () => {
    const payload = JSON.parse('{"a": {"b": 1}, "list": ["x"], "__proto__": {"polluted": "yes"}}') as Record<
      string,
      unknown
    >;
    expect(read(payload, '/a/c')).toBeUndefined();
    expect(read(payload, '/a/b/c')).toBeUndefined();
    expect(read(payload, 'toString')).toBeUndefined();
    expect(read(payload, '/a/constructor')).toBeUndefined();
    expect(read(payload, '/a/__proto__')).toBeUndefined();
    expect(read(payload, '/list/length')).toBeUndefined();
    expect(read(payload, '/list/01')).toBeUndefined();
    expect(read(payload, '/list/-')).toBeUndefined();
    // An own "__proto__" member (JSON.parse keeps it as one) is a claim like any other.
    expect(read(payload, '/__proto__/polluted')).toBe('yes');
  });
});
