import {
  type ChatMessage,
  getErrorMessage,
  type IContextProvider,
  type InvokedContext,
  type ISession,
  type ITool,
} from '@raf/core';
import { combineSkillTools } from '../skills/skill-tools.js';

export interface ProviderContext {
  instructions: string[];
  /** Context messages: history first, then each provider's, in declaration order. */
  messages: ChatMessage[];
  tools: ITool[];
  warnings: string[];
  /** The tools of all providers as they are now, when one of them can change mid-run. */
  currentTools?: () => Promise<readonly ITool[]>;
}

/**
 * Merged like the run's first list: declaration order, the first name wins, except that the skill
 * tools of two providers (skills and the memory) are joined into one that knows both's skills.
 * Other clashes are refused when the agent is built (`@raf/decl`).
 */
function mergeProviderTools(lists: readonly (readonly ITool[])[]): ITool[] {
  const at = new Map<string, number>();
  const merged: ITool[] = [];
  for (const list of lists)
    for (const tool of list) {
      const index = at.get(tool.name);
      if (index === undefined) {
        at.set(tool.name, merged.length);
        merged.push(tool);
        continue;
      }
      const earlier = merged[index];
      const joined = earlier && earlier !== tool ? combineSkillTools(earlier, tool) : undefined;
      if (joined) merged[index] = joined;
    }
  return merged;
}

/**
 * Runs every provider's `onInvoking` in order (history first). Instructions are collected in
 * order, messages appended (or replaced by a provider that says `replaceMessages`), tools
 * concatenated with the first name winning. A provider that throws is skipped with a warning.
 */
export async function invokeProviders(
  providers: readonly IContextProvider[],
  context: { agentName: string; session: ISession; input: readonly ChatMessage[]; signal: AbortSignal },
): Promise<ProviderContext> {
  const result: ProviderContext = { instructions: [], messages: [], tools: [], warnings: [] };
  const initial: (readonly ITool[])[] = [];
  const lists: (() => readonly ITool[] | Promise<readonly ITool[]>)[] = [];
  let live = false;
  for (const provider of providers) {
    if (!provider.onInvoking) continue;
    context.signal.throwIfAborted();
    let contribution: Awaited<ReturnType<NonNullable<IContextProvider['onInvoking']>>>;
    try {
      contribution = await provider.onInvoking({ ...context, messages: result.messages });
    } catch (error) {
      if (context.signal.aborted) throw error;
      result.warnings.push(
        `context provider ${provider.name} failed and was skipped for this run: ${getErrorMessage(error)}`,
      );
      continue;
    }
    if (!contribution) continue;
    if (contribution.warnings) result.warnings.push(...contribution.warnings);
    if (contribution.instructions?.trim()) result.instructions.push(contribution.instructions.trim());
    const messages = (contribution.messages ?? []).map((m) =>
      m.source ? m : { ...m, source: 'contextProvider' as const },
    );
    if (contribution.replaceMessages) result.messages = messages;
    else result.messages.push(...messages);
    const tools = contribution.tools ?? [];
    const current = contribution.currentTools;
    initial.push(tools);
    lists.push(current ?? (() => tools));
    if (current) live = true;
  }
  result.tools = mergeProviderTools(initial);
  if (live)
    result.currentTools = async () => mergeProviderTools(await Promise.all(lists.map((list) => list())));
  return result;
}

/** Calls every provider's `onInvoked`, success or failure; returns warnings for the ones that throw. */
export async function notifyProviders(
  providers: readonly IContextProvider[],
  context: InvokedContext,
): Promise<string[]> {
  const warnings: string[] = [];
  for (const provider of providers) {
    if (!provider.onInvoked) continue;
    try {
      await provider.onInvoked(context);
    } catch (error) {
      warnings.push(`context provider ${provider.name} failed after the run: ${getErrorMessage(error)}`);
    }
  }
  return warnings;
}
