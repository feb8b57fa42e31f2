import { toMessageText, type ChatMessage } from '../shared/chat.js';

/** The last user message's text, for content logging only. */
export function toPromptText(messages: readonly ChatMessage[]): string {
  const last = [...messages].reverse().find((message) => message.role === 'user');
  return last === undefined ? '' : toMessageText(last.content);
}
