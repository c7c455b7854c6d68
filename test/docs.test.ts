// The README and docs/ as a reader follows them: the README is an entry of at most 400 lines whose first screen has
// what a newcomer needs, and every relative link reaches a file that exists and, when it names an anchor, a heading
// of that file (GitHub's anchors).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readmeEnvironment } from '../scripts/lib/readme-project.mjs';
import { anchors, paragraphs } from './support/markdown';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** The pages checked: the README, everything in docs/, the examples' READMEs, and the pages shipped beside them. */
const pages = [
  'README.md',
  'CHANGELOG.md',
  'SECURITY.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...readdirSync(join(root, 'examples'))
    .map((d) => `examples/${d}/README.md`)
    .filter((p) => existsSync(join(root, p))),
];

/** The text a reader sees as prose: fenced code blocks and inline code spans removed (their brackets are not links). */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Every relative link of a page that does not lead where it says, as "page: target (why)". */
function brokenLinks(page: string, text = read(page)): string[] {
  const broken: string[] = [];
  for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
    if (/^[a-z]+:/i.test(target as string)) continue;
    const [path = '', anchor] = (target as string).split('#');
    const file = path === '' ? join(root, page) : join(root, dirname(page), path);
    if (!existsSync(file)) {
      broken.push(`${page}: ${target} (no such file)`);
    } else if (
      anchor !== undefined &&
      file.endsWith('.md') &&
      statSync(file).isFile() &&
      !anchors(readFileSync(file, 'utf8')).has(anchor)
    ) {
      broken.push(`${page}: ${target} (no heading "${anchor}" in ${relative(root, file)})`);
    }
  }
  return broken;
}

