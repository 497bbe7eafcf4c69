export type { AllowEntry } from './address-policy.js';
export { normalizeHost, parseAddress, parseAllowList, refuseAddress } from './address-policy.js';
export type { HostResolver, ResolvedAddress } from './guarded-connector.js';
export { systemResolver } from './guarded-connector.js';
export type { GuardedHttpOptions, GuardedRequestInit, GuardedResponse } from './guarded-http.js';
export { GuardedHttpClient, parseContentType } from './guarded-http.js';
export { camelCaseKeys, HTTP_DEFAULTS, httpConfigShape } from './http-options.js';
export type { WebRequestFailure } from './web-request-error.js';
export { WebRequestError } from './web-request-error.js';
