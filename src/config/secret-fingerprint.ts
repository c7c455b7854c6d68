/**
 * The fingerprint of a secrets file's content in force: equal on replicas that hold the same content, and as slow to
 * test a guess against as scrypt at the cost below (docs/security.md#the-fingerprint-of-the-secrets-in-force).
 */
import { scrypt } from 'node:crypto';
import type { SecretFile } from './secrets-dir';

/** scrypt's cost: N = 2^15, r = 8, p = 1 holds 32 MiB and takes about 0.1 s of one core per fingerprint. */
export const FINGERPRINT_COST = { N: 2 ** 15, r: 8, p: 1 } as const;
/** Room for scrypt's 128 · N · r bytes, which Node's default bound (32 MiB) leaves none over for. */
const MAX_MEMORY = 64 * 1024 * 1024;
/** 8 bytes: 16 hex digits, enough to tell contents apart, too few to carry a secret. */
const FINGERPRINT_BYTES = 8;

/** The fixed salt of one file: per purpose and per file, so that no fingerprint serves another use. */
export const fingerprintSalt = (file: SecretFile): string => `cube-dual-auth secret fingerprint v1 ${file}`;

/**
 * The fingerprint of `content` (the canonical bytes of a file's value in force), computed on libuv's thread pool so
 * that neither a request nor Cube's event loop waits for it.
 * @example
 * await secretFingerprint('sql-password', Buffer.from('"s3cret"')) // '5f0c…' (16 hex digits)
 */
export function secretFingerprint(file: SecretFile, content: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    scrypt(
      content,
      fingerprintSalt(file),
      FINGERPRINT_BYTES,
      { ...FINGERPRINT_COST, maxmem: MAX_MEMORY },
      (error, key) => (error === null ? resolve(key.toString('hex')) : reject(error)),
    );
  });
}
