import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { McpServerError } from '../errors.js';
import type { McpCredentialStore, StoredCredentials } from './credential-store.js';
import type { OAuthSettings } from './oauth-settings.js';

/** An error that trying again will not fix: the user must log in (`raf mcp login`). */
export class McpLoginNeeded extends McpServerError {
  readonly permanent = true;
}

/**
 * The SDK's `OAuthClientProvider` for one server, its tokens and client kept in the credential
 * store: the SDK's `auth()` does discovery, dynamic registration, PKCE, the code exchange and the
 * refresh after a 401; this says where things are kept. Without a login under way
 * (`authorize`), a server that needs the browser fails with "log in" instead of waiting.
 */
export class RafOAuthProvider implements OAuthClientProvider {
  private record: StoredCredentials | undefined;
  private loaded = false;
  private verifier: string | undefined;
  private expectedState: string | undefined;
  /** Set by `raf mcp login`: the loopback redirect and what to do with the authorization URL. */
  redirectUri: string | undefined;
  authorize: ((url: URL) => void | Promise<void>) | undefined;

  constructor(
    readonly server: string,
    readonly url: string,
    private readonly settings: OAuthSettings,
    private readonly store: McpCredentialStore,
  ) {}

  /** Reads what the store keeps for the server (once). */
  async load(): Promise<void> {
    if (this.loaded) return;
    this.record = await this.store.load(this.server, this.url);
    this.loaded = true;
  }

  private get machine(): boolean {
    return this.settings.grant === 'client_credentials';
  }

  get redirectUrl(): string | undefined {
    if (this.machine) return undefined;
    return this.redirectUri ?? 'http://127.0.0.1/callback';
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'raf',
      redirect_uris: this.redirectUrl ? [this.redirectUrl] : [],
      grant_types: this.machine ? ['client_credentials'] : ['authorization_code', 'refresh_token'],
      response_types: this.machine ? [] : ['code'],
      token_endpoint_auth_method: this.settings.clientSecret ? 'client_secret_basic' : 'none',
      ...(this.settings.scope && { scope: this.settings.scope }),
    };
  }

  state(): string {
    this.expectedState = randomBytes(16).toString('base64url');
    return this.expectedState;
  }

  /** The `state` the redirect must carry back (a forged redirect carries another). */
  get pendingState(): string | undefined {
    return this.expectedState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const { clientId, clientSecret } = this.settings;
    if (clientId) return { client_id: clientId, ...(clientSecret && { client_secret: clientSecret }) };
    const client = this.record?.client as OAuthClientInformationMixed | undefined;
    // A client registered for another redirect (another port) is registered again.
    if (client && this.redirectUri && !(this.record?.client?.redirect_uris ?? []).includes(this.redirectUri))
      return undefined;
    return client;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    await this.save({ client: info as StoredCredentials['client'] });
  }

  tokens(): OAuthTokens | undefined {
    return this.record?.tokens as OAuthTokens | undefined;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.save({ tokens: tokens as StoredCredentials['tokens'], savedAt: Date.now() });
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (this.authorize) return this.authorize(url);
    throw new McpLoginNeeded(
      this.server,
      `MCP server '${this.server}' needs an OAuth login: run raf mcp login <agent file> ${this.server}`,
    );
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new McpServerError(this.server, 'no OAuth login is under way');
    return this.verifier;
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (!this.machine) return undefined;
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    const wanted = scope ?? this.settings.scope;
    if (wanted) params.set('scope', wanted);
    return params;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') this.verifier = undefined;
    if (scope === 'all') {
      this.record = undefined;
      await this.store.delete(this.server, this.url);
      return;
    }
    if (scope === 'tokens' || scope === 'client') {
      const { [scope === 'tokens' ? 'tokens' : 'client']: _dropped, ...rest } = this.record ?? {
        url: this.url,
      };
      this.record = { ...rest, url: this.url };
      await this.store.save(this.server, this.record);
    }
  }

  /** Forgets the tokens (a new login asks the browser again; the registered client is kept). */
  async dropTokens(): Promise<void> {
    await this.load();
    if (this.record?.tokens) await this.invalidateCredentials('tokens');
  }

  private async save(change: Partial<StoredCredentials>): Promise<void> {
    await this.load();
    this.record = { ...this.record, ...change, url: this.url };
    await this.store.save(this.server, this.record);
  }
}
