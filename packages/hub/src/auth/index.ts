/**
 * The hub's authenticators and authorizer over the API server: TokenReview, an authenticating
 * proxy's request headers, and SubjectAccessReview with its decision cache.
 */
export { bearerTokenOf, BEARER_PROTOCOL_PREFIX } from './bearerToken.ts';
export type { BearerToken } from './bearerToken.ts';
export { requestHeaderAuthenticator } from './requestHeader.ts';
export type { RequestHeaderAuthenticatorOptions } from './requestHeader.ts';
export { ReviewFailedError } from './reviewClient.ts';
export type { ReviewClient, ReviewFailureReason } from './reviewClient.ts';
export { subjectAccessReviewAuthorizer } from './subjectAccessReview.ts';
export type { SubjectAccessReviewAuthorizer, SubjectAccessReviewAuthorizerOptions } from './subjectAccessReview.ts';
export { tokenReviewAuthenticator } from './tokenReview.ts';
export type { TokenReviewAuthenticator, TokenReviewAuthenticatorOptions } from './tokenReview.ts';
