import * as z from 'zod';

/**
 * `config.connection: { kind: oauth, … }` of an HTTP server (OAuth 2.1, the MCP authorization
 * spec): authorization code with PKCE (`raf mcp login`), with a registered `client_id` (and
 * secret) or dynamic client registration when none is given; `grant: client_credentials` for
 * machines (needs the id and secret). Tokens are kept per server in the state store, refreshed.
 */
export const oauthConnectionSchema = z
  .strictObject({
    kind: z.literal('oauth'),
    clientId: z.string().min(1).optional(),
    client_id: z.string().min(1).optional(),
    clientSecret: z.string().min(1).optional(),
    client_secret: z.string().min(1).optional(),
    /** Space-separated, or a list. */
    scopes: z.union([z.string(), z.array(z.string().min(1))]).optional(),
    scope: z.string().optional(),
    grant: z.enum(['authorization_code', 'client_credentials']).optional(),
    /** The loopback port `raf mcp login` listens on for the redirect (default: any free one). */
    redirectPort: z.number().int().min(0).max(65535).optional(),
    redirect_port: z.number().int().min(0).max(65535).optional(),
  })
  .transform((c, ctx) => {
    const clientId = c.clientId ?? c.client_id;
    const clientSecret = c.clientSecret ?? c.client_secret;
    const grant = c.grant ?? 'authorization_code';
    if (grant === 'client_credentials' && (!clientId || !clientSecret))
      ctx.addIssue({ code: 'custom', message: 'grant client_credentials needs client_id and client_secret' });
    if (clientSecret && !clientId)
      ctx.addIssue({ code: 'custom', message: 'client_secret needs the client_id it belongs to' });
    const scopes = c.scopes ?? c.scope;
    const scope = Array.isArray(scopes) ? scopes.join(' ') : scopes;
    const redirectPort = c.redirectPort ?? c.redirect_port;
    return {
      kind: 'oauth' as const,
      grant,
      ...(clientId && { clientId }),
      ...(clientSecret && { clientSecret }),
      ...(scope && { scope }),
      ...(redirectPort !== undefined && { redirectPort }),
    };
  });

export type OAuthSettings = z.output<typeof oauthConnectionSchema>;
