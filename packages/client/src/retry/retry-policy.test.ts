import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  DEFAULT_RETRY,
  isRetryableStatus,
  parseRetryAfter,
  shouldRetryResponse,
} from './retry-policy.js';

describe('retry policy', () => {
  it.each([408, 409, 429, 500, 502, 503, 504])('retries status %i', (status) => {
    expect(isRetryableStatus(status)).toBe(true);
  });
  it.each([400, 401, 403, 404, 422])('does not retry status %i', (status) => {
    expect(isRetryableStatus(status)).toBe(false);
  });

  it('lets x-should-retry overrule the status', () => {
    expect(shouldRetryResponse(400, { 'x-should-retry': 'true' })).toBe(true);
    expect(shouldRetryResponse(503, { 'x-should-retry': 'false' })).toBe(false);
  });

  it('reads retry-after-ms, retry-after seconds and retry-after HTTP dates', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter({ 'retry-after-ms': '250' }, 60_000, now)).toBe(250);
    expect(parseRetryAfter({ 'retry-after': '2' }, 60_000, now)).toBe(2000);
    expect(parseRetryAfter({ 'retry-after': '0.5' }, 60_000, now)).toBe(500);
    expect(parseRetryAfter({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }, 60_000, now)).toBe(3000);
    expect(parseRetryAfter({ 'retry-after-ms': '100', 'retry-after': '9' }, 60_000, now)).toBe(100);
  });

  it('ignores waits that are absent, garbage, negative or longer than the cap', () => {
    expect(parseRetryAfter({}, 60_000)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': 'soon' }, 60_000)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': '-1' }, 60_000)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': '120' }, 60_000)).toBeUndefined();
  });

  it('backs off exponentially with at most 25% jitter, capped', () => {
    expect(backoffDelay(0, DEFAULT_RETRY, () => 0)).toBe(500);
    expect(backoffDelay(1, DEFAULT_RETRY, () => 0)).toBe(1000);
    expect(backoffDelay(1, DEFAULT_RETRY, () => 1)).toBe(750);
    expect(backoffDelay(10, DEFAULT_RETRY, () => 0)).toBe(8000);
  });
});
