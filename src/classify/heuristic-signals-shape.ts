import type { DerivedSignal, SignalContext } from './heuristic-signal.js';

/** Pattern signals that mean "there is real work to do"; a greeting or lookup with one of these is not small talk. */
const TASK_SIGNALS: readonly string[] = [
  'translate_verb',
  'summarize_verb',
  'rewrite_verb',
  'creative_writing',
  'roleplay',
  'brainstorm_list',
  'classify_verb',
  'code_block',
  'code_syntax',
  'code_request',
  'stack_trace',
  'debug_request',
  'math_notation',
  'math_word_problem',
  'proof_request',
  'code_chore',
  'competition_math',
  'formal_math',
  'analysis_request',
  'logic_puzzle',
  'data_extraction',
  'multi_step',
  'advice',
];

/** Thresholds in UTF-16 code units of the whole last user message. */
const VERY_SHORT_CHARS = 25;
const SHORT_CHARS = 80;
const LONG_PROMPT_CHARS = 1500;
const LONG_DOCUMENT_CHARS = 6000;
/** Turns (non-system messages) from which a conversation counts as long. */
const LONG_CONVERSATION_TURNS = 6;
/** System prompts longer than this look like an IDE plugin or agent framework, in UTF-16 code units. */
const LONG_SYSTEM_CHARS = 2000;

/** A short closed question: "is python case sensitive?", "can reindeer fly?", "…맞죠?", "…吗？", "…ですか？". */
const YES_NO_QUESTION =
  /^\W*(?:is|are|was|were|does|do|did|can|could|has|have|will)\b[^?\n]*\?\s*$|(?:맞죠|맞아요|나요|까요)\??\s*$|吗[？?]?\s*$|(?:ですか|ますか|る)[？?]\s*$/;

/** Longest word problem that still counts as one or two arithmetic steps, in UTF-16 code units. */
const SMALL_WORD_PROBLEM_CHARS = 260;
/** Most numbers a small word problem states (one step needs two, two steps three). */
const SMALL_WORD_PROBLEM_NUMBERS = 3;
const NUMBER = /\d+(?:[.,]\d+)*/g;
/** Probability and counting questions are multi-step even when short (RUBRIC: COMPLEX). */
const PROBABILITY = /probabilit|odds of|확률|概率|確率/;
/** Signals that make a word problem more than school arithmetic, or the request more than a word problem. */
const HARD_MATH_SIGNALS: readonly string[] = [
  'research_level',
  'expert_domain',
  'analysis_request',
  'constraint_markers',
  'math_notation',
  'competition_math',
  'proof_request',
  'formal_math',
  'advanced_math',
  'functional_equation',
  'contest_bounds',
  'logic_puzzle',
  'code_request',
  'code_vocab',
];

function countNumbers(text: string): number {
  return text.match(NUMBER)?.length ?? 0;
}

function hasTask({ fired }: SignalContext): boolean {
  return TASK_SIGNALS.some(fired);
}

/** Signals computed from lengths, conversation shape and the pattern signals that fired. */
export const SHAPE_SIGNALS: readonly DerivedSignal[] = [
  {
    name: 'greeting_only',
    weights: [2.2, 0, -1.5, -2],
    ceiling: 'SIMPLE',
    test: (context) =>
      (context.fired('greeting') || context.fired('small_talk')) &&
      context.input.textLength <= 60 &&
      !hasTask(context) &&
      !context.fired('code_vocab'),
  },
  {
    name: 'short_lookup',
    weights: [1.2, 0, -0.8, -1.2],
    test: (context) =>
      (context.fired('fact_question') || context.fired('definition') || context.fired('conversion')) &&
      !context.fired('explanation_question') &&
      context.input.textLength <= 90 &&
      !hasTask(context),
  },
  {
    name: 'short_arithmetic',
    weights: [1.5, 0, -1, -1.5],
    test: ({ input, fired }) => fired('one_step_arithmetic') && input.textLength <= 80,
  },
  {
    /**
     * "Josh had 21 marbles. He found 7. How many does he have now?" (MAWPS, SVAMP, CMATH): it fires on
     * 38 gold-labeled prompts, 30 SIMPLE and 8 MODERATE; the model alone puts them at MODERATE.
     */
    name: 'small_word_problem',
    weights: [1, 0.2, -0.6, -1],
    test: (context) => {
      const { input, profile, fired } = context;
      if (!fired('math_word_problem') || input.textLength > SMALL_WORD_PROBLEM_CHARS) return false;
      if (profile.mathSymbols > 0 || HARD_MATH_SIGNALS.some(fired)) return false;
      if (PROBABILITY.test(input.lowerText)) return false;
      const numbers = countNumbers(input.lowerText);
      return numbers >= 1 && numbers <= SMALL_WORD_PROBLEM_NUMBERS;
    },
  },
  {
    name: 'yes_no_question',
    weights: [0.6, 0.2, -0.4, -0.8],
    test: ({ input, fired }) =>
      input.textLength <= 80 && YES_NO_QUESTION.test(input.lowerText) && !fired('explanation_question'),
  },
  {
    name: 'very_short',
    weights: [0.8, 0.3, -0.6, -1],
    test: ({ input, profile }) => input.textLength <= VERY_SHORT_CHARS && profile.words <= 4,
  },
  {
    name: 'short_text',
    weights: [0.4, 0.2, -0.2, -0.5],
    test: ({ input }) => input.textLength < SHORT_CHARS,
  },
  {
    name: 'long_prompt',
    weights: [-1, 0, 0.5, 0.2],
    test: ({ input }) => input.textLength >= LONG_PROMPT_CHARS,
  },
  {
    name: 'long_document',
    weights: [-1.5, 0, 0.6, 0.3],
    test: ({ input }) => input.textLength >= LONG_DOCUMENT_CHARS,
  },
  {
    name: 'dense_code',
    weights: [-1.5, -0.3, 1.1, 0.2],
    test: ({ input, profile }) =>
      input.text.length >= 80 && profile.mathSymbols < 3 && profile.codeSymbols >= 0.03 * input.text.length,
  },
  {
    name: 'dense_math',
    weights: [-1, 0, 0.4, 0.6],
    test: ({ profile }) => profile.mathSymbols >= 6,
  },
  {
    name: 'several_questions',
    weights: [-0.6, 0.5, 0.2, 0],
    test: ({ profile }) => profile.questionMarks >= 2,
  },
  {
    name: 'many_numbers',
    weights: [-0.3, 0.2, 0.3, 0],
    test: ({ profile }) => profile.digits >= 6,
  },
  {
    name: 'long_conversation',
    weights: [-0.3, 0.2, 0.2, 0],
    test: ({ input }) => input.turns >= LONG_CONVERSATION_TURNS,
  },
  { name: 'recent_code', weights: [-0.8, 0, 0.6, 0.1], test: ({ input }) => input.recentCode },
  {
    name: 'long_system_prompt',
    weights: [-0.2, 0.1, 0.1, 0],
    test: ({ input }) => input.systemLength >= LONG_SYSTEM_CHARS,
  },
  { name: 'tools_present', weights: [-0.3, 0, 0.2, 0], test: ({ input }) => input.hasTools },
];
