import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { type Declaration, redactStoreUrl } from '@raf/core';
import { loadDefinitionFromFile } from '@raf/decl';
import type { CliArgs } from '../args.js';
import { CliError, type CliIO, EXIT } from '../io.js';
import { importOptional } from '../optional-package.js';
import { escapeLine } from '../render/escape.js';
import { mcpCredentialsDir, storeChoice } from '../store-choice.js';
import { storeSecrets } from '../store-governance.js';

/** Only https, or http on this machine's loopback, is ever opened in a browser unasked. */
export function openableUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (
      url.protocol === 'https:' ||
      (url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname))
    );
  } catch {
    return false;
  }
}

function openInBrowser(url: string): void {
  const command =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(command, [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // no browser here: the URL is printed
  }
}

/** The agent file's `kind: mcp` entry named `server` (tools or contexts), as the loader resolved it (`$VAR`s filled). */
async function entryNamed(file: string, server: string, io: CliIO, args: CliArgs): Promise<Declaration> {
  const loaded = await loadDefinitionFromFile(resolve(io.cwd, file), {
    env: { ...io.env, ...args.variables },
  });
  if (!loaded.definition) throw new CliError(`${file} has errors; raf validate ${file} lists them`);
  const definition = loaded.definition as { tools?: Declaration[]; contexts?: Declaration[] };
  const entries = [...(definition.tools ?? []), ...(definition.contexts ?? [])].filter(
    (d) => d.kind === 'mcp',
  );
  const found = entries.find((d) => d.name === server);
  if (!found)
    throw new CliError(
      `${file} has no MCP server named '${escapeLine(server)}'${entries.length ? `; it has: ${entries.map((d) => d.name ?? '(unnamed)').join(', ')}` : ''}`,
    );
  return found;
}

/**
 * `raf mcp login <file> <server>` / `raf mcp logout <file> <server>`: the OAuth flow of one
 * server entry. The authorization URL is printed (opened with `--open`, when https or loopback)
 * and the redirect is caught on 127.0.0.1; tokens go to the store's `mcp-auth` folder and are
 * never printed. Client credentials (`grant: client_credentials`) need no browser.
 */
export async function mcpLoginCommand(sub: 'login' | 'logout', args: CliArgs, io: CliIO): Promise<number> {
  const [, file, server] = args.files;
  if (!file || !server)
    throw new CliError(
      `raf mcp ${sub} needs an agent file and a server name: raf mcp ${sub} agent.yaml SERVER`,
    );
  const mcp = await importOptional(['@raf/mcp'], `raf mcp ${sub}`, () => import('@raf/mcp'), io.cwd);
  const entry = await entryNamed(file, server, io, args);
  const secrets = storeSecrets(args, io);
  // A SQLite or Postgres store keeps the tokens in its secret records; otherwise the files.
  const directory = mcpCredentialsDir(args, io);
  const credentials = secrets
    ? new mcp.SecretCredentialStore(secrets, {
        ...(io.env.RAF_TENANT && { tenant: io.env.RAF_TENANT }),
        ...(io.env.RAF_SECRETS_KEY && { key: io.env.RAF_SECRETS_KEY }),
      })
    : new mcp.FileCredentialStore(directory);
  const where = secrets ? `the store ${redactStoreUrl(storeChoice(args, io).url)}` : directory;
  const baseDir = dirname(resolve(io.cwd, file));
  if (sub === 'logout') {
    await mcp.logoutMcpServer(entry, { baseDir, credentials });
    io.stderr.write(
      `logged out of MCP server '${escapeLine(server)}' (its tokens are deleted from ${where})\n`,
    );
    return EXIT.ok;
  }
  const controller = new AbortController();
  const stopListening = io.onInterrupt(() => controller.abort());
  try {
    const done = await mcp.loginMcpServer(entry, {
      baseDir,
      credentials,
      signal: controller.signal,
      onAuthorizationUrl: (url) => {
        io.stdout.write(
          `Open this URL in a browser to log in to '${escapeLine(server)}':\n${escapeLine(url)}\n`,
        );
        if (args.open && openableUrl(url)) openInBrowser(url);
        else if (args.open) io.stderr.write('(not opened: only an https or loopback URL is opened)\n');
        io.stderr.write('waiting for the redirect on 127.0.0.1 (Ctrl-C gives up)…\n');
      },
    });
    io.stderr.write(
      `logged in to MCP server '${escapeLine(done.server)}' (${done.grant === 'client_credentials' ? 'client credentials' : 'authorization code + PKCE'}); tokens kept in ${where}\n`,
    );
    return EXIT.ok;
  } catch (error) {
    if (controller.signal.aborted) return EXIT.interrupted;
    throw new CliError(`raf mcp login: ${(error as Error).message}`);
  } finally {
    stopListening();
  }
}
