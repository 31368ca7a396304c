/**
 * A dashboard hub: tabs connect over one WebSocket each and speak the channel protocol
 * (`@rxinformer/core/channel`); the hub serves every user from one shared informer per resource,
 * scope and cluster, and shows each user only what its `Authorizer` allows. docs/hub-security.md
 * is the security model; `@rxinformer/hub/browser` is the tab's side.
 *
 * @module @rxinformer/hub
 */

// The hub
export { createHub } from './hub.ts';
export type { Hub } from './hub.ts';
export { startHub } from './startHub.ts';
export type { StartedHub, StartHubOptions } from './startHub.ts';
export type { HubLimits, HubOptions, ProjectionProvider } from './options.ts';
export { fieldPathProjections } from './projections.ts';
export type { FieldPathProjectionOptions } from './projections.ts';
export type { HubLogFields, HubLogger } from './log.ts';
export type { ClosedFor, DecisionCounts, HubMetrics, UpgradeRefusal } from './metrics.ts';
export { HUB_SUBPROTOCOL } from './upgrade.ts';
export type { OriginPolicy } from './upgrade.ts';

// Authentication and authorization: the contracts
export type {
  AccessChange,
  AccessDecision,
  AccessRequest,
  AccessVerb,
  Authentication,
  Authenticator,
  Authorizer,
  HubUser,
} from './auth.ts';

// Authentication and authorization over the API server
export {
  BEARER_PROTOCOL_PREFIX,
  bearerTokenOf,
  requestHeaderAuthenticator,
  ReviewFailedError,
  subjectAccessReviewAuthorizer,
  tokenReviewAuthenticator,
} from './auth/index.ts';
export type {
  BearerToken,
  RequestHeaderAuthenticatorOptions,
  ReviewClient,
  ReviewFailureReason,
  SubjectAccessReviewAuthorizer,
  SubjectAccessReviewAuthorizerOptions,
  TokenReviewAuthenticator,
  TokenReviewAuthenticatorOptions,
} from './auth/index.ts';
