import { randomUUID } from 'node:crypto';
import type { JSONValue } from '@raf/core';
import { functionExecutor } from '../executors/function-executor.js';
import { textOf } from '../executors/message-text.js';
import type { EdgeCondition, Executor, NodeContext, WorkflowState } from '../graph/graph-types.js';
import { WorkflowBuilder } from '../graph/workflow-builder.js';
import { Workflow, type WorkflowOptions } from '../workflow.js';
import { type ActionObject, asObject, asString, field, value } from './action-fields.js';
import { callAction } from './call-actions.js';
import type { ActionPath, DslProblem, DslServices, WorkflowDocument } from './dsl-types.js';
import { isTruthy } from './expression/evaluate.js';
import { ExpressionError } from './expression/expression-error.js';
import { toText } from './expression/index.js';
import {
  ActionError,
  type Compiled,
  compileValue,
  evaluateValue,
  getVariable,
  setVariable,
} from './variables.js';

export interface CompileActionsOptions extends WorkflowOptions {
  services?: DslServices;
  /** `workflow.yaml:12:7` for a path of the document: where run-time errors point. */
  where?: (path: ActionPath) => string;
  /** How often a `Foreach` may loop and a `GotoAction` may jump back, per run (default 1000). */
  maxLoopIterations?: number;
}

export interface CompiledWorkflow {
  workflow?: Workflow;
  problems: DslProblem[];
}

export const ACTION_KINDS = [
  'SetVariable',
  'SetMultipleVariables',
  'SetTextVariable',
  'ResetVariable',
  'ClearAllVariables',
  'ParseValue',
  'EditTableV2',
  'If',
  'ConditionGroup',
  'Foreach',
  'BreakLoop',
  'ContinueLoop',
  'GotoAction',
  'SendActivity',
  'InvokeAgent',
  'InvokeFunctionTool',
  'ExecuteCode',
  'InvokeMcpTool',
  'HttpRequestAction',
  'Question',
  'RequestExternalInput',
  'EndWorkflow',
  'EndConversation',
  'CreateConversation',
  'AddConversationMessage',
] as const;

export type ActionKind = (typeof ACTION_KINDS)[number];

const SNAKE_CASE_KINDS: ReadonlyMap<string, ActionKind> = new Map(
  ACTION_KINDS.map((kind) => [kind.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toLowerCase(), kind]),
);

/**
 * The action kind a file names: as written in the schema (`InvokeMcpTool`) or in the snake_case
 * the upstream docs use (`invoke_mcp_tool`, `edit_table_v2`), as field names already are.
 */
export function actionKindOf(written: string): ActionKind | undefined {
  return (ACTION_KINDS as readonly string[]).includes(written)
    ? (written as ActionKind)
    : SNAKE_CASE_KINDS.get(written);
}

interface Scope {
  loopHeads: string[];
  loop?: { continueTo: string; breakTo: string | undefined };
}

type Handler = (context: NodeContext) => void | Promise<void>;

/**
 * Compiles the action list of a `kind: workflow` document (`trigger.actions`) to a graph: one
 * node per action, `If`/`ConditionGroup` as conditional edges, `Foreach` and `GotoAction` as
 * bounded loopback edges. `=` values are parsed here (a syntax error is a problem at its line)
 * and evaluated by the sandboxed expression evaluator at run time.
 */
export function compileWorkflowDocument(
  document: WorkflowDocument,
  options: CompileActionsOptions = {},
): CompiledWorkflow {
  const compiler = new ActionCompiler(options);
  const actions = document.trigger?.actions;
  if (!Array.isArray(actions) || actions.length === 0) {
    compiler.problem(['trigger', 'actions'], 'a workflow needs trigger.actions: a list of actions');
    return { problems: compiler.problems };
  }
  const first = compiler.compileList(actions, ['trigger', 'actions'], undefined, { loopHeads: [] });
  compiler.resolveGotos();
  if (compiler.problems.some((p) => p.severity === 'error')) return { problems: compiler.problems };
  compiler.start(first);
  try {
    const graph = compiler.builder.build();
    return {
      workflow: new Workflow(graph, {
        name: document.name,
        ...(document.description && { description: document.description }),
        ...options,
      }),
      problems: [
        ...compiler.problems,
        ...graph.warnings.map((message) => ({
          path: ['trigger', 'actions'],
          message,
          severity: 'warning' as const,
        })),
      ],
    };
  } catch (error) {
    compiler.problem(['trigger', 'actions'], (error as Error).message);
    return { problems: compiler.problems };
  }
}

