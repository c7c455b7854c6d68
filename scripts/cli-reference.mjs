// Builds docs/cli.md from the built CLI (dist/cli), so the reference is what the commands print: the overview of
// `cube-dual-auth --help`, then each command's `--help`, and each action's own `--help` where an action has one.
// `npm run docs:cli` rebuilds and writes the file; test/scripts/cli-reference.test.ts fails when the file is stale.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the reference is written. */
export const CLI_REFERENCE = join(root, 'docs/cli.md');

/** Runs `cube-dual-auth <args>` in this process, as a pipe would see it: no terminal, so no colour, and an empty environment. */
async function helpOf(run, args) {
  let text = '';
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  const stderr = new Writable({ write: (_chunk, _encoding, done) => done() });
  const code = await run(args, { stdout, stderr, stdin: Readable.from([]), env: {}, cwd: root });
  return { code, text: text.trimEnd() };
}

/** The action names a command's help lists under "Actions:" (`create`, `list`, ...), in order. */
function actionsIn(help) {
  const section = /^Actions:\n((?:(?: {2}.*)?\n)*)/m.exec(`${help}\n`)?.[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map(([, name]) => name);
}

const block = (text) => ['```text', text, '```', ''];

/** The one part written by hand: the policy every command keeps, which no single `--help` states. */
const FAULT_POLICY = `## Faults and limits

Every command keeps one policy, whatever it talks to:

- **Exit status.** 0: done, nothing refused. 1: a token, a check or a request was refused or failed, or the deadline
  passed. 2: the command line is wrong. 3: an internal fault. 4 (\`provider rotate-secret\` alone): the service got
  the new secret and gave no answer, so it may hold it.
- **An internal fault** is one line on standard error: \`cube-dual-auth <command>: internal fault <id>: <error>\`.
  No stack trace is printed; run the same command again with \`--verbose\` (anywhere on the line) to get the detail
  under the same id.
- **Deadlines.** Besides \`--timeout\`, which bounds each request, \`access\`, \`probe\` and \`doctor\` take
  \`--deadline <ms>\` for the whole run (defaults: 120 s, 60 s, 60 s). When it passes, the command prints what it has,
  marks the rest "not checked: the deadline passed", and exits 1. No command runs past its deadline: a request still
  under way is ended, and the process exits at most a second after its command has.
- **Nothing secret is printed.** All a command prints, text and \`--json\`, passes through one scrubber
  (\`src/cli/scrub.ts\`), which knows:
  - every secret in force: the API secrets, the SQL key secrets and the SQL password, from the environment and from
    the secrets directory's files (\`CUBE_DUAL_AUTH_SECRETS_DIR\`), and the new secret of \`rotate-secret\`. Each
    becomes \`[secret]\` whole and in any part of 16 characters or more;
  - the tokens the command holds, read or minted (\`probe\`'s, \`access\`'s, \`rotate-secret\`'s): whole, any of
    their three parts, and any part of 16 characters or more of a signature become \`[token]\` (past some 100,000
    held windows, a signature is found whole only);
  - the values of other secret variables (names with SECRET, PASS, TOKEN, CREDENTIAL, PRIVATE or _KEY) and the
    passwords in URLs of the environment: \`[secret]\` whole (a part of such a value, often a path, is printed).

  Each is found in the forms an echo gives it: as it is, escaped in JSON or for a terminal, base64 and base64url
  (inside a longer encoded text too), hex, URL-encoded, in upper or lower case, and split by white space, a line break
  or their escapes (\`\\n\`, \`\\u000a\`). The work is one look-up per character printed, however many values are
  held. Any URL with a password is printed \`scheme://user:***@host\`.
- **Answers from outside are read bounded.** Bodies are capped (1 MiB); JSON nested deeper than 64 levels is refused;
  Cube's SQL is read in one pass, refused past 64 nested parentheses, 200,000 tokens or 1,000 row conditions. A refusal
  names what was refused and the limit, as the line of the request it came from.
- **doctor's cube.js child** runs in its own process group and, passed or failed, is killed with every process it
  started (by group, by parent, and by a variable that marks them); its answer channel is capped at 1 MiB, and the
  answer counts once written, whoever still holds the channel.
`.split('\n');

/** The Markdown of docs/cli.md, from the CLI built in `dist` (default: this checkout's dist/). */
export async function cliReference(dist = join(root, 'dist')) {
  const require = createRequire(pathToFileURL(join(dist, 'cli', 'run.js')));
  const { run } = require('./run.js');
  const { commands } = require('./registry.js');
  const lines = [
    '# CLI reference',
    '',
    '<!-- Generated from the built CLI by scripts/cli-reference.mjs: run `npm run docs:cli` after changing a help text. -->',
    '',
    "For anyone running `cube-dual-auth`: every command's options, exit statuses and examples. Which command answers",
    'which question, with runs of each: [troubleshooting.md](troubleshooting.md).',
    '',
    'Every command below prints this text itself with `--help`. What `--json` prints, and what each `doctor` check',
    'means: [cli-output.md](cli-output.md).',
    '',
    '| Command | What it does |',
    '|---|---|',
    ...commands.map((c) => `| [\`${c.name}\`](#${c.name}) | ${c.summary.replace(/\|/g, '\\|')} |`),
    '',
    ...FAULT_POLICY,
    '## cube-dual-auth --help',
    '',
    ...block((await helpOf(run, ['--help'])).text),
  ];
  for (const command of commands) {
    const help = (await helpOf(run, [command.name, '--help'])).text;
    lines.push(`## ${command.name}`, '', ...block(help));
    for (const action of actionsIn(help)) {
      const own = await helpOf(run, [command.name, action, '--help']);
      // Only an action that answers with a help of its own gets a section; otherwise its command's help says it all.
      if (own.code === 0 && own.text !== help) lines.push(`### ${command.name} ${action}`, '', ...block(own.text));
    }
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(CLI_REFERENCE, await cliReference());
  console.log(`wrote ${CLI_REFERENCE}`);
}
