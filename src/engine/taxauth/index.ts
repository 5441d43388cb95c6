export { TaxauthClient, annulmentAnswer, clientFor, multipartBody, taxauthAgent, uploadName, type TaxauthClientOptions } from './client.js';
export { checkConnection, type CheckConnectionOptions, type ConnectionCheck, type ConnectionError } from './connection.js';
export { DEFAULT_TIMEOUT_MS, DEFAULT_URLS, ENVIRONMENT_SEGMENT, clientSettings, type ClientSettings, type EnvironmentUrls } from './environments.js';
export { TaxauthError, collapseErrorBody, type TaxauthErrorKind } from './errors.js';
export { TokenCache, authenticate, defaultTokenCache, signSeed, type TaxauthLogger, type TokenCacheOptions, type TokenInfo } from './token-cache.js';
export type * from './types.js';
