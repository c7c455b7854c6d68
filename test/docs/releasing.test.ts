import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV } from '../../src/config/env';

const root = join(__dirname, '../..');
const read = (file: string): string => readFileSync(join(root, file), 'utf8');
const manifest = JSON.parse(read('package.json')) as { version: string; engines: { node: string } };
const changelog = read('CHANGELOG.md');
const sources = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => read(join('src', file)));

/** `## [x.y.z] - date` headings, newest first, as written. */
const released = [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$/gm)].map((m) => ({
  version: m[1] as string,
  date: m[2] as string,
}));

function ordered(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number)) as [number[], number[]];
  return x.reduce((found, part, i) => found || part - (y[i] as number), 0);
}

describe('CHANGELOG.md, SECURITY.md and the compatibility policy agree with the package', () => {
  it('keeps an Unreleased section first, then versions newest first, the newest being package.json version', () => {
    const headings = [...changelog.matchAll(/^## (.*)$/gm)].map((m) => m[1]);
    expect(headings[0]).toBe('[Unreleased]');
    expect(headings.slice(1)).toEqual(released.map(({ version, date }) => `[${version}] - ${date}`));
    expect(released[0]?.version).toBe(manifest.version);
    const versions = released.map((r) => r.version);
    expect([...versions].sort((a, b) => ordered(b, a))).toEqual(versions);
    expect([...released.map((r) => r.date)].sort().reverse()).toEqual(released.map((r) => r.date));
  });

  it('names only rejection codes and variables that exist', () => {
    const union = /export type RejectionCode =([^;]+);/.exec(read('src/errors.ts'))?.[1] ?? '';
    const codes = new Set([...union.matchAll(/'(ERR_[A-Z_]+)'/g)].map((m) => m[1]));
    expect(codes.size).toBeGreaterThan(20);
    const named = [...changelog.matchAll(/`(ERR_[A-Z_]+)`/g)].map((m) => m[1] as string);
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((code) => !codes.has(code))).toEqual([]);
    // The package's own table, and Cube's variables it reads by name (CUBEJS_PLAYGROUND_AUTH_SECRET, say).
    const variables = new Set<string>(Object.values(ENV));
    const known = (name: string) => variables.has(name) || sources.some((text) => text.includes(`'${name}'`));
    const mentioned = [...changelog.matchAll(/`((?:CUBEJS|CUBE_DUAL_AUTH|EMBEDDABLE)_[A-Z_]+)`/g)].map((m) => m[1]);
    expect(mentioned.length).toBeGreaterThan(5);
    expect(mentioned.filter((name) => !known(name as string) && !name?.startsWith('EMBEDDABLE_'))).toEqual([]);
  });

  it('SECURITY.md supports the line package.json is on', () => {
    const [major, minor] = manifest.version.split('.');
    const line = major === '0' ? `${major}.${minor}.x` : `${major}.x`;
    const firstRow = /^\| Version \| Fixes \|\n\|---\|---\|\n\| ([^|]+?) \|/m.exec(read('SECURITY.md'))?.[1];
    expect(firstRow).toBe(line);
  });

  it('the compatibility policy of docs/reference.md names the Node.js lines of engines', () => {
    const majors = (manifest.engines.node.match(/\^\d+/g) ?? []).map((m) => m.slice(1));
    const policy = /today Node\.js ([\d, and]+);/.exec(read('docs/reference.md'))?.[1];
    expect(policy?.split(/, | and /)).toEqual(majors);
  });
});
