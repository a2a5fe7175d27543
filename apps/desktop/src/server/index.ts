/**
 * The UI server of `brickpost ui`. Terms: the *token* is a random secret
 * printed in the URL the user opens; the *session cookie* carries it for the
 * page's later requests; the *bridge* is the renderer's side of the HTTP API
 * (renderer/bridge/browser.ts); a *job stream* is a long job's events as
 * Server-Sent Events.
 */
export { startUiServer, CONTENT_SECURITY_POLICY, type UiServer, type UiServerOptions } from './server.js';
export { RENDERER_ROOT } from './static.js';
