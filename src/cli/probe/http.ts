/** One GET to the deployment, bounded in time and size, with what came back or why nothing did. */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';

/** Most of a body kept for judging: a Cube error is a few hundred bytes, /meta of a large model a few hundred KB. */
const MAX_BODY_BYTES = 1024 * 1024;

export type Answer =
  /** The deployment answered: status and (the first MiB of) the body. */
  | { readonly kind: 'answered'; readonly status: number; readonly text: string; readonly ms: number }
  /** No answer: connection refused, name unknown, TLS failure, reset, or no complete answer in time. */
  | { readonly kind: 'unanswered'; readonly reason: string; readonly ms: number };

export interface GetOptions {
  readonly headers: Readonly<Record<string, string>>;
  /** Deadline for the whole exchange, connection to last byte. */
  readonly timeoutMs: number;
  /** Milliseconds on a monotonic clock (tests pass their own). */
  readonly now?: () => number;
}

const CONNECTION_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'unknown host name',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

function describeFailure(error: unknown, url: URL): string {
  const code = (error as NodeJS.ErrnoException).code;
  const known = code === undefined ? undefined : CONNECTION_ERRORS[code];
  if (known !== undefined) return `cannot reach ${url.host}: ${known} (${code})`;
  // TLS and other socket errors: their messages name the certificate problem or the call, never our headers.
  const message = error instanceof Error ? error.message : String(error);
  return `cannot reach ${url.host}: ${code === undefined ? message : `${message} (${code})`}`;
}

/** GETs `url`; never rejects, never outlives `timeoutMs`, never keeps the connection (or the process) alive. */
export function get(url: URL, { headers, timeoutMs, now = () => performance.now() }: GetOptions): Promise<Answer> {
  const started = now();
  const elapsed = () => Math.round(now() - started);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      resolve(answer);
    };
    const request = send(url, { method: 'GET', headers: { ...headers, connection: 'close' }, agent: false }, (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => finish({ kind: 'answered', status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ms: elapsed() });
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        // Enough to judge: the rest is not read.
        if (size >= MAX_BODY_BYTES) done();
      });
      response.on('end', done);
      response.on('error', (error) => finish({ kind: 'unanswered', reason: describeFailure(error, url), ms: elapsed() }));
    });
    const deadline = setTimeout(() => finish({ kind: 'unanswered', reason: `no complete answer within ${timeoutMs} ms`, ms: elapsed() }), timeoutMs);
    request.on('error', (error) => finish({ kind: 'unanswered', reason: describeFailure(error, url), ms: elapsed() }));
    request.end();
  });
}
