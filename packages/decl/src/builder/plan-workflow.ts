import { dirname } from 'node:path';
import { ConfigError, getErrorMessage, type ITool, type JSONValue, type PluginBuildContext } from '@raf/core';
import type { ChatClientAgent } from '@raf/framework';
import type { AgentLike, DslServices, WorkflowAgent, WorkflowGraph } from '@raf/workflow';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { type LoadedDefinition, loadDefinitionFromDocument } from '../load/load-definition.js';
import { diagnosticAt, type Path, type SourceDocument } from '../load/source-document.js';
import { type ConfigReport, checkKindBlock } from '../registry/check-config.js';
import { installCommand, isMissingPackage } from '../registry/install-hint.js';
import type { ContextDecl } from '../schema/agent-schema.js';
import { writtenPath } from '../schema/normalize.js';
import { type AgentPlan, type PlanInputs, planAgent } from './agent-plan.js';
import { checkWorkspaces } from './sub-agent-workspaces.js';

/** A file that builds more than one agent: a `kind: workflow` file or a prompt agent with `subAgents`. */
export interface CompositePlan {
  kind: 'workflow' | 'orchestration';
  name: string;
  /** `workflow`, or the orchestration mode in use. */
  mode: string;
  /** What `validate` reports: `orchestration(pipeline, 6 sub-agents)`, `workflow(5 actions)`. */
  summary: string;
  subAgents: string[];
  /** The compiled graph. */
  graph?: WorkflowGraph;
  build(): Promise<ChatClientAgent | WorkflowAgent>;
}

export interface CompositeInputs extends Omit<PlanInputs, 'loaded'> {
  loaded: LoadedDefinition;
  /** `InvokeAgent` targets (`withWorkflowAgent`). */
  workflowAgents: ReadonlyMap<string, AgentLike>;
}

/**
 * The engine, loaded only for files that need it (the CLI's cold start never pays for it). It is
 * an optional package: a workflow file or an agent with sub-agents names it when it is missing.
 */
async function engine(file: string | undefined, what: string): Promise<typeof import('@raf/workflow')> {
  try {
    return await import('@raf/workflow');
  } catch (error) {
    if (!isMissingPackage(error, '@raf/workflow')) throw error;
    throw new ConfigError(
      `${file ? `${file}: ` : ''}${what} needs @raf/workflow (${installCommand('@raf/workflow', file && dirname(file))})`,
      { cause: error },
    );
  }
}

function buildContext(
  inputs: CompositeInputs,
  document: SourceDocument,
  at: (p: Path, m: string) => void,
): PluginBuildContext {
  return {
    baseDir: inputs.baseDir ?? process.cwd(),
    env: inputs.env ?? process.env,
    warn: (message) => at([], message),
    buildKey: {},
    ...(inputs.dryRun && { dryRun: true }),
    ...(inputs.signal && { signal: inputs.signal }),
    ...(inputs.protectedPaths && { protectedPaths: inputs.protectedPaths }),
    ...(inputs.mcpServers && { mcpServers: inputs.mcpServers }),
    ...(document.file && {}),
  };
}

