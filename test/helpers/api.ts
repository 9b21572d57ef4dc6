import { expect } from "bun:test";
import type { ErrorCode } from "@/errors";
import { type ProblemBody, problemType } from "@/http/problem";

/** One HTTP exchange with the real server, body kept as text so each test decides how to read it. */
export interface Exchange {
  status: number;
  headers: Headers;
  text: string;
}

export interface CallOptions {
  method?: string;
  /** Sent as X-Api-Key. */
  key?: string;
  headers?: Record<string, string>;
  body?: RequestInit["body"];
}

export async function call(baseUrl: string, path: string, options: CallOptions = {}): Promise<Exchange> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key !== undefined) headers["x-api-key"] = options.key;
  const response = await fetch(`${baseUrl}${path}`, {
    method: options.method ?? "GET",
    headers,
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

export function json<T>(exchange: Exchange): T {
  return JSON.parse(exchange.text) as T;
}

/**
 * Asserts the full problem+json convention: media type, RFC 7807 members, our code and correlation id
 * (header and body agree), and returns the body for further checks.
 */
export function expectProblem(exchange: Exchange, status: number, code: ErrorCode, instance?: string): ProblemBody {
  expect(exchange.status).toBe(status);
  expect(exchange.headers.get("content-type")).toBe("application/problem+json");
  const body = json<ProblemBody>(exchange);
  expect(body.status).toBe(status);
  expect(body.code).toBe(code);
  expect(body.type).toBe(problemType(code));
  expect(typeof body.title).toBe("string");
  expect(body.title.length).toBeGreaterThan(0);
  expect(typeof body.detail).toBe("string");
  expect(body.detail.length).toBeGreaterThan(0);
  expect(body.correlationId).toBe(exchange.headers.get("x-correlation-id") ?? "missing header");
  if (instance !== undefined) expect(body.instance).toBe(instance);
  return body;
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
