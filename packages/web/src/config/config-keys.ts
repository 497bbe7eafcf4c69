/** `max_bytes` → `maxBytes`: configs accept the upstream snake_case spelling of every key. */
export function camelKeys(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()),
      item,
    ]),
  );
}
