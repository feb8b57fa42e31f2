/**
 * The parts of an OpenAI chat request that autotier reads. Everything else in the body is passed
 * through untouched, so these types are deliberately narrow.
 */
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: string } }
  | { type: string; [key: string]: unknown };

export interface ChatMessage {
  role: string;
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: unknown[];
  tool_call_id?: string;
  [key: string]: unknown;
}

/** Text of one message's content, parts joined by newlines; images ignored. */
export function toMessageText(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) {
    if (part.type === 'text' && typeof part['text'] === 'string') {
      text = text.length === 0 ? part['text'] : `${text}\n${part['text']}`;
    }
  }
  return text;
}

/** Number of image parts in one message's content. */
export function countImageParts(content: ChatMessage['content']): number {
  if (!Array.isArray(content)) return 0;
  let images = 0;
  for (const part of content) if (part.type === 'image_url' || part.type === 'input_image') images += 1;
  return images;
}

/**
 * Parts of one message's content whose tokens no text count sees: every part that is neither a text
 * part with a string `text` nor an image (video_url, input_audio, audio_url, image_embeds, file,
 * refusal, and any type a server may add). A multimodal server turns such a part into as many tokens
 * as its processor makes (a video's frames run to tens of thousands), so admission charges a prompt
 * holding one at the most its deployments' windows allow.
 */
export function countUncountedParts(content: ChatMessage['content']): number {
  if (!Array.isArray(content)) return 0;
  let uncounted = 0;
  for (const part of content) {
    const counted =
      (part.type === 'text' && typeof part['text'] === 'string') ||
      part.type === 'image_url' ||
      part.type === 'input_image';
    if (!counted) uncounted += 1;
  }
  return uncounted;
}
