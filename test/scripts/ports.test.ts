// Ports for the servers tests start (scripts/lib/ports.mjs): free, outside the range `listen(0)` draws from, and never
// handed to two processes within a minute, since CI runs two lanes of Cube suites side by side.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/ports.mjs';

const ports = join(__dirname, '../../scripts/lib/ports.mjs');

/** `count` ports from a process of their own. */
async function portsOfAnotherProcess(count: number): Promise<number[]> {
  const script = `const { freePort } = await import(${JSON.stringify(ports)});
    const got = [];
    for (let i = 0; i < ${count}; i++) got.push(await freePort());
    console.log(JSON.stringify(got));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
  return JSON.parse(stdout) as number[];
}

describe('freePort', () => {
  it('gives a port that a server can listen on, below the ports the system picks for listen(0)', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(32_768);
    const server = createServer().listen(port, '127.0.0.1');
    await once(server, 'listening');
    await new Promise((resolve) => server.close(resolve));
  });

  it('never gives one port to two processes within a minute', async () => {
    // 2 x 300 draws from 12,768 ports: about 7 would repeat without the reservations.
    const [first, second] = await Promise.all([portsOfAnotherProcess(300), portsOfAnotherProcess(300)]);
    const all = [...(first ?? []), ...(second ?? [])];
    expect(all).toHaveLength(600);
    expect(new Set(all).size).toBe(600);
  });
});
