import { toMessageText, type ChatMessage } from '../src/shared/chat.js';

/** Fixed per-message overhead (role markers of the chat template), in tokens. */
const TOKENS_PER_MESSAGE = 4;
/** Rough characters per token for English text; good enough for a simulator. */
const CHARS_PER_TOKEN = 4;

/** Tokens of a plain prompt string: ceil(chars / 4). */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Prompt tokens of a chat request: ceil(chars / 4) + 4 per message; images count 0. */
export function estimatePromptTokens(messages: readonly ChatMessage[]): number {
  let tokens = 0;
  for (const message of messages) {
    tokens += estimateTextTokens(toMessageText(message.content)) + TOKENS_PER_MESSAGE;
  }
  return tokens;
}
