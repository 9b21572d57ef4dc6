/**
 * Elysia's generated handler finds a request's path by searching for "/" from a fixed offset, 11 (past
 * "http://x.xx"). A short Host ("aml", the service name a container network gives it, or "a:80") puts
 * the path's own first slash before that offset, so "/v1/usage" was routed as "/usage" (404), and
 * "/zz/v1/usage" as "/v1/usage". A request with no Host at all (HTTP/1.0) has a relative url, which
 * `new URL` refuses; the access log's parse of it threw after the answer and stopped the process.
 *
 * Those requests are rebuilt on a placeholder origin, which nothing reads: the appliance never builds
 * an absolute URL from the request. Every other request (a Host of 4 or more characters) is passed
 * through untouched, so the check costs one or two `indexOf`s.
 */
const ELYSIA_PATH_SEARCH_FROM = 11;
const PLACEHOLDER_ORIGIN = "http://appliance.invalid";

export function routableRequest(request: Request): Request {
  const url = request.url;
  const scheme = url.indexOf("://");
  if (scheme !== -1) {
    const pathStart = url.indexOf("/", scheme + 3);
    if (pathStart >= ELYSIA_PATH_SEARCH_FROM) return request;
    return rebuilt(PLACEHOLDER_ORIGIN + (pathStart === -1 ? "/" : url.slice(pathStart)), request);
  }
  return rebuilt(PLACEHOLDER_ORIGIN + (url.startsWith("/") ? url : `/${url}`), request);
}

/**
 * The same request on another url. Not `new Request(url, request)`: that copies the body into a new
 * stream, and when the app stopped reading a chunked body at its size limit, cancelling the copy left
 * Bun's own stream unread, so the 413 was never sent and the connection hung (a review reproduced it
 * with a 5 MiB chunked body and "Host: aml"). Given the received stream itself, a cancel reaches it.
 */
function rebuilt(url: string, request: Request): Request {
  return new Request(url, { method: request.method, headers: request.headers, body: request.body, signal: request.signal, duplex: "half" });
}
