/** Errors of the service client, all {@link EmbeddableError}s; no message holds the API key or a secret. */

/** What the service's BUILDER codes mean (docs/service-client.md#service-errors, publish operation). */
export const BUILDER_CODE_EXPLANATIONS: Readonly<Record<string, string>> = {
  'BUILDER-172': `the version is a tag name (such as production) instead of a version label such as v3; publish takes explicit labels only`,
  'BUILDER-996': 'tags is empty or missing; give at least one of development, staging, production',
  'BUILDER-117':
    'one or more tags are not valid environment tags for the workspace (allowed: development, staging, production)',
  'BUILDER-120': 'the saved version does not exist for this dashboard',
  'BUILDER-998': 'the API key is missing or invalid; use a workspace API key from the workspace home page',
};

/** Base class: catch this to handle every failure of the client. */
export class EmbeddableError extends Error {
  /** The client operation that failed, for example `publishVersion`; `undefined` for option errors. */
  readonly operation: string | undefined;

  constructor(message: string, operation: string | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.operation = operation;
  }
}

/** Our own validation refused the input before any request was sent. */
export class EmbeddableValidationError extends EmbeddableError {
  /** The option or field at fault, for example `tags` or `credentials.instanceUrl`. */
  readonly field: string;
  /** The BUILDER code the service would have answered with, when the interface names one. */
  readonly code: string | undefined;

  constructor(field: string, message: string, operation?: string, code?: string) {
    super(`${field}: ${message}${code ? ` (the service refuses this with ${code})` : ''}`, operation);
    this.field = field;
    this.code = code;
  }
}

/** Why a request never got an answer. */
export type NetworkFailure = 'ERR_NETWORK' | 'ERR_TIMEOUT';

/** The service could not be reached, or did not answer within the timeout. */
export class EmbeddableNetworkError extends EmbeddableError {
  /** `ERR_TIMEOUT` when the per-attempt timeout ran out, `ERR_NETWORK` otherwise. */
  readonly code: NetworkFailure;
  /** How many attempts were made (more than one only for operations that are safe to retry). */
  readonly attempts: number;

  constructor(code: NetworkFailure, message: string, operation: string, attempts: number, cause: unknown) {
    super(message, operation, { cause });
    this.code = code;
    this.attempts = attempts;
  }
}

/** The service answered with an error status. */
export class EmbeddableApiError extends EmbeddableError {
  /** HTTP status of the answer. */
  readonly status: number;
  /** The BUILDER code found in the answer, for example `BUILDER-172`; `undefined` when there is none. */
  readonly code: string | undefined;
  /** What the status and code mean, in words. */
  readonly explanation: string;
  /** The service's own message, when its body had one (printable, shortened, secrets removed). */
  readonly serviceMessage: string | undefined;
  /** How many attempts were made. */
  readonly attempts: number;

  constructor(init: {
    operation: string;
    status: number;
    code: string | undefined;
    explanation: string;
    serviceMessage: string | undefined;
    attempts: number;
  }) {
    const code = init.code ? ` ${init.code}` : '';
    const said = init.serviceMessage ? ` (service said: ${init.serviceMessage})` : '';
    super(`${init.operation} refused: HTTP ${init.status}${code}: ${init.explanation}${said}`, init.operation);
    this.status = init.status;
    this.code = init.code;
    this.explanation = init.explanation;
    this.serviceMessage = init.serviceMessage;
    this.attempts = init.attempts;
  }
}

/** Why a promotion or a rollback cannot start from the dashboard's current tags and versions. */
export type StateProblem = 'ERR_TAG_ABSENT' | 'ERR_NO_OLDER_VERSION';

/** The dashboard's tags or saved versions do not allow a promotion or rollback; the tags were read, nothing changed. */
export class EmbeddableStateError extends EmbeddableError {
  /** `ERR_TAG_ABSENT` or `ERR_NO_OLDER_VERSION`. */
  readonly code: StateProblem;

  constructor(code: StateProblem, message: string, operation: string) {
    super(`${operation} refused: ${message}`, operation);
    this.code = code;
  }
}

/** Why an answer was not accepted, when it is not its content: `ERR_TOO_LARGE`, larger than the client's limit. */
export type ResponseProblem = 'ERR_TOO_LARGE';

/** A success with a body not as the interface describes; or any status with a body over `maxResponseBytes`. */
export class EmbeddableResponseError extends EmbeddableError {
  /** HTTP status of the answer. */
  readonly status: number;
  /** `ERR_TOO_LARGE` for a body over `maxResponseBytes`; `undefined` for a body not as described. */
  readonly code: ResponseProblem | undefined;

  constructor(operation: string, status: number, problem: string, code?: ResponseProblem) {
    super(`${operation}: the service answered HTTP ${status} with an unexpected body: ${problem}`, operation);
    this.status = status;
    this.code = code;
  }
}
