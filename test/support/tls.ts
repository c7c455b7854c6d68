import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');

/**
 * A self-signed certificate for one loopback address, made by openssl for this run. A client trusts it through
 * NODE_EXTRA_CA_CERTS (`caFile`), which Node reads only at start: a test that needs the trust runs a child process.
 */
export interface LoopbackCertificate {
  readonly key: Buffer;
  readonly cert: Buffer;
  /** The certificate's file, for NODE_EXTRA_CA_CERTS. */
  readonly caFile: string;
  /** Deletes the files. */
  remove(): void;
}

export async function loopbackCertificate(host: '127.0.0.1' | '::1' = '127.0.0.1'): Promise<LoopbackCertificate> {
  const dir = mkdtempSync(join(tmpdir(), 'cube-dual-auth-tls-'));
  const [keyFile, caFile] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  await new Promise<void>((resolve, reject) => {
    const args = [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=loopback',
      '-addext',
      `subjectAltName=IP:${host}`,
      '-keyout',
      keyFile,
      '-out',
      caFile,
    ];
    execFile('openssl', args, { timeout: 15_000 }, (error, _stdout, stderr) =>
      error ? reject(new Error(`openssl failed: ${stderr || error.message}`)) : resolve(),
    );
  });
  return {
    key: readFileSync(keyFile),
    cert: readFileSync(caFile),
    caFile,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Runs `script` in a fresh Node from the repository's root, with `env` as its whole environment (apart from PATH):
 * how a test trusts a {@link LoopbackCertificate}, or reads the build (dist/, made by `npm test`). Resolves with its
 * standard output.
 */
export function runInFreshNode(script: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', script],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 15_000, cwd: ROOT },
      (error, stdout, stderr) =>
        error ? reject(new Error(`node failed: ${stderr || error.message}`)) : resolve(stdout),
    );
  });
}
