/**
 * A dashboard hub: tabs connect over one WebSocket each and speak the channel protocol
 * (`@rxinformer/core/channel`); the hub serves every user from one shared informer per resource,
 * scope and cluster, and shows each user only what its `Authorizer` allows. docs/hub-security.md
 * is the security model.
 *
 * @module @rxinformer/hub
 */

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
