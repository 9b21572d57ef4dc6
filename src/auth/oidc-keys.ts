// The IdP's discovery document and key set, cached, with rate-limited refresh on unknown keys.
// Our own cache over createLocalJWKSet instead of createRemoteJWKSet because we need an injectable
// fetch and clock, a distinct error for an unreachable IdP, and a single-flight refresh that
// concurrent requests carrying the same new kid can join instead of being told "rate limited".
import { createLocalJWKSet, type JSONWebKeySet } from "jose";
import { readCapped } from "@/lib/read-capped";
import { OidcDiscoveryError } from "./oidc-errors";

export type OidcDiscoveryDocument = {
  issuer: string;
  jwks_uri: string;
  token_endpoint?: string;
  authorization_endpoint?: string;
  [member: string]: unknown;
};

/** The part of fetch we use; narrower than `typeof fetch` so a plain wrapper function fits. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export type KeySnapshot = {
  readonly jwks: JSONWebKeySet;
  readonly resolve: ReturnType<typeof createLocalJWKSet>;
  readonly fetchedAt: number;
};

export type KeySetEvent =
  | { type: "jwks_fetched"; keyCount: number }
  | { type: "jwks_fetch_failed"; detail: string; hadCachedKeys: boolean };

export type KeySetCacheOptions = {
  issuer: string;
  fetch: FetchLike;
  now: () => number;
  refreshMinIntervalMs: number;
  maxAgeMs: number;
  timeoutMs: number;
  onEvent?: ((event: KeySetEvent) => void) | undefined;
};

const MAX_DOCUMENT_BYTES = 512 * 1024;

/**
 * Before any key set has loaded, how soon after a failed load the next one may start: no more than
 * refreshMinIntervalMs, and no more than this, so an IdP that was down when the appliance started is
 * picked up within seconds of coming back.
 */
export const FIRST_LOAD_RETRY_MAX_MS = 5_000;

export class KeySetCache {
  #discovery: Promise<OidcDiscoveryDocument> | null = null;
  #snapshot: KeySnapshot | null = null;
  #inflight: Promise<KeySnapshot> | null = null;
  #lastFetchStartedAt = Number.NEGATIVE_INFINITY;
  /** The last load's error while no key set has ever loaded; cleared by the first success. */
  #firstLoadError: OidcDiscoveryError | null = null;
  /** Whether the last periodic refresh of a loaded key set failed (the IdP down or hanging); cleared by a success. */
  #lastRefreshFailed = false;

  constructor(private readonly opts: KeySetCacheOptions) {}

