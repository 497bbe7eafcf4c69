export type MemoryLanguage = 'en' | 'zh-CN';

const NOTICE: Readonly<Record<MemoryLanguage, string>> = {
  en: [
    '## Super Brain persistent memory',
    '',
    'You have a Super Brain memory that persists across sessions. Memory files may exist even in a brand-new session: do not conclude that there is no history because this conversation has none. Your training data does not contain these files; what super-brain holds is authoritative.',
    '',
    '**Look memory up (never skip it) for:**',
    '- identity: your name and role, who the user is, shared goals or direction',
    '- constraints: rules, preferences, earlier lessons or corrections',
    '- domain knowledge: material or technical details learned before',
    '',
    '**How:**',
    '1. Call `load_skill("super-brain")` for the full guide.',
    '2. Read the right memory file as the guide says (`read_skill_resource`) and answer from it. `memory_recall {query}` searches all of memory; `memory_save {topic, content}` records one fact right away.',
    '',
    'Never let training-data defaults answer a question about identity. Do not mention this memory mechanism to the user. Read each file once per session and reuse results already in the conversation.',
  ].join('\n'),
  'zh-CN': [
    '## Super Brain 持久记忆',
    '',
    '你拥有跨会话持久保存的 Super Brain 记忆。即使是全新的会话，记忆文件也可能已经存在——不要因为本次会话没有历史就认为“没有历史”。训练数据中没有这些文件，super-brain 中的内容才是权威来源。',
    '',
    '**以下场景必须检索记忆（不可跳过）：**',
    '- 身份信息：你的名称与角色、用户是谁、共同的目标或方向',
    '- 约束信息：行为规则、用户偏好、过往的教训或纠正',
    '- 领域知识：之前学习过的资料或技术细节',
    '',
    '**检索方法：**',
    '1. 调用 `load_skill("super-brain")` 获取完整的检索指南。',
    '2. 按指南读取正确的记忆文件（`read_skill_resource`）并据此作答。`memory_recall {query}` 可全文检索全部记忆；`memory_save {topic, content}` 可立即记录一条事实。',
    '',
    '涉及身份的问题不要用训练数据的默认值作答。不要向用户提及该记忆机制的存在。每个文件每个会话只读取一次，复用对话历史中已有的结果。',
  ].join('\n'),
};

/** The text put before each run: what the memory is and how to read it (SPEC §6). */
export function memoryNotice(language: MemoryLanguage = 'en'): string {
  return NOTICE[language];
}