class ActionCompiler {
  readonly builder = new WorkflowBuilder();
  readonly problems: DslProblem[] = [];
  private readonly ids = new Set<string>();
  private readonly byActionId = new Map<string, string>();
  private readonly gotos: { from: string; target: string; path: ActionPath }[] = [];
  private count = 0;
  private readonly limit: number;

  constructor(private readonly options: CompileActionsOptions) {
    this.limit = options.maxLoopIterations ?? 1000;
  }

  problem(path: ActionPath, message: string, severity: DslProblem['severity'] = 'error'): void {
    this.problems.push({ path, message, severity });
  }

  where(path: ActionPath): string {
    return this.options.where?.(path) ?? path.join('.');
  }

  /** Parses a value; a bad expression is a problem at its field, and the value reads as null. */
  value(raw: unknown, path: ActionPath): Compiled {
    try {
      return compileValue(raw);
    } catch (error) {
      const offset = error instanceof ExpressionError ? ` (at character ${error.offset + 2})` : '';
      this.problem(path, `bad expression ${JSON.stringify(raw)}: ${(error as Error).message}${offset}`);
      return { literal: null };
    }
  }

  start(first: string | undefined): void {
    this.builder.addNode(
      'workflow_start',
      functionExecutor((input, context) => {
        const text = textOf(input);
        const system = (context.state.get('System') ?? {}) as Record<string, JSONValue>;
        context.state.set('System', {
          ...system,
          LastMessage: { Text: text, Role: 'user' },
          LastMessageText: text,
          ConversationId: (system.ConversationId as string | undefined) ?? randomUUID(),
          Conversation: { messages: [{ role: 'user', content: text }] },
        });
        return null;
      }, 'start'),
    );
    this.builder.setStart('workflow_start');
    if (first) this.builder.addEdge('workflow_start', first);
  }

  resolveGotos(): void {
    for (const goto of this.gotos) {
      const target = this.byActionId.get(goto.target);
      if (!target) {
        this.problem(
          goto.path,
          `GotoAction: no action has id "${goto.target}" (known: ${[...this.byActionId.keys()].join(', ') || 'none'})`,
        );
        continue;
      }
      this.builder.addLoopback(goto.from, target, { maxIterations: this.limit, label: 'goto' });
    }
  }

  private connect(
    from: string,
    to: string | undefined,
    scope: Scope,
    when?: EdgeCondition,
    label?: string,
  ): void {
    if (to === undefined) return;
    if (scope.loopHeads.includes(to))
      this.builder.addLoopback(from, to, {
        maxIterations: this.limit,
        ...(when && { when }),
        ...(label && { label }),
      });
    else this.builder.addEdge(from, to, { ...(when && { when }), ...(label && { label }) });
  }

  private nodeId(action: ActionObject, kind: string, path: ActionPath): string {
    const written = asString(action.id);
    // By place in the file: `SetVariable_1`, `SendActivity_2_then_1`.
    const place = path
      .slice(2)
      .map((p) => (typeof p === 'number' ? p + 1 : p))
      .join('_');
    let id = written ?? `${kind}_${place}`;
    if (this.ids.has(id) || id === 'workflow_start') {
      if (written) this.problem([...path, 'id'], `two actions have the id "${written}"`);
      id = `${kind}_${++this.count}`;
    }
    this.ids.add(id);
    if (written) this.byActionId.set(written, id);
    return id;
  }

  /** Compiles a list so its last action leads to `next`; returns the first action's node. */
  compileList(list: unknown, path: ActionPath, next: string | undefined, scope: Scope): string | undefined {
    if (list === undefined || list === null) return next;
    if (!Array.isArray(list)) {
      this.problem(path, 'expected a list of actions');
      return next;
    }
    let entry = next;
    for (let i = list.length - 1; i >= 0; i--)
      entry = this.compileAction(list[i], [...path, i], entry, scope);
    return entry;
  }

  private simple(
    id: string,
    kind: string,
    path: ActionPath,
    run: Handler,
    next: string | undefined,
    scope: Scope,
    executorKind: Executor['kind'] = 'function',
  ): string {
    const where = this.where(path);
    this.builder.addNode(id, {
      kind: executorKind,
      label: kind,
      async handle(_input, context) {
        try {
          await run(context);
        } catch (error) {
          throw error instanceof ActionError
            ? error
            : new ActionError((error as Error).message, `${kind} at ${where}`);
        }
        return { output: null };
      },
    });
    this.connect(id, next, scope);
    return id;
  }

