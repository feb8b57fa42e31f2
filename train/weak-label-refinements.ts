/**
 * Finer soft targets for weak math and code sources, from their own difficulty levels (`native`).
 * The README says MATH levels and MBPP map one tier too high, GSM8K is often MODERATE and mapped
 * EXPERT math is often COMPLEX; the rubric puts one-step arithmetic at SIMPLE and olympiad math at
 * EXPERT. Shares are SIMPLE, MODERATE, COMPLEX, EXPERT. The first matching rule wins.
 */
export interface WeakLabelRefinement {
  source: string;
  matches: (native: Readonly<Record<string, unknown>>) => boolean;
  target: readonly [number, number, number, number];
}

const bench = (name: string) => (native: Readonly<Record<string, unknown>>) => native['bench'] === name;
const mathLevel = (level: number) => (native: Readonly<Record<string, unknown>>) =>
  native['bench'] === 'MATH-500' && native['level'] === level;
const cmathSteps = (low: number, high: number) => (native: Readonly<Record<string, unknown>>) => {
  const steps = native['reasoning_step'];
  return native['bench'] === 'cmath' && typeof steps === 'number' && steps >= low && steps <= high;
};

export const WEAK_LABEL_REFINEMENTS: readonly WeakLabelRefinement[] = [
  { source: 'jincan333__MAS-TTS', matches: mathLevel(1), target: [0.2, 0.7, 0.1, 0] },
  { source: 'jincan333__MAS-TTS', matches: mathLevel(2), target: [0.05, 0.65, 0.3, 0] },
  { source: 'jincan333__MAS-TTS', matches: mathLevel(3), target: [0, 0.45, 0.5, 0.05] },
  { source: 'jincan333__MAS-TTS', matches: mathLevel(4), target: [0, 0.15, 0.65, 0.2] },
  { source: 'jincan333__MAS-TTS', matches: mathLevel(5), target: [0, 0.05, 0.5, 0.45] },
  { source: 'jincan333__MAS-TTS', matches: bench('AIME2024'), target: [0, 0, 0.15, 0.85] },
  { source: 'jincan333__MAS-TTS', matches: bench('MBPP-sanitized'), target: [0, 0.45, 0.55, 0] },
  { source: 'openai__grade-school-math', matches: () => true, target: [0.05, 0.55, 0.4, 0] },
  { source: 'QwenLM__Qwen2.5-Math', matches: bench('mawps'), target: [0.8, 0.2, 0, 0] },
  { source: 'QwenLM__Qwen2.5-Math', matches: bench('svamp'), target: [0.8, 0.2, 0, 0] },
  { source: 'QwenLM__Qwen2.5-Math', matches: cmathSteps(1, 1), target: [0.75, 0.25, 0, 0] },
  { source: 'QwenLM__Qwen2.5-Math', matches: cmathSteps(2, 2), target: [0.35, 0.6, 0.05, 0] },
  { source: 'QwenLM__Qwen2.5-Math', matches: cmathSteps(3, 3), target: [0.1, 0.6, 0.3, 0] },
  { source: 'QwenLM__Qwen2.5-Math', matches: cmathSteps(4, 9), target: [0, 0.45, 0.55, 0] },
  { source: 'QwenLM__Qwen2.5-Math', matches: bench('cn_middle_school'), target: [0.05, 0.45, 0.45, 0.05] },
  { source: 'QwenLM__Qwen2.5-Math', matches: bench('gaokao2024_mix'), target: [0, 0.2, 0.6, 0.2] },
  { source: 'QwenLM__Qwen2.5-Math', matches: bench('olympiadbench'), target: [0, 0, 0.3, 0.7] },
  { source: 'QwenLM__Qwen2.5-Math', matches: bench('amc23'), target: [0, 0, 0.25, 0.75] },
  { source: 'Aider-AI__refactor-benchmark', matches: () => true, target: [0, 0.1, 0.85, 0.05] },
];

export function findRefinedTarget(
  source: string,
  native: Readonly<Record<string, unknown>>,
): number[] | undefined {
  const rule = WEAK_LABEL_REFINEMENTS.find(
    (candidate) => candidate.source === source && candidate.matches(native),
  );
  return rule === undefined ? undefined : [...rule.target];
}
