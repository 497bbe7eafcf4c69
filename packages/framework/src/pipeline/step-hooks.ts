import type {
  ChatMessage,
  FinishReason,
  ITool,
  JSONValue,
  ModelOptions,
  ToolCall,
  ToolResult,
  Usage,
} from '@raf/core';

/** What `prepareStep` sees before each model call of the tool loop. */
export interface PrepareStepInput {
  /** 0 for the first model call of a run; a resumed run goes on from the paused round. */
  stepNumber: number;
  /** The conversation the model is about to receive (system message first). */
  messages: readonly ChatMessage[];
  /** Every tool the model may call this step (static and provider-injected). */
  tools: readonly ITool[];
  modelOptions: ModelOptions | undefined;
}

/** What `prepareStep` may change for this step; anything left out stays as it was. */
export interface PrepareStepResult {
  /** The model options of this step (replacing the run's). */
  modelOptions?: ModelOptions;
  /** Names of the tools offered this step; calls to other tools get `Tool '<name>' not found`. */
  activeTools?: readonly string[];
  /**
   * The conversation to send from this step on (e.g. compressed). The loop appends the next
   * turns to it; the session still stores every message.
   */
  messages?: readonly ChatMessage[];
}

export type PrepareStep = (
  input: PrepareStepInput,
) => PrepareStepResult | undefined | Promise<PrepareStepResult | undefined>;

export interface StepToolResult {
  callId: string;
  name: string;
  result: ToolResult;
}

/** One model call and the tools it ran. */
export interface StepResult {
  stepNumber: number;
  text: string;
  toolCalls: readonly ToolCall[];
  /** Empty when the step paused for approval or called no tools. */
  toolResults: readonly StepToolResult[];
  /** This model call's usage, when the model reported it. */
  usage: Usage | undefined;
  /** The model's reason (`toolCalls` when it asked for tools). */
  finishReason: FinishReason;
  /** From the model request to the last tool result. */
  durationMs: number;
}

export interface ToolStartEvent {
  callId: string;
  name: string;
  args: JSONValue | undefined;
}

export interface ToolEndEvent {
  callId: string;
  name: string;
  result: ToolResult;
  durationMs: number;
}

/**
 * Hooks of the tool loop. Unset hooks cost nothing. `prepareStep` and `onStepFinish` are awaited;
 * `onToolStart`/`onToolEnd` are called as tools start and end. An event hook that throws becomes
 * a `warning` update; a `prepareStep` that throws fails the run.
 */
export interface LoopHooks {
  prepareStep?: PrepareStep;
  onStepFinish?: (step: StepResult) => void | Promise<void>;
  onToolStart?: (event: ToolStartEvent) => void;
  onToolEnd?: (event: ToolEndEvent) => void;
}

/** What a stop condition reads after each step that ran tools. */
export interface StopConditionInput {
  stepNumber: number;
  /** This run's steps so far, oldest first. */
  steps: readonly StepResult[];
}

/**
 * Ends the run after a step that ran tools (finish `other`, `rawReason: 'stopCondition'`), before
 * the model is called again. Several conditions stop when any one is true.
 */
export type StopCondition = (input: StopConditionInput) => boolean | Promise<boolean>;

/** Stops once `count` model calls (steps) have been made. */
export function stepCountIs(count: number): StopCondition {
  return ({ stepNumber }) => stepNumber + 1 >= count;
}

/** Stops after a step in which the model called the tool `name`. */
export function hasToolCall(name: string): StopCondition {
  return ({ steps }) => steps.at(-1)?.toolCalls.some((call) => call.name === name) ?? false;
}
