/** An update of `rotate-secret` with no answer (docs/errors.md, exit 4): the service may hold the new secret. */
import { EmbeddableNetworkError, type EmbeddableError } from '../../service';
import { forTerminal } from '../../terminal-text';
import { EXIT_UNKNOWN, type CliIO } from '../io';

/** Failures that prove the request never reached the service: no connection was made. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The code of a fetch failure's cause, as undici sets it. */
function causeCode(error: EmbeddableNetworkError): unknown {
  const cause = error.cause as { cause?: { code?: unknown }; code?: unknown } | undefined;
  return cause?.cause?.code ?? cause?.code;
}

/**
 * Whether the update may have reached the service though no answer came: a timeout, or a connection lost after
 * it was made.
 * @example if (mayHaveArrived(error)) return unknownOutcome(name, secretLists, io);
 */
export function mayHaveArrived(error: EmbeddableError): boolean {
  if (!(error instanceof EmbeddableNetworkError)) return false;
  // A timeout's cause is the abort, which names no failed connection.
  return !NOT_CONNECTED.has(causeCode(error) as string);
}

/** What the operator is told after the service's error line: look, keep both secrets; exit {@link EXIT_UNKNOWN}. */
export function unknownOutcome(name: string, secretLists: string, io: CliIO): number {
  io.stderr.write(
    `The Cube accepts the new secret, and the update got no answer: the service may hold the new secret: check with \`provider show --name ${forTerminal(name)}\`, or run this command again (sending the same secret twice is harmless). Keep both secrets in ${secretLists} until then.\n`,
  );
  return EXIT_UNKNOWN;
}
