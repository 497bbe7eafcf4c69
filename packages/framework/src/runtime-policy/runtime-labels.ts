/** Why a tool cannot run where a worker would want it (SPEC §7, seed 002). */
export type BlockedReason =
  | 'workspace_root_required'
  | 'shell_disabled_by_policy'
  | 'write_blocked_by_readonly_policy'
  | 'requires_main_process_proxy'
  | 'unsupported_in_worker'
  | 'not_selected_for_subagent';

/** Where a tool runs for a worker this session: the dynamic state of seed 002. */
export type RuntimeState = 'worker-local' | 'main-process-proxied' | 'disabled-in-worker' | 'not-selected';

/** The route the pages show for a state. */
export type RuntimeRoute = 'worker-local' | 'main-process-proxy' | 'disabled';

export type LabelLanguage = 'en' | 'zh-CN';
export type Label = Readonly<Record<LabelLanguage, string>>;

/**
 * The one table of labels. CLI, API and the studio print these; none of them words a reason or a
 * state on its own, so the three pages of seed 002 always agree.
 */
export const RUNTIME_LABELS = {
  reasons: {
    workspace_root_required: {
      en: 'needs a workspace root, but this session has no working folder or root',
      'zh-CN': '工具需要 workspace root，但当前 session 没有 cwd/root',
    },
    shell_disabled_by_policy: {
      en: 'shell commands are disabled by the worker policy',
      'zh-CN': 'bash 等 shell 工具被策略禁用',
    },
    write_blocked_by_readonly_policy: {
      en: 'writes are blocked: the worker policy is read-only',
      'zh-CN': '写入类工具被 readonly 策略阻止',
    },
    requires_main_process_proxy: {
      en: 'runs in the main process (proxied from the worker)',
      'zh-CN': '工具需要主进程代理',
    },
    unsupported_in_worker: {
      en: 'cannot run in a worker',
      'zh-CN': '工具没有 worker 支持',
    },
    not_selected_for_subagent: {
      en: "not in this sub-agent's tool selection",
      'zh-CN': '未被选入子 Agent 工具集',
    },
  } satisfies Record<BlockedReason, Label>,
  states: {
    'worker-local': { en: 'runs in the worker', 'zh-CN': '子进程可以本地执行' },
    'main-process-proxied': { en: 'proxied to the main process', 'zh-CN': '子进程请求父进程代理执行' },
    'disabled-in-worker': { en: 'disabled in the worker', 'zh-CN': '当前 worker 策略下不能执行' },
    'not-selected': { en: 'not selected', 'zh-CN': '没有被选入当前子 Agent 工具集' },
  } satisfies Record<RuntimeState, Label>,
  routes: {
    'worker-local': { en: 'worker-local', 'zh-CN': 'Worker 本地' },
    'main-process-proxy': { en: 'main-process proxy', 'zh-CN': '主进程代理' },
    disabled: { en: 'disabled', 'zh-CN': '禁用' },
  } satisfies Record<RuntimeRoute, Label>,
  governance: {
    disabled: { en: 'disabled by tool governance', 'zh-CN': '已被工具治理禁用' },
    disabledByAgent: { en: "disabled by the agent's toolPolicy", 'zh-CN': '已被 Agent 工具策略禁用' },
    core: { en: 'core tool (cannot be disabled)', 'zh-CN': '核心工具（不可关闭）' },
  },
} as const;

/** States map to routes as SPEC §7.1 fixes. */
export function routeOfState(state: RuntimeState): RuntimeRoute {
  switch (state) {
    case 'worker-local':
      return 'worker-local';
    case 'main-process-proxied':
      return 'main-process-proxy';
    default:
      return 'disabled';
  }
}
