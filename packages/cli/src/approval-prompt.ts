import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ApprovalResponse, ToolApprovalRequestUpdate } from '@raf/core';
import { escapeLine, escapeText } from './render/escape.js';

/** The most either side of a previewed change may hold; past it the prompt shows sizes only. */
export const PREVIEW_MAX_BYTES = 256 * 1024;

type Before = { text: string } | { unavailable: string };

/**
 * The current content of a write's target, read so that nothing the model names can stall or
 * flood the prompt: opened non-blocking without following a link (a FIFO never waits for a
 * writer), regular files only (no `/dev/zero`), and at most `PREVIEW_MAX_BYTES`.
 */
async function readBefore(target: string): Promise<Before> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(target, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { text: '' };
    return { unavailable: `cannot read the target (${code ?? 'error'})` };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { unavailable: 'the target is not a regular file' };
    if (info.size > PREVIEW_MAX_BYTES) return { unavailable: `the target holds ${info.size} bytes` };
    const buffer = Buffer.alloc(PREVIEW_MAX_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > PREVIEW_MAX_BYTES) return { unavailable: 'the target grew past the preview limit' };
    return { text: buffer.toString('utf8', 0, bytesRead) };
  } finally {
    await handle.close();
  }
}

/** For writes and edits: the change as a unified diff of the resolved target, or why there is none. */
export async function previewChange(request: ToolApprovalRequestUpdate): Promise<string | undefined> {
  const args = (request.arguments ?? {}) as Record<string, unknown>;
  const target = request.resolvedTarget;
  if (!target || (request.name !== 'write_file' && request.name !== 'edit_file')) return undefined;
  const before = await readBefore(target);
  if ('unavailable' in before) return `(no preview: ${before.unavailable})`;
  let after: string;
  if (request.name === 'write_file') after = String(args.content ?? '');
  else {
    const oldText = String(args.old_str ?? '');
    const at = before.text.indexOf(oldText);
    if (oldText === '' || at < 0) return undefined;
    after = before.text.slice(0, at) + String(args.new_str ?? '') + before.text.slice(at + oldText.length);
  }
  if (Buffer.byteLength(after) > PREVIEW_MAX_BYTES) {
    return `(no preview: the new content holds ${Buffer.byteLength(after)} bytes)`;
  }
  const { createTwoFilesPatch } = await import('diff');
  const patch = createTwoFilesPatch(target, target, before.text, after, 'now', 'after', { context: 3 });
  return patch.split('\n').slice(2).join('\n');
}

/**
 * The lines shown before asking: tool, resolved target, arguments, and a diff for writes. Every
 * part the model controls is escaped, so it cannot redraw the prompt with terminal sequences.
 */
export async function describeRequest(request: ToolApprovalRequestUpdate): Promise<string> {
  // A sub-agent's call names the chain of agents it comes from.
  const by = request.agentPath?.length ? ` (sub-agent ${escapeLine(request.agentPath.join(' › '))})` : '';
  const lines = [`approve ${escapeLine(request.name)}${by}?`];
  if (request.resolvedTarget) lines.push(`  target: ${escapeLine(request.resolvedTarget)}`);
  lines.push(`  arguments: ${escapeLine(JSON.stringify(request.arguments) ?? 'undefined')}`);
  const diff = await previewChange(request);
  if (diff) lines.push(escapeText(diff));
  return lines.join('\n');
}

/** Ctrl-C at the `[y/N]` prompt: nothing of the batch runs, and the turn ends there. */
export class ApprovalCancelled extends Error {
  constructor() {
    super('approval cancelled by Ctrl-C');
    this.name = 'ApprovalCancelled';
  }
}

/** What "always for this session" remembers: the tool, and the sub-agent chain that asks for it. */
const alwaysKey = (request: ToolApprovalRequestUpdate) =>
  [...(request.agentPath ?? []), request.name].join(' › ');

/** Every request of the batch denied, as Ctrl-C at the prompt leaves them. */
export function denyAll(requests: readonly ToolApprovalRequestUpdate[], reason: string): ApprovalResponse[] {
  return requests.map((r) => ({ callId: r.callId, approved: false, reason }));
}

/**
 * Asks about each request on the terminal: `y` approves, anything else denies. With `always` (a
 * set kept for the session) `a` approves this tool now and for the rest of the session, and a
 * tool already in it is approved without asking (said on one line). `ask` throws
 * `ApprovalCancelled` on Ctrl-C.
 */
export async function askApprovals(
  requests: readonly ToolApprovalRequestUpdate[],
  ask: (question: string) => Promise<string>,
  write: (text: string) => void,
  always?: Set<string>,
): Promise<ApprovalResponse[]> {
  const answers: ApprovalResponse[] = [];
  for (const request of requests) {
    const key = alwaysKey(request);
    if (always?.has(key)) {
      const what = request.resolvedTarget ?? JSON.stringify(request.arguments);
      write(`✓ approved (always this session): ${escapeLine(`${key} ${what}`)}\n`);
      answers.push({ callId: request.callId, approved: true });
      continue;
    }
    write(`${await describeRequest(request)}\n`);
    const answer = (await ask(always ? '[y/N/a(lways this session)] ' : '[y/N] ')).trim().toLowerCase();
    const forSession = always !== undefined && (answer === 'a' || answer === 'always');
    if (forSession) always.add(key);
    const approved = forSession || answer === 'y' || answer === 'yes';
    answers.push(
      approved
        ? { callId: request.callId, approved }
        : { callId: request.callId, approved, reason: 'User denied' },
    );
  }
  return answers;
}
