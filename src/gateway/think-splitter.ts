const OPEN = '<think>';
const CLOSE = '</think>';

/** Text split into the reasoning and the answer it holds. */
export interface SplitText {
  reasoning: string;
  text: string;
}

/**
 * Splits streamed content whose answer starts with an inline `<think>...</think>` block (a model served
 * without a reasoning parser, e.g. Qwen3 in thinking mode) into reasoning and answer text, as deltas
 * arrive: a tag cut between two deltas is held back until it is whole, and the blank lines after
 * `</think>` are dropped. Content that does not start with `<think>` is all answer. Linear in the text.
 */
export interface ThinkSplitter {
  push(delta: string): SplitText;
  /** What is still held back, at the end of the stream. */
  flush(): SplitText;
}

export function createThinkSplitter(): ThinkSplitter {
  let state: 'start' | 'thinking' | 'answer' = 'start';
  let held = '';
  /** Leading whitespace of the answer after `</think>` is dropped until its first other character. */
  let trimAnswer = false;
  const answer = (text: string): SplitText => {
    if (!trimAnswer) return { reasoning: '', text };
    const trimmed = text.trimStart();
    if (trimmed !== '') trimAnswer = false;
    return { reasoning: '', text: trimmed };
  };
  const think = (text: string): SplitText => {
    const close = text.indexOf(CLOSE);
    if (close >= 0) {
      state = 'answer';
      held = '';
      trimAnswer = true;
      const rest = answer(text.slice(close + CLOSE.length));
      return { reasoning: text.slice(0, close), text: rest.text };
    }
    // keep a tail that may be the start of `</think>`
    let keep = Math.min(CLOSE.length - 1, text.length);
    while (keep > 0 && !CLOSE.startsWith(text.slice(text.length - keep))) keep -= 1;
    held = text.slice(text.length - keep);
    return { reasoning: text.slice(0, text.length - keep), text: '' };
  };
  return {
    push(delta) {
      if (state === 'answer') return answer(delta);
      if (state === 'thinking') return think(held + delta);
      held += delta;
      const start = held.trimStart();
      if (start.length < OPEN.length && OPEN.startsWith(start)) return { reasoning: '', text: '' };
      if (!start.startsWith(OPEN)) {
        state = 'answer';
        const text = held;
        held = '';
        return { reasoning: '', text };
      }
      state = 'thinking';
      return think(start.slice(OPEN.length));
    },
    flush() {
      const rest = held;
      held = '';
      if (state === 'thinking') return { reasoning: rest, text: '' };
      return { reasoning: '', text: rest };
    },
  };
}