  discovery(): Promise<OidcDiscoveryDocument> {
    // A failed discovery is forgotten, so the next request retries it instead of failing forever.
    this.#discovery ??= this.#loadDiscovery().catch((error: unknown) => {
      this.#discovery = null;
      throw error;
    });
    return this.#discovery;
  }

  /** The current key set; loads it on first use and refreshes it once it is older than maxAgeMs. */
  async current(): Promise<KeySnapshot> {
    const snapshot = this.#snapshot;
    if (!snapshot) return this.#firstLoad();
    const now = this.opts.now();
    if (now - snapshot.fetchedAt < this.opts.maxAgeMs) return snapshot;
    if (!this.#inflight && now - this.#lastFetchStartedAt < this.opts.refreshMinIntervalMs) return snapshot;
    // Periodic refresh drops keys the IdP has revoked; if the IdP is down, keep serving the old set.
    // Set here, not by a failed refetch for a token's unknown kid: a made-up kid during an IdP blip
    // must not make the next periodic refresh run behind, letting a withdrawn key through meanwhile.
    const refreshed = this.#refresh().catch(() => {
      this.#lastRefreshFailed = true;
      return snapshot;
    });
    // Once a refresh has failed, the set in hand serves at once while the next runs behind: an IdP
    // that hangs held every bearer request for the fetch timeout (5 s), again every refresh interval
    // (auth probe). While refreshes succeed the caller waits for one, so a key the IdP withdrew is
    // refused from the first request after maxAgeMs.
    return this.#lastRefreshFailed ? snapshot : refreshed;
  }

  /**
   * Refetch because a token names a key we do not have (rotation). Returns null when the last
   * fetch is too recent, so a stream of tokens with made-up kids cannot hammer the IdP.
   */
  async refreshForUnknownKey(): Promise<KeySnapshot | null> {
    if (this.#inflight) return this.#inflight;
    if (this.opts.now() - this.#lastFetchStartedAt < this.opts.refreshMinIntervalMs) return null;
    return this.#refresh();
  }

  /**
   * Loads the first key set. After a failed load the next waits out the retry interval, failing
   * meanwhile with the same error: otherwise every request with a bearer token (a junk token will do,
   * no credential is needed) would make the appliance call the IdP while it is down.
   */
  #firstLoad(): Promise<KeySnapshot> {
    const failed = this.#firstLoadError;
    if (failed && !this.#inflight) {
      const retryMs = Math.min(this.opts.refreshMinIntervalMs, FIRST_LOAD_RETRY_MAX_MS);
      const waited = this.opts.now() - this.#lastFetchStartedAt;
      if (waited < retryMs) return Promise.reject(failed);
    }
    return this.#refresh();
  }

  #refresh(): Promise<KeySnapshot> {
    this.#inflight ??= this.#fetchKeys().finally(() => {
      this.#inflight = null;
    });
    return this.#inflight;
  }

  async #fetchKeys(): Promise<KeySnapshot> {
    this.#lastFetchStartedAt = this.opts.now();
    try {
      const { jwks_uri } = await this.discovery();
      const body = await this.#getJson(jwks_uri, "JWKS");
      const jwks = body as JSONWebKeySet;
      if (!Array.isArray(jwks.keys)) throw new OidcDiscoveryError("JWKS has no keys array");
      // createLocalJWKSet validates the set's shape; individual bad keys fail later, per token.
      const resolve = createLocalJWKSet(jwks);
      this.#snapshot = { jwks, resolve, fetchedAt: this.opts.now() };
      this.#firstLoadError = null;
      this.#lastRefreshFailed = false;
      this.opts.onEvent?.({ type: "jwks_fetched", keyCount: jwks.keys.length });
      return this.#snapshot;
    } catch (error) {
      // The jwks_uri itself may have moved: rediscover next time.
      this.#discovery = null;
      const detail = error instanceof Error ? error.message : String(error);
      this.opts.onEvent?.({ type: "jwks_fetch_failed", detail, hadCachedKeys: this.#snapshot !== null });
      const failure = error instanceof OidcDiscoveryError ? error : new OidcDiscoveryError(`JWKS: ${detail}`);
      if (this.#snapshot === null) this.#firstLoadError = failure;
      throw failure;
    }
  }

  async #loadDiscovery(): Promise<OidcDiscoveryDocument> {
    // Discovery URL per OIDC Discovery 1.0 §4: issuer without trailing slash + /.well-known/…
    const url = `${this.opts.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
    const doc = await this.#getJson(url, "discovery");
    if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
      throw new OidcDiscoveryError("discovery document is not a JSON object");
    }
    const { issuer, jwks_uri } = doc as Record<string, unknown>;
    // §4.3: the document's issuer must be exactly the configured one, or tokens from a
    // different issuer could be validated with keys we were pointed at.
    if (issuer !== this.opts.issuer) {
      throw new OidcDiscoveryError(`discovery issuer ${JSON.stringify(issuer)} does not match configured issuer`);
    }
    if (typeof jwks_uri !== "string" || !URL.canParse(jwks_uri)) {
      throw new OidcDiscoveryError("discovery document has no valid jwks_uri");
    }
    return doc as OidcDiscoveryDocument;
  }

  async #getJson(url: string, what: string): Promise<unknown> {
    let res: Response;
    try {
      res = await this.opts.fetch(url, {
        headers: { accept: "application/json" },
        // Like jose's remote JWKS: a redirect is an error, not something to follow.
        redirect: "manual",
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (error) {
      throw new OidcDiscoveryError(`${what} fetch failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new OidcDiscoveryError(`${what} fetch returned HTTP ${res.status}`);
    }
    const bytes = await readCapped(res.body, MAX_DOCUMENT_BYTES);
    if (bytes === null) throw new OidcDiscoveryError(`${what} document too large`);
    const text = new TextDecoder().decode(bytes);
    try {
      return JSON.parse(text);
    } catch {
      throw new OidcDiscoveryError(`${what} document is not JSON`);
    }
  }
}
