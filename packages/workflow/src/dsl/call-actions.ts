import type { JSONValue, ToolResult } from '@raf/core';
import { runAgentTurn } from '../executors/agent-executor.js';
import type { Executor, NodeContext } from '../graph/graph-types.js';
import { type ActionObject, asObject, asString, field, value } from './action-fields.js';
import type { ActionPath, DslServices } from './dsl-types.js';
import { isTruthy } from './expression/evaluate.js';
import { toText } from './expression/index.js';
import { ActionError, type Compiled, evaluateValue, setVariable } from './variables.js';

interface CompileHelpers {
  value(raw: unknown, path: ActionPath): Compiled;
  problem(path: ActionPath, message: string): void;
  where: string;
}

const PACKAGES = {
  ExecuteCode: 'ExecuteCode needs @raf/sandbox (pnpm add @raf/sandbox; builder.use(sandboxPlugin()))',
  InvokeMcpTool: 'InvokeMcpTool needs @raf/mcp (pnpm add @raf/mcp; builder.use(mcpPlugin()))',
  HttpRequestAction: 'HttpRequestAction needs @raf/web (pnpm add @raf/web; builder.use(webPlugin()))',
} as const;

/** Where a call's result goes: `output: { result | response | responseObject | messages, autoSend }` or `output: Local.x`. */
function outputOf(action: ActionObject): { variable?: string; autoSend: boolean } {
  const output = value(action, 'output');
  if (typeof output === 'string') return { variable: output.replace(/^=/, ''), autoSend: false };
  const o = asObject(output);
  const variable = asString(value(o, 'result', 'response', 'responseObject', 'messages', 'variable'));
  return {
    ...(variable && { variable: variable.replace(/^=/, '') }),
    autoSend: value(o, 'autoSend') === true,
  };
}

function resultValue(result: ToolResult): JSONValue {
  if (!result.ok) throw new Error(result.error ?? 'the call failed');
  return result.data ?? null;
}

function store(context: NodeContext, out: { variable?: string; autoSend: boolean }, result: JSONValue): void {
  if (out.variable) setVariable(context.state, out.variable, result);
  if (out.autoSend) context.yieldOutput(toText(result));
}

function compileMap(raw: unknown, path: ActionPath, helpers: CompileHelpers): [string, Compiled][] {
  return Object.entries(asObject(raw) ?? {}).map(([k, v]) => [k, helpers.value(v, [...path, k])]);
}

const evaluateMap = (pairs: [string, Compiled][], context: NodeContext) =>
  Object.fromEntries(pairs.map(([k, v]) => [k, evaluateValue(v, context.state)]));

