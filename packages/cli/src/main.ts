import {
  ChatClientError,
  ConfigError,
  getErrorMessage,
  RafError,
  SessionConflictError,
  SessionError,
} from '@raf/core';
import { DeclError, formatDiagnostic } from '@raf/decl';
import { parseCliArgs, USAGE } from './args.js';
import { usageOf } from './command-table.js';
import { closeExtensions } from './extensions.js';
import { CliError, type CliIO, EXIT, processIO } from './io.js';
import { asTyped } from './load-agent.js';
import { escapeText } from './render/escape.js';
import { cliVersion } from './version.js';

const MODEL_COMMANDS = new Set(['run', 'chat', 'index', 'memory', 'studio', 'mcp', 'worker']);

/** Runs the CLI and returns the exit code; every failure is one readable message, never a stack. */
export async function main(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  try {
    const args = parseCliArgs(argv);
    if (args.version) {
      io.stdout.write(`raf ${cliVersion()}\n`);
      return EXIT.ok;
    }
    if (args.help || !args.command) {
      io.stdout.write(args.command ? usageOf([args.command, ...args.files]) : USAGE);
      return args.command || args.help ? EXIT.ok : EXIT.usage;
    }
    try {
      // Each command's module loads on demand: a command pays at start-up only for what it uses
      // (in the bundle, code only one command needs sits in chunks no other command loads).
      // The commands that talk to a model play the client's start-up trick (a short process does
      // not wait at exit for V8 to optimise undici's parser); a library never does so on its own.
      if (MODEL_COMMANDS.has(args.command)) (await import('@raf/client')).delayParserTierUp();
      switch (args.command) {
        case 'init':
          return await (await import('./commands/init.js')).initCommand(args, io);
        case 'run':
          return await (await import('./commands/run.js')).runCommand(args, io);
        case 'chat':
          return await (await import('./commands/chat.js')).chatCommand(args, io);
        case 'validate':
          return await (await import('./commands/validate.js')).validateCommand(args, io);
        case 'inspect':
          return await (await import('./commands/inspect.js')).inspectCommand(args, io);
        case 'index':
          return await (await import('./commands/index-command.js')).indexCommand(args, io);
        case 'schema':
          return (await import('./commands/schema.js')).schemaCommand(io);
        case 'tools':
          return await (await import('./commands/tools.js')).toolsCommand(args, io);
        case 'memory':
          return await (await import('./commands/memory.js')).memoryCommand(args, io);
        case 'studio':
          return await (await import('./commands/studio.js')).studioCommand(args, io);
        case 'serve':
          return await (await import('./commands/serve.js')).serveCommand(args, io);
        case 'mock':
          return await (await import('./commands/mock.js')).mockCommand(args, io);
        case 'mcp':
          return await (await import('./commands/mcp-serve.js')).mcpCommand(args, io);
        case 'worker':
          return await (await import('./commands/worker.js')).workerCommand(args, io);
        case 'approve':
          return await (await import('./commands/durable-runs.js')).approveCommand(args, io);
        case 'runs':
          return await (await import('./commands/durable-runs.js')).runsCommand(args, io);
        default:
          throw new CliError(`unknown command "${args.command}"\n\n${USAGE}`);
      }
    } catch (error) {
      if (DeclError.isInstance(error)) {
        // Under the name the user typed, whichever argument it was (`raf mcp serve FILE`).
        for (const d of asTyped(error.diagnostics, args.files, io.cwd)) {
          io.stderr.write(`${d.severity}: ${escapeText(formatDiagnostic(d))}\n`);
        }
        return EXIT.config;
      }
      throw error;
    } finally {
      // MCP servers the agent started stop with the command.
      await closeExtensions();
    }
  } catch (error) {
    if (error instanceof CliError) {
      io.stderr.write(`raf: ${escapeText(error.message)}\n`);
      return error.exitCode;
    }
    // Another process has the session, saved it first or resumed its approval: one line, exit 5.
    if (SessionConflictError.isInstance(error)) {
      io.stderr.write(`raf: ${escapeText(error.message)}\n`);
      return EXIT.conflict;
    }
    // A SQLite file another writer holds past the busy timeout (a second `raf index`): exit 5 too.
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY') {
      io.stderr.write(`raf: ${escapeText(getErrorMessage(error))}\n`);
      return EXIT.conflict;
    }
    // A refused `--session` id, a corrupt session file or a sessions folder it cannot write: usage.
    if (ConfigError.isInstance(error) || SessionError.isInstance(error)) {
      io.stderr.write(`raf: ${escapeText(error.message)}\n`);
      return EXIT.config;
    }
    if (ChatClientError.isInstance(error)) {
      io.stderr.write(`raf: model error: ${escapeText(error.message)}\n`);
      return EXIT.model;
    }
    const kind = RafError.isInstance(error) ? '' : 'unexpected error: ';
    io.stderr.write(`raf: ${kind}${escapeText(getErrorMessage(error))}\n`);
    return EXIT.model;
  }
}
