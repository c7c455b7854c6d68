export { KEY_SET_ALGORITHMS } from './algorithms';
export type { KeySetAlgorithm } from './algorithms';
export { createCheckAuth } from './check-auth';
export type { CheckAuth, SecurityContext, Verdict } from './check-auth';
export type { DualAuthOptions, SecurityContextInfo, SecurityContextMapper } from './config';
export { ENV, optionsFromEnv } from './env';
export { DualAuthConfigError, DualAuthError, forbidden } from './errors';
export type { AuthPath, RejectionCode } from './errors';
export type {
  AcceptedEvent,
  AuthEvent,
  AuthEventListener,
  InternalErrorEvent,
  KeySetRefreshedEvent,
  KeySetRefreshFailedEvent,
  RejectedEvent,
} from './events';
export { checkAuth } from './ready-made';
