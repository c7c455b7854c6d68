/**
 * `provider rotate-secret --replica-metrics`: once the Cube accepts the new secret, the service is changed only when
 * every replica's metrics (servers on 127.0.0.1 the test changes) show the same api-secrets, none kept; and
 * `--k8s-selector` prints the annotation patch that makes kubelet sync the Secret at once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { Deployment } from '../../support/deployment';
import { PROVIDER as NAME, rotateSecretBed } from '../../support/rotate-secret';

const bed = rotateSecretBed('rotate-secret-replicas-');
const { oldSecret: OLD, newSecret: NEW } = bed;
const FP = { both: '0123456789abcdef', old: 'fedcba9876543210' };

let cube: Deployment;
const servers: Server[] = [];
beforeEach(async () => {
  cube = await bed.cube([NEW, OLD]);
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((one) => new Promise((resolve) => one.close(resolve))));
});

/** The api-secrets series of a replica's metrics, as the hook writes them. */
const apiSecrets = (source: string, fingerprint: string, generation: number) =>
  `cube_dual_auth_secret_in_force{file="api-secrets",source="${source}",fingerprint="${fingerprint}"} 1
cube_dual_auth_secret_kept{file="api-secrets"} 0
cube_dual_auth_secret_kept_since_seconds{file="api-secrets"} 0
cube_dual_auth_secret_generation{file="api-secrets"} ${generation}
`;

/** A replica's metrics endpoint, answering what `text` says at each read; its URL and how often it was read. */
async function replica(text: (read: number) => string): Promise<{ url: string; reads: () => number }> {
  let reads = 0;
  const one = createServer((_req, res) => {
    reads += 1;
    res.writeHead(200, { 'content-type': 'text/plain' }).end(text(reads));
  });
  servers.push(one);
  await new Promise<void>((resolve) => one.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(one.address() as AddressInfo).port}/metrics`, reads: () => reads };
}

const updates = () => bed.updates();
const rotate = (...extra: string[]) => bed.rotate(cube.url, ...extra);

describe('provider rotate-secret with --replica-metrics', () => {
  test('waits until every replica holds the same api-secrets, then updates the service', async () => {
    const first = await replica(() => apiSecrets('file', FP.both, 1));
    // The second still has the environment's secret on its first two reads, then takes the file.
    const second = await replica((read) =>
      read <= 2 ? apiSecrets('environment', FP.old, 0) : apiSecrets('file', FP.both, 1),
    );
    const result = await rotate('--replica-metrics', first.url, '--replica-metrics', second.url);
    expect(result.stderr).toBe(
      `Not every replica holds the new api-secrets yet: ${new URL(second.url).host} in force from the environment rather than the file.\nReading their metrics again every 1 s\n`,
    );
    expect(result.code).toBe(0);
    expect(second.reads()).toBe(3);
    expect(updates()).toHaveLength(1);
    expect(result.stdout).toContain('Last step:');
    expect(result.stdout).not.toContain('kubectl');
  });

  test('replicas that never agree within --wait: exit 1, nothing changed at the service', async () => {
    const first = await replica(() => apiSecrets('file', FP.both, 2));
    const behind = await replica(() => apiSecrets('file', FP.old, 1));
    const result = await rotate('--replica-metrics', first.url, '--replica-metrics', behind.url, '--wait', '1500ms');
    expect(result.code).toBe(1);
    expect(updates()).toEqual([]);
    expect(bed.server.dataProviders.get(NAME)?.credentials.secretKey).toBe(OLD);
    const said = `${new URL(behind.url).host} a generation behind (at generation 1, the others at 2)`;
    expect(result.stderr).toContain(
      `cube-dual-auth provider rotate-secret: the Cube accepts the new secret, but within 1500 ms not every replica held the same api-secrets: ${said}.`,
    );
    expect(result.stderr).toContain('Nothing was changed at the service.');
  });

  test('--k8s-selector prints the annotation patch with the last step; a selector a shell would read is refused', async () => {
    const result = await rotate('--k8s-selector', 'app=cube-api,tier in (api)');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /\nOnce the Secret is changed, have kubelet sync it into every pod now: kubectl annotate pods -l 'app=cube-api,tier in \(api\)' cube-dual-auth\/secrets-synced-at=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ --overwrite\n$/,
    );
    const refused = await rotate('--k8s-selector', "app=x'; rm -rf /");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--k8s-selector must be a label selector');
    expect(updates()).toHaveLength(1);
  });
});
