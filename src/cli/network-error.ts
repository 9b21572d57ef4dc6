/**
 * fetch's own errors name neither the URL nor the cause in words (Bun: "ECONNREFUSED: Unable to
 * connect. Is the computer able to access the url?"), which leaves an operator guessing which of
 * the identity provider and the appliance is down. This names both.
 */
export async function fetchNamed(what: string, url: string | URL, init: RequestInit & { timeoutMs: number }): Promise<Response> {
  const { timeoutMs, ...rest } = init;
  try {
    return await fetch(url, { ...rest, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new Error(`Cannot reach ${what} at ${String(url)}: ${networkCause(error, timeoutMs)}`);
  }
}

function networkCause(error: unknown, timeoutMs: number): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === "TimeoutError") return `no answer within ${timeoutMs / 1000} s`;
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused (nothing listens on that host and port: check the URL and that the server is running)";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "the host name does not resolve (check the URL, or DNS on this machine)";
    case "ECONNRESET":
      return "the connection was reset (an http:// URL to an https:// port, or a proxy or firewall in between)";
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "no route to the host (check the network)";
    default:
      return typeof code === "string" && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
}
