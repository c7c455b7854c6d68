import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
    const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=loopback', '-addext', `subjectAltName=IP:${host}`, '-keyout', keyFile, '-out', caFile];
    execFile('openssl', args, { timeout: 15_000 }, (error, _stdout, stderr) => (error ? reject(new Error(`openssl failed: ${stderr || error.message}`)) : resolve()));
  });
  return {
    key: readFileSync(keyFile),
    cert: readFileSync(caFile),
    caFile,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
