// npm run bench:scrub: the CLI's scrubber (src/cli/scrub.ts) on large answers, as ratios within one run: the work
// must grow with the text's length, not with the number of values held (docs/cli.md, "Faults and limits").
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Scrubber } = require('../dist/cli/scrub.js');

const ROUNDS = 7;
/** An answer of `bytes` of JSON-like text holding no held value. */
const answerOf = (bytes) => JSON.stringify({ rows: randomBytes(bytes / 2).toString('base64') }).slice(0, bytes);

/** Median ms of scrubbing `text` with a scrubber holding `secrets` API secrets and `tokens` tokens. */
function median(text, { secrets, tokens }) {
  const scrubber = new Scrubber();
  for (let i = 0; i < secrets; i++) scrubber.holdSecret(randomBytes(32).toString('hex'));
  for (let i = 0; i < tokens; i++)
    scrubber.holdToken(
      ['eyJhbGciOiJIUzI1NiJ9', randomBytes(40), randomBytes(32)].map((p) => p.toString('base64url')).join('.'),
    );
  const times = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now();
    scrubber.scrub(text);
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[ROUNDS >> 1];
}

const MiB = 1 << 20;
const one = median(answerOf(MiB), { secrets: 1, tokens: 0 });
const many = median(answerOf(MiB), { secrets: 100, tokens: 60 });
const twice = median(answerOf(2 * MiB), { secrets: 1, tokens: 0 });
const result = {
  'ms, 1 MiB, 1 secret': +one.toFixed(1),
  'ms, 1 MiB, 100 secrets and 60 tokens': +many.toFixed(1),
  'ms, 2 MiB, 1 secret': +twice.toFixed(1),
  'ratio, many values to one': +(many / one).toFixed(2),
  'ratio, 2 MiB to 1 MiB': +(twice / one).toFixed(2),
};
console.log(JSON.stringify(result, null, 2));
