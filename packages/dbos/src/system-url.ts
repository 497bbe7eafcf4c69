/** DBOS's default for its system database connections (`DEFAULT_IDLE_TRANSACTION_TIMEOUT_MS`). */
const IDLE_TIMEOUT = 'idle_in_transaction_session_timeout';
const IDLE_TIMEOUT_MS = 60_000;

/**
 * The store's URL as DBOS's system database URL: with `options=-c
 * idle_in_transaction_session_timeout=60000` (kept with any `options` the URL has already). DBOS
 * 5.3 otherwise sets that timeout with a query it does not await on each new connection, which
 * makes pg print a DeprecationWarning (a query on a busy client) on every launch; it skips the
 * query when the URL's `options` set it. The timeout the server applies is the same.
 */
export function dbosSystemUrl(store: string): string {
  let url: URL;
  try {
    url = new URL(store);
  } catch {
    return store;
  }
  const options = url.searchParams.get('options') ?? '';
  if (options.includes(IDLE_TIMEOUT)) return store;
  const timeout = `-c ${IDLE_TIMEOUT}=${IDLE_TIMEOUT_MS}`;
  url.searchParams.set('options', options.trim() ? `${options.trim()} ${timeout}` : timeout);
  return url.toString();
}