/** The services the actions reach the outside through, from the registered plugins. */
function dslServices(
  inputs: CompositeInputs,
  context: PluginBuildContext,
  sandbox: unknown,
  webConfig: unknown,
): DslServices {
  const { registry } = inputs;
  const services: DslServices = {
    agent: (name) => inputs.workflowAgents.get(name),
    functionTool: async (name) => {
      const factory = inputs.factories.get(name);
      if (factory) return factory({}, context);
      for (const kind of ['web', 'code'] as const) {
        if (!registry.expansion(kind)?.includes(name)) continue;
        const tools = await registry.toolKind(kind)?.({ kind, name }, context);
        return tools?.find((t) => t.name === name);
      }
      return undefined;
    },
  };
  const code = registry.toolKind('code');
  if (code) {
    let tool: Promise<ITool | undefined> | undefined;
    services.executeCode = async (request, signal) => {
      tool ??= Promise.resolve(
        code(
          {
            kind: 'code',
            name: 'code_interpreter',
            ...(sandbox ? { config: sandbox as Record<string, JSONValue> } : {}),
          },
          context,
        ),
      ).then((tools) => tools[0]);
      const built = await tool;
      if (!built) throw new Error('@raf/sandbox built no code_interpreter');
      return built.execute(request, { callId: 'execute_code', toolName: built.name, signal } as never);
    };
  }
  const mcp = registry.toolKind('mcp');
  if (mcp) {
    services.invokeMcpTool = async (request, signal) => {
      const tools = await mcp(
        {
          kind: 'mcp',
          name: request.toolName,
          serverUrl: request.serverUrl,
          toolName: request.toolName,
          config: { headers: request.headers },
        },
        context,
      );
      const tool = tools.find((t) => t.name === request.toolName) ?? tools[0];
      if (!tool) throw new Error(`the MCP server ${request.serverUrl} has no tool "${request.toolName}"`);
      return tool.execute(request.arguments, {
        callId: 'invoke_mcp_tool',
        toolName: tool.name,
        signal,
      } as never);
    };
  }
  const web = registry.toolKind('web');
  if (web) {
    let tool: Promise<ITool | undefined> | undefined;
    services.httpRequest = async (request, signal) => {
      // The file's `web:` block configures the guard (allowPrivate, timeoutMs, maxBytes) as `kind: web`'s config does.
      tool ??= Promise.resolve(
        web(
          {
            kind: 'web',
            name: 'http_request',
            ...(webConfig ? { config: webConfig as Record<string, JSONValue> } : {}),
          },
          context,
        ),
      ).then((tools) => tools[0]);
      const built = await tool;
      if (!built) throw new Error('@raf/web built no http_request tool');
      const result = await built.execute(request, {
        callId: 'http_request',
        toolName: built.name,
        signal,
        // The author's own request: every header (cookies too) and the whole JSON answer.
        context: { rawHttpResponse: true },
      } as never);
      if (!result.ok) throw new Error(result.error ?? 'http_request failed');
      const data = (result.data ?? {}) as {
        status?: number;
        headers?: Record<string, string>;
        body?: JSONValue;
      };
      return { status: data.status ?? 0, headers: data.headers ?? {}, body: data.body ?? null };
    };
  }
  services.missing = (kind) =>
    kind === 'ExecuteCode'
      ? registry.missing('tool kind', 'code').replace('tool kind "code"', 'ExecuteCode')
      : kind === 'InvokeMcpTool'
        ? registry.missing('tool kind', 'mcp').replace('tool kind "mcp"', 'InvokeMcpTool')
        : registry.missing('tool kind', 'web').replace('tool kind "web"', 'HttpRequestAction');
  return services;
}

