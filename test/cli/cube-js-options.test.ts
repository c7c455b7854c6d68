// Whether the environment alone makes the hook Cube runs, judged from what doctor reads of cube.js.
import { describe, expect, it } from 'vitest';
import { problemOf } from '../../src/cli/cube-js-options';

const file = '/srv/cube/cube.js';
const member = (name: string, fromPackage?: boolean) => ({
  name,
  function: true,
  ...(fromPackage !== undefined && { fromPackage }),
});

describe('problemOf', () => {
  it("finds none without cube.js, and with cube-dual-auth's ready-made checkAuth and checkSqlAuth", () => {
    expect(problemOf({ kind: 'missing', file })).toBeUndefined();
    const readyMade = [member('checkAuth', true), member('checkSqlAuth', true), member('queryRewrite')];
    expect(problemOf({ kind: 'loaded', file, exports: readyMade })).toBeUndefined();
  });

  it('names a hook of its own, and a cube.js that cannot be read', () => {
    expect(
      problemOf({ kind: 'loaded', file, exports: [member('checkAuth', false), member('checkSqlAuth', true)] }),
    ).toBe(
      `${file} exports its own checkAuth, not cube-dual-auth's ready-made one, so it may set options in code (a securityContext function, claims, groups) that the environment does not show`,
    );
    // cube-dual-auth not resolvable from cube.js: nothing says the hook is the package's.
    expect(problemOf({ kind: 'loaded', file, exports: [member('checkSqlAuth')] })).toMatch(
      /exports its own checkSqlAuth/,
    );
    for (const reading of [
      { kind: 'threw', file, message: 'boom' },
      { kind: 'timed-out', file, timeoutMs: 10 },
      { kind: 'no-answer', file, reason: 'exit' },
    ] as const)
      expect(problemOf(reading)).toBe(
        `${file} could not be read, so whether it sets the hook's options in code is unknown`,
      );
  });
});
