import { extname } from 'node:path';
import type { ToolPolicyDecl } from '@raf/decl';
import {
  canonicalToolName,
  parseYamlLimited,
  type RuntimeDiagnostic,
  runtimeDiagnostic,
  WORKER_ROUTING_STRATEGIES,
  type WorkerRoutingStrategy,
  YAML_LIMITS,
} from '@raf/framework';
import { type Document, isMap, isScalar, isSeq, type Node, stringify, type YAMLMap } from 'yaml';
import { onlyFields, StudioHttpError } from './http-json.js';
import { chatAgentOf, diagnosticOf, type StudioAgent } from './studio-agents.js';

/**
 * A change the Agent page previews (`POST /api/agents/:id/diagnostic/preview`): for the agent, or
 * the sub-agent named, the tools it keeps (`selection`, a subset of its own) and its `toolPolicy`
 * as it would be written (null: none).
 */
export interface AgentChange {
  subAgent?: string;
  selection?: string[];
  toolPolicy?: ToolPolicyDecl | null;
}

/** The change applied to the agent file, unsaved: the file's text and the target's section. */
export interface ChangedFile {
  file: string;
  /** `subAgents[i]`, or `''` for the agent itself. */
  target: string;
  /** The whole file as saving would write it (comments and order kept). */
  yaml: string;
  /** The target's `toolPolicy` and `tools` in that file, to copy. */
  section: string;
}

const bad = (field: string, message: string) =>
  new StudioHttpError(400, 'invalid_field', `${field}: ${message}`);

function names(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.trim() === ''))
    throw bad(field, 'expected a list of tool names');
  return value as string[];
}

function record<T>(value: unknown, field: string, check: (v: unknown) => v is T, expected: string) {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw bad(field, 'expected an object');
  for (const [key, v] of Object.entries(value))
    if (!check(v)) throw bad(`${field}.${key}`, `expected ${expected}`);
  return value as Record<string, T>;
}

function parseToolPolicy(value: unknown): ToolPolicyDecl | null {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value))
    throw bad('toolPolicy', 'expected an object or null');
  const policy = value as Record<string, unknown>;
  const unknown = Object.keys(policy).filter(
    (k) => !['disabled', 'enabled', 'routing', 'promptHints'].includes(k),
  );
  if (unknown.length > 0)
    throw bad(
      'toolPolicy',
      `unknown field ${unknown.join(', ')}; expected disabled, enabled, routing, promptHints`,
    );
  const isStrategy = (v: unknown): v is WorkerRoutingStrategy =>
    WORKER_ROUTING_STRATEGIES.includes(v as WorkerRoutingStrategy);
  const result: ToolPolicyDecl = {};
  if (policy.disabled !== undefined) result.disabled = names(policy.disabled, 'toolPolicy.disabled');
  if (policy.enabled !== undefined) result.enabled = names(policy.enabled, 'toolPolicy.enabled');
  if (policy.routing !== undefined)
    result.routing = record(
      policy.routing,
      'toolPolicy.routing',
      isStrategy,
      `one of ${WORKER_ROUTING_STRATEGIES.join(', ')}`,
    );
  if (policy.promptHints !== undefined)
    result.promptHints = record(
      policy.promptHints,
      'toolPolicy.promptHints',
      (v): v is string => typeof v === 'string',
      'a string',
    );
  return result;
}

/** The body of a preview; anything else is a 400 that names the field. */
export function parseAgentChange(body: Record<string, unknown>): AgentChange {
  onlyFields(body, ['subAgent', 'selection', 'toolPolicy']);
  const change: AgentChange = {};
  if (body.subAgent !== undefined) {
    if (typeof body.subAgent !== 'string' || body.subAgent === '')
      throw bad('subAgent', 'expected a sub-agent name');
    change.subAgent = body.subAgent;
  }
  if (body.selection !== undefined) change.selection = names(body.selection, 'selection');
  if ('toolPolicy' in body) change.toolPolicy = parseToolPolicy(body.toolPolicy);
  return change;
}

/** The first of the keys (our spelling, then upstream's snake_case) the map has. */
function keyOf(map: YAMLMap, ...keys: string[]): string {
  return keys.find((k) => map.has(k)) ?? keys[0]!;
}

function targetNode(doc: Document, subAgent: string | undefined): { node: YAMLMap; target: string } {
  const root = doc.contents;
  if (!isMap(root))
    throw new StudioHttpError(422, 'preview_unsupported', 'the agent file is not a YAML mapping');
  if (subAgent === undefined) return { node: root, target: '' };
  const subs = root.get(keyOf(root, 'subAgents', 'sub_agents'));
  const items = isSeq(subs) ? subs.items : [];
  const index = items.findIndex((item) => isMap(item) && item.get('name') === subAgent);
  if (index < 0)
    throw new StudioHttpError(404, 'no_such_sub_agent', `the agent has no sub-agent "${subAgent}"`);
  return { node: items[index] as YAMLMap, target: `subAgents[${index}]` };
}