/** A `kind: workflow` file: its actions compiled to a graph, problems at their lines. */
export async function planWorkflowFile(
  inputs: CompositeInputs,
): Promise<{ composite?: CompositePlan; diagnostics: Diagnostic[] }> {
  const { loaded } = inputs;
  const document = loaded.document as SourceDocument;
  const raw = loaded.workflow as Record<string, unknown>;
  const diagnostics = [...loaded.diagnostics];
  const at = (path: Path, message: string, severity: Diagnostic['severity'] = 'warning') =>
    diagnostics.push(diagnosticAt(document, path, message, severity));
  const name = typeof raw.name === 'string' && raw.name ? raw.name : undefined;
  if (!name) at(['name'], 'a workflow needs a name', 'error');
  const { compileWorkflowDocument, WorkflowAgent: Agent } = await engine(
    document.file,
    'a kind: workflow file',
  );
  const context = buildContext(inputs, document, at);
  const where = (path: (string | number)[]) => {
    const { line, column } = document.locate(path);
    return `${document.file}:${line}:${column}`;
  };
  const report: ConfigReport = (path, message, severity, key) =>
    diagnostics.push(diagnosticAt(document, path, message, severity, { key: key === true }));
  // The file's `web:` and `sandbox:` blocks configure the tools its actions run.
  const strict = inputs.strictKeys ?? false;
  const web = checkKindBlock(inputs.registry, 'web', 'web', raw.web, strict, report);
  const sandbox = checkKindBlock(inputs.registry, 'code', 'sandbox', raw.sandbox, strict, report);
  const compiled = compileWorkflowDocument(
    {
      name: name ?? 'workflow',
      ...(typeof raw.description === 'string' && { description: raw.description }),
      trigger: raw.trigger as never,
    },
    { services: dslServices(inputs, context, sandbox, web), where },
  );
  for (const problem of compiled.problems)
    diagnostics.push(
      diagnosticAt(document, problem.path, problem.message, problem.severity, {
        key: problem.path.at(-1) === 'kind',
      }),
    );
  const workflow = compiled.workflow;
  if (!workflow || diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  const actions = Array.isArray((raw.trigger as { actions?: unknown[] } | undefined)?.actions)
    ? (raw.trigger as { actions: unknown[] }).actions.length
    : 0;
  return {
    diagnostics,
    composite: {
      kind: 'workflow',
      name: workflow.name,
      mode: 'workflow',
      summary: `workflow(${actions} action${actions === 1 ? '' : 's'}, ${workflow.graph.nodes.size} nodes)`,
      subAgents: [],
      graph: workflow.graph,
      build: async () =>
        new Agent(workflow, {
          name: workflow.name,
          ...(workflow.description && { description: workflow.description }),
        }),
    },
  };
}

/** The parent's contexts a sub-agent inherits: every (kind, name) it does not declare itself. */
function inherit(
  parent: readonly (ContextDecl | undefined)[],
  child: readonly (ContextDecl | undefined)[],
): ContextDecl[] {
  const own = new Set(child.flatMap((c) => (c ? [`${c.kind}\u0000${c.name}`] : [])));
  return [
    ...parent.filter((c): c is ContextDecl => c !== undefined && !own.has(`${c.kind}\u0000${c.name}`)),
    ...child.filter((c): c is ContextDecl => c !== undefined),
  ];
}

/**
 * A prompt agent with `subAgents`: each sub-agent planned as a full `kind: prompt` agent (its
 * problems at its own lines in the file), the mode from `metadata.orchestration`, and the agent
 * that mode builds.
 */
export async function planOrchestration(
  inputs: CompositeInputs,
  root: { plan?: AgentPlan; diagnostics: Diagnostic[] },
): Promise<{ composite?: CompositePlan; diagnostics: Diagnostic[] }> {
  const { loaded } = inputs;
  const document = loaded.document as SourceDocument;
  const normalized = loaded.normalized as Record<string, unknown>;
  const origins = loaded.origins!;
  const definition = loaded.definition ?? loaded.partial;
  const diagnostics = [...root.diagnostics];
  const at = (path: Path, message: string, key = false) =>
    diagnostics.push(
      diagnosticAt(document, writtenPath(normalized, origins, path), message, 'error', { key }),
    );
  const entries = (normalized.subAgents as unknown[] | undefined) ?? [];
  const { safeParseOrchestration, orchestrationProblems, rootTakesPart } = await engine(
    document.file,
    'an agent with subAgents',
  );
  const parsed = safeParseOrchestration(definition?.metadata as Record<string, unknown> | undefined);
  if (!parsed.success)
    for (const issue of parsed.issues) at(['metadata', 'orchestration', ...issue.path], issue.message);
  const written = writtenPath(normalized, origins, ['subAgents']);
  const subPlans: (AgentPlan | undefined)[] = [];
  const names: string[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    const sub: SourceDocument = {
      file: document.file,
      value: entry,
      locate: (path, options) => document.locate([...written, i, ...path], options),
    };
    const child = loadDefinitionFromDocument(sub, {
      ...(inputs.strictKeys && { strict: true }),
      ...(inputs.env && { env: inputs.env }),
    });
    const kind = (entry as { kind?: unknown } | null)?.kind;
    if (kind !== undefined && kind !== 'prompt')
      at(['subAgents', i, 'kind'], `a sub-agent must be kind: prompt (got ${JSON.stringify(kind)})`);
    const nested = (entry as { subAgents?: unknown[]; sub_agents?: unknown[] } | null) ?? {};
    // Nesting is reported once, by the file's schema check (load-definition.ts).
    if ((nested.subAgents ?? nested.sub_agents ?? []).length > 0) {
      subPlans.push(undefined);
      continue;
    }
    const own = child.definition ?? child.partial;
    if (own?.name) {
      if (names.includes(own.name)) at(['subAgents', i, 'name'], `two sub-agents are named "${own.name}"`);
      names.push(own.name);
    }
    const ownContexts = child.definition?.contexts ?? [];
    if (child.definition && definition)
      child.definition = {
        ...child.definition,
        contexts: inherit(definition.contexts, child.definition.contexts),
      };
    const planned = await planAgent({ ...inputs, loaded: child });
    // The sub-agent's own paths, named from the file's root.
    const prefix = `subAgents[${i}]`;
    diagnostics.push(
      ...planned.diagnostics.map((d) => ({ ...d, path: d.path ? `${prefix}.${d.path}` : prefix })),
    );
    // As a delegated sub-agent's (SPEC §7.1): its own workspaces never wider or looser than the
    // parent's workspaces, each problem at its line; its inherited entries are the parent's own.
    // A root without a workspace (it delegates nothing here: the graph runs each agent) bounds none.
    if (planned.plan && root.plan && child.definition) {
      const merged = child.definition.contexts;
      const inherited = merged.length - ownContexts.length;
      const contexts = merged.map((decl, k) => ({ decl, inherited: k < inherited }));
      const pathOf = (path: (string | number)[]) =>
        path[0] === 'contexts' && typeof path[1] === 'number'
          ? ['subAgents', i, 'contexts', path[1] - inherited, ...path.slice(2)]
          : ['subAgents', i, ...path];
      checkWorkspaces(
        planned.plan,
        root.plan,
        contexts,
        pathOf,
        (path, message) => at(path, message),
        'allowed',
      );
    }
    subPlans.push(planned.plan);
  }
  if (!parsed.success) return { diagnostics };
  const config = parsed.data;
  for (const problem of orchestrationProblems(config, names))
    at(['metadata', 'orchestration', ...problem.path], problem.message);
  if (!root.plan || diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  const rootPlan = root.plan;
  const plans = subPlans as AgentPlan[];
  const { orchestrationWorkflow, WorkflowAgent: Agent } = await engine(
    document.file,
    'an agent with subAgents',
  );
  const rootName = rootPlan.definition.name;
  const build = async (): Promise<WorkflowAgent> => {
    // The agent loop loads with the first agent built, not with the file's plan.
    const { agentFromPlan } = await import('./agent-from-plan.js');
    const agents = plans.map((plan) => agentFromPlan(plan));
    const rootAgent = rootTakesPart(config) ? agentFromPlan(rootPlan) : undefined;
    const workflow = orchestrationWorkflow(
      config,
      { ...(rootAgent && { root: rootAgent }), agents },
      { name: rootName },
    );
    return new Agent(workflow, {
      name: rootName,
      ...(rootPlan.definition.description && { description: rootPlan.definition.description }),
    });
  };
  let graph: WorkflowGraph;
  try {
    graph = (await build()).workflow.graph;
  } catch (error) {
    at(['metadata', 'orchestration'], getErrorMessage(error));
    return { diagnostics };
  }
  return {
    diagnostics,
    composite: {
      kind: 'orchestration',
      name: rootName,
      mode: config.mode,
      summary: `orchestration(${config.mode}, ${names.length} sub-agent${names.length === 1 ? '' : 's'})`,
      subAgents: names,
      graph,
      build,
    },
  };
}
