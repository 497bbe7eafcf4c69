import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type BundleReport, validateBundle } from '@raf/framework';
import type { CliArgs } from '../args.js';
import { CliError, type CliIO, EXIT } from '../io.js';
import { builderFor } from '../load-agent.js';
import { awaitConsolidation, memoryProviders } from '../memory-wait.js';
import { OpenedSession } from '../opened-session.js';
import { escapeLine } from '../render/escape.js';
import { storeChoice } from '../store-choice.js';

function printReport(report: BundleReport, io: CliIO): void {
  for (const issue of report.issues) {
    const at = `${issue.path}${issue.line === undefined ? '' : `:${issue.line}`}`;
    io.stderr.write(`${escapeLine(at)}: ${issue.code}: ${escapeLine(issue.message)}\n`);
  }
  const problems = report.issues.length;
  io.stdout.write(
    `${escapeLine(report.directory)}: ${report.pages} pages, ${problems === 0 ? 'valid' : `${problems} problem${problems > 1 ? 's' : ''}`}\n`,
  );
}

/** `raf memory check DIR`: validates a bundle; exit 2 when it has problems. */
async function check(target: string | undefined, args: CliArgs, io: CliIO): Promise<number> {
  if (!target)
    throw new CliError('raf memory check needs a bundle folder: raf memory check logs/super-brain');
  const found = await stat(resolve(io.cwd, target)).catch(() => undefined);
  if (!found?.isDirectory())
    throw new CliError(`raf memory check ${target}: ${found ? 'is a file, not a folder' : 'no such folder'}`);
  const report = await validateBundle(resolve(io.cwd, target));
  if (args.json) io.stdout.write(`${JSON.stringify(report)}\n`);
  else printReport(report, io);
  return report.ok ? EXIT.ok : EXIT.config;
}

/** `raf memory consolidate agent.yaml [--session ID]`: one consolidation now, waited for. */
async function consolidate(file: string | undefined, args: CliArgs, io: CliIO): Promise<number> {
  if (!file)
    throw new CliError('raf memory consolidate needs an agent file: raf memory consolidate agent.yaml');
  const agent = await (await builderFor(file, args, io)).build();
  const providers = memoryProviders(agent);
  if (providers.length === 0)
    throw new CliError(`${file} has no memory (contexts: - kind: memory, name: super-brain)`);
  const opened = args.session ? await OpenedSession.open(args, io, args.session, { lease: true }) : undefined;
  try {
    return await consolidateWith(agent, providers, opened, args, io);
  } finally {
    await opened?.close();
  }
}

async function consolidateWith(
  agent: Awaited<ReturnType<Awaited<ReturnType<typeof builderFor>>['build']>>,
  providers: ReturnType<typeof memoryProviders>,
  opened: OpenedSession | undefined,
  args: CliArgs,
  io: CliIO,
): Promise<number> {
  if (opened && !opened.resumed)
    throw new CliError(
      `no session ${args.session} in ${storeChoice(args, io).sessionsDirectory ?? storeChoice(args, io).url}`,
    );
  const failedBefore = providers.map((p) => p.stats.failed);
  for (const provider of providers) provider.consolidate(opened?.session);
  const controller = new AbortController();
  const stop = io.onInterrupt(() => controller.abort(new Error('interrupted')));
  try {
    await awaitConsolidation(agent, io, controller.signal);
  } finally {
    stop();
  }
  if (opened) await opened.save();
  if (controller.signal.aborted) return EXIT.interrupted;
  let failed = false;
  for (const [i, provider] of providers.entries()) {
    failed ||= provider.stats.failed > (failedBefore[i] ?? 0);
    const outcome = provider.lastOutcome;
    const summary = { directory: provider.directory, ...provider.stats, outcome };
    if (args.json) io.stdout.write(`${JSON.stringify(summary)}\n`);
    else
      io.stdout.write(
        `${escapeLine(provider.directory)}: ${outcome?.status ?? 'nothing to do'}${outcome?.updatedFiles.length ? ` (${escapeLine(outcome.updatedFiles.join(', '))})` : ''}\n`,
      );
  }
  return failed ? EXIT.model : EXIT.ok;
}

/** `raf memory check DIR [--json]` · `raf memory consolidate agent.yaml [--session ID]`. */
export async function memoryCommand(args: CliArgs, io: CliIO): Promise<number> {
  const [action, target] = args.files;
  if (action === 'check') return check(target, args, io);
  if (action === 'consolidate') return consolidate(target, { ...args, files: args.files.slice(1) }, io);
  throw new CliError(
    `${action === undefined ? 'raf memory needs a command' : `raf memory ${action}`}: use "raf memory check DIR" or "raf memory consolidate agent.yaml [--session ID]"`,
  );
}
