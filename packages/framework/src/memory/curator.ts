import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { getErrorMessage, userMessage } from '@raf/core';
import { AgentBuilder } from '../agent/agent-builder.js';
import { createFileTool, type FileToolName } from '../builtin-tools/index.js';
import { WorkspaceContextProvider } from '../workspace/workspace-context-provider.js';
import { readBundleText, writeBundleText } from './bundle-files.js';
import { tableCell } from './bundle-index.js';
import { withFileLock } from './bundle-lock.js';
import { bundleOperations } from './bundle-operations.js';
import { seedBundle, templateDirectory } from './bundle-template.js';
import type { ConsolidationJob, ConsolidationOutcome } from './consolidation-queue.js';
import { isFrontmatterProblem, parseFrontmatter } from './frontmatter.js';
import { bundleProjection } from './projection.js';
import { renderTranscript } from './transcript.js';
import { repairIndexes } from './validate-bundle.js';

export const CURATOR_NAME = 'super-brain-curator';
const CURATOR_TOOLS: FileToolName[] = [
  'read_file',
  'write_file',
  'edit_file',
  'list_files',
  'find_files',
  'search_file',
  'make_directory',
  'move_file',
];
const OUTPUT_FORMAT = 'FINAL RESPONSE MUST be exactly OK or UPDATED: list or INDEX_GAP: list. No other text.';
const MAX_ROUNDS = 50;

/** The curator's rules: the bundle's `AGENT.md` (the user may edit it), else the template's. */
async function curatorRules(directory: string): Promise<string> {
  const text =
    (await readBundleText(directory, 'AGENT.md').catch(() => undefined)) ??
    (await readFile(join(templateDirectory(), 'AGENT.md'), 'utf8'));
  const parsed = parseFrontmatter(text);
  return (isFrontmatterProblem(parsed) ? text : parsed.body).trim();
}

/** `UPDATED:` lines of the curator's answer (`- path: what`), and its status. */
export function parseCuratorAnswer(text: string): Pick<ConsolidationOutcome, 'status' | 'updatedFiles'> {
  const trimmed = text.trim();
  const block = (marker: string) => {
    const at = trimmed.indexOf(marker);
    return at < 0 ? undefined : trimmed.slice(at + marker.length);
  };
  const updated = block('UPDATED:');
  if (updated !== undefined) {
    const files = updated
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith('-'))
      .map(
        (l) =>
          l
            .replace(/^-+\s*/, '')
            .split(':')[0]
            ?.trim() ?? '',
      )
      .filter(Boolean);
    return { status: files.length > 0 ? 'updated' : 'ok', updatedFiles: files };
  }
  if (block('INDEX_GAP:') !== undefined) return { status: 'index_gap', updatedFiles: [] };
  return { status: 'ok', updatedFiles: [] };
}

/** Appends one row to `log.md` under its lock (date, session, event). */
export async function appendLogRow(
  directory: string,
  session: string,
  event: string,
  signal?: AbortSignal,
): Promise<void> {
  await withFileLock(
    directory,
    'log.md',
    async () => {
      const current = await readBundleText(directory, 'log.md', signal).catch(() => undefined);
      if (current === undefined) return;
      const row = `| ${new Date().toISOString()} | ${tableCell(session)} | ${tableCell(event)} |\n`;
      await writeBundleText(
        directory,
        'log.md',
        `${current.endsWith('\n') ? current : `${current}\n`}${row}`,
        signal,
      );
    },
    signal,
  );
}

/**
 * One consolidation: an in-process curator agent (an `AgentBuilder` agent on the job's client)
 * with the built-in file tools confined to the bundle (`DenyOutside`, every write under the
 * page's lock) reads the transcript and the bundle's projection and rewrites pages; then
 * missing index rows are added and `log.md` gets a row.
 */
export async function runConsolidation(
  job: ConsolidationJob,
  signal: AbortSignal,
): Promise<ConsolidationOutcome> {
  const transcript = renderTranscript(job.transcript);
  const sessions = [...new Set(job.transcript.map((s) => s.sessionId ?? '-'))].join(', ') || '-';
  if (!transcript.trim() && job.transcript.length > 0) return { status: 'skipped', updatedFiles: [] };
  await seedBundle(job.directory, { signal });
  const root = await realpath(job.directory);
  const since = new Date().toISOString();
  const written = new Set<string>();
  const workspace = new WorkspaceContextProvider(
    { root, name: 'super-brain', policy: 'DenyOutside' },
    { operations: bundleOperations(root, { since, onWritten: (rel) => void written.add(rel) }) },
  ).addTools(CURATOR_TOOLS.map(createFileTool));
  const language = job.language === 'zh-CN' ? '\n\nWrite memory in Simplified Chinese (zh-CN).' : '';
  const agent = new AgentBuilder(CURATOR_NAME)
    .chatClient(job.client)
    .instructions(`${await curatorRules(root)}${language}\n\n${OUTPUT_FORMAT}`)
    .withContextProvider(workspace)
    .maxToolRounds(MAX_ROUNDS)
    .build();
  const input = [
    '## The bundle now',
    await bundleProjection(root, signal),
    '## Conversation to consolidate',
    transcript || '(none: tidy the bundle — merge duplicates, fix indexes)',
  ].join('\n\n');
  let answer = '';
  let failure: string | undefined;
  for await (const update of agent.run(userMessage(input), { signal, modelOptions: { temperature: 0.1 } })) {
    if (update.type === 'text-delta') answer += update.delta;
    else if (update.type === 'error') failure ??= update.message;
    else if (update.type === 'finish' && update.reason === 'cancelled') failure ??= 'cancelled';
  }
  signal.throwIfAborted();
  const repaired = await repairIndexes(root, { signal }).catch(() => []);
  const parsed = failure ? { status: 'error' as const, updatedFiles: [] } : parseCuratorAnswer(answer);
  const files = [...new Set([...parsed.updatedFiles, ...written, ...repaired])];
  const event = failure
    ? `error: ${failure}`
    : files.length > 0
      ? `${parsed.status}: ${files.join(', ')}`
      : parsed.status;
  await appendLogRow(root, sessions, event, signal).catch(() => undefined);
  return { ...parsed, updatedFiles: files, ...(failure && { error: getErrorMessage(failure) }) };
}
