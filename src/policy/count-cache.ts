/**
 * Token counts of recently seen texts, bounded by their total length. Chat clients resend the whole
 * conversation and the same system prompt (an IDE plugin's is several thousand tokens) on every turn,
 * so most of a request's text was counted moments ago.
 */
export interface CountCache {
  get(text: string): number | undefined;
  set(text: string, tokens: number): void;
}

export function createCountCache(options: { maxCharacters: number }): CountCache {
  /** Insertion order is recency order: a hit moves its entry to the end. */
  const entries = new Map<string, number>();
  let characters = 0;
  return {
    get(text) {
      const tokens = entries.get(text);
      if (tokens !== undefined) {
        entries.delete(text);
        entries.set(text, tokens);
      }
      return tokens;
    },
    set(text, tokens) {
      if (text.length > options.maxCharacters / 4 || entries.has(text)) return;
      entries.set(text, tokens);
      characters += text.length;
      for (const oldest of entries.keys()) {
        if (characters <= options.maxCharacters) break;
        entries.delete(oldest);
        characters -= oldest.length;
      }
    },
  };
}
