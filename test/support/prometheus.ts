// A real Prometheus server for the metrics tests: Debian's `prometheus` (2.42 here; .ci/run installs it when absent),
// started on a free loopback port with its own configuration and a temporary storage directory, and stopped after.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { freePort } from '../../scripts/lib/ports.mjs';

const READY_WITHIN_MS = 30_000;
const STOPS_WITHIN_MS = 10_000;

/** One sample of an instant query: its labels and its value. */
export interface Sample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface RunningPrometheus {
  readonly url: string;
  /** Evaluates `query` now (the HTTP API's instant query) and returns its samples. */
  query(query: string): Promise<Sample[]>;
  /** Last lines it printed, for a failure's message. */
  output(): string;
  stop(): Promise<void>;
}

export interface PrometheusSettings {
  /** How often each target is scraped, and the rules evaluated; default 1 s. */
  readonly scrapeSeconds?: number;
  /** Rule files to load (absolute paths), evaluated every `scrapeSeconds`: their alerts show in `ALERTS`. */
  readonly ruleFiles?: readonly string[];
}

/** Starts Prometheus scraping `targets` (host:port, path /metrics) every `scrapeSeconds`; resolves once it is ready. */
export async function startPrometheus(
  targets: readonly string[],
  { scrapeSeconds = 1, ruleFiles = [] }: PrometheusSettings = {},
): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'cda-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      `  scrape_interval: ${scrapeSeconds}s`,
      `  scrape_timeout: ${scrapeSeconds}s`,
      `  evaluation_interval: ${scrapeSeconds}s`,
      ...(ruleFiles.length === 0 ? [] : ['rule_files:', ...ruleFiles.map((file) => `  - ${JSON.stringify(file)}`)]),
      'scrape_configs:',
      '  - job_name: cube',
      '    static_configs:',
      `      - targets: [${targets.map((target) => JSON.stringify(target)).join(', ')}]`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let printed = '';
  const server: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  for (const stream of [server.stdout, server.stderr])
    stream?.on('data', (chunk: Buffer) => (printed = (printed + chunk.toString('utf8')).slice(-4_000)));
  const exited = once(server, 'exit');
  const spawnFailed = once(server, 'error').then(([error]) => error as Error);

  async function stop(): Promise<void> {
    if (server.exitCode === null && server.signalCode === null) {
      server.kill('SIGTERM');
      const timer = setTimeout(() => server.kill('SIGKILL'), STOPS_WITHIN_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  }

  const deadline = Date.now() + READY_WITHIN_MS;
  for (;;) {
    const failed = await Promise.race([spawnFailed, pause(0).then(() => undefined)]);
    if (failed) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(
        `prometheus could not be started (${failed.message}): install it (apt-get install prometheus), as .ci/run does`,
      );
    }
    if (server.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited (${server.exitCode}) before it was ready:\n${printed}`);
    }
    const ready = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1_000) }).then(
      (answer) => answer.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus was not ready within ${READY_WITHIN_MS} ms:\n${printed}`);
    }
    await pause(100);
  }

  return {
    url,
    async query(query) {
      const answer = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query })}`, {
        signal: AbortSignal.timeout(5_000),
      });
      const body = (await answer.json()) as {
        status: string;
        error?: string;
        data?: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
      };
      if (body.status !== 'success' || body.data === undefined)
        throw new Error(`Prometheus refused ${query}: ${body.error ?? answer.status}`);
      return body.data.result.map(({ metric, value }) => ({ labels: metric, value: Number(value[1]) }));
    },
    output: () => printed,
    stop,
  };
}