/** The executor of a call action (agents, tools, code, MCP, HTTP); a missing service is a problem at the action. */
export function callAction(
  kind: string,
  action: ActionObject,
  path: ActionPath,
  services: DslServices,
  helpers: CompileHelpers,
): Executor {
  const at = (...keys: (string | number)[]) => [...path, ...keys];
  const wrap =
    (run: (context: NodeContext) => Promise<void>): Executor['handle'] =>
    async (_input, context) => {
      try {
        await run(context);
      } catch (error) {
        throw error instanceof ActionError
          ? error
          : new ActionError((error as Error).message, `${kind} at ${helpers.where}`);
      }
      return { output: null };
    };
  const out = outputOf(action);
  const requireService = (name: keyof typeof PACKAGES, present: unknown) => {
    if (!present) helpers.problem(at('kind'), services.missing?.(name) ?? PACKAGES[name]);
  };

  switch (kind) {
    case 'InvokeAgent': {
      const agentField = value(action, 'agent');
      const name = asString(asObject(agentField)?.name) ?? asString(agentField);
      const agent = name ? services.agent?.(name) : undefined;
      if (!name) helpers.problem(path, 'InvokeAgent needs agent: { name }');
      else if (!agent)
        helpers.problem(
          at(field(action, 'agent')!.key),
          `InvokeAgent: no agent "${name}" (register it: builder.withWorkflowAgent("${name}", agent))`,
        );
      const input = asObject(value(action, 'input'));
      const messagesField = field(input, 'messages');
      const messages = messagesField
        ? helpers.value(messagesField.value, at('input', messagesField.key))
        : undefined;
      const args = compileMap(value(input, 'arguments'), at('input', 'arguments'), helpers);
      const loop = asObject(value(input, 'externalLoop')) ?? asObject(value(action, 'externalLoop'));
      const lastMessage = helpers.value('=System.LastMessage.Text', path);
      const when = loop
        ? helpers.value(value(loop, 'when') ?? false, at('input', 'externalLoop', 'when'))
        : undefined;
      return {
        kind: 'agent',
        label: name ?? 'InvokeAgent',
        async handle(_input, context) {
          try {
            const answer = context.resume?.answer;
            const text =
              answer !== undefined
                ? toText(answer)
                : [
                    toText(evaluateValue(messages ?? lastMessage, context.state)),
                    ...(args.length > 0 ? [`Arguments: ${JSON.stringify(evaluateMap(args, context))}`] : []),
                  ].join('\n\n');
            const turn = await runAgentTurn(agent!, text, context, { keepHistory: when !== undefined });
            if ('requests' in turn) return { halt: { kind: 'approval', requests: turn.requests } };
            store(context, out, turn.text);
            setVariable(context.state, 'System.LastAgentResponse', turn.text);
            if (when && isTruthy(evaluateValue(when, context.state)))
              return { halt: { kind: 'input', prompt: turn.text } };
            context.setNodeState(undefined);
            return { output: null };
          } catch (error) {
            throw error instanceof ActionError
              ? error
              : new ActionError((error as Error).message, `${kind} at ${helpers.where}`);
          }
        },
      };
    }
    case 'InvokeFunctionTool': {
      const name = asString(value(action, 'functionName', 'name', 'toolName'));
      if (!name) helpers.problem(path, 'InvokeFunctionTool needs functionName');
      if (!services.functionTool)
        helpers.problem(path, 'InvokeFunctionTool: no tools are registered for this workflow');
      const args = compileMap(value(action, 'arguments'), at('arguments'), helpers);
      const approval = value(action, 'requireApproval') === true;
      return {
        kind: 'function',
        label: name ?? kind,
        async handle(_input, context) {
          try {
            const tool = await services.functionTool!(name!);
            if (!tool) throw new Error(`no tool "${name}" (register it: builder.withTool("${name}", …))`);
            const argumentsValue = evaluateMap(args, context);
            if (approval) {
              const approvals = context.resume?.approvals;
              const decision = approvals?.find((a) => a.callId === context.nodeId);
              if (!decision)
                return {
                  halt: {
                    kind: 'approval',
                    requests: [
                      {
                        type: 'tool-approval-request',
                        callId: context.nodeId,
                        name: tool.name,
                        arguments: argumentsValue,
                        description: tool.description,
                      },
                    ],
                  },
                };
              if (!decision.approved)
                throw new Error(
                  `the call of ${tool.name} was denied${decision.reason ? `: ${decision.reason}` : ''}`,
                );
            }
            const result = await tool.execute(argumentsValue, {
              callId: context.nodeId,
              toolName: tool.name,
              signal: context.signal,
            } as never);
            store(context, out, resultValue(result));
            return { output: null };
          } catch (error) {
            throw new ActionError((error as Error).message, `${kind} at ${helpers.where}`);
          }
        },
      };
    }
    case 'ExecuteCode': {
      requireService('ExecuteCode', services.executeCode);
      const code = helpers.value(value(action, 'code') ?? '', at('code'));
      const language = asString(value(action, 'language')) ?? 'python';
      return {
        kind: 'function',
        label: kind,
        handle: wrap(async (context) => {
          const result = await services.executeCode!(
            { language, code: toText(evaluateValue(code, context.state)) },
            context.signal,
          );
          store(context, out, resultValue(result));
        }),
      };
    }
    case 'InvokeMcpTool': {
      requireService('InvokeMcpTool', services.invokeMcpTool);
      const serverUrl = helpers.value(value(action, 'serverUrl') ?? '', at('serverUrl'));
      const toolName = helpers.value(value(action, 'toolName') ?? '', at('toolName'));
      const headers = compileMap(value(action, 'headers'), at('headers'), helpers);
      const args = compileMap(value(action, 'arguments'), at('arguments'), helpers);
      return {
        kind: 'function',
        label: kind,
        handle: wrap(async (context) => {
          const result = await services.invokeMcpTool!(
            {
              serverUrl: toText(evaluateValue(serverUrl, context.state)),
              toolName: toText(evaluateValue(toolName, context.state)),
              headers: Object.fromEntries(
                Object.entries(evaluateMap(headers, context)).map(([k, v]) => [k, toText(v)]),
              ),
              arguments: evaluateMap(args, context),
            },
            context.signal,
          );
          store(context, out, resultValue(result));
        }),
      };
    }
    case 'HttpRequestAction': {
      requireService('HttpRequestAction', services.httpRequest);
      const url = helpers.value(value(action, 'url') ?? '', at('url'));
      const method = (asString(value(action, 'method')) ?? 'GET').toUpperCase();
      const headers = compileMap(value(action, 'headers'), at('headers'), helpers);
      const query = compileMap(value(action, 'queryParameters', 'query'), at('queryParameters'), helpers);
      const body = asObject(value(action, 'body'));
      const bodyKind = (asString(value(body, 'kind')) ?? 'none') as 'json' | 'raw' | 'none';
      const bodyValue = body
        ? helpers.value(value(body, 'value', 'content'), at('body', 'value'))
        : undefined;
      const response = asString(value(action, 'response'))?.replace(/^=/, '');
      const responseHeaders = asString(value(action, 'responseHeaders'))?.replace(/^=/, '');
      return {
        kind: 'function',
        label: `${method} ${asString(value(action, 'url')) ?? ''}`,
        handle: wrap(async (context) => {
          const strings = (pairs: [string, Compiled][]) =>
            Object.fromEntries(Object.entries(evaluateMap(pairs, context)).map(([k, v]) => [k, toText(v)]));
          const result = await services.httpRequest!(
            {
              url: toText(evaluateValue(url, context.state)),
              method,
              headers: strings(headers),
              query: strings(query),
              ...(bodyKind !== 'none' &&
                bodyValue && { body: { kind: bodyKind, value: evaluateValue(bodyValue, context.state) } }),
            },
            context.signal,
          );
          if (response) setVariable(context.state, response, result.body);
          if (responseHeaders) setVariable(context.state, responseHeaders, result.headers);
          store(context, out, result.body);
        }),
      };
    }
    default:
      throw new Error(`not a call action: ${kind}`);
  }
}