function setToolPolicy(doc: Document, node: YAMLMap, policy: ToolPolicyDecl | null): void {
  const key = keyOf(node, 'toolPolicy', 'tool_policy');
  const empty =
    !policy || Object.values(policy).every((v) => (Array.isArray(v) ? v : Object.keys(v)).length === 0);
  if (empty) {
    node.delete(key);
    return;
  }
  const before = node.get(key, true);
  const after = doc.createNode(policy) as YAMLMap;
  // A policy written on one line stays on one line.
  if (isMap(before) && before.flow) after.flow = true;
  node.set(key, after);
}

/**
 * Narrows the target's tools to `selection` by removing the `tools:` entries of the others. Only
 * a tool declared by an entry of its own can be removed: one a context injects, a server of many
 * tools offers, or the parent holds is turned off through `toolPolicy.disabled` instead.
 */
function narrowTools(node: YAMLMap, own: readonly string[], selection: readonly string[], field: string) {
  const ownSet = new Set(own);
  const kept = new Set(selection.map(canonicalToolName));
  for (const name of kept)
    if (!ownSet.has(name))
      throw bad(
        'selection',
        `${name} is not one of ${field || 'the agent'}'s tools (${own.join(', ') || 'none'})`,
      );
  const tools = node.get(keyOf(node, 'tools'));
  const entries = isSeq(tools) ? tools.items : [];
  const nameOf = (entry: unknown) => {
    const name = isMap(entry) ? entry.get('name', true) : undefined;
    return isScalar(name) && typeof name.value === 'string' ? canonicalToolName(name.value) : undefined;
  };
  const drop = new Set<number>();
  for (const tool of own.filter((t) => !kept.has(t))) {
    const at = entries.flatMap((entry, i) => (nameOf(entry) === tool ? [i] : []));
    if (at.length === 0)
      throw bad(
        'selection',
        `${tool} is not declared by a tools: entry of its own (a context, a server or the parent gives it); turn it off with toolPolicy.disabled instead`,
      );
    for (const i of at) drop.add(i);
  }
  if (isSeq(tools)) tools.items = entries.filter((_, i) => !drop.has(i));
}

/** What the target's `toolPolicy` and `tools` look like in the changed file. */
function sectionOf(doc: Document, node: YAMLMap): string {
  const section: Record<string, unknown> = {};
  for (const key of ['toolPolicy', 'tool_policy', 'tools'])
    if (node.has(key))
      section[key] = (node.get(key, true) as Node).toJS(doc, { maxAliasCount: YAML_LIMITS.maxAliasCount });
  return Object.keys(section).length > 0 ? stringify(section) : '';
}

/** The agent file with the change applied, in memory: never written here. */
export async function changedFile(
  agent: StudioAgent,
  change: AgentChange,
  signal: AbortSignal,
): Promise<ChangedFile> {
  if (!['.yaml', '.yml', '.json'].includes(extname(agent.path).toLowerCase()))
    throw new StudioHttpError(
      422,
      'preview_unsupported',
      `${agent.file}: a preview edits YAML or JSON agent files only`,
    );
  // The shared YAML limits (alias count, size), as for every YAML RAF parses.
  const { document: doc, problems } = parseYamlLimited(agent.text);
  const problem = problems[0];
  if (problem || !doc)
    throw new StudioHttpError(
      422,
      'agent_error',
      `${agent.file}:${problem?.line ?? 1}:${problem?.column ?? 1}: ${problem?.message ?? 'unreadable'}`,
    );
  const { node, target } = targetNode(doc, change.subAgent);
  if (change.toolPolicy !== undefined) setToolPolicy(doc, node, change.toolPolicy);
  if (change.selection) {
    const base = await diagnosticOf(agent, signal);
    const diagnosed = change.subAgent ? base.subAgents.find((s) => s.agent === change.subAgent) : base;
    if (!diagnosed) throw new StudioHttpError(404, 'no_such_sub_agent', `no sub-agent "${change.subAgent}"`);
    const own = diagnosed.tools.filter((t) => t.runtime.state !== 'not-selected').map((t) => t.name);
    narrowTools(node, own, change.selection, change.subAgent ?? '');
  }
  return { file: agent.file, target, yaml: doc.toString(), section: sectionOf(doc, node) };
}

/**
 * `POST /api/agents/:id/diagnostic/preview`: exactly the `runtimeDiagnostic()` of the agent that
 * the changed file builds (with the same settings, the governance store read now), before anything
 * is saved; a change the file's schema refuses is the builder's 422 naming file:line:column.
 */
export async function previewDiagnostic(
  agent: StudioAgent,
  change: AgentChange,
  signal: AbortSignal,
): Promise<RuntimeDiagnostic> {
  const { yaml } = await changedFile(agent, change, signal);
  const builder = await agent.rebuild(yaml);
  return runtimeDiagnostic(await chatAgentOf({ ...agent, builder }, signal), { signal });
}
