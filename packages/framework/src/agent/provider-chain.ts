import {
  type ChatMessage,
  getErrorMessage,
  type IContextProvider,
  type InvokedContext,
  type ISession,
  type ITool,
} from '@raf/core';

export interface ProviderContext {
  instructions: string[];
  /** Context messages: history first, then each provider's, in declaration order. */
  messages: ChatMessage[];
  tools: ITool[];
  warnings: string[];
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
  const toolNames = new Set<string>();
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
    for (const tool of contribution.tools ?? []) {
      if (toolNames.has(tool.name)) continue;
      toolNames.add(tool.name);
      result.tools.push(tool);
    }
  }
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
