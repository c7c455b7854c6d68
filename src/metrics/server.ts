/**
 * The metrics listener: `GET /metrics` on a port of its own inside the Cube process, never on Cube's API port, so
 * callers of the API never see it. It answers nothing else, and never reads a request body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DualAuthConfigError } from '../errors';
import { PROMETHEUS_CONTENT_TYPE } from './catalog';

interface MetricsListenerOptions {
  readonly host: string;
  readonly port: number;
  /** How messages name the port and the host (their variables for the ready-made hook). */
  readonly names: { readonly port: string; readonly host: string };
  /** The exposition text, read per scrape. */
  readonly text: () => Promise<string>;
}

// Run in a child process: Node binds ports asynchronously only, and the hook is made synchronously while Cube loads
// cube.js, where a configuration that cannot work must throw so that Cube stops before it listens.
const TRY_BIND = `
const server = require('node:net').createServer();
server.once('error', (error) => process.stdout.write(String(error.code ?? error.message)));
server.listen(Number(process.argv[2]), process.argv[1], () => server.close());`;

/** Why `host:port` cannot be bound, as a configuration error; undefined when it can. */
function bindProblem({ host, port, names }: MetricsListenerOptions): DualAuthConfigError | undefined {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
  // An empty environment: NODE_OPTIONS may preload what the application runs (an exporter with a port of its own).
  const probe = spawnSync(process.execPath, ['-e', TRY_BIND, host, String(port)], {
    encoding: 'utf8',
    timeout: 10_000,
    env: {},
  });
  const code = probe.stdout.trim();
  if (probe.error === undefined && code === '') return undefined;
  const at = `${host}:${port}`;
  if (code === 'EADDRINUSE')
    return new DualAuthConfigError(
      names.port,
      `is ${port}, which is in use on ${host}: choose a free port for the metrics listener`,
    );
  if (code === 'EACCES')
    return new DualAuthConfigError(
      names.port,
      `is ${port}, which this process may not listen on (ports under 1024 need privileges)`,
    );
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new DualAuthConfigError(
      names.host,
      `is ${JSON.stringify(host)}, which is no address of this machine (${code})`,
    );
  }
  return new DualAuthConfigError(
    names.port,
    `cannot be listened on at ${at}: ${code || probe.error?.message || 'the check failed'}`,
  );
}

/** A request that announces a body: answered without reading it, and its connection closed. */
function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function answer(response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
  response.end(text);
}

export interface MetricsListener {
  close(): void;
}

/**
 * Listens on `host:port`, or throws a {@link DualAuthConfigError} naming the variable when that cannot be bound. Does
 * not keep the process alive: Cube does, and a script that made a hook must still be able to end.
 */
export function listenForMetrics(options: MetricsListenerOptions): MetricsListener {
  const problem = bindProblem(options);
  if (problem !== undefined) throw problem;
  // Required here: Node's http costs every process that loads the package milliseconds; only this listener needs it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createServer } = require('node:http') as typeof import('node:http');
  const server = createServer(
    { requestTimeout: 10_000, headersTimeout: 5_000, maxHeaderSize: 8_192 },
    (request, response) => {
      if (hasBody(request)) {
        response.shouldKeepAlive = false;
        answer(response, 413, 'The metrics listener takes no request body\n', { Connection: 'close' });
        return;
      }
      const path = (request.url ?? '').split('?')[0];
      if (path !== '/metrics') return answer(response, 404, 'Not found: the metrics are at /metrics\n');
      if (request.method !== 'GET' && request.method !== 'HEAD')
        return answer(response, 405, 'Only GET\n', { Allow: 'GET, HEAD' });
      options.text().then(
        (text) => answer(response, 200, text, { 'Content-Type': PROMETHEUS_CONTENT_TYPE }),
        () => answer(response, 500, 'The metrics could not be collected\n'),
      );
    },
  );
  // Taken between the check and now (a race of microseconds): the same configuration error, which stops the process
  // as an uncaught error, since the hook that could have thrown it has been handed to Cube already.
  server.once('error', () => {
    throw (
      bindProblem(options) ??
      new DualAuthConfigError(options.names.port, `could not be listened on at ${options.host}:${options.port}`)
    );
  });
  server.listen(options.port, options.host);
  server.unref();
  return {
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}
