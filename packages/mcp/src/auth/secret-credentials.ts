import { createCipheriv, createDecipheriv, createHash, randomBytes, scryptSync } from 'node:crypto';
import { userInfo } from 'node:os';
import { ConfigError, type SecretStore } from '@raf/core';
import { type McpCredentialStore, type StoredCredentials, storedSchema } from './credential-store.js';

const NAMESPACE = 'mcp-oauth';
/**
 * A sealed record: its row's key is the additional authenticated data, so a record copied to
 * another row (another tenant's, another server's) does not open there.
 */
const SEALED = 'aes-256-gcm-v2:';
/** The first sealed format, not bound to its row: refused, as a swapped record would open. */
const UNBOUND = 'aes-256-gcm:';

export interface SecretCredentialOptions {
  /**
   * Whose tokens these are: one store serves a team (Postgres), and a user's tokens are never
   * another's. Default `RAF_TENANT`, else the OS user name.
   */
  tenant?: string;
  /**
   * Seals each record (AES-256-GCM, the key derived with scrypt): a database dump or backup then
   * holds no usable token. Default `RAF_SECRETS_KEY`; without one, records are JSON, and the store
   * itself is the protection (the SQLite file is 0600; the database's own access control).
   */
  key?: string;
}

/**
 * OAuth tokens and registered clients in the state store's secret records (`sqlite:`,
 * `postgres://`), one record per tenant, server name and URL. The record key is a hash: neither
 * the tenant, the server nor its URL is readable in the table. Values are never logged.
 */
export class SecretCredentialStore implements McpCredentialStore {
  readonly tenant: string;
  private readonly key: Buffer | undefined;

  constructor(
    private readonly secrets: SecretStore,
    options: SecretCredentialOptions = {},
  ) {
    this.tenant = options.tenant ?? process.env.RAF_TENANT ?? `user:${userInfo().username}`;
    const key = options.key ?? process.env.RAF_SECRETS_KEY;
    // The salt is fixed: the same key must open the records on every machine of the team.
    this.key = key ? scryptSync(key, 'raf mcp-oauth v1', 32) : undefined;
  }

  private id(server: string, url: string): string {
    return createHash('sha256').update(`${this.tenant}\n${server}\n${url}`).digest('hex');
  }

  private seal(id: string, text: string): string {
    if (!this.key) return text;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(id, 'utf8'));
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return `${SEALED}${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  private open(server: string, id: string, value: string): string {
    const advice = 'set RAF_SECRETS_KEY to the key it was saved with, or raf mcp logout and log in again';
    if (value.startsWith(UNBOUND))
      throw new ConfigError(
        `the MCP credentials of '${server}' are sealed in the format of an earlier version, not bound to their record: raf mcp logout and log in again`,
      );
    if (!value.startsWith(SEALED)) return value;
    if (!this.key)
      throw new ConfigError(`the MCP credentials of '${server}' are sealed with a key: ${advice}`);
    try {
      const raw = Buffer.from(value.slice(SEALED.length), 'base64');
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(id, 'utf8'));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      // The tag covers the row's key too: another key, or a record moved from another row.
      throw new ConfigError(
        `the MCP credentials of '${server}' do not open: sealed with another RAF_SECRETS_KEY, or not this tenant's record for this server (moved in the store); ${advice}`,
      );
    }
  }

  async load(server: string, url: string): Promise<StoredCredentials | undefined> {
    const id = this.id(server, url);
    const value = await this.secrets.get(NAMESPACE, id);
    if (value === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(this.open(server, id, value));
    } catch (error) {
      if (ConfigError.isInstance(error)) throw error;
      throw new ConfigError(
        `the MCP credentials of '${server}' in the store are not valid JSON; raf mcp logout, then log in again`,
      );
    }
    const checked = storedSchema.safeParse(parsed);
    // Never the values in the message: they are tokens.
    if (!checked.success)
      throw new ConfigError(
        `the MCP credentials of '${server}' in the store have the wrong shape; raf mcp logout, then log in again`,
      );
    return checked.data.url === url ? checked.data : undefined;
  }

  async save(server: string, credentials: StoredCredentials): Promise<void> {
    const id = this.id(server, credentials.url);
    await this.secrets.set(NAMESPACE, id, this.seal(id, JSON.stringify(credentials)));
  }

  async delete(server: string, url: string): Promise<void> {
    await this.secrets.delete(NAMESPACE, this.id(server, url));
  }
}
