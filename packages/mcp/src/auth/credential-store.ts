import { createHash, randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError, parseStoreUrl } from '@raf/core';
import * as z from 'zod';

/** What is kept per OAuth-protected server: its tokens and the client registered for it. */
export const storedSchema = z.object({
  /** The server's URL: tokens are never sent to another (a renamed entry, a changed url). */
  url: z.string(),
  tokens: z
    .looseObject({
      access_token: z.string(),
      token_type: z.string(),
      refresh_token: z.string().optional(),
      expires_in: z.number().optional(),
      scope: z.string().optional(),
    })
    .optional(),
  /** A dynamically registered client (`client_id`, maybe a secret, its redirect URIs). */
  client: z.looseObject({ client_id: z.string(), redirect_uris: z.array(z.string()).optional() }).optional(),
  /** When the access token was saved (ms): with `expires_in`, when it is refreshed ahead of a 401. */
  savedAt: z.number().optional(),
});
export type StoredCredentials = z.output<typeof storedSchema>;

/** Where OAuth tokens live, one record per server (`name` + `url`). Values are secrets: never logged. */
export interface McpCredentialStore {
  load(server: string, url: string): Promise<StoredCredentials | undefined>;
  save(server: string, credentials: StoredCredentials): Promise<void>;
  delete(server: string, url: string): Promise<void>;
}

export class InMemoryCredentialStore implements McpCredentialStore {
  private readonly records = new Map<string, StoredCredentials>();
  async load(server: string, url: string) {
    const found = this.records.get(`${server}\n${url}`);
    return found ? structuredClone(found) : undefined;
  }
  async save(server: string, credentials: StoredCredentials) {
    this.records.set(`${server}\n${credentials.url}`, structuredClone(credentials));
  }
  async delete(server: string, url: string) {
    this.records.delete(`${server}\n${url}`);
  }
}

/**
 * One JSON file per server in a folder only the user can read (0700, files 0600), replaced
 * atomically; the file name is a hash, so a server's name or URL never becomes a path.
 */
export class FileCredentialStore implements McpCredentialStore {
  constructor(readonly directory: string) {}

  private file(server: string, url: string): string {
    const id = createHash('sha256').update(`${server}\n${url}`).digest('hex').slice(0, 32);
    return join(this.directory, `${id}.json`);
  }

  async load(server: string, url: string): Promise<StoredCredentials | undefined> {
    const file = this.file(server, url);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new ConfigError(
        `cannot read the MCP credentials of '${server}' (${file}): ${(error as Error).message}`,
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new ConfigError(
        `${file}: the MCP credentials of '${server}' are not valid JSON; raf mcp logout, then log in again`,
      );
    }
    const parsed = storedSchema.safeParse(value);
    // Never the values in the message: they are tokens.
    if (!parsed.success)
      throw new ConfigError(
        `${file}: the MCP credentials of '${server}' have the wrong shape; raf mcp logout, then log in again`,
      );
    return parsed.data.url === url ? parsed.data : undefined;
  }

  async save(server: string, credentials: StoredCredentials): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    await chmod(this.directory, 0o700);
    const file = this.file(server, credentials.url);
    const temp = `${file}.${randomUUID()}.tmp`;
    await writeFile(temp, JSON.stringify(credentials), { mode: 0o600, flag: 'wx' });
    await rename(temp, file);
  }

  async delete(server: string, url: string): Promise<void> {
    await rm(this.file(server, url), { force: true });
  }
}

/**
 * The credentials folder of a state store: `<DIR>/mcp-auth` of a `file:DIR` store (`RAF_STORE`,
 * default `.raf`). Other stores keep MCP tokens in the local `.raf/mcp-auth` too: they are the
 * user's, not the team's, and stay on the machine that logged in.
 */
export function credentialStoreFor(storeUrl: string | undefined, cwd: string): FileCredentialStore {
  let directory = '.raf';
  if (storeUrl) {
    const location = parseStoreUrl(storeUrl);
    if (location.kind === 'file') directory = location.directory;
  }
  return new FileCredentialStore(resolve(cwd, directory, 'mcp-auth'));
}
