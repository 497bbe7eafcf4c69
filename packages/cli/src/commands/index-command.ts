import type { JSONValue } from '@raf/core';
import type { CliArgs } from '../args.js';
import { CliError, type CliIO, EXIT } from '../io.js';
import { builderFor } from '../load-agent.js';
import { escapeJson, escapeLine } from '../render/escape.js';
import { ProgressBar } from '../render/progress-bar.js';

function summary(report: Record<string, JSONValue>): string {
  return Object.entries(report)
    .filter(([, v]) => typeof v === 'number' || typeof v === 'string')
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}

/** What went wrong with single sources: a list of `{source, error}` or of strings. */
function problems(report: Record<string, JSONValue>): string[] {
  const lines: string[] = [];
  for (const value of [report.failed, report.problems]) {
    if (!Array.isArray(value)) continue;
    for (const item of value) {
      if (typeof item === 'string') lines.push(item);
      else if (item && typeof item === 'object' && !Array.isArray(item))
        lines.push(`${String(item.source ?? item.page ?? '')}: ${String(item.error ?? '')}`);
    }
  }
  return lines;
}

/**
 * `raf index <agent.yaml> [--json]`: builds or refreshes every index the agent's contexts keep
 * (knowledge, wiki: any provider with `refreshIndex`), with a progress bar on a terminal.
 */
export async function indexCommand(args: CliArgs, io: CliIO): Promise<number> {
  const [file] = args.files;
  if (!file) throw new CliError('raf index needs an agent file: raf index agent.yaml');
  const agent = await (await builderFor(file, args, io)).build();
  const indexed = agent.contextProviders.filter((p) => typeof p.refreshIndex === 'function');
  if (indexed.length === 0) {
    io.stderr.write(`raf: ${escapeLine(file)} has no context with an index (kind: knowledge or wiki)\n`);
    if (args.json) io.stdout.write('{"contexts":[]}\n');
    return EXIT.ok;
  }
  const controller = new AbortController();
  const stop = io.onInterrupt(() => controller.abort());
  const results: Record<string, JSONValue>[] = [];
  try {
    for (const provider of indexed) {
      const bar = new ProgressBar(io.stderr, `${provider.kind} ${provider.name}`);
      const started = Date.now();
      const report = await (provider.refreshIndex as NonNullable<typeof provider.refreshIndex>)({
        signal: controller.signal,
        onProgress: (p) => bar.update(p),
      }).finally(() => bar.done());
      results.push({ kind: provider.kind, name: provider.name, ...report, ms: Date.now() - started });
      if (!args.json) {
        io.stdout.write(
          `${escapeLine(`${provider.kind} ${provider.name}: ${summary(report)} (${Date.now() - started} ms)`)}\n`,
        );
        for (const line of problems(report)) io.stderr.write(`warning: ${escapeLine(line)}\n`);
      }
    }
  } finally {
    stop();
  }
  if (controller.signal.aborted) return EXIT.interrupted;
  if (args.json) io.stdout.write(`${escapeJson(JSON.stringify({ contexts: results }))}\n`);
  return EXIT.ok;
}
