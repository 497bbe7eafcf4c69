/**
 * A value built the first time it is read, then kept. RAF's modules do no work at import: a zod
 * schema costs tens of microseconds to construct, and a package holds hundreds of them, most of
 * which a given run never reads (`pnpm bench --only cold-start`).
 */
export function onFirstUse<T>(build: () => T): () => T {
  let built = false;
  let value: T;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value;
  };
}
