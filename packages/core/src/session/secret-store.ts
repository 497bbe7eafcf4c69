/**
 * Small secret records kept with the rest of a store's state (SPEC §14.1): MCP servers' OAuth
 * tokens and registered clients, one value per `(namespace, key)`. Values are secrets: an
 * implementation never logs them or puts them in an error message. `sqlite:` and `postgres://`
 * stores have one; a `file:` store keeps such records in files of its own folder instead.
 */
export interface SecretStore {
  get(namespace: string, key: string, options?: { signal?: AbortSignal }): Promise<string | undefined>;
  set(namespace: string, key: string, value: string, options?: { signal?: AbortSignal }): Promise<void>;
  delete(namespace: string, key: string, options?: { signal?: AbortSignal }): Promise<void>;
}
