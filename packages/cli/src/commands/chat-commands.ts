/**
 * `raf chat`'s own commands: a line that is one `/word` is for the chat, never for the model.
 * `//text` sends `/text`; a path such as `/etc/hosts is it there?` is a message.
 */
export const CHAT_HELP = `Commands (never sent to the model):
  /help      this list
  /session   the session id (resume it with raf chat FILE --session ID)
  /always    the tools approved for this session (answer a at an approval prompt)
  /exit      leave (also /quit or Ctrl-D); the session is saved
Ctrl-C cancels the turn, at the approval prompt too (what waits is denied and not run).
Start a message with // to send one that begins with a slash.
`;

/** The command a line names (`exit`, `help`, …, or the unknown word), or undefined for a message. */
export function chatCommandOf(line: string): string | undefined {
  const word = /^\/([A-Za-z][\w-]*)$/.exec(line.trim())?.[1]?.toLowerCase();
  if (word === undefined) return undefined;
  return word === 'quit' ? 'exit' : word;
}
