import { type RafErrorOptions, ToolError } from '@raf/core';

/** What went wrong with a guarded request; stable, for code that branches on it. */
export type WebRequestFailure =
  /** The SSRF guard refused the address, host or port (at connect time, on any hop). */
  | 'blocked'
  /** Not an `http:`/`https:` URL, or not a URL at all. */
  | 'unsupported-url'
  /** The body is larger than `maxBytes`. */
  | 'too-large'
  /** More redirects than `maxRedirects`, or a redirect without a usable `Location`. */
  | 'too-many-redirects'
  /** A content type the caller does not read (binary for `web_fetch`). */
  | 'unsupported-content'
  /** DNS failure, refused or reset connection, TLS error. */
  | 'network';

const key = 'raf.error.WebRequestError';
const brand = Symbol.for(key);

/** A request the guarded HTTP client refused or could not complete (code `RAF_TOOL`). */
export class WebRequestError extends ToolError {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the brand `isInstance` looks for
  private readonly [brand] = true;
  readonly reason: WebRequestFailure;
  /** The URL of the hop that failed (after redirects). */
  readonly url: string;

  constructor(
    reason: WebRequestFailure,
    message: string,
    options: RafErrorOptions & { url: string; toolName?: string },
  ) {
    super(message, options);
    this.name = 'WebRequestError';
    this.reason = reason;
    this.url = options.url;
  }

  static override isInstance(error: unknown): error is WebRequestError {
    return ToolError.hasMarker(error, key);
  }
}