  private compileAction(
    raw: unknown,
    path: ActionPath,
    next: string | undefined,
    scope: Scope,
  ): string | undefined {
    const action = asObject(raw);
    const written = asString(action?.kind);
    if (!action || !written) {
      this.problem(path, 'an action needs a kind (SetVariable, If, SendActivity, …)');
      return next;
    }
    const kind = actionKindOf(written);
    if (!kind) {
      const lower = written.toLowerCase().replace(/[_-]/g, '');
      const hint = ACTION_KINDS.find((k) => k.toLowerCase() === lower);
      this.problem(
        [...path, 'kind'],
        `unknown action kind "${written}"${hint ? ` (did you mean ${hint}?)` : ''}`,
      );
      return next;
    }
    const id = this.nodeId(action, kind, path);
    const at = (...keys: (string | number)[]) => [...path, ...keys];
    const compiled = (names: string[], required = true): Compiled | undefined => {
      const f = field(action, ...names);
      if (!f) {
        if (required) this.problem(path, `${kind} needs ${names[0]}`);
        return undefined;
      }
      return this.value(f.value, at(f.key));
    };
    const variableOf = (names = ['variable']): string | undefined => {
      const f = field(action, ...names);
      const name = asString(f?.value);
      if (!name)
        this.problem(f ? at(f.key) : path, `${kind} needs ${names[0]}: a variable such as Local.name`);
      return name?.replace(/^=/, '');
    };
    const evaluate = (c: Compiled | undefined, state: WorkflowState) => (c ? evaluateValue(c, state) : null);

    switch (kind) {
      case 'SetVariable':
      case 'SetTextVariable': {
        const variable = variableOf();
        const v = compiled(['value', 'text']);
        return this.simple(
          id,
          kind,
          path,
          ({ state }) => {
            const result = evaluate(v, state);
            setVariable(state, variable!, kind === 'SetTextVariable' ? toText(result) : result);
          },
          next,
          scope,
        );
      }
      case 'SetMultipleVariables': {
        const raw = value(action, 'variables', 'assignments');
        const pairs: [string, Compiled][] = Array.isArray(raw)
          ? raw.flatMap((entry, i) => {
              const e = asObject(entry);
              const name = asString(value(e, 'variable'));
              if (!name) {
                this.problem(at('variables', i), 'each entry needs variable and value');
                return [];
              }
              return [
                [name, this.value(value(e, 'value'), at('variables', i, 'value'))] as [string, Compiled],
              ];
            })
          : Object.entries(asObject(raw) ?? {}).map(
              ([k, v]) => [k, this.value(v, at('variables', k))] as [string, Compiled],
            );
        if (!raw) this.problem(path, 'SetMultipleVariables needs variables');
        return this.simple(
          id,
          kind,
          path,
          ({ state }) => {
            for (const [name, v] of pairs) setVariable(state, name, evaluateValue(v, state));
          },
          next,
          scope,
        );
      }
      case 'ResetVariable': {
        const variable = variableOf();
        return this.simple(
          id,
          kind,
          path,
          ({ state }) => setVariable(state, variable!, undefined),
          next,
          scope,
        );
      }
      case 'ClearAllVariables': {
        const which = asString(value(action, 'variables', 'scope')) ?? 'Local';
        return this.simple(id, kind, path, ({ state }) => state.delete(which.replace(/^=/, '')), next, scope);
      }
      case 'ParseValue': {
        const variable = variableOf();
        const v = compiled(['value', 'source']);
        const type = asString(value(action, 'valueType', 'type'))?.toLowerCase();
        return this.simple(
          id,
          kind,
          path,
          ({ state }) => {
            let parsed = evaluate(v, state);
            if (typeof parsed === 'string') {
              if (type === 'number') parsed = Number(parsed);
              else if (type === 'string') parsed = String(parsed);
              else {
                try {
                  parsed = JSON.parse(parsed) as JSONValue;
                } catch {
                  if (type && type !== 'string')
                    throw new Error(`cannot parse ${JSON.stringify(parsed)} as ${type}`);
                }
              }
            }
            setVariable(state, variable!, parsed);
          },
          next,
          scope,
        );
      }
      case 'EditTableV2': {
        const table = variableOf(['itemsVariable', 'table', 'variable']);
        const operation = (asString(value(action, 'operation', 'changeType')) ?? 'add').toLowerCase();
        if (!['add', 'update', 'delete', 'remove', 'clear'].includes(operation))
          this.problem(
            at('operation'),
            `EditTableV2: operation must be add, update, delete or clear (got "${operation}")`,
          );
        const row = compiled(['row', 'value', 'item'], operation !== 'clear');
        const key = asString(value(action, 'key')) ?? 'id';
        return this.simple(
          id,
          kind,
          path,
          ({ state }) => {
            const current = getVariable(state, table!);
            const list = Array.isArray(current) ? [...current] : [];
            const item = evaluate(row, state);
            const same = (a: JSONValue) =>
              asObject(a) && asObject(item)
                ? (a as Record<string, JSONValue>)[key] === (item as Record<string, JSONValue>)[key]
                : JSON.stringify(a) === JSON.stringify(item);
            const next =
              operation === 'add'
                ? [...list, item]
                : operation === 'update'
                  ? list.map((a) => (same(a) ? item : a))
                  : operation === 'clear'
                    ? []
                    : list.filter((a) => !same(a));
            setVariable(state, table!, next);
          },
          next,
          scope,
        );
      }
      case 'SendActivity': {
        const activity = value(action, 'activity');
        const text = asObject(activity) ? field(asObject(activity), 'text') : undefined;
        const source = text
          ? this.value(text.value, at('activity', text.key))
          : activity !== undefined
            ? this.value(activity, at('activity'))
            : undefined;
        if (!source) this.problem(path, 'SendActivity needs activity: { text }');
        return this.simple(
          id,
          kind,
          path,
          (context) => context.yieldOutput(toText(evaluate(source, context.state))),
          next,
          scope,
        );
      }
      case 'EndWorkflow':
      case 'EndConversation':
        return this.simple(id, kind, path, () => {}, undefined, scope);
      case 'CreateConversation': {
        const variable = asString(value(action, 'conversationId', 'variable'))?.replace(/^=/, '');
        return this.simple(
          id,
          kind,
          path,
          ({ state }) => {
            const conversation = randomUUID();
            if (variable) setVariable(state, variable, conversation);
            setVariable(state, 'System.ConversationId', conversation);
            setVariable(state, 'System.Conversation', { messages: [] });
          },
          next,
          scope,
        );
      }
      case 'AddConversationMessage': {
        const message = asObject(value(action, 'message'));
        const role = this.value(value(message, 'role') ?? 'user', at('message', 'role'));
        const content = this.value(value(message, 'content', 'text') ?? '', at('message', 'content'));
        if (!message) this.problem(path, 'AddConversationMessage needs message: { role, content }');
        return this.simple(
          id,
          kind,
          path,
          ({ state }) => {
            const messages = getVariable(state, 'System.Conversation.messages');
            const list = Array.isArray(messages) ? messages : [];
            const entry = {
              role: toText(evaluateValue(role, state)),
              content: toText(evaluateValue(content, state)),
            };
            setVariable(state, 'System.Conversation.messages', [...list, entry]);
            if (entry.role === 'user')
              setVariable(state, 'System.LastMessage', { Text: entry.content, Role: 'user' });
          },
          next,
          scope,
        );
      }
      case 'Question':
      case 'RequestExternalInput': {
        const question = value(action, 'question', 'prompt');
        const textField = asObject(question) ? field(asObject(question), 'text') : undefined;
        const prompt = textField
          ? this.value(textField.value, at(field(action, 'question', 'prompt')!.key, textField.key))
          : this.value(question ?? 'Your answer?', at('question'));
        const variable = asString(value(action, 'variable', 'property'))?.replace(/^=/, '');
        const fallback = field(action, 'default', 'defaultValue');
        const preset = fallback ? this.value(fallback.value, at(fallback.key)) : undefined;
        const where = this.where(path);
        this.builder.addNode(id, {
          kind: 'human-input',
          label: kind,
          handle(_input, context) {
            const answer = context.resume?.answer;
            if (answer === undefined) {
              const text = toText(evaluateValue(prompt, context.state));
              return { halt: { kind: 'input', prompt: text, ...(variable && { variable }) } };
            }
            const given = answer === '' && preset ? evaluateValue(preset, context.state) : answer;
            try {
              if (variable) setVariable(context.state, variable, given);
              setVariable(context.state, 'System.LastMessage', { Text: toText(given), Role: 'user' });
            } catch (error) {
              throw new ActionError((error as Error).message, `${kind} at ${where}`);
            }
            return { output: null };
          },
        });
        this.connect(id, next, scope);
        return id;
      }
      case 'If': {
        const condition = compiled(['condition']);
        const thenEntry = this.compileList(
          value(action, 'then', 'actions'),
          at(field(action, 'then', 'actions')?.key ?? 'then'),
          next,
          scope,
        );
        const elseEntry = this.compileList(
          value(action, 'else', 'elseActions'),
          at(field(action, 'else', 'elseActions')?.key ?? 'else'),
          next,
          scope,
        );
        return this.branch(id, kind, path, [condition], [thenEntry], elseEntry, scope);
      }
      case 'ConditionGroup': {
        const list = value(action, 'conditions');
        const items = Array.isArray(list) ? list.map(asObject) : [];
        if (items.length === 0)
          this.problem(path, 'ConditionGroup needs conditions: [{ condition, actions }]');
        const conditions = items.map((item, i) =>
          this.value(value(item, 'condition'), at('conditions', i, 'condition')),
        );
        const entries = items.map((item, i) => {
          const inner = asString(value(item, 'id'));
          if (inner) this.byActionId.set(inner, id);
          return this.compileList(value(item, 'actions'), at('conditions', i, 'actions'), next, scope);
        });
        const elseField = field(action, 'elseActions', 'else');
        const elseEntry = this.compileList(
          elseField?.value,
          at(elseField?.key ?? 'elseActions'),
          next,
          scope,
        );
        return this.branch(id, kind, path, conditions, entries, elseEntry, scope);
      }
      case 'Foreach': {
        const source = compiled(['source', 'items']);
        const item = asString(value(action, 'itemName', 'item')) ?? 'item';
        const index = asString(value(action, 'indexName', 'index')) ?? 'index';
        const head = `${id}__next`;
        const inner: Scope = {
          loopHeads: [...scope.loopHeads, head],
          loop: { continueTo: head, breakTo: next },
        };
        const bodyEntry = this.compileList(value(action, 'actions'), at('actions'), head, inner);
        const key = `__foreach_${id}`;
        this.builder.addNode(
          id,
          functionExecutor((_m, { state }) => {
            const list = evaluate(source, state);
            state.set(key, { items: Array.isArray(list) ? list : list === null ? [] : [list], at: -1 });
            return null;
          }, kind),
        );
        this.builder.addNode(
          head,
          functionExecutor((_m, { state }) => {
            const loop = state.get(key) as { items: JSONValue[]; at: number };
            const at = loop.at + 1;
            if (at >= loop.items.length) {
              state.delete(key);
              return { more: false };
            }
            state.set(key, { ...loop, at });
            setVariable(state, item.includes('.') ? item : `Local.${item}`, loop.items[at]!);
            setVariable(state, index.includes('.') ? index : `Local.${index}`, at);
            return { more: true };
          }, 'next item'),
        );
        this.builder.addEdge(id, head);
        const more: EdgeCondition = (m) => (m as { more: boolean }).more;
        this.connect(head, bodyEntry ?? head, inner, more, 'each');
        this.connect(head, next, scope, (m) => !more(m, undefined as never), 'done');
        return id;
      }
      case 'BreakLoop':
      case 'ContinueLoop': {
        if (!scope.loop) {
          this.problem(path, `${kind} outside a Foreach`);
          return next;
        }
        const target = kind === 'BreakLoop' ? scope.loop.breakTo : scope.loop.continueTo;
        return this.simple(id, kind, path, () => {}, target, scope);
      }
      case 'GotoAction': {
        const target = asString(value(action, 'actionId', 'target'));
        if (!target) this.problem(path, 'GotoAction needs actionId');
        this.builder.addNode(
          id,
          functionExecutor(() => null, kind),
        );
        if (target) this.gotos.push({ from: id, target, path: at(field(action, 'actionId', 'target')!.key) });
        return id;
      }
      default: {
        const handler = callAction(kind, action, path, this.options.services ?? {}, {
          value: (raw, p) => this.value(raw, p),
          problem: (p, message) => this.problem(p, message),
          where: this.where(path),
        });
        this.builder.addNode(id, handler);
        this.connect(id, next, scope);
        return id;
      }
    }
  }

  private branch(
    id: string,
    kind: string,
    path: ActionPath,
    conditions: (Compiled | undefined)[],
    entries: (string | undefined)[],
    elseEntry: string | undefined,
    scope: Scope,
  ): string {
    const where = this.where(path);
    this.builder.addNode(
      id,
      functionExecutor((_m, { state }) => {
        try {
          const chosen = conditions.findIndex((c) => c !== undefined && isTruthy(evaluateValue(c, state)));
          return { branch: chosen };
        } catch (error) {
          throw new ActionError((error as Error).message, `${kind} at ${where}`);
        }
      }, kind),
    );
    entries.forEach((entry, i) => {
      this.connect(id, entry, scope, (m) => (m as { branch: number }).branch === i, `case ${i}`);
    });
    this.connect(id, elseEntry, scope, (m) => (m as { branch: number }).branch === -1, 'else');
    return id;
  }
}
