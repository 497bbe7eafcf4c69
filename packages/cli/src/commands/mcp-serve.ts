import type { Readable, Writable } from 'node:stream';
import type { CliArgs } from '../args.js';
import { CliError, type CliIO, EXIT } from '../io.js';
import { builderFor } from '../load-agent.js';
import { importOptional } from '../optional-package.js';

const HOW = 'raf mcp serve agent.yaml [--http PORT] [--host HOST]';

/**
 * `raf mcp serve <file> [--http PORT]`: the agent as an MCP server with one tool that runs it,
 * on stdio (for MCP clients that start servers) or streamable HTTP at `/mcp`. Approvals are
 * asked through MCP elicitation (`--approve all|none` decides instead). `@raf/mcp` and the MCP
 * SDK load only for this command.
 */
export async function mcpCommand(args: CliArgs, io: CliIO): Promise<number> {
  const [sub, file] = args.files;
  if (sub === 'login' || sub === 'logout')
    return (await import('./mcp-login.js')).mcpLoginCommand(sub, args, io);
  if (sub !== 'serve')
    throw new CliError(
      `${sub ? `unknown command "raf mcp ${sub}"` : 'raf mcp needs a command'}; try: ${HOW}, or raf mcp login|logout agent.yaml SERVER`,
    );
  if (!file) throw new CliError(`raf mcp serve needs an agent file: ${HOW}`);
  const mcp = await importOptional(['@raf/mcp'], 'raf mcp serve', () => import('@raf/mcp'), io.cwd);
  const agent = await (await builderFor(file, args, io)).build();
  const controller = new AbortController();
  const stopListening = io.onInterrupt(() => controller.abort());
  const options = {
    approvals:
      args.approve === 'all'
        ? ('approve' as const)
        : args.approve === 'none'
          ? ('deny' as const)
          : ('ask' as const),
    log: (line: string) => io.stderr.write(`${line}\n`),
    signal: controller.signal,
  };
  try {
    if (args.httpPort !== undefined) {
      let server: Awaited<ReturnType<typeof mcp.serveAgentOverHttp>>;
      try {
        server = await mcp.serveAgentOverHttp(agent, {
          ...options,
          port: args.httpPort,
          ...(args.host && { host: args.host }),
          ...(args.exposeAgentToNetwork && { exposeToNetwork: true }),
        });
      } catch (error) {
        throw new CliError(`raf mcp serve: ${(error as Error).message}`);
      }
      // Printed once, like `raf studio`'s URL: every request needs it.
      io.stdout.write(`raf mcp serve: ${server.url}\ntoken: ${server.token}\n`);
      io.stderr.write(
        `serving agent ${agent.name} over MCP; clients send "Authorization: Bearer <token>" on every request (Ctrl-C stops)\n`,
      );
      await server.closed;
    } else {
      // stdout carries the protocol: everything else goes to stderr.
      io.stderr.write(`serving agent ${agent.name} over MCP on stdio\n`);
      await mcp.serveAgentOverStdio(agent, {
        ...options,
        stdin: io.stdin as Readable,
        stdout: io.stdout as unknown as Writable,
      });
    }
  } finally {
    stopListening();
  }
  return EXIT.ok;
}
