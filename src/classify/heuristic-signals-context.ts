import type { DerivedSignal } from './heuristic-signal.js';

/**
 * A small task about attached code: an IDE sends a whole file and asks to rename a
 * variable, add a comment or say in two sentences what the file does. The rubric judges the work
 * asked for, not the length of the context, so the attached code must not make such a request COMPLEX.
 */

/** The whole last user message from this length on counts as carrying attached context, in UTF-16 code units. */
const ATTACHED_CONTEXT_CHARS = 1500;
/** Longest instruction (text outside the code fences of the examined window) that counts as a small task. */
const SMALL_INSTRUCTION_CHARS = 200;
const FENCE = '```';

/** Tasks that ask for a small, local edit or a short description of the code they come with. */
const SMALL_CODE_TASK = new RegExp(
  [
    '\\brename (?:the |this |that )?(?:variable|function|method|class|field|parameter|constant|file|`)',
    '\\badd (?:a |an )?(?:one[- ]line |short |brief |single )?(?:comment|docstring|jsdoc|type hint|log line)',
    '\\bwhat does (?:this|the) (?:file|code|class|module|function|component|snippet|script|method) do\\b',
    '\\bin (?:one|two|three|a few|a couple of|1|2|3) (?:sentences?|lines?|words)\\b',
    '\\bfix (?:the |this |a )?(?:typo|indentation|formatting|spelling)',
    '\\b(?:sort|organi[sz]e) (?:the )?imports\\b|\\bremove (?:the )?(?:unused|console\\.log|commented)',
    '변수(?:명|이름)(?:을|를)? ?(?:바꿔|변경)|주석(?:을|를)? ?(?:달아|추가)|이 (?:파일|코드)(?:은|는|가)? 뭐',
    '(?:重命名|改名)|添加(?:一行)?注释|这个(?:文件|代码)是做什么',
    '(?:名前|変数名)を.{0,6}(?:変更|変え)|コメントを(?:追加|付け)|この(?:ファイル|コード)は何を',
  ].join('|'),
);

/** The text of `lowerText` outside ``` fences, trimmed; undefined when it has fewer than two fences. */
export function toTextOutsideFences(lowerText: string): string | undefined {
  const parts = lowerText.split(FENCE);
  if (parts.length < 3) return undefined;
  return parts
    .filter((_, index) => index % 2 === 0)
    .join(' ')
    .trim();
}

export const CONTEXT_DERIVED_SIGNALS: readonly DerivedSignal[] = [
  {
    name: 'small_task_on_code',
    weights: [0.2, 1.6, -0.8, -1.6],
    ceiling: 'MODERATE',
    test: ({ input }) => {
      if (input.textLength < ATTACHED_CONTEXT_CHARS) return false;
      const instruction = toTextOutsideFences(input.lowerText);
      return (
        instruction !== undefined &&
        instruction.length > 0 &&
        instruction.length <= SMALL_INSTRUCTION_CHARS &&
        SMALL_CODE_TASK.test(instruction)
      );
    },
  },
];
