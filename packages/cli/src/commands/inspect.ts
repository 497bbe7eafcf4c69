import type { AgentExplanation } from '@raf/decl';
import { type LabelLanguage, RUNTIME_LABELS, type RuntimeDiagnostic } from '@raf/framework';
import type { CliArgs } from '../args.js';
import { CliError, type CliIO, EXIT } from '../io.js';
import { builderFor } from '../load-agent.js';
import { escapeJson, escapeLine } from '../render/escape.js';
import { graphMermaid, graphText } from '../render/workflow-graph.js';

/** One line each for what a workspace refuses to read or write, and what it keeps read-only or asks for. */
function protectedLines(rules: AgentExplanation['contexts'][number]['protectedPaths']): string[] {
  if (!rules || rules.length === 0) return [];
  const list = (items: typeof rules) => items.map((r) => `${r.path} (${r.reason})`).join(', ');
  const hidden = rules.filter((r) => r.reads === 'refused');
  const readOnly = rules.filter((r) => r.reads !== 'refused' && r.writes !== 'allowed');
  const lines: string[] = [];
  if (hidden.length > 0) {
    const writes = hidden.every((r) => r.writes === 'ask') ? '; writing asks' : '';
    lines.push(`     protected (not readable or writable by the file tools${writes}): ${list(hidden)}`);
  }
  for (const writes of ['refused', 'ask'] as const) {
    const group = readOnly.filter((r) => r.writes === writes);
    if (group.length > 0)
      lines.push(`     ${writes === 'refused' ? 'read-only' : 'writes ask'}: ${list(group)}`);
  }
  return lines;
}

/** Pads to a width in terminal columns: CJK characters take two. */
function pad(text: string, width: number): string {
  let columns = 0;
  for (const char of text) columns += (char.codePointAt(0) ?? 0) >= 0x2e80 ? 2 : 1;
  return columns >= width ? text : text + ' '.repeat(width - columns);
}

/**
 * The runtime diagnostic as a table, for the agent and each sub-agent: where each tool runs for a
 * worker this session, and why not elsewhere, in the words of the one label table.
 */
function runtimeLines(runtime: RuntimeDiagnostic, lang: LabelLanguage, indent = ''): string[] {
  const policy = runtime.workerPolicy;
  const lines = [
    `${indent}${runtime.agent}: ${
      policy
        ? `worker roots ${policy.workspaceRoots.join(', ') || '(none)'}, shell ${policy.allowShell ? 'allowed' : 'not allowed'}, ${policy.readonly ? 'read-only' : 'may write'}`
        : 'no tools'
    }`,
  ];
  for (const tool of runtime.tools) {
    const { state, route, label } = tool.runtime;
    const why = (label ?? RUNTIME_LABELS.states[state])[lang];
    const name = `${tool.name}${tool.aliases.length ? ` (${tool.aliases.join(', ')})` : ''}`;
    lines.push(`${indent}  ${pad(name, 30)} ${pad(RUNTIME_LABELS.routes[route][lang], 18)} ${why}`);
  }
  for (const sub of runtime.subAgents) lines.push(...runtimeLines(sub, lang, `${indent}  `));
  return lines;
}

function readable(plan: AgentExplanation, lang: LabelLanguage): string {
  const servers = plan.mcpServers
    ? [
        'mcp servers (by name):',
        ...plan.mcpServers.map((s) => `  ${s.name.padEnd(20)} ${s.transport.padEnd(6)} from ${s.source}`),
      ]
    : [];
  if (plan.workflow?.kind === 'workflow')
    return `${[`workflow ${plan.name}`, ...graphText(plan.workflow), ...servers].map(escapeLine).join('\n')}\n`;
  const lines = [
    `agent ${plan.name}: model ${plan.model.provider}/${plan.model.id}${plan.model.fallback ? ` (then ${plan.model.fallback.map((f) => `${f.provider}/${f.id}`).join(', then ')})` : ''}, tool loop ${plan.toolLoop ? 'on' : 'off'} (max ${plan.maxToolRounds} rounds)`,
    'contexts (run order):',
    ...plan.contexts.flatMap((c) => [
      `  ${c.order}. ${c.kind} ${c.name}`,
      ...protectedLines(c.protectedPaths),
      ...(c.details
        ? [
            `     ${Object.entries(c.details)
              .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
              .join(', ')}`,
          ]
        : []),
    ]),
    'tools:',
    ...plan.tools.map((t) => {
      const where =
        t.source === 'workspace'
          ? `workspace ${t.workspace}`
          : t.source === 'injected'
            ? `injected by ${t.context}`
            : t.server
              ? `static, mcp ${t.server}`
              : 'static';
      return `  ${t.name.padEnd(20)} ${where.padEnd(28)} approval: ${t.approval.padEnd(14)} ${t.executionMode.padEnd(10)} ${t.route}`;
    }),
  ];
  if (plan.tools.length === 0) lines.push('  (none)');
  lines.push(...servers);
  if (plan.workflow) lines.push(...graphText(plan.workflow));
  if (plan.orchestration && !plan.workflow) {
    const subs = plan.orchestration.subAgents.map((s) => `${s.name} (${s.runtime})`).join(', ');
    lines.push(
      `sub-agents: ${subs}; orchestration ${plan.orchestration.mode}${plan.orchestration.mode === 'magentic' ? `, at most ${plan.orchestration.maxIterations} delegations per run` : ''}`,
    );
  }
  lines.push('runtime (a worker this session):', ...runtimeLines(plan.runtime, lang, '  '));
  for (const warning of plan.warnings) lines.push(`warning: ${warning}`);
  return `${lines.map(escapeLine).join('\n')}\n`;
}

/** `raf inspect <file> [--json] [--lang]`: the effective plan (SPEC §11.1) and its runtime diagnostic (§7.1). */
export async function inspectCommand(args: CliArgs, io: CliIO): Promise<number> {
  const [file] = args.files;
  if (!file) throw new CliError('raf inspect needs an agent file: raf inspect agent.yaml');
  const plan = await (await builderFor(file, args, io)).explain();
  if (args.mermaid) {
    if (!plan.workflow)
      throw new CliError(`${file} is a single agent: --mermaid draws workflows and orchestrations`);
    io.stdout.write(graphMermaid(plan.workflow));
    return EXIT.ok;
  }
  io.stdout.write(args.json ? `${escapeJson(JSON.stringify(plan))}\n` : readable(plan, args.lang));
  return EXIT.ok;
}
