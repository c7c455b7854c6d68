import { isObject } from '../http/json';
import { jwksWording } from './errors';
import { fetchDocument, HttpStatus, statusProblem, type FetchDocumentOptions } from './fetch-document';

/** A JSON Web Key Set as served. Only the shape is checked here; the keys are vetted by `usableKeys`. */
export interface JwksDocument {
  readonly keys: readonly unknown[];
}

/** A key set as the identity provider answered it. */
interface JwksAnswer {
  readonly document: JwksDocument;
  /** The answer's own lifetime from `Cache-Control`, in ms; undefined when it says nothing. */
  readonly maxAgeMs: number | undefined;
}

export type FetchJwksOptions = FetchDocumentOptions;

const ACCEPT = 'application/jwk-set+json, application/json;q=0.9';

/** GETs a JWKS, bounded in time and size (see `fetchDocument`); every failure says what went wrong with which URL. */
export async function fetchJwks(jwksUri: string, options: FetchJwksOptions): Promise<JwksAnswer> {
  const wording = jwksWording(jwksUri);
  const answer = await fetchDocument(jwksUri, ACCEPT, options, wording);
  if (answer instanceof HttpStatus) throw wording.invalid(statusProblem(answer));
  if (!isJwksDocument(answer.json)) throw wording.invalid('not a JWKS (no "keys" array)');
  return { document: answer.json, maxAgeMs: answer.maxAgeMs };
}

function isJwksDocument(value: unknown): value is JwksDocument {
  return isObject(value) && Array.isArray(value.keys);
}
