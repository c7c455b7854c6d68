export { checkAuth, createCheckAuth } from './check-auth';
export type { CheckAuth, SecurityContext, Verdict } from './check-auth';
export { DualAuthConfigError, KEY_SET_ALGORITHMS } from './config';
export type { DualAuthOptions, KeySetAlgorithm, SecurityContextInfo, SecurityContextMapper } from './config';
export { ENV, optionsFromEnv } from './env';
export { DualAuthError } from './errors';
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
