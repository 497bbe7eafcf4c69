import type { Lang } from './types.js';

/**
 * The words of the page itself (titles, column heads, buttons). Routes, states, reasons and the
 * governance notes come from the server's one label table (`GET /api/labels`), never from here.
 */
const WORDS = {
  title: { en: 'RAF Studio', 'zh-CN': 'RAF 工作室' },
  tools: { en: 'Tools', 'zh-CN': '工具' },
  agent: { en: 'Agent', 'zh-CN': 'Agent' },
  conversation: { en: 'Conversation', 'zh-CN': '对话' },
  language: { en: 'Language', 'zh-CN': '语言' },
  theme: { en: 'Dark theme', 'zh-CN': '深色主题' },
  pages: { en: 'Pages', 'zh-CN': '页面' },
  chooseAgent: { en: 'Agent', 'zh-CN': 'Agent' },
  loading: { en: 'Loading…', 'zh-CN': '加载中…' },
  tool: { en: 'Tool', 'zh-CN': '工具' },
  enabled: { en: 'Enabled', 'zh-CN': '启用' },
  core: { en: 'Core', 'zh-CN': '核心' },
  hint: { en: 'Prompt hint', 'zh-CN': '提示词补充' },
  routing: { en: 'Routing strategy', 'zh-CN': '路由策略' },
  kind: { en: 'Kind', 'zh-CN': '类型' },
  mode: { en: 'Execution', 'zh-CN': '执行方式' },
  worker: { en: 'In worker', 'zh-CN': '支持 Worker' },
  routingHint: { en: 'Routing hint', 'zh-CN': '路由提示' },
  needs: { en: 'Needs', 'zh-CN': '需要' },
  risk: { en: 'Risk', 'zh-CN': '风险' },
  profile: { en: 'Profile route', 'zh-CN': '静态路由' },
  shell: { en: 'shell', 'zh-CN': 'shell' },
  write: { en: 'write', 'zh-CN': '写入' },
  skill: { en: 'skill scope', 'zh-CN': '技能范围' },
  yes: { en: 'yes', 'zh-CN': '是' },
  no: { en: 'no', 'zh-CN': '否' },
  governanceFile: { en: 'Governance file', 'zh-CN': '治理文件' },
  model: { en: 'Model', 'zh-CN': '模型' },
  providers: { en: 'Provider order', 'zh-CN': '上下文提供者顺序' },
  planTools: { en: 'Effective tools', 'zh-CN': '生效的工具' },
  source: { en: 'Source', 'zh-CN': '来源' },
  gated: { en: 'Approval', 'zh-CN': '审批' },
  route: { en: 'Route', 'zh-CN': '路由' },
  state: { en: 'State', 'zh-CN': '状态' },
  why: { en: 'Why', 'zh-CN': '原因' },
  governance: { en: 'Governance', 'zh-CN': '治理' },
  runtime: { en: 'Runtime profile', 'zh-CN': '运行时配置' },
  subAgent: { en: 'Sub-agent', 'zh-CN': '子 Agent' },
  workerPolicy: { en: 'Worker policy', 'zh-CN': 'Worker 策略' },
  roots: { en: 'roots', 'zh-CN': '根目录' },
  shellAllowed: { en: 'shell allowed', 'zh-CN': '允许 shell' },
  readonly: { en: 'read-only', 'zh-CN': '只读' },
  warnings: { en: 'Warnings', 'zh-CN': '警告' },
  message: { en: 'Message', 'zh-CN': '消息' },
  send: { en: 'Send', 'zh-CN': '发送' },
  approve: { en: 'Approve', 'zh-CN': '批准' },
  deny: { en: 'Deny', 'zh-CN': '拒绝' },
  approvalNeeded: { en: 'Approval needed', 'zh-CN': '需要审批' },
  target: { en: 'Target', 'zh-CN': '目标' },
  arguments: { en: 'Arguments', 'zh-CN': '参数' },
  thisRun: { en: 'Routes of this run', 'zh-CN': '本次运行的路由' },
  you: { en: 'You', 'zh-CN': '你' },
  finishStop: { en: 'Done.', 'zh-CN': '已完成。' },
  finishAwaitingApproval: { en: 'Waiting for your approval.', 'zh-CN': '等待你的审批。' },
  finishAwaitingInput: { en: 'Waiting for your answer.', 'zh-CN': '等待你的回答。' },
  finishCancelled: { en: 'Stopped.', 'zh-CN': '已停止。' },
  finishLength: {
    en: 'Stopped: the answer reached the length limit.',
    'zh-CN': '已停止：回答达到长度上限。',
  },
  finishContentFilter: { en: 'Stopped by the content filter.', 'zh-CN': '被内容过滤器停止。' },
  finishOther: { en: 'Finished.', 'zh-CN': '已结束。' },
  stop: { en: 'Stop', 'zh-CN': '停止' },
  approved: { en: 'Approved', 'zh-CN': '已批准' },
  denied: { en: 'Denied', 'zh-CN': '已拒绝' },
  noAgents: { en: 'No agent is served.', 'zh-CN': '没有可用的 Agent。' },
  overrides: { en: 'Agent overrides (toolPolicy as written)', 'zh-CN': 'Agent 覆盖（文件中的 toolPolicy）' },
  none: { en: 'none', 'zh-CN': '无' },
  previewChange: { en: 'Preview a change', 'zh-CN': '预览修改' },
  previewNote: {
    en: 'Nothing is saved: the server builds the changed file in memory. Paste the YAML below into the file to keep the change.',
    'zh-CN': '不会保存任何内容：服务器在内存中构建修改后的文件。要保留修改，请把下面的 YAML 粘贴进文件。',
  },
  changeTarget: { en: 'Change', 'zh-CN': '修改对象' },
  theAgent: { en: 'the agent itself', 'zh-CN': 'Agent 本身' },
  selected: { en: 'Selected', 'zh-CN': '选入' },
  override: { en: 'toolPolicy', 'zh-CN': 'toolPolicy' },
  inherit: { en: '—', 'zh-CN': '—' },
  disable: { en: 'disabled', 'zh-CN': '禁用' },
  enable: { en: 'enabled', 'zh-CN': '启用' },
  parentTool: {
    en: "the parent's tool: not in this sub-agent's tools",
    'zh-CN': '父 Agent 的工具：不在此子 Agent 的工具中',
  },
  preview: { en: 'Preview', 'zh-CN': '预览' },
  yamlToCopy: { en: 'YAML to copy', 'zh-CN': '要复制的 YAML' },
  copy: { en: 'Copy', 'zh-CN': '复制' },
  copied: { en: 'Copied', 'zh-CN': '已复制' },
  question: { en: 'Question from', 'zh-CN': '提问来自' },
  submit: { en: 'Submit', 'zh-CN': '提交' },
  done: { en: 'Done', 'zh-CN': '已完成' },
  decline: { en: 'Decline', 'zh-CN': '拒绝回答' },
  cancel: { en: 'Cancel', 'zh-CN': '取消' },
  answered: { en: 'Answered', 'zh-CN': '已回答' },
  declined: { en: 'Declined', 'zh-CN': '已拒绝回答' },
  cancelled: { en: 'Cancelled', 'zh-CN': '已取消' },
  openYourself: {
    en: 'Open this page yourself if you trust it',
    'zh-CN': '如果你信任它，请自行打开此页面',
  },
  notHttps: {
    en: 'Not an https address; copy it only if you trust it',
    'zh-CN': '不是 https 地址；仅在你信任它时复制',
  },
  attach: { en: 'Attach an image or PDF (or drop it here)', 'zh-CN': '附加图片或 PDF（或拖放到这里）' },
  attached: { en: 'Attached files', 'zh-CN': '已附加的文件' },
  remove: { en: 'Remove', 'zh-CN': '移除' },
  servedBy: { en: 'Served by', 'zh-CN': '服务端' },
  workflowOnly: { en: 'A workflow file: no tools to show.', 'zh-CN': '工作流文件：没有可显示的工具。' },
} satisfies Record<string, Record<Lang, string>>;

export type Word = keyof typeof WORDS;

export function t(lang: Lang, word: Word): string {
  return WORDS[word][lang];
}

const FINISH: Readonly<Record<string, Word>> = {
  stop: 'finishStop',
  toolCalls: 'finishStop',
  awaitingApproval: 'finishAwaitingApproval',
  awaitingInput: 'finishAwaitingInput',
  cancelled: 'finishCancelled',
  length: 'finishLength',
  contentFilter: 'finishContentFilter',
};

/** How a turn ended, in words (never the enum the wire carries). */
export function finishWords(lang: Lang, reason: string): string {
  return t(lang, FINISH[reason] ?? 'finishOther');
}
