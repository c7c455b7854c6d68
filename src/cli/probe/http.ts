/** One GET to the deployment, bounded in time and size, with what came back or why nothing did. */
import { performance } from 'node:perf_hooks';
import { exchange, Interrupted, readBody } from '../../http/exchange';
import { transportHint } from '../../http/transport-failure';
import { NOT_CHECKED } from '../deadline';

/** Most of a body kept for judging: a Cube error is a few hundred bytes, /meta of a large model a few hundred KB. */
const MAX_BODY_BYTES = 1024 * 1024;

export type Answer =
  /** The deployment answered: status and (the first MiB of) the body. */
  | { readonly kind: 'answered'; readonly status: number; readonly text: string; readonly ms: number }
  /** No answer: connection refused, name unknown, TLS failure, reset, or no complete answer in time. */
  | { readonly kind: 'unanswered'; readonly reason: string; readonly ms: number };

interface GetOptions {
  readonly headers: Readonly<Record<string, string>>;
  /** Deadline for the whole exchange, connection (through the proxy too) to last byte. */
  readonly timeoutMs: number;
  /** Where `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` are read: the CLI's environment. */
  readonly env: NodeJS.ProcessEnv;
  /** Milliseconds on a monotonic clock (tests pass their own). */
  readonly now?: () => number;
  /** The command's deadline (deadline.ts): aborting it ends the exchange, which is then not checked. */
  readonly signal?: AbortSignal;
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
  const hint = transportHint(error);
  if (hint !== undefined) return `cannot reach ${url.host}: ${hint}`;
  // TLS and other socket errors: their messages name the certificate problem or the call, never our headers.
  const message = error instanceof Error ? error.message : String(error);
  return `cannot reach ${url.host}: ${code === undefined ? message : `${message} (${code})`}`;
}

/** GETs `url` through the environment's proxy, as the hook fetches keys; never rejects, never outlives `timeoutMs`. */
export async function get(
  url: URL,
  { headers, timeoutMs, env, now = () => performance.now(), signal }: GetOptions,
): Promise<Answer> {
  const started = now();
  const elapsed = () => Math.round(now() - started);
  try {
    const answer = await exchange(
      url,
      { headers: { ...headers, connection: 'close' }, timeoutMs, env, ...(signal === undefined ? {} : { signal }) },
      async (response) => {
        // Enough to judge: the rest is not read.
        const body = await readBody(response, MAX_BODY_BYTES, undefined, 'cut');
        return { status: response.statusCode ?? 0, text: body.toString('utf8') };
      },
    );
    return { kind: 'answered', ...answer, ms: elapsed() };
  } catch (error) {
    let reason = describeFailure(error, url);
    if (error instanceof Interrupted)
      reason = error.by === 'signal' ? NOT_CHECKED : `no complete answer within ${timeoutMs} ms`;
    return { kind: 'unanswered', reason, ms: elapsed() };
  }
}
