import { describe, expect, it } from 'vitest';
import { dbosSystemUrl } from './system-url.js';

describe('dbosSystemUrl', () => {
  it('sets the idle-in-transaction timeout through libpq options', () => {
    const url = new URL(dbosSystemUrl('postgres://u:p@127.0.0.1:5432/db'));
    expect(url.searchParams.get('options')).toBe('-c idle_in_transaction_session_timeout=60000');
    expect(`${url.protocol}//${url.username}:${url.password}@${url.host}${url.pathname}`).toBe(
      'postgres://u:p@127.0.0.1:5432/db',
    );
  });

  it('keeps the options and parameters the URL has', () => {
    const url = new URL(
      dbosSystemUrl('postgres://127.0.0.1/db?sslmode=disable&options=-c%20search_path%3Dapp'),
    );
    expect(url.searchParams.get('sslmode')).toBe('disable');
    expect(url.searchParams.get('options')).toBe(
      '-c search_path=app -c idle_in_transaction_session_timeout=60000',
    );
  });

  it('leaves a URL that sets the timeout itself as it is', () => {
    const store = 'postgres://127.0.0.1/db?options=-c%20idle_in_transaction_session_timeout%3D5000';
    expect(dbosSystemUrl(store)).toBe(store);
  });
});
