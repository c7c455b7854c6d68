/**
 * The `$ cube-dual-auth ...` examples of a documentation page, and the command lines as a shell would split them:
 * for the tests that run every example of a page again and compare what it printed (test/docs/).
 */

/** One example: the command line after `cube-dual-auth `, and the lines the page shows it printing. */
export interface Example {
  readonly command: string;
  readonly output: string;
}

/**
 * Every example of the page: in a ```text or ```console block, a line `$ cube-dual-auth ...` and the lines after
 * it up to the next `$ ` line or the end of the block, blank lines at the end left out. A block that does not start
 * with `$ cube-dual-auth` (a command of another tool, or lines of an example shown before) holds none.
 */
export function examplesIn(page: string): Example[] {
  const blocks = [...page.matchAll(/^```(?:text|console)\n(\$ cube-dual-auth [\s\S]*?)^```/gm)].map(
    (m) => m[1] as string,
  );
  return blocks.flatMap((block) =>
    block.split(/^(?=\$ )/m).flatMap((part) => {
      const [first = '', ...rest] = part.split('\n');
      if (!first.startsWith('$ cube-dual-auth ')) return [];
      return [{ command: first.slice('$ cube-dual-auth '.length), output: rest.join('\n').replace(/\n+$/, '') }];
    }),
  );
}

/**
 * The words of a command line as a POSIX shell splits this documentation's lines: '...' as it is, "..." and bare
 * words with `$NAME` replaced by its value in `variables` (an unknown one is an error: the test must provide it).
 */
export function shellWords(line: string, variables: Readonly<Record<string, string>> = {}): string[] {
  const expand = (text: string) =>
    text.replace(/\$([A-Z_][A-Z0-9_]*)/g, (_whole, name: string) => {
      const value = variables[name];
      if (value === undefined) throw new Error(`the command line uses $${name}, which the test does not set: ${line}`);
      return value;
    });
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) =>
    m[2] !== undefined ? m[2] : expand((m[1] ?? m[3]) as string),
  );
}
