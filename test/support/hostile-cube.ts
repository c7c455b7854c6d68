// A hostile Cube stand-in on 127.0.0.1 for `access`: /meta and /sql answers crafted to cost a reader time, memory or
// stack, or to make it print the caller's token. The shape is chosen by the first path segment of the base URL
// (`<url>/<shape>/cubejs-api/v1`), so one server serves every shape. Sizes are the smallest that still showed the
// fault before the readers were bounded (issue 43), so the tests cost little CPU.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answer, startDeployment, type Deployment } from './deployment';

/** One cube with one measure: every shape but the counts and echoes uses it. */
const ONE_CUBE = JSON.stringify({ cubes: [{ name: 'orders', measures: [{ name: 'orders.count' }] }] });

const sqlAnswer = (text: string, params: string = '[]'): string =>
  `{"sql":{"sql":[${JSON.stringify(text)},${params}]}}`;

/** The token a request carried, as Cube's client sends it (bare, or after `Bearer `). */
function tokenOf(request: IncomingMessage): string {
  return (request.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
}

/** `/meta` with `count` cubes, each with two measures and a dimension. */
function manyCubes(count: number): string {
  const cubes = Array.from({ length: count }, (_, i) => ({
    name: `c${i}`,
    measures: [{ name: `c${i}.a` }, { name: `c${i}.b` }],
    dimensions: [{ name: `c${i}.d` }],
  }));
  return JSON.stringify({ cubes });
}

type Shape = (request: IncomingMessage, response: ServerResponse, endpoint: 'meta' | 'sql') => void;

/** The shapes, by name. */
export const SHAPES = {
  /** Issue 43, 1: 200 KB of nested parentheses in the SQL. */
  'nested-parens': (_request, response, endpoint) =>
    answer(
      response,
      200,
      endpoint === 'meta' ? ONE_CUBE : sqlAnswer(`SELECT 1 WHERE ${'('.repeat(100_000)}x${')'.repeat(100_000)}`),
    ),
  /** Issue 43, 2: a repeated WHERE, 240 KB. */
  'repeated-where': (_request, response, endpoint) =>
    answer(response, 200, endpoint === 'meta' ? ONE_CUBE : sqlAnswer(`SELECT 1 ${'WHERE x = ? '.repeat(20_000)}`)),
  /** Issue 43, 3: parameters nested 100,000 deep. */
  'nested-params': (_request, response, endpoint) =>
    answer(
      response,
      200,
      endpoint === 'meta'
        ? ONE_CUBE
        : sqlAnswer('SELECT 1 WHERE x = ?', `[${'['.repeat(100_000)}${']'.repeat(100_000)}]`),
    ),
  /** Issue 43, 4: many cubes, each /sql answered slowly: only the deadline ends the run. */
  'slow-many': (_request, response, endpoint) => {
    if (endpoint === 'meta') return answer(response, 200, manyCubes(1_000));
    setTimeout(() => answer(response, 200, sqlAnswer('SELECT 1 WHERE t = ?', '["acme"]')), 300);
  },
  /** Issue 43, 5: the token echoed in cube names, SQL, parameters, and the signature alone in an error. */
  echo: (request, response, endpoint) => {
    const token = tokenOf(request);
    const [header, payload, signature] = token.split('.');
    if (endpoint === 'meta')
      return answer(
        response,
        200,
        JSON.stringify({
          cubes: [
            { name: token, measures: [{ name: `${token}.count` }] },
            { name: `sig_${signature}`, measures: [{ name: `sig_${signature}.count` }] },
          ],
        }),
      );
    if (request.url?.includes('sig_'))
      return answer(response, 400, JSON.stringify({ error: `bad signature ${signature} for ${payload}` }));
    return answer(
      response,
      200,
      sqlAnswer(`SELECT '${token}' WHERE h = '${header}' AND x = ?`, JSON.stringify([token])),
    );
  },
  /** Nested JSON in /meta itself. */
  'deep-meta': (_request, response) =>
    answer(response, 200, `{"cubes":[${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}]}`),
  /** Quadratic bait: thousands of AND terms, and wrapped terms inside wrapped terms. */
  'many-terms': (_request, response, endpoint) =>
    answer(
      response,
      200,
      endpoint === 'meta'
        ? ONE_CUBE
        : sqlAnswer(`SELECT 1 WHERE ${Array.from({ length: 30_000 }, (_, i) => `(c${i} = ?)`).join(' AND ')}`),
    ),
  /** Quadratic bait: unterminated quotes and placeholders. */
  'quote-bait': (_request, response, endpoint) =>
    answer(response, 200, endpoint === 'meta' ? ONE_CUBE : sqlAnswer(`SELECT 1 WHERE ${"'' ? $1 ".repeat(40_000)}'`)),
  /** A huge count: 8,000 cubes in /meta (800 KB, under the 1 MiB cap), each /sql answered at once. */
  'huge-count': (_request, response, endpoint) =>
    answer(response, 200, endpoint === 'meta' ? manyCubes(8_000) : sqlAnswer('SELECT 1 WHERE t = ?', '["acme"]')),
  /** Malformed JSON, and a body cut short. */
  malformed: (_request, response, endpoint) =>
    answer(response, 200, endpoint === 'meta' ? ONE_CUBE : '{"sql":{"sql":["SELECT 1 WHERE (x = ?', 'application/json'),
  /** An answer that never comes. */
  silent: () => undefined,
} satisfies Record<string, Shape>;

export type ShapeName = keyof typeof SHAPES;

/** Starts the stand-in; `base(shape)` is the `<cube-api-url>` that gets that shape. */
export async function startHostileCube(): Promise<Deployment & { base(shape: ShapeName): string }> {
  const deployment = await startDeployment((request, response) => {
    const [, shape] = (request.url ?? '/').split('/');
    const endpoint = (request.url ?? '').includes('/sql') ? 'sql' : 'meta';
    const serve = SHAPES[shape as ShapeName] as Shape | undefined;
    if (serve === undefined) return answer(response, 404, '{"error":"no such shape"}');
    serve(request, response, endpoint);
  });
  return { ...deployment, base: (shape) => `${deployment.url}/${shape}/cubejs-api/v1` };
}
