import type { RuleScope } from '../config/classifier-rule-schema.js';
import type { ChatMessage } from '../shared/chat.js';
import { toMessageTextWindow } from './message-text.js';

/**
 * Characters (UTF-16 code units) of a conversation part that routing-table rules read: 64 KiB,
 * so a 1 MB prompt costs each rule what a 64 KiB one does. @default 65536
 */
export const RULE_TEXT_CHARS = 65_536;

/** Between two messages of one part: a rule's match never spans them by accident. */
const MESSAGE_SEPARATOR = '\n\n';

function isInScope(role: string, scope: RuleScope): boolean {
  switch (scope) {
    case 'last_user':
    case 'any_user':
      return role === 'user';
    case 'system':
      return role === 'system' || role === 'developer';
    case 'all':
      return true;
  }
}

/**
 * The text a rule of `scope` reads: the text of the part's messages (text parts joined by newlines,
 * as the classifier reads them), newest message first, separated by a blank line, cut at `limit`
 * characters. `last_user` is the last message with role `user` alone (none: the empty text); `system`
 * includes `developer` messages. Each message's text is read only up to what is left of the limit, and
 * no message's whole text is built.
 */
export function toRuleText(
  messages: readonly ChatMessage[],
  { scope, limit }: { scope: RuleScope; limit: number },
): string {
  let text = '';
  for (let index = messages.length - 1; index >= 0 && text.length < limit; index -= 1) {
    const message = messages[index];
    if (message === undefined || !isInScope(message.role, scope)) continue;
    const joined = text === '' ? '' : MESSAGE_SEPARATOR;
    const room = limit - text.length - joined.length;
    if (room <= 0) break;
    const { head } = toMessageTextWindow(message.content, { headChars: room, tailChars: 0 });
    if (head !== '') text = `${text}${joined}${head}`;
    if (scope === 'last_user') break;
  }
  return text.slice(0, limit);
}