describe('the README', () => {
  const firstScreen = read('README.md').split('\n').slice(0, 40).join('\n');

  it('says on its first screen what the package is for, the two lines of cube.js, and the demo and test commands', () => {
    expect(firstScreen).toMatch(/Embeddable/);
    expect(firstScreen).toContain('Request-Origin: embeddable');
    // The logger too: Cube logs the whole token of every request it refuses.
    expect(firstScreen).toContain(
      "```js\nconst { checkAuth, logger } = require('cube-dual-auth');\nmodule.exports = { checkAuth, logger };\n```",
    );
    expect(firstScreen).toMatch(/^npm ci && npm run demo\b/m);
    expect(firstScreen).toMatch(/^npm ci && npm test\b/m);
  });

  it('is an entry, not the manual: at most 400 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(400);
  });

  it('holds in its first 60 lines the four variables as a .env file, and how to check them', () => {
    const first60 = read('README.md').split('\n').slice(0, 60).join('\n');
    for (const name of ['CUBEJS_API_SECRET', 'CUBEJS_JWK_URL', 'CUBEJS_JWT_AUDIENCE', 'CUBEJS_JWT_ISSUER'])
      expect(first60, name).toMatch(new RegExp(`^${name}=`, 'm'));
    expect(first60).toContain('`.env`');
    expect(first60).toMatch(/Cube reads the `\.env` of its project directory/);
    expect(first60).toMatch(/^npx cube-dual-auth doctor$/m);
  });

  it('says which Node.js majors each Cube line runs on, as CI runs them', () => {
    const matrix = /^declare -A majors_of=\((.*)\)$/m.exec(read('.ci/run'))?.[1] ?? '';
    const ci = (line: string) => new RegExp(`\\[cube-${line}\\]="([\\d ]+)"`).exec(matrix)?.[1]?.split(' ');
    const readme = (line: string) =>
      new RegExp(`^\\| \\*\\*${line.replace('.', '\\.')}\\*\\*[^|]*\\| ([^|]+) \\|`, 'm')
        .exec(read('README.md'))?.[1]
        ?.match(/\d+/g)
        ?.slice(-2);
    // Cube 1.x's own CLI refuses Node below 22.
    expect(ci('1')?.every((major) => Number(major) >= 22)).toBe(true);
    expect(readme('1.x')).toEqual(ci('1'));
    expect(read('README.md')).toMatch(/^\| \*\*1\.x\*\*[^|]*\| 22 or later/m);
    expect(readme('0.33')).toEqual(ci('0.33'));
  });

  it('links every page of docs/', () => {
    const linked = new Set([...prose(read('README.md')).matchAll(/\]\((docs\/[^)#\s]+)/g)].map(([, path]) => path));
    expect(pages.filter((p) => p.startsWith('docs/') && !linked.has(p))).toEqual([]);
  });
});

describe("the README's set-ups are those the real-Cube suites run", () => {
  const readme = read('README.md');
  const section = (title: string) => {
    const start = readme.indexOf(`\n## ${title}\n`);
    expect(start, title).toBeGreaterThanOrEqual(0);
    return readme.slice(start, readme.indexOf('\n## ', start + 1));
  };
  /** The lines of code of a cube.js, comments and blank lines left out. */
  const code = (text = '') =>
    text
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.trim().startsWith('//'))
      .join('\n');
  const suite = readmeEnvironment({ jwksUrl: 'j', issuer: 'i', audience: 'a' }, 's', 'd');

  it("Cube 1.x: cube.js is examples/access-policies/cube.js, with the suite's claims in .env", () => {
    const path = section('Cube 1.x, start to finish');
    const cubeJs = /^```js\n(\/\/ cube\.js\n[\s\S]*?)^```/m.exec(path)?.[1];
    expect(code(cubeJs)).toBe(code(read('examples/access-policies/cube.js')));
    const claims = Object.keys(suite).filter((name) => name.startsWith('CUBE_DUAL_AUTH_'));
    expect(claims.length).toBeGreaterThan(0);
    for (const name of claims) expect(path).toContain(`\n${name}=${suite[name]}\n`);
  });

  it("the first screen's .env names the suite's variables of the hook", () => {
    const first60 = readme.split('\n').slice(0, 60).join('\n');
    const hook = Object.keys(suite).filter((name) => /^CUBEJS_(API|JWK|JWT)_/.test(name));
    expect(hook.sort()).toEqual(['CUBEJS_API_SECRET', 'CUBEJS_JWK_URL', 'CUBEJS_JWT_AUDIENCE', 'CUBEJS_JWT_ISSUER']);
    for (const name of hook) expect(first60).toMatch(new RegExp(`^${name}=`, 'm'));
  });
});

describe('the README and docs/ as a reader meets them', () => {
  const moved = [
    'README.md',
    'docs/authorization.md',
    'docs/cube-cloud.md',
    'docs/identity-providers.md',
    'docs/reference.md',
    'docs/sql-api.md',
    'docs/troubleshooting.md',
  ];

  it.each(moved)('%s is written in paragraphs of at most 5 lines', (page) => {
    const long = paragraphs(read(page)).filter((lines) => lines.length > 5);
    expect(long.map((lines) => lines[0])).toEqual([]);
  });

  it.each(pages.filter((page) => page.startsWith('docs/')))(
    '%s opens by saying who it is for and what they will have done at its end',
    (page) => {
      const opening =
        paragraphs(read(page))
          .find((lines) => !lines[0]?.startsWith('<!--'))
          ?.join(' ') ?? '';
      expect(opening).toMatch(/^For /);
      expect(opening).toMatch(/At the end of this page|Each section is the one place|every command's options/);
    },
  );

  it('counts a paragraph by its lines: code, tables and headings apart, a list item on its own', () => {
    const page = '# T\n\none\ntwo\n\n- a\n  b\n- c\n   | x |\n   |---|\n\n```\nin\ncode\n```\ntail\n';
    expect(paragraphs(page)).toEqual([['one', 'two'], ['- a', '  b'], ['- c'], ['tail']]);
  });
});

describe('relative links', () => {
  it.each(pages)('%s links only to files and headings that exist', (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });

  it('are reported when the file or the heading is missing, not when they are in code or on the web', () => {
    const page =
      '[a](docs/none.md) [b](README.md#none) [c](README.md#install) [d](#install) `[e](none.md)` [f](https://x.example/none)';
    expect(brokenLinks('README.md', page)).toEqual([
      'README.md: docs/none.md (no such file)',
      'README.md: README.md#none (no heading "none" in README.md)',
    ]);
  });

  it("find headings by GitHub's anchors: punctuation dropped, repeats numbered, code blocks skipped", () => {
    expect(anchors('# A\n## Use: two lines in `cube.js`\n## A\n```\n# not a heading\n```\n')).toEqual(
      new Set(['a', 'use-two-lines-in-cubejs', 'a-1']),
    );
  });
});
