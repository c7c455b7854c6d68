/** The "did you mean" of misspelt commands, actions and options. */
import { describe, expect, test } from 'vitest';
import { closest, didYouMean, editDistance } from '../../src/cli/suggest';

describe('editDistance', () => {
  test.each([
    ['', '', 0],
    ['verify', 'verify', 0],
    ['verfy', 'verify', 1],
    ['verfiy', 'verify', 1],
    ['promte', 'promote', 1],
    ['', 'abc', 3],
    ['kitten', 'sitting', 3],
    ['rename', 'update', 4],
  ])('%j to %j: %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe('closest', () => {
  const actions = ['list', 'show', 'diff', 'publish', 'promote', 'rollback'];

  test.each([
    ['promte', 'promote'],
    ['PROMOTE', 'promote'],
    ['rolback', 'rollback'],
    ['pubilsh', 'publish'],
    ['lst', 'list'],
    ['ls', undefined],
    ['rename', undefined],
    ['deploy', undefined],
  ])('%j: %j', (given, expected) => {
    expect(closest(given, actions)).toBe(expected);
  });

  test('the nearest wins; a tie goes to the earlier candidate', () => {
    expect(closest('versions', ['version', 'versions'])).toBe('versions');
    expect(closest('shaw', ['show', 'shew'])).toBe('show');
  });

  test('didYouMean phrases it, or says nothing', () => {
    expect(didYouMean('verfy', ['verify', 'doctor'])).toBe('; did you mean "verify"?');
    expect(didYouMean('xyz', ['verify', 'doctor'])).toBe('');
  });
});
