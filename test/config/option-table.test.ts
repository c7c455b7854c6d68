import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OPTIONS } from '../../src/config/option-table';

describe('the options table, documented once', () => {
  const reference = readFileSync(fileURLToPath(new URL('../../docs/reference.md', import.meta.url)), 'utf8');
  const source = readFileSync(fileURLToPath(new URL('../../src/config/option-types.ts', import.meta.url)), 'utf8');
  const rows = new Map(
    [...reference.matchAll(/^\| `([A-Z_]+)` \| `(\w+)`[^|]*\| ([^|]+) \|/gm)].map(([, name, option, fallback]) => [
      name,
      { option, fallback: fallback?.trim() },
    ]),
  );
  const shown = (value: unknown) => `\`${Array.isArray(value) ? value.join(',') : String(value)}\``;

  it.each(Object.entries(OPTIONS).filter(([, spec]) => spec.env.length > 0))(
    'docs/reference.md lists %s with its variables and default',
    (key, spec) => {
      for (const name of spec.env) expect(rows.get(name), name).toMatchObject({ option: key });
      const fallback = rows.get(spec.env[0] as string)?.fallback;
      if ('default' in spec) expect(fallback).toBe(shown(spec.default));
      else expect(fallback).not.toMatch(/^`/);
    },
  );

  it.each(Object.entries(OPTIONS))('the TSDoc of %s names its variable and default', (key, spec) => {
    const doc = new RegExp(`/\\*\\*((?:(?!\\*/)[\\s\\S])*)\\*/\\s*${key}\\?:`).exec(source)?.[1] ?? '';
    expect(doc, key).not.toBe('');
    if (spec.env[0] !== undefined) expect(doc).toContain(`\`${spec.env[0]}\``);
    if ('default' in spec)
      expect(doc.replace(/_/g, '')).toMatch(
        new RegExp(
          `@default ('?)${JSON.stringify(spec.default)
            .replace(/_/g, '')
            .replace(/[[\]]/g, '\\$&')
            .replace(/"/g, "'")}\\1`,
        ),
      );
  });
});
